"""Tests of the model-chapter figures (seqrmt.plots.model)."""

import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

import seqrmt as sr
import seqrmt.plots as srp
from figure_parts import has_legend


def _labelled(ax):
    return bool(ax.get_xlabel()) and bool(ax.get_ylabel())


@pytest.mark.parametrize("kw", [{}, {"d": 40, "V": 60, "beta": 1.0}])
def test_table_figure(kw):
    fig = srp.model_table_figure(**kw)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert all(_labelled(ax) for ax in fig.axes)
    scat = [c for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    assert len(scat) == 2  # one cloud per class
    assert sum(len(c.get_offsets()) for c in scat) == kw.get("V", 400)
    assert has_legend(fig.axes[0])


@pytest.mark.parametrize("kw", [{"L": 4, "rho": 0.8, "N": 500}, {"L": 1, "rho": -0.5, "T": 6, "N": 200, "n_show": 10}])
def test_signs_figure(kw):
    fig = srp.model_signs_figure(**kw)
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    for k in (0, 1):
        img, row = fig.axes[2 * k], fig.axes[2 * k + 1]
        assert isinstance(img.images[0], AxesImage)
        assert img.images[0].get_array().shape == (kw.get("n_show", 40), kw.get("T", 24))
        assert any(isinstance(c, ErrorbarContainer) for c in row.containers)
        assert _labelled(img) and _labelled(row) and has_legend(row)
    # the data: signs drawn by sample_signs from the figure's seed, target rows of R
    T, N, n_show = kw.get("T", 24), kw["N"], kw.get("n_show", 40)
    rng = np.random.default_rng(0)
    Rs = (sr.prefix_correlation(T, kw["L"]), sr.markov_correlation(T, kw["rho"]))
    xis = [sr.sample_signs(N, R, seed=rng) for R in Rs]
    for k, (R, xi) in enumerate(zip(Rs, xis)):
        img, row = fig.axes[2 * k], fig.axes[2 * k + 1]
        np.testing.assert_array_equal(img.images[0].get_array(), xi[:n_show])
        target = [ln for ln in row.lines if ln.get_label().startswith("target")]
        np.testing.assert_array_equal(target[0].get_ydata(), R[0])
        emp = row.containers[0].lines[0].get_ydata()
        np.testing.assert_allclose(emp, xi[:, 0] @ xi / N, rtol=1e-12)
        # and the sampled signs do have correlation R (3 standard errors, fixed in advance)
        se = np.sqrt(np.clip(1 - R[0] ** 2, 0, None) / N)
        assert np.all(np.abs(emp - R[0]) <= 4 * se + 1e-12)


def test_sheppard_figure():
    fig = srp.model_sheppard_figure(N=500, n_points=5)
    ax = fig.axes[0]
    assert _labelled(ax) and len(ax.lines) >= 2
    assert any(isinstance(c, ErrorbarContainer) for c in ax.containers)
    # the theory curve is Sheppard's law r = (2/pi) arcsin(sigma), written here independently
    curve = [ln for ln in ax.lines if "arcsin" in ln.get_label()]
    assert len(curve) == 1
    x = np.asarray(curve[0].get_xdata())
    np.testing.assert_allclose(curve[0].get_ydata(), 2 / np.pi * np.arcsin(x), atol=1e-12)
    # simulated points within 4 standard errors of it (N = 500)
    pts = [c for c in ax.containers if isinstance(c, ErrorbarContainer)][0].lines[0]
    sig, emp = np.asarray(pts.get_xdata()), np.asarray(pts.get_ydata())
    r = 2 / np.pi * np.arcsin(sig)
    assert np.all(np.abs(emp - r) <= 4 * np.sqrt((1 - r**2) / 500))


def test_pooled_and_decomposition_figures():
    fig = srp.model_pooled_figure(d=50, V=60, N=80, T=8, L=2)
    assert len(fig.axes) == 2 and all(_labelled(ax) for ax in fig.axes)
    assert all(len(ax.collections) == 2 for ax in fig.axes)
    assert "alpha/\\kappa" in fig.axes[0].get_title()
    # left panel, x-coordinates: u^T (c_n - cbar) for mean pooling of the same draws
    rng = np.random.default_rng(0)
    R = sr.prefix_correlation(8, 2)
    table = sr.make_table(50, 60, 1.0, seed=rng)
    xi = sr.sample_signs(80, R, seed=rng)
    C = sr.pool(table, sr.sample_tokens(xi, 60, seed=rng), sr.mean_weights(8))
    pu = (table.mu / np.linalg.norm(table.mu)) @ (C - C.mean(axis=1, keepdims=True))
    got = np.concatenate([c.get_offsets()[:, 0] for c in fig.axes[0].collections])
    np.testing.assert_allclose(np.sort(got), np.sort(pu), rtol=1e-10, atol=1e-12)
    fig = srp.model_decomposition_figure(d=50, V=60, N=80, T=4, L=2, beta=0.5)
    assert len(fig.axes) == 2 and all(_labelled(ax) for ax in fig.axes)
    assert all(len(ax.lines) == 1 for ax in fig.axes)
    # left panel: slope ||mu + Delta|| of the table drawn from the figure's seed
    rng = np.random.default_rng(0)
    table = sr.make_table(50, 60, 0.5, seed=rng)
    line = fig.axes[0].lines[0]
    x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    assert (y[1] - y[0]) / (x[1] - x[0]) == pytest.approx(np.linalg.norm(table.mu + table.Delta), rel=1e-10)


@pytest.mark.parametrize(
    "fn, kw, name",
    [
        (srp.model_table_figure, {"beta": 0.0}, "beta"),
        (srp.model_table_figure, {"V": 41}, "V"),
        (srp.model_signs_figure, {"L": 0}, "L"),
        (srp.model_signs_figure, {"L": 30, "T": 24}, "L"),
        (srp.model_signs_figure, {"rho": 1.5}, "rho"),
        (srp.model_signs_figure, {"n_show": 50, "N": 20}, "n_show"),
        (srp.model_pooled_figure, {"beta": -1.0}, "beta"),
        (srp.model_decomposition_figure, {"beta": -1.0}, "beta"),
        (srp.model_sheppard_figure, {"N": 0}, "N"),
    ],
)
def test_bad_input(fn, kw, name):
    with pytest.raises(ValueError, match=name):
        fn(**kw)
