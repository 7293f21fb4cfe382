"""The bulk of the spectrum: Marchenko-Pastur and ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from ._numerics import _ETA_RATIO, _compress, _silverstein_solve  # noqa: F401 (importable from here as before)

__all__ = ["mp_edges", "mp_density", "mp_stieltjes", "mp_stieltjes_derivative"]


def mp_edges(ratio: float, scale: float = 1.0) -> tuple[float, float]:
    """Edges of the continuous part of ``scale * MP_ratio``.

    ``scale (1 -+ sqrt(ratio))^2`` (Marchenko-Pastur).
    """
    c = _checks.positive("ratio", ratio)
    s = _checks.positive("scale", scale)
    return s * (1 - np.sqrt(c)) ** 2, s * (1 + np.sqrt(c)) ** 2


def _mp_parts(z: np.ndarray, c: float, s: float) -> tuple[np.ndarray, np.ndarray]:
    a, b = (1 - np.sqrt(c)) ** 2, (1 + np.sqrt(c)) ** 2
    u = z / s
    r = np.sqrt(u - a + 0j) * np.sqrt(u - b + 0j)  # branch with r ~ u at infinity
    return u, r


def mp_stieltjes(z: ArrayLike, ratio: float, scale: float = 1.0) -> np.ndarray:
    """Stieltjes transform ``G(z) = int dnu(t) / (z - t)`` of ``scale * MP_ratio``.

    For unit scale, ``G(u) = (u - 1 + c - sqrt((u - a)(u - b))) / (2 c u)`` with
    ``a, b = (1 -+ sqrt(c))^2``; ``G_s(z) = G(z / s) / s``. Valid off the support
    (in particular for real ``z`` above the right edge, as the spike formulas need).
    """
    c = _checks.positive("ratio", ratio)
    s = _checks.positive("scale", scale)
    zz = _checks.complex_array("z", z)
    u, r = _mp_parts(zz, c, s)
    return (u - 1 + c - r) / (2 * c * u) / s


def mp_stieltjes_derivative(z: ArrayLike, ratio: float, scale: float = 1.0) -> np.ndarray:
    """Derivative ``G'(z)`` of :func:`mp_stieltjes` (closed form)."""
    c = _checks.positive("ratio", ratio)
    s = _checks.positive("scale", scale)
    zz = _checks.complex_array("z", z)
    u, r = _mp_parts(zz, c, s)
    dr = (u - 1 - c) / r
    dG = ((1 - dr) * u - (u - 1 + c - r)) / (2 * c * u**2)
    return dG / s**2


def mp_density(x: ArrayLike, ratio: float, scale: float = 1.0) -> np.ndarray:
    """Continuous density of ``scale * MP_ratio``: ``sqrt((b - u)(u - a)) / (2 pi c u) / s``."""
    c = _checks.positive("ratio", ratio)
    s = _checks.positive("scale", scale)
    u = _checks.real_array("x", x) / s
    a, b = (1 - np.sqrt(c)) ** 2, (1 + np.sqrt(c)) ** 2
    inside = (u > a) & (u < b)
    out = np.zeros_like(u)
    ui = u[inside]
    out[inside] = np.sqrt((b - ui) * (ui - a)) / (2 * np.pi * c * ui) / s
    return out


# ---------------------------------------------------------------------------
# Theorem 1: the bulk kappa (MP_delta boxtimes MP_gamma)
# ---------------------------------------------------------------------------
#
# Unit-scale law nu = MP_delta boxtimes MP_gamma, S-transform
# S(y) = 1 / ((1 + delta y)(1 + gamma y)).  With psi(z) = int z t / (1 - z t) dnu
# and chi = psi^{-1}, S(y) = chi(y)(1 + y)/y gives chi(y) = y / ((1+y)(1+delta y)(1+gamma y)).
# At z = 1/x, psi = x G(x) - 1, hence the inverse map
#     x / kappa = f(psi) = (1 + psi)(1 + delta psi)(1 + gamma psi) / psi.
# We work with u = 1/psi, which turns f(psi) = s (s = x / kappa) into the MONIC cubic
#     p_s(u) = u^3 + (1 + delta + gamma - s) u^2 + (delta + gamma + delta gamma) u + delta gamma
#            = (u + 1)(u + delta)(u + gamma) - s u^2,
# well conditioned when delta gamma -> 0 (one root tends to 0, i.e. psi -> infinity,
# and is never the physical one).  The critical points f'(psi) = 0, i.e.
# 2 delta gamma psi^3 + (delta + gamma + delta gamma) psi^2 - 1 = 0, become the
# depressed cubic u^3 - b u - 2 delta gamma = 0 (b = delta + gamma + delta gamma), which has
# three real roots (b^3 >= 27 (delta gamma)^2 by AM-GM) given by the trigonometric formula.

__all__ += [
    "bulk_density",
    "bulk_edges",
    "bulk_atom",
    "bulk_stieltjes",
    "bulk_moment",
    "SpectralLaw",
    "BulkLaw",
    "bulk_inverse_map",
    "bulk_critical_points",
]


