"""Tests of the spike figures (Theorems 2-4)."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import seqrmt as sr
import seqrmt.plots as srp
import seqrmt.validation as sv
from figure_parts import legend_texts


def _labels(ax):
    return ax.get_xlabel() and ax.get_ylabel()


def test_named_weights():
    R = sr.prefix_correlation(8, 3)
    assert np.allclose(sr.named_weights("mean", R), 1 / 8)
    assert np.allclose(sr.named_weights("optimal", R)[:3], 1 / 3)
    assert np.allclose(sr.named_weights("causal", R), sr.causal_weights(8))
    assert np.allclose(sr.named_weights("strict causal", R, tau=1.0), sr.causal_weights(8, 1.0, strict=True))
    with pytest.raises(ValueError, match="name"):
        sr.named_weights("uniform", R)


def _line(ax, label_part):
    lines = [ln for ln in ax.lines if label_part in ln.get_label()]
    assert len(lines) == 1, [ln.get_label() for ln in ax.lines]
    return lines[0]


def _vline_x(ax, label_part):
    x = np.asarray(_line(ax, label_part).get_xdata(), dtype=float)
    assert x.size == 2 and x[0] == x[1]
    return float(x[0])


def _check_spectrum_panel(ax, sim, exact, ideal, d):
    """The panel shows sim's spectrum and exactly the predicted quantities."""
    p = exact if exact is not None else ideal
    # histogram = density-normalized counts of the simulated eigenvalues (atom at 0 dropped)
    bars = [r for r in ax.patches if r.get_height() >= 0 and r.get_width() > 0]
    left = np.array([r.get_x() for r in bars])
    width = np.array([r.get_width() for r in bars])
    heights = np.array([r.get_height() for r in bars])
    edges = np.r_[left, left[-1] + width[-1]]
    lam = sim.eigenvalues
    lam = lam[lam > 1e-9 * sr.bulk_edges(p.delta, p.gamma, p.kappa)[1]] if sr.bulk_atom(p.delta, p.gamma) > 0 else lam
    counts, _ = np.histogram(lam, bins=edges)
    np.testing.assert_allclose(heights * d * width, counts, atol=1e-9)
    # the bulk curve is the Theorem 1 density at the plotted points
    bulk = _line(ax, "bulk $")
    x = np.asarray(bulk.get_xdata(), dtype=float)
    np.testing.assert_allclose(bulk.get_ydata(), sr.bulk_density(x, p.delta, p.gamma, p.kappa), rtol=1e-12)
    assert _vline_x(ax, "bulk edge") == pytest.approx(sr.bulk_edges(p.delta, p.gamma, p.kappa)[1], rel=1e-12)
    np.testing.assert_allclose(_line(ax, "simulated top").get_xdata(), sim.eigenvalues[:3])
    labels = [ln.get_label() for ln in ax.lines]
    for pred, part, attr in (
        (exact, "signal outlier, finite table", "sample_outlier"),
        (exact, "vocabulary-mean", "mean_outlier"),
        (ideal, "signal outlier, idealized", "sample_outlier"),
    ):
        value = getattr(pred, attr) if pred is not None else None
        if value is None:
            assert not any(part in lab for lab in labels), part
        else:
            assert _vline_x(ax, part) == pytest.approx(value, rel=1e-12), part


