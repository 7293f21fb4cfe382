"""The bulk of the spectrum at fixed ``T``: a generalized Marchenko-Pastur law (:func:`fixed_T_bulk_law`,
:class:`FixedTBulkLaw`), with its atom at zero from the rank of the sparse token matrix
(:func:`fixed_T_atom`, :func:`token_rank_fraction`)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from . import _cache, _checks
from ._numerics import _compress, _silverstein_solve
from .spectrum import SpectralLaw

__all__ = ["fixed_T_atom", "token_rank_fraction", "FixedTBulkLaw", "fixed_T_bulk_law"]

# Conditionally on the tokens, S = Z M Z^T with M = A A^T / N (A the V x N weighted
# token-count matrix, Z the d x V table noise).  The nonzero eigenvalues of S are those
# of the V x V sample covariance (1/d) (dM)^{1/2} Y Y^T (dM)^{1/2} (Y = Z^T, d samples of
# dimension V), and S is its d x d companion.  With H the limiting spectrum of dM and
# c = V/d = 1/delta, Silverstein's equation for the companion reads, in the book's
# convention G(z) = int dnu(t)/(z - t) (Silverstein's m is -G),
#     z = 1/G + c int t / (1 - t G) dH(t).


def _nonzero_weights(w: ArrayLike) -> tuple[np.ndarray, int]:
    w = _checks.weights(w)
    return w, int(np.count_nonzero(w))


def _rank_potential(a: ArrayLike, Tp: int, lam: float) -> np.ndarray:
    """``Phi(a)`` of :func:`token_rank_fraction` (``a^0 = 1``, also at ``a = 0``: at ``T' = 1``
    ``Phi`` is the constant ``e^{-lambda}``)."""
    a = np.asarray(a, dtype=float)
    pw = np.ones_like(a) if Tp == 1 else a ** (Tp - 1)
    return np.exp(-lam * pw) - lam / Tp * (1.0 - a * pw - Tp * (1.0 - a) * pw)


def token_rank_fraction(n_nonzero: int, draws_per_token: float) -> float:
    """Limit of ``rank(A) / V`` for the ``V x N`` token matrix ``A`` at fixed ``T``.

    Each column (sequence) of ``A`` has ``T'`` = ``n_nonzero`` nonzero entries in rows
    (tokens) chosen uniformly, so a token is drawn ``Poisson(lambda)`` times with
    ``lambda = T' N / V`` = ``draws_per_token`` (``T' delta / gamma`` in the model).  The rank
    of such a sparse matrix is (Coja-Oghlan, Ergur, Gao, Hetterich and Rolvien, *The rank of
    sparse random matrices*, Random Struct. Algorithms 2023, with degree generating
    functions ``D(x) = e^{lambda (x - 1)}`` and ``K(x) = x^{T'}``)

        rank(A) / V -> 1 - max_{a in [0, 1]} Phi(a),
        Phi(a) = exp(-lambda a^{T'-1}) - (lambda / T') (1 - a^{T'} - T' (1 - a) a^{T'-1}).

    ``Phi(1) = e^{-lambda}`` is the fraction of tokens never drawn.  For ``T' >= 2``,
    ``Phi(0) = 1 - lambda/T' = 1 - N/V``, so the rank is at most ``min(N, #tokens drawn)``;
    it is strictly smaller when the maximum is interior (e.g. two tokens drawn only by the
    same sequence give two proportional rows).  At ``T' = 1`` the factor ``a^{T'-1}`` is
    ``a^0 = 1`` (also at ``a = 0``) and the bracket vanishes, so ``Phi`` is the constant
    ``e^{-lambda}`` (not ``1 - N/V`` at ``0``: at ``lambda = 1``, ``0.368`` against ``0``) and
    the rank fraction is ``1 - e^{-lambda}`` exactly, the fraction of tokens drawn
    (``A A^T`` is diagonal).

    Parameters
    ----------
    n_nonzero : int
        Number ``T' >= 1`` of nonzero pooling weights.
    draws_per_token : float
        Mean number of draws per token ``lambda = T' N / V > 0``.
    """
    Tp = _checks.integer("n_nonzero", n_nonzero, minimum=1)
    lam = _checks.positive("draws_per_token", draws_per_token)
    return _token_rank_fraction(Tp, lam)


def _token_rank_fraction(Tp: int, lam: float) -> float:
    """:func:`token_rank_fraction` of checked arguments (``T' >= 1`` an int, ``lambda > 0``)."""

    def phi(a):
        return _rank_potential(a, Tp, lam)

    a = np.linspace(0.0, 1.0, 4001)
    k = int(np.argmax(phi(a)))
    best = float(phi(a[k]))
    if 0 < k < a.size - 1:  # refine an interior maximum (golden section on one grid cell)
        from scipy.optimize import minimize_scalar

        res = minimize_scalar(
            lambda x: -phi(x), bounds=(a[k - 1], a[k + 1]), method="bounded", options={"xatol": 1e-12}
        )
        best = max(best, float(-res.fun))
    return float(min(1.0, max(0.0, 1.0 - best)))


def fixed_T_atom(delta: float, gamma: float, w: ArrayLike) -> float:
    """Mass of the atom at ``0`` of the fixed-``T`` bulk (:func:`fixed_T_bulk_law`).

    ``S = Z M Z^T`` with a Gaussian ``d x V`` matrix ``Z`` has rank ``min(d, rank M)`` and
    ``rank M = rank A``, so ``1 - rank(S)/d -> max(0, 1 - r / delta)`` with
    ``r = lim rank(A)/V`` from :func:`token_rank_fraction` at ``T'`` = number of nonzero
    weights and ``lambda = T' delta / gamma``.  It is larger than Theorem 1's
    ``max(0, 1 - 1/delta, 1 - 1/gamma)`` because tokens never drawn (a fraction
    ``e^{-T' delta / gamma}``) and tokens drawn only by the same sequence cut the rank; it
    tends to Theorem 1's atom as ``T' -> infinity``.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    _, Tp = _nonzero_weights(w)
    r = _token_rank_fraction(Tp, Tp * delta / gamma)
    return float(max(0.0, 1.0 - r / delta))


def _token_block(V: int, N: int, w: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Eigenvalues of ``A A^T`` (``V`` of them, zeros included) for one draw of the token matrix.

    Each sequence draws ``T`` distinct tokens uniformly among ``V`` (repeats within a
    sequence have probability ``O(T^2/V)`` and vanish in the limit; excluding them removes
    an ``O(T/V)`` bias of a finite draw).  The class structure does not change the law of
    ``A A^T``: a token of either class is drawn ``Poisson(T N / V)`` times and the graph of
    shared tokens is locally the same tree.  ``A`` is centered over the sequences
    (``A P``, ``P = I - 1 1^T / N``, as for the centered ``S``): this removes the Perron
    eigenvalue ``~ sigma_w^2 N / V`` of the mean ``E A = (sigma_w / V) 1 1^T``, an outlier of
    mass ``1/V`` per draw that has no weight in the limit but would bias a finite draw.  The
    dense Gram matrix of the smaller side is diagonalized.
    """
    from scipy import sparse

    T = w.size
    tok = np.argpartition(rng.random((N, V)), T - 1, axis=1)[:, :T] if T < V else np.tile(np.arange(V), (N, 1))
    A = sparse.csr_matrix((np.tile(w, N), (tok.ravel(), np.repeat(np.arange(N), T))), shape=(V, N))
    Ac = A.toarray()
    Ac -= Ac.mean(axis=1, keepdims=True)
    ev = np.linalg.eigvalsh((Ac.T @ Ac) if N <= V else (Ac @ Ac.T))
    return np.concatenate([ev, np.zeros(V - ev.size)])


_H_CACHE: dict = {}


def _token_gram_spectrum(ratio: float, w: tuple, n_tokens: int, block: int, seed: int) -> np.ndarray:
    """Pooled eigenvalues of ``A A^T`` from independent blocks of ``block`` tokens (cached, on disk too
    with ``SEQRMT_CACHE_DIR``: ``seqrmt/_cache.py``)."""
    key = (ratio, w, n_tokens, block, seed)
    if key not in _H_CACHE:
        _H_CACHE[key] = _cache.cached(
            "token_gram_spectrum", key, lambda: _draw_token_gram_spectrum(ratio, w, n_tokens, block, seed)
        )
    return _H_CACHE[key]


def _draw_token_gram_spectrum(ratio: float, w: tuple, n_tokens: int, block: int, seed: int) -> np.ndarray:
    """The draws of :func:`_token_gram_spectrum`."""
    rng = np.random.default_rng(seed)
    wa = np.asarray(w, dtype=float)
    n_blocks = max(1, int(round(n_tokens / block)))
    n_seq_total = ratio * block * n_blocks
    out, done = [], 0
    for b in range(n_blocks):  # spread the rounding of N over the blocks
        N = max(1, int(round(n_seq_total * (b + 1) / n_blocks)) - done)
        done += N
        out.append(_token_block(block, N, wa, rng))
    return np.sort(np.concatenate(out))


class FixedTBulkLaw(SpectralLaw):
    """The bulk of ``S`` at fixed ``T`` (d, V, N -> infinity, ``d/V -> delta``, ``d/N -> gamma``,
    ``T`` and ``w`` fixed): a generalized Marchenko-Pastur law (the law ``nu_T`` of the book's
    conjecture ``thm-fixed-T-bulk``, which rests on three named assumptions: convergence of the
    spectrum of ``A A^T``, the sparse rank formula for fixed weights, and that the atom equals
    the limiting fraction of exact zeros).

    Build it with :func:`fixed_T_bulk_law` (cached).  Conditionally on the tokens,
    ``S = Z M Z^T`` with ``M = A A^T / N`` exactly, so the spectrum of ``S`` is the companion
    of a sample covariance of dimension ``V`` from ``d`` Gaussian samples with population
    ``d M``.  With ``nu_M`` the limiting spectrum of ``d M`` (``V`` eigenvalues) and
    ``c = V/d = 1/delta``, its Stieltjes transform ``G(z) = int dnu(x)/(z - x)`` is the unique
    solution with ``Im G < 0`` (for ``Im z > 0``) of Silverstein's equation

        z = 1/G + c int t / (1 - t G) dnu_M(t).

    ``nu_M`` depends on ``w`` and ``N/V = delta/gamma`` and on ``d`` only through the scale
    ``d/N = gamma``: ``nu_M = gamma * (limiting spectrum of A A^T)``.  It has no closed form at
    fixed ``T`` (a sparse random Gram matrix); it is computed from the eigenvalues of
    independent draws of ``A`` (``n_tokens`` tokens in blocks of ``block``, a fixed ``seed``),
    except its atom at ``0``, which is the exact :func:`token_rank_fraction`.  The ``n_top``
    largest pooled nonzero eigenvalues are kept as atoms of their own (they carry the upper
    tail), the others are averaged in ``n_atoms`` groups of equal mass, and the whole is
    rescaled so that ``nu_M`` has its exact mean ``kappa delta`` (``tr A A^T = N kappa``; a
    rescaling by ``1 + O(1/sqrt(n_tokens))``, which removes the first-order Monte Carlo error
    of the draw).  With a single nonzero weight (``T' = 1``) ``A A^T`` is diagonal and
    ``nu_M`` is exact: ``gamma w^2 Poisson(delta/gamma)``.

    **No right edge.**  The limit law has unbounded support: ``nu_M`` has unbounded support
    (at ``T' = 1`` it has an atom at every multiple ``gamma w^2 k`` of a Poisson count, and at
    every ``T'`` the most-drawn tokens give arbitrarily large eigenvalues of ``A A^T``), so
    :meth:`support` returns ``(left, inf)``.  The computed law is a discrete approximation:
    its mass ends at :attr:`truncation` (the Poisson counts are cut where their probability is
    negligible at ``T' = 1``; the largest eigenvalue of a finite draw bounds it at ``T' >= 2``).
    Use :meth:`tail_mass` and :meth:`expected_above` for the upper tail: at ``T' = 1`` they are
    accurate to the quadrature (a few ``1e-6`` absolute; about 5 % relative for tails near
    ``1e-4``, where the bumps of the rarest counts are narrow); at ``T' >= 2`` tail masses below
    :attr:`resolution` (the mass of one sampled eigenvalue, ``(1 - h0)/(delta n)`` for ``n`` sampled
    nonzero eigenvalues, ``h0`` the atom at zero of ``nu_M``) are not resolved, and larger ones carry the Monte Carlo error of a
    count of sampled eigenvalues (build laws with several ``seed`` or a larger ``n_tokens`` to
    see it).

    The equation is solved by Newton's method in ``G``, vectorized over ``x``, with
    continuation from above the real axis: along ``z = x + i eta`` with ``eta`` decreasing
    geometrically (factor 4) from ``10 U`` (where ``G ~ 1/z``) to ``1e-9 U`` (``U`` bounds the
    computed support), a damped step never leaving ``Im G < 0`` (so the root followed is the
    physical one).  The density is ``-Im (G - atom/z)/pi`` at ``z = x + i 1e-9 U``; the cdf
    integrates it by the trapezoid rule on the points ``x = b (1 - cos theta)/2`` (equispaced
    ``theta``, clustered at square-root edges) merged with a geometric grid towards ``0`` (the
    small eigenvalues of the sparse Gram matrix make the density steep there), ``b`` the end
    of the computed mass.

    Accuracy (defaults): the continuous mass matches ``1 - atom`` to about ``1e-4`` before
    normalization (:attr:`mass_error`); laws built from independent draws of ``A`` differ by
    about ``1e-3`` in Kolmogorov distance, and by up to ``2e-3`` within ``1e-4`` of ``0`` when
    ``N = V`` at large ``T`` puts a hard edge there (finite draws smear the smallest
    eigenvalues of ``A A^T``).  Against simulations (``delta = gamma = 1.5``, three tables at
    ``d = 1000`` pooled) the Kolmogorov distance is a few thousandths at ``T = 1, 2, 4``, where
    Theorem 1 is off by ``0.25``, ``0.11`` and ``0.02``.  ``T' = 1`` has no Monte Carlo error.
    Construction takes one to two seconds of CPU.

    Attributes
    ----------
    delta, gamma, kappa : float
        Ratios and ``kappa = ||w||^2``.
    w : ndarray
        The weights.
    n_nonzero : int
        Number ``T'`` of nonzero weights.
    atom : float
        Mass at ``0`` (:func:`fixed_T_atom`).
    truncation : float
        Right end of the computed approximation: its cdf is ``1`` from there on (the limit
        law has no right end).
    resolution : float
        Smallest tail mass the computation resolves: ``0`` at ``T' = 1`` (exact ``nu_M``),
        the mass in the law of one sampled eigenvalue of ``A A^T`` at ``T' >= 2``.
    mass_error : float
        ``int pdf - (1 - atom)`` before the cdf table is normalized.
    """

    def __init__(
        self,
        delta: float,
        gamma: float,
        w: ArrayLike,
        *,
        n_tokens: int = 6000,
        block: int = 500,
        n_atoms: int = 200,
        n_top: int = 40,
        seed: int = 0,
        grid: int = 1000,
    ) -> None:
        self.delta = _checks.positive("delta", delta)
        self.gamma = _checks.positive("gamma", gamma)
        self.w, self.n_nonzero = _nonzero_weights(w)
        self.kappa = float(self.w @ self.w)
        n_tokens = _checks.integer("n_tokens", n_tokens, minimum=10)
        block = _checks.integer("block", block, minimum=10)
        n_atoms = _checks.integer("n_atoms", n_atoms, minimum=10)
        n_top = _checks.integer("n_top", n_top, minimum=0)
        grid = _checks.integer("grid", grid, minimum=50)
        seed = _checks.integer("seed", seed, minimum=0)
        self.atom = fixed_T_atom(self.delta, self.gamma, self.w)
        ratio = self.delta / self.gamma
        wz = self.w[self.w != 0]
        h0 = 1.0 - _token_rank_fraction(self.n_nonzero, self.n_nonzero * ratio)
        if self.n_nonzero == 1:
            # one token per sequence: A A^T is diagonal, w^2 times Poisson(delta/gamma) counts
            from scipy.stats import poisson

            k = np.arange(1, int(ratio + 12.0 * np.sqrt(ratio) + 40.0))
            self._t = self.gamma * float(wz[0]) ** 2 * k
            self._p = poisson.pmf(k, ratio)
            self.resolution = 0.0
        else:
            ev = _token_gram_spectrum(float(ratio), tuple(float(x) for x in wz), n_tokens, block, seed)
            nz = ev[ev > 1e-9 * max(ev[-1], 1e-300)]
            # exact mass 1 - h0 off zero and exact mean kappa delta of nu_M = gamma A A^T
            t, counts = _compress(nz, n_atoms, min(n_top, nz.size // 2))
            frac = counts / counts.sum()
            self._t = self.kappa * self.delta / (1.0 - h0) * t / float(t @ frac)
            self._p = (1.0 - h0) * frac
            self.resolution = float((1.0 - h0) / (self.delta * counts.sum()))
        self._c = 1.0 / self.delta
        self._U = float(self._t.max() * (1.0 + np.sqrt(self._c)) ** 2)
        self._build_table(grid)

    def __repr__(self) -> str:
        return f"FixedTBulkLaw(delta={self.delta!r}, gamma={self.gamma!r}, w={self.w.tolist()!r})"

    # -- Silverstein's equation ---------------------------------------------------------
    def _solve(self, x: np.ndarray, eta_end: np.ndarray | float) -> np.ndarray:
        """``G(x + i eta_end)`` of this law (see :func:`_silverstein_solve`)."""
        return _silverstein_solve(x, eta_end, self._t, self._p, self._c, self._U)

    def _density(self, x: np.ndarray) -> np.ndarray:
        """``-Im (G(z) - atom/z)/pi`` at ``z = x + i eta``, ``eta = 1e-9 U`` (the atom's own
        Lorentzian ``atom eta / (pi (x^2 + eta^2))`` is removed)."""
        z = x + 1j * 1e-9 * self._U
        G = self._solve(x, z.imag)
        return np.maximum(-(G - self.atom / z).imag / np.pi, 0.0)

    def _build_table(self, grid: int) -> None:
        coarse = np.linspace(0.0, self._U, 400)[1:]
        f = self._density(coarse)
        b = coarse[np.flatnonzero(f > 1e-10 * f.max())[-1]] + (coarse[1] - coarse[0])
        # theta-grid (clusters at square-root edges) merged with a geometric grid towards 0,
        # where small eigenvalues of the sparse Gram matrix make the density steep
        th = np.linspace(0.0, np.pi, grid)
        x = np.union1d(b * (1.0 - np.cos(th)) / 2.0, b * np.geomspace(1e-10, 0.05, grid // 4))
        fx = self._density(x)
        trap = (fx[1:] + fx[:-1]) / 2.0 * np.diff(x)
        cum = np.concatenate([[0.0], np.cumsum(trap)])
        # the mass above each grid point, summed from the right (accurate for small tails)
        tail = np.concatenate([np.cumsum(trap[::-1])[::-1], [0.0]])
        self.mass_error = float(cum[-1] - (1.0 - self.atom))
        norm = (1.0 - self.atom) / cum[-1]
        cum *= norm
        tail *= norm
        eps = 1e-7 * cum[-1]
        self._left = float(x[np.searchsorted(cum, eps)])
        self.truncation = float(x[min(np.searchsorted(cum, cum[-1]), x.size - 1)])
        self._x, self._f, self._cum, self._tail = x, fx, cum, tail

    # -- distribution --------------------------------------------------------------------
    def support(self) -> tuple[float, float]:
        """``(left, inf)``: hull of the support of the continuous part.

        The left end is computed (to grid accuracy, where the computed cdf passes ``1e-7``
        of the continuous mass).  The right end is ``inf``: the limit law has unbounded
        support (see the class notes); the computed approximation ends at
        :attr:`truncation`, and :meth:`tail_mass` / :meth:`expected_above` quantify its
        upper tail.
        """
        return self._left, math.inf

    def tail_mass(self, x: ArrayLike) -> np.ndarray:
        """Mass of the law strictly above ``x``: ``nu_T((x, inf)) = 1 - cdf(x)`` (vectorized).

        Summed from the right end of the table, so small tails keep their relative
        accuracy; ``1`` for ``x < 0``, ``1 - atom`` at ``0``, ``0`` from :attr:`truncation`
        on.  Values below :attr:`resolution` are not resolved at ``T' >= 2``.

        Parameters
        ----------
        x : array_like
            Real points (``+-inf`` allowed, NaN rejected).
        """
        xx = _checks.real_array("x", x)
        out = np.interp(xx, self._x, self._tail, left=1.0 - self.atom, right=0.0)
        return np.where(xx < 0.0, 1.0, np.clip(out, 0.0, 1.0))

    def pdf(self, x: ArrayLike) -> np.ndarray:
        """Density of the continuous part, ``-Im G(x + i0)/pi`` (the atom is not included)."""
        xx = _checks.real_array("x", x)
        out = np.zeros_like(xx)
        a, b = self._x[0], self._x[-1]
        inside = (xx > a) & (xx < b)
        if inside.any():
            out[inside] = self._density(xx[inside])
        return out

    def cdf(self, x: ArrayLike) -> np.ndarray:
        """Distribution function including the atom at ``0`` (interpolated in the table)."""
        xx = _checks.real_array("x", x)
        cont = np.interp(xx, self._x, self._cum, left=0.0, right=1.0 - self.atom)
        out = np.where(xx >= 0.0, np.minimum(self.atom + cont, 1.0), 0.0)
        return np.where(xx >= self._x[-1], 1.0, out)

    def ppf(self, q: ArrayLike) -> np.ndarray:
        """Quantile function ``inf {x : cdf(x) >= q}`` of the computed law (``0`` for
        ``q <= atom``; ``ppf(1)`` is :attr:`truncation`, since the limit law has no right end)."""
        qq = _checks.real_array("q", q)
        if np.any((qq < 0) | (qq > 1)):
            raise ValueError("q must lie in [0, 1]")
        keep = np.concatenate([[True], np.diff(self._cum) > 0])
        x = np.interp(qq - self.atom, self._cum[keep], self._x[keep])
        return np.where(qq <= self.atom, 0.0 if self.atom > 0 else self._left, x)

    def stieltjes(self, z: ArrayLike) -> np.ndarray:
        """``G(z) = int dnu(x)/(z - x)`` (atom included); for real ``z`` the value ``G(z + i0)``."""
        zz = _checks.complex_array("z", z)
        eta = np.maximum(np.abs(zz.imag), 1e-9 * self._U)
        G = self._solve(zz.real.ravel(), eta.ravel()).reshape(zz.shape)
        return np.where(zz.imag < 0, np.conj(G), G)

    def moment(self, k: int) -> float:
        """``int x^k dnu`` by quadrature of the cdf table (exact values: ``kappa`` for ``k = 1``
        and ``kappa^2 (1 + delta + gamma)`` for ``k = 2``, as for Theorem 1)."""
        k = _checks.integer("k", k, minimum=0)
        if k == 0:
            return 1.0
        mid = (self._x[1:] + self._x[:-1]) / 2.0
        return float(np.sum(mid**k * np.diff(self._cum)))


_LAW_CACHE: dict = {}


def fixed_T_bulk_law(delta: float, gamma: float, w: ArrayLike, **options) -> FixedTBulkLaw:
    """The bulk of ``S`` at fixed ``T``: a :class:`FixedTBulkLaw` (cached by its arguments).

    The limit of the spectrum of ``S`` (centered or not) as ``d, V, N -> infinity`` with
    ``d/V -> delta``, ``d/N -> gamma`` and ``T``, ``w`` fixed, under the three assumptions of
    the book's conjecture ``thm-fixed-T-bulk`` (checked against simulations, not proved); it
    tends to Theorem 1 (:class:`BulkLaw`) as the number of nonzero weights grows with the
    weights spread out (e.g. mean weights).  The law has no right edge:
    :meth:`FixedTBulkLaw.tail_mass` and :meth:`FixedTBulkLaw.expected_above` give its upper
    tail.

    Parameters
    ----------
    delta, gamma : float
        ``d/V > 0`` and ``d/N > 0``.
    w : array_like, shape (T,)
        Pooling weights (zeros allowed, not all zero).
    **options
        ``n_tokens``, ``block``, ``n_atoms``, ``n_top``, ``seed``, ``grid`` of
        :class:`FixedTBulkLaw`.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    w = _checks.weights(w)
    key = (delta, gamma, tuple(w.tolist()), tuple(sorted(options.items())))
    if key not in _LAW_CACHE:
        _LAW_CACHE[key] = FixedTBulkLaw(delta, gamma, w, **options)
    return _LAW_CACHE[key]
