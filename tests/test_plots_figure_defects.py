"""Figures whose data a reader could not see: a curve running off the top of its axes, a
legend inside an axes over the scatter (chapter 0's semicircle figure, chapter 1's
decomposition figure)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import seqrmt.plots as srp  # noqa: E402


def curves_inside(ax) -> list[str]:
    """The labelled lines of ``ax`` whose finite values leave its y range."""
    lo, hi = ax.get_ylim()
    out = []
    for line in ax.get_lines():
        y = np.asarray(line.get_ydata(), float)
        y = y[np.isfinite(y)]
        if y.size and (y.max() > hi or y.min() < lo):
            out.append(f"{line.get_label()}: {y.min():.3g}..{y.max():.3g} outside {lo:.3g}..{hi:.3g}")
    return out


def test_semicircle_figure_shows_every_curve_whole():
    # gamma = 0.5 peaks at about 0.64, above the old fixed limit 0.45
    fig = srp.toolkit_semicircle_figure(gammas=(0.5, 0.1, 0.01))
    assert curves_inside(fig.axes[0]) == []


def test_decomposition_figure_legend_outside_the_data():
    fig = srp.model_decomposition_figure(d=50, V=60, N=80, T=4, L=2, beta=0.0)
    assert all(ax.get_legend() is None for ax in fig.axes), "a legend inside an axes covers the scatter"
    assert len(fig.legends) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[0] == "sequences" and "slope" in labels[1]
    # the slope of each panel is in its title
    assert all("slope" in ax.get_title() for ax in fig.axes)
