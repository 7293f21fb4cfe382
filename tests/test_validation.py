"""Theory against simulation: the validation atlas (seqrmt.validation).

The CI-size test runs a handful of atlas cells at d = 400 and FAILS when theory and
simulation disagree beyond the tolerance of :class:`seqrmt.validation.Tolerance`
(``max(t * sem, absolute)``, ``t`` the 99 % Student quantile for the number of seeds).
The full sweep (324 cells at d = 800, several minutes) is skipped unless the
environment variable ``SEQRMT_FULL_SWEEP=1`` is set:

    SEQRMT_FULL_SWEEP=1 pytest tests/test_validation.py -m slow
"""
from __future__ import annotations

import io
import math
import os

import numpy as np
import pytest

import seqrmt as sr
import seqrmt.validation as sv

# Documented causes of a remaining disagreement (see explain() and the chapter).
EXPLAINED = ("predicted within", "tokens", "near the sample transition")


def _outlier_row(r):
    """An outlier or overlap row (no finite-d classical location)."""
    fin = r["predicted_finite_d"]
    return not (isinstance(fin, float) and math.isfinite(fin))


# ----------------------------------------------------------------- helpers and CSV
def test_tolerance_rule():
    tol = sv.Tolerance()
    assert tol.quantile(4) == pytest.approx(5.841, abs=1e-3)
    assert tol("lambda_1", 2.0, 0.0, 4) == pytest.approx(0.06)
    assert tol("overlap_signal", 0.3, 0.001, 6) == pytest.approx(0.05)
    assert tol("ks_bulk", 0.0, 0.1, 6) == pytest.approx(tol.quantile(6) * 0.1)
    with pytest.raises(ValueError, match="quantity"):
        tol("nonsense", 1.0, 0.0, 3)


def test_kolmogorov_distance_matches_definition():
    class Uniform:
        @staticmethod
        def cdf(x):
            return np.clip(np.asarray(x, dtype=float), 0, 1)

    x = np.array([0.1, 0.35, 0.4, 0.9])
    # sup |F_n - F|: jumps at 0.1 (0 -> .25), 0.35 (.25 -> .5), 0.4 (.5 -> .75), 0.9 (.75 -> 1)
    assert sv.kolmogorov_distance(x, Uniform()) == pytest.approx(0.35)
    assert sv.kolmogorov_distance(np.append(x, 5.0), Uniform(), n_exclude=1) == pytest.approx(0.35)
    with pytest.raises(ValueError, match="n_exclude"):
        sv.kolmogorov_distance(x, Uniform(), n_exclude=4)


def test_kolmogorov_distance_with_atom():
    law = sr.BulkLaw(2.0, 0.5, 1.0)        # atom 1/2 at zero
    rng = np.random.default_rng(0)
    x = law.rvs(1000, seed=rng)               # includes the atom
    assert sv.kolmogorov_distance(x, law) < 0.06
    assert sv.kolmogorov_distance(np.concatenate([np.zeros(500), x]), law) > 0.1
    # all mass on the atom: distance = 1 - atom
    assert sv.kolmogorov_distance(np.zeros(10), law) == pytest.approx(0.5)


def test_spectra_same_draws_as_simulate():
    R = sv.atlas_correlation("copula", 8)
    w = sr.named_weights("causal", R)
    d, V, N = 60, 100, 90
    for centered in (True, False):
        sim = sr.simulate(d, V, N, w, R, 0.8, centered=centered, seed=3)
        (_, _, _, lam, U, _), = sv._spectra(d, V, N, R, {"w": w}, {"w": [0.8]}, [centered], 3)
        np.testing.assert_allclose(lam, sim.eigenvalues, atol=1e-10)
        np.testing.assert_allclose(U[0, :3] ** 2, sim.overlaps[:3], atol=1e-8)


