"""Sphinx extension: the notebooks' execution cache knows what the notebooks depend on.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``),
with ``execute: execute_notebooks: cache``.

myst-nb's execution cache (jupyter-cache, in ``_build/.jupyter_cache``, shared by the HTML and
the PDF builds) matches a notebook by the source of its code cells only, and Sphinx re-reads a
page only when its own source changed.  Both would keep figures and numbers computed by old
code after an edit of ``seqrmt``.  This extension adds what a notebook depends on, as recorded
while it ran.

**The rule.**  The **dependency key** of a notebook's cache entry is a hash of

* ``seqrmt_cache_files`` (default ``requirements.txt``) with the installed versions of the
  distributions it names, and the Python version: a change re-executes every notebook;
* for the packages of ``seqrmt_cache_packages`` (default ``seqrmt``), what the notebook's
  execution *used*, recorded in its kernel (:func:`kernel_arguments`: coverage.py, started before
  the first cell and measuring those folders only, and an audit hook on the files opened):

  - the **whole source** of every module of which a function ran (an executed line inside a
    function's body: a function of ``spikes`` called through ``sr.predict`` makes ``spikes``
    used), and of every file of the package that the code opened (a data table, a source shown by
    ``inspect.getsource`` or by a traceback) or that a result taken from the disk data cache was
    keyed by (``seqrmt/_cache.py``: ``DEPENDENCY_FILES``; such a result was computed by them,
    perhaps in another process);
  - the **interface** of every other module the notebook imported: the module without the bodies
    and docstrings of its functions (its imports, constants, classes, signatures, default values,
    decorators, and the module's ``__getattr__``, which looks its names up; compared as a syntax
    tree, so comments, blank lines and line numbers do not count).
    ``import seqrmt`` imports all the formula modules: a chapter that never calls a function of
    ``learning`` depends on its interface only.

  So an edit inside a function (its code, its docstring, a comment) re-executes exactly the
  notebooks (chapters, slide decks) that ran a function of that module; an edit of a
  module's top level (a constant, an import, a signature) re-executes every notebook that imported
  it; a module every notebook runs (``_checks``, ``plots/_style``) re-executes them all.  Without
  coverage.py in the kernel (it comes with ``nbval``) every module the notebook imported counts
  whole, and a notebook whose record is missing depends on every file of the packages;

* before Sphinx reads anything (``env-get-outdated``), the key of every notebook is computed again
  from its record and the current files; the cache entries of a notebook whose key changed, or
  that have no record (older code cells of the notebook, entries of an earlier scheme), are
  removed, and the notebook is returned as outdated, so that Sphinx re-reads it and myst-nb
  executes it again: **no page keeps an output of old code**.  The record of each notebook (the
  files, how they count, the key and the cache entry it belongs to) is kept beside the cache, in
  ``seqrmt-dependencies.json``; an execution replaces it;
* the key each page was read with is stored in Sphinx's environment, so a build that stopped
  half-way catches up on the next one;
* after the build (``build-finished``) a report says, for every notebook, whether it was
  executed in this build, taken from the cache, or not re-read (unchanged); it is printed,
  written to ``reports/execution-<builder>.json`` next to the cache (``_build/reports/``) and
  appended, one line per build, to ``_build/reports/executions.log`` (where
  ``scripts/execute_notebooks.py`` and ``scripts/build_slides.py`` report too).

The scripts that fill the cache outside Sphinx execute with :func:`execute_recorded` and keep the
record with :func:`record_dependencies`.  Limits: code run in another process (a process pool)
is not recorded, nor is a module imported before the first cell; with an execution mode other
than ``cache`` there is no record, and a page depends on every file of the packages it imports.
Cost: coverage.py's tracer makes an execution 10-30 % slower (chapter 3: 21.3 s to 24 s, chapter 8:
10.5 s to 13.5 s, measured side by side).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import os
import re
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

#: Beside the jupyter-cache database: the dependency key of every notebook's cache entries.
KEYS_FILE = "seqrmt-dependencies.json"
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


# ------------------------------------------------------------------ keys
def _hash_files(files: list[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def package_files(folder: Path) -> list[Path]:
    """Every file of a package folder (no caches, no hidden files)."""
    return [
        p
        for p in folder.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(folder).parts)
        and p.suffix not in (".pyc", ".pyo")
    ]


def installed_versions(requirements: Path) -> list[str]:
    """``name==version`` of every distribution a requirements file names (as installed now)."""
    out = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        m = _REQUIREMENT_NAME.match(line)
        if not m:
            continue
        try:
            out.append(f"{m.group(1).lower()}=={metadata.version(m.group(1))}")
        except metadata.PackageNotFoundError:
            out.append(f"{m.group(1).lower()} (not installed)")
    return sorted(out)


def common_hash(root: Path, files: list[str]) -> str:
    """The hash every notebook's key holds: the Python version, the files ``files`` (relative to
    ``root``) and, for a ``requirements*.txt``, the installed versions of what it names."""
    digest = hashlib.sha256(sys.version.encode())
    for name in files:
        path = root / name
        digest.update(name.encode() + b"\0")
        if path.is_file():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
            if path.name.startswith("requirements") and path.suffix == ".txt":
                digest.update("\n".join(installed_versions(path)).encode())
    return digest.hexdigest()


def configured_dependencies(root: Path) -> tuple[str, list[Path]]:
    """The common hash and the package folders set in the book's ``_config.yml``.

    For the scripts that fill the cache outside Sphinx (``scripts/execute_notebooks.py``,
    ``scripts/build_slides.py``), with the defaults of the Sphinx configuration values.
    """
    import yaml

    conf = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    options = (conf.get("sphinx") or {}).get("config") or {}
    files = list(options.get("seqrmt_cache_files", ["requirements.txt"]))
    packages = list(options.get("seqrmt_cache_packages", ["seqrmt"]))
    return common_hash(root, files), [root / name for name in packages]


def _parse(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


#: Functions of a module's top level that are part of its interface: Python calls them to look up
#: the module's names (``from m import *`` too), so they run in every notebook that imports it.
MODULE_HOOKS = ("__getattr__", "__dir__")


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    hooks = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in MODULE_HOOKS]
    skip = {id(node) for hook in hooks for node in ast.walk(hook)}
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) not in skip
    ]


def function_body_lines(path: Path) -> set[int]:
    """The lines of a module that only run when one of its functions runs: the bodies of its
    functions (a function written on one line counts with its ``def``, which runs at import), but
    not of the module's ``__getattr__`` and ``__dir__`` (:data:`MODULE_HOOKS`, its interface)."""
    tree = _parse(path)
    lines: set[int] = set()
    for node in _functions(tree) if tree is not None else []:
        lines.update(range(node.body[0].lineno, (node.end_lineno or node.body[-1].lineno) + 1))
    return lines


