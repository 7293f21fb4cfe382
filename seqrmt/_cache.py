"""An optional disk cache of the package's slow, deterministic computations: the token spectra at
fixed ``T`` (:func:`seqrmt.fixed_T_spike_model`, :func:`seqrmt.fixed_T_bulk_law`), which take seconds
each, and the explorer frames of the package's figure functions (:func:`seqrmt.widgets.explore`),
both asked for again by every process that draws the same figure.

Off unless the environment variable ``SEQRMT_CACHE_DIR`` names a folder (the book's build and its
tests set it to ``_build/seqrmt-cache``, so that the tests and a rebuild reuse what the build
computed).  An entry is keyed by the arguments, the versions of numpy and scipy and a hash of the
source of the modules it depends on (:func:`dependencies`): the module of the function that asks
for it, every module of ``seqrmt`` that the key names (an explorer frame names its figure
function's module) and, transitively, every module of the package these import (the static import
graph, lazy imports inside functions included; the package's data files for a module that
imports ``importlib.resources``).  So an edit of a module the computation may run, or an upgrade,
never reads an old entry, and an edit elsewhere (``seqrmt/learning.py`` for a token spectrum)
keeps it.  A caller outside the package depends on the whole package's source.  Entries are written
to a temporary file and renamed, so processes running side by side never read a part of one, and an
entry that cannot be read is computed again.  Only folders you name are read: an entry is a pickle.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from . import settings

ENV = "SEQRMT_CACHE_DIR"
T = TypeVar("T")


#: The package's folder and name.
ROOT = Path(__file__).resolve().parent
PACKAGE = __name__.rpartition(".")[0] or "seqrmt"


def _sources(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


@functools.lru_cache(maxsize=1)
def source_hash() -> str:
    """SHA-256 of the package's Python source (every ``.py`` file under ``seqrmt/``, with its path)."""
    h = hashlib.sha256()
    for path in _sources(ROOT):
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def _module_name(path: Path, root: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def _top_level_names(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level (``from m import *`` gives the public ones)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name.split(".")[0]) for a in node.names if a.name != "*")
    return names


def _attributes_of(tree: ast.Module, alias: str) -> set[str] | None:
    """The attributes ``alias.x`` a module uses, or ``None`` when it uses ``alias`` otherwise."""
    attrs: set[str] = set()
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name) and child.id == alias:
                if not (isinstance(node, ast.Attribute) and node.value is child):
                    return None
                attrs.add(node.attr)
    return attrs


