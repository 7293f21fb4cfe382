"""The files a version's release carries (``scripts/release_assets.py``, run by the publish
workflow on a version tag): the PDF, the notebooks zip and this version's site archives, named by
the version; a missing one is an error."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("seqrmt_release_assets_script", ROOT / "scripts" / "release_assets.py")
release_assets = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = release_assets
_spec.loader.exec_module(release_assets)


def _site(tmp_path: Path, version: str) -> Path:
    site = tmp_path / "site"
    (site / "_pdf").mkdir(parents=True)
    (site / "_downloads").mkdir()
    (site / "editions").mkdir()
    (site / "_pdf" / "seqrmt-book.pdf").write_bytes(b"%PDF")
    (site / "_downloads" / "seqrmt-notebooks.zip").write_bytes(b"PK")
    (site / "editions" / f"seqrmt-book-{version}-full-site.zip").write_bytes(b"PK")
    (site / "editions" / "seqrmt-book-0.0.1-full-site.zip").write_bytes(b"PK")
    return site


def test_release_assets_name_the_version(tmp_path: Path) -> None:
    site = _site(tmp_path, "0.3.0")
    files = release_assets.assets(site, "0.3.0")
    assert set(files) == {"seqrmt-book-0.3.0.pdf", "seqrmt-notebooks-0.3.0.zip", "seqrmt-book-0.3.0-full-site.zip"}
    (site / "_pdf" / "seqrmt-book.pdf").unlink()
    with pytest.raises(FileNotFoundError, match="seqrmt-book.pdf"):
        release_assets.assets(site, "0.3.0")
    assert "seqrmt-book-0.3.0.pdf" not in release_assets.assets(site, "0.3.0", pdf=False)


def test_the_command_copies_this_versions_files(tmp_path: Path) -> None:
    from seqrmt_book.editions import book_version

    version = book_version(ROOT)
    site, out = _site(tmp_path, version), tmp_path / "release"
    assert release_assets.main([str(site), str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"seqrmt-book-{version}.pdf", f"seqrmt-book-{version}-full-site.zip", f"seqrmt-notebooks-{version}.zip"]
    )
    (site / "_downloads" / "seqrmt-notebooks.zip").unlink()
    assert release_assets.main([str(site), str(out)]) == 1
