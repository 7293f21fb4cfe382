"""Tests of the bulk-chapter figures (seqrmt.plots.bulk)."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import seqrmt as sr
import seqrmt.plots as srp
from figure_parts import has_legend, legend_texts


def _labelled(ax):
    return bool(ax.get_xlabel()) and bool(ax.get_ylabel())


@pytest.mark.parametrize("ratio", [0.5, 2.0])
def test_mp_figure(ratio):
    fig = srp.bulk_mp_figure(ratio=ratio, d=80)
    ax = fig.axes[0]
    assert isinstance(fig, Figure) and _labelled(ax)
    assert len(ax.patches) >= 1 and has_legend(ax)
    texts = [t.get_text() for t in ax.texts]
    assert any("atom" in t for t in texts) == (ratio > 1)
    # plotted data: the closed-form MP density, and the white-noise spectrum of the seed
    curve = [ln for ln in ax.lines if ln.get_label().startswith("MP density")][0]
    x = np.asarray(curve.get_xdata())
    b = (1 + np.sqrt(ratio)) ** 2
    inside = (x > (1 - np.sqrt(ratio)) ** 2) & (x < b)
    ref = np.zeros_like(x)
    ref[inside] = np.sqrt((b - x[inside]) * (x[inside] - (1 - np.sqrt(ratio)) ** 2)) / (2 * np.pi * ratio * x[inside])
    np.testing.assert_allclose(curve.get_ydata(), ref, rtol=1e-12, atol=1e-15)
    n = int(round(80 / ratio))
    X = np.random.default_rng(0).standard_normal((80, n))
    lam = np.linalg.eigvalsh(X @ X.T / n)
    data = ax.patches[0].get_data()
    values, edges = data.values, data.edges
    counts, _ = np.histogram(lam[lam > 1e-9 * lam.max()], bins=edges)
    np.testing.assert_allclose(values * 80 * np.diff(edges), counts, atol=1e-9)


@pytest.mark.parametrize("delta, gamma", [(0.5, 0.5), (2.0, 0.5), (1.0, 0.25), (1.5, 1.5)])
def test_density_figure(delta, gamma):
    fig = srp.bulk_density_figure(delta=delta, gamma=gamma)
    ax = fig.axes[0]
    assert _labelled(ax) and has_legend(ax)
    left, right = sr.bulk_edges(delta, gamma)
    assert f"{right:.3f}" in ax.get_title()
    atom = sr.bulk_atom(delta, gamma)
    assert any("atom" in t.get_text() for t in ax.texts) == (atom > 0)
    xs = [l.get_xdata()[0] for l in ax.lines if len(l.get_xdata()) == 2 and l.get_linestyle() == "--"]
    assert np.allclose(sorted(xs), [left, right])
    curve = [ln for ln in ax.lines if "boxtimes" in ln.get_label()][0]
    np.testing.assert_allclose(curve.get_ydata(), sr.bulk_density(curve.get_xdata(), delta, gamma), rtol=1e-12)


def test_density_figure_fixed_limits_and_kappa():
    fig = srp.bulk_density_figure(delta=0.5, gamma=0.25, kappa=0.2, xmax=3.0, ymax=4.0, show_factors=False)
    ax = fig.axes[0]
    assert ax.get_xlim()[1] == 3.0 and ax.get_ylim()[1] == 4.0
    assert len([l for l in ax.lines if l.get_linestyle() == ":"]) == 0


def test_theory_figures():
    fig = srp.bulk_inverse_map_figure(delta=0.5, gamma=0.25)
    assert _labelled(fig.axes[0]) and has_legend(fig.axes[0])
    fig = srp.bulk_limits_figure(gamma=0.5, deltas=(0.5, 0.1))
    assert _labelled(fig.axes[0]) and len(fig.axes[0].lines) == 3


@pytest.mark.parametrize("kw", [{}, {"delta": 2.0, "gamma": 0.5, "T": 4, "weights": "causal"}, {"T": 1}])
def test_simulation_figure(kw):
    fig = srp.bulk_simulation_figure(d=80, **kw)
    ax = fig.axes[0]
    assert _labelled(ax) and "Kolmogorov" in ax.get_title() and len(ax.patches) >= 1
    if kw.get("delta", 0.5) > 1:
        assert any("zero eigenvalues" in t.get_text() for t in ax.texts)


def test_kappa_and_token_figures():
    fig = srp.bulk_kappa_figure(d=60, T=4)
    assert len(fig.axes) == 2 and all(_labelled(ax) for ax in fig.axes)
    assert len(fig.axes[1].patches) == 3  # one histogram per weighting
    fig = srp.bulk_token_count_figure(d=60, Ts=(1, 4))
    assert len(fig.axes) == 2 and all(_labelled(ax) for ax in fig.axes)
    assert len(fig.axes[0].patches) == 2 and len(fig.axes[1].lines) == 3


def test_fixed_T_figures():
    lam = srp.bulk_pooled_spectrum(1.5, 1.5, 1, d=120, seeds=(0, 1))
    assert lam.size == 240
    fig = srp.bulk_fixed_T_figure(T=1, d=120, eigenvalues=lam)
    ax, ax1 = fig.axes
    assert _labelled(ax) and _labelled(ax1) and has_legend(ax)
    assert any("atom" in t.get_text() for t in ax.texts)
    labels = legend_texts(ax1)
    dist = {lab.split(":")[0]: float(lab.rsplit(" ", 1)[1]) for lab in labels}
    assert dist["fixed-T law"] < dist["paper's Thm 1"]  # at T = 1 the paper's Theorem 1 misses the atom by 0.25
    fig = srp.bulk_fixed_T_convergence_figure(Ts=(1, 4))
    assert len(fig.axes) == 2 and all(_labelled(a) for a in fig.axes)
    assert len(fig.axes[0].lines) == 3  # one curve per T and the zero line


def test_helpers():
    assert sr.sizes(100, 0.5, 2.0) == (200, 50)
    assert sr.sizes(100, 3.0, 0.5)[0] % 2 == 0
    w = srp.bulk_weights("random", 5)
    assert np.all(w > 0) and np.isclose(w.sum(), 1)
    assert np.allclose(srp.bulk_weights("mean", 4), 0.25)
    law = sr.BulkLaw(0.5, 0.5)
    assert srp.bulk_kolmogorov(law.ppf((np.arange(400) + 0.5) / 400), law) < 0.01


@pytest.mark.parametrize(
    "fn, kw, name",
    [
        (srp.bulk_mp_figure, {"ratio": 0.0}, "ratio"),
        (srp.bulk_density_figure, {"delta": -1.0}, "delta"),
        (srp.bulk_density_figure, {"gamma": 0.0}, "gamma"),
        (srp.bulk_density_figure, {"kappa": 0.0}, "kappa"),
        (srp.bulk_inverse_map_figure, {"gamma": -0.1}, "gamma"),
        (srp.bulk_limits_figure, {"deltas": (0.5, -1.0)}, "deltas"),
        (srp.bulk_simulation_figure, {"weights": "uniform"}, "weights"),
        (srp.bulk_simulation_figure, {"T": 0}, "T"),
        (srp.bulk_token_count_figure, {"Ts": ()}, "Ts"),
        (srp.bulk_fixed_T_figure, {"delta": 0.0}, "delta"),
        (srp.bulk_fixed_T_convergence_figure, {"Ts": ()}, "Ts"),
        (srp.bulk_pooled_spectrum, {"seeds": ()}, "seeds"),
        (sr.sizes, {"d": 10, "delta": 0.0, "gamma": 1.0}, "delta"),
    ],
)
def test_bad_input(fn, kw, name):
    with pytest.raises(ValueError, match=name):
        fn(**kw)
