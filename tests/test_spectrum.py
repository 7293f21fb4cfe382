"""Tests of the bulk law ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1) in :mod:`seqrmt.spectrum`."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import integrate

from seqrmt import spectrum as sp
from seqrmt.spectrum import (
    BulkLaw,
    bulk_atom,
    bulk_density,
    bulk_edges,
    bulk_moment,
    bulk_stieltjes,
    mp_density,
    mp_edges,
    mp_stieltjes,
)

RATIOS = [0.01, 0.25, 0.5, 1.0, 1.5, 3.0]
GRID = [(d, g) for d in RATIOS for g in RATIOS]


def _quad(f, a, b, **kw):
    return integrate.quad(f, a, b, limit=400, epsabs=1e-13, epsrel=1e-12, **kw)[0]


def _roots_density(x, delta, gamma, kappa=1.0):
    """Independent reference: ``numpy.roots`` on the cubic in psi, point by point."""
    out = []
    for xx in np.atleast_1d(x):
        r = np.roots([delta * gamma, delta + gamma + delta * gamma, 1 + delta + gamma - xx / kappa, 1.0])
        psi = r[np.argmin(r.imag)]
        out.append(max(0.0, -psi.imag / (np.pi * xx)))
    return np.array(out)


def _ks(sample, law):
    """Kolmogorov distance between the empirical cdf of ``sample`` and ``law.cdf`` (ties ok)."""
    v, counts = np.unique(sample, return_counts=True)
    ecdf_right = np.cumsum(counts) / sample.size
    ecdf_left = ecdf_right - counts / sample.size
    F = law.cdf(v)
    F_left = law.cdf(np.nextafter(v, -np.inf))
    return float(max(np.max(np.abs(F - ecdf_right)), np.max(np.abs(F_left - ecdf_left))))


def _simulate(delta, gamma, kappa, d, rng):
    V, N = int(round(d / delta)), int(round(d / gamma))
    X = rng.standard_normal((d, V)) / np.sqrt(V)
    A = rng.standard_normal((V, N)) / np.sqrt(N)
    M = X @ A
    ev = np.linalg.eigvalsh(kappa * (M @ M.T))
    ev[ev < 1e-9 * ev.max()] = 0.0  # numerical zeros of the rank-deficient case
    return ev


# ---------------------------------------------------------------------------- mass and moments


@pytest.mark.parametrize("delta,gamma", GRID)
def test_mass_is_one_minus_atom(delta, gamma):
    law = BulkLaw(delta, gamma)
    left, right = law.support()
    target = 1.0 - law.atom
    assert abs(law.continuous_mass() - target) < 1e-6
    assert abs(law.cdf(right)[()] - 1.0) < 1e-6
    # independent adaptive quadrature (x^{-1/2} hard edges are integrable for QUADPACK)
    assert abs(_quad(lambda x: bulk_density(x, delta, gamma), left, right) - target) < 1e-6


@pytest.mark.parametrize("delta,gamma", [(0.25, 0.5), (1.0, 1.0), (3.0, 0.5), (1.5, 1.5), (1.0, 3.0)])
def test_moments_integration_vs_exact(delta, gamma):
    kappa = 1.7
    left, right = bulk_edges(delta, gamma, kappa)
    ks = np.arange(1, 7)
    num = integrate.quad_vec(
        lambda x: x**ks * bulk_density(x, delta, gamma, kappa), left, right, epsabs=1e-13, epsrel=1e-11, limit=2000
    )[0]
    exact = [bulk_moment(k, delta, gamma, kappa) for k in ks]
    np.testing.assert_allclose(num, exact, rtol=1e-7)
    assert bulk_moment(1, delta, gamma, kappa) == pytest.approx(kappa, rel=1e-14)
    assert bulk_moment(2, delta, gamma, kappa) == pytest.approx(kappa**2 * (1 + delta + gamma), rel=1e-14)
    assert bulk_moment(0, delta, gamma, kappa) == 1.0


def test_moment_closed_forms():
    d, g = 0.3, 0.7
    assert bulk_moment(3, d, g) == pytest.approx(1 + 3 * d + 3 * g + d**2 + g**2 + 3 * d * g, rel=1e-14)
    # gamma = 0: Marchenko-Pastur moments (Narayana polynomials)
    c = 0.4
    narayana4 = 1 + 6 * c + 6 * c**2 + c**3
    assert bulk_moment(4, c, 0.0) == pytest.approx(narayana4, rel=1e-14)
    assert bulk_moment(4, 0.0, c) == pytest.approx(narayana4, rel=1e-14)
    # both 0: point mass at kappa
    assert bulk_moment(5, 0.0, 0.0, 2.0) == pytest.approx(32.0)
    # delta = gamma = 1: Fuss-Catalan numbers 1, 3, 12, 55, 273
    assert [bulk_moment(k, 1, 1) for k in range(1, 6)] == pytest.approx([1, 3, 12, 55, 273])
    # symmetric in (delta, gamma)
    assert bulk_moment(7, 0.2, 2.5) == pytest.approx(bulk_moment(7, 2.5, 0.2), rel=1e-14)


def test_law_mean_var_moment():
    law = BulkLaw(0.5, 2.0, kappa=3.0)
    assert law.mean() == pytest.approx(3.0)
    assert law.var() == pytest.approx(9.0 * 2.5)
    assert law.moment(4) == bulk_moment(4, 0.5, 2.0, 3.0)


# ---------------------------------------------------------------------------- density


@pytest.mark.parametrize("delta,gamma", [(0.5, 0.25), (2.0, 0.5), (1.0, 1.0), (0.01, 3.0), (1.0, 2.0), (2.0, 2.0)])
def test_density_matches_pointwise_numpy_roots(delta, gamma):
    left, right = bulk_edges(delta, gamma)
    x = np.linspace(left, right, 403)[1:-1]
    x = x[(x > left + 0.02 * (right - left)) & (x < right - 0.02 * (right - left))]
    np.testing.assert_allclose(bulk_density(x, delta, gamma), _roots_density(x, delta, gamma), rtol=1e-8)


@pytest.mark.parametrize("delta,gamma", GRID)
def test_edges_are_where_density_vanishes(delta, gamma):
    left, right = bulk_edges(delta, gamma)
    eps = 1e-6 * (right - left)
    inside = bulk_density([left + eps, right - eps, (left + right) / 2], delta, gamma)
    outside = bulk_density([left - eps, right + eps, right * 2, -1.0], delta, gamma)
    assert np.all(inside > 0)
    assert np.all(outside == 0)
    # independently: the cubic has a complex pair just inside and only real roots just outside
    for x, has_pair in [(right - eps, True), (right + eps, False)] + (
        [(left + eps, True), (left - eps, False)] if left > 0 else []
    ):
        r = np.roots([delta * gamma, delta + gamma + delta * gamma, 1 + delta + gamma - x, 1.0])
        assert (np.max(np.abs(r.imag)) > 1e-9) == has_pair


def test_hard_edges():
    # the largest of {1, delta, gamma} attained twice: hard edge at 0
    for d, g in [(1.0, 0.5), (0.3, 1.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]:
        left, _ = bulk_edges(d, g)
        assert left == 0.0
        assert bulk_density(1e-10, d, g)[()] > 1e3  # diverges at 0
    # delta = 1 < gamma: the compression by A moves the left edge away from 0
    left, _ = bulk_edges(1.0, 3.0)
    assert left == pytest.approx(0.25)
    assert bulk_edges(1.0, 2.0)[0] > 0.0
    # Fuss-Catalan: delta = gamma = 1 has support [0, 27/4]
    assert bulk_edges(1.0, 1.0)[1] == pytest.approx(27 / 4, rel=1e-14)


def test_hard_edge_is_seen_in_simulation():
    rng = np.random.default_rng(3)
    ev = _simulate(1.0, 2.0, 1.0, 400, rng)
    smallest = np.min(ev[ev > 0])
    assert smallest == pytest.approx(bulk_edges(1.0, 2.0)[0], abs=0.02)


def test_kappa_scaling():
    d, g, k = 0.7, 1.8, 2.5
    x = np.linspace(-1, 30, 777)
    np.testing.assert_allclose(bulk_density(x, d, g, k), bulk_density(x / k, d, g) / k, rtol=1e-12, atol=1e-300)
    assert bulk_edges(d, g, k) == pytest.approx(tuple(k * e for e in bulk_edges(d, g)), rel=1e-14)
    lk, l1 = BulkLaw(d, g, k), BulkLaw(d, g)
    np.testing.assert_allclose(lk.cdf(x), l1.cdf(x / k), atol=1e-12)
    z = np.array([3 + 1j, -2.0, 40.0, 1 - 0.5j])
    np.testing.assert_allclose(bulk_stieltjes(z, d, g, k), bulk_stieltjes(z / k, d, g) / k, rtol=1e-12)


def test_limits_recover_marchenko_pastur():
    for c in [0.25, 0.6, 2.5]:
        lo, hi = mp_edges(c, 1.3)
        x = np.linspace(lo, hi, 500)[5:-5]
        for small in (1e-12, 1e-8):
            np.testing.assert_allclose(bulk_density(x, small, c, 1.3), mp_density(x, c, 1.3), rtol=1e-5)
            np.testing.assert_allclose(bulk_density(x, c, small, 1.3), mp_density(x, c, 1.3), rtol=1e-5)
            assert bulk_edges(small, c, 1.3) == pytest.approx((lo, hi), rel=1e-5, abs=1e-7)
        # exactly zero: reduces to Marchenko-Pastur
        np.testing.assert_array_equal(bulk_density(x, 0.0, c, 1.3), mp_density(x, c, 1.3))
        assert bulk_edges(0.0, c, 1.3) == pytest.approx((lo, hi), rel=1e-12)
        assert bulk_atom(0.0, c) == pytest.approx(max(0.0, 1 - 1 / c))
        z = np.array([hi + 1, 1 + 2j, -1.0])
        np.testing.assert_allclose(bulk_stieltjes(z, c, 0.0, 1.3), mp_stieltjes(z, c, 1.3), rtol=1e-12)
        np.testing.assert_allclose(bulk_stieltjes(z, 1e-12, c, 1.3), mp_stieltjes(z, c, 1.3), rtol=1e-8)


def test_both_ratios_zero_is_point_mass():
    law = BulkLaw(0.0, 0.0, kappa=2.0)
    assert law.support() == (2.0, 2.0)
    assert law.atom == 0.0
    np.testing.assert_array_equal(law.cdf([1.9, 2.0, 2.1]), [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(law.ppf([0.0, 0.3, 1.0]), [2.0, 2.0, 2.0])
    assert np.all(law.pdf(np.linspace(0, 4, 9)) == 0)
    assert law.var() == 0.0
    assert bulk_stieltjes(5.0, 0.0, 0.0, 2.0)[()] == pytest.approx(1 / 3)
    # and the law concentrates there as both ratios -> 0
    left, right = bulk_edges(1e-6, 1e-6, 2.0)
    assert left == pytest.approx(2.0, abs=0.02) and right == pytest.approx(2.0, abs=0.02)


# ---------------------------------------------------------------------------- atom


@pytest.mark.parametrize("delta,gamma", [(0.5, 0.5), (2.0, 0.5), (0.5, 4.0), (2.0, 2.0), (1.0, 1.0)])
def test_atom_matches_rank(delta, gamma):
    d = 200
    rng = np.random.default_rng(0)
    V, N = int(round(d / delta)), int(round(d / gamma))
    M = (rng.standard_normal((d, V)) / np.sqrt(V)) @ (rng.standard_normal((V, N)) / np.sqrt(N))
    rank = np.linalg.matrix_rank(M @ M.T)
    assert bulk_atom(delta, gamma) == pytest.approx(1 - rank / d, abs=1e-12)


# ---------------------------------------------------------------------------- cdf / ppf / rvs


@pytest.mark.parametrize("delta,gamma", [(0.5, 0.25), (3.0, 0.5), (1.0, 1.0), (1.5, 1.5), (1.0, 3.0), (0.0, 2.0)])
def test_cdf_properties_and_ppf(delta, gamma):
    law = BulkLaw(delta, gamma, kappa=1.3)
    left, right = law.support()
    x = np.linspace(-1, right + 1, 3001)
    F = law.cdf(x)
    assert np.all(np.diff(F) >= -1e-15)
    assert law.cdf(-1e-12)[()] == 0.0
    assert law.cdf(0.0)[()] == pytest.approx(law.atom, abs=1e-15)
    assert law.cdf(right)[()] == pytest.approx(1.0, abs=1e-6)
    # cdf against direct adaptive quadrature at a few points
    for xx in np.linspace(left, right, 7)[1:-1]:
        ref = law.atom + _quad(law.pdf, left, xx)
        assert law.cdf(xx)[()] == pytest.approx(ref, abs=1e-8)
    # ppf inverts cdf on the continuous part
    q = np.linspace(law.atom, 1, 401)[1:-1]
    np.testing.assert_allclose(law.cdf(law.ppf(q)), q, atol=1e-10)
    xs = np.linspace(left, right, 101)[1:-1]
    np.testing.assert_allclose(law.ppf(law.cdf(xs)), xs, rtol=1e-8, atol=1e-10)
    assert law.ppf(1.0)[()] == pytest.approx(right)
    if law.atom > 0:
        np.testing.assert_array_equal(law.ppf([0.0, law.atom / 2, law.atom]), 0.0)


def test_rvs():
    law = BulkLaw(2.0, 0.5, kappa=1.5)
    a = law.rvs(20000, seed=1)
    b = law.rvs(20000, seed=np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert np.mean(a == 0) == pytest.approx(law.atom, abs=0.015)
    assert a.mean() == pytest.approx(law.mean(), rel=0.03)
    assert _ks(a, law) < 0.015
    assert law.rvs((3, 4), seed=0).shape == (3, 4)


def test_law_agrees_with_functions_and_repr():
    law = BulkLaw(0.4, 1.2, 2.0)
    x = np.linspace(-1, 10, 101)
    np.testing.assert_array_equal(law.pdf(x), bulk_density(x, 0.4, 1.2, 2.0))
    assert law.support() == bulk_edges(0.4, 1.2, 2.0)
    assert law.atom == bulk_atom(0.4, 1.2)
    z = np.array([1 + 1j, 20.0])
    np.testing.assert_array_equal(law.stieltjes(z), bulk_stieltjes(z, 0.4, 1.2, 2.0))
    assert (law.delta, law.gamma, law.kappa) == (0.4, 1.2, 2.0)
    assert repr(law) == "BulkLaw(delta=0.4, gamma=1.2, kappa=2.0)"
    assert eval(repr(law), {"BulkLaw": BulkLaw}).support() == law.support()


# ---------------------------------------------------------------------------- Stieltjes


@pytest.mark.parametrize(
    "delta,gamma,kappa", [(0.5, 0.25, 1.0), (2.0, 0.5, 1.5), (1.0, 1.0, 1.0), (3.0, 3.0, 0.7), (1.0, 3.0, 2.0)]
)
def test_stieltjes_matches_integration(delta, gamma, kappa):
    law = BulkLaw(delta, gamma, kappa)
    left, right = law.support()
    zs = [right + 0.5, 2 * right, -1.0, 2 + 0.5j, 0.3 - 0.01j, (left + right) / 2 + 1e-3j, 5j, -3 + 1j]
    if left > 0:
        zs.append(left / 2)
    zs = np.array(zs, dtype=complex)
    G = bulk_stieltjes(zs, delta, gamma, kappa)

    # one vector-valued adaptive quadrature for all z (real and imaginary parts stacked), in
    # theta with x = left + (right - left) ((1 - cos theta)/2)^(3/2), which tames the edges
    def x_of(th):
        v = (1 - np.cos(th)) / 2
        return left + (right - left) * v**1.5, (right - left) * 1.5 * np.sqrt(v) * np.sin(th) / 2

    def f(th):
        x, dx = x_of(th)
        w = law.pdf(x) * dx / (zs - x)
        return np.concatenate([w.real, w.imag])

    th_mid = np.arccos(1 - 2 * 0.5 ** (2 / 3))  # x(th_mid) = (left + right)/2
    cuts = [0.0, th_mid - 1e-3, th_mid + 1e-3, np.pi]
    parts = [
        integrate.quad_vec(f, a, b, epsabs=1e-13, epsrel=1e-11, limit=2000)[0] for a, b in zip(cuts[:-1], cuts[1:])
    ]
    tot = np.sum(parts, axis=0)
    ref = tot[: zs.size] + 1j * tot[zs.size :] + (law.atom / zs if law.atom > 0 else 0)
    np.testing.assert_allclose(G, ref, rtol=1e-6)
    # Herglotz sign and conjugate symmetry
    z = np.array([1 + 1j, 3 + 0.01j, -2 + 5j])
    g = bulk_stieltjes(z, delta, gamma, kappa)
    assert np.all(g.imag < 0)
    np.testing.assert_allclose(bulk_stieltjes(np.conj(z), delta, gamma, kappa), np.conj(g), rtol=1e-13)


def test_stieltjes_boundary_value_is_density():
    d, g, k = 0.6, 1.4, 1.2
    left, right = bulk_edges(d, g, k)
    x = np.linspace(left, right, 50)[1:-1]
    np.testing.assert_allclose(-bulk_stieltjes(x, d, g, k).imag / np.pi, bulk_density(x, d, g, k), rtol=1e-12)
    np.testing.assert_allclose(bulk_stieltjes(x + 1e-7j, d, g, k), bulk_stieltjes(x, d, g, k), rtol=1e-4)
    # G(0) = -int dnu / t without atom
    assert bulk_stieltjes(0.0, 0.3, 0.5, 2.0)[()].real == pytest.approx(-1 / (2.0 * 0.7 * 0.5))


# ---------------------------------------------------------------------------- simulation


@pytest.mark.parametrize(
    "delta,gamma,kappa", [(0.5, 0.25, 1.0), (2.0, 0.5, 1.0), (1.0, 1.0, 1.0), (0.5, 2.0, 2.0), (1.5, 1.5, 0.5)]
)
def test_agrees_with_simulation(delta, gamma, kappa):
    ev = _simulate(delta, gamma, kappa, 400, np.random.default_rng(2026))
    assert _ks(ev, BulkLaw(delta, gamma, kappa)) < 0.02


# ------------------------------------------------------------- vectorization
# Speed is measured as a ratio in benchmarks/bench_bulk.py, not timed here.


def test_vectorized_density_matches_pointwise_roots():
    x = np.linspace(0.05, 3.0, 200)
    np.testing.assert_allclose(bulk_density(x, 0.5, 0.25), _roots_density(x, 0.5, 0.25), rtol=1e-8, atol=1e-12)
    grid = x.reshape(20, 10)
    assert bulk_density(grid, 0.5, 0.25).shape == grid.shape


# ---------------------------------------------------------------------------- properties

ratio = st.floats(min_value=1e-6, max_value=4.0, allow_nan=False, exclude_min=False)
scale = st.floats(min_value=0.1, max_value=10.0, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(delta=ratio, gamma=ratio, kappa=scale)
def test_property_pdf_mass_cdf(delta, gamma, kappa):
    law = BulkLaw(delta, gamma, kappa)
    left, right = law.support()
    assert 0 <= left < right
    x = np.concatenate([np.linspace(-1, right * 1.1, 400), [left, right, 0.0]])
    p = law.pdf(x)
    assert np.all(np.isfinite(p)) and np.all(p >= 0)
    assert abs(law.continuous_mass() - (1 - law.atom)) < 1e-6
    F = law.cdf(np.sort(x))
    assert np.all(np.diff(F) >= -1e-15)
    assert abs(law.cdf(right)[()] - 1) < 1e-6


@settings(max_examples=25, deadline=None)
@given(delta=ratio, gamma=ratio)
def test_property_moments_and_symmetry(delta, gamma):
    assert bulk_moment(2, delta, gamma) == pytest.approx(1 + delta + gamma, rel=1e-13)
    assert bulk_edges(delta, gamma) == pytest.approx(bulk_edges(gamma, delta), rel=1e-12, abs=1e-15)
    x = np.linspace(0, bulk_edges(delta, gamma)[1], 50)[1:-1]  # the edges agree to rounding only
    np.testing.assert_allclose(bulk_density(x, delta, gamma), bulk_density(x, gamma, delta), rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------------------- validation


def _calls(delta=0.5, gamma=0.5, kappa=1.0):
    return [
        lambda: bulk_density([1.0], delta, gamma, kappa),
        lambda: bulk_edges(delta, gamma, kappa),
        lambda: bulk_stieltjes([1j], delta, gamma, kappa),
        lambda: bulk_moment(2, delta, gamma, kappa),
        lambda: BulkLaw(delta, gamma, kappa),
    ]


@pytest.mark.parametrize("i", range(5))
@pytest.mark.parametrize(
    "kw,exc,name",
    [
        ({"delta": -0.1}, ValueError, "delta"),
        ({"gamma": float("nan")}, ValueError, "gamma"),
        ({"gamma": float("inf")}, ValueError, "gamma"),
        ({"kappa": 0.0}, ValueError, "kappa"),
        ({"kappa": -1.0}, ValueError, "kappa"),
        ({"delta": True}, TypeError, "delta"),
        ({"gamma": "0.5"}, TypeError, "gamma"),
        ({"kappa": None}, TypeError, "kappa"),
    ],
)
def test_validation(i, kw, exc, name):
    with pytest.raises(exc, match=name):
        _calls(**kw)[i]()


def test_validation_atom_and_arrays():
    with pytest.raises(ValueError, match="delta"):
        bulk_atom(-1.0, 0.5)
    with pytest.raises(TypeError, match="gamma"):
        bulk_atom(0.5, False)
    with pytest.raises(ValueError, match="x"):
        bulk_density([1.0, np.nan], 0.5, 0.5)
    with pytest.raises(TypeError, match="x"):
        bulk_density(["a"], 0.5, 0.5)
    with pytest.raises(ValueError, match="z"):
        bulk_stieltjes([np.nan], 0.5, 0.5)
    with pytest.raises(ValueError, match="k"):
        bulk_moment(-1, 0.5, 0.5)
    with pytest.raises(TypeError, match="k"):
        bulk_moment(1.5, 0.5, 0.5)
    law = BulkLaw(0.5, 0.5)
    with pytest.raises(ValueError, match="q"):
        law.ppf([0.5, 1.5])
    with pytest.raises(ValueError, match="x"):
        law.cdf(np.nan)
    with pytest.raises(TypeError, match="seed"):
        law.rvs(3, seed="x")
    # infinities are fine for pdf and cdf
    np.testing.assert_array_equal(law.cdf([-np.inf, np.inf]), [0.0, 1.0])
    np.testing.assert_array_equal(law.pdf([-np.inf, np.inf]), [0.0, 0.0])


def test_all_exports():
    for name in [
        "bulk_density",
        "bulk_edges",
        "bulk_atom",
        "bulk_stieltjes",
        "bulk_moment",
        "BulkLaw",
        "mp_edges",
        "mp_density",
        "mp_stieltjes",
        "mp_stieltjes_derivative",
    ]:
        assert name in sp.__all__
        import seqrmt

        assert getattr(seqrmt, name) is getattr(sp, name)


@pytest.mark.parametrize("delta,gamma,kappa", [(0.0, 0.5, 1.3), (0.5, 0.0, 1.3), (0.0, 2.5, 0.7), (3.0, 0.0, 2.0)])
def test_stieltjes_on_support_with_one_ratio_zero(delta, gamma, kappa):
    # One ratio zero: the law is kappa MP_c.  On the support the boundary value
    # G(x + i0) = lim_{eps -> 0+} G(x + i eps) has Im G = -pi f(x) < 0 (f the closed-form
    # Marchenko-Pastur density), for every function that exposes G.
    c = max(delta, gamma)
    lo, hi = mp_edges(c, kappa)
    x = np.linspace(lo, hi, 41)[1:-1]
    f = mp_density(x, c, kappa)
    assert np.all(f > 0)
    for G in (
        bulk_stieltjes(x, delta, gamma, kappa),
        BulkLaw(delta, gamma, kappa).stieltjes(x),
        mp_stieltjes(x, c, kappa),
    ):
        assert np.all(G.imag < 0)
        np.testing.assert_allclose(-G.imag / np.pi, f, rtol=1e-10)
        # continuity from the upper half-plane (the general complex branch)
        np.testing.assert_allclose(G, bulk_stieltjes(x + 1e-7j, delta, gamma, kappa), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c,s", [(0.3, 1.0), (0.5, 2.0), (2.5, 0.7)])
def test_mp_stieltjes_and_derivative_against_integration(c, s):
    # G(z) = int dnu(t)/(z - t) and G'(z) = -int dnu(t)/(z - t)^2 for s MP_c, integrated
    # from the closed-form density (plus the atom 1 - 1/c at 0 when c > 1)
    from seqrmt.spectrum import mp_stieltjes_derivative

    lo, hi = mp_edges(c, s)
    atom = max(0.0, 1 - 1 / c)
    for z in (hi * 1.3, hi + 0.05, 3.0 + 1.0j, 0.5 * (lo + hi) + 0.2j, -1.0 + 0.5j):

        def integral(power):
            re = _quad(lambda t: (mp_density(t, c, s) / (z - t) ** power).real, lo, hi)
            im = _quad(lambda t: (mp_density(t, c, s) / (z - t) ** power).imag, lo, hi)
            return re + 1j * im + atom / z**power

        assert complex(mp_stieltjes(z, c, s)) == pytest.approx(integral(1), rel=1e-7)
        assert complex(mp_stieltjes_derivative(z, c, s)) == pytest.approx(-integral(2), rel=1e-6)


def test_stieltjes_at_zero_with_one_ratio_zero():
    # kappa MP_c at z = 0: G(0) = -int dnu / t = -1 / (kappa (1 - c)) for c < 1 (the mean of
    # 1/t under MP_c is 1/(1 - c)); for c >= 1 the hard edge or the atom makes it infinite
    for delta, gamma, kappa in [(0.0, 0.5, 2.0), (0.25, 0.0, 0.8)]:
        c = max(delta, gamma)
        g0 = bulk_stieltjes(0.0, delta, gamma, kappa)[()]
        assert g0 == pytest.approx(-1 / (kappa * (1 - c)), rel=1e-12)
        lo, hi = mp_edges(c, kappa)
        inv_mean = _quad(lambda t: mp_density(t, c, kappa) / t, lo, hi)
        assert g0.real == pytest.approx(-inv_mean, rel=1e-7)
        # away from 0 it is the Marchenko-Pastur transform (not the value at 0)
        assert bulk_stieltjes(1.0 + 0j, delta, gamma, kappa)[()] == pytest.approx(
            complex(mp_stieltjes(1.0 + 0j, c, kappa))
        )
    for delta, gamma in [(1.0, 0.0), (0.0, 1.0), (0.0, 2.0)]:
        assert np.isinf(bulk_stieltjes(0.0, delta, gamma, 1.5)[()].real)
