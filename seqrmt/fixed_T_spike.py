"""The signal eigenvalue at fixed ``T`` (chapter 3, "The spike at fixed T"): the spiked model of the
sparse token matrix (:class:`FixedTSpike`, :func:`fixed_T_spike_model`), its prediction
(:func:`fixed_T_predict`, :class:`FixedTPrediction`) and the stored simulations with correlated
positions (:func:`load_fixed_T_spike_correlated`, :func:`fixed_T_setting`)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq

from . import _cache, _checks
from ._data import _load
from ._numerics import _realized
from .attention import alpha as _alpha
from .attention import kappa as _kappa
from .attention import named_weights
from .attention import sigma_w as _sigma_w
from ._fixed_T_draws import _default_draws, token_samples
from ._fixed_T_equation import _atom_sets, _Measures
from .fixed_T_bulk import _token_rank_fraction
from .model import markov_correlation, prefix_correlation
from .spectrum import _bulk_edges
from .spikes import Prediction, predict

__all__ = [
    "FixedTSpike",
    "fixed_T_predict",
    "FixedTPrediction",
    "fixed_T_spike_model",
    "load_fixed_T_spike_correlated",
    "fixed_T_setting",
]


def _checked_options(
    w: np.ndarray,
    *,
    d: int | None,
    n_tokens: int | None,
    block: int | None,
    n_atoms: int,
    outlier_block: int | None,
    outlier_draws: int,
    seed: int,
    max_width: float,
    max_count: float,
) -> dict:
    """The options of :class:`FixedTSpike` for the checked weights ``w``, checked, with the defaults
    that depend on the number ``T'`` of nonzero weights filled in (the others are those of the class's
    signature, :func:`_option_defaults`)."""
    Tp = int(np.count_nonzero(w))
    default_tokens, default_block = _default_draws(Tp)
    n_tokens = _checks.integer("n_tokens", default_tokens if n_tokens is None else n_tokens, minimum=100)
    n_atoms = _checks.integer("n_atoms", n_atoms, minimum=10)
    seed = _checks.integer("seed", seed, minimum=0)
    block = _checks.integer("block", default_block if block is None else block, minimum=2 * Tp, even=True)
    if block < 20:
        raise ValueError(f"block must be at least 20 tokens, got {block}")
    if outlier_block is None:
        outlier_block = max(4096, 128 * Tp)
    outlier_block = _checks.integer("outlier_block", outlier_block, minimum=2 * block, even=True)
    outlier_draws = _checks.integer("outlier_draws", outlier_draws, minimum=1)
    return dict(
        d=None if d is None else _checks.integer("d", d, minimum=2),
        n_tokens=n_tokens,
        block=block,
        n_atoms=n_atoms,
        outlier_block=outlier_block,
        outlier_draws=outlier_draws,
        seed=seed,
        max_width=_checks.positive("max_width", max_width),
        max_count=_checks.positive("max_count", max_count),
    )


@functools.cache
def _option_defaults() -> dict:
    """The keyword options of :class:`FixedTSpike` and their defaults, read from its signature (the one
    place they are written)."""
    import inspect

    params = inspect.signature(FixedTSpike.__init__).parameters.values()
    return {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


def _checked_arguments(delta: float, gamma: float, w: ArrayLike, R: ArrayLike, options: dict) -> tuple:
    """The arguments of :class:`FixedTSpike`, checked once at the door: ``(delta, gamma, w, R,
    options)`` with the options of :func:`_checked_options` (an option not given takes its default)."""
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    unknown = set(options) - set(_option_defaults())
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)}: FixedTSpike takes {sorted(_option_defaults())}")
    return delta, gamma, w, R, _checked_options(w, **{**_option_defaults(), **options})


def _poisson_atoms(
    ratio: float, gamma: float, kappa: float, delta: float, d: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, p, r)`` of ``nu_M`` and ``nu_s`` at ``T' = 1``, exact: ``gamma kappa Poisson(delta/gamma)``
    (``ratio = delta/gamma``), an atom per count ``k`` of draws of a token; with ``d``, only the counts
    that half a token or more of ``V = d/delta`` reach."""
    from scipy.stats import poisson

    kk = np.arange(1, int(ratio + 12.0 * np.sqrt(ratio) + 40.0))
    if d is not None:  # the count classes reached by half a token or more of V = d/delta
        kk = kk[poisson.sf(kk - 1, ratio) * d / delta >= 0.5]
    t = gamma * kappa * kk
    p = poisson.pmf(kk, ratio)
    return t, p, p.copy()