class _PackageSource:
    """The parsed modules of a package (a module that does not parse counts as empty), and what their
    import statements name."""

    def __init__(self, root: Path, package: str) -> None:
        self.files = {_module_name(p, root, package): p for p in _sources(root)}
        self.trees: dict[str, ast.Module] = {}
        for name, path in self.files.items():
            try:
                self.trees[name] = ast.parse(path.read_bytes(), filename=str(path))
            except (OSError, SyntaxError, ValueError):
                self.trees[name] = ast.Module(body=[], type_ignores=[])

    def resolve(self, name: str, node: ast.ImportFrom) -> str:
        """The module that ``from ... import`` of module ``name`` imports from (relative imports resolved)."""
        if not node.level:
            return node.module or ""
        here = name if self.files[name].name == "__init__.py" else name.rpartition(".")[0]
        base = ".".join(here.split(".")[: len(here.split(".")) - node.level + 1])
        return f"{base}.{node.module}" if node.module else base

    def origin(self, module: str, attr: str, depth: int = 0) -> str:
        """The module that defines ``attr`` of ``module`` (following ``from .m import attr``)."""
        for node in self.trees[module].body:
            if isinstance(node, ast.ImportFrom) and depth < 8:
                for a in node.names:
                    if (a.asname or a.name) == attr and self.resolve(module, node) in self.files:
                        base = self.resolve(module, node)
                        if f"{base}.{a.name}" in self.files:
                            return f"{base}.{a.name}"
                        return self.origin(base, a.name, depth + 1)
        return module

    def star(self, module: str) -> list[str]:
        """The names ``from module import *`` binds (its ``__all__``, else its public names)."""
        names: list[str] | None = None
        public = [n for n in _top_level_names(self.trees[module]) if n[:1] != "_"]
        for node in self.trees[module].body:
            target = node.target if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            if not (isinstance(target, ast.Name) and target.id == "__all__"):
                continue
            value = node.value
            if not isinstance(value, (ast.List, ast.Tuple)) or not all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                return public
            listed = [e.value for e in value.elts]
            names = (names or []) + listed if isinstance(node, ast.AugAssign) else listed
        return names if names is not None else public

    def exports(self, pkg: str) -> dict[str, str]:
        """Name -> the module that defines it, for the names module ``pkg`` imports from others."""
        out: dict[str, str] = {}
        for node in self.trees[pkg].body:
            if isinstance(node, ast.ImportFrom) and self.resolve(pkg, node) in self.files:
                base = self.resolve(pkg, node)
                for a in node.names:
                    if a.name == "*":
                        out.update({n: self.origin(base, n) for n in self.star(base)})
                    elif f"{base}.{a.name}" in self.files:
                        out[a.asname or a.name] = f"{base}.{a.name}"
                    else:
                        out[a.asname or a.name] = self.origin(base, a.name)
        return out

    def _imported(self, tree: ast.Module, alias: ast.alias) -> set[str]:
        """The modules ``import alias`` depends on (see :func:`import_graph`)."""
        parts = alias.name.split(".")
        deps = {m for m in (".".join(parts[: i + 1]) for i in range(1, len(parts))) if m in self.files}
        target = alias.name if alias.asname else parts[0]
        if target not in self.files:
            return deps
        attrs = _attributes_of(tree, alias.asname or parts[0])
        known = self.exports(target)
        if attrs is None or not attrs <= known.keys() | {n.rpartition(".")[2] for n in self.files}:
            return deps | {target}
        return deps | {known.get(attr, f"{target}.{attr}") for attr in attrs}

    def dependencies(self, name: str) -> set[str]:
        """The package's modules that module ``name`` imports (every import statement, in functions too)."""
        tree = self.trees[name]
        deps: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    deps |= self._imported(tree, alias)
            elif isinstance(node, ast.ImportFrom):
                base = self.resolve(name, node)
                if base not in self.files:
                    continue
                subs = {f"{base}.{a.name}" for a in node.names} & self.files.keys()
                deps.update(subs)
                if len(subs) < len(node.names):  # a name of the module itself
                    deps.add(base)
        deps = {d for d in deps if d in self.files}
        deps.discard(name)
        return deps


@functools.lru_cache(maxsize=8)
def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, tuple[set[str], Path]]:
    """Module name -> (the package's modules it imports, its file), from the source of every module
    of the package in ``root`` (every import statement, in functions too; relative imports resolved).

    ``from .m import x`` depends on ``m``; ``from . import m`` on the module ``m`` only;
    ``import seqrmt as sr`` on the modules that define the names ``sr.x`` it uses (through the
    re-exports of ``seqrmt/__init__.py``), or on ``__init__`` and all it imports when it uses
    ``sr`` otherwise or a name defined there.  A package's ``__init__`` counts only when it is
    imported as such (importing ``seqrmt.plots.bulk`` does not make ``seqrmt/plots/__init__.py`` a
    dependency: the package's ``__init__`` files only re-export)."""
    source = _PackageSource(root, package)
    return {name: (source.dependencies(name), path) for name, path in source.files.items()}


def _reads_data(path: Path) -> bool:
    text = path.read_text(encoding="utf-8", errors="replace")
    return "importlib.resources" in text or "from importlib import resources" in text


