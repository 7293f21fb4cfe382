"""Theory against simulation as the dimension ``d`` grows (:func:`finite_size`, with the fitted
rates of :func:`scaling_rates`) and as the sequence length ``T`` varies (:func:`bulk_vs_T`,
:func:`spikes_vs_T`, against Theorem 1 and the fixed-``T`` laws)."""

from __future__ import annotations

import math
import time
from typing import Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .. import _checks
from .._numerics import blas_threads
from ..attention import kappa as _kappa, mean_weights, named_weights
from ..model import sizes
from ..spectrum import BulkLaw
from ..spikes import predict, sample_threshold
from .executors import _check_executor, _run_units
from .measure import _empirical, _predict_realized, _predicted, _spectra, kolmogorov_distance
from .settings import _T, atlas_betas, atlas_correlation
from .verdicts import _fixed_T_law, law_distance

__all__ = [
    "FINITE_SIZE_SETTINGS",
    "finite_size",
    "bulk_vs_T",
    "spikes_vs_T",
    "fixed_T_bulk_above",
    "fit_rate",
    "scaling_rates",
]

#: Representative settings for the finite-size study: name -> (delta, gamma, R, weights,
#: centered, beta rule) where the rule is ``("regime", name)`` (from :func:`atlas_betas`)
#: or ``("factor", f)`` (``beta = f * beta_c_sample``).
FINITE_SIZE_SETTINGS: dict[str, tuple] = {
    "prefix/mean, far above": (0.5, 0.25, "prefix", "mean", True, ("regime", "high")),
    "markov/optimal, uncentered": (0.5, 1.5, "markov", "optimal", False, ("regime", "high")),
    "prefix/mean, just above": (0.5, 0.25, "prefix", "mean", True, ("factor", 1.25)),
    "prefix/mean, between": (0.5, 0.25, "prefix", "mean", True, ("regime", "mid")),
}


def _setting(d: int, dl_nom: float, gm_nom: float, rname: str, T: int, wname: str, beta: float, centered: bool):
    """Sizes, correlation, weights and limit predictions of one finite-size setting at one ``d``."""
    V, N = sizes(d, dl_nom, gm_nom)
    dl, gm = d / V, d / N
    R = atlas_correlation(rname, T)
    w = named_weights(wname, R)
    p = predict(dl, gm, w, R, beta, centered=centered)
    return V, N, dl, gm, R, w, p, _predicted(p, "limit")


def _scaling_unit(
    d: int, dl_nom: float, gm_nom: float, rname: str, T: int, wname: str, beta: float, centered: bool, seed: int
) -> dict:
    """One unit of work of :func:`finite_size`: one seed of one setting at one ``d``.

    Returns the empirical values, the predictions with this table's realized norms and the
    run time.  Module-level with plain arguments, so that it can be sent to another process.
    """
    t0 = time.perf_counter()
    with blas_threads(1):
        V, N, dl, gm, R, w, p, pv = _setting(d, dl_nom, gm_nom, rname, T, wname, beta, centered)
        law = BulkLaw(dl, gm, p.kappa)
        ((_, b, c, lam, U, info),) = _spectra(d, V, N, R, {wname: w}, {wname: [beta]}, [centered], seed)
        emp = _empirical(lam, U, b, info, pv, law)
        pr = _predicted(_predict_realized(dl, gm, w, R, b, c, info), "realized")
    return dict(
        empirical={q: float(x) for q, x in emp.items()},
        realized={q: float(pr[q]) for q in emp},
        seconds=time.perf_counter() - t0,
    )


def _finite_size_beta(d: int, dl_nom: float, gm_nom: float, rname: str, T: int, wname: str, rule) -> float:
    """The strength ``beta`` of a finite-size setting at dimension ``d`` (see :func:`finite_size`)."""
    V, N = sizes(d, dl_nom, gm_nom)
    dl, gm = d / V, d / N
    R = atlas_correlation(rname, T)
    w = named_weights(wname, R)
    if rule[0] == "regime":
        return atlas_betas(dl, gm, w, R)["betas"][rule[1]]
    if rule[0] == "ratio":  # theta / theta_c = rule[1] for the finite-table spike
        p0 = predict(dl, gm, w, R, 0.0)
        return max(0.0, rule[1] * sample_threshold(dl, gm, p0.kappa) / p0.alpha - dl)
    if rule[0] == "factor":
        return rule[1] * atlas_betas(dl, gm, w, R)["beta_c_sample"]
    raise ValueError(f"beta rule must be 'regime', 'ratio' or 'factor', got {rule[0]!r}")


