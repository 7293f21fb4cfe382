"""Tests of the spike figures (Theorems 2-4)."""
import numpy as np
import pytest
from matplotlib.figure import Figure

import seqrmt as sr
import seqrmt.plots as srp


def _labels(ax):
    return ax.get_xlabel() and ax.get_ylabel()


def _legend_texts(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def test_named_weights():
    R = sr.prefix_correlation(8, 3)
    assert np.allclose(sr.named_weights("mean", R), 1 / 8)
    assert np.allclose(sr.named_weights("optimal", R)[:3], 1 / 3)
    assert np.allclose(sr.named_weights("causal", R), sr.causal_weights(8))
    assert np.allclose(sr.named_weights("strict causal", R, tau=1.0), sr.causal_weights(8, 1.0, strict=True))
    with pytest.raises(ValueError, match="name"):
        sr.named_weights("uniform", R)


@pytest.mark.parametrize("kw", [{}, dict(centered=False, weights="mean", gamma=0.5, theory="exact"),
                                dict(beta=0.0, delta=2.0, gamma=1.5, theory="ideal")])
def test_spikes_spectrum(kw):
    fig = srp.spikes_spectrum(d=120, **kw)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert _labels(ax)
    assert len(ax.patches) > 10                  # histogram bars
    texts = _legend_texts(ax)
    assert any("bulk" in t for t in texts)
    if kw.get("centered", True) is False:
        assert any("vocabulary-mean" in t for t in texts)
    if kw.get("theory", "both") == "both":
        assert any("idealized" in t for t in texts) and any("exact" in t for t in texts)


def test_spikes_spectrum_bad_input():
    with pytest.raises(ValueError, match="theory"):
        srp.spikes_spectrum(theory="wrong", d=50)
    with pytest.raises(ValueError, match="delta"):
        srp.spikes_spectrum(delta=-1.0, d=50)
    with pytest.raises(ValueError, match="beta"):
        srp.spikes_spectrum(beta=-1.0, d=50)


def test_spikes_centering():
    fig = srp.spikes_centering(d=120)
    assert len(fig.axes) == 2
    assert all(_labels(ax) for ax in fig.axes)
    assert "uncentered" in fig.axes[0].get_title()


def test_spikes_vs_beta_theory_and_sim():
    fig = srp.spikes_vs_beta(seeds=())
    ax1, ax2 = fig.axes
    assert _labels(ax1) and _labels(ax2)
    assert len(ax1.lines) >= 3 and ax2.get_ylim()[1] <= 1.05
    fig = srp.spikes_vs_beta(sim_betas=(1.0,), seeds=(0, 1), d=100, weights="mean")
    assert any("simulation" in t for t in _legend_texts(fig.axes[0]))
    with pytest.raises(ValueError, match="beta_max"):
        srp.spikes_vs_beta(beta_max=0.0, seeds=())


@pytest.mark.parametrize("kw", [{}, dict(plane="delta", weights="optimal", point=(0.5, 1.0)),
                                dict(ideal=False, n=40)])
def test_spikes_phase_diagram(kw):
    fig = srp.spikes_phase_diagram(**kw)
    ax = fig.axes[0]
    assert _labels(ax)
    texts = _legend_texts(ax)
    assert {"no outlier", "population outlier only", "sample outlier"} <= set(texts)
    assert any("idealized" in t for t in texts) == kw.get("ideal", True)


def test_spikes_phase_diagram_bad_input():
    with pytest.raises(ValueError, match="plane"):
        srp.spikes_phase_diagram(plane="kappa")
    with pytest.raises(ValueError, match="n"):
        srp.spikes_phase_diagram(n=2)
