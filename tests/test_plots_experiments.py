"""Tests of the experiments figures (seqrmt.plots.experiments)."""
import numpy as np
import pytest
from matplotlib.figure import Figure

import seqrmt as sr
import seqrmt.plots as srp


def test_weights_by_name():
    W = srp.experiments_weights(16, 4)
    assert list(W) == ["mean", "causal", "optimal"]
    assert np.allclose(W["causal"], sr.causal_weights(16))
    R = sr.prefix_correlation(16, 4)
    assert np.isclose(sr.alpha(W["optimal"], R) / sr.kappa(W["optimal"]), 4.0)
    assert list(srp.experiments_weights(8, 2, names="mean")) == ["mean"]


@pytest.mark.parametrize("kw", [{}, {"beta": 0.1, "names": ("causal",), "beta_max": 3.0}])
def test_spectra(kw):
    fig = srp.experiments_spectra(d=80, **kw)
    assert isinstance(fig, Figure)
    n = len(kw.get("names", (1, 2, 3)))
    assert len(fig.axes) == n
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and len(ax.patches) > 10
    assert ax.get_legend() is not None


def test_alignment_data_and_figure():
    data = srp.experiments_alignment_data(d=60, betas=(0.5, 2.0), seeds=2, names=("mean", "optimal"),
                                          n_theory=20)
    assert data["names"] == ["mean", "optimal"]
    r = data["optimal"]
    assert r["mean"].shape == (2,) and r["exact_grid"].shape == (20,) and r["n"] == 2
    assert r["beta_c"] <= r["beta_c_ideal"]
    assert np.all((r["mean"] >= 0) & (r["mean"] <= 1))
    fig = srp.experiments_alignment(data=data)
    assert len(fig.axes) == 2
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    assert len(ax.lines) >= 4                 # exact, idealized, thresholds


def test_alignment_figure_direct():
    fig = srp.experiments_alignment(d=50, betas=(1.0,), seeds=1, names=("causal",))
    assert len(fig.axes) == 1 and fig.axes[0].get_title().startswith("causal")


def test_classification():
    data = srp.experiments_classification_data(d=40, Ns=(20, 80), seeds=2, n_test=200)
    assert data["N"].tolist() == [20, 80]
    for n in ("mean", "causal", "optimal"):
        assert np.all((data[n]["mean"] >= 0) & (data[n]["mean"] <= 1))
    fig = srp.experiments_classification(data=data)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    assert len(ax.containers) == 3            # one errorbar per weighting


@pytest.mark.parametrize("call", [
    lambda: srp.experiments_weights(4, 5),
    lambda: srp.experiments_weights(8, 2, names=("median",)),
    lambda: srp.experiments_spectra(d=0),
    lambda: srp.experiments_spectra(d=50, delta=-1.0),
    lambda: srp.experiments_spectra(d=50, beta=-1.0),
    lambda: srp.experiments_alignment_data(d=50, betas=(0.0, 1.0)),
    lambda: srp.experiments_alignment_data(d=50, gamma=0.0),
    lambda: srp.experiments_classification_data(d=40, beta=-0.5),
])
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
