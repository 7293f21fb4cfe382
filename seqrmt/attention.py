"""Attention weights and the scalars they feed into the spectrum (Chapters 4 and 5 of the book).

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


# Largest T for which optimal_weights(R, simplex=True) enumerates every support exactly.
_SIMPLEX_EXACT_MAX_T = 16

_NORMALIZATIONS = ("sum", "unit")


def _top_eigenvector(R: np.ndarray) -> tuple[float, np.ndarray]:
    """Top eigenvalue of ``R`` and a canonical unit vector of its top eigenspace.

    If the top eigenvalue is degenerate (within ``1e-10 T`` of ``lambda_max``), the
    eigenspace is a subspace, not a direction; the canonical choice is the normalized
    projection of the all-ones vector on it (the maximizer closest to mean pooling),
    or, if that projection vanishes, the last eigenvector returned by ``eigh``. The
    sign makes the entries sum to a nonnegative number (ties: the entry of largest
    modulus, first occurrence, is positive).
    """
    T = R.shape[0]
    lam, U = np.linalg.eigh(R)
    top = lam[-1]
    Q = U[:, lam >= top - 1e-10 * T * max(1.0, abs(top))]
    u = Q[:, -1]
    if Q.shape[1] > 1:
        p = Q @ (Q.T @ np.ones(T))
        if np.linalg.norm(p) > 1e-8:
            u = p / np.linalg.norm(p)
    s = u.sum()
    if abs(s) > 1e-10 * np.sqrt(T):
        u = u * np.sign(s)
    else:
        u = u * np.sign(u[np.argmax(np.abs(u))])
    return float(top), u


def _kkt_gap(R: np.ndarray, w: np.ndarray) -> float:
    """Largest violation of the KKT conditions of ``max w^T R w / w^T w`` over ``w >= 0``.

    At a maximizer with ``lambda = w^T R w / w^T w``: ``(R w)_t = lambda w_t`` where
    ``w_t > 0`` and ``(R w)_t <= 0`` where ``w_t = 0``. Returns the largest residual,
    relative to ``||w||``.
    """
    w = w / np.linalg.norm(w)
    g = R @ w
    lam = float(w @ g)
    on = w > 0
    gap_on = np.max(np.abs(g[on] - lam * w[on]), initial=0.0)
    gap_off = np.max(g[~on], initial=0.0)
    return float(max(gap_on, gap_off))


def _simplex_exact(R: np.ndarray) -> np.ndarray:
    """Best attention weights by enumerating all ``2^T - 1`` supports.

    At a maximizer ``w`` of ``w^T R w / w^T w`` over ``w >= 0`` with the smallest
    support ``J``, ``w_J > 0`` is a local maximizer of the Rayleigh quotient of ``R_JJ``
    over all of ``R^J``, hence a top eigenvector of ``R_JJ``, and the top eigenvalue is
    simple (otherwise a vector of the eigenspace with a smaller support would also be
    optimal). So the maximum is ``max_J lambda_max(R_JJ)`` over the supports whose top
    eigenvector is strictly positive, and every such ``J`` gives a feasible ``w``.
    Pruning: if ``R_JJ v = lambda v`` with ``v > 0`` then, at the largest entry ``v_i``,
    ``lambda v_i <= sum_j (R_ij)_+ v_j``, so ``lambda`` is at most the largest row sum of
    the positive part of ``R_JJ``; supports whose bound is below the value of a feasible
    point (from :func:`_simplex_ascent`) are skipped without losing any maximizer.
    Ties (e.g. mirror images under a symmetry of ``R``) go to the smallest support,
    then to the lexicographically first one.
    """
    from itertools import combinations

    T = R.shape[0]
    w0 = _simplex_ascent(R, n_random=20)
    lower = float(w0 @ R @ w0 / (w0 @ w0)) - 1e-9 * max(1.0, abs(float(w0 @ R @ w0)))
    P = np.maximum(R, 0.0)
    best = (-np.inf, None)
    for k in range(1, T + 1):
        idx = np.array(list(combinations(range(T), k)))
        idx = idx[P[idx[:, :, None], idx[:, None, :]].sum(axis=2).max(axis=1) >= lower]
        if len(idx) == 0:
            continue
        lam, U = np.linalg.eigh(R[idx[:, :, None], idx[:, None, :]])
        v = U[:, :, -1] * np.sign(U[:, :, -1].sum(axis=1, keepdims=True))
        ok = v.min(axis=1) > 1e-12
        if not ok.any():
            continue
        top = lam[:, -1]
        i = int(np.argmax(np.where(ok, top, -np.inf)))  # first (lexicographic) maximizer
        if best[1] is None or top[i] > best[0] + 1e-10 * max(1.0, abs(best[0])):
            w = np.zeros(T)
            w[idx[i]] = v[i]
            best = (top[i], w)
    return best[1] if best[1] is not None else w0


def _simplex_ascent(R: np.ndarray, *, n_random: int = 200, max_iter: int = 5000) -> np.ndarray:
    """Best attention weights by multi-start ascent with an active-set polish (large ``T``).

    ``R`` is positive semi-definite, so ``f(x) = x^T R x`` is convex and, on
    ``K = {x >= 0, ||x|| <= 1}``, the step ``x <- (R x)_+ / ||(R x)_+||`` (maximize the
    linearization of ``f`` over ``K``) never decreases ``f``; its fixed points satisfy the
    KKT conditions. Starts: every vertex ``e_t``, the uniform vector, the positive and
    negative parts of the top eigenvector and ``n_random`` Dirichlet(1) points from a fixed
    seed. Every iterate's support ``J`` is polished to the top eigenvector of ``R_JJ``
    when that vector is positive and satisfies the KKT conditions. The best point found
    is returned; it is a KKT point, not certified globally optimal.
    """
    T = R.shape[0]
    _, u = _top_eigenvector(R)
    rng = np.random.default_rng(0)
    starts = [
        np.eye(T),
        np.ones((T, 1)),
        np.maximum(u, 0)[:, None],
        np.maximum(-u, 0)[:, None],
        rng.dirichlet(np.ones(T), size=n_random).T,
    ]
    X = np.concatenate(starts, axis=1)
    X = X[:, np.linalg.norm(X, axis=0) > 0]
    X /= np.linalg.norm(X, axis=0)
    found: dict[tuple, np.ndarray | None] = {}  # support -> polished point (or None)
    points = []
    for it in range(max_iter):
        if X.shape[1] == 0:
            break
        Y = np.maximum(R @ X, 0.0)
        n = np.linalg.norm(Y, axis=0)
        Y = np.where(n > 0, Y / np.where(n > 0, n, 1.0), X)
        still = np.max(np.abs(Y - X), axis=0) >= 1e-13
        points += list(Y[:, ~still].T)  # converged: keep as candidates
        X = Y[:, still]
        if it % 20 == 19:  # active-set polish of each support
            keep = np.ones(X.shape[1], dtype=bool)
            for j in range(X.shape[1]):
                x = X[:, j]
                J = tuple(np.flatnonzero(x > 1e-9 * x.max()))
                if J not in found:
                    lam, U = np.linalg.eigh(R[np.ix_(J, J)])
                    v = U[:, -1] * np.sign(U[:, -1].sum())
                    y = None
                    if v.min() > 0:
                        y = np.zeros(T)
                        y[list(J)] = v
                        if _kkt_gap(R, y) >= 1e-9:
                            y = None
                    found[J] = y
                if found[J] is not None:
                    keep[j] = False
            points += list(X[:, ~keep].T)
            X = X[:, keep]
    points += list(X.T) + [y for y in found.values() if y is not None]
    best_q, best_w = -np.inf, None
    for c in points:
        q = float(c @ R @ c / (c @ c))
        if q > best_q + 1e-12:
            best_q, best_w = q, c
    return best_w


def optimal_weights(R: ArrayLike, *, normalize: str = "sum", simplex: bool = False) -> np.ndarray:
    r"""Pooling weights maximizing ``alpha/kappa = w^T R w / w^T w`` (Chapter 4).

    ``alpha/kappa`` is the Rayleigh quotient of ``R``, so over all real ``w != 0`` its
    maximum ``lambda_max(R)`` is reached on the top eigenspace of ``R`` (the paper's
    summaries: the optimal weights are the normalized top eigenvector of ``R``). It does
    not depend on the scale of ``w``, nor on ``beta`` and ``delta``.

    Attention weights are a point of the simplex (``w >= 0``, ``sum_t w_t = 1``). When
    the top eigenvector has one sign, which Perron-Frobenius guarantees for ``R``
    entrywise ``>= 0`` (prefix, Markov ``rho >= 0``, copulas with ``Sigma >= 0``), it is
    an attention vector. When ``R`` has negative entries (Markov ``rho < 0``) the top
    eigenvector may alternate in sign; then no attention vector reaches
    ``lambda_max(R)``, and this function makes the choice explicit.

    Parameters
    ----------
    R : array, shape (T, T)
        Positional correlation (symmetric, PSD, unit diagonal).
    normalize : {"sum", "unit"}
        ``"sum"`` (default): the top eigenvector scaled to sum to one. Raises
        ``ValueError`` if it alternates in sign. ``"unit"``: the unconstrained optimum
        (any real weights) with unit norm, signed so that its sum is ``>= 0``.
    simplex : bool
        If True, the best attention weights: ``w >= 0``, ``sum_t w_t = 1``, maximizing
        ``w^T R w / w^T w``. Equal to the default whenever the top eigenvector has one
        sign (in particular when ``R >= 0`` entrywise). Otherwise this is a nonconvex
        fractional program, solved as follows. A maximizer with smallest support
        ``J`` is a strictly positive top eigenvector of ``R_JJ`` with a simple top
        eigenvalue (a local maximum of the Rayleigh quotient of ``R_JJ``), so the optimum
        is ``max_J lambda_max(R_JJ)`` over the supports whose top eigenvector is
        positive. For ``T <= 16`` every support is enumerated (exact; supports that a
        Perron-Frobenius bound excludes are skipped; ties go to the smallest, then the
        lexicographically first support). For
        larger ``T``: projected power ascent ``x <- (R x)_+ / ||(R x)_+||`` (monotone
        because ``R`` is PSD) from every vertex, the uniform vector, the two sign parts of
        the top eigenvector and 200 seeded random points, each polished to the top
        eigenvector of ``R_JJ`` on its support; the best is a KKT point
        (``(R w)_t = lambda w_t`` on the support, ``(R w)_t <= 0`` off it), not a
        certified global maximum. Deterministic in both cases. Not combinable with
        ``normalize="unit"``.

    Returns
    -------
    w : ndarray, shape (T,)
        Sum one (default, ``simplex=True``) or unit norm (``normalize="unit"``).
        A degenerate top eigenvalue (e.g. ``R = I``) makes the optimum a subspace; the
        vector returned is then the projection of the all-ones vector on it (the
        maximizer closest to mean pooling).

    Raises
    ------
    ValueError
        With the default normalization, if the top eigenvector of ``R`` alternates in sign;
        if ``normalize`` is not ``"sum"`` or ``"unit"``; if ``simplex=True`` is combined with
        ``normalize="unit"``; if ``R`` is not a correlation matrix.
    TypeError
        If ``normalize`` is not a string or ``simplex`` is not a bool.
    """
    R = _checks.correlation(R)
    normalize = _checks.one_of("normalize", normalize, _NORMALIZATIONS)
    simplex = _checks.flag("simplex", simplex)
    if simplex and normalize != "sum":
        raise ValueError(
            "simplex=True returns attention weights, which sum to one: it cannot be "
            f"combined with normalize={normalize!r} (use normalize='sum', the default)"
        )
    top, u = _top_eigenvector(R)
    if normalize == "unit":
        return u
    tol = 1e-9 * np.max(np.abs(u))
    if u.min() >= -tol:  # one sign: an attention vector
        w = np.where(u > tol, u, 0.0)
        return w / w.sum()
    if not simplex:
        raise ValueError(
            f"the top eigenvector of R alternates in sign (entries from {u.min():.3g} to {u.max():.3g} "
            "at unit norm; R has negative entries, so Perron-Frobenius does not force one sign). "
            "Attention weights live on the simplex (w >= 0, sum 1), so no attention vector reaches "
            f"the maximum alpha/kappa = lambda_max(R) = {top:.4g}. Use normalize='unit' for the "
            "unconstrained optimum (any real weights, unit norm), or simplex=True for the best "
            "attention weights."
        )
    T = R.shape[0]
    w = _simplex_exact(R) if T <= _SIMPLEX_EXACT_MAX_T else _simplex_ascent(R)
    w = np.where(w > 1e-12 * w.max(), w, 0.0)
    return w / w.sum()


def causal_weights(T: int, tau: float = 0.0, *, strict: bool = False) -> np.ndarray:
    """Deterministic limit of parameter-free causal attention pooling (Section 5).

    Scores ``(tau/d) <x_t, x_s>``, softmax over the keys a query may see, output
    ``(1/T) sum_t sum_s a_ts x_s``. As ``d -> infinity`` the cross scores vanish and the
    self score tends to ``tau``, so with keys ``s <= t`` (``strict=False``)

    ``w_s = (1/T) [ e^tau / (e^tau + s - 1) + sum_{t > s} 1 / (e^tau + t - 1) ]``,

    which at ``tau = 0`` is ``(H_T - H_{s-1}) / T``. With keys ``s < t``
    (``strict=True``, queries ``t = 2..T``) the self score is absent and
    ``w_s = (H_{T-1} - H_{s-1}) / (T - 1)`` for ``s < T``, ``w_T = 0``. Both sum to one.

    The paper's summaries write the harmonic weights as ``H_{T-1} - H_{t-1}``. Reading
    that as the strictly causal convention is this book's reading, not the paper's
    word: the strictly causal convention gives this form (so does the causal one as
    ``tau -> -infinity``, for ``s >= 2``), and which convention the paper means is not
    known here (Chapter 5).
    """
    strict = _checks.flag("strict", strict)
    T = _checks.integer("T", T, minimum=2 if strict else 1)
    tau = _checks.real("tau", tau)
    t = np.arange(1, T + 1, dtype=float)
    if strict:
        inv = np.zeros(T)
        inv[1:] = 1.0 / (t[1:] - 1.0)  # each query t >= 2 averages s < t
        tail = np.cumsum(inv[::-1])[::-1]  # sum_{t' >= s} inv[t']
        w = np.append(tail[1:], 0.0) / (T - 1)  # sum over queries t > s
        return w
    if tau > 700:
        raise ValueError(f"tau must be <= 700 (exp overflow), got {tau}")
    a = np.exp(tau)
    with np.errstate(divide="ignore", invalid="ignore"):  # only at t = 1 when e^tau == 0
        inv = 1.0 / (a + (t - 1.0))  # query t: weight of each cross key
        self_w = a * inv  # query s: weight of its own key
    self_w[0] = 1.0  # query 1 sees only itself
    after = np.append(np.cumsum(inv[:0:-1])[::-1], 0.0)  # sum_{t > s} 1/(e^tau + t - 1)
    return (self_w + after) / T


def causal_attention(X: ArrayLike, tau: float = 0.0, *, strict: bool = False, return_weights: bool = False):
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
    W = a.mean(axis=1)  # (N, T)
    C = np.einsum("nt,ntd->dn", W, X)
    return (C, W) if return_weights else C


def named_weights(name: str, R: ArrayLike, *, tau: float = 0.0) -> np.ndarray:
    """The weighting called ``name`` for the positional correlation ``R``.

    ``"mean"`` (:func:`mean_weights`), ``"causal"`` and ``"strict causal"``
    (:func:`causal_weights` at ``tau``) or ``"optimal"`` (:func:`optimal_weights` with its
    defaults: the top eigenvector of ``R`` scaled to sum to one; it raises
    ``ValueError`` when that eigenvector alternates in sign).
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
