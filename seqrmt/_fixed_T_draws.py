"""The sparse draws behind the fixed-``T`` spike (:mod:`seqrmt.fixed_T_spike`): tokens of a block of
``V`` columns, the spectral weights of ``s`` and of the token counts on a draw's eigenvectors, the top
of a sparse draw's spectrum (the outlier of ``dM`` along ``s``), and all the draws of one model
(:func:`_token_samples`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _cache
from ._numerics import _spectral_weights
from .model import sample_signs, sample_tokens


def _distinct_tokens(xi: np.ndarray, V: int, rng: np.random.Generator) -> np.ndarray:
    """Tokens of the model (:func:`seqrmt.sample_tokens`) with the tokens of a sequence distinct.

    Repeats within a sequence have probability ``O(T^2/V)`` and vanish in the limit; excluding
    them removes that bias from a finite draw.  Short sequences (``T^2 <= V/2``) are redrawn
    whole while they contain a repeat (up to 20 rounds); then, and for long sequences from the
    start, only the repeated positions are redrawn in their class.  Both give the uniform law
    on the sets of distinct tokens of each class (a procedure that treats the tokens of a class
    alike gives every subset of a given size the same probability)."""
    tok = sample_tokens(xi, V, seed=rng)
    T = tok.shape[1]
    if T < 2:
        return tok
    half = V // 2
    if max(int((xi > 0).sum(axis=1).max()), int((xi < 0).sum(axis=1).max())) > half:
        raise ValueError(f"block = {V} tokens is too small for {T} distinct tokens per sequence")

    def repeats(rows):
        order = np.argsort(tok[rows], axis=1, kind="stable")
        srt = np.take_along_axis(tok[rows], order, axis=1)
        dup = np.zeros(srt.shape, dtype=bool)
        dup[:, 1:] = srt[:, 1:] == srt[:, :-1]
        i, j = np.nonzero(dup)
        return rows[i], order[i, j]

    rows = np.arange(tok.shape[0])
    if T * T <= V // 2:
        for _ in range(20):
            srt = np.sort(tok[rows], axis=1)
            rows = rows[(srt[:, 1:] == srt[:, :-1]).any(axis=1)]
            if rows.size == 0:
                return tok
            tok[rows] = sample_tokens(xi[rows], V, seed=rng)
    for _ in range(10000):
        n, t = repeats(rows)
        if n.size == 0:
            return tok
        tok[n, t] = rng.integers(0, half, size=n.size) + np.where(xi[n, t] < 0, half, 0)
        rows = np.unique(n)
    raise RuntimeError("could not draw distinct tokens")  # pragma: no cover


def _spike_block(
    V: int, N: int, w: np.ndarray, R: np.ndarray, gamma: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """One draw of ``V`` tokens and ``N`` sequences of the model.

    Returns the nonzero eigenvalues ``t_i`` of ``m_c = gamma A P A^T`` (``A`` the ``V x N``
    weighted token matrix, ``P`` the centering projector), the weights ``(s^T q_i)^2 / V`` of
    the class vector ``s`` on their eigenvectors ``q_i``, and the Perron eigenvalue ``tau``
    of the uncentered ``m = m_c + gamma k k^T / N`` (``k = A 1``, the weighted token counts)
    with the weight ``(1^T q)^2 / V`` of the constant vector on its eigenvector.
    """
    from scipy.optimize import brentq as _brentq

    nz = np.flatnonzero(w)
    xi = sample_signs(N, R, seed=rng)[:, nz]
    tok = _distinct_tokens(xi, V, rng)
    A = np.zeros((V, N))
    A[tok.ravel(), np.repeat(np.arange(N), nz.size)] = np.tile(w[nz], N)
    k = A.sum(axis=1)
    A -= k[:, None] / N
    s = np.ones(V)
    s[V // 2 :] = -1.0
    # the weights of s and k on the eigenvectors, without the eigenvectors (_spectral_weights)
    if N <= V:  # eigenvectors q_i = A r_i / sqrt(ev_i) from the N x N side
        ev, P = _spectral_weights(A.T @ A, np.column_stack([A.T @ s, A.T @ k]))
        keep = ev > 1e-9 * max(ev[-1], 1e-300)
        ev, P = ev[keep], P[keep] / ev[keep, None]
    else:
        ev, P = _spectral_weights(A @ A.T, np.column_stack([s, k]))
        keep = ev > 1e-9 * max(ev[-1], 1e-300)
        ev, P = ev[keep], P[keep]
    ps, pk = P[:, 0], P[:, 1]
    t = gamma * ev
    pk0 = max(float(k @ k) - float(pk.sum()), 0.0)  # part of k in the null space of m_c
    g = gamma / N

    def secular(tau):
        return 1.0 - g * (float(np.sum(pk / (tau - t))) + pk0 / tau)

    top = float(t[-1]) if t.size else 0.0
    lo, hi = top * (1 + 1e-12) + 1e-300, top + g * float(k @ k) * (1 + 1e-9) + 1e-300
    tau = _brentq(secular, lo, hi, xtol=1e-14 * hi) if secular(lo) < 0 < secular(hi) else hi
    norm2 = float(np.sum(pk / (tau - t) ** 2)) + pk0 / tau**2
    w1 = (float(k.sum()) / tau) ** 2 / (V * norm2) if norm2 > 0 else 0.0
    return t, ps / V, tau, w1


def _default_draws(Tp: int) -> tuple[int, int]:
    """Default ``(n_tokens, block)`` of the dense draws for ``T'`` nonzero weights.

    A draw of ``V`` tokens, each sequence holding ``T'`` distinct tokens of the ``V / 2`` of its
    class, has an ``O(T' / V)`` bias in the top of its spectrum; from ``T' = 32`` on it moved the
    alignment by 0.01-0.02 at ``V = 512`` against simulations at ``d = 1600`` (``benchmarks/README.md``,
    "The spike at fixed T"), so the block is then 2048 tokens, two of them (a third would cost 2-3 s
    more, one dense eigendecomposition, for the ten-second budget of one prediction at ``T = 64``).
    """
    if Tp <= 10:
        return 16000, 500
    if Tp < 32:
        return 6144, 512
    return 4096, 2048


_OUTLIER_WEIGHT = 25.0  # an eigenvector of a draw of V tokens with s-weight above 25 / V is an outlier


def _sparse_top(
    V: int, N: int, w: np.ndarray, R: np.ndarray, gamma: float, rng: np.random.Generator, k: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest eigenvalues (default: the largest) of ``m_c = gamma A P A^T`` for one draw of ``V`` tokens and ``N``
    sequences, with the weights ``(s^T q_i)^2 / V`` of the class vector, by Lanczos on the sparse
    token matrix (no dense ``V x V`` matrix: a draw of tens of thousands of tokens takes a fraction
    of a second)."""
    from scipy import sparse
    from scipy.sparse.linalg import LinearOperator, eigsh

    nz = np.flatnonzero(w)
    xi = sample_signs(N, R, seed=rng)[:, nz]
    tok = _distinct_tokens(xi, V, rng)
    A = sparse.csr_matrix((np.tile(w[nz], N), (tok.ravel(), np.repeat(np.arange(N), nz.size))), shape=(V, N))
    At = A.T.tocsr()

    def mv(x):
        y = At @ x
        return gamma * (A @ (y - y.mean(axis=0)))

    op = LinearOperator((V, V), matvec=mv, matmat=mv, dtype=float)
    s = np.ones(V)
    s[V // 2 :] = -1.0
    # started from the class vector (plus noise), near the eigenvector sought: a few dozen products
    v0 = s / math.sqrt(V) + 0.1 * rng.standard_normal(V) / math.sqrt(V)
    ev, Q = eigsh(op, k=k, which="LA", v0=v0, tol=1e-9)
    return ev, (Q.T @ s) ** 2 / V


def _sparse_outlier(
    V: int, draws: int, ratio: float, w: np.ndarray, R: np.ndarray, gamma: float, rng: np.random.Generator, k: int = 1
) -> tuple[float, float] | None:
    """``(t_*, w_*)`` over ``draws`` sparse draws of ``V`` tokens: in each, the ``s``-weight of the
    top ``k`` eigenvectors with a weight above ``25 / V`` and its weighted mean eigenvalue (``None``
    if a draw has none)."""
    N = max(2, int(round(ratio * V)))
    tv, rv = [], []
    for _ in range(draws):
        ev, wt = _sparse_top(V, N, w, R, gamma, rng, k=k)
        big = wt > _OUTLIER_WEIGHT / V
        if not big.any():
            return None
        tv.append(float(ev[big] @ wt[big] / wt[big].sum()))
        rv.append(float(wt[big].sum()))
    tv, rv = np.array(tv), np.array(rv)
    return float(tv @ rv / rv.sum()), float(rv.mean())


@dataclass(frozen=True)
class _TokenSamples:
    """The sampled token spectrum of one fixed-``T`` model (:func:`_token_samples`).

    ``t`` the eigenvalues of ``m_c`` of all the dense draws, sorted, without the outliers of ``m`` along
    ``s``, and ``r`` their ``s``-weights divided by the number of draws; ``perron`` the mean Perron
    eigenvalue and weight ``(tau, w_1)``; ``outlier`` and ``half_outlier`` the atom ``(t_*, w_*)`` of
    that outlier from the full-size and the half-size sparse draws, and ``s_mass`` the mean ``s``-mass
    of a dense draw (all three ``None`` without an outlier)."""

    t: np.ndarray
    r: np.ndarray
    perron: tuple[float, float]
    outlier: tuple[float, float] | None = None
    half_outlier: tuple[float, float] | None = None
    s_mass: float | None = None


def _token_samples(
    n_tokens: int,
    block: int,
    ratio: float,
    w: np.ndarray,
    R: np.ndarray,
    gamma: float,
    rng: np.random.Generator,
    outlier_block: int,
    outlier_draws: int,
) -> _TokenSamples:
    """The draws of a :class:`seqrmt.FixedTSpike` (its options, checked): dense draws of ``block``
    tokens, ``n_tokens`` in all, whose top eigenvector is an outlier of ``m`` along ``s`` when its
    ``s``-weight is above ``25 / block`` and it tops its draw; with such an outlier in half the draws
    or more, its atom from ``outlier_draws`` sparse draws of ``outlier_block`` tokens and of half as
    many (one eigenvector when it lies well above the next eigenvalue, else the top eight)."""
    n_blocks = max(2, int(round(n_tokens / block)))
    N = max(2, int(round(ratio * block)))
    ts, rs, taus, w1s, outs = [], [], [], [], []
    thr = _OUTLIER_WEIGHT / block
    for _ in range(n_blocks):
        tb, rb, tau, w1 = _spike_block(block, N, w, R, gamma, rng)
        i = int(np.argmax(rb)) if rb.size else -1
        if i >= 0 and rb[i] > thr and tb[i] >= tb.max():  # above the bulk: an atom of its own
            outs.append((tb[i], rb[i], tb[i] / max(float(np.partition(tb, -2)[-2]), 1e-300), float(rb.sum())))
            tb, rb = np.delete(tb, i), np.delete(rb, i)
        ts.append(tb)
        rs.append(rb)
        taus.append(tau)
        w1s.append(w1)
    tt, rr = np.concatenate(ts), np.concatenate(rs) / n_blocks
    order = np.argsort(tt)
    samples = _TokenSamples(tt[order], rr[order], (float(np.mean(taus)), float(np.mean(w1s))))
    if 2 * len(outs) < n_blocks:
        return samples
    ot, orw, sep, _ = (np.array(v, dtype=float) for v in zip(*outs))
    s_mass = float(np.mean([rb.sum() for rb in rs])) + float(orw.sum()) / n_blocks
    # well above the next eigenvalue: one eigenvector holds it; otherwise (short T, where
    # the tail of nu_M reaches it) it spreads over the top few eigenvectors of a large draw
    k = 1 if float(np.median(sep)) > 1.5 else 8
    full = _sparse_outlier(outlier_block, outlier_draws, ratio, w, R, gamma, rng, k)
    half = _sparse_outlier(outlier_block // 2, outlier_draws, ratio, w, R, gamma, rng, k)
    if full is None or half is None:
        full = (float(ot @ orw / orw.sum()), float(orw.sum()) / n_blocks)
        half = full
    return _TokenSamples(samples.t, samples.r, samples.perron, full, half, s_mass)


def token_samples(
    n_tokens: int,
    block: int,
    ratio: float,
    w: np.ndarray,
    R: np.ndarray,
    gamma: float,
    seed: int,
    outlier_block: int,
    outlier_draws: int,
) -> _TokenSamples:
    """:func:`_token_samples` with a generator seeded by ``seed``, stored on disk when
    ``SEQRMT_CACHE_DIR`` is set (``seqrmt/_cache.py``).  Asked for from here, the entry depends on
    this module and what it imports (the model's sampling), not on the spike formulas that the
    model built from it uses: an edit of ``spikes.py`` keeps the draws (93 % of the seconds a
    fixed-``T`` model takes)."""
    key = (n_tokens, block, ratio, _cache.array_key(w), _cache.array_key(R), gamma, seed)
    key += (outlier_block, outlier_draws)
    return _cache.cached(
        "fixed_T_token_samples",
        key,
        lambda: _token_samples(
            n_tokens, block, ratio, w, R, gamma, np.random.default_rng(seed), outlier_block, outlier_draws
        ),
    )
