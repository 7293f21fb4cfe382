"""Sphinx extension: the notebooks' execution cache knows what the notebooks depend on.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``),
with ``execute: execute_notebooks: cache``.

myst-nb's execution cache (jupyter-cache, in ``_build/.jupyter_cache``, shared by the HTML and
the PDF builds) matches a notebook by the source of its code cells only, and Sphinx re-reads a
page only when its own source changed.  Both would keep figures and numbers computed by old
code after an edit of ``seqrmt``.  This extension adds what a notebook depends on:

* the **dependency key** of a notebook is a hash of ``seqrmt_cache_files`` (default
  ``requirements.txt``) together with the installed versions of the distributions it names
  and the Python version, plus, for every package of ``seqrmt_cache_packages`` (default
  ``seqrmt``) that one of the notebook's code cells imports, every file of that package's
  folder.  ``seqrmt/__init__.py`` imports all of its modules, so a chapter that imports
  ``seqrmt`` depends on all of them: nothing finer is known;
* before Sphinx reads anything (``env-get-outdated``), every cache entry of a notebook whose
  key changed since it was executed is removed (the key of each entry is kept beside the
  cache, in ``seqrmt-dependencies.json``), and the notebook is returned as outdated, so that
  Sphinx re-reads it and myst-nb executes it again: **no page keeps an output of old code**;
* the key each page was read with is stored in Sphinx's environment, so a build that stopped
  half-way catches up on the next one;
* after the build (``build-finished``) a report says, for every notebook, whether it was
  executed in this build, taken from the cache, or not re-read (unchanged); it is printed,
  written to ``reports/execution-<builder>.json`` next to the cache (``_build/reports/``) and
  appended, one line per build, to ``_build/reports/executions.log`` (where
  ``scripts/execute_notebooks.py`` and ``scripts/build_slides.py`` report too).

The extension works with any ``nb_execution_mode``; with ``force`` the outdated pages are
re-read and re-executed all the same.
"""

from __future__ import annotations

import contextlib
import fcntl
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
_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.M)
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


def dependency_hashes(root: Path, files: list[str], packages: list[str]) -> tuple[str, dict[str, str]]:
    """The hash shared by every notebook, and one hash per package folder."""
    digest = hashlib.sha256(sys.version.encode())
    for name in files:
        path = root / name
        digest.update(name.encode() + b"\0")
        if path.is_file():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
            if path.name.startswith("requirements") and path.suffix == ".txt":
                digest.update("\n".join(installed_versions(path)).encode())
    pkgs = {name: _hash_files(package_files(root / name), root) for name in packages if (root / name).is_dir()}
    return digest.hexdigest(), pkgs


def notebook_imports(path: Path) -> set[str]:
    """Top-level names imported by the code cells of a notebook."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    names: set[str] = set()
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            src = cell.get("source", "")
            names.update(_IMPORT.findall("".join(src) if isinstance(src, list) else src))
    return names


def notebook_key(path: Path, common: str, packages: dict[str, str]) -> str:
    used = sorted(name for name in packages if name in notebook_imports(path))
    digest = hashlib.sha256(common.encode())
    for name in used:
        digest.update(f"\0{name}\0{packages[name]}".encode())
    return digest.hexdigest()[:16]


def configured_hashes(root: Path) -> tuple[str, dict[str, str]]:
    """:func:`dependency_hashes` with the files and packages set in the book's ``_config.yml``.

    For the scripts that fill the cache outside Sphinx (``scripts/execute_notebooks.py``,
    ``scripts/build_slides.py``), with the defaults of the Sphinx configuration values.
    """
    import yaml

    conf = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    options = (conf.get("sphinx") or {}).get("config") or {}
    return dependency_hashes(
        root,
        list(options.get("seqrmt_cache_files", ["requirements.txt"])),
        list(options.get("seqrmt_cache_packages", ["seqrmt"])),
    )


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


def _read_keys(folder: Path) -> dict[str, str]:
    try:
        return json.loads((folder / KEYS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def _keys_locked(folder: Path):
    """Hold an exclusive lock on the key file while it is read, changed and written.

    The HTML and PDF builds and the execution scripts may run at the same time.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / (KEYS_FILE + ".lock"), "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _write_keys(folder: Path, keys: dict[str, str]) -> None:
    tmp = folder / f"{KEYS_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(keys, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(folder / KEYS_FILE)


def record_key(folder: Path, uri: str, key: str) -> None:
    """Note that the cache entries of notebook ``uri`` were made with dependency key ``key``."""
    with _keys_locked(folder):
        recorded = _read_keys(folder)
        if recorded.get(uri) != key:
            recorded[uri] = key
            _write_keys(folder, recorded)


def invalidate_cache(folder: Path, current: dict[str, str]) -> list[str]:
    """Remove the cache entries of notebooks (``uri -> key``) executed with other dependencies.

    Entries of a notebook with no recorded key are removed too (their dependencies are
    unknown).  Returns the URIs whose entries were removed.
    """
    if not (folder / "global.db").exists():
        return []
    from jupyter_cache import get_cache

    cache = get_cache(str(folder))
    with _keys_locked(folder):
        recorded = _read_keys(folder)
        removed = []
        for record in cache.list_cache_records():
            if record.uri in current and recorded.get(record.uri) != current[record.uri]:
                cache.remove_cache(record.pk)
                if record.uri not in removed:
                    removed.append(record.uri)
        for uri in removed:
            recorded.pop(uri, None)
        if removed:
            _write_keys(folder, recorded)
    return removed


def _env_get_outdated(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    root = Path(app.confdir)
    common, packages = dependency_hashes(
        root, list(app.config.seqrmt_cache_files), list(app.config.seqrmt_cache_packages)
    )
    notebooks = _notebooks(app, env)
    keys = {doc: notebook_key(path, common, packages) for doc, path in notebooks.items()}
    app._seqrmt_cache = {
        "keys": keys,
        "paths": {d: str(p) for d, p in notebooks.items()},
        "start": time.time(),
        "read": set(),
    }
    folder = _cache_folder(env)
    if folder is not None:
        stale = invalidate_cache(folder, {str(notebooks[d]): k for d, k in keys.items()})
        if stale:
            LOGGER.info(
                "execution cache: dependencies changed, %d notebook(s) to execute again: %s",
                len(stale),
                ", ".join(Path(u).name for u in stale),
            )
    read_with = getattr(env, "seqrmt_cache_keys", {})
    outdated = sorted(
        doc for doc, key in keys.items() if doc not in added and doc not in changed and read_with.get(doc) != key
    )
    if outdated:
        LOGGER.info(
            "execution cache: %d page(s) outdated by their dependencies: %s", len(outdated), ", ".join(outdated)
        )
    return outdated


def use_data_cache(execution_cache: Path) -> None:
    """Let the kernels started from now on store seqrmt's slow results (fixed-``T`` token spectra,
    explorer frames; ``seqrmt/_cache.py``) in ``seqrmt-cache`` beside the execution cache, for the
    tests and later builds (unless ``SEQRMT_CACHE_DIR`` is set already)."""
    os.environ.setdefault("SEQRMT_CACHE_DIR", str(execution_cache.parent / "seqrmt-cache"))


def _env_before_read_docs(app: Any, env: Any, docnames: list[str]) -> None:
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
    if not hasattr(env, "seqrmt_cache_keys"):
        env.seqrmt_cache_keys = {}
    env.seqrmt_cache_keys[doc] = state["keys"][doc]
    folder = _cache_folder(env)
    if folder is not None and (folder / "global.db").exists():
        record_key(folder, state["paths"][doc], state["keys"][doc])


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