def interface_source(path: Path) -> str:
    """What a module is to a notebook that imported it but ran none of its functions: its syntax
    tree without the bodies (and docstrings) of its functions but :data:`MODULE_HOOKS`, as text (no
    comments, no line numbers).  A file that does not parse is its whole text."""
    tree = _parse(path)
    if tree is None:
        return path.read_bytes().hex() if path.is_file() else ""
    for node in _functions(tree):
        node.body = []
    return ast.dump(tree)


@functools.lru_cache(maxsize=4096)
def _file_digest(path: str, mode: str, stamp: tuple[int, int]) -> str:
    if stamp == (-1, -1):
        return "missing"
    if mode == INTERFACE and path.endswith(".py"):
        return hashlib.sha256(interface_source(Path(path)).encode()).hexdigest()
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_digest(path: Path, mode: str) -> str:
    """The hash of a file as a notebook depends on it: ``source`` (every byte) or ``interface``
    (:func:`interface_source`); ``missing`` when it is gone."""
    try:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = (-1, -1)
    return _file_digest(str(path), mode, stamp)


#: How a notebook depends on a file of a package (see the module docstring).
SOURCE, INTERFACE = "source", "interface"


def dependency_key(root: Path, common: str, files: dict[str, str]) -> str:
    """The key of an execution that used ``files`` (path relative to ``root`` -> ``source`` or
    ``interface``), with the common hash ``common`` (:func:`common_hash`)."""
    digest = hashlib.sha256(common.encode())
    for rel, mode in sorted(files.items()):
        digest.update(f"\0{rel}\0{mode}\0{file_digest(root / rel, mode)}".encode())
    return digest.hexdigest()[:16]


