"""Outliers of the spectrum: the two BBP transitions (Theorems 2-4) and what a finite
vocabulary table adds.

Conditionally on the table, the population second-moment matrix of ``c_n`` is

``Sigma_pop = kappa W + theta u_tilde u_tilde^T  [+ sigma_w^2 zbar zbar^T  if S is uncentered]``

with ``W ~ MP_delta`` and the spike direction ``u_tilde = (mu + Delta) / ||mu + Delta||``
(tilde u in the book). Its spike
``theta = alpha (beta + delta)`` (exact finite-table strength) or
``theta = alpha beta`` (the idealized statement, ``Delta = 0``) first has to leave the
population bulk ``kappa MP_delta`` (population transition), then survive sampling
with ``N = d / gamma`` sequences (sample transition).

Closed forms used (``G`` is the Stieltjes transform of ``kappa MP_delta``, whose
R-transform is ``kappa / (1 - delta kappa g)``):

* population outlier iff ``theta / kappa > delta + sqrt(delta)``, at
  ``lambda_pop = theta + kappa theta / (theta - delta kappa)`` (the root of
  ``theta G(lambda) = 1``), with squared cosine to ``u_tilde``
  ``eta_pop = 1 / (theta^2 (-G'(lambda_pop))) = 1 - delta kappa^2 / (theta - delta kappa)^2``;
* sample stage (Baik-Silverstein map for population spike ``l = lambda_pop``):
  ``phi(l) = l (1 + gamma (l G(l) - 1))``; outlier iff ``phi'(l) > 0``, at ``phi(l)``,
  with squared cosine to the population spike ``eta_s = l phi'(l) / phi(l)``;
* alignment with ``u = mu / ||mu||``: ``eta_pop eta_s beta / (beta + delta)``
  (finite table) or ``eta_pop eta_s`` (idealized).

For one drawn table the spike strength is ``alpha ||mu + Delta||^2``, not its limit
``alpha (beta + delta)``: ``V ||mu + Delta||^2`` is a non-central chi-square with ``d``
degrees of freedom and non-centrality ``V beta`` (:func:`spike_norm2_variance`), and
:func:`predict` takes the realized norm through ``spike_norm2``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq

from . import _checks
from .attention import alpha as _alpha
from .attention import kappa as _kappa
from .attention import sigma_w as _sigma_w
from ._numerics import _compress  # noqa: F401 (importable from here as before)
from ._numerics import _phi_parts, _realized

__all__ = [
    "SpikeCurve",
    "spike_curve",
    "population_threshold",
    "sample_threshold",
    "Prediction",
    "predict",
    "spike_norm2_variance",
    "critical_beta",
    "critical_gamma",
    "critical_N",
    "critical_delta",
    "spectral_classifier_accuracy",
]


def _array(name: str, value: ArrayLike, *, positive: bool = False) -> np.ndarray:
    arr = _checks.real_array(name, value, allow_inf=False)
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0")
    return arr


@dataclass(frozen=True)
class SpikeCurve:
    """Two-stage spike quantities, arrays broadcast over the inputs of :func:`spike_curve`.

    Where an outlier is absent its location is the corresponding bulk edge (the limit
    of the top eigenvalue) and its squared cosine is 0; ``population_exists`` and
    ``sample_exists`` say which case holds. ``bulk_edge`` is the right edge of the
    sample bulk ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1).
    """

    bulk_edge: np.ndarray
    population_exists: np.ndarray
    population_location: np.ndarray
    population_overlap: np.ndarray
    sample_exists: np.ndarray
    sample_location: np.ndarray
    sample_overlap: np.ndarray

    @property
    def overlap(self) -> np.ndarray:
        """Squared cosine of the sample spike eigenvector with the spike direction ``u_tilde``."""
        return self.population_overlap * self.sample_overlap


def spike_curve(theta: ArrayLike, delta: ArrayLike, gamma: ArrayLike, kappa: ArrayLike = 1.0) -> SpikeCurve:
    """Vectorized two-stage BBP map for a rank-one spike ``theta`` on ``kappa MP_delta``
    sampled with ratio ``gamma`` (Theorems 2-4). See the module docstring for formulas.

    Parameters
    ----------
    theta : array_like
        Spike strength(s) ``>= 0`` (``alpha (beta + delta)`` for the signal).
    delta, gamma : array_like
        Ratios ``d/V > 0`` and ``d/N >= 0``.
    kappa : array_like
        Bulk scale ``||w||^2 > 0``.
    """
    theta = _array("theta", theta)
    delta = _array("delta", delta, positive=True)
    gamma = _array("gamma", gamma)
    kappa = _array("kappa", kappa, positive=True)
    theta, delta, gamma, kappa = np.broadcast_arrays(theta, delta, gamma, kappa)
    pop_edge = kappa * (1 + np.sqrt(delta)) ** 2
    pop = theta > kappa * (delta + np.sqrt(delta))
    th = np.where(pop, theta, kappa * (delta + np.sqrt(delta)) * 2 + 1.0)  # safe dummy
    lam, eta_pop, phi, dphi, _ = _phi_parts(th, delta, gamma, kappa)
    samp = pop & (dphi > 0)
    edge = _sample_edge(delta, gamma, kappa)
    return SpikeCurve(
        bulk_edge=edge,
        population_exists=pop,
        population_location=np.where(pop, lam, pop_edge),
        population_overlap=np.where(pop, eta_pop, 0.0),
        sample_exists=samp,
        sample_location=np.where(samp, phi, edge),
        sample_overlap=np.where(samp, lam * dphi / np.where(samp, phi, 1.0), 0.0),
    )


def population_threshold(delta: float, kappa: float = 1.0) -> float:
    """Critical spike strength for the population outlier: ``kappa (delta + sqrt(delta))`` (Theorem 2)."""
    delta = _checks.positive("delta", delta)
    kappa = _checks.positive("kappa", kappa)
    return kappa * (delta + np.sqrt(delta))


def sample_threshold(delta: float, gamma: float, kappa: float = 1.0) -> float:
    """Critical spike strength for the sample outlier (Theorem 3): the ``theta`` at which
    ``phi'(lambda_pop(theta)) = 0``. Equals :func:`population_threshold` when ``gamma = 0``.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.nonnegative("gamma", gamma)
    kappa = _checks.positive("kappa", kappa)
    # phi' depends on theta / kappa only: solve at kappa = 1, then scale.
    t0 = delta + np.sqrt(delta)

    def f(theta):
        return _phi_parts(theta, delta, gamma, 1.0)[3]

    lo, hi = t0 * (1 + 1e-12), 2 * t0 + 1.0
    if gamma == 0 or f(lo) >= 0:
        return kappa * t0
    while f(hi) <= 0:
        hi *= 2
    return kappa * float(brentq(f, lo, hi, xtol=1e-14 * hi, rtol=1e-13))


