"""The execution cache of the build never serves an output of old code, and executes again only
the notebooks that used what changed.

The book is built with ``execute_notebooks: cache`` and the local extension
``seqrmt_book/cache.py``, which records, in the kernel, what each notebook's execution used of the
``seqrmt`` package (the modules of which a function ran, whole; the other modules it imported, by
their interface) and adds it, with ``requirements.txt``, to the notebook's cache key.  These tests
build a scratch book with the same configuration mechanism (the real extension, a package of its
own in place of ``seqrmt``, imported whole by ``import scratchpkg`` as ``seqrmt`` is) and read the
execution report the extension writes after every build (``_build/reports/execution-<builder>.json``).
The package has a module every notebook runs (``common``), one module run by one notebook
(``one``), one run by two (``two``: by one of them only through a function of ``helper``):

* a first build executes every notebook;
* an edit inside a function of ``one``, ``two`` or ``common`` re-executes, in the same
  incremental build, exactly the notebooks that ran it, and their pages show the new value; the
  others are not even read again (``unchanged``);
* an edit of the top level of a module (a constant) re-executes every notebook that imported it;
* a prose edit re-reads that one page, from the cache (nothing executed), in the build of the
  edit of ``one`` (so that one build shows both);
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
  - file: uses_one
  - file: uses_two
  - file: uses_helper
  - file: plain
"""
#: The scratch package: ``import scratchpkg`` imports every module, as ``import seqrmt`` does.
MODULES = {
    "__init__.py": "from .common import check\nfrom .one import one_value\nfrom .two import two_value\n"
    "from .helper import twice_two\n",
    "common.py": "SCALE = 1\n\n\ndef check(x):\n    return int(x) * 1\n",
    "one.py": "from .common import check\n\n\ndef one_value():\n    return check(1000) + 1\n",
    "two.py": "from .common import check\n\n\ndef two_value():\n    return check(2000) + 2\n",
    "helper.py": "from .two import two_value\n\n\ndef twice_two():\n    return 2 * two_value()\n",
}
NOTEBOOKS = {
    "uses_one": "import scratchpkg as sp\nprint('one', sp.one_value())",
    "uses_two": "import scratchpkg as sp\nprint('two', sp.two_value())",
    "uses_helper": "from scratchpkg import twice_two\nprint('twice', twice_two())",
    "plain": "print('sum', 40 + 2)",
}
ALL = set(NOTEBOOKS)


def _notebook(path: Path, prose: str, code: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(prose), nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, path)


def _edit(project: Path, module: str, old: str, new: str) -> None:
    path = project / "scratchpkg" / module
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scratch_book")
    (root / "_config.yml").write_text(CONFIG, encoding="utf-8")
    (root / "_toc.yml").write_text(TOC, encoding="utf-8")
    (root / "intro.md").write_text("# Scratch\n\nFour small notebooks.\n", encoding="utf-8")
    (root / "requirements.txt").write_text("numpy\n", encoding="utf-8")
    (root / "scratchpkg").mkdir()
    for name, text in MODULES.items():
        (root / "scratchpkg" / name).write_text(text, encoding="utf-8")
    for name, code in NOTEBOOKS.items():
        _notebook(root / f"{name}.ipynb", f"# {name}\n\nA page.", code)
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


def executed(report: dict) -> set[str]:
    return {doc for doc, status in report.items() if status == "executed"}


def page(project: Path, name: str) -> str:
    return (project / "_build" / "html" / f"{name}.html").read_text(encoding="utf-8")


def recorded(project: Path) -> dict[str, dict[str, str]]:
    keys = json.loads((project / "_build" / ".jupyter_cache" / seqrmt_cache.KEYS_FILE).read_text())
    return {Path(uri).stem: rec["files"] for uri, rec in keys.items()}