def every_file(root: Path, folders: list[Path]) -> dict[str, str]:
    """The dependencies of an execution whose record is missing: every file of the packages, whole."""
    out = {}
    for folder in folders:
        if folder.is_dir():
            for path in package_files(folder):
                out[path.relative_to(root).as_posix()] = SOURCE
    return out


# ------------------------------------------------------------------ the record in the kernel
def _record_in_kernel(out: str, folders: list[str]) -> None:  # pragma: no cover - runs in the kernel
    """Record, after every cell, what the kernel used of the files under ``folders``, to ``out``.

    Runs in the notebook's kernel before its first cell (:func:`kernel_arguments`), in a namespace
    of its own: nothing is added to the notebook's.  It must not change any output: every failure
    is silent (the record is then incomplete or missing, and :func:`read_record` falls back).
    """
    import json
    import os
    import sys
    import warnings

    from IPython import get_ipython

    prefixes = tuple(os.path.join(os.path.realpath(f), "") for f in folders)
    read: set[str] = set()
    imported: dict[str, str | None] = {}

    def audit(event: str, args: tuple) -> None:
        # every file of the packages opened by the code (not by the import system)
        if event != "open" or not args or isinstance(args[0], int) or args[0] is None:
            return
        try:
            path = os.path.realpath(os.fsdecode(args[0]))
            if not path.startswith(prefixes) or path.endswith((".pyc", ".pyo")):
                return
            frame = sys._getframe(1)
            while frame is not None:
                # a source read by the import system; a file hashed by a module that reports
                # what its results depend on (seqrmt/_cache.py: DEPENDENCY_FILES, counted below)
                if frame.f_code.co_filename.startswith("<frozen importlib") or "DEPENDENCY_FILES" in frame.f_globals:
                    return
                frame = frame.f_back
            read.add(path)
        except Exception:
            pass

    sys.addaudithook(audit)
    cov = None
    try:
        import coverage

        cov = coverage.Coverage(data_file=None, include=[p + "*" for p in prefixes], branch=False, config_file=False)
        cov.set_option("run:disable_warnings", ["no-data-collected", "module-not-measured", "module-not-imported"])
        cov.start()
    except Exception:
        cov = None

    reporters: dict[str, set] = {}

    def dump(*_: object) -> None:
        try:
            for name, module in list(sys.modules.items()):
                names = getattr(module, "__dict__", None) or {}  # no module __getattr__ (no warning)
                if name not in reporters and isinstance(names.get("DEPENDENCY_FILES"), set):
                    file = names.get("__file__")
                    if isinstance(file, str) and os.path.realpath(file).startswith(prefixes):
                        reporters[name] = names["DEPENDENCY_FILES"]
            for files in reporters.values():
                read.update(os.path.realpath(f) for f in files)
            lines = {}
            if cov is not None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    data = cov.get_data()
                    lines = {f: sorted(data.lines(f) or ()) for f in data.measured_files()}
            else:  # every module imported counts whole
                for name, module in list(sys.modules.items()):
                    if name not in imported:
                        file = getattr(module, "__file__", None)
                        file = os.path.realpath(file) if isinstance(file, str) else None
                        imported[name] = file if file and file.startswith(prefixes) else None
            record = {
                "coverage": cov is not None,
                "lines": lines,
                "read": sorted(read),
                "imported": sorted(f for f in imported.values() if f),
            }
            with open(out + ".tmp", "w", encoding="utf-8") as fh:
                json.dump(record, fh)
            os.replace(out + ".tmp", out)
        except Exception:
            pass

    get_ipython().events.register("post_run_cell", dump)