@dataclass(frozen=True)
class FixedTPrediction(Prediction):
    """A :class:`Prediction` of :func:`fixed_T_predict`, with what says how far to trust it.

    It has every attribute of :class:`Prediction`, and these.

    Attributes
    ----------
    width : float
        ``|Im H / Re H|`` at the root (``0`` without one): how much the signal mixes with the bulk.
    location_error, overlap_error : float
        Discretization error of ``sample_outlier`` (relative) and of ``overlap`` (absolute): the
        change when the bulk of ``nu_M`` and ``nu_s`` is grouped in half as many atoms (``nan``
        without a signal eigenvalue).
    outlier_location_error, outlier_overlap_error : float
        Draw error of the outlier of ``d M`` along ``s`` carried into the prediction: the change of
        ``sample_outlier`` (relative) and of ``overlap`` (absolute) when its atom ``(t_*, w_*)`` is the
        one of the half-size sparse draws (:attr:`FixedTSpike.outlier_bias`); ``0`` without such an
        outlier.  Where that outlier barely leaves the bulk of ``d M`` the prediction is sensitive to
        it (a change of 1 % in ``t_*`` can move the alignment by 0.03), and this is the larger error.

        These four are numerical errors: how the prediction moves with the number of atoms and with
        the size of the draws.  They do not measure the error of the approximations themselves (one
        atom for the outlier of ``d M`` along ``s``, the deterministic equivalents of the conjecture),
        and where ``d M`` has that outlier (:attr:`FixedTSpike.s_outlier` not ``None``) the error of
        ``overlap`` can exceed them all: chapter 3 ("What the reported error leaves out") measures a
        setting at ``T = 4`` where the simulated alignment lies below ``overlap`` by more than
        ``overlap_error + outlier_overlap_error``.  There they are a lower bound on the error, not an
        error bar; the prediction is not corrected for it.
    d : int or None
        The dimension of the validity check below (``None``: not asked).
    bulk_above : float or None
        Expected number of bulk eigenvalues of ``S`` above ``sample_outlier`` at dimension ``d``,
        with the token-norm fluctuations of a finite ``d`` (:meth:`FixedTSpike.bulk_above`).
    count_resolution : float or None
        What one more sampled eigenvalue of ``d M``, at the largest one drawn, would add to
        ``bulk_above``: the count is known to about that.
    single_eigenvalue : bool or None
        Whether the top eigenvalue is predicted to carry the signal alone at dimension ``d``:
        a root outside the bulk (``width <= max_width``) with
        ``bulk_above + count_resolution <= max_count``.  ``False`` means "no single eigenvalue
        is predicted": use ``mass_above``.
    threshold, mass_above : float or None
        The spectral mass of ``S`` along ``u = mu / ||mu||`` above ``threshold`` (default
        ``sample_outlier (1 - sqrt(2/d))``, one token-norm standard deviation below the root):
        the squared cosine with ``u`` that all eigenvalues above ``threshold`` carry together
        (:meth:`FixedTSpike.mass_above`), the robust quantity where no single eigenvalue is.
    """

    width: float = 0.0
    location_error: float = math.nan
    overlap_error: float = math.nan
    outlier_location_error: float = math.nan
    outlier_overlap_error: float = math.nan
    d: int | None = None
    bulk_above: float | None = None
    count_resolution: float | None = None
    single_eigenvalue: bool | None = None
    threshold: float | None = None
    mass_above: float | None = None


