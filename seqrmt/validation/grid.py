"""The atlas (:func:`atlas`): the grid of :data:`ATLAS_GRID` simulated over seeds, each setting and
quantity a row with its predictions, the empirical mean and spread, and a verdict."""

from __future__ import annotations

import math
import time
from typing import Mapping, Sequence

import numpy as np

from .. import _checks
from .._numerics import blas_threads
from ..attention import WEIGHT_NAMES, kappa as _kappa, named_weights
from ..model import sizes
from ..spectrum import BulkLaw
from ..spikes import predict, sample_threshold
from .executors import _check_executor, _run_units
from .measure import _classical_location, _empirical, _predict_realized, _predicted, _spectra
from .settings import _T, ATLAS_GRID, ATLAS_QUANTITIES, atlas_betas, atlas_correlation
from .tolerance import Tolerance
from .verdicts import judge

__all__ = ["atlas"]


def _phase(p) -> str:
    if p.sample_outlier is not None:
        return "sample outlier"
    if p.population_outlier is not None:
        return "population only"
    return "no outlier"


def _grid(grid: Mapping | None) -> dict:
    g = dict(ATLAS_GRID)
    if grid is not None:
        unknown = set(grid) - set(g)
        if unknown:
            raise ValueError(f"grid has unknown keys {sorted(unknown)}; allowed: {sorted(g)}")
        for k, v in grid.items():
            v = tuple(v) if isinstance(v, (list, tuple)) else (v,)
            if not v:
                raise ValueError(f"grid[{k!r}] must not be empty")
            g[k] = v
    for k in g["regime"]:
        if k not in ("low", "mid", "high"):
            raise ValueError(f"grid['regime'] values must be 'low', 'mid' or 'high', got {k!r}")
    for k in g["weights"]:
        if k not in WEIGHT_NAMES:
            raise ValueError(f"grid['weights'] values must be among {WEIGHT_NAMES}, got {k!r}")
    return g


def _atlas_block(d: int, dl_nom: float, gm_nom: float, rname: str, T: int, wnames):
    """Sizes, realized ratios, correlation and weights of one ``(delta, gamma, R)`` block."""
    V, N = sizes(d, dl_nom, gm_nom)
    R = atlas_correlation(rname, T)
    return V, N, d / V, d / N, R, {wn: named_weights(wn, R) for wn in wnames}


def _atlas_unit(
    d: int, dl_nom: float, gm_nom: float, rname: str, T: int, wnames: tuple, bl: dict, centerings: tuple, seed: int
) -> dict:
    """One unit of work of :func:`atlas`: one seed of one ``(delta, gamma, R)`` block.

    One table and one set of sequences (seed ``seed``) serve every weight, strength and
    centering of the block.  Returns the per-seed empirical values and realized-table
    predictions of each ``(weights, beta, centered)`` and the run time of the unit.
    Module-level with plain arguments, so that it can be sent to another process.
    """
    t0 = time.perf_counter()
    with blas_threads(1):
        V, N, dl, gm, R, ws = _atlas_block(d, dl_nom, gm_nom, rname, T, wnames)
        laws = {wn: BulkLaw(dl, gm, _kappa(w)) for wn, w in ws.items()}
        out = []
        for wn, b, c, lam, U, info in _spectra(d, V, N, R, ws, bl, centerings, seed):
            pv = _predicted(predict(dl, gm, ws[wn], R, b, centered=c), "limit")
            emp = _empirical(lam, U, b, info, pv, laws[wn])
            pr = _predicted(_predict_realized(dl, gm, ws[wn], R, b, c, info), "realized")
            out.append((wn, b, c, {q: float(x) for q, x in emp.items()}, {q: float(pr[q]) for q in ATLAS_QUANTITIES}))
    return dict(samples=out, seconds=time.perf_counter() - t0)


