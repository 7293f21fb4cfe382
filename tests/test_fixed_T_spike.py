"""Tests of the spike at fixed T (``sr.fixed_T_predict``, ``sr.FixedTSpike``): the signal
eigenvalue and its alignment from the fixed-T bulk and the spectral measure of the token
Gram matrix in the direction of the classes (chapter 3, "The spike at fixed T").

The comparisons with simulation read stored tables (``seqrmt/data/fixed_T_spike.csv``, written by
``benchmarks/fixed_T_spike.py``: independent positions at ``T = 1, 2, 3``; and
``seqrmt/data/fixed_T_spike_correlated.csv``, written by ``benchmarks/fixed_T_spike_correlated.py``:
correlated positions from ``T = 2`` to ``64`` and the validity point), so that the tests compute
only predictions.  Tolerances are fixed in advance: two standard errors of the simulated mean plus
1 % of the location and 0.015 of the squared cosine."""

from __future__ import annotations

import math

import numpy as np
import pytest

import seqrmt as sr
from seqrmt import fixed_T_spike as sp
from seqrmt import _fixed_T_draws
from seqrmt import validation as sv
from seqrmt._fixed_T_equation import _Measures

DELTA = GAMMA = 0.5
LOC_TOL, OV_TOL = 0.01, 0.015  # added to two standard errors of the simulated mean


def _ratios_to_betas(T, ratios):
    w, R = sr.mean_weights(T), np.eye(T)
    bc = sr.critical_beta(DELTA, GAMMA, w, R)
    return w, R, [r * bc for r in ratios]


# ----------------------------------------------------------- independent positions (stored)


@pytest.fixture(scope="module")
def iid_rows():
    rows, meta = sv.load_fixed_T_spike()
    assert int(meta["d"]) >= 800
    return rows


#: (T, ratio beta / beta_c) near the threshold where the fixed-T prediction is the top eigenvalue
IID_POINTS = [(1, 1.6), (1, 2.5), (2, 1.15), (2, 1.3), (3, 1.15), (3, 1.3)]


def _iid_row(rows, T, ratio):
    return next(r for r in rows if r["T"] == T and abs(r["ratio"] - ratio) < 1e-9)


@pytest.mark.parametrize("T, ratio", IID_POINTS)
def test_agrees_with_simulation_independent_positions(iid_rows, T, ratio):
    row = _iid_row(iid_rows, T, ratio)
    assert row["n"] >= 32 and row["d"] >= 800
    p = sr.fixed_T_predict(DELTA, GAMMA, sr.mean_weights(T), np.eye(T), row["beta"], d=int(row["d"]))
    assert p.sample_outlier is not None
    assert abs(row["lambda_sim"] - p.sample_outlier) <= 2 * row["lambda_sem"] + LOC_TOL * p.sample_outlier, row
    assert abs(row["overlap_sim"] - p.overlap) <= 2 * row["overlap_sem"] + OV_TOL, row


@pytest.mark.parametrize("T, ratio", [(1, 1.6), (2, 1.15), (2, 1.3)])
def test_large_T_formula_misses_where_fixed_T_agrees(iid_rows, T, ratio):
    """At T = 1 and 2 near the threshold the two-stage formula of ``predict`` is off by more than
    two standard errors in the alignment."""
    row = _iid_row(iid_rows, T, ratio)
    assert abs(row["overlap_sim"] - row["overlap_large_T"]) > 2 * row["overlap_sem"], row


# ------------------------------------------------------------- correlated positions (stored)

_stored_setting = sr.fixed_T_setting


@pytest.fixture(scope="module")
def corr_rows():
    rows, meta = sp.load_fixed_T_spike_correlated()
    return rows


def test_stored_correlated_table_covers_T_2_to_64(corr_rows):
    spikes = [r for r in corr_rows if r["kind"] == "spike"]
    assert {r["T"] for r in spikes} == {2, 4, 8, 16, 32, 64}
    assert all(r["n"] >= 24 and r["d"] >= 800 for r in spikes)
    assert {r["R"] for r in spikes} == {"markov", "prefix"}


