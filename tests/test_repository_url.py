"""The public repository URL is defined once (``_config.yml``) and repeated consistently."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("set_repository_url", ROOT / "scripts" / "set_repository_url.py")
seturl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seturl)


def _urls(text: str) -> set[str]:
    """Every GitHub repository named in a text, as https://github.com/<owner>/<name>."""
    found = set(re.findall(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:[/)\"'\s]|$)", text))
    found |= set(re.findall(r"mybinder\.org/v2/gh/([\w.-]+/[\w.-]+)/", text))
    return {f"https://github.com/{slug}" for slug in found}


def _text(path: Path) -> str:
    """A file's text; for a notebook, the sources of its cells."""
    if path.suffix == ".ipynb":
        return "\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"])
    return path.read_text(encoding="utf-8")


def test_readme_and_citation_use_the_configured_url():
    url = seturl.current()
    for name in ("README.md", "CITATION.cff"):
        urls = _urls((ROOT / name).read_text())
        assert urls == {url}, f"{name} names {sorted(urls)}, _config.yml says {url}"


def test_the_install_cells_use_the_configured_url():
    """The hidden first cell of each chapter installs seqrmt from the configured repository."""
    url = seturl.current()
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        text = _text(path)
        urls = _urls(text)
        assert urls <= {url}, f"{path.name} names {sorted(urls)}, _config.yml says {url}"
        if "import seqrmt" in text or "from seqrmt" in text:  # not the build status page
            assert f'"git+{url}"' in text, f"{path.name}: no install cell with git+{url}"


def test_the_script_rewrites_every_copy(tmp_path, monkeypatch):
    for name in ("_config.yml", "README.md", "CITATION.cff"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "book").mkdir()
    shutil.copy(ROOT / "book" / "01_model.ipynb", tmp_path / "book" / "01_model.ipynb")
    monkeypatch.setattr(seturl, "ROOT", tmp_path)
    assert seturl.main(["https://github.com/someone/book"]) == 0
    assert seturl.current() == "https://github.com/someone/book"
    for name in ("README.md", "CITATION.cff", "book/01_model.ipynb"):
        assert _urls(_text(tmp_path / name)) == {"https://github.com/someone/book"}
    assert seturl.main(["not a url"]) == 2
