"""Private numerics shared by several modules of :mod:`seqrmt`, each written once here.

* token indices and the sparse weighted token-count matrix of pooling (``_tokens``, ``_token_matrix``);
* the eigenvalues and top eigenvectors of a symmetric matrix at the cost of one eigenvalue-only
  decomposition (``_eigh_top``), and the spectral measures of a few vectors without the eigenvectors
  (``_spectral_weights``);
* the population and sample outlier maps of a spike (``_phi_parts``) and the realized table norms
  that a prediction takes in place of their limits (``_realized``);
* a discrete spectrum compressed into atoms and Silverstein's equation for the Stieltjes transform of a
  sample covariance with such a population spectrum (``_compress``, ``_silverstein_solve``);
* the limit on BLAS threads of the simulations (:class:`blas_threads`, public as
  ``seqrmt.validation.blas_threads``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg
from scipy.linalg import lapack

from . import _checks

__all__ = ["blas_threads"]


def _tokens(tokens: ArrayLike, V: int) -> np.ndarray:
    """An (N, T) integer array of token indices in ``[0, V)``."""
    arr = np.asarray(tokens)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"tokens must be an (N, T) array of integer token indices, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"tokens must be an (N, T) integer array, got shape {arr.shape}")
    if arr.min(initial=0) < 0 or arr.max(initial=0) >= V:
        raise ValueError(f"tokens entries must lie in [0, V = {V})")
    return arr


def _token_matrix(tokens: np.ndarray, w: np.ndarray, V: int):
    """Sparse ``N x V`` matrix ``A[n, v] = sum_t w_t 1{v(n,t) = v}`` (repeated tokens summed).

    Pooling is ``C^T = A E^T``; ``A`` is the weighted token-count matrix whose
    randomness gives the ``MP_gamma`` factor of Theorem 1. Inputs are not validated
    (see :func:`pool`).
    """
    from scipy import sparse

    N, T = tokens.shape
    return sparse.csr_matrix((np.tile(w, N), (np.repeat(np.arange(N), T), tokens.ravel())), shape=(N, V))


def _eigh_top(S: np.ndarray, k: int, *, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """All eigenvalues of the symmetric ``S`` (decreasing) and its top ``k`` eigenvectors.

    One Householder tridiagonalization (LAPACK ``dsytrd``), all eigenvalues of the
    tridiagonal matrix (``sterf``), the top ``k`` of its eigenvectors by bisection and
    inverse iteration (``stebz``/``stein``), mapped back by the Householder reflectors
    (``dormqr``): the cost of one eigenvalue-only decomposition.  Only the lower
    triangle of ``S`` is read.  With ``overwrite=True`` the reflectors are stored in
    ``S`` itself (no d x d copy; ``S`` is destroyed), provided ``S`` is Fortran-ordered,
    or C-ordered with a full symmetric content.
    """
    n = S.shape[0]
    if n < 3:
        lam, vecs = linalg.eigh(S)
        return lam[::-1].copy(), vecs[:, ::-1][:, :k]
    A = S
    if overwrite and not S.flags.f_contiguous and S.flags.c_contiguous:
        A = S.T  # the same symmetric matrix, in Fortran order: LAPACK works in place
    lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
    c, diag, off, tau, info = lapack.dsytrd(A, lower=1, lwork=lwork, overwrite_a=overwrite)
    if info != 0:
        raise np.linalg.LinAlgError(f"dsytrd failed (info = {info})")
    lam = linalg.eigh_tridiagonal(diag, off, eigvals_only=True, lapack_driver="sterf")
    _, Z = linalg.eigh_tridiagonal(diag, off, select="i", select_range=(n - k, n - 1), lapack_driver="stebz")
    # Q = H(1) ... H(n-1), reflectors stored below the subdiagonal as in a QR of c[1:, :n-1]
    Z = np.asfortranarray(Z)
    QZ, _, info = lapack.dormqr("L", "N", c[1:, : n - 1], tau[: n - 1], Z[1:], max(1, 64 * k))
    if info != 0:
        raise np.linalg.LinAlgError(f"dormqr failed (info = {info})")
    Z[1:] = QZ
    return lam[::-1].copy(), Z[:, ::-1]


def _spectral_weights(S: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All eigenvalues ``l_i`` of the symmetric ``S`` (increasing) and the squared projections
    ``(q_i^T y_j)^2`` of the columns of ``Y`` on its eigenvectors, shape ``(n, m)``.

    The spectral measures of a few vectors, without the eigenvectors of ``S``: one Householder
    tridiagonalization ``S = Q T Q^T`` (``dsytrd``), ``Q^T Y`` by the reflectors (``dormqr``) and the
    eigenvectors ``W`` of the tridiagonal ``T`` (``stemr``), so that ``q_i^T y = w_i^T Q^T y``.  The
    same numbers as ``eigh`` (to rounding) at about 0.6 of its cost for ``n = 2048``: the back
    transformation ``Q W``, half of ``eigh``, is never formed.  Only the lower triangle of ``S`` is read.
    Where ``stemr`` does not converge (large clusters, such as many zero eigenvalues) ``eigh`` is used.
    """
    n = S.shape[0]
    Y = np.asarray(Y, dtype=float).reshape(n, -1)

    def full():
        lam, vecs = np.linalg.eigh(S)
        return lam, (vecs.T @ Y) ** 2

    if n < 3:
        return full()
    lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
    c, diag, off, tau, info = lapack.dsytrd(S, lower=1, lwork=lwork)
    if info != 0:
        raise np.linalg.LinAlgError(f"dsytrd failed (info = {info})")
    Z = np.array(Y, order="F")
    QtY, _, info = lapack.dormqr("L", "T", c[1:, : n - 1], tau[: n - 1], Z[1:], max(1, 64 * Z.shape[1]))
    if info != 0:
        raise np.linalg.LinAlgError(f"dormqr failed (info = {info})")
    Z[1:] = QtY
    try:
        lam, W = linalg.eigh_tridiagonal(diag, off, lapack_driver="stemr")
    except np.linalg.LinAlgError:  # stemr fails on some large clusters (many zero eigenvalues)
        return full()
    return lam, (W.T @ Z) ** 2


