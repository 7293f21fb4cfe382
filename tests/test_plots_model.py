"""Tests of the model-chapter figures (seqrmt.plots.model)."""
import pytest
from matplotlib.collections import PathCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

import seqrmt.plots as srp


def _labelled(ax):
    return bool(ax.get_xlabel()) and bool(ax.get_ylabel())


@pytest.mark.parametrize("kw", [{}, {"d": 40, "V": 60, "beta": 1.0}])
def test_table_figure(kw):
    fig = srp.model_table_figure(**kw)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert all(_labelled(ax) for ax in fig.axes)
    scat = [c for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    assert len(scat) == 2                                       # one cloud per class
    assert sum(len(c.get_offsets()) for c in scat) == kw.get("V", 400)
    assert fig.axes[0].get_legend() is not None


@pytest.mark.parametrize("kw", [{"L": 4, "rho": 0.8, "N": 500}, {"L": 1, "rho": -0.5, "T": 6, "N": 200, "n_show": 10}])
def test_signs_figure(kw):
    fig = srp.model_signs_figure(**kw)
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    for k in (0, 1):
        img, row = fig.axes[2 * k], fig.axes[2 * k + 1]
        assert isinstance(img.images[0], AxesImage)
        assert img.images[0].get_array().shape == (kw.get("n_show", 40), kw.get("T", 24))
        assert any(isinstance(c, ErrorbarContainer) for c in row.containers)
        assert _labelled(img) and _labelled(row) and row.get_legend() is not None


def test_sheppard_figure():
    fig = srp.model_sheppard_figure(N=500, n_points=5)
    ax = fig.axes[0]
    assert _labelled(ax) and len(ax.lines) >= 2
    assert any(isinstance(c, ErrorbarContainer) for c in ax.containers)


def test_pooled_and_decomposition_figures():
    fig = srp.model_pooled_figure(d=50, V=60, N=80, T=8, L=2)
    assert len(fig.axes) == 2 and all(_labelled(ax) for ax in fig.axes)
    assert all(len(ax.collections) == 2 for ax in fig.axes)
    assert "alpha/\\kappa" in fig.axes[0].get_title()
    fig = srp.model_decomposition_figure(d=50, V=60, N=80, T=4, L=2, beta=0.5)
    assert len(fig.axes) == 2 and all(_labelled(ax) for ax in fig.axes)
    assert all(len(ax.lines) == 1 for ax in fig.axes)


@pytest.mark.parametrize("fn, kw, name", [
    (srp.model_table_figure, {"beta": 0.0}, "beta"),
    (srp.model_table_figure, {"V": 41}, "V"),
    (srp.model_signs_figure, {"L": 0}, "L"),
    (srp.model_signs_figure, {"L": 30, "T": 24}, "L"),
    (srp.model_signs_figure, {"rho": 1.5}, "rho"),
    (srp.model_signs_figure, {"n_show": 50, "N": 20}, "n_show"),
    (srp.model_pooled_figure, {"beta": -1.0}, "beta"),
    (srp.model_decomposition_figure, {"beta": -1.0}, "beta"),
    (srp.model_sheppard_figure, {"N": 0}, "N"),
])
def test_bad_input(fn, kw, name):
    with pytest.raises(ValueError, match=name):
        fn(**kw)
