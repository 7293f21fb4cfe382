"""The equation of the signal eigenvalue at fixed ``T`` (:class:`seqrmt.FixedTSpike`) on the computed token
measures: ``nu_M`` and ``nu_s`` grouped in atoms (:func:`_grouped`, :func:`_atom_sets`, from the sampled
token spectrum of :mod:`seqrmt._fixed_T_draws`), and the functions of the equation on them with its roots
(:class:`_Measures`, Silverstein's equation by :func:`seqrmt._numerics._silverstein_solve`).

Private: its callers pass checked values, and it checks nothing again."""

from __future__ import annotations

import numpy as np

from ._numerics import _compress, _silverstein_solve


def _grouped(
    t: np.ndarray,
    r: np.ndarray,
    K: int,
    h0: float,
    kappa: float,
    alpha: float,
    delta: float,
    s_mass: float | None,
    ro: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sampled bulk of ``nu_M`` (sorted eigenvalues ``t``, their ``s``-weights ``r``) grouped in ``K``
    atoms of equal ``nu_M`` mass: ``(t, p, r)`` with ``nu_M`` of total mass ``1 - h0`` rescaled to its exact
    mean ``kappa delta``, and the bulk part of ``nu_s`` rescaled to its exact mean ``alpha delta``, or,
    with an outlier of ``m`` along ``s`` of masses ``ro``, to the mass ``s_mass`` has off it."""
    t, counts, r = _compress(t, K, 0, weights=r)
    p = (1.0 - h0) * counts / counts.sum()
    t = t * kappa * delta / float(t @ p)  # exact mean of nu_M
    if s_mass is None:
        r = r * alpha * delta / max(float(t @ r), 1e-300)  # exact mean of nu_s
    else:
        r = r * max(s_mass - float(ro.sum()), 0.0) / max(float(r.sum()), 1e-300)
    return t, p, r


def _atom_sets(
    t: np.ndarray,
    r: np.ndarray,
    K: int,
    h0: float,
    kappa: float,
    alpha: float,
    delta: float,
    s_mass: float | None,
    outlier: tuple[float, float] | None,
    half_outlier: tuple[float, float] | None,
) -> tuple[tuple, tuple, tuple | None]:
    """The atoms ``(t, p, r, to, ro)`` of the three equations of a sampled model (:func:`_grouped`, the
    outlier of ``m`` along ``s`` as the atom ``to`` of mass ``ro``): ``K`` atoms; half as many (their
    difference is the discretization error); ``K`` atoms with the outlier atom of the half-size sparse
    draws (the draw error; ``None`` without an outlier)."""
    to, ro = (np.zeros(0), np.zeros(0)) if outlier is None else (np.array([outlier[0]]), np.array([outlier[1]]))
    main = (*_grouped(t, r, K, h0, kappa, alpha, delta, s_mass, ro), to, ro)
    coarse = (*_grouped(t, r, max(10, K // 2), h0, kappa, alpha, delta, s_mass, ro), to, ro)
    if outlier is None:
        return main, coarse, None
    to, ro = np.array([half_outlier[0]]), np.array([half_outlier[1]])
    return main, coarse, (*_grouped(t, r, K, h0, kappa, alpha, delta, s_mass, ro), to, ro)


class _Measures:
    """``nu_M`` (atoms ``t``, masses ``p``), ``nu_s`` (the bulk part on the same atoms, masses ``r``, and
    the outliers of ``m`` along ``s``: atoms ``to`` of masses ``ro`` and no ``nu_M`` mass) and the
    functions of the equation on a grid of ``x`` (one per number of atoms)."""

    def __init__(self, t, p, r, to, ro, c, x_lo, x_mid):
        self.t, self.p, self.r = t, p, r
        self.to, self.ro, self.c = np.asarray(to, dtype=float), np.asarray(ro, dtype=float), c
        self.U = float(max(t.max(), self.to.max(initial=0.0)) * (1.0 + np.sqrt(c)) ** 2)
        x = np.union1d(np.linspace(x_lo, x_mid, 1200), np.geomspace(x_mid, x_mid * 1e5, 400))
        self.poles = []
        for a in self.to:  # G(x0) = 1/a: the pole of H of an outlier above nu_M
            if a > t.max():
                q = t / (1.0 - t / a)
                if -a * a + c * float((q * q) @ p) < 0:  # dz/dG < 0: the physical branch
                    x0 = a + c * float(q @ p)
                    self.poles.append(x0)
                    x = np.union1d(x, x0 * (1.0 + np.geomspace(1e-10, 0.5, 300)))
                    x = x[(x <= x0 * (1 - 1e-3)) | (x > x0)]
        self.x = x
        self.Hg = self.H_of(x)[0]
        self.branch = int(np.argmax(self.Hg.real))  # Re H decreases from there to the end

    def H_of(self, x, eta=None):
        """``(H, H', G)`` at ``x + i eta`` (default ``eta = 1e-9 U``)."""
        x = np.asarray(x, dtype=float)
        t, p, r, c = self.t, self.p, self.r, self.c
        G = _silverstein_solve(x, 1e-9 * self.U if eta is None else eta, t, p, c, self.U)
        q = t / (1.0 - np.multiply.outer(G, t))
        F, Fp = q @ r, (q * q) @ r
        if self.to.size:
            qo = self.to / (1.0 - np.multiply.outer(G, self.to))
            F, Fp = F + qo @ self.ro, Fp + (qo * qo) @ self.ro
        dzdG = -1.0 / G**2 + c * ((q * q) @ p)
        return G * F, (F + G * Fp) / dzdG, G

    def roots(self, levels):
        """Largest ``x`` with ``Re H(x) = level`` on the decreasing top branch (``nan`` where there is
        none), for every level at once: the bracketing grid cell, then safeguarded Newton steps."""
        h, xg, i0 = self.Hg.real, self.x, self.branch
        levels = np.asarray(levels, dtype=float)
        out = np.full(levels.shape, np.nan)
        ok = levels < h[i0]
        if not ok.any():
            return out
        tail = h[i0:]
        above = tail[None, :] > levels[ok][:, None]
        j = i0 + tail.size - 1 - np.argmax(above[:, ::-1], axis=1)
        if np.any(j >= h.size - 1):
            raise ValueError("the signal eigenvalue lies beyond the computed range (beta too large)")
        lo, hi, lev = xg[j], xg[j + 1], levels[ok]
        x = lo + (hi - lo) * (h[j] - lev) / (h[j] - h[j + 1])
        for _ in range(60):
            Hx, Hp, _ = self.H_of(x)
            f = Hx.real - lev
            lo = np.where(f > 0, x, lo)
            hi = np.where(f > 0, hi, x)
            with np.errstate(divide="ignore", invalid="ignore"):
                step = x - f / Hp.real
            inside = np.isfinite(step) & (step > lo) & (step < hi)
            new = np.where(inside, step, 0.5 * (lo + hi))
            done = np.abs(new - x) <= 1e-12 * np.abs(x)
            x = new
            if done.all():
                break
        out[ok] = x
        return out

    def solve(self, b, delta):
        """``(x, eta, width)`` arrays for spike norms ``b`` (``nan`` location without a root)."""
        b = np.asarray(b, dtype=float)
        x = np.full(b.shape, np.nan)
        eta, width = np.zeros(b.shape), np.zeros(b.shape)
        pos = b > delta
        if pos.any():
            x[pos] = self.roots(delta / (b[pos] - delta))
        has = ~np.isnan(x)
        if has.any():
            Hx, Hp, G = self.H_of(x[has])
            width[has] = np.abs(Hx.imag / Hx.real)
            eta[has] = (-G * (1.0 + Hx) ** 2 * delta / (b[has] * Hp)).real
        at = np.abs(b - delta) <= 1e-12 * delta  # b = delta (beta = 0): the root is the pole
        if at.any() and self.poles:
            k = int(np.argmax(self.poles))
            g0 = 1.0 / self.to[k]
            q = self.t / (1.0 - self.t * g0)
            dzdg = -1.0 / g0**2 + self.c * float((q * q) @ self.p)
            # H ~ A / (x - x0) near the pole, A = -w_* G0 / G'(x0): eta -> G0 A delta / b
            x[at] = self.poles[k]
            eta[at] = -self.ro[k] * g0**2 * dzdg * delta / b[at]
            width[at] = 0.0
        return x, eta, width