def atlas(
    d: int = 800,
    seeds: int | Sequence[int] = 4,
    *,
    grid: Mapping | None = None,
    tol: Tolerance | None = None,
    T: int = _T,
    progress: bool = False,
    betas: Mapping[str, float] | None = None,
    executor=None,
) -> list[dict]:
    """Run the validation grid: predicted against empirical values with spreads over seeds.

    Parameters
    ----------
    d : int
        Embedding dimension (``V = d / delta`` rounded to an even integer, ``N = d / gamma``;
        predictions use the realized ratios ``d/V`` and ``d/N``).
    seeds : int or sequence of int
        Seeds (``n`` means ``0 .. n-1``); each seed draws a new table and new sequences.
    grid : dict, optional
        Subset of :data:`ATLAS_GRID` (same keys; missing keys take the full list).
    tol : Tolerance, optional
        Agreement rule (default :class:`Tolerance`).
    T : int
        Sequence length (16 in the book).
    progress : bool
        Show a progress bar (``tqdm``): simulations done, elapsed time, time left.
    betas : dict, optional
        Override the three strengths ``{"low": .., "mid": .., "high": ..}`` of
        :func:`atlas_betas` (same for every setting).
    executor : concurrent.futures.Executor, optional
        Where the simulations run (default: here, one after the other).  The unit of work
        is one seed of one ``(delta, gamma, R)`` block (one table and one set of sequences
        serve its weights, strengths and centerings), with single-threaded BLAS; results
        are reassembled in seed order, so the rows are identical, bit for bit, whatever the
        executor: ``concurrent.futures.ProcessPoolExecutor(n)`` on one machine,
        ``dask.distributed.Client(...).get_executor()`` on a cluster
        (``pip install seqrmt[cluster]``).

    Returns
    -------
    list of dict
        One row per (cell, quantity); see :data:`ATLAS_QUANTITIES` and the module
        docstring.  Columns: the setting (``d, V, N, delta, gamma, R, T, weights,
        regime, rule, beta, centered, kappa, alpha, sigma_w``, critical betas, ``theta``,
        ``theta_c``, ``phase``, ``phase_ideal``), ``quantity``, ``predicted``,
        ``predicted_ideal``, ``predicted_realized``, ``empirical`` (mean over seeds),
        ``std``, ``sem``, ``n``, ``error``, ``tol``, ``status``, ``note``.
    """
    d = _checks.integer("d", d, minimum=8)
    seeds = list(range(_checks.integer("seeds", seeds))) if isinstance(seeds, (int, np.integer)) else list(seeds)
    if not seeds:
        raise ValueError("seeds must contain at least one seed")
    seeds = [_checks.integer("seeds", s, minimum=0) for s in seeds]
    T = _checks.integer("T", T)
    _check_executor(executor)
    tol = tol or Tolerance()
    g = _grid(grid)
    setups, tasks = _atlas_setups(d, seeds, g, T, betas)
    results = _run_units(_atlas_unit, tasks, executor, progress, desc=f"atlas d={d}")
    rows: list[dict] = []
    for ib, setup in enumerate(setups):
        rows += _atlas_block_rows(d, T, g, setup, results[ib * len(seeds) : (ib + 1) * len(seeds)], tol)
    return judge(rows, tol)


def _atlas_setups(d: int, seeds: list[int], g: dict, T: int, betas: Mapping[str, float] | None) -> tuple[list, list]:
    """The blocks of :func:`atlas` (one per ``(delta, gamma, R)``: sizes, weights, the chosen strengths)
    and the units of work (one per block and seed), from checked arguments."""
    blocks = [(dl, gm, rn) for dl in g["delta"] for gm in g["gamma"] for rn in g["R"]]
    setups, tasks = [], []
    for dl_nom, gm_nom, rname in blocks:
        V, N, dl, gm, R, ws = _atlas_block(d, dl_nom, gm_nom, rname, T, g["weights"])
        choice = {wn: atlas_betas(dl, gm, w, R) for wn, w in ws.items()}
        if betas is not None:
            for wn in ws:
                choice[wn]["betas"] = {k: float(betas[k]) for k in ("low", "mid", "high")}
                choice[wn]["rule"] = "given"
        bl = {wn: [choice[wn]["betas"][r] for r in g["regime"]] for wn in ws}
        setups.append((dl_nom, gm_nom, rname, V, N, dl, gm, R, ws, choice, bl))
        ubl = {k: sorted(set(v)) for k, v in bl.items()}
        tasks += [(d, dl_nom, gm_nom, rname, T, tuple(g["weights"]), ubl, tuple(g["centered"]), s) for s in seeds]
    return setups, tasks