def test_atlas_betas_rules():
    R = sv.atlas_correlation("prefix")
    b = sv.atlas_betas(0.5, 0.25, sr.named_weights("mean", R), R)
    assert b["rule"] == "standard"
    assert 0 < b["betas"]["low"] < b["beta_c_pop"] < b["betas"]["mid"] < b["beta_c_sample"] < b["betas"]["high"]
    b = sv.atlas_betas(0.5, 0.25, sr.named_weights("optimal", R), R)
    assert b["rule"] == "always" and b["beta_c_sample"] == 0.0
    assert b["betas"]["low"] == 0.0 and b["betas"]["high"] == pytest.approx(2 * b["beta_c_sample_ideal"])


def test_bad_arguments():
    with pytest.raises(ValueError, match="R must be"):
        sv.atlas_correlation("toeplitz")
    with pytest.raises(ValueError, match="grid\\['weights'\\] values must be"):
        sv.atlas(100, 2, grid={"weights": ["softmax"]})
    with pytest.raises(ValueError, match="grid has unknown keys"):
        sv.atlas(100, 2, grid={"beta": [1.0]})
    with pytest.raises(ValueError, match="regime"):
        sv.atlas(100, 2, grid={"regime": ["huge"]})
    with pytest.raises(ValueError, match="log-log"):
        sv.fit_rate([1, 2], [1.0, 0.0])


def test_fit_rate_recovers_slope():
    ds = np.array([200, 400, 800, 1600])
    slope, _ = sv.fit_rate(ds, 3.0 * ds ** -0.5)
    assert slope == pytest.approx(-0.5)


def test_csv_round_trip(tmp_path):
    rows = [dict(a=1, b=0.1 + 0.2, c="x y", d=True, e=float("nan")),
            dict(a=2, b=-1e-300, c="", d=False, e=3.0)]
    meta = {"d": 800, "seeds": "0..3"}
    path = tmp_path / "t.csv"
    sv.to_csv(rows, path, meta=meta)
    back, m = sv.read_csv(path)
    assert m == {"d": "800", "seeds": "0..3"}
    assert back[0]["b"] == 0.1 + 0.2 and back[1]["b"] == -1e-300
    assert back[0]["a"] == 1 and back[0]["c"] == "x y" and back[0]["d"] is True
    assert math.isnan(back[0]["e"]) and back[1]["e"] == 3.0
    text = sv.to_csv(rows, meta=meta)
    assert text.startswith("# d: 800\n")
    assert sv.read_csv(io.StringIO(text))[0][1]["d"] is False
    with pytest.raises(ValueError):
        sv.to_csv([])


# ----------------------------------------------------------------- CI-size comparison
CI_CELLS = [
    # (delta, gamma, R, weights, regime, centered): away from the transitions and from
    # near-degenerate signal / mean outliers (those are covered by the shipped atlas)
    (0.5, 0.25, "prefix", "mean", "high", True),
    (0.25, 1.5, "markov", "optimal", "high", True),
    (1.5, 0.25, "copula", "causal", "high", False),
    (0.5, 1.5, "prefix", "causal", "low", True),
]


@pytest.fixture(scope="module")
def ci_rows():
    rows = []
    for dl, gm, R, w, reg, c in CI_CELLS:
        rows += sv.atlas(400, 6, grid=dict(delta=[dl], gamma=[gm], R=[R], weights=[w],
                                           regime=[reg], centered=[c]))
    return rows


def test_ci_cells_agree(ci_rows):
    """Outliers and overlaps agree with the limit theory; eigenvalues that sit in the
    bulk agree with their finite-d classical location (the edge is approached at rate
    d^(-2/3), a few percent at d = 400)."""
    assert {r["cell"] for r in ci_rows} == {
        sv._cell_id(dict(delta_nominal=c[0], gamma_nominal=c[1], R=c[2], weights=c[3], regime=c[4],
                         centered=c[5])) for c in CI_CELLS}
    for r in ci_rows:
        msg = (f"{r['cell']} {r['quantity']}: predicted {r['predicted']:.4g} (corrected "
               f"{r['predicted_corrected']:.4g}), simulated {r['empirical']:.4g} +- {r['sem']:.2g}")
        assert r["status_corrected"] == "agree", msg
        if _outlier_row(r):
            assert r["status"] == "agree", msg