def _sample_edge(delta, gamma, kappa):
    """Right edge of the sample bulk, ``phi(l_c)`` with ``phi'(l_c) = 0``.

    Delegates to :func:`seqrmt.bulk_edges` (the free-convolution law of Theorem 1).
    """
    from .spectrum import bulk_edges

    delta, gamma, kappa = np.broadcast_arrays(delta, gamma, kappa)
    out = np.empty(delta.shape)
    cache: dict = {}
    for idx in np.ndindex(delta.shape):
        key = (float(delta[idx]), float(gamma[idx]), float(kappa[idx]))
        if key not in cache:
            cache[key] = bulk_edges(*key)[1]
        out[idx] = cache[key]
    return out


@dataclass(frozen=True)
class Prediction:
    """Theoretical spectrum summary returned by :func:`predict`.

    Attributes
    ----------
    kappa, alpha, sigma_w : float
        ``||w||^2``, ``w^T R w`` and ``sum_t w_t``.
    theta : float
        Signal spike strength: ``alpha (beta + delta)`` (finite table; ``alpha ||mu + Delta||^2``
        with a realized ``spike_norm2``) or ``alpha beta`` (idealized).
    snr : float
        ``theta / kappa``.
    bulk_edge : float
        Right edge of the sample bulk ``kappa (MP_delta boxtimes MP_gamma)``.
    population_outlier, sample_outlier : float or None
        Outlier of ``Sigma_pop`` and of ``S`` for the signal spike; ``None`` when absent.
    population_overlap, sample_overlap : float
        ``eta_pop`` (population spike eigenvector vs ``u_tilde``) and ``eta_s`` (sample vs population).
    overlap : float
        Squared cosine of the signal eigenvector of ``S`` with ``mu / ||mu||``.
    mean_outlier : float or None
        Outlier created by the vocabulary mean in the uncentered ``S`` (finite table
        only), strength ``sigma_w^2 ||zbar||^2``; ``None`` when absent or not applicable.
    mean_overlap : float
        Squared cosine of that eigenvector with ``zbar / ||zbar||``.
    """

    delta: float
    gamma: float
    beta: float
    centered: bool
    finite_table: bool
    kappa: float
    alpha: float
    sigma_w: float
    theta: float
    snr: float
    bulk_edge: float
    population_outlier: float | None
    population_overlap: float
    sample_outlier: float | None
    sample_overlap: float
    overlap: float
    mean_outlier: float | None
    mean_overlap: float

    @property
    def outliers(self) -> list[float]:
        """The predicted outliers of ``S``, in decreasing order."""
        vals = [v for v in (self.sample_outlier, self.mean_outlier) if v is not None]
        return sorted(vals, reverse=True)


