"""A copy of the source that is not a git checkout (a ZIP download, ``git archive``) builds.

``sphinx-last-updated-by-git`` warns when git has no data (fatal under ``-W``) and deletes
``context["sourcename"]``, which sphinx-book-theme's launch buttons read; the local extension
``seqrmt_editions`` keeps both from breaking the build.  A small site with the book's theme,
launch buttons and extensions is built in a folder outside any git work tree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from seqrmt_book import editions as seqrmt_editions

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# A chapter\n", "\n", "Text."]},
        {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": None, "outputs": [], "source": ["1 + 1"]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def _site(folder: Path, *, with_editions: bool) -> Path:
    src = folder / "src"
    src.mkdir()
    (src / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1.0"\n')
    (src / "index.md").write_text("# Home\n\n```{toctree}\nchapter\n```\n")
    (src / "chapter.ipynb").write_text(json.dumps(NOTEBOOK))
    extensions = ["myst_nb", "sphinx_last_updated_by_git"] + (["seqrmt_book.editions"] if with_editions else [])
    (src / "conf.py").write_text(
        f"extensions = {extensions!r}\n"
        "html_theme = 'sphinx_book_theme'\n"
        "nb_execution_mode = 'off'\n"
        "html_theme_options = {'repository_url': 'https://github.com/seqrmt/seqrmt',\n"
        "    'use_repository_button': True,\n"
        "    'launch_buttons': {'binderhub_url': 'https://mybinder.org',\n"
        "                       'colab_url': 'https://colab.research.google.com'}}\n"
    )
    return src


def _build(src: Path) -> subprocess.CompletedProcess:
    """``sphinx-build -W`` in its own process (as the book's build runs)."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(src), str(src / "_build" / "html")],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def outside_git(tmp_path):
    if seqrmt_editions.in_git_work_tree(tmp_path):
        pytest.fail(f"{tmp_path} lies in a git work tree: the test needs a folder outside one")
    return tmp_path


def test_a_copy_without_git_builds_with_the_book_extensions(outside_git):
    src = _site(outside_git, with_editions=True)
    run = _build(src)
    assert run.returncode == 0, run.stderr
    page = (src / "_build" / "html" / "chapter.html").read_text(encoding="utf-8")
    assert "mybinder.org" in page and "colab.research.google.com" in page  # launch buttons made
    assert "Version 1.0" in page or "version 1.0" in page


def test_the_same_copy_fails_without_the_fix(outside_git):
    """The failure that the extension prevents is real (so the test above can fail)."""
    src = _site(outside_git, with_editions=False)
    run = _build(src)
    assert run.returncode != 0
    assert "Error getting data from Git" in run.stderr or "sourcename" in run.stderr


def test_keep_source_names():
    data = {"a": None, "b": (123, False), "c": (456, True)}
    seqrmt_editions.keep_source_names(data)
    assert data == {"a": (None, True), "b": (123, True), "c": (456, True)}
