"""One registry of the environment variables (``seqrmt/settings.py``).

* Reading a variable goes through the registry: an undeclared name is an error that says where to
  declare it; unset or blank reads the default; :func:`seqrmt.settings.flag` reads ``1``, ``true``,
  ``yes``, ``on``.
* Every ``SEQRMT_*`` name anywhere in the repository's code (the package, the book's extensions and
  chapters, the scripts, the tests, the benchmarks, CI and the workflows) is declared; a planted
  undeclared one is found.
* No Python file reads a ``SEQRMT_*`` variable from ``os.environ`` itself but the registry (and the
  files of :data:`READ_DIRECTLY`).
* CONTRIBUTING's table is the registry's (names, defaults, effects, readers, in order); each declared
  reader exists and names its variable; the chapters' install cells read the declared default.
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

import pytest

from seqrmt import settings

ROOT = Path(__file__).resolve().parents[1]
#: Where the code lives (every text file under these is scanned, but vendored code).
CODE = ("seqrmt", "seqrmt_book", "scripts", "tests", "benchmarks", "problems", "book", "slides", ".ci", ".github")
SUFFIXES = (".py", ".sh", ".yml", ".yaml", ".ipynb", ".js", ".cjs", ".toml", ".cfg", "")
SKIP_PARTS = {"vendor", "node_modules", "__pycache__", "_build", "mathjax"}
NAME = re.compile(r"\bSEQRMT_[A-Z0-9_]*[A-Z0-9]\b")
#: A read of the environment in Python that names a variable itself: ``os.environ["SEQRMT_X"]``,
#: ``os.environ.get("SEQRMT_X")``, ``os.getenv("SEQRMT_X")``.
DIRECT_READ = re.compile(
    r"""(?:environ\.get|getenv)\s*\(\s*f?["']SEQRMT_"""  # a call
    r"""|environ\s*\[\s*f?["']SEQRMT_\w+["']\s*\](?!\s*=(?!=))"""  # a subscript, not an assignment
)
#: Python files that still read a variable from ``os.environ`` themselves (each one declared).
READ_DIRECTLY: set[str] = set()
#: This file, whose names are planted on purpose.
SCANNER = Path(__file__).resolve()


def code_files(root: Path = ROOT, folders: tuple[str, ...] = CODE) -> list[Path]:
    """The text files of the code (:data:`CODE`), vendored files left out."""
    out = []
    for folder in folders:
        base = root / folder
        paths = [base] if base.is_file() else sorted(base.rglob("*"))
        for path in paths:
            if (
                path.is_file()
                and path.suffix in SUFFIXES
                and path != SCANNER
                and not SKIP_PARTS & set(path.relative_to(root).parts)
            ):
                out.append(path)
    return out


def undeclared(paths: list[Path], root: Path = ROOT) -> dict[str, list[str]]:
    """Every ``SEQRMT_*`` name in ``paths`` that the registry does not declare, with the files naming it."""
    declared = {s.name for s in settings.SETTINGS}
    found: dict[str, list[str]] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in sorted(set(NAME.findall(text)) - declared):
            found.setdefault(name, []).append(path.relative_to(root).as_posix())
    return found


def direct_reads(paths: list[Path], root: Path = ROOT) -> list[str]:
    """The Python files of ``paths`` that read a ``SEQRMT_*`` variable from ``os.environ`` themselves."""
    return [
        path.relative_to(root).as_posix()
        for path in paths
        if path.suffix == ".py" and DIRECT_READ.search(path.read_text(encoding="utf-8", errors="replace"))
    ]


# ------------------------------------------------------------------ reading a variable
def test_an_undeclared_name_is_an_error_that_says_where_to_declare_it() -> None:
    for read in (settings.get, settings.flag, settings.setting):
        with pytest.raises(settings.UnknownSetting) as err:
            read("SEQRMT_CACHE_DRI")
        assert "'SEQRMT_CACHE_DRI' is not a setting of seqrmt" in str(err.value)
        assert "seqrmt/settings.py" in str(err.value) and "SEQRMT_CACHE_DIR" in str(err.value)
    with pytest.raises(settings.UnknownSetting):
        settings.set_default("SEQRMT_NOT_DECLARED", "1")


def test_unset_or_blank_reads_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEQRMT_EDITION", raising=False)
    assert settings.get("SEQRMT_EDITION") == "full" == settings.setting("SEQRMT_EDITION").default
    monkeypatch.setenv("SEQRMT_EDITION", "   ")
    assert settings.get("SEQRMT_EDITION") == "full"
    monkeypatch.setenv("SEQRMT_EDITION", " students\n")
    assert settings.get("SEQRMT_EDITION") == "students"


@pytest.mark.parametrize("value, on", [("1", True), ("true", True), ("Yes", True), (" ON ", True), ("0", False)])
def test_a_flag_is_on_for_1_true_yes_on(monkeypatch: pytest.MonkeyPatch, value: str, on: bool) -> None:
    monkeypatch.setenv("SEQRMT_FULL_SWEEP", value)
    assert settings.flag("SEQRMT_FULL_SWEEP") is on
    monkeypatch.setenv("SEQRMT_FULL_SWEEP", "")
    assert settings.flag("SEQRMT_FULL_SWEEP") is False  # the default, 0


def test_set_default_keeps_a_value_set_already(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEQRMT_SCREENSHOTS", raising=False)
    settings.set_default("SEQRMT_SCREENSHOTS", "1")
    assert settings.flag("SEQRMT_SCREENSHOTS")
    settings.set_default("SEQRMT_SCREENSHOTS", "0")
    assert settings.flag("SEQRMT_SCREENSHOTS")


def test_each_variable_is_declared_once() -> None:
    names = [s.name for s in settings.SETTINGS]
    assert len(names) == len(set(names)) >= 20
    assert all(NAME.fullmatch(n) for n in names), names
    assert all(s.meaning and s.readers for s in settings.SETTINGS)


# ------------------------------------------------------------------ the code reads declared variables
def test_every_seqrmt_variable_of_the_code_is_declared() -> None:
    files = code_files()
    assert len(files) > 200, len(files)
    assert not undeclared(files), f"SEQRMT_* names not declared in seqrmt/settings.py: {undeclared(files)}"


def test_the_scan_finds_a_planted_undeclared_variable(tmp_path: Path) -> None:
    (tmp_path / "seqrmt").mkdir()
    planted = tmp_path / "seqrmt" / "planted.py"
    planted.write_text('import os\n\nLEVEL = os.environ.get("SEQRMT_PLANTED_LEVEL", "1")\n', encoding="utf-8")
    (tmp_path / "seqrmt" / "fine.py").write_text('from seqrmt import settings\nsettings.get("SEQRMT_PDF")\n')
    files = code_files(tmp_path, ("seqrmt",))
    assert undeclared(files, tmp_path) == {"SEQRMT_PLANTED_LEVEL": ["seqrmt/planted.py"]}
    assert direct_reads(files, tmp_path) == ["seqrmt/planted.py"]


def test_python_reads_the_variables_through_the_registry() -> None:
    reads = set(direct_reads(code_files())) - READ_DIRECTLY
    assert not reads, f"read SEQRMT_* from os.environ instead of seqrmt.settings.get/flag: {sorted(reads)}"
    assert DIRECT_READ.search('os.environ["SEQRMT_PDF"]') and DIRECT_READ.search("os.getenv('SEQRMT_PDF')")
    assert DIRECT_READ.search('x = os.environ["SEQRMT_PDF"] == "1"')
    assert not DIRECT_READ.search('os.environ["SEQRMT_PDF"] = "x.pdf"')  # a write


def test_every_declared_variable_is_used_and_its_readers_name_it() -> None:
    files = [p for p in code_files() if p != ROOT / "seqrmt" / "settings.py"]
    used = {name for p in files for name in NAME.findall(p.read_text(encoding="utf-8", errors="replace"))}
    assert not {s.name for s in settings.SETTINGS} - used, "declared, used nowhere"
    tracked = [p.relative_to(ROOT).as_posix() for p in files]
    for s in settings.SETTINGS:
        for reader in s.readers:
            matches = [f for f in tracked if fnmatch.fnmatch(f, reader)]
            assert matches, f"{s.name}: reader {reader} is not a file of the repository"
            naming = [f for f in matches if s.name in (ROOT / f).read_text(encoding="utf-8")]
            assert naming == matches or "*" in reader and naming, f"{s.name}: {reader} does not name it"


def test_the_install_cells_read_the_declared_default() -> None:
    default = settings.setting("SEQRMT_INSTALL_SOURCE").default
    cells = [
        "".join(cell["source"])
        for nb in sorted((ROOT / "book").glob("*.ipynb"))
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]
        if "SEQRMT_INSTALL_SOURCE" in "".join(cell["source"]) and cell["cell_type"] == "code"
    ]
    assert cells
    assert all(f'os.environ.get("SEQRMT_INSTALL_SOURCE", "{default}")' in cell for cell in cells)


# ------------------------------------------------------------------ CONTRIBUTING's table
def _contributing_rows() -> list[str]:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith("| `SEQRMT_")]


def test_contributings_table_is_the_registry() -> None:
    rows = _contributing_rows()
    expected = [row for row in settings.markdown_table().splitlines() if row.startswith("| `SEQRMT_")]
    names = [re.match(r"\| `(SEQRMT_\w+)` \| ([^|]*) \|", row).groups() for row in rows]
    assert [n for n, _ in names] == [s.name for s in settings.SETTINGS], "names differ from seqrmt/settings.py"
    assert [d.strip() for _, d in names] == [f"`{s.default}`" if s.default else "(empty)" for s in settings.SETTINGS]
    assert rows == expected, "CONTRIBUTING.md's table differs: paste the output of `python -m seqrmt.settings`"
    assert "| variable | default | effect | read by |" in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