def kernel_arguments(out: Path, folders: list[Path]) -> list[str]:
    """The arguments of an IPython kernel that records, to ``out``, what a notebook's execution
    uses of the packages in ``folders`` (read it with :func:`read_record`)."""
    import inspect

    source = inspect.getsource(_record_in_kernel)
    call = f"\n_record_in_kernel({str(out)!r}, {[str(f) for f in folders]!r})\n"
    # run once before the first cell, without a number and in a namespace of its own
    line = f"exec({source + call!r}, {{}});"
    return [f"--InteractiveShellApp.exec_lines={[line]!r}"]


def read_record(out: Path, root: Path, folders: list[Path]) -> dict[str, str]:
    """What an execution recorded (:func:`kernel_arguments`) as dependencies: path relative to
    ``root`` -> ``source`` or ``interface`` (the module docstring says which); every file of the
    packages when the record is missing."""
    try:
        record = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return every_file(root, folders)
    base = root.resolve()

    def relative(name: str) -> str | None:
        try:
            return Path(name).resolve().relative_to(base).as_posix()
        except ValueError:
            return None

    files: dict[str, str] = {}
    for name, lines in record.get("lines", {}).items():
        rel = relative(name)
        if rel is None:
            continue
        path = root / rel
        ran = path.suffix != ".py" or bool(set(lines) & function_body_lines(path))
        files[rel] = SOURCE if ran else INTERFACE
    for name in record.get("read", []) + record.get("imported", []):
        rel = relative(name)
        if rel is not None:
            files[rel] = SOURCE
    return files


def execute_recorded(
    nb: Any,
    cwd: str | None,
    timeout: int | None,
    allow_errors: bool,
    root: Path,
    folders: list[Path],
    execute: Any = None,
    **kwargs: Any,
) -> tuple[Any, dict[str, str]]:
    """Execute ``nb`` in place as jupyter-cache's ``single_nb_execution`` (or ``execute``, a function
    with its signature) does, recording what it uses of the packages in ``folders``.

    Returns the execution result and the dependencies (:func:`read_record`)."""
    import tempfile

    if execute is None:
        from jupyter_cache.executors.utils import single_nb_execution as execute
    with tempfile.TemporaryDirectory(prefix="seqrmt-record-") as tmp:
        out = Path(tmp) / "record.json"
        kwargs["extra_arguments"] = list(kwargs.get("extra_arguments") or []) + kernel_arguments(out, folders)
        result = execute(nb, cwd=cwd, timeout=timeout, allow_errors=allow_errors, **kwargs)
        files = read_record(out, root, folders)
    return result, files


