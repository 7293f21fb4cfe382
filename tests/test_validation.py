"""Theory against simulation: the validation atlas (seqrmt.validation).

The CI-size test runs a handful of atlas cells at d = 400 and FAILS when theory and
simulation disagree beyond the tolerance of :class:`seqrmt.validation.Tolerance`
(``max(t * sem, absolute)``, ``t`` the 99 % Student quantile for the number of seeds)
and no quantitative criterion of :func:`seqrmt.validation.judge` accepts the row.
The shipped tables are checked against the code: a few rows are regenerated with the
same seeds and must match to the stored precision (8 significant digits).
The full sweep (324 cells at d = 800, several minutes) is skipped unless the
environment variable ``SEQRMT_FULL_SWEEP=1`` is set:

    SEQRMT_FULL_SWEEP=1 pytest tests/test_validation.py -m slow
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import seqrmt as sr
import seqrmt.validation as sv
from seqrmt import settings
from seqrmt.validation.grid import _cell_id
from seqrmt.validation.measure import _spectra
from seqrmt.validation.scaling import _scaling_unit

# Columns computed from the simulation (compared when a shipped row is regenerated).
DATA = (
    "predicted",
    "predicted_ideal",
    "predicted_realized",
    "predicted_corrected",
    "empirical",
    "std",
    "sem",
    "tol",
    "theta",
    "theta_c",
    "bulk_edge",
)
STORED_RTOL = 1e-7  # the tables store 8 significant digits


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
    law = sr.BulkLaw(2.0, 0.5, 1.0)  # atom 1/2 at zero
    rng = np.random.default_rng(0)
    x = law.rvs(1000, seed=rng)  # includes the atom
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
        ((_, _, _, lam, U, _),) = _spectra(d, V, N, R, {"w": w}, {"w": [0.8]}, [centered], 3)
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
    slope, _ = sv.fit_rate(ds, 3.0 * ds**-0.5)
    assert slope == pytest.approx(-0.5)


def test_csv_round_trip(tmp_path):
    rows = [dict(a=1, b=0.1 + 0.2, c="x y", d=True, e=float("nan")), dict(a=2, b=-1e-300, c="", d=False, e=3.0)]
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
        rows += sv.atlas(400, 6, grid=dict(delta=[dl], gamma=[gm], R=[R], weights=[w], regime=[reg], centered=[c]))
    return rows


def test_ci_cells_agree(ci_rows):
    """Outliers and overlaps agree with the limit theory; eigenvalues that sit in the
    bulk agree with their finite-d classical location (the edge is approached at rate
    d^(-2/3), a few percent at d = 400)."""
    assert {r["cell"] for r in ci_rows} == {
        _cell_id(dict(delta_nominal=c[0], gamma_nominal=c[1], R=c[2], weights=c[3], regime=c[4], centered=c[5]))
        for c in CI_CELLS
    }
    for r in ci_rows:
        msg = (
            f"{r['cell']} {r['quantity']}: predicted {r['predicted']:.4g} (corrected "
            f"{r['predicted_corrected']:.4g}), simulated {r['empirical']:.4g} +- {r['sem']:.2g}"
        )
        assert r["status_corrected"] == "agree", msg
        assert r["status"] != "disagree", msg
        if _outlier_row(r):
            assert r["status_limit"] == "agree", msg


def test_ci_idealized_prediction_is_off(ci_rows):
    """Where the simulation shows an outlier created partly by the class-mean noise,
    the idealized prediction (theta = alpha beta) is far outside the tolerance."""
    r = next(
        r
        for r in ci_rows
        if r["cell"].startswith("delta=0.5 gamma=0.25 R=prefix w=mean high") and r["quantity"] == "overlap_signal"
    )
    assert r["phase_ideal"] != "sample outlier" and r["predicted_ideal"] == 0.0
    assert abs(r["predicted_ideal"] - r["empirical"]) > 2 * r["tol"]


def test_ci_mean_outlier_and_centering(ci_rows):
    r = next(r for r in ci_rows if r["quantity"] == "lambda_mean")
    assert r["status_limit"] == "agree" and r["empirical"] > r["bulk_edge"] * 1.2
    assert r["predicted_ideal"] == r["bulk_edge"]  # the idealized theory has no mean spike


def test_bulk_vs_T_small():
    rows = sv.bulk_vs_T(200, [1, 8], 2, fixed_T=False)
    ks = {r["T"]: r["empirical"] for r in rows}
    assert ks[8] < 0.03
    assert ks[1] > ks[8]  # classical Poisson counts at T = 1


def test_finite_size_rows():
    rows = sv.finite_size(
        [100, 200], {100: 3, 200: 2}, settings={"s": sv.FINITE_SIZE_SETTINGS["prefix/mean, far above"]}
    )
    assert {r["d"] for r in rows} == {100, 200}
    assert all(r["rmse"] >= r["abs_error"] - 1e-12 for r in rows)
    rates = sv.scaling_rates(rows)
    assert ("s", "lambda_signal") in rates


# ----------------------------------------------------------------- shipped tables
def test_shipped_atlas_covers_grid():
    rows, meta = sv.load_atlas()
    for key in ("d", "seeds", "seqrmt_version", "tolerance", "runtime_seconds_whole_sweep", "verdicts"):
        assert key in meta
    g = sv.ATLAS_GRID
    expected = {
        _cell_id(dict(delta_nominal=dl, gamma_nominal=gm, R=R, weights=w, regime=reg, centered=c))
        for dl in g["delta"]
        for gm in g["gamma"]
        for R in g["R"]
        for w in g["weights"]
        for reg in g["regime"]
        for c in g["centered"]
    }
    assert {r["cell"] for r in rows} == expected
    assert len(expected) == 324


@pytest.fixture(scope="module")
def shipped():
    return sv.load_atlas()[0]


@pytest.fixture(scope="module")
def rejudged(shipped):
    return sv.judge(shipped)


def test_shipped_verdicts_follow_from_the_stored_numbers(shipped, rejudged):
    """The verdict columns of atlas.csv are what judge() computes from its numbers."""
    for old, new in zip(shipped, rejudged):
        for k in ("status_limit", "status_corrected", "status", "reason"):
            assert old[k] == new[k], (old["cell"], old["quantity"], k, old[k], new[k])
    for r in rejudged:
        assert r["status"] in ("agree", "explained", "disagree")
        assert (r["reason"] in sv.REASONS) == (r["status"] == "explained")
        if r["status"] == "agree":
            assert r["status_limit"] == r["status_corrected"] == "agree"


def _one(rows, cell_start, quantity):
    return next(r for r in rows if r["cell"].startswith(cell_start) and r["quantity"] == quantity)


def _rejudge_cell(rows, cell, quantity, **changes):
    """judge() on one cell of the shipped atlas after changing one row."""
    cell_rows = [dict(r) for r in rows if r["cell"] == cell]
    for r in cell_rows:
        if r["quantity"] == quantity:
            r.update(changes)
    return next(r for r in sv.judge(cell_rows) if r["quantity"] == quantity)


def test_judge_does_not_excuse_large_disagreements(shipped):
    # an outlier far above the transition, 50 % off
    r = next(
        r
        for r in shipped
        if r["quantity"] == "lambda_signal"
        and r["phase"] == "sample outlier"
        and r["theta"] / r["theta_c"] > 2
        and r["centered"]
    )
    assert _rejudge_cell(shipped, r["cell"], "lambda_signal")["status"] == "agree"
    bad = _rejudge_cell(shipped, r["cell"], "lambda_signal", empirical=1.5 * r["predicted"])
    assert bad["status"] == "disagree" and bad["reason"] == "none"
    # its squared cosine 0.3 off
    bad = _rejudge_cell(shipped, r["cell"], "overlap_signal", empirical=r["predicted"] - 0.3)
    assert bad["status"] == "disagree"
    # a Kolmogorov distance of 0.9 where the fixed-T law accounts for 0.02
    k = next(r for r in shipped if r["quantity"] == "ks_bulk" and r["reason"] == "fixed-T bulk")
    bad = _rejudge_cell(shipped, k["cell"], "ks_bulk", empirical=0.9)
    assert bad["status"] == "disagree" and bad["ks_fixed_T"] < 0.1
    # inside the transition window, an eigenvalue 50 % above the edge is not excused
    w = next(r for r in shipped if r["reason"] == "transition window" and r["quantity"].startswith("lambda"))
    bad = _rejudge_cell(shipped, w["cell"], w["quantity"], empirical=1.5 * w["bulk_edge"])
    assert bad["status"] == "disagree"
    # two close outliers whose eigenvalues are swapped apart but keep their sum are an unresolved
    # pair; with lambda_2 30 % higher (the sum about 15 % off) they are not excused
    p = _planted_pair(shipped)
    assert p["status"] == "explained" and p["reason"] == "unresolved pair", p["note"]
    bad = _rejudge_cell(p["_rows"], p["cell"], p["quantity"], empirical=1.3 * p["empirical"])
    assert bad["status"] == "disagree"


def _planted_pair(rows):
    """The uncentered cell of the atlas whose two predicted outliers are closest, with lambda_1 moved
    up and lambda_2 down by 6 % of their mean (more than the 3 % floor of the tolerance) and their
    sum kept: the eigenvalues of an unresolved pair of outliers."""
    cells = [
        r
        for r in rows
        if r["quantity"] == "lambda_1"
        and not r["centered"]
        and math.isfinite(r["signal_outlier"])
        and math.isfinite(r["mean_outlier"])
    ]
    r1 = min(cells, key=lambda r: abs(r["signal_outlier"] - r["mean_outlier"]) / r["signal_outlier"])
    cell = [dict(r) for r in rows if r["cell"] == r1["cell"]]
    lam = {r["quantity"]: r for r in cell}
    shift = 0.06 * (lam["lambda_1"]["predicted"] + lam["lambda_2"]["predicted"]) / 2
    lam["lambda_1"].update(empirical=lam["lambda_1"]["predicted"] + shift, sem=0.0)
    lam["lambda_2"].update(empirical=lam["lambda_2"]["predicted"] - shift, sem=0.0)
    out = next(r for r in sv.judge(cell) if r["quantity"] == "lambda_2")
    return dict(out, _rows=cell)


def test_judge_accepts_what_the_corrections_predict(shipped):
    """A bulk eigenvalue at its classical location is explained; moved to the limit
    (the bulk edge) it agrees outright; a row is never explained by a window it is not in."""
    r = next(r for r in shipped if r["reason"] == "finite-size correction" and r["quantity"] == "lambda_2")
    ok = _rejudge_cell(shipped, r["cell"], "lambda_2", empirical=r["predicted_corrected"], sem=0.0)
    assert ok["status"] == "explained" and ok["reason"] == "finite-size correction"
    for r in sv.judge(shipped):
        if r["reason"] == "transition window":
            assert abs(r["theta_ratio"] - 1) <= r["window"] or not r["centered"]


def test_edge_scale_needs_a_right_edge():
    """A fixed-T bulk law has no right edge: a clear error, not a NaN."""
    with pytest.raises(ValueError, match="no right edge"):
        sv.edge_scale(sr.fixed_T_bulk_law(1.5, 1.5, [1.0]), 600)


def test_edge_scale_matches_johnstone():
    """For kappa MP_c (gamma = 0) the Tracy-Widom scale of the largest eigenvalue of a
    d x d Wishart matrix with n = d / c samples is (1 + sqrt c)(1 + 1/sqrt c)^(1/3) n^(-2/3)
    (Johnstone 2001)."""
    for c in (0.25, 0.5, 2.0):
        for d in (400, 3200):
            n = d / c
            expected = (1 + math.sqrt(c)) * (1 + 1 / math.sqrt(c)) ** (1 / 3) * n ** (-2 / 3)
            assert sv.edge_scale(sr.BulkLaw(c, 0.0, 1.0), d) == pytest.approx(expected, rel=2e-3)


def test_transition_window_is_the_bbp_window():
    win = {d: sv.transition_window(0.5, 0.25, 1 / 16, d) for d in (800, 6400, 51200)}
    # h = c_w d^(-1/3): c_w converges (phi is quadratic at theta_c)
    assert win[6400]["c_w"] == pytest.approx(win[51200]["c_w"], rel=0.05)
    assert win[800]["h"] > win[6400]["h"] > win[51200]["h"]
    w = win[800]
    top = sr.spike_curve(w["theta_c"] * (1 + w["h"]), 0.5, 0.25, 1 / 16)
    assert float(top.sample_location) == pytest.approx(w["high"], rel=1e-9)
    assert w["low"] < w["edge"] < w["high"] and 0 < w["overlap_high"] < 1
    assert w["high"] - w["edge"] == pytest.approx(sv.TW1_QUANTILES[1] * w["scale"])


def test_law_distance():
    class U:
        def __init__(self, b):
            self.b = b

        def ppf(self, q):
            return np.asarray(q, dtype=float) * self.b

        def cdf(self, x):
            return np.clip(np.asarray(x, dtype=float) / self.b, 0, 1)

    assert sv.law_distance(U(1.0), U(2.0)) == pytest.approx(0.5, abs=1e-3)
    law = sr.BulkLaw(0.5, 0.5, 0.25)
    assert sv.law_distance(law, law) == 0.0
    # a law without a right edge: the grid runs to the end of the computed approximation
    fixed = sr.fixed_T_bulk_law(0.5, 0.5, [1.0])
    assert fixed.support()[1] == np.inf and fixed.ppf(1.0) == pytest.approx(fixed.truncation)
    assert 0.01 < sv.law_distance(fixed, sr.BulkLaw(0.5, 0.5)) < 0.2


def test_fixed_T_bulk_above():
    """Expected number of fixed-T bulk eigenvalues above a point: d times the tail mass."""
    law = sr.fixed_T_bulk_law(1.5, 1.5, [1.0])
    n = sv.fixed_T_bulk_above(1.5, 1.5, [1.0], 10.9375, 600)
    assert n == pytest.approx(600 * float(law.tail_mass(10.9375)))
    assert sv.fixed_T_bulk_above(1.5, 1.5, [1.0], 1e3, 600) == 0.0
    assert sv.fixed_T_bulk_above(1.5, 1.5, [1.0], -1.0, 600) == 600.0
    for kw, name in ((dict(delta=0.0), "delta"), (dict(x=float("nan")), "x"), (dict(d=0), "d")):
        args = dict(delta=1.5, gamma=1.5, w=[1.0], x=10.0, d=600) | kw
        with pytest.raises(ValueError, match=name):
            sv.fixed_T_bulk_above(**args)


def test_shipped_spikes_T_counts():
    """The shipped spikes_T rows carry the expected number of fixed-T bulk eigenvalues above
    the predicted signal outlier, recomputed here from the stored prediction."""
    rows, _ = sv.load_finite_size()
    sp = [r for r in rows if r["study"] == "spikes_T"]
    assert sp and all("edge_fixed_T" not in r for r in rows)
    for r in sp:
        if r["quantity"] == "lambda_signal":
            again = sv.fixed_T_bulk_above(r["delta"], r["gamma"], sr.mean_weights(r["T"]), r["predicted"], r["d"])
            assert r["bulk_above_fixed_T"] == pytest.approx(again, rel=STORED_RTOL, abs=1e-12)


# ----------------------------------------------------------------- shipped tables = code
def _same(old, new, keys):
    for k in keys:
        a, b = old[k], new[k]
        if isinstance(a, float) and math.isnan(a):
            assert math.isnan(b), k
        else:
            assert b == pytest.approx(a, rel=STORED_RTOL, abs=1e-12), (k, a, b)


@pytest.mark.parametrize("centered", [True, False])
def test_realized_prediction_uses_the_whole_spike_norm(centered):
    """The realized-table prediction of a simulation unit is sr.predict with the table's
    ||mu + Delta||^2, ||Delta||^2 and ||zbar||^2 (the draws are those of sr.simulate with the
    same seed), not with ||Delta||^2 alone."""
    d, beta, seed = 120, 1.5, 7
    V, N = sr.sizes(d, 1.0, 0.5)
    R = sv.atlas_correlation("markov")
    w = sr.named_weights("causal", R)
    unit = _scaling_unit(d, 1.0, 0.5, "markov", 16, "causal", beta, centered, seed)
    sim = sr.simulate(d, V, N, w, R, beta, centered=centered, seed=seed)
    assert unit["empirical"]["lambda_1"] == pytest.approx(sim.eigenvalues[0], rel=1e-10)
    whole = sr.predict(
        d / V,
        d / N,
        w,
        R,
        beta,
        centered=centered,
        spike_norm2=sim.spike_norm2,
        delta_norm2=sim.delta_norm2,
        zbar_norm2=sim.zbar_norm2,
    )
    part = sr.predict(
        d / V, d / N, w, R, beta, centered=centered, delta_norm2=sim.delta_norm2, zbar_norm2=sim.zbar_norm2
    )
    assert unit["realized"]["lambda_signal"] == pytest.approx(whole.sample_outlier, rel=1e-12)
    assert unit["realized"]["overlap_signal"] == pytest.approx(whole.overlap, rel=1e-12)
    assert abs(whole.sample_outlier / part.sample_outlier - 1) > 1e-4  # the cross term matters


def test_atlas_rows_regenerate(shipped):
    """One cell of atlas.csv, rerun with its seeds (0..5) at d = 800."""
    new = sv.atlas(
        800, 6, grid=dict(delta=[1.5], gamma=[1.5], R=["prefix"], weights=["optimal"], regime=["low"], centered=[False])
    )
    old = {(r["cell"], r["quantity"]): r for r in shipped}
    assert len(new) == 6
    for r in new:
        o = old[r["cell"], r["quantity"]]
        _same(o, r, DATA)
        assert (o["status"], o["reason"]) == (r["status"], r["reason"])


def test_finite_size_rows_regenerate():
    rows, _ = sv.load_finite_size()
    name = "prefix/mean, between"
    new = sv.finite_size([200], {200: 16}, settings={name: sv.FINITE_SIZE_SETTINGS[name]})
    old = {(r["setting"], r["d"], r["quantity"]): r for r in rows if r["study"] == "scaling"}
    for r in new:
        _same(
            old[r["setting"], 200, r["quantity"]],
            r,
            ("predicted", "empirical", "std", "rmse", "predicted_realized", "rmse_realized"),
        )
    (b,) = sv.bulk_vs_T(400, [4], 3, fixed_T=False)
    o = next(r for r in rows if r["study"] == "bulk_T" and r["T"] == 4 and r["d"] == 400)
    _same(o, b, ("empirical", "std", "rmse"))
    new = sv.spikes_vs_T(800, [16], 16, ratios=(3.0,), fixed_T=False)
    old = {(r["setting"], r["quantity"]): r for r in rows if r["study"] == "spikes_T"}
    for r in new:
        _same(old[r["setting"], r["quantity"]], r, ("beta", "predicted", "empirical", "std", "predicted_realized"))


def test_shipped_finite_size_table():
    rows, meta = sv.load_finite_size()
    studies = {r["study"] for r in rows}
    assert studies == {"scaling", "bulk_T", "spikes_T"}
    ds = {r["d"] for r in rows if r["study"] == "scaling"}
    assert ds == {200, 400, 800, 1600}
    Ts = {r["T"] for r in rows if r["study"] == "bulk_T"}
    assert Ts == {1, 2, 4, 8, 16}
    assert {r["T"] for r in rows if r["study"] == "spikes_T"} == {1, 2, 4, 16}


def test_large_finite_size_table_extends_the_shipped_one():
    """finite_size_large.csv (executor path, 2 processes) goes to d = 3200; its rows up to
    d = 1600 use the seeds of finite_size.csv (computed in one process) and must equal them
    to the stored precision, and its d = 3200 rows agree with the limit theory."""
    big, meta = sv.load_finite_size_large()
    assert {r["d"] for r in big} == {200, 400, 800, 1600, 3200}
    assert "3200: 4" in meta["seeds"] and "process" in meta["runtime_seconds_whole_sweep"]
    small, _ = sv.load_finite_size()
    old = {(r["setting"], r["d"], r["quantity"]): r for r in small if r["study"] == "scaling"}
    compared = 0
    for r in big:
        if r["d"] <= 1600:
            _same(
                old[r["setting"], r["d"], r["quantity"]],
                r,
                ("beta", "predicted", "empirical", "std", "rmse", "predicted_realized", "rmse_realized"),
            )
            compared += 1
    assert compared == sum(r["d"] <= 1600 for r in big) > 50
    tol = sv.Tolerance()
    top = [r for r in big if r["d"] == 3200 and r["quantity"] in ("lambda_signal", "overlap_signal")]
    assert len(top) == 6
    for r in top:
        assert abs(r["empirical"] - r["predicted"]) <= tol(r["quantity"], r["predicted"], r["sem"], r["n"]), r


def test_large_finite_size_rows_regenerate():
    """One row of finite_size_large.csv at d = 200, rerun on a 2-process executor."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    big, _ = sv.load_finite_size_large()
    name = "markov/optimal, uncentered"
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as ex:
        new = sv.finite_size([200], {200: 16}, settings={name: sv.FINITE_SIZE_SETTINGS[name]}, executor=ex)
    old = {(r["setting"], r["d"], r["quantity"]): r for r in big}
    for r in new:
        _same(old[name, 200, r["quantity"]], r, ("predicted", "empirical", "std", "rmse", "rmse_realized"))