def _bulk_params(delta: float, gamma: float, kappa: float = 1.0) -> tuple[float, float, float]:
    return (_checks.nonnegative("delta", delta), _checks.nonnegative("gamma", gamma), _checks.positive("kappa", kappa))


def _critical_u(delta: float, gamma: float) -> tuple[float, float]:
    """``(u_right, u_left)``: roots of ``u^3 - b u - 2 delta gamma`` giving the two edges.

    ``u_right > 0`` is ``1/psi_+`` (right edge), ``u_left < 0`` the most negative root,
    ``1/psi_-`` with ``psi_-`` the larger negative critical point (left edge).
    """
    a = delta * gamma
    b = delta + gamma + a
    r = 2.0 * np.sqrt(b / 3.0)
    c = np.clip(3.0 * a / b * np.sqrt(3.0 / b), -1.0, 1.0)
    th = np.arccos(c) / 3.0
    return float(r * np.cos(th)), float(r * np.cos(th - 4.0 * np.pi / 3.0))


def _f_of_u(u: float, delta: float, gamma: float) -> float:
    """Inverse map in the variable ``u = 1/psi``: ``(u + 1)(u + delta)(u + gamma) / u^2``."""
    return (u + 1.0) * (u + delta) * (u + gamma) / u**2


def bulk_inverse_map(psi: ArrayLike, delta: float, gamma: float, kappa: float = 1.0) -> np.ndarray:
    """Inverse map of Theorem 1: ``x(psi) = kappa (1 + psi)(1 + delta psi)(1 + gamma psi) / psi``.

    ``psi = x G(x) - 1`` with ``G`` the Stieltjes transform of ``kappa (MP_delta boxtimes
    MP_gamma)``; for real ``x`` outside the support, ``psi`` is the real branch of the
    inverse of this map. ``psi`` must be non-zero.
    """
    delta, gamma, kappa = _bulk_params(delta, gamma, kappa)
    p = _checks.real_array("psi", psi, allow_inf=False)
    if np.any(p == 0):
        raise ValueError("psi must be finite and non-zero")
    return kappa * _f_of_u(1.0 / p, delta, gamma)


