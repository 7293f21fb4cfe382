"""The layers of ``seqrmt`` are enforced: ``lint-imports`` (import-linter, the contracts of
``[tool.importlinter]`` in ``pyproject.toml``) passes on the package, and fails on a scratch copy of it
in which a low layer imports a high one, or the book's extensions import a private module."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports() -> str:
    exe = Path(sys.executable).with_name("lint-imports")
    found = str(exe) if exe.exists() else shutil.which("lint-imports")
    if found is None:  # pragma: no cover - requirements.txt installs it
        pytest.fail("lint-imports is not installed (pip install -r requirements.txt)")
    return found


def _run(cwd: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` with the repository's contracts, on the packages found from ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(cwd), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [_lint_imports(), "--config", str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _scratch(tmp_path: Path) -> Path:
    """A copy of the Python files of ``seqrmt`` and ``seqrmt_book`` (no data, no static files)."""
    for package in ("seqrmt", "seqrmt_book"):
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=lambda folder, names: [
                n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir() or n == "__pycache__"
            ],
        )
    return tmp_path


def _plant(path: Path, line: str) -> None:
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("from __future__ import annotations\n")
    path.write_text(head + sep + line + "\n" + rest if sep else line + "\n" + text, encoding="utf-8")


def test_the_contracts_are_kept():
    res = _run(ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "2 kept, 0 broken" in res.stdout, res.stdout


def test_a_low_layer_importing_a_high_one_fails(tmp_path):
    scratch = _scratch(tmp_path)
    assert _run(scratch).returncode == 0  # the copy keeps the contracts
    _plant(scratch / "seqrmt" / "_checks.py", "from .validation import atlas  # noqa: F401")
    res = _run(scratch)
    assert res.returncode != 0, res.stdout
    assert "seqrmt imports downwards" in res.stdout and "BROKEN" in res.stdout, res.stdout
    assert "seqrmt._checks -> seqrmt.validation" in res.stdout, res.stdout
    assert "1 kept, 1 broken" in res.stdout, res.stdout


def test_the_book_importing_a_private_module_fails(tmp_path):
    scratch = _scratch(tmp_path)
    _plant(scratch / "seqrmt_book" / "figures.py", "from seqrmt._numerics import _eigh_top  # noqa: F401")
    res = _run(scratch)
    assert res.returncode != 0, res.stdout
    assert "seqrmt_book uses only the public modules of seqrmt BROKEN" in res.stdout, res.stdout
    assert "seqrmt_book.figures -> seqrmt._numerics" in res.stdout, res.stdout