def spike_norm2_variance(d: int, V: int, beta: float) -> float:
    """Variance of the squared norm ``||mu + Delta||^2`` of the signal spike of one table.

    Derived in this book (chapter 7, the realized-norm correction).  For the table of
    the model (``z_v ~ N(0, I_d)`` i.i.d., two balanced classes of ``V/2`` tokens),
    ``Delta = (1/V) sum_v s_v z_v ~ N(0, I_d / V)`` exactly, so
    ``||mu + Delta||^2 = beta + 2 mu^T Delta + ||Delta||^2`` with
    ``mu^T Delta ~ N(0, beta / V)``, ``||Delta||^2 ~ chi2_d / V`` (variance ``2 d / V^2``)
    and ``Cov(mu^T Delta, ||Delta||^2) = 0`` (an odd moment of a centered Gaussian):

    ``Var ||mu + Delta||^2 = 2 d / V^2 + 4 beta / V = (2 delta^2 + 4 beta delta) / d``

    with ``delta = d / V``.  Equivalently ``V ||mu + Delta||^2`` is a non-central
    chi-square with ``d`` degrees of freedom and non-centrality ``V beta``; its mean is
    ``beta + delta``.  The cross term ``4 beta / V`` exceeds the chi-square term
    ``2 d / V^2`` exactly when ``2 beta > delta``.  With ``beta = 0`` this is the
    variance ``2 d / V^2`` of ``||Delta||^2`` and of ``||zbar||^2``.

    Parameters
    ----------
    d : int
        Embedding dimension, ``>= 1``.
    V : int
        Vocabulary size, an even integer ``>= 2``.
    beta : float
        Signal strength ``||mu||^2 >= 0``.

    Returns
    -------
    float
        ``2 d / V^2 + 4 beta / V``.
    """
    d = _checks.integer("d", d)
    V = _checks.integer("V", V, minimum=2, even=True)
    beta = _checks.nonnegative("beta", beta)
    return 2.0 * d / V**2 + 4.0 * beta / V