def dependencies(modules: set[str], root: Path = ROOT, package: str = PACKAGE) -> list[Path]:
    """The files a computation of ``modules`` may use: their sources and, transitively, those of
    every module of the package they import (:func:`import_graph`), with the package's data files
    when one of them imports ``importlib.resources``.  Computed once per process."""
    return list(_dependencies(frozenset(modules), root, package))


@functools.lru_cache(maxsize=256)
def _dependencies(modules: frozenset[str], root: Path, package: str) -> tuple[Path, ...]:
    graph = import_graph(root, package)
    todo, seen = [m for m in modules if m in graph], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name][0] - seen)
    files = {graph[name][1] for name in seen}
    if any(_reads_data(path) for path in files):
        files.update(
            p
            for p in root.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc", ".pyo") and "__pycache__" not in p.parts
        )
    return tuple(sorted(files))


@functools.lru_cache(maxsize=256)
def dependency_hash(modules: frozenset[str], root: Path = ROOT, package: str = PACKAGE) -> str:
    """SHA-256 of the files :func:`dependencies` gives for ``modules`` (with their paths); like
    :func:`source_hash`, computed once per process."""
    h = hashlib.sha256()
    for path in dependencies(set(modules), root, package):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


#: The files that the entries asked for in this process depend on (the files their keys hash).  A
#: notebook's kernel that records what the notebook used (``seqrmt_book/cache.py``) counts them, and
#: not this module's own reads of the sources: an entry read from the disk was computed by them.
DEPENDENCY_FILES: set[str] = set()


def _source_key(key: tuple) -> str:
    """The source hash of an entry asked for from here: of the modules of :func:`dependencies` for
    the caller's module and the modules the key names, or of the whole package for a caller outside
    the package (both noted in :data:`DEPENDENCY_FILES`)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    caller = frame.f_globals.get("__name__", "") if frame is not None else ""
    if not (caller == PACKAGE or caller.startswith(PACKAGE + ".")):
        DEPENDENCY_FILES.update(str(p) for p in _sources(ROOT))
        return source_hash()
    graph = import_graph()
    modules = frozenset({caller, *(v for v in key if isinstance(v, str) and v in graph)})
    DEPENDENCY_FILES.update(str(p) for p in dependencies(modules))
    return dependency_hash(modules)


def folder() -> Path | None:
    """The cache folder named by ``SEQRMT_CACHE_DIR``, or ``None`` (no disk cache)."""
    named = settings.get(ENV)
    return Path(named) if named else None


def entry_path(kind: str, key: tuple) -> Path | None:
    """Where the entry of ``key`` of this ``kind`` lives (``None`` without a cache folder)."""
    base = folder()
    if base is None:
        return None
    import numpy
    import scipy

    material = repr((kind, key, numpy.__version__, scipy.__version__, _source_key(key)))
    return base / kind / f"{hashlib.sha256(material.encode()).hexdigest()}.pickle"


def cached(kind: str, key: tuple, build: Callable[[], T]) -> T:
    """``build()``, or the value stored for ``(kind, key)`` by an earlier call (any process).

    ``key`` must be a tuple of plain values (numbers, strings, ``None``, tuples of them) whose
    ``repr`` determines the result of ``build``."""
    path = entry_path(kind, key)
    if path is None:
        return build()
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except Exception:  # no entry, or a damaged one (or of a class that changed): compute
        pass
    value = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:  # a read-only or full disk: the value is still returned
        pass
    return value


def array_key(a: Any) -> tuple:
    """An array (weights ``w``, a correlation matrix ``R``) as nested tuples of plain floats, for a key."""
    return tuple(map(array_key, a)) if getattr(a, "ndim", 0) > 1 else tuple(a.tolist())


def options_key(options: dict[str, Any]) -> tuple:
    """The options as a sorted tuple, without those left at their default ``None``."""
    return tuple(sorted((k, v) for k, v in options.items() if v is not None))