@pytest.mark.parametrize(
    "name", ["markov0.8_T2", "markov0.8_T4", "markov0.8_T8", "markov0.8_T16", "prefix_T32", "prefix_T64"]
)
def test_agrees_with_simulation_correlated_positions(corr_rows, name):
    """The fixed-T prediction against the stored means (two standard errors plus 1 % / 0.015), where
    it predicts the top eigenvalue to carry the signal alone at the simulated d."""
    row = next(r for r in corr_rows if r["name"] == name)
    w, R = _stored_setting(row)
    p = sr.fixed_T_predict(row["delta"], row["gamma"], w, R, row["beta"], d=int(row["d"]))
    assert p.single_eigenvalue, (name, p.bulk_above, p.count_resolution)
    assert abs(row["lambda_sim"] - p.sample_outlier) <= 2 * row["lambda_sem"] + LOC_TOL * p.sample_outlier, (
        name,
        p.sample_outlier,
        row,
    )
    assert abs(row["overlap_sim"] - p.overlap) <= 2 * row["overlap_sem"] + OV_TOL, (name, p.overlap, row)
    # the discretization error is reported, and small against the tolerance
    assert p.location_error < 0.3 * LOC_TOL and p.overlap_error < 0.3 * OV_TOL


# ------------------------------------------------------------------ the validity check


@pytest.fixture(scope="module")
def validity():
    rows, _ = sp.load_fixed_T_spike_correlated()
    rows = [r for r in rows if r["kind"] == "validity"]
    w, R = _stored_setting(rows[0])
    model = sr.fixed_T_spike_model(rows[0]["delta"], rows[0]["gamma"], w, R)
    return rows, model


def test_validity_point_is_the_stated_one(validity):
    rows, model = validity
    assert {r["d"] for r in rows} == {500, 1000} and all(r["n"] >= 24 for r in rows)
    x = model.outlier(rows[0]["beta"] + rows[0]["delta"])[0]
    # (to 1e-4: the sampled token spectrum moves with the rounding of the BLAS in use)
    assert x == pytest.approx(rows[0]["x"], rel=1e-4)


def test_limit_law_misses_the_finite_d_tail(validity):
    """The limit law (``FixedTBulkLaw.expected_above``) expects almost no bulk eigenvalue above the
    predicted signal eigenvalue; tables at beta = 0 have several tenths of one, more at larger d."""
    rows, model = validity
    law = sr.fixed_T_bulk_law(rows[0]["delta"], rows[0]["gamma"], model.w)
    for r in rows:
        assert float(law.expected_above(r["x"], int(r["d"]))) < 1e-3
        assert r["count_beta0"] - 2 * r["count_sem"] > 0.1


def test_finite_d_count_matches_tables_at_beta_zero(validity):
    """``bulk_above`` (token-norm fluctuations at finite d) within two standard errors plus 0.05 of
    the simulated count, at both d."""
    rows, model = validity
    for r in rows:
        count, res = model.bulk_above(r["x"], int(r["d"]))
        assert abs(float(count) - r["count_beta0"]) <= 2 * r["count_sem"] + 0.05, (r["d"], count, r)
        assert float(res) < float(count)


def test_no_single_eigenvalue_and_the_robust_mass(validity):
    """No single eigenvalue is predicted at d = 500 and 1000, and indeed the top eigenvector holds less
    than eta_T at d = 1000; the eigenvalues above the threshold together hold eta_T (the spectral mass
    along u above it, within two standard errors plus 0.015)."""
    rows, model = validity
    for r in rows:
        p = model.predict(r["beta"], d=int(r["d"]), threshold=r["threshold"])
        assert p.single_eigenvalue is False and p.bulk_above > model.max_count
        assert abs(p.mass_above - r["mass_sim"]) <= 2 * r["mass_sem"] + OV_TOL, (r["d"], p.mass_above, r)
        # the mass above the threshold is the signal atom plus a little bulk
        assert p.overlap <= p.mass_above <= p.overlap + 0.02
    big = next(r for r in rows if r["d"] == 1000)
    p = model.predict(big["beta"], d=1000)
    assert big["overlap_sim"] + 2 * big["overlap_sem"] < p.overlap