def bulk_critical_points(delta: float, gamma: float) -> tuple[float, float]:
    """Real critical points ``(psi_right > 0, psi_left < 0)`` of :func:`bulk_inverse_map`.

    They solve ``2 delta gamma psi^3 + (delta + gamma + delta gamma) psi^2 - 1 = 0``; the
    map's values there are the right edge and (the larger negative root) the left edge of
    the support (Theorem 1). Requires ``delta, gamma > 0``.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    u_r, u_l = _critical_u(delta, gamma)
    return 1.0 / u_r, 1.0 / u_l


def _hard_edge_order(delta: float, gamma: float) -> int:
    """How many of ``{1, delta, gamma}`` attain their maximum (2 or 3 means a hard edge at 0)."""
    m = max(1.0, delta, gamma)
    return int((1.0 == m) + (delta == m) + (gamma == m))


def _unit_edges(delta: float, gamma: float) -> tuple[float, float]:
    if delta == 0.0 and gamma == 0.0:
        return 1.0, 1.0
    u_r, u_l = _critical_u(delta, gamma)
    right = _f_of_u(u_r, delta, gamma)
    left = 0.0 if _hard_edge_order(delta, gamma) >= 2 else max(0.0, _f_of_u(u_l, delta, gamma))
    return left, right


def _depressed(s, delta: float, gamma: float):
    """Centre ``m``, shifts ``(1, delta, gamma) - m`` and depressed ``P, Q`` of ``p_s`` (``t = u + m - s/3``).

    ``p_s = v^3 - s v^2 + (sig2 + 2 s m) v + (sig3 - s m^2)`` with ``v = u + m = t + s/3``,
    built from the factored form so that clustered roots keep full accuracy.
    """
    m = (1.0 + delta + gamma) / 3.0
    a1, a2, a3 = 1.0 - m, delta - m, gamma - m
    sig2 = a1 * a2 + a1 * a3 + a2 * a3
    sig3 = a1 * a2 * a3
    P = sig2 + 2.0 * s * m - s * s / 3.0
    Q = -2.0 * s**3 / 27.0 + s * (sig2 + 2.0 * s * m) / 3.0 + sig3 - s * m * m
    return m, (a1, a2, a3), P, Q


def _cubic_roots(s: np.ndarray, delta: float, gamma: float) -> tuple[np.ndarray, ...]:
    """All three roots ``u`` of ``p_s`` for every ``s``, with ``u + 1, u + delta, u + gamma``.

    Each returned array has shape ``s.shape + (3,)``.  Closed form, no Python loop over
    ``s``: Cardano with complex arithmetic (larger-modulus cube root) in the variable
    ``t = u + (1 + delta + gamma - s)/3``.  The depressed coefficients are built from the
    factored form ``(u + 1)(u + delta)(u + gamma) - s u^2`` around ``m = (1 + delta + gamma)/3``
    (``alpha = (1, delta, gamma) - m``), not from the expanded coefficients, so that the
    clustered roots near ``u = -1 = -delta = -gamma`` at small ``s`` (the hard edges) keep full
    relative accuracy.  Three Newton steps on the factored form polish every root.
    """
    s = np.asarray(s, dtype=complex)[..., None]
    m, (a1, a2, a3), P, Q = _depressed(s, delta, gamma)
    disc = np.sqrt((Q / 2.0) ** 2 + (P / 3.0) ** 3)
    w1, w2 = -Q / 2.0 + disc, -Q / 2.0 - disc
    w = np.where(np.abs(w1) >= np.abs(w2), w1, w2)
    C = w ** (1.0 / 3.0) * np.exp(2j * np.pi / 3.0) ** np.arange(3)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(C == 0, 0.0, C - P / (3.0 * C))
    v0 = s / 3.0
    for _ in range(3):
        v = t + v0
        e1, ed, eg, u = v + a1, v + a2, v + a3, v - m
        pu = e1 * ed * eg - s * u * u
        dp = ed * eg + e1 * eg + e1 * ed - 2.0 * s * u
        with np.errstate(divide="ignore", invalid="ignore"):
            step = pu / dp
        ok = np.isfinite(step) & (np.abs(step) < 0.1 * (1.0 + np.abs(t)))
        t = np.where(ok, t - step, t)
    v = t + v0
    u, e1, ed, eg = v - m, v + a1, v + a2, v + a3
    return _refine_pair(s, delta, gamma, u, e1, ed, eg)


def _refine_pair(
    s: np.ndarray, delta: float, gamma: float, u: np.ndarray, e1: np.ndarray, ed: np.ndarray, eg: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Recompute the two roots near a (near-)double zero of ``(u + 1)(u + delta)(u + gamma)``
    at small ``s`` (a hard edge at ``x = 0``), where Cardano's discriminant cancels.

    Centred at the pair ``c = (r_a + r_b)/2`` (``h = (r_a - r_b)/2``, ``D = r_iso - c``), the
    cubic is ``(e + h)(e - h)(e + D) - s (e - c)^2`` in ``e = u + c``; for ``|e| << |D|`` its
    two small roots are those of the quadratic ``(D - s) e^2 + (2 s c - h^2) e - (h^2 D + s c^2)``,
    which are polished by Newton steps on the cubic.
    """
    r = np.array([1.0, delta, gamma])
    pairs = [(0, 1, 2), (0, 2, 1), (1, 2, 0)]
    ia, ib, ii = min(pairs, key=lambda p: abs(r[p[0]] - r[p[1]]))
    c = (r[ia] + r[ib]) / 2.0
    h = (r[ia] - r[ib]) / 2.0
    D = r[ii] - c
    sc = s[..., 0]
    small = (np.abs(h) < 1e-3 * abs(D)) & (np.abs(sc) * c * c < 1e-8 * D * D)
    if not np.any(small):
        return u, e1, ed, eg
    ss = sc[small]
    A, B, C0 = D - ss, 2.0 * ss * c - h * h, -(h * h * D + ss * c * c)
    sq = np.sqrt(B * B - 4.0 * A * C0 + 0j)
    sq = np.where(np.abs(B + sq) >= np.abs(B - sq), sq, -sq)
    qq = -(B + sq) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.stack([qq / A, np.where(qq != 0, C0 / qq, 0.0)], axis=-1)
    S2 = ss[..., None]
    for _ in range(4):
        f = (e + h) * (e - h) * (e + D) - S2 * (e - c) ** 2
        df = (e - h) * (e + D) + (e + h) * (e + D) + (e + h) * (e - h) - 2.0 * S2 * (e - c)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = f / df
        e = np.where(np.isfinite(step), e - step, e)
    # the isolated root (nearest -r_iso) keeps its Cardano value; the other two are replaced
    us = u[small]
    iso = np.argmin(np.abs(us + r[ii]), axis=-1)
    others = np.array([[1, 2], [0, 2], [0, 1]])[iso]
    shift = np.array([1.0, delta, gamma]) - c  # e + shift_k = u + r_k
    outs = [u.copy(), e1.copy(), ed.copy(), eg.copy()]
    vals = [e - c, e + shift[0], e + shift[1], e + shift[2]]
    for arr, val in zip(outs, vals):
        sub = arr[small]
        np.put_along_axis(sub, others, val, axis=-1)
        arr[small] = sub
    return tuple(outs)


