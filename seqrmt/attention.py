"""Attention weights and the scalars they feed into the spectrum (Theorem 5, Section 5).

``kappa = ||w||^2`` sets the scale of the bulk, ``alpha = w^T R w`` the strength of
the signal, and their ratio ``alpha / kappa`` is the Rayleigh quotient that optimal
attention maximizes.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks

__all__ = [
    "kappa",
    "alpha",
    "sigma_w",
    "snr",
    "mean_weights",
    "optimal_weights",
    "causal_weights",
    "causal_attention",
    "WEIGHT_NAMES",
    "named_weights",
]

#: The weightings compared throughout the book, by name (see :func:`named_weights`).
WEIGHT_NAMES = ("mean", "causal", "strict causal", "optimal")


def kappa(w: ArrayLike) -> float:
    """Noise scale ``kappa(w) = ||w||^2`` (Theorem 1)."""
    w = _checks.weights(w)
    return float(w @ w)


def alpha(w: ArrayLike, R: ArrayLike) -> float:
    """Effective signal weight ``alpha(w) = w^T R w`` (Theorem 2)."""
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    return float(w @ R @ w)


def sigma_w(w: ArrayLike) -> float:
    """Total weight ``sum_t w_t``, which scales the vocabulary-mean spike of the uncentered S."""
    w = _checks.weights(w)
    return float(w.sum())


def snr(w: ArrayLike, R: ArrayLike, beta: float = 1.0, delta: float = 0.0) -> float:
    """Effective signal-to-noise ratio ``theta / kappa = alpha (beta + delta) / kappa``.

    With ``delta = 0`` this is the paper's ``rho = alpha ||mu||^2 / kappa``
    (Theorem 2); with ``delta = d/V`` it is the exact finite-table strength, where the
    noise of the empirical class means adds ``delta`` to ``beta``.
    """
    beta = _checks.nonnegative("beta", beta)
    delta = _checks.nonnegative("delta", delta)
    return alpha(w, R) * (beta + delta) / kappa(w)


def mean_weights(T: int) -> np.ndarray:
    """Mean pooling, ``w_t = 1/T``."""
    T = _checks.integer("T", T)
    return np.full(T, 1.0 / T)


def optimal_weights(R: ArrayLike) -> np.ndarray:
    """Optimal attention weights (Theorem 5): the top eigenvector of ``R``.

    ``alpha/kappa = w^T R w / w^T w`` is a Rayleigh quotient, maximal at the top
    eigenvector whatever ``beta`` and ``delta``. The vector is returned with
    ``sum_t w_t = 1`` (like attention weights) when its entries do not sum to zero,
    and with unit norm otherwise; the ratio ``alpha/kappa`` does not depend on the scale.
    """
    R = _checks.correlation(R)
    lam, U = np.linalg.eigh(R)
    u = U[:, -1]
    s = u.sum()
    if abs(s) > 1e-8 * np.sqrt(R.shape[0]):
        return u / s
    return u * np.sign(u[np.argmax(np.abs(u))])


def causal_weights(T: int, tau: float = 0.0, *, strict: bool = False) -> np.ndarray:
    """Deterministic limit of parameter-free causal attention pooling (Section 5).

    Scores ``(tau/d) <x_t, x_s>``, softmax over the keys a query may see, output
    ``(1/T) sum_t sum_s a_ts x_s``. As ``d -> infinity`` the cross scores vanish and the
    self score tends to ``tau``, so with keys ``s <= t`` (``strict=False``)

    ``w_s = (1/T) [ e^tau / (e^tau + s - 1) + sum_{t > s} 1 / (e^tau + t - 1) ]``,

    which at ``tau = 0`` is ``(H_T - H_{s-1}) / T``. With keys ``s < t``
    (``strict=True``, queries ``t = 2..T``) the self score is absent and
    ``w_s = (H_{T-1} - H_{s-1}) / (T - 1)`` for ``s < T``, ``w_T = 0``: the form
    ``H_{T-1} - H_{t-1}`` quoted in the paper. Both sum to one.
    """
    strict = _checks.flag("strict", strict)
    T = _checks.integer("T", T, minimum=2 if strict else 1)
    tau = _checks.real("tau", tau)
    t = np.arange(1, T + 1, dtype=float)
    if strict:
        inv = np.zeros(T)
        inv[1:] = 1.0 / (t[1:] - 1.0)                    # each query t >= 2 averages s < t
        tail = np.cumsum(inv[::-1])[::-1]                # sum_{t' >= s} inv[t']
        w = np.append(tail[1:], 0.0) / (T - 1)          # sum over queries t > s
        return w
    if tau > 700:
        raise ValueError(f"tau must be <= 700 (exp overflow), got {tau}")
    a = np.exp(tau)
    with np.errstate(divide="ignore", invalid="ignore"):   # only at t = 1 when e^tau == 0
        inv = 1.0 / (a + (t - 1.0))                      # query t: weight of each cross key
        self_w = a * inv                                 # query s: weight of its own key
    self_w[0] = 1.0                                      # query 1 sees only itself
    after = np.append(np.cumsum(inv[:0:-1])[::-1], 0.0)  # sum_{t > s} 1/(e^tau + t - 1)
    return (self_w + after) / T


def causal_attention(X: ArrayLike, tau: float = 0.0, *, strict: bool = False,
                     return_weights: bool = False):
    """Finite-``d`` parameter-free causal softmax attention pooling.

    For each sequence ``X[n]`` (``T x d``): scores ``A_ts = (tau/d) <x_t, x_s>`` for the
    keys a query may see (``s <= t``, or ``s < t`` if ``strict``), row softmax ``a_ts``,
    outputs ``o_t = sum_s a_ts x_s``, pooled ``c = mean_t o_t`` (over the queries that
    see at least one key). The effective weights ``w_s = mean_t a_ts`` satisfy
    ``c = sum_s w_s x_s`` and converge to :func:`causal_weights` as ``d`` grows.

    Parameters
    ----------
    X : array, shape (N, T, d)
        Token embeddings, e.g. from :func:`seqrmt.embed`.
    tau : float
        Score scale; the score is ``tau/d`` times the inner product.
    strict : bool
        Use keys ``s < t`` instead of ``s <= t``.
    return_weights : bool
        Also return the per-sequence effective weights, shape ``(N, T)``.

    Returns
    -------
    C : ndarray, shape (d, N)
        Pooled representations as columns (the layout of :func:`seqrmt.pool`).
    W : ndarray, shape (N, T), only if ``return_weights``.
    """
    X = _checks.real_array("X", X, allow_inf=False)
    strict = _checks.flag("strict", strict)
    if X.ndim != 3:
        raise ValueError(f"X must be an (N, T, d) array, got shape {X.shape}")
    N, T, d = X.shape
    if strict and T < 2:
        raise ValueError("T must be >= 2 for strictly causal attention")
    tau = _checks.real("tau", tau)
    scores = (tau / d) * np.einsum("ntd,nsd->nts", X, X)
    allowed = np.tril(np.ones((T, T), dtype=bool), k=-1 if strict else 0)
    scores = np.where(allowed, scores, -np.inf)
    rows = slice(1, None) if strict else slice(None)
    sc = scores[:, rows, :]
    sc = sc - sc.max(axis=2, keepdims=True)
    a = np.exp(sc)
    a /= a.sum(axis=2, keepdims=True)
    W = a.mean(axis=1)                                   # (N, T)
    C = np.einsum("nt,ntd->dn", W, X)
    return (C, W) if return_weights else C


def named_weights(name: str, R: ArrayLike, *, tau: float = 0.0) -> np.ndarray:
    """The weighting called ``name`` for the positional correlation ``R``.

    ``"mean"`` (:func:`mean_weights`), ``"causal"`` and ``"strict causal"``
    (:func:`causal_weights` at ``tau``) or ``"optimal"`` (:func:`optimal_weights`, the
    top eigenvector of ``R``, Theorem 5).
    """
    R = _checks.correlation(R)
    T = R.shape[0]
    if name == "mean":
        return mean_weights(T)
    if name == "causal":
        return causal_weights(T, tau)
    if name == "strict causal":
        return causal_weights(T, tau, strict=True)
    if name == "optimal":
        return optimal_weights(R)
    raise ValueError(f"name must be one of {WEIGHT_NAMES}, got {name!r}")
