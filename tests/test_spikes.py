"""Tests of seqrmt.spikes (Theorems 2-4): the closed forms of the two BBP stages against
numerical root finding on the Marchenko-Pastur Stieltjes transform, the continuity of
the map at the sample threshold, vectorization, critical parameters, and the
finite-table corrections."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

import seqrmt as sr

# (delta, gamma, kappa) grid covering delta, gamma below and above 1
GRID = [(0.5, 0.5, 1.0), (0.25, 2.0, 0.3), (2.0, 0.25, 1.7), (3.0, 4.0, 0.0625), (0.1, 0.05, 1.0)]


# --- independent numerics from the Stieltjes transform of H = kappa MP_delta -----------


def G(lam, delta, kappa):
    return float(np.real(sr.mp_stieltjes(lam, delta, kappa)))


def dG(lam, delta, kappa):
    return float(np.real(sr.mp_stieltjes_derivative(lam, delta, kappa)))


def numeric_population(theta, delta, kappa):
    """Root lambda > edge of theta G(lambda) = 1 (None if absent) and eta = 1/(theta^2 (-G'))."""
    edge = sr.mp_edges(delta, kappa)[1]
    # G decreases from G(edge) to 0 on (edge, inf): a root exists iff theta G(edge) > 1
    if theta * G(edge, delta, kappa) <= 1:
        return None, 0.0
    hi = edge + 2 * theta + kappa
    lam = brentq(lambda x: theta * G(x, delta, kappa) - 1, edge * (1 + 1e-14), hi, xtol=1e-15, rtol=1e-14)
    return lam, 1.0 / (theta**2 * -dG(lam, delta, kappa))


def phi(l, delta, gamma, kappa):
    return l * (1 + gamma * (l * G(l, delta, kappa) - 1))


def dphi(l, delta, gamma, kappa):
    # d/dl [l + gamma (l^2 G(l) - l)] = 1 + gamma (2 l G + l^2 G' - 1)
    return 1 + gamma * (2 * l * G(l, delta, kappa) + l**2 * dG(l, delta, kappa) - 1)


def numeric_sample_threshold(delta, gamma, kappa):
    t0 = kappa * (delta + np.sqrt(delta))

    def f(theta):
        return dphi(numeric_population(theta, delta, kappa)[0], delta, gamma, kappa)

    hi = 2 * t0 + kappa
    while f(hi) <= 0:
        hi *= 2
    # just above t0, lambda_pop - edge ~ (theta - t0)^2 and G' ~ -(lambda - edge)^(-1/2), so
    # phi' < 0 there; 1e-4 keeps lambda_pop resolvable in double precision.
    return brentq(f, t0 * (1 + 1e-4), hi, xtol=1e-13, rtol=1e-12)


# ---------------------------------------------------------------------------
# population stage (Theorem 2)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("delta, gamma, kappa", GRID)
def test_population_threshold_closed_form(delta, gamma, kappa):
    t0 = sr.population_threshold(delta, kappa)
    assert t0 == pytest.approx(kappa * (delta + np.sqrt(delta)))
    # it is 1 / G(edge): the strength at which theta G(edge) = 1
    edge = sr.mp_edges(delta, kappa)[1]
    assert t0 == pytest.approx(1 / G(edge, delta, kappa), rel=1e-10)
    assert numeric_population(t0 * 0.999, delta, kappa)[0] is None
    assert numeric_population(t0 * 1.001, delta, kappa)[0] is not None


@pytest.mark.parametrize("delta, gamma, kappa", GRID)
@pytest.mark.parametrize("factor", [1.05, 1.5, 3.0, 20.0])
def test_population_location_and_overlap_vs_root_finding(delta, gamma, kappa, factor):
    theta = factor * sr.population_threshold(delta, kappa)
    c = sr.spike_curve(theta, delta, gamma, kappa)
    lam, eta = numeric_population(theta, delta, kappa)
    assert c.population_exists
    assert float(c.population_location) == pytest.approx(lam, rel=1e-9)
    assert float(c.population_overlap) == pytest.approx(eta, rel=1e-7, abs=1e-10)


@pytest.mark.parametrize("delta, gamma, kappa", GRID)
def test_below_population_threshold(delta, gamma, kappa):
    theta = 0.9 * sr.population_threshold(delta, kappa)
    c = sr.spike_curve(theta, delta, gamma, kappa)
    assert not c.population_exists and not c.sample_exists
    assert float(c.population_location) == pytest.approx(sr.mp_edges(delta, kappa)[1])
    assert float(c.sample_location) == pytest.approx(sr.bulk_edges(delta, gamma, kappa)[1])
    assert float(c.population_overlap) == 0.0 and float(c.sample_overlap) == 0.0


# ---------------------------------------------------------------------------
# sample stage (Theorem 3)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("delta, gamma, kappa", GRID)
def test_sample_threshold_is_where_dphi_vanishes(delta, gamma, kappa):
    tc = sr.sample_threshold(delta, gamma, kappa)
    assert tc > sr.population_threshold(delta, kappa)
    assert tc == pytest.approx(numeric_sample_threshold(delta, gamma, kappa), rel=1e-8)
    lam = numeric_population(tc, delta, kappa)[0]
    assert abs(dphi(lam, delta, gamma, kappa)) < 1e-7
    assert not sr.spike_curve(tc * (1 - 1e-6), delta, gamma, kappa).sample_exists
    assert sr.spike_curve(tc * (1 + 1e-6), delta, gamma, kappa).sample_exists


def test_sample_threshold_gamma_zero_is_population():
    assert sr.sample_threshold(0.7, 0.0, 2.0) == sr.population_threshold(0.7, 2.0)


@pytest.mark.parametrize("delta, gamma", [(0.5, 1e-300), (0.5, 1e-14), (1e8, 1e-8)])
def test_sample_threshold_tiny_gamma(delta, gamma):
    # gamma -> 0 (N >> d): the sample threshold tends to the population one; it must not
    # fail because the bracket's lower end already has phi' > 0.
    tc = sr.sample_threshold(delta, gamma)
    assert tc == pytest.approx(sr.population_threshold(delta), rel=1e-3)


@pytest.mark.parametrize("kappa", [1e-300, 1e-100, 1e100, 1e300])
def test_sample_threshold_scales_with_kappa(kappa):
    # spike and bulk both scale with kappa: theta_c(kappa) = kappa theta_c(1)
    assert sr.sample_threshold(0.5, 0.5, kappa) == pytest.approx(kappa * sr.sample_threshold(0.5, 0.5), rel=1e-9)


@pytest.mark.parametrize("delta, gamma, kappa", GRID)
@pytest.mark.parametrize("factor", [1.02, 1.5, 4.0])
def test_sample_location_and_overlap_vs_numerics(delta, gamma, kappa, factor):
    theta = factor * sr.sample_threshold(delta, gamma, kappa)
    c = sr.spike_curve(theta, delta, gamma, kappa)
    lam, eta_pop = numeric_population(theta, delta, kappa)
    loc = phi(lam, delta, gamma, kappa)
    eta_s = lam * dphi(lam, delta, gamma, kappa) / loc
    assert c.sample_exists
    assert float(c.sample_location) == pytest.approx(loc, rel=1e-8)
    assert float(c.sample_overlap) == pytest.approx(eta_s, rel=1e-6, abs=1e-9)
    assert float(c.overlap) == pytest.approx(eta_pop * eta_s, rel=1e-6, abs=1e-9)
    # a finite-difference check of the phi' formula used above
    h = 1e-6 * lam
    fd = (phi(lam + h, delta, gamma, kappa) - phi(lam - h, delta, gamma, kappa)) / (2 * h)
    assert fd == pytest.approx(dphi(lam, delta, gamma, kappa), rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("delta, gamma, kappa", GRID)
def test_sample_location_at_threshold_is_bulk_edge(delta, gamma, kappa):
    # Continuity of the BBP map: at theta_c the outlier of S merges with the right edge of
    # the Theorem 1 bulk kappa (MP_delta boxtimes MP_gamma).  phi(l_c) computed from the MP
    # Stieltjes transform must equal sr.bulk_edges, computed from the cubic of Theorem 1.
    tc = sr.sample_threshold(delta, gamma, kappa)
    edge = sr.bulk_edges(delta, gamma, kappa)[1]
    lam = numeric_population(tc, delta, kappa)[0]
    assert phi(lam, delta, gamma, kappa) == pytest.approx(edge, rel=1e-9)
    just_above = sr.spike_curve(tc * (1 + 1e-9), delta, gamma, kappa)
    assert float(just_above.sample_location) == pytest.approx(edge, rel=1e-6)
    assert float(just_above.sample_overlap) < 1e-3


# ---------------------------------------------------------------------------
# spike_curve: vectorization and monotonicity
# ---------------------------------------------------------------------------


def test_spike_curve_broadcasting():
    theta = np.linspace(0.1, 5, 4)[:, None]  # (4, 1)
    delta = np.array([0.3, 1.0, 2.5])  # (3,)
    kappa = np.array([[0.5]])  # (1, 1)
    c = sr.spike_curve(theta, delta, 0.7, kappa)
    for field in (
        "population_exists",
        "population_location",
        "population_overlap",
        "sample_exists",
        "sample_location",
        "sample_overlap",
    ):
        assert np.shape(getattr(c, field)) == (4, 3), field
    assert c.overlap.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            s = sr.spike_curve(float(theta[i, 0]), float(delta[j]), 0.7, 0.5)
            assert float(s.sample_location) == pytest.approx(c.sample_location[i, j], rel=1e-12)
            assert float(s.overlap) == pytest.approx(c.overlap[i, j], rel=1e-12, abs=1e-15)
            assert bool(s.sample_exists) == bool(c.sample_exists[i, j])


@settings(max_examples=25, deadline=None)
@given(delta=st.floats(0.01, 20), gamma=st.just(0.0) | st.floats(1e-3, 20), kappa=st.floats(0.01, 10))
def test_spike_curve_monotone_in_theta(delta, gamma, kappa):
    # (gamma in (0, 1e-3) is left to test_sample_threshold_tiny_gamma)
    tc = sr.sample_threshold(delta, gamma, kappa)
    theta = np.linspace(0, 5 * tc, 400)
    c = sr.spike_curve(theta, delta, gamma, kappa)
    tol = 1e-9 * np.max(c.sample_location)
    assert np.all(np.diff(c.population_location) >= -tol)
    assert np.all(np.diff(c.sample_location) >= -tol)
    assert np.all(np.diff(c.population_overlap) >= -1e-12)
    assert np.all(np.diff(c.overlap) >= -1e-12)
    assert np.all(np.diff(c.sample_exists.astype(int)) >= 0)  # once there, stays
    assert np.all(c.sample_exists <= c.population_exists)
    assert np.all((c.overlap >= 0) & (c.overlap <= 1))
    assert np.all(np.isfinite(c.sample_location))


# ---------------------------------------------------------------------------
# critical parameters consistent with predict
# ---------------------------------------------------------------------------

R16 = sr.prefix_correlation(16, 4)
WEIGHTS = {"mean": sr.mean_weights(16), "optimal": sr.optimal_weights(R16), "causal": sr.causal_weights(16, 0.0)}
EPS = 1e-6


def _exists(p, stage):
    return (p.sample_outlier if stage == "sample" else p.population_outlier) is not None


@pytest.mark.parametrize("wname", list(WEIGHTS))
@pytest.mark.parametrize("stage", ["population", "sample"])
@pytest.mark.parametrize("finite_table", [True, False])
@pytest.mark.parametrize("delta, gamma", [(0.5, 0.5), (2.0, 0.3), (0.3, 3.0)])
def test_critical_beta_consistent_with_predict(wname, stage, finite_table, delta, gamma):
    w = WEIGHTS[wname]
    bc = sr.critical_beta(delta, gamma, w, R16, stage=stage, finite_table=finite_table)
    if bc == 0:
        # the class-mean noise alone (beta = 0) already gives an outlier
        assert finite_table
        assert _exists(sr.predict(delta, gamma, w, R16, 0.0), stage)
        return
    above = sr.predict(delta, gamma, w, R16, bc * (1 + EPS), finite_table=finite_table)
    below = sr.predict(delta, gamma, w, R16, bc * (1 - EPS), finite_table=finite_table)
    assert _exists(above, stage) and not _exists(below, stage)


def test_critical_beta_zero_when_noise_alone_suffices():
    # optimal weights, prefix L = 4: alpha / kappa = 4, and with beta = 0 the finite-table
    # spike 4 delta exceeds kappa (delta + sqrt(delta)) once 3 delta > sqrt(delta): delta > 1/9.
    w = WEIGHTS["optimal"]
    assert sr.critical_beta(1.0, 0.0, w, R16, stage="population") == 0.0
    assert sr.critical_beta(1.0, 0.0, w, R16, stage="population", finite_table=False) > 0
    assert sr.critical_beta(0.05, 0.0, w, R16, stage="population") > 0


@pytest.mark.parametrize("wname", list(WEIGHTS))
@pytest.mark.parametrize("finite_table", [True, False])
@pytest.mark.parametrize("delta, beta", [(0.5, 0.5), (2.0, 1.0), (0.2, 3.0)])
def test_critical_gamma_and_N(wname, finite_table, delta, beta):
    w = WEIGHTS[wname]
    gc = sr.critical_gamma(delta, w, R16, beta, finite_table=finite_table)
    pop = sr.predict(delta, 0.0, w, R16, beta, finite_table=finite_table).population_outlier
    if pop is None:
        assert gc == 0.0
        assert sr.critical_N(100, int(round(100 / delta / 2)) * 2, w, R16, beta, finite_table=finite_table) == np.inf
        return
    assert gc > 0
    assert sr.predict(delta, gc * (1 - EPS), w, R16, beta, finite_table=finite_table).sample_outlier is not None
    assert sr.predict(delta, gc * (1 + EPS), w, R16, beta, finite_table=finite_table).sample_outlier is None
    # sample_threshold at gamma_c is exactly the spike strength
    theta = sr.predict(delta, gc, w, R16, beta, finite_table=finite_table).theta
    assert sr.sample_threshold(delta, gc, sr.kappa(w)) == pytest.approx(theta, rel=1e-6)
    d = 400
    V = int(round(d / delta))
    assert sr.critical_N(d, V, w, R16, beta, finite_table=finite_table) == pytest.approx(
        d / sr.critical_gamma(d / V, w, R16, beta, finite_table=finite_table), rel=1e-12
    )


@pytest.mark.parametrize(
    "finite_table, beta, stage",
    [(True, 0.0, "sample"), (False, 1.0, "sample"), (True, 0.0, "population"), (False, 1.0, "population")],
)
def test_critical_delta_consistent_with_predict(finite_table, beta, stage):
    w = WEIGHTS["mean"]
    roots = sr.critical_delta(0.5, w, R16, beta, stage=stage, finite_table=finite_table)
    assert len(roots) >= 1
    for r in roots:
        a = _exists(sr.predict(r * (1 - EPS), 0.5, w, R16, beta, finite_table=finite_table), stage)
        b = _exists(sr.predict(r * (1 + EPS), 0.5, w, R16, beta, finite_table=finite_table), stage)
        assert a != b
    # no crossing away from the roots: existence is constant between consecutive roots
    edges = np.r_[1e-4, roots, 1e3]
    for lo, hi in zip(edges[:-1], edges[1:]):
        grid = np.geomspace(lo * (1 + 1e-3), hi * (1 - 1e-3), 7)
        flags = {_exists(sr.predict(x, 0.5, w, R16, beta, finite_table=finite_table), stage) for x in grid}
        assert len(flags) == 1


# ---------------------------------------------------------------------------
# finite table versus idealized statement; the vocabulary-mean outlier
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("delta, gamma, beta", [(0.5, 0.5, 1.0), (2.0, 0.3, 0.5), (0.1, 1.5, 4.0)])
def test_finite_table_vs_idealized(delta, gamma, beta):
    w = WEIGHTS["causal"]
    a, k = sr.alpha(w, R16), sr.kappa(w)
    pf = sr.predict(delta, gamma, w, R16, beta)
    pi = sr.predict(delta, gamma, w, R16, beta, finite_table=False)
    assert pf.theta - pi.theta == pytest.approx(a * delta, rel=1e-12)
    assert pi.theta == pytest.approx(a * beta)
    # the SNR theta/kappa decides the population transition (Theorem 2)
    for p in (pf, pi):
        assert (p.snr > delta + np.sqrt(delta)) == (p.population_outlier is not None)
    assert pf.bulk_edge == pi.bulk_edge == pytest.approx(sr.bulk_edges(delta, gamma, k)[1])
    c = sr.spike_curve(pf.theta, delta, gamma, k)
    # alignment with mu / ||mu|| is shrunk by beta / (beta + delta)
    assert pf.overlap == pytest.approx(float(c.overlap) * beta / (beta + delta), rel=1e-12, abs=1e-15)
    # realized ||Delta||^2 in place of delta
    p2 = sr.predict(delta, gamma, w, R16, beta, delta_norm2=1.1 * delta)
    assert p2.theta == pytest.approx(a * (beta + 1.1 * delta))


def test_uncentered_mean_outlier():
    # sigma_w = 1 (mean pooling, T = 16): kappa = 1/16, the mean spike sigma_w^2 delta
    # passes the population threshold when 1/kappa > 1 + 1/sqrt(delta): 16 > 2.41 at delta = 0.5.
    w = WEIGHTS["mean"]
    assert sr.sigma_w(w) == pytest.approx(1.0)
    delta, gamma = 0.5, 0.5
    p = sr.predict(delta, gamma, w, R16, 1.0, centered=False)
    assert p.mean_outlier is not None
    c = sr.spike_curve(delta * 1.0, delta, gamma, sr.kappa(w))
    assert p.mean_outlier == pytest.approx(float(c.sample_location))
    assert p.mean_overlap == pytest.approx(float(c.overlap))
    assert p.outliers == sorted([p.sample_outlier, p.mean_outlier], reverse=True)
    # centering or the idealized statement remove it
    assert sr.predict(delta, gamma, w, R16, 1.0).mean_outlier is None
    assert sr.predict(delta, gamma, w, R16, 1.0, centered=False, finite_table=False).mean_outlier is None
    # realized ||zbar||^2
    p2 = sr.predict(delta, gamma, w, R16, 1.0, centered=False, zbar_norm2=0.6)
    assert p2.mean_outlier == pytest.approx(float(sr.spike_curve(0.6, delta, gamma, sr.kappa(w)).sample_location))
    # weights summing to zero create no mean spike
    w0 = np.r_[np.ones(8), -np.ones(8)] / 16
    assert sr.predict(delta, gamma, w0, R16, 1.0, centered=False).mean_outlier is None


# ---------------------------------------------------------------------------
# scale invariance, realized norms, and the vocabulary-mean outlier with sigma_w != 1
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("centered", [True, False])
@pytest.mark.parametrize("finite_table", [True, False])
@pytest.mark.parametrize("c", [0.5, 3.0])
def test_predict_scale_invariance(centered, finite_table, c):
    # w -> c w multiplies every pooled vector, hence S, by c^2: all eigenvalues scale by
    # c^2 and no eigenvector moves.  kappa, alpha and sigma_w^2 all scale by c^2, so a
    # formula using |sigma_w| or kappa^1 anywhere breaks this.
    w = WEIGHTS["causal"]
    delta, gamma, beta = 0.5, 0.5, 1.0
    p = sr.predict(delta, gamma, w, R16, beta, centered=centered, finite_table=finite_table)
    q = sr.predict(delta, gamma, c * w, R16, beta, centered=centered, finite_table=finite_table)
    assert p.sample_outlier is not None and p.population_outlier is not None
    assert (p.mean_outlier is not None) == (finite_table and not centered)
    for name in ("bulk_edge", "population_outlier", "sample_outlier", "mean_outlier", "theta"):
        a, b = getattr(p, name), getattr(q, name)
        assert (a is None) == (b is None), name
        if a is not None:
            assert b == pytest.approx(c**2 * a, rel=1e-10), name
    for name in ("population_overlap", "sample_overlap", "overlap", "mean_overlap", "snr"):
        assert getattr(q, name) == pytest.approx(getattr(p, name), rel=1e-10, abs=1e-14), name
    assert q.outliers == pytest.approx([c**2 * x for x in p.outliers], rel=1e-10)


@pytest.mark.parametrize("x", [0.3, 1.7])
def test_realized_delta_norm_enters_spike_and_overlap(x):
    # with ||Delta||^2 = x the spike direction is (mu + Delta)/||mu + Delta||, of strength
    # alpha (beta + x), and its squared cosine with mu/||mu|| is beta / (beta + x)
    w = WEIGHTS["causal"]
    delta, gamma, beta = 0.5, 0.5, 1.0
    a, k = sr.alpha(w, R16), sr.kappa(w)
    p = sr.predict(delta, gamma, w, R16, beta, delta_norm2=x)
    c = sr.spike_curve(a * (beta + x), delta, gamma, k)
    assert p.theta == pytest.approx(a * (beta + x), rel=1e-12)
    assert p.sample_outlier == pytest.approx(float(c.sample_location), rel=1e-12)
    assert p.overlap == pytest.approx(float(c.overlap) * beta / (beta + x), rel=1e-12)


def test_zero_noise_table_is_the_idealized_statement():
    # a table with Delta = 0 and zbar = 0 is exactly the idealized model
    w = WEIGHTS["causal"]
    for delta, gamma, beta in [(0.5, 0.5, 1.0), (2.0, 0.3, 3.0), (0.2, 1.5, 0.8)]:
        p0 = sr.predict(delta, gamma, w, R16, beta, delta_norm2=0.0)
        pi = sr.predict(delta, gamma, w, R16, beta, finite_table=False)
        for name in ("theta", "sample_outlier", "population_outlier", "overlap", "sample_overlap"):
            a, b = getattr(p0, name), getattr(pi, name)
            assert (a is None) == (b is None) and (a is None or a == pytest.approx(b, rel=1e-12)), name
        pu = sr.predict(delta, gamma, w, R16, beta, centered=False, delta_norm2=0.0, zbar_norm2=0.0)
        assert pu.mean_outlier is None and pu.mean_overlap == 0.0
        assert pu.outliers == pi.outliers


def test_realized_zbar_norm_sets_mean_outlier():
    # mean spike sigma_w^2 ||zbar||^2 on kappa MP_delta: its outlier grows with ||zbar||^2
    w = 0.5 * np.ones(16)  # sigma_w = 8, kappa = 4
    delta, gamma = 0.5, 0.5
    vals = [sr.predict(delta, gamma, w, R16, 1.0, centered=False, zbar_norm2=z).mean_outlier for z in (0.4, 0.5, 0.6)]
    for z, v in zip((0.4, 0.5, 0.6), vals):
        c = sr.spike_curve(64.0 * z, delta, gamma, 4.0)
        assert v == pytest.approx(float(c.sample_location), rel=1e-12)
    assert vals[0] < vals[1] < vals[2]
    assert vals[1] == pytest.approx(sr.predict(delta, gamma, w, R16, 1.0, centered=False).mean_outlier)


def test_mean_outlier_with_sigma_w_not_one_against_simulation():
    # w = (1/2, ..., 1/2): sigma_w = 8, kappa = 4, so the vocabulary-mean spike is
    # sigma_w^2 ||zbar||^2 = 64 ||zbar||^2 (~32), far above every other eigenvalue.
    # Tolerance fixed in advance: conditionally on the table, the top eigenvalue of the
    # uncentered S fluctuates through the cross term 2 sigma_w zbar . (mean of the
    # pooled noise), of standard deviation s = 2 sqrt(sigma_w^2 ||zbar||^2 kappa / N)
    # (~1.1 here); the realized ||zbar||^2 removes the table's own fluctuation
    # (64 * delta sqrt(2/d) ~ 3.2).  Each seed within 4 s, the root mean square within 1.5 s.
    w = 0.5 * np.ones(16)
    d, delta, gamma = 200, 0.5, 0.5
    V, N = sr.sizes(d, delta, gamma)
    assert sr.sigma_w(w) == pytest.approx(8.0) and sr.kappa(w) == pytest.approx(4.0)
    res, ovl = [], []
    for seed in range(6):
        sim = sr.simulate(d, V, N, w, R16, 1.0, centered=False, seed=seed)
        p = sr.predict(
            delta, gamma, w, R16, 1.0, centered=False, zbar_norm2=sim.zbar_norm2, delta_norm2=sim.delta_norm2
        )
        assert p.mean_outlier is not None
        s = 2 * np.sqrt(64.0 * sim.zbar_norm2 * 4.0 / N)
        res.append((sim.eigenvalues[0] - p.mean_outlier) / s)
        ovl.append(sim.mean_overlaps[0] - p.mean_overlap)
    res = np.array(res)
    assert np.all(np.abs(res) < 4), res
    assert np.sqrt(np.mean(res**2)) < 1.5, res
    # eigenvector: squared cosine with zbar/||zbar||, O(N^{-1/2}) = 0.05 per seed
    assert abs(np.mean(ovl)) < 0.03, ovl


# ---------------------------------------------------------------------------
# the realized spike norm ||mu + Delta||^2 (spike_norm2) and its variance
# ---------------------------------------------------------------------------


def test_spike_norm2_variance_closed_form():
    # V ||mu + Delta||^2 is a non-central chi-square with d degrees of freedom and
    # non-centrality V beta (Delta ~ N(0, I_d / V)): an independent closed form from scipy
    from scipy import stats

    for d, V, beta in [(400, 400, 1.5), (30, 12, 0.0), (800, 1600, 2.0), (7, 100, 10.0)]:
        law = stats.ncx2(df=d, nc=V * beta) if beta > 0 else stats.chi2(df=d)
        assert sr.spike_norm2_variance(d, V, beta) == pytest.approx(law.var() / V**2, rel=1e-12)
        assert law.mean() / V == pytest.approx(beta + d / V, rel=1e-12)
    # the cross term 4 beta / V dominates the chi-square term 2 d / V^2 exactly when 2 beta > delta
    d, V = 400, 400  # delta = 1
    for beta, dominant in ((0.4, False), (0.6, True), (1.5, True)):
        cross = sr.spike_norm2_variance(d, V, beta) - sr.spike_norm2_variance(d, V, 0.0)
        assert (cross > sr.spike_norm2_variance(d, V, 0.0)) == dominant


@pytest.mark.parametrize("d, V, beta", [(20, 16, 1.5), (12, 40, 0.0), (30, 10, 0.4)])
def test_spike_norm2_variance_monte_carlo(d, V, beta):
    # tables drawn by sr.make_table; n = 4000 tables.  The sample variance of n i.i.d.
    # values has relative standard deviation sqrt((2 + excess kurtosis) / n); for
    # V ||mu + Delta||^2 ~ ncx2(d, V beta) the excess kurtosis is 12 (d + 4 V beta) / (d + 2 V beta)^2
    # (below 1 here), so the relative sd is below 0.03 and 5 sd is 0.15 at most: the test
    # could fail for a wrong formula (dropping the cross term changes it by 1.3x to 10x).
    n = 4000
    rng = np.random.default_rng(17)
    s = np.empty(n)
    for i in range(n):
        tab = sr.make_table(d, V, beta, seed=rng)
        x = tab.mu + tab.Delta
        s[i] = x @ x
    lam = V * beta
    excess = 12 * (d + 4 * lam) / (d + 2 * lam) ** 2
    rel_sd = np.sqrt((2 + excess) / n)
    var = sr.spike_norm2_variance(d, V, beta)
    assert s.var(ddof=1) == pytest.approx(var, rel=5 * rel_sd)
    assert s.mean() == pytest.approx(beta + d / V, abs=5 * np.sqrt(var / n))
    if beta > 0:  # the chi-square part alone would be far outside that band
        assert abs(s.var(ddof=1) / sr.spike_norm2_variance(d, V, 0.0) - 1) > 5 * rel_sd


@pytest.mark.parametrize("centered", [True, False])
@pytest.mark.parametrize("beta", [0.0, 0.7, 3.0])
def test_predict_spike_norm2_at_its_limit_is_the_default(centered, beta):
    w = WEIGHTS["causal"]
    delta, gamma = 0.5, 0.5
    p = sr.predict(delta, gamma, w, R16, beta, centered=centered)
    for kw in (
        dict(spike_norm2=beta + delta),
        dict(spike_norm2=beta + delta, delta_norm2=delta),
        dict(delta_norm2=delta),
    ):
        q = sr.predict(delta, gamma, w, R16, beta, centered=centered, **kw)
        for f in dataclasses.fields(p):
            a, b = getattr(p, f.name), getattr(q, f.name)
            assert (a is None) == (b is None), f.name
            if isinstance(a, float):
                assert b == pytest.approx(a, rel=1e-12, abs=1e-15), (kw, f.name)
            else:
                assert a == b, f.name


def test_predict_spike_norm2_matches_a_drawn_table():
    # with the realized ||mu + Delta||^2 and ||Delta||^2 of a table, the spike is
    # alpha ||mu + Delta||^2 and the alignment factor is the exact squared cosine between
    # u_tilde = (mu + Delta)/||mu + Delta|| and u = mu/||mu||
    w = WEIGHTS["causal"]
    a, k = sr.alpha(w, R16), sr.kappa(w)
    delta, gamma, beta = 0.5, 0.5, 1.2
    for seed in range(5):
        tab = sr.make_table(200, 400, beta, seed=seed)
        x = tab.mu + tab.Delta
        s2, n2 = float(x @ x), float(tab.Delta @ tab.Delta)
        cos2 = float((x @ tab.mu) ** 2 / (s2 * beta))
        p = sr.predict(delta, gamma, w, R16, beta, spike_norm2=s2, delta_norm2=n2)
        c = sr.spike_curve(a * s2, delta, gamma, k)
        assert p.theta == pytest.approx(a * s2, rel=1e-12)
        assert p.sample_outlier == pytest.approx(float(c.sample_location), rel=1e-12)
        assert p.overlap == pytest.approx(float(c.overlap) * cos2, rel=1e-10)
        # delta_norm2 alone keeps the cross term at 0: the same as spike_norm2 = beta + ||Delta||^2
        q = sr.predict(delta, gamma, w, R16, beta, delta_norm2=n2)
        r = sr.predict(delta, gamma, w, R16, beta, spike_norm2=beta + n2, delta_norm2=n2)
        assert q.theta == pytest.approx(r.theta, rel=1e-12) and q.overlap == pytest.approx(r.overlap, rel=1e-12)
    # beta = 0: ||mu + Delta||^2 = ||Delta||^2 and no alignment with mu
    p = sr.predict(delta, gamma, w, R16, 0.0, spike_norm2=0.55, delta_norm2=0.55)
    assert p.theta == pytest.approx(a * 0.55) and p.overlap == 0.0


def test_predict_spike_norm2_alone_estimates_the_cross_term():
    # spike_norm2 alone: the squared cosine c = (beta + mu^T Delta)^2 / (beta ||mu + Delta||^2)
    # uses the least-squares estimate of mu^T Delta from ||mu + Delta||^2.  To first order
    # c - beta/(beta + delta) = (2 delta x - beta (n - delta)) / (beta + delta)^2 with
    # x = mu^T Delta ~ N(0, beta/V) and n = ||Delta||^2 (variance 2 delta / V), while the
    # excess of ||mu + Delta||^2 is 2 x + (n - delta): their squared correlation is
    # rho2 = beta delta / ((2 delta + beta)(2 beta + delta)), so the best estimate from
    # ||mu + Delta||^2 cuts the mean squared error of the limit beta/(beta + delta) by the
    # factor 1 - rho2 (0.89 here), no more; beta / ||mu + Delta||^2 (the cross term set to 0)
    # is several times worse.  1500 tables; the paired MSE ratio is accurate to about 0.02.
    w = WEIGHTS["causal"]
    a, k = sr.alpha(w, R16), sr.kappa(w)
    d, V, beta = 100, 100, 1.5
    delta = d / V
    err = {"estimate": [], "limit": [], "no cross term": []}
    rng = np.random.default_rng(3)
    for _ in range(1500):
        tab = sr.make_table(d, V, beta, seed=rng)
        x = tab.mu + tab.Delta
        s2 = float(x @ x)
        cos2 = float((x @ tab.mu) ** 2 / (s2 * beta))
        eta = float(sr.spike_curve(a * s2, delta, 0.5, k).overlap)
        p = sr.predict(delta, 0.5, w, R16, beta, spike_norm2=s2)
        err["estimate"].append(p.overlap / eta - cos2)
        err["limit"].append(beta / (beta + delta) - cos2)
        err["no cross term"].append(beta / s2 - cos2)
    mse = {key: float(np.mean(np.square(v))) for key, v in err.items()}
    rho2 = beta * delta / ((2 * delta + beta) * (2 * beta + delta))
    assert mse["estimate"] < mse["limit"], mse
    assert mse["estimate"] / mse["limit"] == pytest.approx(1 - rho2, abs=0.05), mse
    assert mse["estimate"] < 0.5 * mse["no cross term"], mse


def test_predict_rejects_contradictory_realized_norms():
    w = WEIGHTS["causal"]
    with pytest.raises(ValueError, match="spike_norm2.*Cauchy-Schwarz"):
        sr.predict(0.5, 0.5, w, R16, 1.0, spike_norm2=0.01, delta_norm2=0.5)
    with pytest.raises(ValueError, match="finite_table=True"):
        sr.predict(0.5, 0.5, w, R16, 1.0, finite_table=False, spike_norm2=1.5)
    # the ends of the Cauchy-Schwarz interval are possible tables (Delta parallel to mu)
    for s2 in ((1 - np.sqrt(0.5)) ** 2, (1 + np.sqrt(0.5)) ** 2):
        p = sr.predict(0.5, 0.5, w, R16, 1.0, spike_norm2=s2, delta_norm2=0.5)
        eta = float(sr.spike_curve(p.theta, 0.5, 0.5, sr.kappa(w)).overlap)
        assert p.overlap == pytest.approx(eta, rel=1e-9)  # u_tilde = u