@pytest.mark.parametrize(
    "kw",
    [
        {},
        dict(centered=False, weights="mean", gamma=0.5, theory="exact"),
        dict(beta=0.0, delta=2.0, gamma=1.5, theory="ideal"),
        dict(centered=False, weights="mean", realized=True, theory="exact"),
    ],
)
def test_spikes_spectrum(kw):
    d = 120
    fig = srp.spikes_spectrum(d=d, **kw)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert _labels(ax)
    # rebuild what the figure claims to show from the public functions
    a = dict(beta=1.0, delta=0.5, gamma=0.25, weights="optimal", centered=True, theory="both", realized=False)
    a.update(kw)
    R = sr.prefix_correlation(16, 4)
    w = sr.named_weights(a["weights"], R)
    V, N = sr.sizes(d, a["delta"], a["gamma"])
    sim = sr.simulate(d, V, N, w, R, a["beta"], centered=a["centered"], seed=0, n_vectors=3)
    real = (
        dict(spike_norm2=sim.spike_norm2, delta_norm2=sim.delta_norm2, zbar_norm2=sim.zbar_norm2)
        if a["realized"]
        else {}
    )
    exact = (
        sr.predict(a["delta"], a["gamma"], w, R, a["beta"], centered=a["centered"], **real)
        if a["theory"] in ("exact", "both")
        else None
    )
    ideal = (
        sr.predict(a["delta"], a["gamma"], w, R, a["beta"], centered=a["centered"], finite_table=False)
        if a["theory"] in ("ideal", "both")
        else None
    )
    if not a["centered"]:
        assert exact.mean_outlier is not None  # the vocabulary-mean line is really tested
    _check_spectrum_panel(ax, sim, exact, ideal, d)


def test_spikes_spectrum_bad_input():
    with pytest.raises(ValueError, match="theory"):
        srp.spikes_spectrum(theory="wrong", d=50)
    with pytest.raises(ValueError, match="delta"):
        srp.spikes_spectrum(delta=-1.0, d=50)
    with pytest.raises(ValueError, match="beta"):
        srp.spikes_spectrum(beta=-1.0, d=50)


def test_spikes_centering():
    d = 120
    fig = srp.spikes_centering(d=d)
    assert len(fig.axes) == 2
    assert all(_labels(ax) for ax in fig.axes)
    assert "uncentered" in fig.axes[0].get_title()
    R = sr.prefix_correlation(16, 4)
    w = sr.mean_weights(16)
    V, N = sr.sizes(d, 0.5, 0.5)
    for ax, centered in zip(fig.axes, (False, True)):
        sim = sr.simulate(d, V, N, w, R, 1.0, centered=centered, seed=0, n_vectors=3)
        exact = sr.predict(
            0.5,
            0.5,
            w,
            R,
            1.0,
            centered=centered,
            spike_norm2=sim.spike_norm2,
            delta_norm2=sim.delta_norm2,
            zbar_norm2=sim.zbar_norm2,
        )
        assert (exact.mean_outlier is None) == centered
        _check_spectrum_panel(ax, sim, exact, None, d)


def test_spikes_vs_beta_theory_and_sim():
    fig = srp.spikes_vs_beta(seeds=())
    ax1, ax2 = fig.axes
    assert _labels(ax1) and _labels(ax2)
    # the curves are predict() at every plotted beta (outlier, or the bulk edge when absent)
    R = sr.prefix_correlation(16, 4)
    w = sr.optimal_weights(R)
    for ft, part in ((True, "finite table"), (False, "idealized")):
        loc, ov = _line(ax1, part), _line(ax2, part)
        b = np.asarray(loc.get_xdata(), dtype=float)
        np.testing.assert_array_equal(b, ov.get_xdata())
        for i in range(0, b.size, 15):
            p = sr.predict(0.5, 0.25, w, R, b[i], finite_table=ft)
            top = p.sample_outlier if p.sample_outlier is not None else p.bulk_edge
            assert loc.get_ydata()[i] == pytest.approx(top, rel=1e-10)
            assert ov.get_ydata()[i] == pytest.approx(p.overlap, rel=1e-10, abs=1e-14)
    # dotted verticals at the critical betas of both theories
    xs = sorted(float(ln.get_xdata()[0]) for ln in ax1.lines if ln.get_linestyle() == ":")
    crit = sorted(sr.critical_beta(0.5, 0.25, w, R, finite_table=ft) for ft in (True, False))
    np.testing.assert_allclose(xs, [c for c in crit if 0 < c < 3.0], rtol=1e-12)
    fig = srp.spikes_vs_beta(sim_betas=(1.0,), seeds=(0, 1), d=100, weights="mean")
    assert any("simulation" in t for t in legend_texts(fig.axes[0]))
    # the error bar is the mean of the simulated top eigenvalue over the two seeds
    V, N = sr.sizes(100, 0.5, 0.25)
    tops = [sr.simulate(100, V, N, sr.mean_weights(16), R, 1.0, seed=s, n_vectors=1).eigenvalues[0] for s in (0, 1)]
    marker = [ln for ln in fig.axes[0].lines if ln.get_marker() == "o"]
    assert len(marker) == 1
    np.testing.assert_allclose(marker[0].get_ydata(), [np.mean(tops)], rtol=1e-12)
    with pytest.raises(ValueError, match="beta_max"):
        srp.spikes_vs_beta(beta_max=0.0, seeds=())