def test_mass_above_is_a_distribution_function():
    m = sr.fixed_T_spike_model(DELTA, GAMMA, sr.mean_weights(4), sr.markov_correlation(4, 0.8))
    x, eta, _ = m.outlier(1.0 + DELTA)
    ys = np.array([0.2, 0.5, 0.9, 0.99]) * x
    masses = [m.mass_above(1.0, y) for y in ys]
    assert np.all(np.diff(masses) <= 1e-9) and masses[0] <= 1.0
    # just below the root only the atom is left, just above nothing
    assert m.mass_above(1.0, 0.999 * x) == pytest.approx(eta * 1.0 / (1.0 + DELTA), abs=2e-3)
    assert abs(m.mass_above(1.0, 1.01 * x)) < 1e-6
    # the bulk mass along G alone: 1 - atom at a small threshold
    assert float(m.tail_mass(1e-3)) == pytest.approx(1.0 - sr.fixed_T_atom(DELTA, GAMMA, m.w), abs=0.02)


# ----------------------------------------------------------------------- the large-T limit


def _R(name, T):
    return sr.prefix_correlation(T, T // 4) if name == "prefix" else sr.markov_correlation(T, float(name))


def _w(name, R):
    T = R.shape[0]
    if name == "mean":
        return sr.mean_weights(T)
    if name == "causal":
        return sr.causal_weights(T)
    return sr.optimal_weights(R, normalize="unit" if np.any(R < 0) else "sum")


_RS = ["0.5", "0.8", "-0.4", "prefix"]
_WS = ["mean", "causal", "optimal"]
#: every (R, w) pair once, and every R and every w at each T (a Latin arrangement of the 36)
LIMIT_CASES = [(T, r, _WS[(i + j) % 3]) for j, T in enumerate((16, 32, 64)) for i, r in enumerate(_RS)]


def _limit_check(T, rname, wname):
    R = _R(rname, T)
    w = _w(wname, R)
    bc = sr.critical_beta(DELTA, GAMMA, w, R)
    beta = 2.5 * bc if bc > 0 else 1.0  # bc = 0: an outlier even at beta = 0
    pf, pl = sr.fixed_T_predict(DELTA, GAMMA, w, R, beta), sr.predict(DELTA, GAMMA, w, R, beta)
    assert pf.sample_outlier == pytest.approx(pl.sample_outlier, rel=0.01), (T, rname, wname)
    assert pf.overlap == pytest.approx(pl.overlap, abs=0.01), (T, rname, wname)


@pytest.mark.parametrize("T, rname, wname", LIMIT_CASES)
def test_tends_to_the_large_T_formula(T, rname, wname):
    _limit_check(T, rname, wname)


def test_the_draw_error_of_the_outlier_of_m_is_carried_into_the_prediction():
    """Well apart from the bulk of m (T = 8, rho = 0.8) the atom of the outlier of m along s is known
    well and the prediction with the half-size draws' atom is nearly the same; where that outlier barely
    leaves the bulk (T = 16, rho = -0.4, optimal weights: the alignment moves by 0.01 between seeds)
    the prediction says so; and without such an outlier (R = I) the error is zero.  (The 36 cases of R,
    w and T = 16, 32, 64 against the large-T formula: ``benchmarks/fixed_T_spike_speed.py --limit``.)"""

    def err(T, R, w):
        bc = sr.critical_beta(DELTA, GAMMA, w, R)
        return sr.fixed_T_predict(DELTA, GAMMA, w, R, 2.5 * bc).outlier_overlap_error

    R8 = sr.markov_correlation(8, 0.8)
    assert err(8, R8, sr.mean_weights(8)) < 0.002
    R16 = sr.markov_correlation(16, -0.4)
    assert err(16, R16, sr.optimal_weights(R16, normalize="unit")) > 0.005
    assert err(4, np.eye(4), sr.mean_weights(4)) == 0.0


def test_gap_to_the_large_T_formula_shrinks_with_T():
    gaps = []
    for T in (1, 2, 4, 8):
        w, R, (beta,) = _ratios_to_betas(T, [1.3])
        pf, pl = sr.fixed_T_predict(DELTA, GAMMA, w, R, beta), sr.predict(DELTA, GAMMA, w, R, beta)
        gaps.append(abs(pf.overlap - pl.overlap))
    # from T = 4 on the gap is at the level of the Monte Carlo error of the token spectrum
    assert gaps[0] > 0.1 and gaps[0] > gaps[1] > max(gaps[2:]) and max(gaps[2:]) < 0.01, gaps


def test_outlier_of_the_token_gram_matrix_is_its_own_atom():
    """With a correlated R, m = d M has an eigenvalue along s apart from its bulk, carrying most of
    nu_s; it is kept whole (not grouped with the top of the bulk), and without it (R = I) there is none."""
    m = sr.fixed_T_spike_model(DELTA, GAMMA, sr.causal_weights(16), sr.markov_correlation(16, 0.8))
    t_star, w_star = m.s_outlier
    assert t_star > 1.2 * m._t.max() and 0.5 < w_star < 1.0
    assert abs(m.outlier_bias[1]) < 0.02 and abs(m.s_mean_error) < 0.02
    assert sr.fixed_T_spike_model(DELTA, GAMMA, sr.mean_weights(4), np.eye(4)).s_outlier is None


def test_uncentered_mean_outlier_tends_to_the_large_T_formula():
    w, R, (beta,) = _ratios_to_betas(16, [2.5])
    pf = sr.fixed_T_predict(DELTA, GAMMA, w, R, beta, centered=False)
    pl = sr.predict(DELTA, GAMMA, w, R, beta, centered=False)
    assert pf.mean_outlier == pytest.approx(pl.mean_outlier, rel=0.01)
    assert pf.mean_overlap == pytest.approx(pl.mean_overlap, abs=0.01)
    # the signal outlier does not depend on the centering
    assert pf.sample_outlier == sr.fixed_T_predict(DELTA, GAMMA, w, R, beta).sample_outlier


def test_one_token_per_sequence_has_no_mean_outlier():
    """At T' = 1 the token Gram matrix is diagonal: no direction of the vocabulary is special."""
    p = sr.fixed_T_predict(DELTA, GAMMA, [1.0], np.eye(1), 3.0, centered=False)
    assert p.mean_outlier is None and p.mean_overlap == 0.0


@pytest.mark.parametrize("beta", [2.0, 3.2, 6.0])
def test_one_token_per_sequence_reduces_to_the_bulk_transform(beta):
    """At T' = 1 rho_s = nu_M, and G F_s(G) = delta / beta becomes x G(x) = 1 + 1/beta, with G the
    Stieltjes transform of the fixed-T bulk (an independent implementation)."""
    p = sr.fixed_T_predict(DELTA, GAMMA, [1.0], np.eye(1), beta)
    x = p.sample_outlier
    G = complex(np.ravel(sr.fixed_T_bulk_law(DELTA, GAMMA, [1.0]).stieltjes(x))[0])
    assert (x * G).real == pytest.approx(1 + 1 / beta, rel=1e-6)


def test_at_beta_zero_the_outlier_of_m_gives_an_eigenvalue():
    """With a correlated R the class-mean noise alone gives an outlier (large T: critical_beta = 0); at
    fixed T it is the pole psi(t_*) of H, with no alignment with u, near the large-T location."""
    w, R = sr.causal_weights(32), sr.markov_correlation(32, 0.8)
    assert sr.critical_beta(DELTA, GAMMA, w, R) == 0
    pf, pl = sr.fixed_T_predict(DELTA, GAMMA, w, R, 0.0), sr.predict(DELTA, GAMMA, w, R, 0.0)
    assert pf.sample_outlier == pytest.approx(pl.sample_outlier, rel=0.01)
    assert pf.overlap == 0.0 and 0 < pf.sample_overlap < 1
    assert pf.sample_overlap == pytest.approx(pl.population_overlap * pl.sample_overlap, abs=0.02)
    # and it is the limit of small beta
    assert sr.fixed_T_predict(DELTA, GAMMA, w, R, 1e-6).sample_outlier == pytest.approx(pf.sample_outlier, rel=1e-4)


def test_information_plus_noise_closed_form():
    """With a token spectrum concentrated at one point (nu_M = rho_s = delta at kappa delta) the
    equations are those of a spiked information-plus-noise matrix: outlier
    (1 + beta)(beta + delta)/beta and squared cosine (beta^2 - delta)/(beta (beta + delta))."""
    point = _Measures(np.array([DELTA]), np.array([1.0]), np.array([1.0]), [], [], 1 / DELTA, 0.25, 10.0)
    beta = 2.0
    x, eta, width = (float(v[0]) for v in point.solve(np.array([beta + DELTA]), DELTA))
    assert x == pytest.approx((1 + beta) * (beta + DELTA) / beta, rel=1e-6)
    assert eta * beta / (beta + DELTA) == pytest.approx((beta**2 - DELTA) / (beta * (beta + DELTA)), rel=1e-5)
    assert width < 1e-6


def test_an_outlier_atom_gives_the_information_plus_noise_pole():
    """An atom of nu_s with no nu_M mass above nu_M puts a pole in H at psi(t) = t + c int t a/(a - t):
    the root for any b > delta lies above it."""
    point = _Measures(np.array([DELTA]), np.array([1.0]), np.array([0.3]), [3.0], [0.7], 1 / DELTA, 0.25, 10.0)
    assert len(point.poles) == 1
    x0 = point.poles[0]
    assert x0 == pytest.approx(3.0 * (1 + 1 / (3.0 - DELTA)), rel=1e-12)  # a + c p t a / (a - t)
    xs, eta, _ = point.solve(np.array([DELTA + 0.01, DELTA + 1.0]), DELTA)
    assert np.all(xs > x0) and xs[0] < xs[1] and np.all((eta > 0) & (eta < 1))


def test_squared_cosine_is_never_clipped():
    """A wrong evaluation (nu_s given three times its mass) gives a squared cosine above 1: it is
    returned as computed, with a warning, not clipped to 1."""
    m = sr.fixed_T_spike_model(DELTA, GAMMA, sr.mean_weights(2), np.eye(2))
    bad = sp.FixedTSpike.__new__(sp.FixedTSpike)
    bad.__dict__.update(m.__dict__)
    bad._m = _Measures(m._t, m._p, 3.0 * m._r, [], [], m._c, 0.5 * m.kappa, 10.0)
    bad._mc = bad._m
    with pytest.warns(RuntimeWarning, match="outside"):
        _, eta, _ = bad.outlier(6.0)
    assert eta > 1.0


def test_realized_spike_norm_moves_the_outlier():
    w, R = sr.mean_weights(2), np.eye(2)
    base = sr.fixed_T_predict(DELTA, GAMMA, w, R, 2.0)
    more = sr.fixed_T_predict(DELTA, GAMMA, w, R, 2.0, spike_norm2=2.0 + DELTA + 0.3)
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
    assert sr.fixed_T_predict(DELTA, GAMMA, w, R, 0.9 * m.beta_onset).sample_outlier is None


def test_a_curve_after_the_model_draws_nothing(monkeypatch):
    """The model is cached, and a 40-point curve after it only solves the equation: no token is
    drawn again.  (How long a model takes at T = 1 to 64, and a curve after it, in seconds and as a
    ratio to one ``predict`` call: ``benchmarks/fixed_T_spike_speed.py``, not a timed test.)"""
    w, R = sr.mean_weights(4), sr.prefix_correlation(4, 1)
    m = sr.fixed_T_spike_model(1.0, 0.5, w, R)
    assert sr.fixed_T_spike_model(1.0, 0.5, w, R) is m

    def no_draws(*args, **kwargs):
        raise AssertionError("the curve drew tokens")

    monkeypatch.setattr(_fixed_T_draws, "_spike_block", no_draws)
    monkeypatch.setattr(_fixed_T_draws, "_sparse_outlier", no_draws)
    x, eta = m.curve(np.linspace(1.0, 6.0, 40))
    assert x.shape == eta.shape == (40,) and np.isfinite(eta[-1])


def test_typical_spectrum_at_dimension_d_only_changes_T1():
    w2, R2 = sr.mean_weights(2), np.eye(2)
    assert (
        sr.fixed_T_predict(DELTA, GAMMA, w2, R2, 2.0, d=800).sample_outlier
        == sr.fixed_T_predict(DELTA, GAMMA, w2, R2, 2.0).sample_outlier
    )
    a = sr.fixed_T_spike_model(DELTA, GAMMA, [1.0], np.eye(1), d=800)
    b = sr.fixed_T_spike_model(DELTA, GAMMA, [1.0], np.eye(1))
    # the count classes of Poisson(1) that half a token of V = 1600 reaches: k <= 6
    assert a._t.size == 6 and b._t.size > 6


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        (dict(delta=0.0), ValueError),
        (dict(gamma=-1.0), ValueError),
        (dict(w=[0.0, 0.0]), ValueError),
        (dict(R=np.ones((3, 3))), ValueError),
        (dict(beta=-1.0), ValueError),
        (dict(beta="x"), TypeError),
        (dict(block=7), ValueError),
        (dict(d=1), ValueError),
        (dict(n_atoms=2), ValueError),
        (dict(centered="yes"), TypeError),
        (dict(outlier_block=10), ValueError),
        (dict(outlier_draws=0), ValueError),
        (dict(max_count=-1.0), ValueError),
        (dict(threshold=-1.0), ValueError),
    ],
)
def test_bad_input_is_rejected(kwargs, exc):
    args = dict(delta=DELTA, gamma=GAMMA, w=sr.mean_weights(2), R=np.eye(2), beta=2.0)
    args.update(kwargs)
    with pytest.raises(exc):
        sr.fixed_T_predict(**args)


