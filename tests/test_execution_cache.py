"""The execution cache of the build never serves an output of old code.

The book is built with ``execute_notebooks: cache`` and the local extension
``seqrmt_book/cache.py``, which adds what each notebook depends on (the ``seqrmt``
package, ``requirements.txt``) to its cache key.  These tests build a scratch book of three
small notebooks with the same configuration mechanism (the real extension, a package of its
own in place of ``seqrmt``) and read the execution report the extension writes after every
build (``_build/reports/execution-<builder>.json``):

* a first build executes every notebook; a second one, with nothing changed, executes none;
* an edit of a function of the package re-executes, in the same incremental build, exactly
  the notebooks that import it, and the page shows the new value (never the old one);
* a prose edit re-reads that one page, from the cache (nothing executed);
* an edit of ``requirements.txt`` re-executes every notebook; the PDF builder (``latex``, in
  an output folder of its own as in ``scripts/build_pdf.sh``) and then the HTML builder share
  the cache, so each notebook is executed once for both.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

from seqrmt_book import cache as seqrmt_cache

CONFIG = """\
title: Scratch book
author: The seqrmt authors
only_build_toc_files: true
exclude_patterns: [".*", "**/.*", _build, scratchpkg]
execute:
  execute_notebooks: cache
  timeout: 120
  allow_errors: false
html:
  use_repository_button: false
sphinx:
  extra_extensions: [seqrmt_book.cache]
  config:
    seqrmt_cache_packages: [scratchpkg]
    seqrmt_cache_files: [requirements.txt]
    nb_execution_raise_on_error: true
"""
TOC = """\
format: jb-book
root: intro
chapters:
  - file: uses_a
  - file: uses_b
  - file: plain
