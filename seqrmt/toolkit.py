"""Classical random-matrix results the book builds on (the Toolkit chapter).

The Marchenko-Pastur law itself (density, edges, Stieltjes transform) lives in
:mod:`seqrmt.spectrum` (:func:`~seqrmt.mp_density`, :func:`~seqrmt.mp_edges`,
:func:`~seqrmt.mp_stieltjes`; as a distribution object, ``MP_gamma`` is
``BulkLaw(0, gamma)``).  This module adds what the Toolkit chapter needs on top:

* reading a density from a Stieltjes transform, ``f(x) = -Im G(x + i eps) / pi`` as
  ``eps -> 0`` (:func:`stieltjes_inversion`), and the empirical transform of a spectrum
  (:func:`empirical_stieltjes`);
* the R- and S-transforms of ``scale * MP_ratio`` (:func:`mp_r_transform`,
  :func:`mp_s_transform`);
* the classic BBP transition of the white spiked covariance ``Sigma_theta = I + theta u u^T``
  sampled with ``N = d / gamma`` vectors (:func:`bbp_threshold`, :func:`bbp_outlier`,
  :func:`bbp_overlap`).  It is the sample stage of ``seqrmt.spikes`` with a population
  bulk at the single point ``1`` (``delta = 0``): the formulas are evaluated by the same
  code, the Baik-Silverstein map ``varphi(l) = l (1 + gamma (l G(l) - 1))`` at
  ``l = 1 + theta``, ``G(l) = 1 / (l - 1)``;
* two samplers used to check these laws: :func:`spiked_covariance_sample` and
  :func:`wishart_product_eigenvalues`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from .spectrum import mp_edges
from ._numerics import _phi_parts, blas_threads

__all__ = [
    "stieltjes_inversion",
    "empirical_stieltjes",
    "mp_r_transform",
    "mp_s_transform",
    "semicircle_density",
    "bbp_threshold",
    "bbp_outlier",
    "bbp_overlap",
    "spiked_covariance_sample",
    "wishart_product_eigenvalues",
]


# ---------------------------------------------------------------------------
# Stieltjes transform
# ---------------------------------------------------------------------------


def stieltjes_inversion(stieltjes: Callable[[np.ndarray], np.ndarray], x: ArrayLike, eps: float) -> np.ndarray:
    """Smoothed density ``-Im G(x + i eps) / pi`` read from a Stieltjes transform.

    With the book's convention ``G(z) = int dnu(t) / (z - t)``, ``-Im G(x + i eps) / pi`` is
    the density of ``nu`` convolved with the Cauchy kernel
    ``eps / (pi ((x - t)^2 + eps^2))``; it tends to the density ``f(x)`` at every point
    where ``nu`` has a continuous density, as ``eps -> 0`` (Stieltjes-Perron inversion;
    classical, see e.g. Bai and Silverstein 2010, Appendix B).

    Parameters
    ----------
    stieltjes : callable
        ``G(z)`` for complex arrays ``z`` in the upper half plane (e.g.
        ``lambda z: sr.mp_stieltjes(z, 0.5)``).
    x : array_like
        Real points.
    eps : float
        Distance ``> 0`` from the real axis.
    """
    if not callable(stieltjes):
        raise TypeError(f"stieltjes must be callable (z -> G(z)), got {type(stieltjes).__name__}")
    xx = _checks.real_array("x", x, allow_inf=False)
    eps = _checks.positive("eps", eps)
    G = np.asarray(stieltjes(xx + 1j * eps), dtype=complex)
    if G.shape != xx.shape:
        raise ValueError(f"stieltjes must return an array of the shape of x {xx.shape}, got {G.shape}")
    if not np.all(np.isfinite(G)):
        raise ValueError("stieltjes returned non-finite values")
    return -G.imag / np.pi


def empirical_stieltjes(z: ArrayLike, eigenvalues: ArrayLike) -> np.ndarray:
    """Stieltjes transform of the empirical spectral law: ``G_d(z) = (1/d) sum_i 1 / (z - lambda_i)``.

    Equals ``(1/d) tr (z I - M)^{-1}`` for a symmetric matrix ``M`` with these
    eigenvalues; ``z`` must be off the real axis or away from every eigenvalue.
    """
    zz = _checks.complex_array("z", z)
    lam = _checks.real_array("eigenvalues", eigenvalues, allow_inf=False).ravel()
    if lam.size == 0:
        raise ValueError("eigenvalues must be non-empty")
    diff = zz[..., None] - lam
    if np.any(diff == 0):
        raise ValueError("z must not be an eigenvalue")
    return np.mean(1.0 / diff, axis=-1)


# ---------------------------------------------------------------------------
# R- and S-transforms of Marchenko-Pastur
# ---------------------------------------------------------------------------


def mp_r_transform(g: ArrayLike, ratio: float, scale: float = 1.0) -> np.ndarray:
    """R-transform of ``scale * MP_ratio``: ``R(g) = scale / (1 - ratio scale g)``.

    Defined by ``G^{-1}(g) = R(g) + 1/g`` (``G`` the Stieltjes transform); additive under
    free additive convolution (Voiculescu).  Classical: the free Poisson law
    (Mingo and Speicher 2017).  ``g`` must avoid the pole ``1 / (ratio scale)``.
    """
    c = _checks.positive("ratio", ratio)
    s = _checks.positive("scale", scale)
    gg = _checks.complex_array("g", g)
    den = 1.0 - c * s * gg
    if np.any(den == 0):
        raise ValueError(f"g must differ from the pole 1/(ratio*scale) = {1.0 / (c * s)}")
    out = s / den
    return out.real if np.all(gg.imag == 0) else out


def mp_s_transform(y: ArrayLike, ratio: float, scale: float = 1.0) -> np.ndarray:
    """S-transform of ``scale * MP_ratio``: ``S(y) = 1 / (scale (1 + ratio y))``.

    Defined by ``S(y) = (1 + y) chi(y) / y`` with ``chi`` the inverse of the moment
    generating function ``psi(z) = int z t / (1 - z t) dnu(t)``; multiplicative under free
    multiplicative convolution (Voiculescu).  Classical (Mingo and Speicher 2017); the
    book's bulk law of Theorem 1 has ``S(y) = 1 / (kappa (1 + delta y)(1 + gamma y))``,
    the product of two of these.  ``y`` must avoid the pole ``-1/ratio``.
    """
    c = _checks.positive("ratio", ratio)
    s = _checks.positive("scale", scale)
    yy = _checks.complex_array("y", y)
    den = s * (1.0 + c * yy)
    if np.any(den == 0):
        raise ValueError(f"y must differ from the pole -1/ratio = {-1.0 / c}")
    out = 1.0 / den
    return out.real if np.all(yy.imag == 0) else out


def semicircle_density(x: ArrayLike, variance: float = 1.0) -> np.ndarray:
    """Density of the semicircle law of variance ``v``: ``sqrt(4 v - x^2) / (2 pi v)`` on ``|x| <= 2 sqrt(v)``.

    Its R-transform is ``R(g) = v g``; it is the free central limit, e.g. of
    ``(MP_gamma - 1) / sqrt(gamma)`` as ``gamma -> 0`` (Wigner; Voiculescu).
    """
    v = _checks.positive("variance", variance)
    xx = _checks.real_array("x", x)
    return np.sqrt(np.clip(4.0 * v - xx**2, 0.0, None)) / (2.0 * np.pi * v)


# ---------------------------------------------------------------------------
# The classic BBP transition (white spiked covariance)
# ---------------------------------------------------------------------------


def bbp_threshold(gamma: float) -> float:
    """Critical spike strength of the white spiked covariance: ``theta_c = sqrt(gamma)``.

    For ``Sigma_theta = I + theta u u^T`` and ``N = d / gamma`` samples, the top sample eigenvalue
    separates from the Marchenko-Pastur bulk iff ``theta > sqrt(gamma)`` (Baik, Ben Arous
    and Peche 2005; Baik and Silverstein 2006).  It is the root of
    ``varphi'(1 + theta) = 1 - gamma / theta^2`` (the map of ``seqrmt.spikes`` with
    ``delta = 0``).
    """
    gamma = _checks.positive("gamma", gamma)
    return float(np.sqrt(gamma))


def _bbp_parts(theta: ArrayLike, gamma: float):
    th = _checks.real_array("theta", theta, allow_inf=False)
    if np.any(th < 0):
        raise ValueError("theta must be >= 0")
    gamma = _checks.positive("gamma", gamma)
    above = th > np.sqrt(gamma)
    safe = np.where(above, th, 1.0 + np.sqrt(gamma))  # dummy value below the threshold
    lam, _, phi, dphi, _ = _phi_parts(safe, 0.0, gamma, 1.0)
    return th, gamma, above, lam, phi, dphi


def bbp_outlier(theta: ArrayLike, gamma: float) -> np.ndarray:
    """Limit of the top sample eigenvalue for ``Sigma_theta = I + theta u u^T``, ``d/N -> gamma``.

    ``varphi(1 + theta) = (1 + theta)(1 + gamma / theta)`` when ``theta > sqrt(gamma)``,
    otherwise the bulk edge ``(1 + sqrt(gamma))^2`` (Baik, Ben Arous and Peche 2005; Baik
    and Silverstein 2006).  Evaluated with the Baik-Silverstein map of
    ``seqrmt.spikes`` at ``delta = 0`` (population bulk at the point ``1``).

    Parameters
    ----------
    theta : array_like
        Spike strength(s) ``>= 0``.
    gamma : float
        ``d / N > 0``.
    """
    th, gamma, above, lam, phi, dphi = _bbp_parts(theta, gamma)
    return np.where(above, phi, mp_edges(gamma)[1])


def bbp_overlap(theta: ArrayLike, gamma: float) -> np.ndarray:
    """Limit of ``(u_hat^T u)^2`` for the top sample eigenvector ``u_hat`` of the white spiked model.

    ``l varphi'(l) / varphi(l) = (1 - gamma / theta^2) / (1 + gamma / theta)`` at
    ``l = 1 + theta`` when ``theta > sqrt(gamma)``, otherwise ``0`` (Paul 2007; Benaych-Georges
    and Nadakuditi 2011).  Evaluated with the map of ``seqrmt.spikes`` at ``delta = 0``.

    Parameters
    ----------
    theta : array_like
        Spike strength(s) ``>= 0``.
    gamma : float
        ``d / N > 0``.
    """
    th, gamma, above, lam, phi, dphi = _bbp_parts(theta, gamma)
    return np.where(above, lam * dphi / phi, 0.0)


# ---------------------------------------------------------------------------
# Samplers
# ---------------------------------------------------------------------------


def spiked_covariance_sample(
    d: int, gamma: float, theta: float, *, seed: int | np.random.Generator | None = 0
) -> tuple[np.ndarray, float]:
    """Eigenvalues of a sample covariance of the white spiked model, and the top overlap.

    Draws ``N = round(d / gamma)`` samples, the columns of ``Sigma_theta^{1/2} Y`` with
    ``Sigma_theta = I_d + theta e_1 e_1^T`` and ``Y`` standard Gaussian (by rotation invariance
    the spike direction can be the first basis vector), and returns the eigenvalues of their
    sample covariance ``Sigma_theta^{1/2} (Y Y^T / N) Sigma_theta^{1/2}`` in decreasing order and
    ``(u_hat^T e_1)^2`` for the top eigenvector ``u_hat``.

    Parameters
    ----------
    d : int
        Dimension ``>= 2``.
    gamma : float
        ``d / N > 0``.
    theta : float
        Spike strength ``>= 0``.
    seed : int, Generator or None
        Random seed.
    """
    d = _checks.integer("d", d, minimum=2)
    gamma = _checks.positive("gamma", gamma)
    theta = _checks.nonnegative("theta", theta)
    rng = _checks.seed(seed)
    N = max(1, int(round(d / gamma)))
    X = rng.standard_normal((d, N))
    X[0] *= np.sqrt(1.0 + theta)
    with blas_threads(1):  # small matrices: one BLAS thread is fastest on a shared machine
        lam, vec = np.linalg.eigh(X @ X.T / N)
    return lam[::-1].copy(), float(vec[0, -1] ** 2)


def wishart_product_eigenvalues(
    d: int, delta: float, gamma: float, *, seed: int | np.random.Generator | None = 0
) -> np.ndarray:
    """Eigenvalues of the product ``S_Z S_Y`` of two independent white Wishart matrices.

    ``S_Z = Z Z^T / V`` and ``S_Y = Y Y^T / N`` with ``Z`` (``d x V``) and ``Y`` (``d x N``)
    independent standard Gaussian, ``V = round(d / delta)``, ``N = round(d / gamma)``.  Their
    spectra tend to ``MP_delta`` and ``MP_gamma``, and the spectrum of the product to
    ``MP_delta boxtimes MP_gamma`` (:class:`seqrmt.BulkLaw` with ``kappa = 1``, Theorem 1).
    The non-zero eigenvalues are the squared singular values of ``Z^T Y / sqrt(V N)``;
    the remaining ones are exact zeros.  Returned in increasing order, ``d`` values.
    """
    d = _checks.integer("d", d, minimum=2)
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    rng = _checks.seed(seed)
    V = max(1, int(round(d / delta)))
    N = max(1, int(round(d / gamma)))
    Z = rng.standard_normal((d, V))
    Y = rng.standard_normal((d, N))
    with blas_threads(1):
        sv = np.linalg.svd(Z.T @ Y / np.sqrt(V * N), compute_uv=False)
    lam = np.zeros(d)
    k = min(d, sv.size)
    lam[:k] = np.sort(sv)[::-1][:k] ** 2
    return np.sort(lam)