@pytest.mark.parametrize("kw", [{}, dict(plane="delta", weights="optimal", point=(0.5, 1.0)), dict(ideal=False, n=40)])
def test_spikes_phase_diagram(kw):
    fig = srp.spikes_phase_diagram(**kw)
    ax = fig.axes[0]
    assert _labels(ax)
    texts = legend_texts(ax)
    assert {"no outlier", "population outlier only", "sample outlier"} <= set(texts)
    assert any("idealized" in t for t in texts) == kw.get("ideal", True)
    # each colored cell is the regime predict() gives at that (beta, gamma) or (beta, delta)
    from matplotlib.collections import QuadMesh

    mesh = [c for c in ax.collections if isinstance(c, QuadMesh)]
    assert len(mesh) == 1
    n = kw.get("n", 200)
    region = np.asarray(mesh[0].get_array()).reshape(n, n)
    plane = kw.get("plane", "gamma")
    ymax = 2.0 if plane == "gamma" else 3.0
    b, y = np.linspace(0.0, 2.0, n), np.linspace(ymax / n, ymax, n)
    R = sr.prefix_correlation(16, 4)
    w = sr.named_weights(kw.get("weights", "mean"), R)
    seen = set()
    for i in range(0, n, max(1, n // 13)):
        for j in range(0, n, max(1, n // 11)):
            dl, gm = (0.5, y[i]) if plane == "gamma" else (y[i], 0.5)
            p = sr.predict(dl, gm, w, R, b[j])
            expected = (p.population_outlier is not None) + (p.sample_outlier is not None)
            assert region[i, j] == expected, (b[j], y[i])
            seen.add(expected)
    assert len(seen) >= 2  # the sampled cells cross at least one transition


def test_spikes_phase_diagram_bad_input():
    with pytest.raises(ValueError, match="plane"):
        srp.spikes_phase_diagram(plane="kappa")
    with pytest.raises(ValueError, match="n"):
        srp.spikes_phase_diagram(n=2)


def test_spikes_fixed_T_marks_the_strengths_without_a_clear_prediction():
    rows = sv.load_fixed_T_spike()[0]
    fig = srp.spikes_fixed_T(rows=rows, Ts=(1, 2))
    axes = fig.axes
    assert len(axes) == 4 and "fixed-T" in fig.seqrmt_alt
    # T = 1: the strengths without a fixed-T signal eigenvalue are drawn hollow
    n_hollow = sum(1 for r in rows if r["T"] == 1 and not r["bulk_above"] <= 0.2)
    assert n_hollow >= 3 and f"at {n_hollow} of 8 strengths" in fig.seqrmt_alt


def test_spikes_fixed_T_bad_input():
    with pytest.raises(ValueError, match="no rows"):
        srp.spikes_fixed_T(rows=sv.load_fixed_T_spike()[0], Ts=(5,))
    with pytest.raises(ValueError, match="ratio_max"):
        srp.spikes_fixed_T_limit(ratio_max=0.5)