def finite_size(
    ds: Sequence[int] = (200, 400, 800, 1600),
    seeds: Mapping[int, int] | int | None = None,
    *,
    settings: Mapping[str, tuple] | None = None,
    T: int = _T,
    progress: bool = False,
    executor=None,
) -> list[dict]:
    """Theory against simulation as ``d`` grows, for a few representative settings.

    Parameters
    ----------
    ds : sequence of int
        Dimensions (the book's table goes to ``d = 3200``: ``seqrmt/data/finite_size_large.csv``).
    seeds : dict d -> count, or int
        Seeds per dimension (default ``{200: 16, 400: 12, 800: 8, 1600: 8}``, 4 otherwise);
        the seeds are ``1000, 1001, ...``.
    settings : dict, optional
        Name -> ``(delta, gamma, R, weights, centered, rule)`` (default
        :data:`FINITE_SIZE_SETTINGS`); ``rule`` is ``("regime", "low" | "mid" | "high")``
        (:func:`atlas_betas`), ``("factor", f)`` (``beta = f beta_c_sample``) or
        ``("ratio", r)`` (``beta`` such that ``theta / theta_c = r``).
    T : int
        Sequence length.
    progress : bool
        Show a progress bar (``tqdm``): simulations done, elapsed time, time left.
    executor : concurrent.futures.Executor, optional
        Where the simulations run (default: here); the unit of work is one seed of one
        setting at one ``d``, and the rows do not depend on the executor (see :func:`atlas`).

    Returns
    -------
    list of dict
        One row per (setting, d, quantity) with ``study = "scaling"``, the prediction,
        the mean, spread (``std``, ``sem``), ``abs_error = |mean - predicted|`` and
        ``rmse = sqrt(mean((x - predicted)^2))`` over seeds; ``predicted_realized`` and
        ``rmse_realized`` use, for each seed, the prediction with that table's realized
        ``||Delta||^2`` and ``||zbar||^2``.
    """
    default = {200: 16, 400: 12, 800: 8, 1600: 8}
    ds = [_checks.integer("d", d, minimum=8) for d in ds]
    if seeds is None:
        nseeds = {d: default.get(d, 4) for d in ds}
    elif isinstance(seeds, Mapping):
        nseeds = {d: _checks.integer("seeds", seeds.get(d, 4)) for d in ds}
    else:
        nseeds = {d: _checks.integer("seeds", seeds) for d in ds}
    T = _checks.integer("T", T)
    _check_executor(executor)
    settings = dict(FINITE_SIZE_SETTINGS if settings is None else settings)
    groups, tasks = [], []
    for name, (dl_nom, gm_nom, rname, wname, centered, rule) in settings.items():
        for d in ds:
            beta = _finite_size_beta(d, dl_nom, gm_nom, rname, T, wname, rule)
            groups.append((name, d, beta, len(tasks)))
            tasks += [(d, dl_nom, gm_nom, rname, T, wname, beta, bool(centered), 1000 + s) for s in range(nseeds[d])]
    results = _run_units(_scaling_unit, tasks, executor, progress, desc="finite size")
    rows = []
    for name, d, beta, start in groups:
        dl_nom, gm_nom, rname, wname, centered, rule = settings[name]
        V, N, dl, gm, R, w, p, pv = _setting(d, dl_nom, gm_nom, rname, T, wname, beta, centered)
        res = results[start : start + nseeds[d]]  # in seed order
        for q in res[0]["empirical"]:
            if (q.endswith("_mean") and centered) or (q == "overlap_signal" and beta == 0):
                continue
            xs = np.array([r["empirical"][q] for r in res], dtype=float)
            pr = np.array([r["realized"][q] for r in res], dtype=float)
            pred = float(pv[q])
            n = xs.size
            std = float(xs.std(ddof=1)) if n > 1 else 0.0
            rows.append(
                dict(
                    study="scaling",
                    setting=name,
                    d=d,
                    V=V,
                    N=N,
                    delta=dl,
                    gamma=gm,
                    R=rname,
                    T=T,
                    weights=wname,
                    centered=bool(centered),
                    beta=beta,
                    theta=p.theta,
                    theta_c=sample_threshold(dl, gm, p.kappa),
                    quantity=q,
                    predicted=pred,
                    empirical=float(xs.mean()),
                    std=std,
                    sem=std / math.sqrt(n),
                    n=n,
                    abs_error=abs(float(xs.mean()) - pred),
                    rmse=float(np.sqrt(np.mean((xs - pred) ** 2))),
                    predicted_realized=float(pr.mean()),
                    rmse_realized=float(np.sqrt(np.mean((xs - pr) ** 2))),
                )
            )
    return rows


def _bulk_unit(d: int, V: int, N: int, T: int, seed: int) -> dict:
    """One unit of work of :func:`bulk_vs_T`: the spectrum of one seed (mean pooling,
    ``R = I``, ``beta = 0``, centered) and its run time."""
    t0 = time.perf_counter()
    ((*_, lam, _, _),) = _spectra(d, V, N, np.eye(T), {"mean": mean_weights(T)}, {"mean": [0.0]}, [True], seed, n_top=1)
    return dict(eigenvalues=lam, seconds=time.perf_counter() - t0)