def test_ci_idealized_prediction_is_off(ci_rows):
    """Where the simulation shows an outlier created partly by the class-mean noise,
    the idealized prediction (theta = alpha beta) is far outside the tolerance."""
    r = next(r for r in ci_rows if r["cell"].startswith("delta=0.5 gamma=0.25 R=prefix w=mean high")
             and r["quantity"] == "overlap_signal")
    assert r["phase_ideal"] != "sample outlier" and r["predicted_ideal"] == 0.0
    assert abs(r["predicted_ideal"] - r["empirical"]) > 2 * r["tol"]


def test_ci_mean_outlier_and_centering(ci_rows):
    r = next(r for r in ci_rows if r["quantity"] == "lambda_mean")
    assert r["status"] == "agree" and r["empirical"] > r["bulk_edge"] * 1.2
    assert r["predicted_ideal"] == r["bulk_edge"]          # the idealized theory has no mean spike


def test_bulk_vs_T_small():
    rows = sv.bulk_vs_T(200, [1, 8], 2)
    ks = {r["T"]: r["empirical"] for r in rows}
    assert ks[8] < 0.03
    assert ks[1] > ks[8]          # classical Poisson counts at T = 1


def test_finite_size_rows():
    rows = sv.finite_size([100, 200], {100: 3, 200: 2},
                          settings={"s": sv.FINITE_SIZE_SETTINGS["prefix/mean, far above"]})
    assert {r["d"] for r in rows} == {100, 200}
    assert all(r["rmse"] >= r["abs_error"] - 1e-12 for r in rows)
    rates = sv.scaling_rates(rows)
    assert ("s", "lambda_signal") in rates


# ----------------------------------------------------------------- shipped tables
def test_shipped_atlas_covers_grid_and_explains_disagreements():
    rows, meta = sv.load_atlas()
    for key in ("d", "seeds", "seqrmt_version", "tolerance", "runtime_seconds_whole_sweep"):
        assert key in meta
    g = sv.ATLAS_GRID
    expected = {sv._cell_id(dict(delta_nominal=dl, gamma_nominal=gm, R=R, weights=w, regime=reg, centered=c))
                for dl in g["delta"] for gm in g["gamma"] for R in g["R"] for w in g["weights"]
                for reg in g["regime"] for c in g["centered"]}
    assert {r["cell"] for r in rows} == expected
    assert len(expected) == 324
    for r in rows:
        assert r["status"] in ("agree", "disagree")
        if r["status"] != "agree":
            assert r["note"], f"{r['cell']} {r['quantity']} disagrees without an explanation"
        if r["status_corrected"] != "agree":
            assert any(k in r["note"] for k in EXPLAINED), (r["cell"], r["quantity"], r["note"])


def test_shipped_finite_size_table():
    rows, meta = sv.load_finite_size()
    studies = {r["study"] for r in rows}
    assert studies == {"scaling", "bulk_T"}
    ds = {r["d"] for r in rows if r["study"] == "scaling"}
    assert ds == {200, 400, 800, 1600}
    Ts = {r["T"] for r in rows if r["study"] == "bulk_T"}
    assert Ts == {1, 2, 4, 8, 16}


# ----------------------------------------------------------------- full sweep
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("SEQRMT_FULL_SWEEP") != "1",
                    reason="full validation sweep (324 cells at d = 800, several minutes): "
                           "run with SEQRMT_FULL_SWEEP=1 pytest tests/test_validation.py -m slow")
def test_full_sweep():
    rows = sv.atlas(800, 6)
    assert len({r["cell"] for r in rows}) == 324
    bad = [r for r in rows if r["status_corrected"] != "agree"
           and not any(k in r["note"] for k in EXPLAINED)]
    assert not bad, "\n".join(f"{r['cell']} {r['quantity']}: {r['note']}" for r in bad)
