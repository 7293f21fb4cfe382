"""Figures of the chapter "How exact is the theory?" (seqrmt.plots.validation).

Each figure is checked on the data it draws: the plotted values must be the ones the
package computes (table columns, predictions of ``sr.predict``, the bulk law), not
only its labels and number of lines.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402

import seqrmt as sr  # noqa: E402
import seqrmt.plots as srp  # noqa: E402
import seqrmt.validation as sv  # noqa: E402
from seqrmt.validation.measure import _spectra  # noqa: E402


@pytest.fixture(scope="module")
def atlas_rows():
    return sv.load_atlas()[0]


@pytest.fixture(scope="module")
def fs_rows():
    return sv.load_finite_size()[0]


def _check(fig, n_axes=2):
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) >= n_axes
    for ax in axes[:n_axes]:
        assert ax.get_ylabel()
    return axes


def _points(ax):
    """(x, y) of every scatter collection of an axis, with its edge colour."""
    out = []
    for c in ax.collections:
        off = c.get_offsets()
        if len(off) and hasattr(c, "get_sizes") and len(c.get_sizes()):
            out.append((np.asarray(off, dtype=float), c))
    return out


def test_all_exported():
    for name in (
        "validation_atlas",
        "validation_ideal",
        "validation_mean_spike",
        "validation_scaling",
        "validation_bulk_T",
        "validation_spikes_T",
        "validation_bulk_histogram",
        "validation_transition",
        "validation_table",
    ):
        assert callable(getattr(srp, name))


@pytest.mark.parametrize(
    "kw", [{}, dict(delta=1.5, gamma=1.5), dict(delta=0.25, gamma=1.5, eigenvalue="lambda_2", overlap="overlap_mean")]
)
def test_atlas_plots_the_errors_and_verdicts(atlas_rows, kw):
    fig = srp.validation_atlas(rows=atlas_rows, **kw)
    axes = _check(fig)
    delta, gamma = kw.get("delta", 0.5), kw.get("gamma", 0.25)
    sel = [r for r in atlas_rows if r["delta_nominal"] == delta and r["gamma_nominal"] == gamma]
    assert len(axes[0].get_xticklabels()) == 9  # 3 R x 3 weightings
    for ax, q in zip(axes, (kw.get("eigenvalue", "lambda_signal"), kw.get("overlap", "overlap_signal"))):
        rows = [r for r in sel if r["quantity"] == q]
        scale = [abs(r["predicted"]) if q.startswith("lambda") and r["predicted"] else 1.0 for r in rows]
        expected = np.sort([(r["empirical"] - r["predicted"]) / s for r, s in zip(rows, scale)])
        pts = _points(ax)
        small = [p for p, c in pts if c.get_sizes()[0] < 100]  # markers (rings are larger)
        drawn = np.sort(np.concatenate([p[:, 1] for p in small]))
        np.testing.assert_allclose(drawn, expected, rtol=1e-12, atol=1e-15)
        rings = [(p, c) for p, c in pts if c.get_sizes()[0] >= 100]
        n_ring = {"disagree": 0, "explained": 0}
        for p, c in rings:
            rgb = tuple(np.round(c.get_edgecolor()[0][:3], 3)) if len(p) else None
            if len(p):
                key = "disagree" if rgb == (0.839, 0.153, 0.157) else "explained"
                n_ring[key] += len(p)
        assert n_ring["disagree"] == sum(r["status"] == "disagree" for r in rows)
        assert n_ring["explained"] == sum(r["status"] == "explained" for r in rows)


def test_atlas_bad_input(atlas_rows):
    with pytest.raises(ValueError, match="delta"):
        srp.validation_atlas(rows=atlas_rows, delta=0.7)
    with pytest.raises(ValueError, match="eigenvalue"):
        srp.validation_atlas(rows=atlas_rows, eigenvalue="lambda_9")
    with pytest.raises(ValueError, match="rows"):
        srp.validation_atlas(rows=[])


@pytest.mark.parametrize("centered", [True, False])
def test_ideal_plots_both_predictions(atlas_rows, centered):
    axes = _check(srp.validation_ideal(rows=atlas_rows, centered=centered))
    for ax, q in zip(axes, ("lambda_signal", "overlap_signal")):
        sel = [r for r in atlas_rows if r["quantity"] == q and r["centered"] == centered]
        lines = {ln.get_label(): ln for ln in ax.lines}
        idl = next(v for k, v in lines.items() if "idealized" in k)
        ex = next(v for k, v in lines.items() if "finite table" in k)
        np.testing.assert_array_equal(idl.get_xdata(), [r["predicted_ideal"] for r in sel])
        np.testing.assert_array_equal(ex.get_xdata(), [r["predicted"] for r in sel])
        np.testing.assert_array_equal(ex.get_ydata(), [r["empirical"] for r in sel])
    with pytest.raises(ValueError, match="centered"):
        srp.validation_ideal(rows=atlas_rows, centered="yes")


def test_mean_spike_plots_limit_and_realized(atlas_rows):
    axes = _check(srp.validation_mean_spike(rows=atlas_rows))
    sel = [r for r in atlas_rows if r["quantity"] == "lambda_mean" and not r["centered"] and r["weights"] == "mean"]
    lines = {ln.get_label(): ln for ln in axes[0].lines}
    np.testing.assert_array_equal(lines["mean: limit"].get_xdata(), [r["predicted"] for r in sel])
    np.testing.assert_array_equal(lines["mean: realized table"].get_xdata(), [r["predicted_realized"] for r in sel])
    np.testing.assert_array_equal(lines["mean: limit"].get_ydata(), [r["empirical"] for r in sel])
    with pytest.raises(ValueError, match="uncentered"):
        srp.validation_mean_spike(rows=[r for r in atlas_rows if r["centered"]])


@pytest.mark.parametrize("q", ["lambda_signal", "overlap_signal"])
def test_scaling_plots_rmse_and_slopes(fs_rows, q):
    axes = _check(srp.validation_scaling(rows=fs_rows, quantity=q))
    assert axes[0].get_xscale() == "log" and axes[0].get_yscale() == "log"
    scal = [r for r in fs_rows if r["study"] == "scaling" and r["quantity"] == q]
    rates = sv.scaling_rates(scal, "rmse")
    for ln in axes[0].lines:
        name = ln.get_label().split("(slope")[0].strip()
        s = sorted((r for r in scal if r["setting"] == name), key=lambda r: r["d"])
        scale = np.array([abs(r["predicted"]) if q.startswith("lambda") and r["predicted"] else 1.0 for r in s])
        np.testing.assert_allclose(ln.get_ydata(), np.array([r["rmse"] for r in s]) / scale)
        slope = float(re.search(r"slope ([+-][\d.]+)", ln.get_label()).group(1))
        assert slope == pytest.approx(rates[name, q], abs=0.006)
    with pytest.raises(ValueError, match="quantity"):
        srp.validation_scaling(rows=fs_rows, quantity="nope")


def test_bulk_T_plots_both_distances(fs_rows):
    axes = _check(srp.validation_bulk_T(rows=fs_rows))
    assert axes[0].get_xlabel() == "sequence length $T$"
    bT = [r for r in fs_rows if r["study"] == "bulk_T"]
    for d in sorted({r["d"] for r in bT}):
        s = sorted((r for r in bT if r["d"] == d), key=lambda r: r["T"])
        bars = {c.get_label(): c.lines[0] for c in axes[0].containers}
        np.testing.assert_array_equal(bars[f"paper's Thm 1, $d = {d}$"].get_ydata(), [r["empirical"] for r in s])
        if all(isinstance(r.get("ks_fixed_T"), float) for r in s):
            np.testing.assert_array_equal(bars[f"fixed-$T$ law, $d = {d}$"].get_ydata(), [r["ks_fixed_T"] for r in s])
    with pytest.raises(ValueError, match="bulk_T"):
        srp.validation_bulk_T(rows=[r for r in fs_rows if r["study"] == "scaling"])


def test_spikes_T_plots_the_errors(fs_rows):
    axes = _check(srp.validation_spikes_T(rows=fs_rows, fixed_T=False))
    sp = [r for r in fs_rows if r["study"] == "spikes_T"]
    for ax, q in zip(axes, ("lambda_signal", "overlap_signal")):
        drawn = np.sort(np.concatenate([np.asarray(c.lines[0].get_ydata(), dtype=float) for c in ax.containers]))
        rows = [r for r in sp if r["quantity"] == q]
        exp = np.sort(
            [(r["empirical"] - r["predicted"]) / (r["predicted"] if q.startswith("lambda") else 1.0) for r in rows]
        )
        np.testing.assert_allclose(drawn, exp, rtol=1e-12)
    with pytest.raises(ValueError, match="spikes_T"):
        srp.validation_spikes_T(rows=[r for r in fs_rows if r["study"] == "scaling"])


def test_spikes_T_plots_the_fixed_T_errors_too(fs_rows):
    """With fixed_T the hollow markers are the errors against sr.fixed_T_predict at the rows' d."""
    axes = _check(srp.validation_spikes_T(rows=fs_rows))
    sp = [r for r in fs_rows if r["study"] == "spikes_T"]
    for ax, q in zip(axes, ("lambda_signal", "overlap_signal")):
        hollow = [c for c in ax.containers if c.lines[0].get_markerfacecolor() == "white"]
        drawn = np.sort(np.concatenate([np.asarray(c.lines[0].get_ydata(), dtype=float) for c in hollow]))
        exp = []
        for r in (r for r in sp if r["quantity"] == q):
            p = sr.fixed_T_predict(
                r["delta"], r["gamma"], sr.mean_weights(r["T"]), np.eye(r["T"]), r["beta"], d=int(r["d"])
            )
            pred = p.sample_outlier if q.startswith("lambda") else p.overlap
            exp.append((r["empirical"] - pred) / (pred if q.startswith("lambda") else 1.0))
        np.testing.assert_allclose(drawn, np.sort(exp), rtol=1e-12)