def bulk_vs_T(
    d: int = 800,
    Ts: Sequence[int] = (1, 2, 4, 8, 16),
    seeds: int = 3,
    *,
    delta: float = 0.5,
    gamma: float = 0.5,
    fixed_T: bool = True,
    progress: bool = False,
    executor=None,
) -> list[dict]:
    """Kolmogorov distance between the empirical bulk and ``kappa (MP_delta boxtimes MP_gamma)``
    (Theorem 1) as a function of the sequence length ``T`` (mean pooling, independent
    positions ``R = I``, ``beta = 0``, centered: no outlier is predicted, so the whole
    spectrum is bulk), and, with ``fixed_T``, to the fixed-``T`` law
    ``seqrmt.fixed_T_bulk_law(delta, gamma, w)``.

    The unit of work is one seed at one ``T`` (seeds ``2000 ..``); ``executor`` and
    ``progress`` as in :func:`atlas`.

    Returns rows with ``study = "bulk_T"``, ``T``, ``d``, the distance to Theorem 1
    (``empirical`` = mean over seeds, ``std``, ``sem``) and, with ``fixed_T``, the
    distance to the fixed-``T`` law (``ks_fixed_T``, ``ks_fixed_T_sem``) and the
    distance between the two laws (``law_gap``, :func:`law_distance`).
    """
    d = _checks.integer("d", d, minimum=8)
    seeds = _checks.integer("seeds", seeds)
    Ts = [_checks.integer("T", T) for T in Ts]
    _check_executor(executor)
    V, N = sizes(d, delta, gamma)
    dl, gm = d / V, d / N
    setups = []
    for T in Ts:
        w = mean_weights(T)
        p = predict(dl, gm, w, np.eye(T), 0.0)
        if p.outliers:
            raise ValueError("bulk_vs_T expects a setting with no predicted outlier")
        setups.append((T, w, p))
    tasks = [(d, V, N, T, 2000 + s) for T in Ts for s in range(seeds)]
    results = _run_units(_bulk_unit, tasks, executor, progress, desc=f"bulk vs T, d={d}")
    rows = []
    for i, (T, w, p) in enumerate(setups):
        law = BulkLaw(dl, gm, p.kappa)
        law_T = _fixed_T_law(dl, gm, w) if fixed_T else None
        res = results[i * seeds : (i + 1) * seeds]
        ks = np.array([kolmogorov_distance(r["eigenvalues"], law, 0) for r in res])
        std = float(ks.std(ddof=1)) if ks.size > 1 else 0.0
        fixed = {}
        if law_T is not None:
            ksT = np.array([kolmogorov_distance(r["eigenvalues"], law_T, 0) for r in res])
            stdT = float(ksT.std(ddof=1)) if ksT.size > 1 else 0.0
            fixed = dict(
                ks_fixed_T=float(ksT.mean()),
                ks_fixed_T_sem=stdT / math.sqrt(ksT.size),
                law_gap=law_distance(law, law_T),
            )
        rows.append(
            dict(
                study="bulk_T",
                setting=f"T={T}",
                d=d,
                V=V,
                N=N,
                delta=dl,
                gamma=gm,
                R="independent",
                T=T,
                weights="mean",
                centered=True,
                beta=0.0,
                theta=p.theta,
                theta_c=sample_threshold(dl, gm, p.kappa),
                quantity="ks_bulk",
                predicted=0.0,
                empirical=float(ks.mean()),
                std=std,
                sem=std / math.sqrt(ks.size),
                n=int(ks.size),
                abs_error=float(ks.mean()),
                rmse=float(np.sqrt(np.mean(ks**2))),
                predicted_realized=0.0,
                rmse_realized=float(np.sqrt(np.mean(ks**2))),
                **fixed,
            )
        )
    return rows


