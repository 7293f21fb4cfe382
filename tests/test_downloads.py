"""The downloads for offline and frozen use (``scripts/build_downloads.py``).

* The notebooks zip holds every chapter notebook of the table of contents, the students'
  notebook of every problem set (no solution, no hidden test), the ``seqrmt`` package with what
  installs it and the readers' requirements; ``.ci/run`` then runs every notebook of it with nbval
  in a fresh environment of those requirements (``scripts/check_downloads.sh``).
* Each built edition has an archive of its website, named by version and edition, and an
  archive of an earlier version is kept beside it.

On the built site (``.ci/run`` builds the downloads; ``SEQRMT_REQUIRE_DOWNLOADS=1`` makes their
absence an error) and on a scratch folder.
"""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest

from seqrmt import settings

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("build_downloads", ROOT / "scripts" / "build_downloads.py")
downloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(downloads)


def _unavailable(reason: str) -> None:
    if settings.flag("SEQRMT_REQUIRE_DOWNLOADS"):
        pytest.fail(f"{reason} (SEQRMT_REQUIRE_DOWNLOADS=1, so this is an error)", pytrace=False)
    pytest.skip(reason)


def _requirements(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_the_notebooks_zip_holds_what_a_reader_needs() -> None:
    target = downloads.SITE / "_downloads" / downloads.ZIP_NAME
    if not target.is_file():
        _unavailable(f"no {target.relative_to(ROOT)}: run python scripts/build_downloads.py")
    with zipfile.ZipFile(target) as z:
        names = set(z.namelist())
        prefix = downloads.FOLDER + "/"
        for nb in downloads.chapter_notebooks():
            assert prefix + nb.relative_to(ROOT).as_posix() in names, nb
        problems = sorted(n for n in names if n.startswith(prefix + "problems/") and n.endswith(".ipynb"))
        assert len(problems) == len(list((ROOT / "problems" / "masters").glob("*.ipynb"))) >= 9
        for name in problems:
            text = z.read(name).decode("utf-8")
            assert "BEGIN SOLUTION" not in text and "# SOLUTION" not in text and "BEGIN TESTS" not in text, name
            # runs without Otter: its public checks are seqrmt's own (grader.check, tests/test_problem_sets.py)
            assert "import otter" not in text and "grader.check" in text, name
        assert prefix + "seqrmt/__init__.py" in names and prefix + "pyproject.toml" in names
        assert prefix + "seqrmt/data/atlas.csv" in names  # the stored tables
        assert not any("__pycache__" in n for n in names)
        shipped = _requirements(z.read(prefix + "requirements.txt").decode("utf-8"))
        assert shipped == _requirements((ROOT / "binder" / "requirements.txt").read_text(encoding="utf-8"))
        assert "." in shipped  # installs the package of the zip
        assert "jupyter lab" in z.read(prefix + "README.txt").decode("utf-8")


def test_each_edition_has_its_site_archive() -> None:
    from seqrmt_book.editions import book_version

    version = book_version(ROOT)
    archives = {e: downloads.EDITIONS / f"seqrmt-book-{version}-{e}-site.zip" for e in ("full", "students")}
    if not all(a.is_file() for a in archives.values()):
        _unavailable("no site archives: run scripts/build_students.sh and python scripts/build_downloads.py")
    for edition, archive in archives.items():
        with zipfile.ZipFile(archive) as z:
            page = z.read("html/book/03_bbp.html").decode("utf-8")
        assert f"version {version}" in page
        assert ("students&#x27; edition" in page or "students' edition" in page) == (edition == "students")


def test_a_new_archive_keeps_the_old_ones(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "book").mkdir(parents=True)
    (site / "index.html").write_text("<p>v2</p>", encoding="utf-8")
    editions = tmp_path / "editions"
    editions.mkdir()
    (editions / "seqrmt-book-0.0.9-full-site.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    new = downloads.site_archive(site, editions / "seqrmt-book-1.0-full-site.zip")
    assert sorted(p.name for p in editions.iterdir()) == ["seqrmt-book-0.0.9-full-site.zip", new.name]
    assert zipfile.ZipFile(new).read("html/index.html") == b"<p>v2</p>"
