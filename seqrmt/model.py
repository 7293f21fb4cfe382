"""The paper's generative model (Section 2): a fixed two-class vocabulary table,
correlated sign sequences, token sampling and attention pooling.

Convention used everywhere in :mod:`seqrmt` and in the book:

* vocabulary table ``E = [e_1 .. e_V]`` in ``R^{d x V}`` with ``e_v = s_v mu + z_v``,
  ``z_v ~ N(0, I_d)`` i.i.d., ``||mu||^2 = beta`` and balanced signs: ``s_v = +1`` for
  the first ``V/2`` tokens and ``-1`` for the others. The table is drawn once;
* sign sequences ``xi_n in {-1, +1}^T`` i.i.d. over ``n`` with ``E[xi] = 0`` and
  ``E[xi xi^T] = R`` (unit diagonal);
* the token at position ``t`` of sequence ``n`` is uniform among the ``V/2`` tokens of
  class ``xi_{n,t}``;
* pooled representation ``c_n = sum_t w_t e_{v(n,t)}`` and sample matrix
  ``S = C C^T / N`` (uncentered, as in the paper) or its centered version.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from ._numerics import _token_matrix, _tokens
from ._table import VocabularyTable

__all__ = [
    "VocabularyTable",
    "make_table",
    "prefix_correlation",
    "markov_correlation",
    "copula_correlation",
    "copula_reachable",
    "prefix_signs",
    "markov_signs",
    "copula_signs",
    "sample_signs",
    "sample_tokens",
    "embed",
    "pool",
    "sample_matrix",
    "sizes",
]


def make_table(d: int, V: int, beta: float, *, seed=None) -> VocabularyTable:
    """Draw a vocabulary table ``e_v = s_v mu + z_v`` (Section 2 of the paper).

    Parameters
    ----------
    d : int
        Embedding dimension, ``d >= 1``.
    V : int
        Vocabulary size, an even integer ``>= 2`` (two balanced classes).
    beta : float
        Signal strength ``||mu||^2 >= 0``.
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    VocabularyTable
        With ``mu = sqrt(beta) * e_1`` (the model is rotation invariant, so the
        direction of ``mu`` is immaterial).
    """
    d = _checks.integer("d", d)
    V = _checks.integer("V", V, minimum=2, even=True)
    beta = _checks.nonnegative("beta", beta)
    rng = _checks.seed(seed)
    mu = np.zeros(d)
    mu[0] = np.sqrt(beta)
    signs = np.ones(V)
    signs[V // 2 :] = -1.0
    E = rng.standard_normal((d, V))
    E[0] += mu[0] * signs  # mu = sqrt(beta) e_1

    return VocabularyTable(E=E, mu=mu, signs=signs, beta=beta)


def sizes(d: int, delta: float, gamma: float) -> tuple[int, int]:
    """``(V, N)`` for a dimension ``d`` and ratios ``delta = d/V``, ``gamma = d/N``.

    ``V`` is rounded to the nearest even integer (two balanced classes), ``N`` to the
    nearest integer, both at least 2.
    """
    d = _checks.integer("d", d)
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    return max(2, 2 * int(round(d / delta / 2))), max(2, int(round(d / gamma)))


# --- positional correlation R -------------------------------------------------


def prefix_correlation(T: int, L: int) -> np.ndarray:
    """Prefix model: the first ``L`` positions share one sign, the rest are independent.

    ``R_ts = 1`` if ``t, s <= L`` or ``t == s``, else ``0``.
    """
    T = _checks.integer("T", T)
    L = _checks.integer("L", L)
    if L > T:
        raise ValueError(f"L must satisfy 1 <= L <= T = {T}, got {L}")
    R = np.eye(T)
    R[:L, :L] = 1.0
    return R


def markov_correlation(T: int, rho: float) -> np.ndarray:
    """Stationary Markov chain of signs: ``R_ts = rho^|t - s|``.

    The chain keeps its sign with probability ``(1 + rho)/2``; ``rho`` in ``[-1, 1]``.
    """
    T = _checks.integer("T", T)
    rho = _checks.real("rho", rho)
    if not -1.0 <= rho <= 1.0:
        raise ValueError(f"rho must lie in [-1, 1], got {rho}")
    idx = np.arange(T)
    lag = np.abs(idx[:, None] - idx[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        R = np.where(lag == 0, 1.0, np.power(rho, lag, dtype=float))
    return R


def copula_correlation(Sigma: ArrayLike) -> np.ndarray:
    """Sign correlation produced by a Gaussian copula: ``R = (2/pi) arcsin(Sigma)``.

    If ``g ~ N(0, Sigma)`` with unit-diagonal ``Sigma`` then ``sign(g)`` has
    correlation ``R`` (Sheppard's formula).
    """
    Sigma = _checks.correlation(Sigma, name="Sigma")
    return 2.0 / np.pi * np.arcsin(np.clip(Sigma, -1.0, 1.0))


def copula_reachable(R: ArrayLike) -> bool:
    """Whether ``R`` is the sign correlation of a Gaussian vector, i.e. ``sin(pi R / 2)`` is PSD."""
    R = _checks.correlation(R)
    Sigma = np.sin(np.pi * R / 2)
    return bool(np.linalg.eigvalsh(Sigma)[0] >= -1e-10 * R.shape[0])


# --- sign sequences ----------------------------------------------------------


def prefix_signs(N: int, T: int, L: int, *, seed=None) -> np.ndarray:
    """``N`` sign sequences of the prefix model (correlation :func:`prefix_correlation`)."""
    N = _checks.integer("N", N)
    prefix_correlation(T, L)  # validates T and L
    rng = _checks.seed(seed)
    xi = rng.choice(np.array([-1.0, 1.0]), size=(N, T))
    xi[:, :L] = xi[:, :1]
    return xi


def markov_signs(N: int, T: int, rho: float, *, seed=None) -> np.ndarray:
    """``N`` stationary Markov sign sequences with ``R_ts = rho^|t-s|``."""
    N = _checks.integer("N", N)
    markov_correlation(T, rho)
    rng = _checks.seed(seed)
    first = rng.choice(np.array([-1.0, 1.0]), size=(N, 1))
    flips = np.where(rng.random((N, T - 1)) < (1 - rho) / 2, -1.0, 1.0)
    return first * np.concatenate([np.ones((N, 1)), np.cumprod(flips, axis=1)], axis=1)


def copula_signs(N: int, R: ArrayLike, *, seed=None) -> np.ndarray:
    """``N`` sign sequences with correlation ``R`` through a Gaussian copula.

    Draws ``g ~ N(0, sin(pi R / 2))`` and returns ``sign(g)``. Raises
    ``ValueError`` when ``sin(pi R / 2)`` is not PSD: such an ``R`` is not the
    sign correlation of any Gaussian vector (and may be no binary correlation at all).
    """
    N = _checks.integer("N", N)
    R = _checks.correlation(R)
    Sigma = np.sin(np.pi * R / 2)
    lam, U = np.linalg.eigh(Sigma)
    if lam[0] < -1e-10 * R.shape[0]:
        raise ValueError(
            "R is not a reachable binary correlation through a Gaussian copula: "
            f"sin(pi R / 2) has eigenvalue {lam[0]:.3g} < 0 (it must be PSD)"
        )
    rng = _checks.seed(seed)
    g = rng.standard_normal((N, R.shape[0])) @ (U * np.sqrt(np.clip(lam, 0, None))).T
    xi = np.sign(g)
    xi[xi == 0] = 1.0
    return xi


def _detect_prefix(R: np.ndarray) -> int | None:
    T = R.shape[0]
    L = int(np.sum(np.isclose(R[0], 1.0)))
    if np.array_equal(R, prefix_correlation(T, L)):
        return L
    return None


def _detect_markov(R: np.ndarray) -> float | None:
    T = R.shape[0]
    if T < 2:
        return None
    rho = float(R[0, 1])
    if np.allclose(R, markov_correlation(T, rho), atol=1e-12):
        return rho
    return None


def sample_signs(N: int, R: ArrayLike, *, seed=None) -> np.ndarray:
    """``N`` i.i.d. sign sequences with ``E[xi xi^T] = R``.

    Prefix and Markov correlations (recognized exactly) use their own exact
    samplers; any other ``R`` goes through the Gaussian copula
    (:func:`copula_signs`), which raises when ``R`` is not reachable.
    """
    N = _checks.integer("N", N)
    R = _checks.correlation(R)
    T = R.shape[0]
    L = _detect_prefix(R)
    if L is not None:
        return prefix_signs(N, T, L, seed=seed)
    rho = _detect_markov(R)
    if rho is not None:
        return markov_signs(N, T, rho, seed=seed)
    return copula_signs(N, R, seed=seed)


# --- tokens and pooling --------------------------------------------------------


def sample_tokens(xi: ArrayLike, V: int, *, seed=None) -> np.ndarray:
    """Token indices: position ``t`` of sequence ``n`` is uniform in class ``xi[n, t]``.

    Tokens ``0 .. V/2 - 1`` have sign ``+1`` and ``V/2 .. V - 1`` sign ``-1``.
    """
    xi = np.asarray(xi)
    if xi.dtype.kind not in "iuf":
        raise TypeError(f"xi must be an (N, T) array of signs -1/+1, got dtype {xi.dtype}")
    if xi.ndim != 2:
        raise ValueError(f"xi must be an (N, T) array of signs, got shape {xi.shape}")
    if not np.all(np.isin(xi, (-1, 1))):
        raise ValueError("xi must contain only -1 and +1")
    V = _checks.integer("V", V, minimum=2, even=True)
    rng = _checks.seed(seed)
    half = V // 2
    return rng.integers(0, half, size=xi.shape) + np.where(xi < 0, half, 0)


def embed(table: VocabularyTable, tokens: ArrayLike) -> np.ndarray:
    """Token embeddings ``X[n, t] = e_{v(n, t)}``, shape ``(N, T, d)``."""
    table = _checks.table(table)
    tokens = _tokens(tokens, table.V)
    return table.E.T[tokens]


def pool(table: VocabularyTable, tokens: ArrayLike, w: ArrayLike) -> np.ndarray:
    """Pooled representations ``c_n = sum_t w_t e_{v(n,t)}`` as the columns of ``C`` (d x N).

    Computed as ``C = E A`` with the sparse ``V x N`` weighted token-count matrix
    ``A[v, n] = sum_t w_t 1{v(n,t) = v}`` (``d N T`` flops, no ``d x N`` copies per position).
    """
    table = _checks.table(table)
    tokens = _tokens(tokens, table.V)
    w = _checks.weights(w, T=tokens.shape[1])
    return np.asarray((_token_matrix(tokens, w, table.V) @ table.E.T).T)


def sample_matrix(C: ArrayLike, *, centered: bool = True) -> np.ndarray:
    """``S = C C^T / N`` (uncentered) or ``(C - cbar)(C - cbar)^T / N`` (centered)."""
    C = _checks.real_array("C", C, allow_inf=False)
    centered = _checks.flag("centered", centered)
    if C.ndim != 2 or C.shape[1] < 1:
        raise ValueError(f"C must be a d x N array with N >= 1, got shape {C.shape}")
    if centered:
        C = C - C.mean(axis=1, keepdims=True)
    return C @ C.T / C.shape[1]