"""


def _notebook(path: Path, prose: str, code: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(prose), nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, path)


def _package(project: Path, value: int) -> None:
    (project / "scratchpkg" / "__init__.py").write_text(
        f"def value():\n    return {value} * 1000 + 7\n", encoding="utf-8"
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scratch_book")
    (root / "_config.yml").write_text(CONFIG, encoding="utf-8")
    (root / "_toc.yml").write_text(TOC, encoding="utf-8")
    (root / "intro.md").write_text("# Scratch\n\nThree small notebooks.\n", encoding="utf-8")
    (root / "requirements.txt").write_text("numpy\n", encoding="utf-8")
    (root / "scratchpkg").mkdir()
    _package(root, 1)
    _notebook(root / "uses_a.ipynb", "# A\n\nFirst page.", "import scratchpkg\nprint('value', scratchpkg.value())")
    _notebook(root / "uses_b.ipynb", "# B\n\nSecond page.", "from scratchpkg import value\nprint('twice', 2 * value())")
    _notebook(root / "plain.ipynb", "# Plain\n\nNo package here.", "print('sum', 40 + 2)")
    return root


def build(project: Path, builder: str = "html") -> dict:
    cmd = [
        sys.executable,
        "-c",
        "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
        "build",
        str(project),
        "-n",
        "-W",
        "--keep-going",
        "--builder",
        builder,
    ]
    if builder == "latex":
        # as scripts/build_pdf.sh: an output folder of its own, the execution cache shared
        out = project / "_build" / "pdf" / "_build"
        out.mkdir(parents=True, exist_ok=True)
        (project / "_build" / ".jupyter_cache").mkdir(exist_ok=True)
        if not (out / ".jupyter_cache").is_symlink():
            (out / ".jupyter_cache").symlink_to(Path("..", "..", ".jupyter_cache"))
        cmd += ["--path-output", str(project / "_build" / "pdf")]
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    report = json.loads((project / "_build" / "reports" / f"execution-{builder}.json").read_text())
    return {doc: row["status"] for doc, row in report["notebooks"].items()}


def page(project: Path, name: str) -> str:
    return (project / "_build" / "html" / f"{name}.html").read_text(encoding="utf-8")


def test_a_package_edit_re_executes_the_notebooks_that_import_it(project: Path) -> None:
    assert build(project) == {"uses_a": "executed", "uses_b": "executed", "plain": "executed"}
    assert "value 1007" in page(project, "uses_a") and "twice 2014" in page(project, "uses_b")

    assert build(project) == {"uses_a": "unchanged", "uses_b": "unchanged", "plain": "unchanged"}

    _package(project, 3)  # a function of the package changes: same notebooks, new results
    assert build(project) == {"uses_a": "executed", "uses_b": "executed", "plain": "unchanged"}
    assert "value 3007" in page(project, "uses_a") and "value 1007" not in page(project, "uses_a")
    assert "twice 6014" in page(project, "uses_b")

    nb = nbformat.read(project / "uses_a.ipynb", as_version=4)
    nb.cells[0].source += "\n\nA sentence more."
    nbformat.write(nb, project / "uses_a.ipynb")
    assert build(project) == {"uses_a": "cache", "uses_b": "unchanged", "plain": "unchanged"}
    assert "A sentence more." in page(project, "uses_a") and "value 3007" in page(project, "uses_a")


def test_requirements_edit_re_executes_once_for_the_pdf_and_html_builds(project: Path) -> None:
    if not (project / "_build" / "html").is_dir():
        build(project)
    (project / "requirements.txt").write_text("numpy\nscipy\n", encoding="utf-8")
    assert build(project, "latex") == {"uses_a": "executed", "uses_b": "executed", "plain": "executed"}
    assert list((project / "_build" / "pdf" / "_build" / "latex").glob("*.tex"))
    # the HTML build's own environment is outdated by the new requirements, the cache is not
    assert build(project) == {"uses_a": "cache", "uses_b": "cache", "plain": "cache"}
    log = (project / "_build" / "reports" / "executions.log").read_text().splitlines()
    assert log[-2].split()[2:5] == ["latex:", "3", "notebooks,"] and "3 executed" in log[-2]
    assert "0 executed" in log[-1] and "3 from the cache" in log[-1]


def test_keys_follow_the_imports_and_the_files(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"junk")
    (tmp_path / "requirements.txt").write_text("numpy>=1  # arrays\n-e .\n")
    nb_uses = tmp_path / "uses.ipynb"
    nb_plain = tmp_path / "plain.ipynb"
    _notebook(nb_uses, "# U", "import numpy as np\nfrom pkg.m import x")
    _notebook(nb_plain, "# P", "import numpy as np")
    assert seqrmt_cache.notebook_imports(nb_uses) == {"numpy", "pkg"}
    assert seqrmt_cache.installed_versions(tmp_path / "requirements.txt")[0].startswith("numpy==")

    def keys():
        common, pkgs = seqrmt_cache.dependency_hashes(tmp_path, ["requirements.txt"], ["pkg"])
        return (seqrmt_cache.notebook_key(nb_uses, common, pkgs), seqrmt_cache.notebook_key(nb_plain, common, pkgs))

    uses0, plain0 = keys()
    (tmp_path / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"other junk")
    assert keys() == (uses0, plain0)  # compiled files are not sources
    (tmp_path / "pkg" / "m.py").write_text("x = 2\n")
    uses1, plain1 = keys()
    assert uses1 != uses0 and plain1 == plain0  # only the notebook importing pkg
    (tmp_path / "requirements.txt").write_text("numpy>=2\n-e .\n")
    uses2, plain2 = keys()
    assert uses2 != uses1 and plain2 != plain1  # every notebook


def _record_many(args: tuple[str, str, int]) -> None:
    folder, prefix, n = args
    for i in range(n):
        seqrmt_cache.record_key(Path(folder), f"{prefix}{i}.ipynb", f"key{i}")


def test_concurrent_builds_lose_no_recorded_key(tmp_path: Path) -> None:
    """The HTML and PDF builds record keys at the same time: no update may be lost."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(2, mp_context=get_context("fork")) as ex:
        list(ex.map(_record_many, [(str(tmp_path), p, 60) for p in ("html/", "pdf/")]))
    recorded = json.loads((tmp_path / seqrmt_cache.KEYS_FILE).read_text())
    assert len(recorded) == 120
    assert all(recorded[f"{p}{i}.ipynb"] == f"key{i}" for p in ("html/", "pdf/") for i in range(60))
