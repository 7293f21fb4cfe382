"""Tests of :mod:`seqrmt.toolkit`: Marchenko-Pastur as a distribution, Stieltjes inversion,
the R- and S-transforms of MP, and the classic BBP transition of the white spiked model."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

import seqrmt as sr
from seqrmt import toolkit as tk
from seqrmt.validation import kolmogorov_distance

GAMMAS = [0.1, 0.5, 1.0, 2.0]


def _quad(f, a, b):
    return integrate.quad(f, a, b, limit=400, epsabs=1e-12, epsrel=1e-10)[0]


# --------------------------------------------------------------------- Marchenko-Pastur
@pytest.mark.parametrize("gamma", GAMMAS)
def test_mp_density_integrates_to_the_continuous_mass(gamma):
    a, b = sr.mp_edges(gamma)
    mass = _quad(lambda x: float(sr.mp_density(x, gamma)), a, b)
    assert mass == pytest.approx(min(1.0, 1.0 / gamma), abs=1e-8)


@pytest.mark.parametrize("gamma", GAMMAS)
def test_mp_mean_one_variance_gamma(gamma):
    a, b = sr.mp_edges(gamma)
    m1 = _quad(lambda x: x * float(sr.mp_density(x, gamma)), a, b)
    m2 = _quad(lambda x: x * x * float(sr.mp_density(x, gamma)), a, b)
    assert m1 == pytest.approx(1.0, abs=1e-8)  # the atom at 0 adds nothing to moments
    assert m2 - m1**2 == pytest.approx(gamma, abs=1e-8)


def test_mp_edges_and_atom_of_the_distribution_object():
    law = sr.BulkLaw(0.0, 2.0)  # MP_2 as a distribution
    assert law.support() == pytest.approx(sr.mp_edges(2.0))
    assert float(law.cdf(0.0)) == pytest.approx(0.5)  # atom 1 - 1/gamma


@pytest.mark.parametrize("gamma", [0.25, 0.5, 2.0])
def test_simulated_wishart_follows_mp(gamma):
    d = 400
    Y = np.random.default_rng(3).standard_normal((d, int(d / gamma)))
    lam = np.linalg.eigvalsh(Y @ Y.T / Y.shape[1])
    # finite-size KS distance is of order 1/d at the bulk, a few 1/d near the edges
    assert kolmogorov_distance(lam, sr.BulkLaw(0.0, gamma)) < 0.03


# --------------------------------------------------------------------- Stieltjes
@pytest.mark.parametrize("gamma", [0.25, 0.5, 1.5])
def test_stieltjes_inversion_recovers_the_density(gamma):
    a, b = sr.mp_edges(gamma)
    x = np.linspace(a, b, 41)[1:-1]
    G = lambda z: sr.mp_stieltjes(z, gamma)  # noqa: E731
    f = sr.mp_density(x, gamma)
    errs = [np.max(np.abs(tk.stieltjes_inversion(G, x, eps) - f)) for eps in (1e-1, 1e-2, 1e-3, 1e-6)]
    assert errs[-1] < 1e-4
    assert errs[0] > errs[1] > errs[2] > errs[3]  # smoothing error shrinks with eps


def test_stieltjes_inversion_is_a_cauchy_smoothing_of_the_histogram():
    # for an empirical law, -Im G_d(x + i eps)/pi is the average of Cauchy densities
    lam = np.array([0.5, 1.0, 2.0])
    x, eps = np.linspace(0, 3, 7), 0.2
    got = tk.stieltjes_inversion(lambda z: tk.empirical_stieltjes(z, lam), x, eps)
    cauchy = np.mean(eps / (np.pi * ((x[:, None] - lam) ** 2 + eps**2)), axis=1)
    assert got == pytest.approx(cauchy, rel=1e-12)


def test_empirical_stieltjes_is_a_normalized_resolvent_trace():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((30, 30))
    M = (A + A.T) / 2
    z = 0.3 + 0.7j
    want = np.trace(np.linalg.inv(z * np.eye(30) - M)) / 30
    assert complex(tk.empirical_stieltjes(z, np.linalg.eigvalsh(M))) == pytest.approx(want, rel=1e-10)


def test_empirical_stieltjes_tends_to_mp():
    d, gamma = 1000, 0.5
    lam = tk.spiked_covariance_sample(d, gamma, 0.0, seed=1)[0]
    z = np.array([0.5 + 0.2j, 1.5 + 0.1j, 4.0 + 0.0j])
    assert np.max(np.abs(tk.empirical_stieltjes(z, lam) - sr.mp_stieltjes(z, gamma))) < 0.02


# --------------------------------------------------------------------- R and S transforms
@pytest.mark.parametrize("gamma,scale", [(0.5, 1.0), (2.0, 0.3), (0.1, 4.0)])
def test_r_transform_inverts_the_stieltjes_transform(gamma, scale):
    b = sr.mp_edges(gamma, scale)[1]
    x = b + np.array([0.05, 0.5, 3.0])
    g = sr.mp_stieltjes(x, gamma, scale).real
    assert tk.mp_r_transform(g, gamma, scale) + 1.0 / g == pytest.approx(x, rel=1e-10)


def test_r_transform_adds_like_pooled_samples():
    # (N1 S1 + N2 S2)/(N1 + N2) with S_i ~ MP_{d/N_i} is MP_{d/(N1+N2)}: R-transforms add
    d, N1, N2 = 1.0, 2.0, 6.0
    c1, c2, c = d / N1, d / N2, d / (N1 + N2)
    g = np.linspace(-0.5, 0.5, 11)
    lhs = tk.mp_r_transform(g, c1, N1 / (N1 + N2)) + tk.mp_r_transform(g, c2, N2 / (N1 + N2))
    assert lhs == pytest.approx(tk.mp_r_transform(g, c), rel=1e-12)


@pytest.mark.parametrize("gamma,scale", [(0.5, 1.0), (2.0, 0.3)])
def test_s_transform_from_moments(gamma, scale):
    # S(y) = 1/m1 + (1/m1 - m2/m1^3) y + O(y^2)
    m1, m2 = scale, scale**2 * (1 + gamma)
    y = 1e-5
    slope = (tk.mp_s_transform(y, gamma, scale) - tk.mp_s_transform(-y, gamma, scale)) / (2 * y)
    assert float(tk.mp_s_transform(0.0, gamma, scale)) == pytest.approx(1 / m1)
    assert float(slope) == pytest.approx(1 / m1 - m2 / m1**3, rel=1e-6)


def test_s_transform_product_is_the_bulk_inverse_map():
    # chi(y) = y S(y)/(1+y) with S = S_MP_a S_MP_b, and x = 1/chi(psi) is sr.bulk_inverse_map
    a, b = 0.5, 2.0
    psi = np.array([0.1, 0.3, 1.0])
    chi = psi * tk.mp_s_transform(psi, a) * tk.mp_s_transform(psi, b) / (1 + psi)
    assert 1.0 / chi == pytest.approx(sr.bulk_inverse_map(psi, a, b), rel=1e-12)


def test_free_product_matches_wishart_product():
    lam = tk.wishart_product_eigenvalues(500, 0.5, 1.0, seed=0)
    assert kolmogorov_distance(lam, sr.BulkLaw(0.5, 1.0)) < 0.03
    lam = tk.wishart_product_eigenvalues(400, 2.0, 0.5, seed=1)
    assert np.mean(lam == 0.0) == pytest.approx(sr.bulk_atom(2.0, 0.5), abs=1e-12)


def test_transform_inputs_are_validated():
    with pytest.raises(ValueError, match="ratio"):
        tk.mp_r_transform(0.1, -1.0)
    with pytest.raises(ValueError, match="pole"):
        tk.mp_r_transform(2.0, 0.5)
    with pytest.raises(ValueError, match="pole"):
        tk.mp_s_transform(-2.0, 0.5)
    with pytest.raises(TypeError, match="y"):
        tk.mp_s_transform("a", 0.5)


# --------------------------------------------------------------------- classic BBP
@pytest.mark.parametrize("gamma", [0.1, 0.5, 1.0, 3.0])
def test_bbp_closed_forms(gamma):
    th = np.sqrt(gamma) * np.array([1.01, 1.5, 3.0, 10.0])
    assert tk.bbp_outlier(th, gamma) == pytest.approx((1 + th) * (1 + gamma / th), rel=1e-12)
    assert tk.bbp_overlap(th, gamma) == pytest.approx((1 - gamma / th**2) / (1 + gamma / th), rel=1e-12)
    below = np.sqrt(gamma) * np.array([0.0, 0.5, 1.0])
    assert tk.bbp_outlier(below, gamma) == pytest.approx(np.full(3, sr.mp_edges(gamma)[1]))
    assert np.all(tk.bbp_overlap(below, gamma) == 0.0)


@pytest.mark.parametrize("gamma", [0.25, 1.0, 2.0])
def test_bbp_threshold_is_continuous(gamma):
    tc = tk.bbp_threshold(gamma)
    assert tc == pytest.approx(np.sqrt(gamma))
    edge = sr.mp_edges(gamma)[1]
    for h in (1e-3, 1e-6):
        assert float(tk.bbp_outlier(tc * (1 + h), gamma)) == pytest.approx(edge, abs=10 * h * edge)
        assert float(tk.bbp_overlap(tc * (1 + h), gamma)) < 10 * h
    # the outlier increases and the overlap increases above the threshold
    th = tc * np.linspace(1.001, 20, 200)
    assert np.all(np.diff(tk.bbp_outlier(th, gamma)) > 0)
    assert np.all(np.diff(tk.bbp_overlap(th, gamma)) > 0)


def test_classic_bbp_is_the_small_delta_limit_of_the_two_stage_map():
    # Sigma_pop = kappa W + theta u u^T with W ~ MP_delta becomes I + theta u u^T as delta -> 0
    gamma, theta = 0.5, 1.5
    c = sr.spike_curve(theta, 1e-10, gamma)
    assert float(c.sample_location) == pytest.approx(float(tk.bbp_outlier(theta, gamma)), rel=1e-6)
    assert float(c.overlap) == pytest.approx(float(tk.bbp_overlap(theta, gamma)), rel=1e-4)
    assert sr.sample_threshold(1e-10, gamma) == pytest.approx(tk.bbp_threshold(gamma), rel=1e-4)


@pytest.mark.parametrize("gamma,theta", [(0.5, 2.0), (0.25, 1.0), (1.0, 3.0)])
def test_bbp_agrees_with_simulation(gamma, theta):
    d, reps = 400, 8
    sims = [tk.spiked_covariance_sample(d, gamma, theta, seed=s) for s in range(reps)]
    top = np.array([s[0][0] for s in sims])
    ov = np.array([s[1] for s in sims])
    # O(d^{-1/2}) Gaussian fluctuations: 5 standard errors plus a finite-size margin
    for sim, want in ((top, tk.bbp_outlier(theta, gamma)), (ov, tk.bbp_overlap(theta, gamma))):
        se = sim.std(ddof=1) / np.sqrt(reps)
        assert abs(sim.mean() - float(want)) < 5 * se + 0.02 * float(want)


def test_no_outlier_below_threshold_in_simulation():
    gamma = 1.0
    lam, ov = tk.spiked_covariance_sample(800, gamma, 0.5, seed=0)
    assert abs(lam[0] - sr.mp_edges(gamma)[1]) < 0.15  # sticks to the edge 4
    assert ov < 0.2


def test_bbp_inputs_are_validated():
    with pytest.raises(ValueError, match="gamma"):
        tk.bbp_threshold(0.0)
    with pytest.raises(ValueError, match="theta"):
        tk.bbp_outlier(-1.0, 0.5)
    with pytest.raises(TypeError, match="theta"):
        tk.bbp_overlap("big", 0.5)
    with pytest.raises(ValueError, match="theta"):
        tk.bbp_overlap(np.nan, 0.5)
    with pytest.raises(ValueError, match="d"):
        tk.spiked_covariance_sample(1, 0.5, 1.0)
    with pytest.raises(TypeError, match="stieltjes"):
        tk.stieltjes_inversion(3.0, [1.0], 0.1)
    with pytest.raises(ValueError, match="eps"):
        tk.stieltjes_inversion(lambda z: z, [1.0], 0.0)
    with pytest.raises(ValueError, match="eigenvalue"):
        tk.empirical_stieltjes(1.0, [1.0, 2.0])


# --------------------------------------------------------------------- figures
def test_figures_carry_alt_texts_with_their_numbers():
    import matplotlib

    matplotlib.use("Agg")
    import seqrmt.plots as srp

    fig = srp.toolkit_bbp_explorer_figure(theta=1.5, gamma=0.5, d=100)
    alt = srp.alt_text(fig)
    assert alt == fig.seqrmt_alt
    assert srp.fmt(float(tk.bbp_outlier(1.5, 0.5))) in alt  # the predicted outlier
    below = srp.alt_text(srp.toolkit_bbp_explorer_figure(theta=0.3, gamma=0.5, d=100))
    assert "no outlier" in below
    fig = srp.toolkit_free_product_figure(delta=2.0, gamma=0.5, d=200)
    assert "atom at zero 0.5" in srp.alt_text(fig)
    fig = srp.toolkit_semicircle_figure(gammas=(0.1,))
    assert "semicircle" in srp.alt_text(fig)


def test_figure_inputs_are_validated():
    import seqrmt.plots as srp

    with pytest.raises(ValueError, match="gamma"):
        srp.toolkit_bbp_figure(gamma=-1.0)
    with pytest.raises(ValueError, match="eps"):
        srp.toolkit_stieltjes_figure(eps=())
    with pytest.raises(ValueError, match="ds"):
        srp.toolkit_mp_convergence_figure(ds=())