def spikes_vs_T(
    d: int = 800,
    Ts: Sequence[int] = (1, 2, 4, 16),
    seeds: int = 16,
    *,
    delta: float = 0.5,
    gamma: float = 0.5,
    R: str = "independent",
    ratios: Sequence[float] = (1.5, 3.0),
    fixed_T: bool = True,
    progress: bool = False,
    executor=None,
) -> list[dict]:
    """The spike formulas (:func:`seqrmt.predict`) at short sequence lengths.

    Mean pooling over ``T`` positions with the atlas correlation ``R``
    (:func:`atlas_correlation`; independent positions by default, so that only ``T``
    changes between the rows and ``theta / theta_c`` is the same at every ``T``), centered ``S``, ``beta`` chosen so that the finite-table
    spike is ``theta = r theta_c`` for each ``r`` in ``ratios`` (outside the transition
    window); the rows are those of :func:`finite_size` (seeds ``1000 ..``) with
    ``study = "spikes_T"``, ``setting = "T=<T>, theta/theta_c=<r>"``, ``ratio``, the right
    edge of Theorem 1's bulk (``edge_theorem1``) and, with ``fixed_T``,
    ``bulk_above_fixed_T``: the expected number of eigenvalues of the fixed-``T`` bulk above
    the predicted value at the row's ``d`` (:func:`fixed_T_bulk_above`; the fixed-``T`` law
    has no right edge, so this count, not an edge, says whether a predicted outlier stands
    clear of the bulk).  At ``T >= 2`` the stored count is a number only down to what the
    computed law resolves: below ``law.resolution * d`` (one sampled eigenvalue of the token
    Gram matrix, about ``0.27`` at ``d = 800``, ``delta = gamma = 0.5``) it says "fewer than
    ``law.resolution * d``", not its value.  ``executor`` and ``progress`` as in
    :func:`finite_size`.
    """
    Ts = [_checks.integer("T", T) for T in Ts]
    rows = []
    for T in Ts:
        settings = {f"T={T}, theta/theta_c={r:g}": (delta, gamma, R, "mean", True, ("ratio", float(r))) for r in ratios}
        w = mean_weights(T)
        new = finite_size([d], {d: seeds}, settings=settings, T=T, progress=progress, executor=executor)
        edge = BulkLaw(delta, gamma, _kappa(w)).support()[1]
        above = {
            r["setting"]: fixed_T_bulk_above(delta, gamma, w, float(r["predicted"]), r["d"])
            for r in new
            if fixed_T and r["quantity"] == "lambda_signal"
        }
        for row in new:
            row["study"] = "spikes_T"
            row["ratio"] = row["theta"] / row["theta_c"]
            row["edge_theorem1"] = edge
            if fixed_T:
                row["bulk_above_fixed_T"] = above[row["setting"]]
            rows.append(row)
    return rows


def fixed_T_bulk_above(delta: float, gamma: float, w: ArrayLike, x: float, d: int) -> float:
    """Expected number of eigenvalues of the fixed-``T`` bulk above ``x`` at dimension ``d``.

    ``d * nu_T((x, inf))`` with ``nu_T = seqrmt.fixed_T_bulk_law(delta, gamma, w)``
    (:meth:`seqrmt.FixedTBulkLaw.expected_above`).  The fixed-``T`` law has no right edge,
    so a predicted outlier ``x`` is never above the whole bulk in the limit; at dimension
    ``d`` it stands clear of the bulk when this count is well below ``1`` (the criterion of
    chapter 7).  With ``T' >= 2`` nonzero weights a count below ``d * law.resolution`` is not
    resolved (:attr:`seqrmt.FixedTBulkLaw.resolution`): read it as "fewer than
    ``d * law.resolution``".  NaN, with a warning, when the law cannot be built.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    w = _checks.weights(w)
    x = _checks.real("x", x)
    d = _checks.integer("d", d)
    law = _fixed_T_law(delta, gamma, w)
    if law is None:
        return float("nan")
    return float(np.ravel(law.expected_above(x, d))[0])


def fit_rate(ds: ArrayLike, values: ArrayLike) -> tuple[float, float]:
    """Least-squares fit of ``log(values) = slope * log(ds) + intercept``; returns ``(slope, intercept)``."""
    x = np.log(np.asarray(ds, dtype=float))
    y = np.asarray(values, dtype=float)
    if x.shape != y.shape or x.size < 2:
        raise ValueError("ds and values must have the same length >= 2")
    if np.any(y <= 0) or not np.all(np.isfinite(y)):
        raise ValueError("values must be positive and finite for a log-log fit")
    slope, intercept = np.polyfit(x, np.log(y), 1)
    return float(slope), float(intercept)


def scaling_rates(rows: Iterable[Mapping], measure: str = "rmse") -> dict:
    """Fitted log-log slope of ``measure`` (``"rmse"``, ``"rmse_realized"``, ``"abs_error"`` or ``"std"``)
    against ``d`` for each (setting, quantity) of a :func:`finite_size` table."""
    if measure not in ("rmse", "rmse_realized", "abs_error", "std"):
        raise ValueError(f"measure must be 'rmse', 'rmse_realized', 'abs_error' or 'std', got {measure!r}")
    groups: dict = {}
    for r in rows:
        if r.get("study", "scaling") != "scaling":
            continue
        groups.setdefault((r["setting"], r["quantity"]), []).append((r["d"], r[measure]))
    out = {}
    for key, pts in groups.items():
        pts.sort()
        ds, vs = zip(*pts)
        if len(ds) >= 2 and all(v > 0 for v in vs):
            out[key] = fit_rate(ds, vs)[0]
    return out
