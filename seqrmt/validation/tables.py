"""The stored tables: CSV with ``# key: value`` header comments (:func:`to_csv`,
:func:`read_csv`, ``csv`` module only) and the precomputed tables shipped in ``seqrmt/data``."""

from __future__ import annotations

import csv
import io
from typing import Mapping, Sequence

import numpy as np

from .. import _checks
from .._data import _load, read_csv

__all__ = [
    "to_csv",
    "read_csv",
    "load_atlas",
    "load_finite_size",
    "load_finite_size_large",
    "load_fixed_T_spike",
    "load_cost",
]


def to_csv(rows: Sequence[Mapping], path=None, *, meta: Mapping | None = None, digits: int | None = None) -> str | None:
    """Write rows (dicts with the same keys) as CSV, with ``# key: value`` header comments.

    ``meta`` documents how the table was produced (``d``, seeds, version, command, ...).
    Floats are written exactly (``repr``) or, with ``digits``, to that many significant
    digits.  Returns the text when ``path`` is None.
    """
    fmt = repr if digits is None else (lambda x: f"{x:.{_checks.integer('digits', digits)}g}")
    rows = list(rows)
    if not rows:
        raise ValueError("rows must not be empty")
    fields = list(rows[0].keys())
    for r in rows[1:]:
        for k in r:
            if k not in fields:
                fields.append(k)
    buf = io.StringIO()
    for k, v in (meta or {}).items():
        buf.write(f"# {k}: {v}\n")
    wr = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    wr.writeheader()
    for r in rows:
        wr.writerow({k: (fmt(float(v)) if isinstance(v, (float, np.floating)) else v) for k, v in r.items()})
    text = buf.getvalue()
    if path is None:
        return text
    with open(path, "w", newline="") as fh:
        fh.write(text)
    return None


def load_atlas() -> tuple[list[dict], dict]:
    """The precomputed atlas shipped with the package (``seqrmt/data/atlas.csv``): ``(rows, meta)``."""
    return _load("atlas.csv")


def load_finite_size() -> tuple[list[dict], dict]:
    """The precomputed finite-size and bulk-vs-T tables (``seqrmt/data/finite_size.csv``)."""
    return _load("finite_size.csv")


def load_finite_size_large() -> tuple[list[dict], dict]:
    """The finite-size table to ``d = 3200`` for three settings (``seqrmt/data/finite_size_large.csv``,
    written by ``python benchmarks/atlas.py --large`` through the executor path)."""
    return _load("finite_size_large.csv")


def load_fixed_T_spike() -> tuple[list[dict], dict]:
    """The signal eigenvalue at fixed ``T`` simulated against both predictions
    (``seqrmt/data/fixed_T_spike.csv``, written by ``python benchmarks/fixed_T_spike.py``: rows of
    :func:`fixed_T_spike_check` for mean pooling over ``T = 1, 2, 3`` positions at ``delta = gamma = 0.5``,
    ``d = 800``, 32 tables, with ``ratio = beta / beta_c`` and ``beta_c`` the large-``T`` threshold)."""
    return _load("fixed_T_spike.csv")


def load_cost() -> tuple[list[dict], dict]:
    """The measured cost of one simulation against ``d`` (``seqrmt/data/cost.csv``, written by
    ``python benchmarks/atlas.py --cost``): rows ``kind = "cell"`` (one seed of a finite-size
    setting in a fresh process: ``seconds``, peak resident memory ``peak_mib`` and the
    interpreter's ``baseline_mib`` before the simulation) and ``kind = "atlas_seed"`` (one
    seed of the whole atlas grid at ``d = 800``, in one process)."""
    return _load("cost.csv")
