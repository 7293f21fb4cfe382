"""Tests of the spike at fixed T (``sr.finite_T_spike``, ``sr.FiniteTSpike``): the signal
eigenvalue and its alignment from the fixed-T bulk and the spectral measure of the token
Gram matrix in the direction of the classes (chapter 3, "The spike at fixed T")."""
from __future__ import annotations

import math

import numpy as np
import pytest

import seqrmt as sr
from seqrmt import validation as sv

DELTA = GAMMA = 0.5
D_SIM = 800
N_TABLES = 32          # tables per point (every beta of a point uses the same tables)
#: (T, ratios beta / beta_c of the large-T sample threshold): near the threshold, where the
#: fixed-T prediction is the top eigenvalue at d = 800 (few bulk eigenvalues above it)
POINTS = {1: (1.6, 2.5), 2: (1.15, 1.3), 3: (1.15, 1.3)}


def _ratios_to_betas(T, ratios):
    w, R = sr.mean_weights(T), np.eye(T)
    bc = sr.critical_beta(DELTA, GAMMA, w, R)
    return w, R, [r * bc for r in ratios]


@pytest.fixture(scope="module")
def checks():
    """Simulated against predicted, 32 tables at d = 800 for each T (fixed seeds)."""
    out = {}
    for T, ratios in POINTS.items():
        w, R, betas = _ratios_to_betas(T, ratios)
        out[T] = sv.fixed_T_spike_check(D_SIM, DELTA, GAMMA, w, R, betas, seeds=N_TABLES, seed0=3000)
    return out


@pytest.mark.parametrize("T", sorted(POINTS))
def test_agrees_with_simulation_within_two_standard_errors(checks, T):
    for row in checks[T]:
        assert row["n"] >= 32 and row["d"] >= 800
        # the identification holds: few bulk eigenvalues expected above the prediction
        assert row["bulk_above"] < 0.2, row
        assert abs(row["lambda_sim"] - row["lambda_fixed_T"]) <= 2 * row["lambda_sem"], row
        assert abs(row["overlap_sim"] - row["overlap_fixed_T"]) <= 2 * row["overlap_sem"], row


@pytest.mark.parametrize("T", [1, 2])
def test_large_T_formula_misses_where_fixed_T_agrees(checks, T):
    """At T = 1 and 2 the two-stage formula of ``predict`` is off by more than two standard errors
    at every point (in the alignment), where the fixed-T prediction is within two."""
    for row in checks[T]:
        assert abs(row["overlap_sim"] - row["overlap_large_T"]) > 2 * row["overlap_sem"], row


def test_within_thirty_percent_of_the_threshold(checks):
    """The points of T = 2 and 3 lie within 30 % of the large-T threshold, the first point of T = 1
    within 30 % of the fixed-T onset (below it the equation has no solution)."""
    for T in (2, 3):
        assert all(r <= 1.3 for r in POINTS[T])
    m = sr.fixed_T_spike_model(DELTA, GAMMA, [1.0], np.eye(1))
    bc = sr.critical_beta(DELTA, GAMMA, [1.0], np.eye(1))
    assert POINTS[1][0] * bc <= 1.31 * m.beta_onset


# ------------------------------------------------------------------------- theory

@pytest.mark.parametrize("T", [8, 16])
@pytest.mark.parametrize("ratio", [1.3, 2.5])
def test_tends_to_the_large_T_formula(T, ratio):
    w, R, (beta,) = _ratios_to_betas(T, [ratio])
    pf, pl = sr.finite_T_spike(DELTA, GAMMA, w, R, beta), sr.predict(DELTA, GAMMA, w, R, beta)
    assert pf.sample_outlier == pytest.approx(pl.sample_outlier, rel=0.01)
    assert pf.overlap == pytest.approx(pl.overlap, abs=0.01 if ratio > 2 else 0.02)


def test_gap_to_the_large_T_formula_shrinks_with_T():
    gaps = []
    for T in (1, 2, 4, 8):
        w, R, (beta,) = _ratios_to_betas(T, [1.3])
        pf, pl = sr.finite_T_spike(DELTA, GAMMA, w, R, beta), sr.predict(DELTA, GAMMA, w, R, beta)
        gaps.append(abs(pf.overlap - pl.overlap))
    # from T = 4 on the gap is at the level of the Monte Carlo error of the token spectrum
    assert gaps[0] > 0.1 and gaps[0] > gaps[1] > max(gaps[2:]) and max(gaps[2:]) < 0.01, gaps


def test_uncentered_mean_outlier_tends_to_the_large_T_formula():
    w, R, (beta,) = _ratios_to_betas(16, [2.5])
    pf = sr.finite_T_spike(DELTA, GAMMA, w, R, beta, centered=False)
    pl = sr.predict(DELTA, GAMMA, w, R, beta, centered=False)
    assert pf.mean_outlier == pytest.approx(pl.mean_outlier, rel=0.01)
    assert pf.mean_overlap == pytest.approx(pl.mean_overlap, abs=0.01)
    # the signal outlier does not depend on the centering
    assert pf.sample_outlier == sr.finite_T_spike(DELTA, GAMMA, w, R, beta).sample_outlier


def test_one_token_per_sequence_has_no_mean_outlier():
    """At T' = 1 the token Gram matrix is diagonal: no direction of the vocabulary is special."""
    p = sr.finite_T_spike(DELTA, GAMMA, [1.0], np.eye(1), 3.0, centered=False)
    assert p.mean_outlier is None and p.mean_overlap == 0.0