def test_an_edit_re_executes_the_notebooks_that_ran_the_module(project: Path) -> None:
    assert executed(build(project)) == ALL
    assert "one 1001" in page(project, "uses_one") and "twice 4004" in page(project, "uses_helper")
    files = recorded(project)
    # what ran counts whole, what was only imported by its interface; the plain page uses nothing
    assert files["uses_one"] == {
        "scratchpkg/__init__.py": "interface",
        "scratchpkg/common.py": "source",
        "scratchpkg/one.py": "source",
        "scratchpkg/two.py": "interface",
        "scratchpkg/helper.py": "interface",
    }
    assert files["uses_helper"]["scratchpkg/two.py"] == "source" and files["plain"] == {}

    # one notebook ran the edited function; a prose edit of another, in the same build, re-reads
    # that page from the cache; the two others are neither executed nor read
    _edit(project, "one.py", "check(1000) + 1", "check(1000) + 3")
    nb = nbformat.read(project / "uses_two.ipynb", as_version=4)
    nb.cells[0].source += "\n\nA sentence more."
    nbformat.write(nb, project / "uses_two.ipynb")
    assert build(project) == {
        "uses_one": "executed",
        "uses_two": "cache",
        "uses_helper": "unchanged",
        "plain": "unchanged",
    }
    assert "one 1003" in page(project, "uses_one") and "one 1001" not in page(project, "uses_one")
    assert "A sentence more." in page(project, "uses_two") and "two 2002" in page(project, "uses_two")

    _edit(project, "two.py", "check(2000) + 2", "check(2000) + 5")  # two ran it, one through helper
    assert build(project) == {
        **dict.fromkeys(("uses_two", "uses_helper"), "executed"),
        "uses_one": "unchanged",
        "plain": "unchanged",
    }
    assert "two 2005" in page(project, "uses_two") and "twice 4010" in page(project, "uses_helper")

    _edit(project, "common.py", "int(x) * 1", "int(x) * 10")  # every notebook that imports it ran it
    assert executed(build(project)) == {"uses_one", "uses_two", "uses_helper"}
    assert "one 10003" in page(project, "uses_one") and "twice 40010" in page(project, "uses_helper")

    # (a comment in a module that ran, and the top level of one only imported, count as well:
    # test_a_function_body_is_what_only_a_call_runs, test_a_record_gives_whole_sources_and_interfaces)


def test_requirements_edit_re_executes_once_for_the_pdf_and_html_builds(project: Path) -> None:
    if not (project / "_build" / "html").is_dir():
        build(project)
    (project / "requirements.txt").write_text("numpy\nscipy\n", encoding="utf-8")
    assert build(project, "latex") == dict.fromkeys(ALL, "executed")
    assert list((project / "_build" / "pdf" / "_build" / "latex").glob("*.tex"))
    # the HTML build's own environment is outdated by the new requirements, the cache is not
    assert build(project) == dict.fromkeys(ALL, "cache")
    log = (project / "_build" / "reports" / "executions.log").read_text().splitlines()
    assert log[-2].split()[2:5] == ["latex:", "4", "notebooks,"] and "4 executed" in log[-2]
    assert "0 executed" in log[-1] and "4 from the cache" in log[-1]


# ------------------------------------------------------------------ the parts, without Sphinx
def _package(root: Path) -> Path:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("from .m import f, g\n")
    (root / "pkg" / "m.py").write_text(
        '"""A module."""\nLIMIT = 3\n\n\n@staticmethod\ndef f(x=LIMIT):\n    """Doc."""\n    return x + 1\n\n\n'
        "def g(): return 2\n\n\ndef __getattr__(name):\n    raise AttributeError(name)\n"
    )
    (root / "pkg" / "data.csv").write_text("1,2\n")
    return root / "pkg"


def test_a_function_body_is_what_only_a_call_runs(tmp_path: Path) -> None:
    m = _package(tmp_path) / "m.py"
    # the docstring and the return of f; g is written on its def line, which runs at import; the
    # module's __getattr__ runs whenever a name is looked up: it is part of the interface
    assert seqrmt_cache.function_body_lines(m) == {7, 8, 11}
    before = seqrmt_cache.interface_source(m)
    m.write_text(m.read_text().replace('"""Doc."""', '"""Other doc."""\n    # a comment').replace("x + 1", "x + 2"))
    assert seqrmt_cache.interface_source(m) == before  # bodies, docstrings and comments do not count
    edits = [("LIMIT = 3", "LIMIT = 4"), ("def f(x", "def f(y"), ("@staticmethod\n", ""), ("(name)\n", "('x')\n")]
    for old, new in edits:
        edited = tmp_path / "edited.py"
        edited.write_text(m.read_text().replace(old, new))
        assert seqrmt_cache.interface_source(edited) != before, old  # the top level does


