"""One simulation and what is measured on it: the spectra of ``S`` for every weight, strength and
centering of one draw (the pooled matrix never formed), the predictions with the realized table
norms, the empirical values matched to the predicted outliers, and the Kolmogorov distance."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .. import _checks
from .._numerics import _eigh_top, _token_matrix, blas_threads
from ..model import sample_signs, sample_tokens
from ..spikes import predict

__all__ = ["kolmogorov_distance"]


def kolmogorov_distance(eigenvalues: ArrayLike, law, n_exclude: int = 0) -> float:
    """``sup_x |F_emp(x) - F(x)|`` between the spectrum (top ``n_exclude`` removed) and ``law``.

    ``law`` has a ``cdf`` (e.g. :class:`seqrmt.BulkLaw`), possibly with an atom at 0;
    eigenvalues below ``1e-10`` times the largest are treated as exact zeros (rank
    deficiency).  The supremum is taken over the left and right limits at every jump.
    """
    lam = np.sort(np.asarray(eigenvalues, dtype=float))
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError("eigenvalues must be a non-empty 1-d array")
    n_exclude = _checks.integer("n_exclude", n_exclude, minimum=0)
    if n_exclude >= lam.size:
        raise ValueError("n_exclude must be smaller than the number of eigenvalues")
    scale = max(abs(lam[-1]), abs(lam[0]), 1e-300)
    lam = np.where(np.abs(lam) <= 1e-10 * scale, 0.0, lam)
    x = lam[: lam.size - n_exclude]
    n = x.size
    F = np.asarray(law.cdf(x), dtype=float)
    F_left = np.where(x == 0.0, np.asarray(law.cdf(np.array([-1e-300])), dtype=float)[0], F)
    right = np.searchsorted(x, x, side="right") / n
    left = np.searchsorted(x, x, side="left") / n
    return float(max(np.max(np.abs(right - F)), np.max(np.abs(left - F_left))))


#: Sequences pooled at a time in :func:`_spectra` (fixed, so that the result does not
#: depend on the machine; at most ``_POOL_CHUNK x d`` pooled values are held at once).
_POOL_CHUNK = 2048


def _table_noise_T(d: int, V: int, rng: np.random.Generator) -> np.ndarray:
    """The transposed table noise ``Z^T`` (``V x d``), the draws of
    ``seqrmt.make_table(d, V, 0, seed=rng)`` (``E = Z``, drawn row by row of the ``d x V``
    table), written block of rows by block of rows so that ``Z`` and ``Z^T`` are never
    held together."""
    ZT = np.empty((V, d))
    step = max(1, (1 << 21) // V)
    for i in range(0, d, step):
        j = min(d, i + step)
        ZT[:, i:j] = rng.standard_normal((j - i, V)).T
    return ZT


def _pooled_moments(ZT: np.ndarray, tokens: np.ndarray, xi: np.ndarray, w: np.ndarray):
    """``S0 = C C^T / N`` (lower triangle only, Fortran order), ``a = C y / N``,
    ``m = y^T y / N``, ``cbar0 = C 1 / N`` and ``ybar`` for ``C = sum_t w_t Z[:, tokens[:, t]]``
    (d x N) and ``y = xi w``, accumulated over blocks of :data:`_POOL_CHUNK` sequences
    (a rank-``k`` update ``dsyrk`` per block): the ``d x N`` matrix ``C`` is never formed."""
    from scipy.linalg import blas

    V, d = ZT.shape
    N = tokens.shape[0]
    y = xi @ w
    S0 = np.zeros((d, d), order="F")
    csum = np.zeros(d)
    a = np.zeros(d)
    for lo in range(0, N, _POOL_CHUNK):
        hi = min(N, lo + _POOL_CHUNK)
        CT = np.asarray(_token_matrix(tokens[lo:hi], w, V) @ ZT)  # C[:, lo:hi]^T, (n, d)
        S0 = blas.dsyrk(1.0, CT.T, beta=1.0, c=S0, trans=0, lower=1, overwrite_c=1)
        a += CT.T @ y[lo:hi]
        csum += CT.sum(axis=0)
        del CT
    S0 /= N
    return S0, a / N, float(y @ y) / N, csum / N, float(y.mean())


def _spectra(
    d: int,
    V: int,
    N: int,
    R: np.ndarray,
    weights: Mapping[str, np.ndarray],
    betas: Mapping[str, Sequence[float]],
    centerings: Sequence[bool],
    seed: int,
    n_top: int = 6,
):
    """Yield ``(wname, beta, centered, eigenvalues, top vectors, table info)`` for one seed.

    Same draws as :func:`seqrmt.simulate` with this seed, for every weight, beta and
    centering.  Memory: the table noise ``Z^T`` (``V x d``, freed before the last weight's
    eigendecompositions), one ``d x d`` matrix per pending (beta, centering) and one block of
    :data:`_POOL_CHUNK` pooled vectors; the ``d x N`` pooled matrix is never formed, and
    only the ``n_top`` top eigenvectors are computed.
    """
    with blas_threads(1):
        yield from _spectra_body(d, V, N, R, weights, betas, centerings, seed, n_top)


def _spectra_body(d, V, N, R, weights, betas, centerings, seed, n_top):
    from scipy.linalg import blas

    rng = np.random.default_rng(seed)
    ZT = _table_noise_T(d, V, rng)  # E = Z (beta enters below, exactly)
    xi = sample_signs(N, R, seed=rng)
    tokens = sample_tokens(xi, V, seed=rng)
    h = V // 2
    Delta = (ZT[:h].sum(axis=0) - ZT[h:].sum(axis=0)) / V
    zbar = ZT.mean(axis=0)
    info = dict(Delta=Delta, zbar=zbar, delta_norm2=float(Delta @ Delta), zbar_norm2=float(zbar @ zbar))
    witems = list(weights.items())
    centerings = list(centerings)
    for iw, (wname, w) in enumerate(witems):
        S0, a, m, cbar0, ybar = _pooled_moments(ZT, tokens, xi, w)
        if iw == len(witems) - 1:
            del ZT  # not needed any more
        bs = list(betas[wname])
        for ib, beta in enumerate(bs):
            sb = math.sqrt(beta)
            # the last beta updates S0 in place; the others work on a copy
            S = S0 if ib == len(bs) - 1 else S0.copy(order="F")
            S[0, :] += sb * a
            S[:, 0] += sb * a
            S[0, 0] += beta * m
            for ic, centered in enumerate(centerings):
                if centered:
                    cb = cbar0.copy()
                    cb[0] += sb * ybar
                    Sc = S if ic == len(centerings) - 1 else S.copy(order="F")
                    Sc = blas.dsyr(-1.0, cb, lower=1, a=Sc, overwrite_a=1)  # S - cb cb^T (lower)
                else:
                    Sc = S
                # in place (no d x d copy) unless S is still needed by the next centering
                last_use = Sc is not S or ic == len(centerings) - 1
                lam, U = _eigh_top(Sc, min(n_top, d), overwrite=last_use)
                del Sc
                yield wname, beta, centered, lam, U, info
            del S
        del S0


def _predict_realized(delta: float, gamma: float, w, R, beta: float, centered: bool, info: dict):
    """:func:`seqrmt.predict` with the realized norms of the drawn table (``info`` of
    :func:`_spectra`): ``||mu + Delta||^2`` with ``mu = sqrt(beta) e_1``, ``||Delta||^2`` and
    ``||zbar||^2``."""
    Delta = info["Delta"]
    spike2 = info["delta_norm2"] + 2.0 * math.sqrt(beta) * float(Delta[0]) + beta
    return predict(
        delta,
        gamma,
        w,
        R,
        beta,
        centered=centered,
        spike_norm2=max(spike2, 0.0),
        delta_norm2=info["delta_norm2"],
        zbar_norm2=info["zbar_norm2"],
    )


def _predicted(p, kind: str) -> dict:
    """Predicted values of every quantity from a :class:`seqrmt.Prediction`."""
    edge = p.bulk_edge
    outs = p.outliers
    top = sorted(outs + [edge, edge], reverse=True)
    sig = p.sample_outlier if p.sample_outlier is not None else edge
    mean = p.mean_outlier if p.mean_outlier is not None else edge
    n_out = len(outs)
    has_sig, has_mean = p.sample_outlier is not None, p.mean_outlier is not None
    # rank inside the bulk of the eigenvalue each quantity refers to (0: an outlier)
    rank = {
        "lambda_1": max(0, 1 - n_out),
        "lambda_2": max(0, 2 - n_out),
        "lambda_signal": 0 if has_sig else 1,
        "lambda_mean": 0 if has_mean else (1 if has_sig else 2),
    }
    return {
        "lambda_1": top[0],
        "lambda_2": top[1],
        "lambda_signal": sig,
        "overlap_signal": p.overlap,
        "lambda_mean": mean,
        "overlap_mean": p.mean_overlap if has_mean else 0.0,
        "ks_bulk": 0.0,
        "_n_out": n_out,
        "_rank": rank,
        "_signal": has_sig,
        "_mean": has_mean,
    }


def _classical_location(law, rank: int, d: int) -> float:
    """Finite-``d`` location of the ``rank``-th largest bulk eigenvalue: the quantile
    ``1 - (rank - 1/2) / d`` of the bulk law (rigidity of eigenvalues; it sits a distance
    of order ``d^(-2/3)`` below the edge)."""
    return float(law.ppf(np.array([1.0 - (rank - 0.5) / d]))[0])


def _empirical(lam, U, beta, info, pred: dict, law) -> dict:
    """Empirical values matched to the predicted outliers (see the module docstring)."""
    n_out = pred["_n_out"]
    ncand = min(U.shape[1], n_out + 2)
    zb = info["zbar"] / np.linalg.norm(info["zbar"])
    v = info["Delta"].copy()
    v[0] += math.sqrt(beta)
    v /= np.linalg.norm(v)
    cand = U[:, :ncand]
    mean_idx = None
    if pred["_mean"]:
        mean_idx = int(np.argmax((zb @ cand) ** 2))
    if pred["_signal"]:
        align = (v @ cand) ** 2
        if mean_idx is not None:
            align[mean_idx] = -1.0
        sig_idx = int(np.argmax(align))
    else:
        sig_idx = 0 if mean_idx != 0 else 1
    both = [sig_idx, mean_idx] if (pred["_signal"] and mean_idx is not None) else [sig_idx]
    out = {
        "lambda_1": lam[0],
        "lambda_2": lam[1],
        "lambda_signal": lam[sig_idx],
        "overlap_signal": float(np.sum(U[0, both] ** 2)) if beta > 0 else float("nan"),
        "ks_bulk": kolmogorov_distance(lam, law, n_out),
    }
    if mean_idx is not None:
        out["lambda_mean"] = lam[mean_idx]
        out["overlap_mean"] = (
            float(np.sum((zb @ U[:, both]) ** 2)) if pred["_signal"] else float((zb @ U[:, mean_idx]) ** 2)
        )
    else:  # no mean outlier predicted: largest eigenvalue not the signal's
        j = 0 if sig_idx != 0 else 1
        out["lambda_mean"] = lam[j]
        out["overlap_mean"] = float((zb @ U[:, j]) ** 2)
    return out
