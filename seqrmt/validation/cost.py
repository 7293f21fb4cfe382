"""The measured cost of one simulation against ``d`` (``seqrmt/data/cost.csv``) and what it says
about the time of the full atlas."""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import numpy as np

from .. import _checks
from .scaling import fit_rate
from .settings import ATLAS_GRID
from .tables import load_cost

__all__ = ["cost_exponent", "atlas_hours"]


def _cell_seconds(rows: Iterable[Mapping]) -> dict:
    """Run time of one cell at each measured ``d``: the fastest of the repeats (the one least
    slowed down by other jobs on the machine)."""
    by_d: dict = {}
    for r in rows:
        if r["kind"] == "cell":
            by_d.setdefault(int(r["d"]), []).append(float(r["seconds"]))
    return {d: float(np.min(v)) for d, v in sorted(by_d.items())}


def cost_exponent(rows: Iterable[Mapping] | None = None, ds: Sequence[int] = (400, 800, 1600, 3200)) -> dict:
    """Fit ``t(d) = c d^p`` to the time of one cell (least squares on log-log).

    The time at each ``d`` is the fastest of the measured repeats.  Returns ``exponent``
    (``p``), ``intercept`` (``log c``), the per-``d`` times (``seconds``) and the largest relative residual of the fit (``residual``).  ``rows``
    default to :func:`load_cost`.  The eigendecomposition and the product ``C C^T`` both
    cost ``O(d^3)`` at fixed ``delta, gamma``; at small ``d`` the ``O(d^2)`` parts
    (drawing the table and the tokens) lower the fitted exponent.
    """
    rows = load_cost()[0] if rows is None else list(rows)
    med = _cell_seconds(rows)
    use = [d for d in ds if d in med]
    if len(use) < 2:
        raise ValueError(f"ds must name at least two measured dimensions, measured: {sorted(med)}")
    slope, intercept = fit_rate(use, [med[d] for d in use])
    fit = {d: math.exp(intercept) * d**slope for d in use}
    resid = max(abs(med[d] / fit[d] - 1) for d in use)
    return dict(exponent=slope, intercept=intercept, seconds={d: med[d] for d in use}, residual=resid)


def atlas_hours(d: int, cores: int, rows: Iterable[Mapping] | None = None, *, seeds: int = 6) -> float:
    """Estimated wall-clock hours of the full atlas (:data:`ATLAS_GRID`, ``seeds`` seeds) at
    dimension ``d`` on ``cores`` single-threaded workers.

    ``seeds * t_seed * t_cell(d) / t_cell(800) / min(cores, units)``: ``t_seed`` is the
    measured time of one seed of the whole grid at ``d = 800`` (one process, fastest
    repeat), scaled by the cost of one cell at ``d`` relative to ``d = 800`` (measured at ``d``,
    or the power law of :func:`cost_exponent` where ``d`` was not measured), divided
    among the workers; ``units = 18 * seeds`` simulations can run at once (perfect
    balance and no scheduling overhead assumed: a lower bound for a real cluster).
    """
    d = _checks.integer("d", d, minimum=8)
    cores = _checks.integer("cores", cores)
    seeds = _checks.integer("seeds", seeds)
    rows = load_cost()[0] if rows is None else list(rows)
    t_seed = [float(r["seconds"]) for r in rows if r["kind"] == "atlas_seed" and int(r["d"]) == 800]
    if not t_seed:
        raise ValueError("rows must contain a kind='atlas_seed' row at d = 800")
    med = _cell_seconds(rows)
    fit = cost_exponent(rows)

    def cell(x):
        return med[x] if x in med else math.exp(fit["intercept"]) * x ** fit["exponent"]

    blocks = len(ATLAS_GRID["delta"]) * len(ATLAS_GRID["gamma"]) * len(ATLAS_GRID["R"])
    total = seeds * min(t_seed) * cell(d) / cell(800)
    return total / min(cores, blocks * seeds) / 3600.0