def test_shipped_cost_table():
    rows, meta = sv.load_cost()
    cells = [r for r in rows if r["kind"] == "cell"]
    assert {r["d"] for r in cells} >= {400, 800, 1600, 3200, 6400}
    assert all(r["peak_mib"] > r["baseline_mib"] > 0 and r["seconds"] > 0 for r in cells)
    fit = sv.cost_exponent(rows)
    assert 2.0 < fit["exponent"] < 3.5
    # the fit through four points reproduces each to within its largest residual
    for d, t in fit["seconds"].items():
        assert abs(t / (math.exp(fit["intercept"]) * d ** fit["exponent"]) - 1) <= fit["residual"] + 1e-12
    h = {(d, n): sv.atlas_hours(d, n, rows) for d in (800, 1600, 3200, 6400) for n in (1, 2, 108, 1000)}
    for n in (1, 2, 108):
        assert h[800, n] < h[1600, n] < h[3200, n] < h[6400, n]
    assert h[3200, 1] == pytest.approx(2 * h[3200, 2])
    assert h[3200, 108] == pytest.approx(h[3200, 1000])  # 108 units: no gain beyond 108 workers
    seed = min(r["seconds"] for r in rows if r["kind"] == "atlas_seed")
    assert h[800, 1] == pytest.approx(6 * seed / 3600)
    with pytest.raises(ValueError, match="cores"):
        sv.atlas_hours(3200, 0, rows)
    with pytest.raises(ValueError, match="atlas_seed"):
        sv.atlas_hours(3200, 2, cells)
    with pytest.raises(ValueError, match="ds"):
        sv.cost_exponent(rows, ds=(400, 123))


# ----------------------------------------------------------------- full sweep
@pytest.mark.slow
@pytest.mark.skipif(
    not settings.flag("SEQRMT_FULL_SWEEP"),
    reason="full validation sweep (324 cells at d = 800, several minutes): "
    "run with SEQRMT_FULL_SWEEP=1 pytest tests/test_validation.py -m slow",
)
def test_full_sweep():
    rows = sv.atlas(800, 6)
    assert len({r["cell"] for r in rows}) == 324
    bad = sv.disagreements(rows)
    assert not bad, "\n".join(f"{r['cell']} {r['quantity']}: {r['note']}" for r in bad)
