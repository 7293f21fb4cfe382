"""An optional disk cache of the package's slow, deterministic computations: the token spectra at
fixed ``T`` (:func:`seqrmt.fixed_T_spike_model`, :func:`seqrmt.fixed_T_bulk_law`), which take seconds
each, and the explorer frames of the package's figure functions (:func:`seqrmt.widgets.explore`),
both asked for again by every process that draws the same figure.

Off unless the environment variable ``SEQRMT_CACHE_DIR`` names a folder (the book's build and its
tests set it to ``_build/seqrmt-cache``, so that the tests and a rebuild reuse what the build
computed).  An entry is keyed by the arguments, the versions of numpy and scipy and a hash of the
package's source: an edit of ``seqrmt`` or an upgrade never reads an old entry.  Entries are written
to a temporary file and renamed, so processes running side by side never read a part of one, and an
entry that cannot be read is computed again.  Only folders you name are read: an entry is a pickle.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ENV = "SEQRMT_CACHE_DIR"
T = TypeVar("T")


@functools.lru_cache(maxsize=1)
def source_hash() -> str:
    """SHA-256 of the package's Python source (every ``.py`` file under ``seqrmt/``, with its path)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def folder() -> Path | None:
    """The cache folder named by ``SEQRMT_CACHE_DIR``, or ``None`` (no disk cache)."""
    named = os.environ.get(ENV, "").strip()
    return Path(named) if named else None


def entry_path(kind: str, key: tuple) -> Path | None:
    """Where the entry of ``key`` of this ``kind`` lives (``None`` without a cache folder)."""
    base = folder()
    if base is None:
        return None
    import numpy
    import scipy

    material = repr((kind, key, numpy.__version__, scipy.__version__, source_hash()))
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


def options_key(options: dict[str, Any]) -> tuple:
    """The options as a sorted tuple, without those left at their default ``None``."""
    return tuple(sorted((k, v) for k, v in options.items() if v is not None))
