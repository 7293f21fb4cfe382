"""The repository's Python files pass the lint and the format configured in ``pyproject.toml`` (ruff:
pyflakes and syntax errors; ruff's format), and the lint does catch what it is there for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=300
    )


def test_repository_passes_the_lint():
    proc = _ruff("check", "--output-format", "concise", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_repository_is_formatted():
    proc = _ruff("format", "--check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_format_check_catches_a_badly_formatted_file():
    proc = _ruff("format", "--check", "--stdin-filename", "seqrmt/planted.py", "-", stdin="x = {  'a':1 }\n")
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_lint_catches_an_unused_import_and_an_empty_f_string():
    planted = 'import os\n\nprint(f"no placeholder")\n'
    proc = _ruff("check", "--output-format", "concise", "--stdin-filename", "seqrmt/planted.py", "-", stdin=planted)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "F401" in proc.stdout and "F541" in proc.stdout, proc.stdout