def predict(
    delta: float,
    gamma: float,
    w: ArrayLike,
    R: ArrayLike,
    beta: float,
    *,
    centered: bool = True,
    finite_table: bool = True,
    spike_norm2: float | None = None,
    delta_norm2: float | None = None,
    zbar_norm2: float | None = None,
) -> Prediction:
    """Predict the outliers and eigenvector alignment of ``S`` (Theorems 2-4).

    Parameters
    ----------
    delta, gamma : float
        ``d / V > 0`` and ``d / N >= 0``.
    w : array_like, shape (T,)
        Pooling weights (not all zero).
    R : array_like, shape (T, T)
        Positional sign correlation (symmetric PSD, unit diagonal).
    beta : float
        Signal strength ``||mu||^2 >= 0``.
    centered : bool
        Centered sample covariance (default) or the paper's uncentered ``S``.
    finite_table : bool
        Exact finite-table result (default): spike ``alpha (beta + delta)``, alignment
        shrunk by ``beta / (beta + delta)``, and the vocabulary-mean outlier when
        uncentered. ``False`` gives the idealized statement (``Delta = zbar = 0``).
    spike_norm2 : float, optional
        Realized ``||mu + Delta||^2`` of a given table, in place of its limit
        ``beta + delta``: the spike is ``alpha * spike_norm2``.  This is the whole
        table-to-table fluctuation of the spike, whose variance
        ``2 d / V^2 + 4 beta / V`` (:func:`spike_norm2_variance`) is dominated by the
        cross term ``2 mu^T Delta`` when ``2 beta > delta``.
    delta_norm2 : float, optional
        Realized ``||Delta||^2``.  Alone it sets ``||mu + Delta||^2 = beta + delta_norm2``,
        i.e. it corrects the chi-square part of the fluctuation and leaves the cross term
        ``2 mu^T Delta`` at its mean ``0`` (a partial correction; prefer ``spike_norm2``).
        Together with ``spike_norm2`` it fixes ``mu^T Delta = (spike_norm2 - beta -
        delta_norm2) / 2``, and with it the exact squared cosine
        ``(beta + mu^T Delta)^2 / (beta ||mu + Delta||^2)`` between ``u_tilde`` and
        ``u = mu / ||mu||`` that shrinks the alignment (``beta / (beta + delta)`` in the
        limit).  With ``spike_norm2`` alone, ``mu^T Delta`` in that cosine is replaced
        by its least-squares estimate ``beta (spike_norm2 - beta - delta) / (2 beta + delta)``,
        which removes only a small part of the table-to-table spread of the alignment
        (the norm and the cosine are nearly uncorrelated); pass ``delta_norm2`` as well
        for the exact value.
    zbar_norm2 : float, optional
        Realized ``||zbar||^2`` (strength of the vocabulary-mean spike, uncentered ``S``),
        in place of its limit ``delta``.

    Raises
    ------
    ValueError
        For a parameter out of range; for realized norms with ``finite_table=False``; for a
        ``spike_norm2`` that no table with these ``beta`` and ``delta_norm2`` can have
        (outside ``[(sqrt(beta) - sqrt(delta_norm2))^2, (sqrt(beta) + sqrt(delta_norm2))^2]``).
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.nonnegative("gamma", gamma)
    beta = _checks.nonnegative("beta", beta)
    centered = _checks.flag("centered", centered)
    finite_table = _checks.flag("finite_table", finite_table)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    k, a, s = _kappa(w), _alpha(w, R), _sigma_w(w)
    spike2, frac, mean_norm2 = _realized(beta, delta, finite_table, delta_norm2, spike_norm2, zbar_norm2)
    theta = a * spike2 if finite_table else a * beta
    thetas = [theta]
    with_mean = finite_table and not centered
    if with_mean:
        thetas.append(s**2 * mean_norm2)
    c = spike_curve(np.array(thetas), delta, gamma, k)
    if not finite_table:
        frac = 1.0
    return Prediction(
        delta=delta,
        gamma=gamma,
        beta=beta,
        centered=bool(centered),
        finite_table=bool(finite_table),
        kappa=k,
        alpha=a,
        sigma_w=s,
        theta=theta,
        snr=theta / k,
        bulk_edge=float(c.bulk_edge[0]),
        population_outlier=float(c.population_location[0]) if c.population_exists[0] else None,
        population_overlap=float(c.population_overlap[0]),
        sample_outlier=float(c.sample_location[0]) if c.sample_exists[0] else None,
        sample_overlap=float(c.sample_overlap[0]),
        overlap=float(c.overlap[0] * frac),
        mean_outlier=float(c.sample_location[1]) if with_mean and c.sample_exists[1] else None,
        mean_overlap=float(c.overlap[1]) if with_mean else 0.0,
    )


def _stage(stage: str) -> str:
    if stage not in ("population", "sample"):
        raise ValueError(f"stage must be 'population' or 'sample', got {stage!r}")
    return stage


def critical_beta(
    delta: float, gamma: float, w: ArrayLike, R: ArrayLike, *, stage: str = "sample", finite_table: bool = True
) -> float:
    """Smallest ``beta`` for which the signal outlier exists (Theorems 2-3).

    ``theta_c / alpha - delta`` (finite table) or ``theta_c / alpha`` (idealized), with
    ``theta_c`` from :func:`population_threshold` or :func:`sample_threshold`. With a
    finite table the result is clipped at 0: a value of 0 means the outlier is there
    even at ``beta = 0``, created by the class-mean noise alone.
    """
    stage = _stage(stage)
    delta = _checks.positive("delta", delta)
    gamma = _checks.nonnegative("gamma", gamma)
    finite_table = _checks.flag("finite_table", finite_table)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    k, a = _kappa(w), _alpha(w, R)
    if a <= 0:
        raise ValueError("w must have alpha = w^T R w > 0 for a signal spike to exist")
    tc = population_threshold(delta, k) if stage == "population" else sample_threshold(delta, gamma, k)
    return max(0.0, tc / a - delta) if finite_table else tc / a


def critical_gamma(delta: float, w: ArrayLike, R: ArrayLike, beta: float, *, finite_table: bool = True) -> float:
    """Largest ``gamma = d/N`` at which the sample outlier exists (Theorem 3).

    ``phi'(l) = 1 - gamma A(l)`` is affine in ``gamma``, so ``gamma_c = 1 / A(lambda_pop)``
    with ``A(l) = int t^2 / (l - t)^2 dH(t)``. Returns 0 when there is no population
    outlier (no number of samples helps).
    """
    delta = _checks.positive("delta", delta)
    beta = _checks.nonnegative("beta", beta)
    finite_table = _checks.flag("finite_table", finite_table)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    k, a = _kappa(w), _alpha(w, R)
    theta = a * (beta + delta) if finite_table else a * beta
    if theta <= population_threshold(delta, k):
        return 0.0
    A = _phi_parts(theta, delta, 0.0, k)[4]
    return float(1.0 / A) if A > 0 else float("inf")


def critical_N(d: int, V: int, w: ArrayLike, R: ArrayLike, beta: float, *, finite_table: bool = True) -> float:
    """Smallest number of sequences ``N = d / gamma_c`` giving a sample outlier (Theorem 3).

    Returns ``inf`` when there is no population outlier.
    """
    d = _checks.integer("d", d)
    V = _checks.integer("V", V, minimum=2, even=True)
    g = critical_gamma(d / V, w, R, beta, finite_table=finite_table)
    return float(d / g) if g > 0 else float("inf")


def critical_delta(
    gamma: float,
    w: ArrayLike,
    R: ArrayLike,
    beta: float,
    *,
    stage: str = "sample",
    finite_table: bool = True,
    delta_range: tuple[float, float] = (1e-4, 1e3),
) -> np.ndarray:
    """Values of ``delta = d/V`` where the signal outlier appears or disappears.

    With a finite table the detection margin is not monotone in ``delta`` (the
    class-mean noise grows with ``delta``), so all crossings in ``delta_range`` are
    returned, found on a log grid and refined by bisection.
    """
    stage = _stage(stage)
    gamma = _checks.nonnegative("gamma", gamma)
    beta = _checks.nonnegative("beta", beta)
    finite_table = _checks.flag("finite_table", finite_table)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    lo, hi = (_checks.positive("delta_range", v) for v in delta_range)
    if not lo < hi:
        raise ValueError("delta_range must be (low, high) with 0 < low < high")
    k, a = _kappa(w), _alpha(w, R)

    def margin(dl: float) -> float:
        theta = a * (beta + dl) if finite_table else a * beta
        tc = population_threshold(dl, k) if stage == "population" else sample_threshold(dl, gamma, k)
        return theta - tc

    grid = np.geomspace(lo, hi, 400)
    m = np.array([margin(x) for x in grid])
    roots = [brentq(margin, grid[i], grid[i + 1]) for i in np.nonzero(np.sign(m[:-1]) * np.sign(m[1:]) < 0)[0]]
    return np.array(roots)


def spectral_classifier_accuracy(
    overlap: float, spike_norm2: float, noise_var: float, alpha: float, label_weight: float
) -> float:
    """Accuracy of the spectral classifier ``sign(u_hat^T (c - E c))`` on a fresh sequence.

    Derived in this book (chapter 6, exercise on the spectral classifier), under two
    approximations: ``u_hat`` (the top eigenvector of ``S``, its sign chosen so that
    ``u_hat^T (mu + Delta) >= 0``) is independent of the new sequence, and the
    projected noise is Gaussian. With the decomposition
    ``c = (w^T xi)(mu + Delta) + sigma_w zbar + eps`` and the label ``y = xi_1``, write
    ``w^T xi = w_L y + r`` with ``w_L = sum_t w_t R_t1`` (``sum_{s<=L} w_s`` for the prefix
    model, so that ``w_L^2 = alpha_y``) and ``r`` uncorrelated with ``y`` (independent of it
    for the prefix model), ``Var r = alpha - w_L^2``. With
    ``Pi = u_hat^T (mu + Delta)``, ``Pi^2 = overlap * spike_norm2``, and
    ``noise_var = u_hat^T (kappa W) u_hat``,

    ``P(sign(u_hat^T (c - E c)) = y) = F_N(w_L Pi / sqrt(Pi^2 (alpha - w_L^2) + noise_var))``,

    with ``F_N`` the standard normal distribution function.

    Parameters
    ----------
    overlap : float
        Squared cosine between ``u_hat`` and ``u_tilde = (mu + Delta)/||mu + Delta||``, in
        ``[0, 1]``; its limit is ``population_overlap * sample_overlap`` of :func:`predict`.
    spike_norm2 : float
        ``||mu + Delta||^2 >= 0`` (tends to ``beta + delta``).
    noise_var : float
        ``u_hat^T (kappa W) u_hat > 0``, the variance of the projected token noise given
        the table (``W`` the within-class covariance of the table noise).
    alpha : float
        ``w^T R w > 0``.
    label_weight : float
        ``w_L = sum_t w_t R_t1``, the covariance of ``w^T xi`` with the label; needs
        ``w_L^2 <= alpha``.

    Returns
    -------
    float
        The predicted accuracy, in ``[0, 1]`` (``1/2`` when ``w_L Pi = 0``).
    """
    from scipy.special import ndtr

    overlap = _checks.nonnegative("overlap", overlap)
    if overlap > 1:
        raise ValueError(f"overlap must be in [0, 1], got {overlap}")
    spike_norm2 = _checks.nonnegative("spike_norm2", spike_norm2)
    noise_var = _checks.positive("noise_var", noise_var)
    alpha = _checks.positive("alpha", alpha)
    m = _checks.real("label_weight", label_weight)
    if m * m > alpha * (1 + 1e-12):
        raise ValueError(f"label_weight must satisfy label_weight^2 <= alpha = {alpha}, got {m}")
    a2 = overlap * spike_norm2
    var = a2 * max(alpha - m * m, 0.0) + noise_var
    return float(ndtr(m * np.sqrt(a2) / np.sqrt(var)))