@pytest.mark.parametrize("beta", [2.0, 3.2, 6.0])
def test_one_token_per_sequence_reduces_to_the_bulk_transform(beta):
    """At T' = 1 rho_s = nu_M, and G F_s(G) = delta / beta becomes x G(x) = 1 + 1/beta, with G the
    Stieltjes transform of the fixed-T bulk (an independent implementation)."""
    p = sr.finite_T_spike(DELTA, GAMMA, [1.0], np.eye(1), beta)
    x = p.sample_outlier
    G = complex(np.ravel(sr.finite_T_bulk(DELTA, GAMMA, [1.0]).stieltjes(x))[0])
    assert (x * G).real == pytest.approx(1 + 1 / beta, rel=1e-6)


def test_information_plus_noise_closed_form():
    """With a token spectrum concentrated at one point (nu_M = rho_s = delta at kappa delta) the
    equations are those of a spiked information-plus-noise matrix: outlier
    (1 + beta)(beta + delta)/beta and squared cosine (beta^2 - delta)/(beta (beta + delta))."""
    m = sr.fixed_T_spike_model(DELTA, GAMMA, sr.mean_weights(2), np.eye(2))
    point = sr.FiniteTSpike.__new__(sr.FiniteTSpike)
    point.__dict__.update(m.__dict__)
    point._t, point._p, point._r = np.array([DELTA]), np.array([1.0]), np.array([1.0])
    point._U = DELTA * (1 + math.sqrt(1 / DELTA)) ** 2
    point._H = point._H_of(point._x)[0]
    point._branch = int(np.argmax(point._H.real))
    beta = 2.0
    x, eta, width = point.outlier(beta + DELTA)
    assert x == pytest.approx((1 + beta) * (beta + DELTA) / beta, rel=1e-6)
    assert eta * beta / (beta + DELTA) == pytest.approx((beta**2 - DELTA) / (beta * (beta + DELTA)), rel=1e-5)
    assert width < 1e-6


def test_realized_spike_norm_moves_the_outlier():
    w, R = sr.mean_weights(2), np.eye(2)
    base = sr.finite_T_spike(DELTA, GAMMA, w, R, 2.0)
    more = sr.finite_T_spike(DELTA, GAMMA, w, R, 2.0, spike_norm2=2.0 + DELTA + 0.3)
    assert more.sample_outlier > base.sample_outlier and more.overlap > base.overlap
    assert base.theta == pytest.approx(base.alpha * (2.0 + DELTA))
    assert math.isinf(base.bulk_edge)


def test_no_solution_below_the_onset_and_curve_is_monotone():
    w, R = sr.mean_weights(2), np.eye(2)
    m = sr.fixed_T_spike_model(DELTA, GAMMA, w, R)
    betas = np.linspace(0.5 * m.beta_onset, 3 * m.beta_onset, 25)
    loc, ov = m.curve(betas)
    below = betas < m.beta_onset
    assert np.all(np.isnan(loc[below])) and np.all(ov[below] == 0)
    assert np.all(np.diff(loc[~below]) > 0) and np.all(ov[~below] >= 0)
    assert ov[-1] > 0.5
    assert sr.finite_T_spike(DELTA, GAMMA, w, R, 0.9 * m.beta_onset).sample_outlier is None


def test_cached_and_fast_for_a_slider():
    import time
    w, R = sr.mean_weights(3), np.eye(3)
    m = sr.fixed_T_spike_model(DELTA, GAMMA, w, R)
    assert sr.fixed_T_spike_model(DELTA, GAMMA, w, R) is m
    t0 = time.process_time()
    m.curve(np.linspace(1.0, 6.0, 40))
    # a whole curve of 40 betas is a few root findings on a precomputed grid
    assert time.process_time() - t0 < 10


def test_typical_spectrum_at_dimension_d_only_changes_T1():
    w2, R2 = sr.mean_weights(2), np.eye(2)
    assert (sr.finite_T_spike(DELTA, GAMMA, w2, R2, 2.0, d=800).sample_outlier
            == sr.finite_T_spike(DELTA, GAMMA, w2, R2, 2.0).sample_outlier)
    a = sr.fixed_T_spike_model(DELTA, GAMMA, [1.0], np.eye(1), d=800)
    b = sr.fixed_T_spike_model(DELTA, GAMMA, [1.0], np.eye(1))
    # the count classes of Poisson(1) that half a token of V = 1600 reaches: k <= 6
    assert a._t.size == 6 and b._t.size > 6


@pytest.mark.parametrize("kwargs, exc", [
    (dict(delta=0.0), ValueError), (dict(gamma=-1.0), ValueError),
    (dict(w=[0.0, 0.0]), ValueError), (dict(R=np.ones((3, 3))), ValueError),
    (dict(beta=-1.0), ValueError), (dict(beta="x"), TypeError),
    (dict(block=7), ValueError), (dict(d=1), ValueError), (dict(n_atoms=2), ValueError),
    (dict(centered="yes"), TypeError),
])
def test_bad_input_is_rejected(kwargs, exc):
    args = dict(delta=DELTA, gamma=GAMMA, w=sr.mean_weights(2), R=np.eye(2), beta=2.0)
    args.update(kwargs)
    with pytest.raises(exc):
        sr.finite_T_spike(**args)


def test_check_validates_its_arguments():
    with pytest.raises(ValueError, match="betas"):
        sv.fixed_T_spike_check(100, DELTA, GAMMA, [1.0], np.eye(1), [], seeds=2)
    with pytest.raises(ValueError, match="seeds"):
        sv.fixed_T_spike_check(100, DELTA, GAMMA, [1.0], np.eye(1), [1.0], seeds=1)