# ------------------------------------------------------------------ the record beside the cache
def _read_keys(folder: Path) -> dict[str, Any]:
    try:
        return json.loads((folder / KEYS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def _keys_locked(folder: Path):
    """Hold an exclusive lock on the key file while it is read, changed and written.

    The HTML and PDF builds and the execution scripts may run at the same time.
    """
    from filelock import FileLock  # portable (fcntl on Unix, msvcrt on Windows)

    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / (KEYS_FILE + ".lock")):
        yield


def _write_keys(folder: Path, keys: dict[str, Any]) -> None:
    tmp = folder / f"{KEYS_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(keys, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(folder / KEYS_FILE)


def record_dependencies(folder: Path, uri: str, entry: str, key: str, files: dict[str, str]) -> None:
    """Note that the cache entry ``entry`` (its jupyter-cache hash) of notebook ``uri`` was executed
    with dependencies ``files`` (:func:`read_record`), whose key was ``key``."""
    with _keys_locked(folder):
        recorded = _read_keys(folder)
        recorded[uri] = {"entry": entry, "key": key, "files": dict(sorted(files.items()))}
        _write_keys(folder, recorded)


def entry_hash(folder: Path, nb: Any) -> str | None:
    """The jupyter-cache hash of the cache entry that matches notebook ``nb`` (``None``: none)."""
    from jupyter_cache import get_cache

    try:
        return get_cache(str(folder)).match_cache_notebook(nb).hashkey
    except KeyError:
        return None


def valid_key(folder: Path, uri: str, root: Path, common: str, entry: str | None = None) -> str | None:
    """The key of notebook ``uri``'s recorded execution if what it used is unchanged (and, with
    ``entry``, if it made that cache entry), else ``None``; reads only."""
    rec = _read_keys(folder).get(uri)
    if not isinstance(rec, dict) or (entry is not None and rec.get("entry") != entry):
        return None
    return rec["key"] if rec.get("key") == dependency_key(root, common, rec.get("files") or {}) else None


def current_keys(folder: Path, uris: list[str], root: Path, common: str) -> tuple[dict[str, str | None], list[str]]:
    """The key of each notebook's recorded execution if its dependencies are unchanged (else
    ``None``), and the notebooks whose cache entries were removed.

    Drops the cache entries that no longer match their dependencies: every entry of a notebook whose
    key changed or that has no record, and the entries of a notebook other than the recorded one
    (made with other code cells, with dependencies unknown).  The record of a stale notebook is
    dropped too.
    """
    keys: dict[str, str | None] = {}
    removed: list[str] = []
    with _keys_locked(folder):
        recorded = _read_keys(folder)
        changed = False
        for uri in uris:
            rec = recorded.get(uri)
            valid = isinstance(rec, dict) and rec.get("key") == dependency_key(root, common, rec.get("files") or {})
            keys[uri] = rec["key"] if valid else None
            if rec is not None and not valid:
                recorded.pop(uri)
                changed = True
        if (folder / "global.db").exists():
            from jupyter_cache import get_cache

            cache = get_cache(str(folder))
            for record in cache.list_cache_records():
                if record.uri in keys and (keys[record.uri] is None or recorded[record.uri]["entry"] != record.hashkey):
                    cache.remove_cache(record.pk)
                    if record.uri not in removed:
                        removed.append(record.uri)
        if changed:
            _write_keys(folder, recorded)
    return keys, removed


# ------------------------------------------------------------------ Sphinx side
def _notebooks(app: Any, env: Any) -> dict[str, Path]:
    """docname -> source path of every notebook page."""
    out = {}
    for doc in env.found_docs:
        path = Path(env.doc2path(doc))
        if path.suffix == ".ipynb":
            out[doc] = path
    return out


def _cache_folder(env: Any) -> Path | None:
    conf = getattr(env, "mystnb_config", None)
    if conf is None or conf.execution_mode != "cache" or not conf.execution_cache_path:
        return None
    return Path(conf.execution_cache_path)


def _imports_a_package(path: Path, names: list[str]) -> bool:
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    pattern = re.compile(r"^\s*(?:from|import)\s+(" + "|".join(map(re.escape, names)) + r")\b", re.M)
    for cell in nb.get("cells", []):
        src = cell.get("source", "")
        if cell.get("cell_type") == "code" and pattern.search("".join(src) if isinstance(src, list) else src):
            return True
    return False


#: The Sphinx application whose notebooks myst-nb is executing (see :func:`_recording_execution`).
_APP: Any = None


def _recording_execution(nb: Any, cwd: str | None, timeout: int | None, allow_errors: bool, **kwargs: Any) -> Any:
    """myst-nb's execution of a notebook in ``cache`` mode, recording what it uses
    (:func:`execute_recorded`), for the page being read."""
    app = _APP
    state = getattr(app, "_seqrmt_cache", None)
    if state is None:
        return _recording_execution.original(nb, cwd=cwd, timeout=timeout, allow_errors=allow_errors, **kwargs)
    result, files = execute_recorded(
        nb, cwd, timeout, allow_errors, state["root"], state["folders"], _recording_execution.original, **kwargs
    )
    if result.err is None:
        state["executed"][app.env.docname] = files
    return result


def _record_executions() -> None:
    """Execute myst-nb's cached notebooks with :func:`_recording_execution`."""
    from myst_nb.core.execute import cache as nb_cache

    if nb_cache.single_nb_execution is not _recording_execution:
        _recording_execution.original = nb_cache.single_nb_execution
        nb_cache.single_nb_execution = _recording_execution


def _env_get_outdated(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    global _APP
    root = Path(app.confdir)
    common = common_hash(root, list(app.config.seqrmt_cache_files))
    folders = [root / name for name in app.config.seqrmt_cache_packages]
    notebooks = _notebooks(app, env)
    folder = _cache_folder(env)
    if folder is not None:
        by_uri, stale = current_keys(folder, [str(p) for p in notebooks.values()], root, common)
        keys = {doc: by_uri[str(path)] for doc, path in notebooks.items()}
        if stale:
            LOGGER.info(
                "execution cache: dependencies changed, %d notebook(s) to execute again: %s",
                len(stale),
                ", ".join(Path(u).name for u in stale),
            )
        _APP = app
        _record_executions()
    else:  # no record without the cache: a page depends on every file of the packages it imports
        names = [f.name for f in folders]
        whole = dependency_key(root, common, every_file(root, folders))
        keys = {doc: whole if _imports_a_package(path, names) else common[:16] for doc, path in notebooks.items()}
    app._seqrmt_cache = {
        "keys": keys,
        "paths": {d: str(p) for d, p in notebooks.items()},
        "start": time.time(),
        "read": set(),
        "executed": {},
        "root": root,
        "folders": folders,
        "common": common,
    }
    read_with = getattr(env, "seqrmt_cache_keys", {})
    rendered = rerendered(env, notebooks, render_key())
    outdated = sorted(
        doc
        for doc, key in keys.items()
        if doc not in added and doc not in changed and (read_with.get(doc) != key or doc in rendered)
    )
    if outdated:
        LOGGER.info(
            "execution cache: %d page(s) outdated by their dependencies: %s", len(outdated), ", ".join(outdated)
        )
    return outdated


#: The code that turns a notebook's outputs into page content (the MyST-NB render plugin of the
#: book's figures): when it changes, every notebook page is written again (from the cache).
RENDERERS = ("figures.py",)


def render_key() -> str:
    """A digest of the notebook outputs' renderer (:data:`RENDERERS`, beside this module)."""
    digest = hashlib.sha256()
    for name in RENDERERS:
        digest.update((Path(__file__).resolve().parent / name).read_bytes())
    return digest.hexdigest()[:16]


def rerendered(env: Any, notebooks: dict, key: str) -> set[str]:
    """The notebook pages to write again because the renderer changed since the environment last read
    them (every notebook, or none); records ``key`` in ``env`` for the next build."""
    before = getattr(env, "seqrmt_render_key", None)
    env.seqrmt_render_key = key
    return set(notebooks) if before is not None and before != key else set()


def use_data_cache(execution_cache: Path) -> None:
    """Let the kernels started from now on store seqrmt's slow results (fixed-``T`` token spectra,
    explorer frames; ``seqrmt/_cache.py``) in ``seqrmt-cache`` beside the execution cache, for the
    tests and later builds (unless ``SEQRMT_CACHE_DIR`` is set already)."""
    from seqrmt import settings

    settings.set_default("SEQRMT_CACHE_DIR", str(execution_cache.parent / "seqrmt-cache"))


def check_figures() -> None:
    """Let the kernels started from now on check every figure they draw (``SEQRMT_FIGURE_CHECK=1``,
    ``seqrmt/plots/_check.py``), so that each chapter's check cell asserts its figures readable in
    the build; a reader's own session does not pay for the check (unless the variable is set)."""
    from seqrmt import settings

    settings.set_default("SEQRMT_FIGURE_CHECK", "1")


def _env_before_read_docs(app: Any, env: Any, docnames: list[str]) -> None:
    check_figures()
    folder = _cache_folder(env)
    if folder is not None:
        use_data_cache(folder)
    state = getattr(app, "_seqrmt_cache", None)
    if state is not None:
        state["read"].update(docnames)


def _doctree_read(app: Any, doctree: Any) -> None:
    state = getattr(app, "_seqrmt_cache", None)
    env = app.env
    doc = env.docname
    if state is None or doc not in state["keys"]:
        return
    files = state["executed"].pop(doc, None)
    folder = _cache_folder(env)
    if files is not None and folder is not None:  # executed in this read: keep what it used
        import nbformat

        path = state["paths"][doc]
        key = dependency_key(state["root"], state["common"], files)
        entry = entry_hash(folder, nbformat.read(path, as_version=4))
        if entry is not None:
            record_dependencies(folder, path, entry, key, files)
            state["keys"][doc] = key
    if not hasattr(env, "seqrmt_cache_keys"):
        env.seqrmt_cache_keys = {}
    env.seqrmt_cache_keys[doc] = state["keys"][doc]


def _env_purge_doc(app: Any, env: Any, docname: str) -> None:
    getattr(env, "seqrmt_cache_keys", {}).pop(docname, None)


def _env_merge_info(app: Any, env: Any, docnames: list[str], other: Any) -> None:
    if not hasattr(env, "seqrmt_cache_keys"):
        env.seqrmt_cache_keys = {}
    for doc in docnames:
        if doc in getattr(other, "seqrmt_cache_keys", {}):
            env.seqrmt_cache_keys[doc] = other.seqrmt_cache_keys[doc]


def execution_report(app: Any) -> dict[str, Any]:
    """What happened to every notebook in this build."""
    from myst_nb.sphinx_ import NbMetadataCollector

    state = app._seqrmt_cache
    rows = {}
    for doc in sorted(state["keys"]):
        if doc not in state["read"]:
            rows[doc] = {"status": "unchanged"}
            continue
        data = NbMetadataCollector.get_exec_data(app.env, doc) or {}
        when, runtime = data.get("mtime"), data.get("runtime")
        if data.get("method") in (None, "off", "auto") and when is None:
            status = "not executed"
        elif when is not None and when >= state["start"]:
            status = "executed"
        else:
            status = "cache"
        rows[doc] = {"status": status, "seconds": round(runtime, 1) if isinstance(runtime, (int, float)) else None}
    counts = {
        s: sum(r["status"] == s for r in rows.values()) for s in ("executed", "cache", "unchanged", "not executed")
    }
    return {
        "builder": app.builder.name,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "seconds": round(time.time() - state["start"], 1),
        "counts": counts,
        "notebooks": rows,
    }


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or getattr(app, "_seqrmt_cache", None) is None:
        return
    report = execution_report(app)
    # next to the execution cache, so that a build in another output folder (the PDF, see
    # scripts/build_pdf.sh) that shares the cache reports to the same place
    cache = _cache_folder(app.env)
    folder = (cache.resolve().parent if cache is not None else Path(app.outdir).parent) / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"execution-{report['builder']}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    rows = report["notebooks"]
    executed = [f"{d} ({r['seconds']} s)" for d, r in rows.items() if r["status"] == "executed"]
    cached = [d for d, r in rows.items() if r["status"] == "cache"]
    line = (
        f"{report['finished']} {report['builder']}: {len(rows)} notebooks, "
        f"{len(executed)} executed [{', '.join(executed)}], "
        f"{len(cached)} from the cache [{', '.join(cached)}], "
        f"{report['counts']['unchanged']} not re-read"
    )
    with open(folder / "executions.log", "a", encoding="utf-8") as log:
        log.write(line + "\n")
    LOGGER.info("execution report: %s", line.split(" ", 2)[2])


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("seqrmt_cache_files", ["requirements.txt"], "env")
    app.add_config_value("seqrmt_cache_packages", ["seqrmt"], "env")
    app.connect("env-get-outdated", _env_get_outdated)
    app.connect("env-before-read-docs", _env_before_read_docs)
    app.connect("doctree-read", _doctree_read)
    app.connect("env-purge-doc", _env_purge_doc)
    app.connect("env-merge-info", _env_merge_info)
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
