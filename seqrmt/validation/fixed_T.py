"""The signal eigenvalue at fixed ``T`` simulated against both predictions
(:func:`fixed_T_spike_check`: :func:`seqrmt.fixed_T_predict` and :func:`seqrmt.predict`)."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .. import _cache, _checks
from ..fixed_T_spike import fixed_T_predict
from ..model import sizes
from ..spikes import predict
from .executors import _run_units
from .measure import _spectra

__all__ = ["fixed_T_spike_check"]


def _spike_unit(d: int, V: int, N: int, w: tuple, R: np.ndarray, betas: tuple, seed: int) -> list:
    """``(lambda_1, overlap_1)`` for each ``beta`` of one table and token draw."""
    return [
        (float(lam[0]), float(U[0, 0] ** 2))
        for _, _, _, lam, U, _ in _spectra(d, V, N, R, {"w": np.asarray(w)}, {"w": list(betas)}, [True], seed, n_top=1)
    ]


def fixed_T_spike_check(
    d: int,
    delta: float,
    gamma: float,
    w: ArrayLike,
    R: ArrayLike,
    betas: Sequence[float],
    seeds: int = 32,
    *,
    seed0: int = 3000,
    progress: bool = False,
    executor=None,
) -> list[dict]:
    """The top eigenvalue of the centered ``S`` and its alignment, simulated and predicted at fixed ``T``.

    For each ``beta``, ``seeds`` tables (seeds ``seed0, seed0 + 1, ...``; every ``beta`` uses the
    same tables and tokens) at dimension ``d`` give the mean and standard error of the mean
    of ``lambda_1`` and of the squared cosine of its eigenvector with ``mu / ||mu||``.  Each row
    holds them with the fixed-``T`` prediction (:func:`seqrmt.fixed_T_predict` with this ``d``: at
    ``T' = 1`` the typical token spectrum at ``d``), the large-``T``
    one (:func:`seqrmt.predict`, ``finite_table=True``), and the validity check of the fixed-``T``
    prediction at this ``d`` (:class:`seqrmt.FixedTPrediction`): the expected number of bulk
    eigenvalues above it, with the token-norm fluctuations of a finite ``d``
    (:meth:`seqrmt.FixedTSpike.bulk_above`), whether one eigenvalue is predicted to carry the
    signal alone, and the spectral mass along ``mu`` above the threshold, the robust quantity
    where none is.  The simulated part is kept on disk when ``SEQRMT_CACHE_DIR`` names a folder
    (``seqrmt/_cache.py``: the book's build and its tests share it), so that a notebook run again
    reads it.

    Returns
    -------
    list of dict
        One row per ``beta``: ``beta``, ``n``, ``lambda_sim``, ``lambda_sem``, ``overlap_sim``,
        ``overlap_sem``, ``lambda_fixed_T``, ``overlap_fixed_T``, ``lambda_large_T``,
        ``overlap_large_T``, ``bulk_above``, ``single_eigenvalue``, ``mass_above`` (``nan``
        location, count and mass where there is no prediction).
    """
    d = _checks.integer("d", d, minimum=2)
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    seeds = _checks.integer("seeds", seeds, minimum=2)
    seed0 = _checks.integer("seed0", seed0, minimum=0)
    bs = tuple(_checks.nonnegative("beta", b) for b in betas)
    if not bs:
        raise ValueError("betas must not be empty")
    V, N = sizes(d, delta, gamma)
    w_key = _cache.array_key(w)
    tasks = [(d, V, N, w_key, R, bs, seed0 + s) for s in range(seeds)]
    # (seeds, n_beta, 2); stored on disk when SEQRMT_CACHE_DIR is set (seqrmt/_cache.py), keyed by the
    # draws and by the source of this module and of what it runs
    key = (d, V, N, w_key, _cache.array_key(R), bs, seed0, seeds)
    res = _cache.cached(
        "fixed_T_spike_check",
        key,
        lambda: np.array(_run_units(_spike_unit, tasks, executor, progress, "fixed-T spike")),
    )
    rows = []
    for j, beta in enumerate(bs):
        lam, ov = res[:, j, 0], res[:, j, 1]
        pf = fixed_T_predict(delta, gamma, w, R, beta, d=d)
        pl = predict(delta, gamma, w, R, beta)
        loc_f = np.nan if pf.sample_outlier is None else pf.sample_outlier
        rows.append(
            dict(
                d=d,
                delta=delta,
                gamma=gamma,
                T=int(w.size),
                beta=beta,
                n=seeds,
                lambda_sim=float(lam.mean()),
                lambda_sem=float(lam.std(ddof=1) / math.sqrt(seeds)),
                overlap_sim=float(ov.mean()),
                overlap_sem=float(ov.std(ddof=1) / math.sqrt(seeds)),
                lambda_fixed_T=float(loc_f),
                overlap_fixed_T=pf.overlap,
                lambda_large_T=np.nan if pl.sample_outlier is None else pl.sample_outlier,
                overlap_large_T=pl.overlap,
                bulk_above=np.nan if pf.bulk_above is None else pf.bulk_above,
                single_eigenvalue=bool(pf.single_eigenvalue),
                mass_above=np.nan if pf.mass_above is None else pf.mass_above,
            )
        )
    return rows