def _physical_root_inside(s: np.ndarray, delta: float, gamma: float) -> tuple[np.ndarray, ...]:
    """The physical root (``Im u > 0``, i.e. ``Im psi < 0``) for real ``s`` inside the support.

    There the cubic has one real root and a complex pair, so Cardano needs only real cube
    roots: ``t = -(C1 + C2)/2 + i sqrt(3)/2 |C1 - C2|`` with ``C1 = cbrt(-Q/2 - sign(Q) sqrt(Delta))``
    and ``C2 = -P/(3 C1)``; two Newton steps on the factored form polish this single root.
    Points where this is unreliable (``Delta <= 0`` by rounding at an edge, or the clustered
    roots near a hard edge) go through :func:`_cubic_roots`.
    """
    s = np.asarray(s, dtype=float)
    m, (a1, a2, a3), P, Q = _depressed(s, delta, gamma)
    disc = (Q / 2.0) ** 2 + (P / 3.0) ** 3
    r = np.array([1.0, delta, gamma])
    gap = min(abs(r[0] - r[1]), abs(r[0] - r[2]), abs(r[1] - r[2]))
    good = disc > 0
    if gap < 1e-3:  # possible hard edge: clustered roots at small s need _refine_pair
        good &= s > 1e-6
    sq = np.sqrt(np.where(good, disc, 0.0))
    C1 = np.cbrt(-Q / 2.0 - np.copysign(sq, Q))
    with np.errstate(divide="ignore", invalid="ignore"):
        C2 = np.where(C1 != 0, -P / (3.0 * C1), 0.0)
    t = -(C1 + C2) / 2.0 + 1j * (np.sqrt(3.0) / 2.0) * np.abs(C1 - C2)
    v = t + s / 3.0
    for _ in range(2):
        e1, ed, eg, u = v + a1, v + a2, v + a3, v - m
        pu = e1 * ed * eg - s * u * u
        dp = ed * eg + e1 * eg + e1 * ed - 2.0 * s * u
        with np.errstate(divide="ignore", invalid="ignore"):
            step = pu / dp
        v = np.where(np.isfinite(step), v - step, v)
    out = [v - m, v + a1, v + a2, v + a3]
    bad = ~good
    if bad.any():
        roots = _cubic_roots(s[bad], delta, gamma)
        sel = _take(roots, np.argmax(roots[0].imag, axis=-1))
        for o, val in zip(out, sel):
            o[bad] = val
    return tuple(out)


def _take(arrays: tuple[np.ndarray, ...], idx: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.take_along_axis(a, idx[..., None], axis=-1)[..., 0] for a in arrays)


