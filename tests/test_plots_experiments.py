"""Tests of the experiments figures (seqrmt.plots.experiments)."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import seqrmt as sr
import seqrmt.plots as srp
from figure_parts import has_legend


def test_weights_by_name():
    W = srp.experiments_weights(16, 4)
    assert list(W) == ["mean", "causal", "optimal"]
    assert np.allclose(W["causal"], sr.causal_weights(16))
    R = sr.prefix_correlation(16, 4)
    assert np.isclose(sr.alpha(W["optimal"], R) / sr.kappa(W["optimal"]), 4.0)
    assert list(srp.experiments_weights(8, 2, names="mean")) == ["mean"]


def _line(ax, label):
    lines = [ln for ln in ax.lines if ln.get_label() == label]
    assert len(lines) == 1, [ln.get_label() for ln in ax.lines]
    return lines[0]


@pytest.mark.parametrize("kw", [{}, {"beta": 0.1, "names": ("causal",), "beta_max": 3.0}])
def test_spectra(kw):
    d = 80
    fig = srp.experiments_spectra(d=d, **kw)
    assert isinstance(fig, Figure)
    names = kw.get("names", ("mean", "causal", "optimal"))
    assert len(fig.axes) == len(names)
    beta = kw.get("beta", 1.0)
    R = sr.prefix_correlation(16, 4)
    V, N = sr.sizes(d, 0.5, 0.5)
    W = srp.experiments_weights(16, 4, names=names)
    for ax, name in zip(fig.axes, names):
        assert ax.get_xlabel()
        w = W[name]
        sim = sr.simulate(d, V, N, w, R, beta, seed=0, n_vectors=1)
        p = sr.predict(d / V, d / N, w, R, beta)
        pi = sr.predict(d / V, d / N, w, R, beta, finite_table=False)
        # histogram = density of the simulated eigenvalues on the plotted bins
        left = np.array([r.get_x() for r in ax.patches])
        width = np.array([r.get_width() for r in ax.patches])
        edges = np.r_[left, left[-1] + width[-1]]
        dens, _ = np.histogram(sim.eigenvalues, bins=edges, density=True)
        np.testing.assert_allclose([r.get_height() for r in ax.patches], dens, rtol=1e-12, atol=1e-15)
        bulk = _line(ax, "bulk (paper's Thm 1)")
        np.testing.assert_allclose(
            bulk.get_ydata(), sr.bulk_density(bulk.get_xdata(), d / V, d / N, p.kappa), rtol=1e-12
        )
        for pred, label in ((p, "outlier, finite table"), (pi, "outlier, idealized")):
            lines = [ln for ln in ax.lines if ln.get_label() == label]
            if pred.sample_outlier is None:
                assert not lines
            else:
                assert len(lines) == 1 and lines[0].get_xdata()[0] == pytest.approx(pred.sample_outlier, rel=1e-12)
        assert _line(ax, r"top $\lambda$").get_xdata()[0] == pytest.approx(sim.eigenvalues[0])
    assert has_legend(fig.axes[0])


def test_alignment_data_and_figure():
    data = srp.experiments_alignment_data(d=60, betas=(0.5, 2.0), seeds=2, names=("mean", "optimal"), n_theory=20)
    assert data["names"] == ["mean", "optimal"]
    R = sr.prefix_correlation(16, 4)
    V, N = sr.sizes(60, 0.5, 0.5)
    for name, w in srp.experiments_weights(16, 4, names=("mean", "optimal")).items():
        r = data[name]
        # simulation: mean over seeds 0, 1 of the top-eigenvector alignment
        sims = np.array(
            [[sr.simulate(60, V, N, w, R, b, seed=s, n_vectors=1).overlaps[0] for b in (0.5, 2.0)] for s in (0, 1)]
        )
        np.testing.assert_allclose(r["mean"], sims.mean(axis=0), rtol=1e-12)
        # theory: predict on the grid, critical betas of both theories
        for ft, key in ((True, "exact_grid"), (False, "ideal_grid")):
            expect = [sr.predict(60 / V, 60 / N, w, R, b, finite_table=ft).overlap for b in data["beta_grid"]]
            np.testing.assert_allclose(r[key], expect, rtol=1e-12, atol=1e-15)
        assert r["beta_c"] == pytest.approx(sr.critical_beta(60 / V, 60 / N, w, R))
        assert r["beta_c_ideal"] == pytest.approx(sr.critical_beta(60 / V, 60 / N, w, R, finite_table=False))
    fig = srp.experiments_alignment(data=data)
    assert len(fig.axes) == 2
    for ax, name in zip(fig.axes, data["names"]):
        np.testing.assert_array_equal(_line(ax, "finite-table theory").get_ydata(), data[name]["exact_grid"])
        np.testing.assert_array_equal(_line(ax, "idealized theory").get_ydata(), data[name]["ideal_grid"])
        dots = [ln for ln in ax.lines if ln.get_marker() == "o"]
        assert len(dots) == 1
        np.testing.assert_array_equal(dots[0].get_ydata(), data[name]["mean"])
    assert has_legend(fig.axes[0])


def test_alignment_figure_direct():
    fig = srp.experiments_alignment(d=50, betas=(1.0,), seeds=1, names=("causal",))
    assert len(fig.axes) == 1 and fig.axes[0].get_title().startswith("causal")


def test_classification():
    data = srp.experiments_classification_data(d=40, Ns=(20, 80), seeds=2, n_test=200)
    assert data["N"].tolist() == [20, 80]
    # the curve is sr.classification_curve with the same arguments
    W = srp.experiments_weights(16, 4)
    ref = sr.classification_curve(40, data["V"], [20, 80], W, sr.prefix_correlation(16, 4), 0.5, n_test=200, seeds=2)
    fig = srp.experiments_classification(data=data)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and has_legend(ax)
    assert len(ax.containers) == 3  # one errorbar per weighting
    for name, cont in zip(data["names"], ax.containers):
        np.testing.assert_allclose(data[name]["mean"], ref[name]["mean"], rtol=1e-12)
        np.testing.assert_array_equal(cont.lines[0].get_ydata(), data[name]["mean"])
        np.testing.assert_array_equal(cont.lines[0].get_xdata(), [20, 80])


@pytest.mark.parametrize(
    "call",
    [
        lambda: srp.experiments_weights(4, 5),
        lambda: srp.experiments_weights(8, 2, names=("median",)),
        lambda: srp.experiments_spectra(d=0),
        lambda: srp.experiments_spectra(d=50, delta=-1.0),
        lambda: srp.experiments_spectra(d=50, beta=-1.0),
        lambda: srp.experiments_alignment_data(d=50, betas=(0.0, 1.0)),
        lambda: srp.experiments_alignment_data(d=50, gamma=0.0),
        lambda: srp.experiments_classification_data(d=40, beta=-0.5),
    ],
)
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_bad_input_names_parameter():
    with pytest.raises(ValueError, match="betas"):
        srp.experiments_alignment_data(d=50, betas=(-1.0,))
    with pytest.raises(ValueError, match="names"):
        srp.experiments_weights(8, 2, names=("median",))
    with pytest.raises(ValueError, match="gamma"):
        srp.experiments_spectra(d=50, gamma=0.0)