def test_a_record_gives_whole_sources_and_interfaces(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    out = tmp_path / "record.json"
    out.write_text(
        json.dumps(
            {
                "lines": {str(pkg / "__init__.py"): [1], str(pkg / "m.py"): [1, 2, 5, 6, 8, 11]},
                "read": [str(pkg / "data.csv")],
                "imported": [],
            }
        )
    )
    files = seqrmt_cache.read_record(out, tmp_path, [pkg])
    assert files == {"pkg/__init__.py": "interface", "pkg/m.py": "source", "pkg/data.csv": "source"}
    out.write_text(json.dumps({"lines": {str(pkg / "m.py"): [1, 2, 5, 6, 11]}, "read": [], "imported": []}))
    assert seqrmt_cache.read_record(out, tmp_path, [pkg]) == {"pkg/m.py": "source"}  # g's def line is its body
    out.unlink()  # no record: every file of the package, whole
    assert seqrmt_cache.read_record(out, tmp_path, [pkg]) == {
        "pkg/__init__.py": "source",
        "pkg/m.py": "source",
        "pkg/data.csv": "source",
    }


def test_keys_follow_the_record_and_the_requirements(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    (tmp_path / "requirements.txt").write_text("numpy>=1  # arrays\n-e .\n")
    assert seqrmt_cache.installed_versions(tmp_path / "requirements.txt")[0].startswith("numpy==")
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"junk")
    assert "pkg/__pycache__/m.cpython-311.pyc" not in seqrmt_cache.every_file(tmp_path, [pkg])
    ran = {"pkg/__init__.py": "interface", "pkg/m.py": "source"}
    imported = {"pkg/__init__.py": "interface", "pkg/m.py": "interface"}

    def keys() -> tuple[str, str, str]:
        common = seqrmt_cache.common_hash(tmp_path, ["requirements.txt"])
        return tuple(seqrmt_cache.dependency_key(tmp_path, common, files) for files in (ran, imported, {}))

    k0 = keys()
    (pkg / "m.py").write_text((pkg / "m.py").read_text().replace("x + 1", "x + 2"))
    k1 = keys()
    assert k1[0] != k0[0] and k1[1:] == k0[1:]  # a body: the notebooks that ran it
    (pkg / "m.py").write_text((pkg / "m.py").read_text().replace("LIMIT = 3", "LIMIT = 5"))
    k2 = keys()
    assert k2[0] != k1[0] and k2[1] != k1[1] and k2[2] == k1[2]  # the top level: every importer
    (tmp_path / "requirements.txt").write_text("numpy>=2\n-e .\n")
    k3 = keys()
    assert all(a != b for a, b in zip(k3, k2))  # every notebook
    (pkg / "m.py").unlink()
    assert keys()[:2] != k3[:2]  # a file gone


def test_stale_and_unrecorded_entries_are_dropped(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    folder = tmp_path / "cache"
    files = {"pkg/m.py": "source"}
    key = seqrmt_cache.dependency_key(tmp_path, "c", files)
    seqrmt_cache.record_dependencies(folder, "a.ipynb", "h1", key, files)
    seqrmt_cache.record_dependencies(folder, "b.ipynb", "h2", seqrmt_cache.dependency_key(tmp_path, "c", {}), {})
    keys, removed = seqrmt_cache.current_keys(folder, ["a.ipynb", "b.ipynb", "new.ipynb"], tmp_path, "c")
    assert keys == {"a.ipynb": key, "b.ipynb": seqrmt_cache.dependency_key(tmp_path, "c", {}), "new.ipynb": None}
    assert seqrmt_cache.valid_key(folder, "a.ipynb", tmp_path, "c", "h1") == key
    assert seqrmt_cache.valid_key(folder, "a.ipynb", tmp_path, "c", "other entry") is None
    (pkg / "m.py").write_text("changed = True\n")
    keys, _ = seqrmt_cache.current_keys(folder, ["a.ipynb", "b.ipynb"], tmp_path, "c")
    assert keys["a.ipynb"] is None and keys["b.ipynb"] is not None
    assert "a.ipynb" not in json.loads((folder / seqrmt_cache.KEYS_FILE).read_text())


@pytest.mark.build
def test_the_kernel_records_what_ran_and_what_was_read(tmp_path: Path) -> None:
    """A real kernel: a function called through another module's, a data file and a source read by
    ``inspect``; the notebook's namespace and its numbering are untouched."""
    pkg = _package(tmp_path)
    (pkg / "n.py").write_text("from .m import f\n\n\ndef via():\n    return f(1)\n")
    (pkg / "unused.py").write_text("def h():\n    return 0\n")
    (pkg / "other.csv").write_text("3\n")
    # a module that reports the files its results depend on (as seqrmt/_cache.py does): its own
    # reads do not count, what it reports does
    (pkg / "reporter.py").write_text(
        "import os\n\nDEPENDENCY_FILES = set()\n\n\ndef key():\n    here = os.path.dirname(__file__)\n"
        "    open(os.path.join(here, 'unused.py')).read()\n"
        "    DEPENDENCY_FILES.add(os.path.join(here, 'other.csv'))\n"
    )
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_code_cell("import pkg.n, pkg.unused, pkg.reporter\npkg.reporter.key()\nprint(pkg.n.via())"),
        nbformat.v4.new_code_cell("print(open('pkg/data.csv').read().strip())"),
        nbformat.v4.new_code_cell("sorted(k for k in globals() if not k.startswith('_'))"),
    ]
    result, files = seqrmt_cache.execute_recorded(nb, str(tmp_path), 60, False, tmp_path, [pkg])
    assert result.err is None, result.exc_string
    assert files == {
        "pkg/__init__.py": "interface",
        "pkg/m.py": "source",
        "pkg/n.py": "source",
        "pkg/unused.py": "interface",
        "pkg/data.csv": "source",
        "pkg/reporter.py": "source",
        "pkg/other.csv": "source",
    }
    assert [c.execution_count for c in nb.cells] == [1, 2, 3]
    assert nb.cells[0].outputs[0]["text"] == "2\n" and nb.cells[1].outputs[0]["text"] == "1,2\n"
    names = nb.cells[2].outputs[0]["data"]["text/plain"]
    assert "pkg" in names and "coverage" not in names and "dump" not in names and "audit" not in names
    nb.cells = [nbformat.v4.new_code_cell("import inspect, pkg.unused\nlen(inspect.getsource(pkg.unused.h))")]
    _, files = seqrmt_cache.execute_recorded(nb, str(tmp_path), 60, False, tmp_path, [pkg])
    assert files["pkg/unused.py"] == "source"  # its source was shown


def _record_many(args: tuple[str, str, int]) -> None:
    folder, prefix, n = args
    for i in range(n):
        seqrmt_cache.record_dependencies(Path(folder), f"{prefix}{i}.ipynb", f"entry{i}", f"key{i}", {})


def test_concurrent_builds_lose_no_recorded_key(tmp_path: Path) -> None:
    """The HTML and PDF builds record keys at the same time: no update may be lost."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(2, mp_context=get_context("fork")) as ex:
        list(ex.map(_record_many, [(str(tmp_path), p, 60) for p in ("html/", "pdf/")]))
    recorded = json.loads((tmp_path / seqrmt_cache.KEYS_FILE).read_text())
    assert len(recorded) == 120
    assert all(recorded[f"{p}{i}.ipynb"]["key"] == f"key{i}" for p in ("html/", "pdf/") for i in range(60))


def test_a_change_of_the_output_renderer_writes_every_notebook_page_again() -> None:
    """A new renderer of the outputs (seqrmt_book/figures.py) outdates every notebook page (written
    again from the cache, not executed); the same renderer outdates none; a first build records it."""
    from types import SimpleNamespace

    env, notebooks = SimpleNamespace(), {"book/a": Path("a.ipynb"), "book/b": Path("b.ipynb")}
    assert seqrmt_cache.rerendered(env, notebooks, "k1") == set() and env.seqrmt_render_key == "k1"
    assert seqrmt_cache.rerendered(env, notebooks, "k1") == set()
    assert seqrmt_cache.rerendered(env, notebooks, "k2") == {"book/a", "book/b"}
    assert len(seqrmt_cache.render_key()) == 16