def _G_from_roots(
    u: np.ndarray, e1: np.ndarray, ed: np.ndarray, eg: np.ndarray, z: np.ndarray, kappa: float
) -> np.ndarray:
    """``G = (1 + psi)/z = (u + 1)/(u z)``, or the equivalent ``u / (kappa (u + delta)(u + gamma))``
    (from ``p_s(u) = 0``), whichever has the larger denominator factors."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g1 = e1 / (u * z)
        g2 = u / (kappa * ed * eg)
    use1 = np.abs(e1) >= np.minimum(np.abs(ed), np.abs(eg))
    return np.where(use1, g1, g2)


def _select_real_outside(u: np.ndarray, above: np.ndarray) -> np.ndarray:
    """Index of the physical root for real ``x`` outside the support: the root ``psi`` in
    ``(0, psi_+)`` (largest ``u``) above the right edge, in ``(psi_-, 0)`` (most negative
    ``u``) below the left edge.  (Near-)real roots are preferred over a complex pair."""
    pen = 1e6 * np.abs(u.imag)
    score = np.where(above[..., None], u.real - pen, -u.real - pen)
    return np.argmax(score, axis=-1)


def _stieltjes_unit_general(
    z: np.ndarray, delta: float, gamma: float, kappa: float, left: float, right: float
) -> np.ndarray:
    """Stieltjes transform for ``delta, gamma > 0`` (closed-form roots + physical choice)."""
    out = np.empty(z.shape, dtype=complex)
    x, y = z.real, z.imag
    near_real = np.abs(y) <= 1e-9 * (1.0 + np.abs(x))
    inside = near_real & (x > left * kappa) & (x < right * kappa)
    outside = near_real & ~inside
    cplx = ~near_real
    # complex z: solve at the point with Im z > 0, choose Im psi < 0 and Im G < 0,
    # then use G(conj z) = conj G(z)
    if cplx.any():
        zc = x[cplx] + 1j * np.abs(y[cplx])
        roots = _cubic_roots(zc / kappa, delta, gamma)
        u = roots[0]
        G = _G_from_roots(*roots, zc[..., None], kappa)
        # Im psi < 0  <=>  Im u > 0; the physical root has both criteria negative
        score = np.maximum(-u.imag / (np.abs(u) + 1e-300), G.imag / (np.abs(G) + 1e-300))
        g = np.take_along_axis(G, np.argmin(score, axis=-1)[..., None], axis=-1)[..., 0]
        out[cplx] = np.where(y[cplx] > 0, g, np.conj(g))
    if inside.any():
        xi = x[inside]
        out[inside] = _G_from_roots(*_physical_root_inside(xi / kappa, delta, gamma), xi + 0j, kappa)
    if outside.any():
        xo = x[outside]
        roots = _cubic_roots(xo / kappa, delta, gamma)
        sel = _take(roots, _select_real_outside(roots[0], xo > right * kappa))
        g = _G_from_roots(*(r.real + 0j for r in sel), xo + 0j, kappa).real + 0j
        zero = xo == 0
        if zero.any():
            # G(0) = -int dnu / t: finite only without atom and hard edge, where u = -1
            finite = _hard_edge_order(delta, gamma) < 2 and max(delta, gamma) < 1
            g[zero] = (-1.0 / (kappa * (1 - delta) * (1 - gamma))) if finite else np.inf
        out[outside] = g
    return out


def bulk_edges(delta: float, gamma: float, kappa: float = 1.0) -> tuple[float, float]:
    """Edges of the continuous support of ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1).

    The edges are the values of the inverse map
    ``x = kappa (1 + psi)(1 + delta psi)(1 + gamma psi) / psi`` at its real critical points,
    the roots of ``2 delta gamma psi^3 + (delta + gamma + delta gamma) psi^2 - 1 = 0``: the
    positive root gives the right edge, the larger negative root the left edge.  In
    ``u = 1/psi`` this is ``u^3 - (delta + gamma + delta gamma) u - 2 delta gamma = 0``, solved
    in closed (trigonometric) form.

    The left edge is a hard edge at ``0`` exactly when the largest of ``{1, delta, gamma}`` is
    attained at least twice (``delta = 1 >= gamma``, ``gamma = 1 >= delta``, or
    ``delta = gamma >= 1``); the density then diverges like ``x^{-1/2}`` (``x^{-2/3}`` when
    ``delta = gamma = 1``).  Note that ``delta = 1 < gamma`` has a left edge ``> 0``.

    Parameters
    ----------
    delta, gamma : float
        Ratios ``d / V`` and ``d / N`` (``>= 0``).  ``delta = 0`` gives ``kappa MP_gamma``,
        ``gamma = 0`` gives ``kappa MP_delta``, both zero the point mass at ``kappa``
        (edges ``(kappa, kappa)``).
    kappa : float
        Scale ``||w||^2 > 0``.

    Returns
    -------
    (left, right) : tuple of float
    """
    return _bulk_edges(*_bulk_params(delta, gamma, kappa))


def _bulk_edges(delta: float, gamma: float, kappa: float) -> tuple[float, float]:
    """:func:`bulk_edges` of checked arguments (``delta, gamma >= 0``, ``kappa > 0``)."""
    left, right = _unit_edges(delta, gamma)
    return kappa * left, kappa * right


def bulk_atom(delta: float, gamma: float) -> float:
    """Mass of the atom at ``0`` of ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1).

    ``max(0, 1 - 1/delta, 1 - 1/gamma)``: ``S = X A A^T X^T`` has rank ``min(d, V, N)``.
    """
    delta = _checks.nonnegative("delta", delta)
    gamma = _checks.nonnegative("gamma", gamma)
    m = max(1.0, delta, gamma)
    return float(1.0 - 1.0 / m)


def bulk_stieltjes(z: ArrayLike, delta: float, gamma: float, kappa: float = 1.0) -> np.ndarray:
    """Stieltjes transform ``G(z) = int dnu(t) / (z - t)`` of ``kappa (MP_delta boxtimes MP_gamma)``.

    ``G = (1 + psi) / z`` where ``psi`` is the physical root of the cubic (Theorem 1)
    ``delta gamma psi^3 + (delta + gamma + delta gamma) psi^2 + (1 + delta + gamma - z/kappa) psi + 1 = 0``:
    for ``Im z > 0`` the unique root with ``Im psi < 0`` and ``Im G < 0``
    (``G(conj z) = conj G(z)``); for real ``z`` outside the support the real root on the
    branch that tends to ``0`` at infinity (``psi`` in ``(0, psi_+)`` right of the support,
    in ``(psi_-, 0)`` left of it).  For real ``z`` inside the support the boundary value
    ``G(z + i0)`` is returned (``-Im G / pi`` is the density).  At ``z = 0`` the value is
    ``-1 / (kappa (1 - delta)(1 - gamma))`` when ``delta, gamma < 1`` and infinite
    (returned as ``inf``) when ``0`` carries an atom or a hard edge.

    Vectorized over ``z``: the cubic is solved in closed form for all points at once.

    Parameters
    ----------
    z : array_like of complex
        Finite evaluation points.
    delta, gamma : float
        Ratios ``>= 0``.
    kappa : float
        Scale ``> 0``.

    Returns
    -------
    numpy.ndarray of complex, same shape as ``z``.
    """
    delta, gamma, kappa = _bulk_params(delta, gamma, kappa)
    zz = _checks.complex_array("z", z)
    if delta == 0.0 and gamma == 0.0:
        with np.errstate(divide="ignore"):
            return np.where(zz == kappa, np.inf + 0j, 1.0 / np.where(zz == kappa, 1.0, zz - kappa))
    if delta == 0.0 or gamma == 0.0:
        c = max(delta, gamma)
        near = np.abs(zz.imag) <= 1e-9 * (1.0 + np.abs(zz.real))
        zz_up = np.where(near, zz.real + 0j, zz)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = mp_stieltjes(zz_up, c, kappa)
        zero = zz_up == 0
        if zero.any():
            g = np.where(zero, (-1.0 / (kappa * (1.0 - c)) + 0j) if c < 1 else np.inf + 0j, g)
        # boundary value from above on the support
        left, right = _unit_edges(delta, gamma)
        on = near & (zz.real > kappa * left) & (zz.real < kappa * right)
        return np.where(on, g.real - 1j * np.abs(g.imag), g)
    left, right = _unit_edges(delta, gamma)
    return _stieltjes_unit_general(zz, delta, gamma, kappa, left, right)


def bulk_density(x: ArrayLike, delta: float, gamma: float, kappa: float = 1.0) -> np.ndarray:
    """Density of the continuous part of ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1).

    ``rho(x) = -Im G(x + i0) / pi = -Im psi / (pi x)``, where ``psi`` is the root with
    ``Im psi < 0`` of the cubic
    ``delta gamma psi^3 + (delta + gamma + delta gamma) psi^2 + (1 + delta + gamma - x/kappa) psi + 1 = 0``
    (the inverse map ``x = kappa (1 + psi)(1 + delta psi)(1 + gamma psi) / psi``).  The cubic
    is solved in closed form for all points at once (no Python loop).  The value is ``0``
    outside the open interval ``(left, right)`` of :func:`bulk_edges` (so also at a hard
    edge ``x = 0``, where the density diverges); the atom :func:`bulk_atom` is not included.

    Parameters
    ----------
    x : array_like of float
        Evaluation points (any reals, ``+-inf`` allowed; NaN rejected).
    delta, gamma : float
        Ratios ``d/V`` and ``d/N``, ``>= 0`` (zero reduces to Marchenko-Pastur).
    kappa : float
        Scale ``||w||^2 > 0``.

    Returns
    -------
    numpy.ndarray of float, same shape as ``x``.
    """
    delta, gamma, kappa = _bulk_params(delta, gamma, kappa)
    xx = _checks.real_array("x", x)
    if delta == 0.0 and gamma == 0.0:
        return np.zeros_like(xx)
    if delta == 0.0 or gamma == 0.0:
        return mp_density(np.where(np.isfinite(xx), xx, 0.0), max(delta, gamma), kappa)
    left, right = _unit_edges(delta, gamma)
    out = np.zeros_like(xx)
    inside = (xx > kappa * left) & (xx < kappa * right)
    if inside.any():
        g = _stieltjes_unit_general(xx[inside] + 0j, delta, gamma, kappa, left, right)
        out[inside] = np.maximum(-g.imag / np.pi, 0.0)
    return out


def bulk_moment(k: int, delta: float, gamma: float, kappa: float = 1.0) -> float:
    """Exact ``k``-th moment of ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1).

    From ``chi(y) = y / phi(y)``, ``phi(y) = (1 + y)(1 + delta y)(1 + gamma y)`` (the
    S-transform), Lagrange inversion of ``psi(z) = sum_k m_k z^k`` gives
    ``m_k = (1/k) [y^{k-1}] phi(y)^k``, i.e.

        m_k = kappa^k / k * sum_{i + j + l = k - 1} C(k, i) C(k, j) C(k, l) delta^j gamma^l,

    a sum of positive terms (no cancellation).  ``m_0 = 1``, ``m_1 = kappa``,
    ``m_2 = kappa^2 (1 + delta + gamma)``, ``m_3 = kappa^3 (1 + 3 delta + 3 gamma + delta^2
    + gamma^2 + 3 delta gamma)``.
    """
    k = _checks.integer("k", k, minimum=0)
    delta, gamma, kappa = _bulk_params(delta, gamma, kappa)
    if k == 0:
        return 1.0
    from math import comb

    total = 0.0
    for j in range(k):
        for l in range(k - j):
            i = k - 1 - j - l
            total += comb(k, i) * comb(k, j) * comb(k, l) * delta**j * gamma**l
    return float(kappa**k * total / k)


# Gauss-Legendre rule used by the cdf tables
_GL_N = 12
_GL_X, _GL_W = np.polynomial.legendre.leggauss(_GL_N)
_GRADING_LEVELS = 48


class SpectralLaw:
    """Base of the book's spectral laws, in the manner of :class:`scipy.stats.rv_continuous`.

    A law on ``[0, inf)``: an atom of mass :attr:`atom` at ``0`` and a continuous part.  A
    subclass gives the law itself: :meth:`cdf`, :meth:`ppf`, :meth:`pdf`, :meth:`stieltjes`,
    :meth:`moment` and :meth:`support`; what follows from them is written once, here: the
    tail :meth:`tail_mass` (a subclass may compute it more accurately), the expected count
    :meth:`expected_above`, the draws :meth:`rvs`, :meth:`mean` and :meth:`var`.
    Subclasses: :class:`BulkLaw` (Theorem 1, large ``T``) and :class:`FixedTBulkLaw` (fixed ``T``).
    """

    atom: float = 0.0

    def support(self) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def cdf(self, x: ArrayLike) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def ppf(self, q: ArrayLike) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def pdf(self, x: ArrayLike) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def stieltjes(self, z: ArrayLike) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def moment(self, k: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def tail_mass(self, x: ArrayLike) -> np.ndarray:
        """Mass strictly above ``x``, ``1 - cdf(x)`` (vectorized; ``0`` beyond a right edge)."""
        return 1.0 - self.cdf(x)

    def expected_above(self, x: ArrayLike, d: int) -> np.ndarray:
        """Expected number of bulk eigenvalues above ``x`` in a ``d x d`` matrix whose spectrum
        follows this law: ``d * tail_mass(x)`` (vectorized in ``x``; to first order in ``d``).

        The criterion for a predicted outlier at ``x`` to stand clear of the bulk: a value well
        below ``1`` means that at dimension ``d`` the bulk rarely reaches ``x``.  For
        :class:`FixedTBulkLaw` at ``T' >= 2`` a value below ``d * resolution`` is not resolved:
        it only says that fewer than ``d * resolution`` eigenvalues are expected above ``x``.

        Parameters
        ----------
        x : array_like
            Real points (``+-inf`` allowed, NaN rejected).
        d : int
            Dimension ``>= 1``.
        """
        d = _checks.integer("d", d, minimum=1)
        return d * self.tail_mass(x)

    def rvs(self, size: int | tuple[int, ...] = 1, seed: int | np.random.Generator | None = None) -> np.ndarray:
        """Independent draws by inverse-cdf sampling (the atom included)."""
        return self.ppf(_checks.seed(seed).random(size))

    def mean(self) -> float:
        """``moment(1)`` (its exact value is ``kappa`` for both laws of the book)."""
        return self.moment(1)

    def var(self) -> float:
        """``moment(2) - moment(1)^2`` (its exact value is ``kappa^2 (delta + gamma)``)."""
        return self.moment(2) - self.moment(1) ** 2


class BulkLaw(SpectralLaw):
    """The limiting bulk ``kappa (MP_delta boxtimes MP_gamma)`` of Theorem 1 as a distribution.

    A frozen-distribution object in the spirit of :mod:`scipy.stats`: an atom of mass
    :attr:`atom` at ``0`` plus a continuous part with density :meth:`pdf` on
    :meth:`support`.  All formulas live in the module functions (:func:`bulk_density`,
    :func:`bulk_edges`, :func:`bulk_atom`, :func:`bulk_moment`, :func:`bulk_stieltjes`);
    this class adds the distribution function, computed by 12-point Gauss-Legendre
    quadrature on panels in the variable ``theta`` of
    ``x = left + (right - left) ((1 - cos theta)/2)^{3/2}`` and cached on the panel
    boundaries.  The change of variables makes the integrand smooth at the square-root right
    edge and at the ``x^{-2/3}`` hard edge of ``delta = gamma = 1``, and leaves at most a
    ``theta^{1/2}`` behaviour at a soft left edge or an ``x^{-1/2}`` hard edge, which
    geometrically graded panels towards ``theta = 0`` resolve.  ``atom + int pdf = 1`` to
    about ``1e-8`` (worst case ``delta = gamma = 1``), typically ``1e-15``.

    Parameters
    ----------
    delta, gamma : float
        Ratios ``>= 0``.
    kappa : float
        Scale ``> 0``.
    panels : int
        Number of quadrature panels of the cdf table (default 256).
    """

    def __init__(self, delta: float, gamma: float, kappa: float = 1.0, panels: int = 256) -> None:
        self.delta, self.gamma, self.kappa = _bulk_params(delta, gamma, kappa)
        self._panels = _checks.integer("panels", panels, minimum=8)
        self._left, self._right = bulk_edges(self.delta, self.gamma, self.kappa)
        self.atom = bulk_atom(self.delta, self.gamma)
        self._point_mass = self.delta == 0.0 and self.gamma == 0.0
        self._p = 1.5
        self._table: tuple[np.ndarray, np.ndarray] | None = None

    def __repr__(self) -> str:
        return f"BulkLaw(delta={self.delta!r}, gamma={self.gamma!r}, kappa={self.kappa!r})"

    # -- distribution of the continuous part --------------------------------------------
    def support(self) -> tuple[float, float]:
        """``(left, right)`` of the continuous part (:func:`bulk_edges`)."""
        return self._left, self._right

    def pdf(self, x: ArrayLike) -> np.ndarray:
        """Density of the continuous part (:func:`bulk_density`); the atom is not included."""
        return bulk_density(x, self.delta, self.gamma, self.kappa)

    def stieltjes(self, z: ArrayLike) -> np.ndarray:
        """Stieltjes transform (:func:`bulk_stieltjes`)."""
        return bulk_stieltjes(z, self.delta, self.gamma, self.kappa)

    def moment(self, k: int) -> float:
        """Exact ``k``-th moment (:func:`bulk_moment`)."""
        return bulk_moment(k, self.delta, self.gamma, self.kappa)

    # -- quadrature in theta -----------------------------------------------------------
    def _x_of_theta(self, th: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        W = self._right - self._left
        v = (1.0 - np.cos(th)) / 2.0
        x = self._left + W * v**self._p
        dx = W * self._p * v ** (self._p - 1.0) * np.sin(th) / 2.0
        return x, dx

    def _theta_of_x(self, x: np.ndarray) -> np.ndarray:
        W = self._right - self._left
        v = np.clip((x - self._left) / W, 0.0, 1.0) ** (1.0 / self._p)
        return np.arccos(np.clip(1.0 - 2.0 * v, -1.0, 1.0))

    def _integrand(self, th: np.ndarray) -> np.ndarray:
        x, dx = self._x_of_theta(th)
        return self.pdf(x) * dx

    def _panel_integral(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``int_a^b rho(x(theta)) x'(theta) dtheta`` for arrays of short intervals."""
        a = np.asarray(a, dtype=float)[..., None]
        b = np.asarray(b, dtype=float)[..., None]
        th = (a + b) / 2.0 + (b - a) / 2.0 * _GL_X
        return np.sum(self._integrand(th) * _GL_W, axis=-1) * (b - a)[..., 0] / 2.0

    def _cdf_table(self) -> tuple[np.ndarray, np.ndarray]:
        if self._table is None:
            uniform = np.linspace(0.0, np.pi, self._panels + 1)
            # geometric grading towards the left edge: near-hard edges (delta, gamma close
            # to 1) turn from x^{-2/3} or x^{-1/2} into a square root at a tiny left edge
            graded = uniform[1] * 0.5 ** np.arange(_GRADING_LEVELS, 0, -1)
            edges = np.concatenate([[0.0], graded, uniform[1:]])
            cum = np.concatenate([[0.0], np.cumsum(self._panel_integral(edges[:-1], edges[1:]))])
            self._table = (edges, cum)
        return self._table

    def continuous_mass(self) -> float:
        """``int pdf`` computed by the cdf quadrature (equals ``1 - atom`` up to ~1e-12)."""
        if self._point_mass:
            return 0.0
        return float(self._cdf_table()[1][-1])

    def _cont_cdf_theta(self, th: np.ndarray) -> np.ndarray:
        edges, cum = self._cdf_table()
        j = np.clip(np.searchsorted(edges, th, side="right") - 1, 0, edges.size - 2)
        return cum[j] + self._panel_integral(edges[j], th)

    def cdf(self, x: ArrayLike) -> np.ndarray:
        """Distribution function including the atom: ``0`` for ``x < 0``, ``atom`` at ``0``,
        ``atom + int_left^x pdf`` on the support, ``1`` from the right edge on."""
        xx = _checks.real_array("x", x)
        if self._point_mass:
            return (xx >= self.kappa).astype(float)
        out = np.where(xx >= 0.0, self.atom, 0.0)
        inside = (xx > self._left) & (xx < self._right)
        if inside.any():
            out[inside] = np.minimum(self.atom + self._cont_cdf_theta(self._theta_of_x(xx[inside])), 1.0)
        out[xx >= self._right] = 1.0
        return out

    def ppf(self, q: ArrayLike) -> np.ndarray:
        """Quantile function ``inf {x : cdf(x) >= q}`` (vectorized; Newton on the cdf table).

        ``q <= atom`` gives ``0`` when there is an atom; ``ppf(0)`` is the left end of the
        support, ``ppf(1)`` the right edge.
        """
        qq = _checks.real_array("q", q)
        if np.any((qq < 0) | (qq > 1)):
            raise ValueError("q must lie in [0, 1]")
        if self._point_mass:
            return np.full_like(qq, self.kappa)
        out = np.empty_like(qq)
        low = 0.0 if self.atom > 0 else self._left
        lo_mask = qq <= self.atom
        out[lo_mask] = low
        m = ~lo_mask
        if m.any():
            edges, cum = self._cdf_table()
            T = np.minimum(qq[m] - self.atom, cum[-1])
            j = np.clip(np.searchsorted(cum, T, side="left") - 1, 0, edges.size - 2)
            lo, hi = edges[j], edges[j + 1]
            fa, fb = cum[j], cum[j + 1]
            with np.errstate(divide="ignore", invalid="ignore"):
                th = np.where(fb > fa, lo + (hi - lo) * np.clip((T - fa) / (fb - fa), 0, 1), hi)
            act = np.flatnonzero(T < cum[-1])  # T = total mass: right edge, theta = pi
            th[T >= cum[-1]] = np.pi
            for _ in range(60):  # safeguarded Newton on the active set
                if act.size == 0:
                    break
                ta, ja = th[act], j[act]
                r = cum[ja] + self._panel_integral(edges[ja], ta) - T[act]
                lo[act] = np.where(r < 0, ta, lo[act])
                hi[act] = np.where(r > 0, ta, hi[act])
                with np.errstate(divide="ignore", invalid="ignore"):
                    new = ta - r / self._integrand(ta)
                bad = ~np.isfinite(new) | (new < lo[act]) | (new > hi[act])
                new = np.where(bad, (lo[act] + hi[act]) / 2.0, new)
                conv = (np.abs(r) <= 1e-15) | (np.abs(new - ta) <= 1e-14) | (hi[act] - lo[act] <= 1e-14)
                th[act] = np.where(np.abs(r) <= 1e-15, ta, new)
                act = act[~conv]
            out[m] = self._x_of_theta(th)[0]
        return out
