"""Tests of the optimal-weights figures (Theorem 5)."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import seqrmt as sr
import seqrmt.plots as srp
from figure_parts import legend_texts


@pytest.mark.parametrize("family", ["prefix", "markov", "factor"])
def test_weights_correlation_and_family(family):
    R = srp.weights_correlation(family, T=10, L=3, rho=0.7, decay=3.0)
    assert R.shape == (10, 10) and np.allclose(np.diag(R), 1)
    ws = srp.weights_family(R)
    ratios = {k: sr.alpha(w, R) / sr.kappa(w) for k, w in ws.items()}
    assert ratios["optimal"] == pytest.approx(np.linalg.eigvalsh(R)[-1])
    assert ratios["optimal"] >= max(ratios.values()) - 1e-12


def test_weights_correlation_bad_input():
    with pytest.raises(ValueError, match="family"):
        srp.weights_correlation("gauss")
    with pytest.raises(ValueError, match="loading"):
        srp.weights_correlation("factor", loading=1.5)


@pytest.mark.parametrize("kw", [{}, dict(family="markov", rho=0.5), dict(family="factor", T=12)])
def test_weights_profiles(kw):
    fig = srp.weights_profiles(**kw)
    assert isinstance(fig, Figure)
    ax1, ax2 = fig.axes
    assert ax1.get_xlabel() and ax1.get_ylabel() and ax2.get_ylabel()
    assert len(ax1.lines) == 3 and len(ax2.patches) == 3
    heights = [p.get_height() for p in ax2.patches]
    assert heights[2] == pytest.approx(max(heights))
    # bars: w^T R w / w^T w of each plotted weighting; left: the weights scaled to sum 1
    R = srp.weights_correlation(kw.get("family", "prefix"), T=kw.get("T", 16), rho=kw.get("rho", 0.8))
    ws = srp.weights_family(R)
    for h, ln, name in zip(heights, ax1.lines, ("mean", "causal", "optimal")):
        w = ws[name]
        assert h == pytest.approx((w @ R @ w) / (w @ w), rel=1e-12)
        np.testing.assert_allclose(ln.get_ydata(), w / w.sum(), rtol=1e-12)


def test_weights_markov_profile():
    fig = srp.weights_markov_profile(rhos=(0.5, 0.9))
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and len(ax.lines) == 4
    with pytest.raises(ValueError, match="rhos"):
        srp.weights_markov_profile(rhos=(1.5,))


def test_weights_rayleigh():
    fig = srp.weights_rayleigh(n_random=200)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and len(ax.patches) >= 50
    with pytest.raises(ValueError, match="n_random"):
        srp.weights_rayleigh(n_random=1)


def test_weights_alignment():
    fig = srp.weights_alignment(seeds=())
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel()
    texts = legend_texts(ax)
    assert [t.split()[0] for t in texts] == ["mean", "causal", "optimal"]
    fig = srp.weights_alignment(sim_betas=(1.0,), seeds=(0, 1), d=80, family="markov")
    assert any("simulation" in t for t in legend_texts(fig.axes[0]))
    with pytest.raises(ValueError, match="delta"):
        srp.weights_alignment(delta=0.0, seeds=())


def test_weights_family_negative_correlation_uses_the_simplex_optimum():
    R = srp.weights_correlation("markov", T=9, rho=-0.5)
    w = srp.weights_family(R)["optimal"]
    assert w.min() >= 0 and w.sum() == pytest.approx(1.0)
    assert sr.alpha(w, R) / sr.kappa(w) < np.linalg.eigvalsh(R)[-1] - 0.5


def test_weights_negative():
    fig = srp.weights_negative(T=8, rho=-0.5, rhos=(-0.6, -0.3, 0.0, 0.5))
    ax1, ax2 = fig.axes
    assert ax1.get_xlabel() and ax1.get_ylabel() and ax2.get_xlabel() and ax2.get_ylabel()
    # one legend (top panel) names the four weightings of both panels, whose lines share colours
    assert len(ax1.get_legend().get_texts()) == 4 and ax2.get_legend() is None
    assert [l.get_color() for l in ax1.lines[:4]] == [l.get_color() for l in ax2.lines[:4]]
    # right panel: the unconstrained optimum is lambda_max(R), never below the simplex one,
    # and the two coincide for rho >= 0 (Perron-Frobenius)
    curves = {
        ln.get_label(): np.asarray(ln.get_ydata(), float) for ln in ax2.lines if not ln.get_label().startswith("_")
    }
    top = next(v for k, v in curves.items() if k.startswith("top eigenvector"))
    simp = next(v for k, v in curves.items() if k.startswith("best attention"))
    lam = [np.linalg.eigvalsh(sr.markov_correlation(8, r))[-1] for r in (-0.6, -0.3, 0.0, 0.5)]
    np.testing.assert_allclose(top, lam, rtol=1e-10)
    assert np.all(simp <= top + 1e-12)
    np.testing.assert_allclose(simp[2:], top[2:], rtol=1e-10)
    assert np.all(simp[:2] < top[:2] - 0.1)
    with pytest.raises(ValueError, match="rho"):
        srp.weights_negative(rho=1.0)
    with pytest.raises(ValueError, match="rhos"):
        srp.weights_negative(rhos=(0.5,))