def _phi_parts(theta, delta, gamma, kappa):
    """lambda_pop, eta_pop, phi(l), phi'(l) where the population outlier exists.

    Written in ``s = theta - delta kappa > 0`` to avoid cancellation:
    ``lambda = theta + kappa theta / s``, ``eta_pop = 1 - delta kappa^2 / s^2``,
    ``l G(l) - 1 = kappa / s`` and
    ``A(l) = int t^2 / (l - t)^2 dH = kappa^2 ((1 + delta) s + 2 delta kappa) / (s (s^2 - delta kappa^2))``.
    """
    s = theta - delta * kappa
    with np.errstate(over="ignore"):
        lam = theta + kappa * theta / s
        eta_pop = 1.0 - delta * kappa**2 / s**2
        A = kappa**2 * ((1.0 + delta) * s + 2.0 * delta * kappa) / (s * (s**2 - delta * kappa**2))
    phi = lam * (1.0 + gamma * kappa / s)
    dphi = 1.0 - gamma * A
    return lam, eta_pop, phi, dphi, A


def _realized(
    beta: float, delta: float, finite_table: bool, delta_norm2, spike_norm2, zbar_norm2
) -> tuple[float, float, float]:
    """``(||mu + Delta||^2, cos^2(u_tilde, u), ||zbar||^2)`` used by :func:`predict`."""
    given = {
        k: v
        for k, v in (("delta_norm2", delta_norm2), ("spike_norm2", spike_norm2), ("zbar_norm2", zbar_norm2))
        if v is not None
    }
    if not finite_table and given:
        raise ValueError(
            f"realized table norms ({', '.join(given)}) need finite_table=True "
            "(the idealized statement has Delta = zbar = 0)"
        )
    n2 = None if delta_norm2 is None else _checks.nonnegative("delta_norm2", delta_norm2)
    z2 = delta if zbar_norm2 is None else _checks.nonnegative("zbar_norm2", zbar_norm2)
    if spike_norm2 is None:
        s2 = beta + (delta if n2 is None else n2)
        x = 0.0  # mu^T Delta at its mean
    else:
        s2 = _checks.nonnegative("spike_norm2", spike_norm2)
        if n2 is None:
            # least-squares estimate of mu^T Delta from ||mu + Delta||^2: the excess over
            # beta + delta is shared between 2 mu^T Delta and ||Delta||^2 - delta in
            # proportion to their variances 4 beta / V and 2 d / V^2, i.e. 2 beta : delta
            x = beta * (s2 - beta - delta) / (2.0 * beta + delta)
        else:
            x = 0.5 * (s2 - beta - n2)  # exact: ||mu + Delta||^2 = beta + 2 x + ||Delta||^2
            lo, hi = (np.sqrt(beta) - np.sqrt(n2)) ** 2, (np.sqrt(beta) + np.sqrt(n2)) ** 2
            slack = 1e-9 * (beta + n2 + s2)
            if not lo - slack <= s2 <= hi + slack:
                raise ValueError(
                    f"spike_norm2 = {s2} is not a possible ||mu + Delta||^2 for beta = {beta} and "
                    f"delta_norm2 = {n2}: by Cauchy-Schwarz it must lie in [{lo:.6g}, {hi:.6g}]"
                )
    if beta > 0 and s2 > 0:
        frac = min(1.0, max(0.0, (beta + x) ** 2 / (beta * s2)))
    else:
        frac = 0.0
    return s2, frac, z2