def _atlas_block_rows(d: int, T: int, g: dict, setup: tuple, results: list, tol: Tolerance) -> list[dict]:
    """The rows of one block of :func:`atlas`, before the verdicts: its predictions against what
    its seeds measured (``results``, in seed order)."""
    dl_nom, gm_nom, rname, V, N, dl, gm, R, ws, choice, bl = setup
    laws = {wn: BulkLaw(dl, gm, _kappa(w)) for wn, w in ws.items()}
    preds = {}
    for wn, w in ws.items():
        for b in set(bl[wn]):
            for c in g["centered"]:
                preds[wn, b, c] = (
                    predict(dl, gm, w, R, b, centered=c),
                    predict(dl, gm, w, R, b, centered=c, finite_table=False),
                )
    samples: dict = {}
    for res in results:
        for wn, b, c, emp, pr in res["samples"]:
            samples.setdefault((wn, b, c), []).append((emp, pr))
    rows: list[dict] = []
    for wn, w in ws.items():
        ch = choice[wn]
        tc = sample_threshold(dl, gm, _kappa(w))
        for reg, b in zip(g["regime"], bl[wn]):
            for c in g["centered"]:
                p, pi = preds[wn, b, c]
                base = dict(
                    d=d,
                    V=V,
                    N=N,
                    delta=dl,
                    gamma=gm,
                    delta_nominal=dl_nom,
                    gamma_nominal=gm_nom,
                    R=rname,
                    T=T,
                    weights=wn,
                    regime=reg,
                    rule=ch["rule"],
                    beta=b,
                    centered=bool(c),
                    kappa=p.kappa,
                    alpha=p.alpha,
                    sigma_w=p.sigma_w,
                    beta_c_pop=ch["beta_c_pop"],
                    beta_c_sample=ch["beta_c_sample"],
                    beta_c_pop_ideal=ch["beta_c_pop_ideal"],
                    beta_c_sample_ideal=ch["beta_c_sample_ideal"],
                    theta=p.theta,
                    theta_c=tc,
                    bulk_edge=p.bulk_edge,
                    phase=_phase(p),
                    phase_ideal=_phase(pi),
                    signal_outlier=_nan(p.sample_outlier),
                    mean_outlier=_nan(p.mean_outlier),
                )
                rows += _cell_rows(base, samples[wn, b, c], p, pi, laws[wn], tol)
    return rows


def _cell_rows(base: dict, data: list, p, pi, law, tol: Tolerance) -> list[dict]:
    """One row per quantity of one cell (setting ``base``): the predictions ``p`` (exact) and ``pi``
    (idealized) against the ``(empirical, realized prediction)`` pairs ``data`` of its seeds."""
    d, b, c = base["d"], base["beta"], base["centered"]
    pv, piv = _predicted(p, "limit"), _predicted(pi, "ideal")
    qs = [q for q in ATLAS_QUANTITIES if not (q.endswith("_mean") and c) and not (q == "overlap_signal" and b == 0)]
    rows = []
    for q in qs:
        vals = np.array([e[q] for e, _ in data], dtype=float)
        real = np.array([r[q] for _, r in data], dtype=float)
        n = vals.size
        mean = float(vals.mean())
        std = float(vals.std(ddof=1)) if n > 1 else 0.0
        sem = std / math.sqrt(n)
        pred = float(pv[q])
        rank = pv["_rank"].get(q, 0)
        fin = _classical_location(law, rank, d) if rank > 0 else float("nan")
        rows.append(
            dict(
                base,
                cell=_cell_id(base),
                quantity=q,
                predicted=pred,
                predicted_ideal=float(piv[q]),
                predicted_realized=float(real.mean()),
                predicted_finite_d=fin,
                predicted_corrected=fin if rank > 0 else float(real.mean()),
                empirical=mean,
                std=std,
                sem=sem,
                n=n,
                error=mean - pred,
                tol=tol(q, pred, sem, n),
            )
        )
    return rows


def _nan(x) -> float:
    return float("nan") if x is None else float(x)


def _cell_id(r: Mapping) -> str:
    return (
        f"delta={r['delta_nominal']:g} gamma={r['gamma_nominal']:g} R={r['R']} w={r['weights']} "
        f"{r['regime']} {'centered' if r['centered'] else 'uncentered'}"
    )