def test_validity_methods_reject_bad_input():
    m = sr.fixed_T_spike_model(DELTA, GAMMA, sr.mean_weights(2), np.eye(2))
    with pytest.raises(ValueError, match="x"):
        m.bulk_above(-1.0, 500)
    with pytest.raises(ValueError, match="d"):
        m.bulk_above(3.0, 1)
    with pytest.raises(ValueError, match="threshold"):
        m.mass_above(1.0, 0.0)


def test_check_validates_its_arguments():
    with pytest.raises(ValueError, match="betas"):
        sv.fixed_T_spike_check(100, DELTA, GAMMA, [1.0], np.eye(1), [], seeds=2)
    with pytest.raises(ValueError, match="seeds"):
        sv.fixed_T_spike_check(100, DELTA, GAMMA, [1.0], np.eye(1), [1.0], seeds=1)


def test_check_rows_carry_the_finite_d_validity_check(validity):
    """The simulation check's rows report the finite-d count of :meth:`FixedTSpike.bulk_above` (not
    the limit law's, which misses the tail) at the validity point, and say that no single
    eigenvalue is predicted there."""
    rows, model = validity
    r0 = rows[0]
    (row,) = sv.fixed_T_spike_check(500, r0["delta"], r0["gamma"], model.w, model.R, [r0["beta"]], seeds=2)
    p = model.predict(r0["beta"], d=500)
    assert row["bulk_above"] == pytest.approx(p.bulk_above, rel=1e-12) and row["bulk_above"] > model.max_count
    assert row["single_eigenvalue"] is False and row["mass_above"] == pytest.approx(p.mass_above, rel=1e-12)
    law = sr.fixed_T_bulk_law(r0["delta"], r0["gamma"], model.w)
    assert float(law.expected_above(row["lambda_fixed_T"], 500)) < 1e-3 < row["bulk_above"]