@pytest.mark.parametrize("T", [1, 4])
def test_bulk_histogram_draws_the_law_and_its_distance(T):
    fig = srp.validation_bulk_histogram(T=T, d=120, seed=1)
    axes = _check(fig)
    V, N = sr.sizes(120, 0.5, 0.5)
    law = sr.BulkLaw(120 / V, 120 / N, 1.0 / T)
    curve = axes[0].lines[0]
    np.testing.assert_allclose(curve.get_ydata(), law.pdf(curve.get_xdata()), rtol=1e-12)
    ((_, _, _, lam, _, _),) = _spectra(
        120, V, N, np.eye(T), {"m": np.full(T, 1.0 / T)}, {"m": [0.0]}, [True], 1, n_top=1
    )
    assert f"{sv.kolmogorov_distance(lam, law):.3f}" in axes[1].get_title()
    with pytest.raises(ValueError, match="T"):
        srp.validation_bulk_histogram(T=0)
    with pytest.raises(ValueError, match="delta"):
        srp.validation_bulk_histogram(delta=-1.0)


def test_transition_exact_curve_is_predict():
    fig = srp.validation_transition(d=100, seeds=1, n_beta=3)
    axes = _check(fig)
    R = sv.atlas_correlation("prefix")
    w = sr.named_weights("mean", R)
    V, N = sr.sizes(100, 0.5, 0.25)
    exact = next(ln for ln in axes[0].lines if ln.get_label() == "finite-table theory")
    top = next(ln for ln in axes[1].lines if ln.get_label() == "finite-table theory")
    betas = exact.get_xdata()
    for i in (0, 60, 120, 199):
        p = sr.predict(100 / V, 100 / N, w, R, float(betas[i]))
        assert exact.get_ydata()[i] == pytest.approx(p.overlap, abs=1e-12)
        edge_or_out = p.sample_outlier if p.sample_outlier is not None else p.bulk_edge
        assert top.get_ydata()[i] == pytest.approx(edge_or_out, rel=1e-12)
    with pytest.raises(ValueError, match="weights"):
        srp.validation_transition(weights="softmax")
    with pytest.raises(ValueError, match="R"):
        srp.validation_transition(R="toeplitz")


def test_validation_table_lists_the_chosen_quantities(atlas_rows):
    rows = [r for r in atlas_rows if r["delta_nominal"] == 0.5 and r["gamma_nominal"] == 0.25]
    table = srp.validation_table(rows, quantities="overlap_signal")
    keep = [r for r in rows if r["quantity"] == "overlap_signal"]
    assert len(table.rows) == len(keep) > 0
    for line, r in zip(table.rows, keep):
        assert line[4] == f"{r['predicted']:.4f}" and line[6] == f"{r['empirical']:.4f}"
        assert line[-1].startswith(r["status"])
    html = table._repr_html_()
    assert html.count("<tr>") == len(keep) + 1 and "verdict" in html
    # every cell names its column (a phone shows each row as "column: value" lines)
    assert 'class="seqrmt-table"' in html
    assert html.count('data-label="verdict"') == len(keep)
    assert html.count("<td") == len(keep) * len(table.header) == html.count("data-label=")
    assert "overlap_signal" in repr(table)
    with pytest.raises(ValueError, match="quantities"):
        srp.validation_table(rows, quantities="lambda_99")