def _compress(t: np.ndarray, K: int, top: int = 0, weights: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Atoms of the sorted sample ``t``: the ``top`` largest values kept one by one, the others
    averaged in ``K`` consecutive groups of (nearly) equal size.  Returns ``(values, counts)``,
    ``counts`` the number of sample points behind each atom (the mean of ``t`` is kept); with
    ``weights`` (one per point of ``t``), also their sum over each group."""
    if t.size <= K + top:
        out = (t, np.ones(t.size))
        return out if weights is None else out + (np.asarray(weights, dtype=float),)
    n_low = t.size - top
    idx = np.linspace(0, n_low, K + 1).round().astype(int)
    sums = np.add.reduceat(t[:n_low], idx[:-1])
    counts = np.diff(idx).astype(float)
    out = (np.concatenate([sums / counts, t[n_low:]]), np.concatenate([counts, np.ones(top)]))
    if weights is None:
        return out
    weights = np.asarray(weights, dtype=float)
    return out + (np.concatenate([np.add.reduceat(weights[:n_low], idx[:-1]), weights[n_low:]]),)


_ETA_RATIO = 4.0  # continuation: eta divided by this at each level


def _silverstein_solve(
    x: ArrayLike, eta_end: ArrayLike, t: np.ndarray, p: np.ndarray, c: float, U: float
) -> np.ndarray:
    """``G(x + i eta_end)`` solving Silverstein's equation ``z = 1/G + c sum_j p_j t_j/(1 - t_j G)``.

    The Stieltjes transform of the spectrum of a sample covariance of dimension ``V`` from
    ``d`` Gaussian samples, ``c = V/d``, whose population spectrum has atoms ``t_j`` of mass
    ``p_j`` (:class:`FixedTBulkLaw`).  Newton's method in ``G``, vectorized over ``x``, with
    continuation from above the real axis: ``eta`` decreases geometrically (factor
    ``_ETA_RATIO``) from ``10 U`` (where ``G ~ 1/z``; ``U`` bounds the support) to ``eta_end``,
    a damped step never leaving ``Im G < 0`` (the physical root).
    """
    x = np.asarray(x, dtype=float)
    eta_end = np.broadcast_to(np.asarray(eta_end, dtype=float), x.shape)
    eta0 = np.maximum(10.0 * U, eta_end)
    n_lev = int(np.ceil(np.log(np.max(eta0 / eta_end, initial=1.0)) / np.log(_ETA_RATIO))) + 1
    G = 1.0 / (x + 1j * eta0)
    for j in range(n_lev + 1):
        eta = np.maximum(eta0 / _ETA_RATIO**j, eta_end)
        z = x + 1j * eta
        iters = 3 if j < n_lev else 40
        active = np.ones(x.shape, dtype=bool)
        for _ in range(iters):
            if not active.any():
                break
            Ga, za = G[active], z[active]
            q = t / (1.0 - np.multiply.outer(Ga, t))
            F = 1.0 / Ga + c * (q @ p) - za
            dF = -1.0 / Ga**2 + c * ((q * q) @ p)
            with np.errstate(invalid="ignore", over="ignore"):
                step = F / dF
            step = np.where(np.isfinite(step), step, 0.5 * Ga)
            new = Ga - step
            for _h in range(30):  # stay in the lower half plane (physical root)
                bad = ~(new.imag < 0) | ~np.isfinite(new)
                if not bad.any():
                    break
                step = np.where(bad, step / 2, step)
                new = Ga - step
            G[active] = new
            conv = np.abs(step) <= 1e-13 * np.abs(new)
            idx = np.flatnonzero(active)
            active[idx[conv]] = False
    return G


class blas_threads:
    """Context manager limiting the BLAS/LAPACK libraries loaded in this process to ``n``
    threads (no-op when ``n`` is None), through :func:`threadpoolctl.threadpool_limits`
    (OpenBLAS, MKL, BLIS, ... portably).  The simulations here are many small products
    and eigendecompositions, for which one thread is fastest, and much faster than
    threaded BLAS on a busy machine."""

    def __init__(self, n: int | None = 1):
        self.n = None if n is None else _checks.integer("n", n)
        self._limiter = None

    def __enter__(self):
        if self.n is not None:
            from threadpoolctl import threadpool_limits

            self._limiter = threadpool_limits(limits=self.n, user_api="blas")
        return self

    def __exit__(self, *exc):
        if self._limiter is not None:
            self._limiter.restore_original_limits()
            self._limiter = None
        return False