class FixedTSpike:
    """The signal eigenvalue of ``S`` at fixed ``T``: location and alignment.

    Derived in this book (chapter 3, "The spike at fixed T"; a claim under the named
    assumptions of ``conj-fixed-T-spike``).  Conditionally on the tokens,
    ``S = E M E^T`` with ``M = A A^T / N`` (``A P A^T / N`` centered), so ``S = X X^T`` with

        ``X = E M^{1/2} = Z_perp M^{1/2} + (mu + Delta)(M^{1/2} s)^T [+ zbar (M^{1/2} 1)^T]``,

    a rank-one (two, uncentered) perturbation of ``Z_perp M^{1/2}``, which is invariant
    under left rotations and independent of ``mu + Delta`` and ``zbar`` (Gaussian
    projections on orthogonal subspaces).  Benaych-Georges and Nadakuditi's equation for
    the outliers of such a perturbation, with the deterministic equivalents of the two
    resolvents, gives for the signal eigenvalue ``x`` the equation

        ``H(x) = G(x) Gamma_s(G(x)) = delta / (b - delta)``,  ``Gamma_s(G) = int t / (1 - t G) dnu_s(t)``,

    with ``b = ||mu + Delta||^2`` (``-> beta + delta``), ``G`` the Stieltjes transform of the
    fixed-``T`` bulk (:class:`seqrmt.FixedTBulkLaw`; Silverstein's equation with the
    spectrum ``nu_M`` of ``m = d M``) and ``nu_s`` the spectral measure of ``m`` in the direction
    of the class vector ``s / sqrt(V)`` (mass ``(s^T q_i)^2 / V`` at each eigenvalue ``t_i``).
    The squared cosine of its eigenvector with ``u_tilde = (mu + Delta) / ||mu + Delta||`` is

        ``eta = -G(x) (1 + H(x))^2 / (b H'(x) / delta)``,

    and with ``u = mu / ||mu||`` it is ``eta`` times ``cos^2(u_tilde, u)`` (``-> beta / (beta + delta)``).
    With ``b = beta + delta`` the equation is ``beta G Gamma_s(G) / delta = 1``.  As ``T`` grows
    with spread weights ``nu_s`` concentrates on the spike of ``m`` along ``s`` and the result
    tends to the two-stage formula of :func:`predict` (``finite_table=True``).

    The uncentered ``S`` has a second outlier, from the Perron eigenvalue ``tau`` of ``m``
    (eigenvector close to ``1 / sqrt(V)``, weight ``w_1 = (1^T q)^2 / V``): the root of
    ``G(x) = 1 / tau``, i.e. ``x = tau + c int t tau / (tau - t) dnu_M(t)`` (``c = 1/delta``),
    with squared cosine ``w_1 (1 - c int (t/tau)^2 / (1 - t/tau)^2 dnu_M(t))`` to ``zbar``.  At
    ``T' = 1`` (one nonzero weight) ``m`` is diagonal and there is no such outlier.

    **What is computed.**  ``nu_M`` and ``nu_s`` have no closed form at fixed ``T`` (a sparse
    random Gram matrix); they are computed from independent draws of the token matrix of
    ``block`` tokens (``n_tokens`` in all, fixed ``seed``; tokens within a sequence distinct),
    with eigenvectors.  At ``T' = 1`` both are exact: ``gamma w^2 Poisson(delta/gamma)``.

    * *The outlier of ``m`` along ``s``.*  With a correlated ``R``, ``E m`` is
      ``delta kappa I + delta (alpha - kappa) s s^T / V`` (plus fluctuations), and ``m`` has an
      eigenvalue ``t_*`` apart from its bulk whose eigenvector carries a fraction ``w_*`` of
      ``nu_s`` (about 0.7 at ``T = 16``, ``rho = 0.8``) but only ``1/V`` of ``nu_M``: in the limit
      ``nu_s = w_* delta_{t_*} + (bulk part)`` and ``nu_M`` has no mass at ``t_*``.  It is an atom of
      its own: the top eigenvector of a draw, if its ``s``-weight is above ``25 / block`` (a
      delocalized one has about ``1 / block``), is taken out of the bulk when half the draws or more
      have one (an eigenvalue with such a weight inside the bulk, near the threshold of the outlier
      of ``m``, stays in the bulk, where grouping it with its neighbours costs little).  At short
      ``T`` the tail of ``nu_M`` reaches ``t_*`` and the class direction spreads over the top few
      eigenvectors of a large draw (at ``T = 4``, ``rho = 0.8``: two or three share ``0.45``); the
      atom is then the ``s``-mass of the top eigenvectors with a weight above ``25 / V`` at their
      weighted mean eigenvalue (eight of them, when the outlier of the dense draws is less than 1.5
      times their next eigenvalue), and ``(t_*, w_*)`` are the weighted means
      over ``outlier_draws`` sparse draws of ``outlier_block`` tokens (Lanczos, top eigenpairs), a
      draw size at which the ``O(T'/V)`` bias of a finite draw is small; the same over draws of
      half that size gives :attr:`outlier_bias` (the bias of a draw is ``O(1/V)``, so the
      difference estimates it), and the prediction with that atom instead gives its error
      (:attr:`FixedTPrediction.outlier_overlap_error`).  Where the draws have no outlier (``R = I``)
      nothing changes.
    * *The bulk.*  The other eigenvalues are grouped in ``n_atoms`` atoms of equal ``nu_M`` mass
      that carry both measures; ``nu_M`` is rescaled to its exact mean ``kappa delta``, and the bulk
      part of ``nu_s`` to the mass ``nu_s`` has off the outlier (without an outlier: to its exact
      mean ``alpha delta``).  Grouping smooths the far tail of ``nu_M``, made of a few sampled
      eigenvalues, which would otherwise put spurious roots in the equation.  The same with half
      as many atoms gives the discretization error of each prediction
      (:attr:`FixedTPrediction.location_error`, :attr:`FixedTPrediction.overlap_error`).

    A squared cosine is computed, never clipped: a value outside ``[0, 1]`` beyond rounding means
    the evaluation is wrong, and it raises a ``RuntimeWarning``.

    **No edge, no sharp threshold.**  The fixed-``T`` bulk has no right edge, so ``x`` lies
    inside its support, where the density is small: ``H(x + i0)`` has an imaginary part, and the
    signal eigenvector mixes with the bulk eigenvectors near ``x``.  The prediction is that of
    the real part; :meth:`width` gives ``|Im H / Re H|`` at the root, and no signal eigenvalue is
    predicted where it exceeds ``max_width`` (the root then lies in a part of the bulk with a
    density, as in the bumps of the bulk at ``T' = 1``, one per count of draws of a token).
    Under the assumptions of the conjecture, the limit of the spectral measure of ``S`` in the
    direction ``u`` has the Stieltjes transform ``G(z) / (1 - beta H(z) / delta)``: an atom of mass ``eta`` at ``x`` when ``x`` is in a gap of the
    bulk, a narrow peak of that mass when the density there is small.

    **One eigenvalue or several (dimension d).**  The peak is carried by the top eigenvalue when
    few bulk eigenvalues lie above it at dimension ``d``.  The limit law undercounts them: at finite
    ``d`` the eigenvalue of ``S`` created by a large eigenvalue ``t`` of ``m`` fluctuates with the
    token norms (relative standard deviation about ``sqrt(2/d)``), which fattens the far tail.
    :meth:`bulk_above` counts them with that fluctuation; where the count (or the resolution of
    the computed token spectrum) is not small, no single eigenvalue is predicted, and
    :meth:`mass_above`, the squared cosine carried by all eigenvalues above a threshold, is the
    quantity to compare.

    **At dimension d** (``d`` given, ``T' = 1`` only).  At ``T' = 1`` ``nu_M`` is exactly a set of
    atoms, one per count ``k`` of draws of a token, of mass ``P(Poisson(delta/gamma) = k)``; in a
    table of ``V = d/delta`` tokens the counts that fewer than half a token reach on average
    (``V P(K >= k) < 1/2``) are typically absent, and the bumps of the bulk they create are
    empty.  With ``d`` those counts are left out of ``nu_M`` and ``nu_s`` (the typical token
    spectrum at that ``d``, a finite-size refinement checked against simulations, not a limit).
    At ``T' >= 2`` the computed measures are already grouped in atoms of mass ``1/n_atoms``, far
    above ``1/V``, and ``d`` changes nothing.

    Parameters
    ----------
    delta, gamma : float
        ``d/V > 0`` and ``d/N > 0``.
    w : array_like, shape (T,)
        Pooling weights (zeros allowed, not all zero).
    R : array_like, shape (T, T)
        Positional sign correlation (symmetric PSD, unit diagonal, reachable by
        :func:`seqrmt.sample_signs`).
    d : int, optional
        Dimension of the typical token spectrum at ``T' = 1`` (see above); default ``None``: the limit.
    n_tokens : int
        Tokens drawn in all for the bulk (default ``16000`` up to ``T' = 10``, ``6144`` up to ``T' = 31``
        and ``4096`` from ``T' = 32`` on, where the bulk is smoother; at least two blocks).
    block : int, optional
        Tokens per dense draw, even; default ``500`` up to ``T' = 10`` (``T'`` nonzero weights), ``512``
        up to ``T' = 31``, ``2048`` from ``T' = 32`` on (a draw's bias is ``O(T' / block)``).
    n_atoms : int
        Atoms of the grouped bulk (default ``100``).
    outlier_block : int, optional
        Tokens per sparse draw for the outlier; default ``max(4096, 128 T')`` (a draw's bias is
        ``O(T' / V)``: at ``T' = 64``, Markov ``rho = -0.4`` and optimal weights, where the outlier of
        ``dM`` barely leaves its bulk, 4096 tokens instead of 8192 moved the alignment by 0.007).
    outlier_draws : int
        Sparse draws for the outlier (default ``8``).
    seed : int
        Seed of the draws (default ``0``).
    max_width : float
        Largest ``|Im H / Re H|`` at the root for which a signal eigenvalue is predicted (default
        ``0.05``; see :meth:`outlier`).
    max_count : float
        Largest expected number of bulk eigenvalues above the root at dimension ``d`` for which the
        top eigenvalue is predicted to carry the signal alone (default ``0.1``).

    Attributes
    ----------
    delta, gamma, kappa, alpha, sigma_w : float
    w, R : ndarray
    d : int or None
    n_nonzero : int
        ``T'``.
    perron : tuple of float or None
        ``(tau, w_1)`` of the uncentered ``m`` (``None`` at ``T' = 1``).
    s_outlier : tuple of float or None
        ``(t_*, w_*)``, the outlier of ``m`` along ``s`` (``None`` without one).
    outlier_bias : tuple of float or None
        ``(t_*, w_*)`` from the full-size draws minus the same from half-size draws: the order of
        the bias of the finite draws.
    s_mean_error : float
        Relative error of the mean of the computed ``nu_s`` against its exact value ``alpha delta``.
    beta_onset : float
        Smallest ``beta`` (with ``b = beta + delta``) for which the equation has a solution.
    """

    def __init__(
        self,
        delta: float,
        gamma: float,
        w: ArrayLike,
        R: ArrayLike,
        *,
        d: int | None = None,
        n_tokens: int | None = None,
        block: int | None = None,
        n_atoms: int = 100,
        outlier_block: int | None = None,
        outlier_draws: int = 8,
        seed: int = 0,
        max_width: float = 0.05,
        max_count: float = 0.1,
    ) -> None:
        delta, gamma, w, R, options = _checked_arguments(
            delta,
            gamma,
            w,
            R,
            dict(
                d=d,
                n_tokens=n_tokens,
                block=block,
                n_atoms=n_atoms,
                outlier_block=outlier_block,
                outlier_draws=outlier_draws,
                seed=seed,
                max_width=max_width,
                max_count=max_count,
            ),
        )
        self._build(delta, gamma, w, R, **options)

    @classmethod
    def _of_checked(cls, delta: float, gamma: float, w: np.ndarray, R: np.ndarray, options: dict) -> FixedTSpike:
        """The model of arguments checked at the door (:func:`fixed_T_spike_model`; ``options`` from
        :func:`_checked_options`): built without checking them again."""
        self = cls.__new__(cls)
        self._build(delta, gamma, w, R, **options)
        return self

    def _build(
        self,
        delta: float,
        gamma: float,
        w: np.ndarray,
        R: np.ndarray,
        *,
        d: int | None,
        n_tokens: int,
        block: int,
        n_atoms: int,
        outlier_block: int,
        outlier_draws: int,
        seed: int,
        max_width: float,
        max_count: float,
    ) -> None:
        """Draw the token spectra and set up the equation, from checked arguments."""
        self.delta = delta
        self.gamma = gamma
        self.w = w
        self.R = R
        self.kappa, self.alpha, self.sigma_w = _kappa(self.w), _alpha(self.w, self.R), _sigma_w(self.w)
        self.n_nonzero = Tp = int(np.count_nonzero(self.w))
        self.d, self.max_width, self.max_count = d, max_width, max_count
        c = 1.0 / self.delta
        ratio = self.delta / self.gamma
        self.s_outlier = self.outlier_bias = None
        if Tp == 1:  # exact, without draws
            main = coarse = (
                *_poisson_atoms(ratio, self.gamma, self.kappa, self.delta, self.d),
                np.zeros(0),
                np.zeros(0),
            )
            half = None
            self.perron = None
            self._samples = None
        else:
            h0 = 1.0 - _token_rank_fraction(Tp, Tp * ratio)
            samples = token_samples(
                n_tokens, block, ratio, self.w, self.R, self.gamma, seed, outlier_block, outlier_draws
            )
            self._samples = (samples.t, (1.0 - h0) / samples.t.size)  # sampled bulk of nu_M, mass of one point
            self.perron = samples.perron
            if samples.outlier is not None:  # an outlier of m along s: an atom of its own
                (t_out, w_out), (t_half, w_half) = samples.outlier, samples.half_outlier
                self.s_outlier = samples.outlier
                self.outlier_bias = (t_out - t_half, w_out - w_half)
            main, coarse, half = _atom_sets(
                samples.t,
                samples.r,
                n_atoms,
                h0,
                self.kappa,
                self.alpha,
                self.delta,
                samples.s_mass,
                samples.outlier,
                samples.half_outlier,
            )
        self._t, self._p, self._r, to, ro = main
        self._c = c
        self.s_mean_error = float((self._t @ self._r + to @ ro) / (self.alpha * self.delta) - 1.0)
        edge = _bulk_edges(self.delta, self.gamma, self.kappa)[1]
        lo, mid = 0.5 * self.kappa, 3.0 * edge
        # the equation; the same with half as many atoms (the discretization error) and with the outlier
        # atom of the half-size sparse draws (the draw error)
        self._m, self._mc, self._mo = (
            None if atoms is None else _Measures(*atoms, c, lo, mid) for atoms in (main, coarse, half)
        )
        self._U, self._x, self._H, self._branch = self._m.U, self._m.x, self._m.Hg, self._m.branch
        hmax = float(self._H.real[self._branch])
        self.beta_onset = self.delta / hmax if hmax > 0 else math.inf

    def __repr__(self) -> str:
        return f"FixedTSpike(delta={self.delta!r}, gamma={self.gamma!r}, w={self.w.tolist()!r}, R={self.R.tolist()!r})"

    # -- the functions of the equation --------------------------------------------------
    def _H_of(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(H, H', G)`` at ``x + i0`` (``eta = 1e-9 U``)."""
        return self._m.H_of(x)

    def H(self, x: ArrayLike) -> np.ndarray:
        """``H(x) = G(x) Gamma_s(G(x))`` at ``x + i0`` (complex; vectorized over real ``x > 0``)."""
        xx = _checks.real_array("x", x, allow_inf=False)
        if np.any(xx <= 0):
            raise ValueError("x must be > 0")
        return self._m.H_of(xx.ravel())[0].reshape(xx.shape)

    def _outliers(self, b: np.ndarray) -> tuple[np.ndarray, ...]:
        """Vectorized :meth:`outlier`: ``(x, eta, width, location_error, overlap_error,
        outlier_location_error, outlier_overlap_error)`` arrays (``nan`` location without one)."""
        b = np.asarray(b, dtype=float)
        x, eta, width = self._m.solve(b, self.delta)
        xc, etac, _ = self._mc.solve(b, self.delta)
        xo, etao = self._mo.solve(b, self.delta)[:2] if self._mo is not None else (None, None)
        keep = ~np.isnan(x) & (width <= self.max_width)  # inside the bulk: no eigenvalue of its own
        bad = keep & ((eta < -1e-6) | (eta > 1.0 + 1e-6))
        if bad.any():
            import warnings

            warnings.warn(
                f"fixed-T squared cosine {eta[bad].tolist()} outside [0, 1]: the evaluation of "
                "the equation is wrong here (discretization of nu_M and nu_s)",
                RuntimeWarning,
                stacklevel=3,
            )
        with np.errstate(invalid="ignore"):
            loc_err = np.where(keep, np.abs(xc - x) / x, np.nan)
            ov_err = np.where(keep, np.abs(etac - eta), np.nan)
            if xo is None:
                out_loc = out_ov = np.where(keep, 0.0, np.nan)
            else:
                out_loc = np.where(keep, np.abs(xo - x) / x, np.nan)
                out_ov = np.where(keep, np.abs(etao - eta), np.nan)
        x = np.where(keep, x, np.nan)
        eta = np.where(keep, eta, 0.0)
        return x, eta, width, loc_err, ov_err, out_loc, out_ov

    def outlier(self, spike_norm2: float) -> tuple[float | None, float, float]:
        """``(x, eta, width)`` for a signal spike ``b = ||mu + Delta||^2``: the location, the squared
        cosine with ``u_tilde`` and ``|Im H / Re H|`` at ``x``; ``(None, 0, 0)`` without a solution and
        ``(None, 0, width)`` when the solution lies where the bulk has a density (``width`` above
        :attr:`max_width`): the signal then spreads over the bulk eigenvectors near ``x`` and no
        eigenvalue carries it alone."""
        b = _checks.nonnegative("spike_norm2", spike_norm2)
        x, eta, width = (float(v[0]) for v in self._outliers(np.array([b]))[:3])
        return (None if math.isnan(x) else x), eta, width

    def width(self, beta: float) -> float:
        """``|Im H / Re H|`` at the predicted signal eigenvalue for ``b = beta + delta`` (``0``
        without one): how much the signal eigenvector mixes with the bulk there."""
        beta = _checks.nonnegative("beta", beta)
        return self.outlier(beta + self.delta)[2]

    def curve(self, beta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Signal eigenvalue and squared cosine with ``u = mu / ||mu||`` for each ``beta``
        (``b = beta + delta``; ``nan`` location and ``0`` alignment where there is no solution)."""
        bb = _checks.real_array("beta", beta, allow_inf=False)
        if np.any(bb < 0):
            raise ValueError("beta must be >= 0")
        loc, eta = self._outliers(bb.ravel() + self.delta)[:2]
        ov = eta * bb.ravel() / (bb.ravel() + self.delta)
        return loc.reshape(bb.shape), ov.reshape(bb.shape)

    # -- validity at dimension d -----------------------------------------------------------
    def _psi(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``psi(a) = a + c int t a / (a - t) dnu_M(t)`` and ``psi'(a)`` for ``a`` above the atoms of ``nu_M``."""
        t, p, c = self._t, self._p, self._c
        q = t / (a[:, None] - t)
        return a * (1.0 + c * (q @ p)), 1.0 - c * ((q * q) @ p)

    def bulk_above(self, x: ArrayLike, d: int) -> tuple[np.ndarray, np.ndarray]:
        """Expected number of bulk eigenvalues of ``S`` above ``x`` at dimension ``d``, and its resolution.

        Two parts.  (1) The limit law: ``d nu_T((x, inf))`` (:meth:`tail_mass`), which holds the main
        bulk.  (2) The token-norm fluctuations of a finite ``d``, which the limit law does not have: a
        large eigenvalue ``a`` of ``m = d M`` (a token, or a few, drawn much more than the others)
        above ``a_c`` (where ``psi'(a_c) = 0``) creates an eigenvalue of ``S`` near
        ``psi(a) = a + c int t a / (a - t) dnu_M(t)`` (the population-spike map of a sample covariance
        with population ``m`` and ``d`` samples), with the Gaussian fluctuation of a spiked sample
        covariance, variance ``2 a^2 psi'(a) / d`` (Bai and Yao 2008, real case; the token norms
        ``||z_v||^2 / d`` fluctuate by ``sqrt(2/d)``).  A table has ``V = d / delta`` eigenvalues
        drawn from ``nu_M``, so this part is

            ``V int_{a > a_c} P(psi(a) + a sqrt(2 psi'(a) / d) xi > x) dnu_M(a)``,  ``xi ~ N(0, 1)``,

        over the sampled eigenvalues of ``nu_M`` (each of mass ``(1 - h0) / n``).  It fattens the far
        tail by orders of magnitude (at ``T = 2``, ``rho = 0.6``, ``w = (0.75, 0.25)``,
        ``delta = 0.5``, ``gamma = 1``: ``0.28`` eigenvalues above ``3.725`` at ``d = 500`` where the
        limit law has ``4e-7``).  The resolution is what one more sampled eigenvalue, at the largest
        one drawn, would add: a count below it is not resolved.  At ``T' = 1`` there is no
        sampled tail (``nu_M`` is exact, the bumps of the limit law hold the tail; resolution ``0``).

        Parameters
        ----------
        x : array_like
            Points ``> 0``.
        d : int
            Dimension ``>= 2``.

        Returns
        -------
        (ndarray, ndarray)
            The expected counts and their resolutions (shape of ``x``).
        """
        from scipy.special import ndtr

        xx = _checks.real_array("x", x, allow_inf=False)
        if np.any(xx <= 0):
            raise ValueError("x must be > 0")
        d = _checks.integer("d", d, minimum=2)
        flat = xx.ravel()
        count = d * self.tail_mass(flat)
        res = np.zeros(flat.shape)
        if self._samples is not None:
            V = d / self.delta
            a, m1 = self._samples
            top = float(self._t.max())
            f = lambda y: float(self._psi(np.array([y]))[1][0])  # noqa: E731
            hi = 2.0 * top + 1e-12
            while f(hi) <= 0:
                hi *= 2.0
            a_c = brentq(f, top * (1.0 + 1e-12), hi, xtol=1e-12 * hi)
            ak = a[a > a_c]
            if ak.size:
                loc, slope = self._psi(ak)
                sd = np.maximum(ak * np.sqrt(2.0 * np.maximum(slope, 0.0) / d), 1e-300)
                pr = ndtr(-(flat[:, None] - loc[None, :]) / sd[None, :])
                count = count + V * m1 * pr.sum(axis=1)
                res = V * m1 * pr[:, -1]  # samples are sorted: the last is the largest
        return np.maximum(count, 0.0).reshape(xx.shape), res.reshape(xx.shape)

    def tail_mass(self, x: ArrayLike) -> np.ndarray:
        """Mass of the computed limit law ``nu_T`` above ``x``: ``1/2 - (1/pi) int_0^inf Re G(x + i s) ds``
        (the vertical-line formula of :meth:`mass_above`, with ``G`` in place of ``F``)."""
        xx = _checks.real_array("x", x, allow_inf=False)
        if np.any(xx <= 0):
            raise ValueError("x must be > 0")
        return np.array([self._line_mass(float(y), None) for y in xx.ravel()]).reshape(xx.shape)

    def _line_mass(self, y: float, spike: tuple[float, float] | None) -> float:
        """``mu((y, inf)) = 1/2 - (1/pi) int_0^inf Re F(y + i s) ds`` for ``F = G`` (``spike`` None) or the
        transform of :meth:`mass_above` (``spike = (b, f)``); ``s = y tan(pi u^2 / 2)``, Gauss-Legendre
        in ``u`` (clustered towards ``s = 0``, where ``F`` varies on the distance to the nearest atom)."""
        nodes, wts = np.polynomial.legendre.leggauss(400)
        u = 0.5 * (nodes + 1.0)
        phi = 0.5 * np.pi * u * u
        dphi = 0.5 * np.pi * u * wts
        s = y * np.tan(phi)
        ds = y / np.cos(phi) ** 2 * dphi
        Hs, _, G = self._m.H_of(np.full(s.size, y), eta=s)
        if spike is None:
            F = G
        else:
            b, frac = spike
            F = frac * G * (1.0 + Hs) / (1.0 - (b - self.delta) * Hs / self.delta) + (1.0 - frac) * G
        return float(0.5 - (F.real @ ds) / np.pi)

    def mass_above(
        self, beta: float, threshold: float, *, spike_norm2: float | None = None, delta_norm2: float | None = None
    ) -> float:
        """Spectral mass of ``S`` in the direction ``u = mu / ||mu||`` above ``threshold``.

        ``mu_u((y, inf))`` for the law ``mu_u`` of ``conj-fixed-T-spike``, whose Stieltjes transform is
        ``F = f G (1 + H) / (1 - (b - delta) H / delta) + (1 - f) G`` (``b = ||mu + Delta||^2``,
        ``f = cos^2(u_tilde, u)``; ``G / (1 - beta H / delta)`` at ``b = beta + delta``): the squared
        cosine with ``u`` carried by all eigenvalues above ``y`` together.  It needs no single
        eigenvalue to carry the signal, so it holds where the top eigenvector shares it with bulk
        eigenvectors nearby.  Computed on the vertical line through ``y``, where every function is
        smooth: for a probability measure ``mu``,
        ``mu((y, inf)) = 1/2 - (1/pi) int_0^inf Re F(y + i s) ds`` (``Re F(y + i s) ~ y / (y^2 + s^2)``).
        """
        beta = _checks.nonnegative("beta", beta)
        y = _checks.positive("threshold", threshold)
        b, frac, _ = _realized(beta, self.delta, True, delta_norm2, spike_norm2, None)
        return self._line_mass(y, (b, frac))

    # -- the vocabulary-mean outlier and the Prediction --------------------------------------
    def mean_outlier(self) -> tuple[float | None, float]:
        """Vocabulary-mean outlier of the uncentered ``S`` and the squared cosine of its
        eigenvector with ``zbar``: ``(None, 0)`` without one (at ``T' = 1``, or when ``tau`` is
        not above the computed ``nu_M`` or ``G = 1/tau`` is not on the physical branch)."""
        if self.perron is None:
            return None, 0.0
        tau, w1 = self.perron
        t, p, c = self._t, self._p, self._c
        if tau <= t.max():
            return None, 0.0
        G1 = 1.0 / tau
        q = t / (1.0 - G1 * t)
        slope = 1.0 - c * G1**2 * float((q * q) @ p)  # -G^2 dz/dG
        if slope <= 0:
            return None, 0.0
        ov = w1 * slope
        if not -1e-6 <= ov <= 1.0 + 1e-6:
            import warnings

            warnings.warn(f"fixed-T mean-outlier squared cosine {ov} outside [0, 1]", RuntimeWarning, stacklevel=2)
        return float(tau + c * float(q @ p)), float(ov)

    def predict(
        self,
        beta: float,
        *,
        centered: bool = True,
        spike_norm2: float | None = None,
        delta_norm2: float | None = None,
        d: int | None = None,
        threshold: float | None = None,
    ) -> FixedTPrediction:
        """The fixed-``T`` prediction as a :class:`FixedTPrediction` (see :func:`fixed_T_predict`)."""
        beta = _checks.nonnegative("beta", beta)
        centered = _checks.flag("centered", centered)
        if d is not None:
            d = _checks.integer("d", d, minimum=2)
        if threshold is not None:
            threshold = _checks.positive("threshold", threshold)
        pop = predict(
            self.delta,
            self.gamma,
            self.w,
            self.R,
            beta,
            centered=True,
            spike_norm2=spike_norm2,
            delta_norm2=delta_norm2,
        )
        b, frac, _ = _realized(beta, self.delta, True, delta_norm2, spike_norm2, None)
        xs, etas, widths, lerr, oerr, olerr, ooerr = (float(v[0]) for v in self._outliers(np.array([b])))
        x = None if math.isnan(xs) else xs
        m_out, m_ov = (None, 0.0) if centered else self.mean_outlier()
        count = res = single = mass = None
        if d is not None and x is not None:
            cnt, rs = self.bulk_above(x, d)
            count, res = float(cnt), float(rs)
            single = bool(count + res <= self.max_count)
            if threshold is None:
                threshold = x * (1.0 - math.sqrt(2.0 / d))
        elif d is not None:
            single = False
        if threshold is not None and beta > 0:
            mass = self.mass_above(beta, threshold, spike_norm2=spike_norm2, delta_norm2=delta_norm2)
        return FixedTPrediction(
            delta=self.delta,
            gamma=self.gamma,
            beta=beta,
            centered=bool(centered),
            finite_table=True,
            kappa=self.kappa,
            alpha=self.alpha,
            sigma_w=self.sigma_w,
            theta=self.alpha * b,
            snr=self.alpha * b / self.kappa,
            bulk_edge=math.inf,
            population_outlier=pop.population_outlier,
            population_overlap=pop.population_overlap,
            sample_outlier=x,
            sample_overlap=etas,
            overlap=etas * frac,
            mean_outlier=m_out,
            mean_overlap=m_ov,
            width=widths,
            location_error=lerr,
            overlap_error=oerr * frac,
            outlier_location_error=olerr,
            outlier_overlap_error=ooerr * frac,
            d=d,
            bulk_above=count,
            count_resolution=res,
            single_eigenvalue=single,
            threshold=threshold,
            mass_above=mass,
        )


_SPIKE_CACHE: dict = {}


def fixed_T_predict(
    delta: float,
    gamma: float,
    w: ArrayLike,
    R: ArrayLike,
    beta: float,
    *,
    centered: bool = True,
    spike_norm2: float | None = None,
    delta_norm2: float | None = None,
    threshold: float | None = None,
    **options,
) -> FixedTPrediction:
    """The signal eigenvalue of ``S`` at fixed ``T`` (:class:`FixedTSpike`, cached by its arguments).

    The fixed-``T`` counterpart of :func:`predict` (``finite_table=True``), derived in this book
    under named assumptions and not proved (chapter 3, conjecture ``conj-fixed-T-spike``; checked
    against simulations there): ``sample_outlier`` solves
    ``G(x) Gamma_s(G(x)) = delta / (||mu + Delta||^2 - delta)`` and ``overlap`` is the squared cosine of
    its eigenvector with ``mu / ||mu||``.  One call takes a few seconds at ``T <= 64`` (building the
    model); further calls with the same ``delta, gamma, w, R`` reuse it (milliseconds).

    Parameters
    ----------
    delta, gamma : float
        ``d/V > 0`` and ``d/N > 0``.
    w : array_like, shape (T,)
        Pooling weights (not all zero).
    R : array_like, shape (T, T)
        Positional sign correlation.
    beta : float
        Signal strength ``||mu||^2 >= 0``.
    centered : bool
        Centered ``S`` (default) or the paper's uncentered ``S`` (adds ``mean_outlier``).
    spike_norm2, delta_norm2 : float, optional
        Realized ``||mu + Delta||^2`` and ``||Delta||^2`` of a table, as in :func:`predict`.
    threshold : float, optional
        Threshold of ``mass_above`` (default with ``d``: one token-norm standard deviation below the root).
    **options
        ``d`` (the dimension of the validity check, and of the typical token spectrum when
        ``T' = 1``), and ``n_tokens``, ``block``, ``n_atoms``, ``outlier_block``, ``outlier_draws``,
        ``seed``, ``max_width``, ``max_count`` of :class:`FixedTSpike`.

    Returns
    -------
    FixedTPrediction
        ``sample_outlier`` (``None`` without a solution) and ``overlap`` as in :func:`predict`;
        ``sample_overlap`` is the squared cosine with ``u_tilde = (mu + Delta)/||mu + Delta||``
        (one stage: there is no separate sample transition here); ``population_outlier`` and
        ``population_overlap`` are those of the population stage (``N -> infinity``), which do not
        depend on ``T`` beyond ``kappa`` and ``alpha``; ``bulk_edge`` is ``inf`` (the fixed-``T``
        bulk has no right edge); ``mean_outlier`` and ``mean_overlap`` (uncentered) from the
        Perron eigenvalue of ``d M``; the discretization errors and the draw errors of the outlier
        of ``d M`` (numerical errors only: where ``d M`` has an outlier along ``s`` the error of
        ``overlap`` can be larger, see :class:`FixedTPrediction`); with ``d``, the validity check
        (``bulk_above``, ``single_eigenvalue``) and ``mass_above``.
    """
    d = options.get("d")
    return fixed_T_spike_model(delta, gamma, w, R, **options).predict(
        beta, centered=centered, spike_norm2=spike_norm2, delta_norm2=delta_norm2, d=d, threshold=threshold
    )


def fixed_T_spike_model(delta: float, gamma: float, w: ArrayLike, R: ArrayLike, **options) -> FixedTSpike:
    """The cached :class:`FixedTSpike` of these arguments (built once, a few seconds at ``T' <= 64``;
    with ``SEQRMT_CACHE_DIR`` set, stored on disk for other processes, see ``seqrmt/_cache.py``)."""
    delta, gamma, w, R, checked = _checked_arguments(delta, gamma, w, R, options)
    if checked["d"] is not None and np.count_nonzero(w) > 1:
        options, checked = dict(options, d=None), dict(checked, d=None)  # d only changes the model at T' = 1
    key = (delta, gamma, _cache.array_key(w), _cache.array_key(R), _cache.options_key(options))
    if key not in _SPIKE_CACHE:
        _SPIKE_CACHE[key] = _cache.cached(
            "fixed_T_spike", key, lambda: FixedTSpike._of_checked(delta, gamma, w, R, checked)
        )
    return _SPIKE_CACHE[key]


def load_fixed_T_spike_correlated() -> tuple[list[dict], dict]:
    """Simulations of the signal eigenvalue at fixed ``T`` with correlated positions
    (``seqrmt/data/fixed_T_spike_correlated.csv``, written by
    ``python benchmarks/fixed_T_spike_correlated.py``; its header holds the seeds and the command).

    Rows ``kind = "spike"``: Markov ``rho = 0.8`` at ``T = 2, 4, 8, 16`` and the prefix model with
    ``L = T/4`` at ``T = 32, 64``, ``d = 800``, with the mean and standard error over the tables of the
    top eigenvalue (``lambda_sim``, ``lambda_sem``) and of its squared cosine with ``mu / ||mu||``
    (``overlap_sim``, ``overlap_sem``).  Rows ``kind = "validity"``: the point ``T = 2``, ``rho = 0.6``,
    ``w = (0.75, 0.25)``, ``delta = 0.5``, ``gamma = 1`` at ``d = 500`` and ``1000``, with also the number of
    eigenvalues above ``x`` in tables at ``beta = 0`` (``count_beta0``, ``count_sem``) and the squared
    cosine carried by the eigenvalues above ``threshold`` (``mass_sim``, ``mass_sem``).

    Returns
    -------
    (list of dict, dict)
        The rows and the header.
    """
    return _load("fixed_T_spike_correlated.csv")


def fixed_T_setting(row: dict) -> tuple[np.ndarray, np.ndarray]:
    """The weights and sign correlation ``(w, R)`` of a row of :func:`load_fixed_T_spike_correlated`.

    ``R``: :func:`seqrmt.markov_correlation` (``R = "markov"``, ``rho = R_par``) or
    :func:`seqrmt.prefix_correlation` (``R = "prefix"``, ``L = R_par``) at the row's ``T``;
    ``w``: the weights named by the row (:func:`seqrmt.named_weights`), or, for a row of
    kind ``"validity"``, the weights written out in it.
    """
    if not isinstance(row, dict) or not {"T", "R", "R_par", "weights"} <= row.keys():
        raise ValueError("row must be a row of load_fixed_T_spike_correlated() (a dict with T, R, R_par and weights)")
    T = _checks.integer("T", row["T"], minimum=1)
    if row["R"] == "markov":
        R = markov_correlation(T, row["R_par"])
    elif row["R"] == "prefix":
        R = prefix_correlation(T, int(row["R_par"]))
    else:
        raise ValueError(f"row['R'] must be 'markov' or 'prefix', got {row['R']!r}")
    if row.get("kind") == "validity":
        return np.array([float(v) for v in str(row["weights"]).split()]), R
    return named_weights(row["weights"], R), R
