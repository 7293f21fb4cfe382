"""Tests of the causal-attention figures (seqrmt.plots.attention)."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import seqrmt as sr
import seqrmt.plots as srp
from figure_parts import has_legend


def _labelled(ax):
    return bool(ax.get_xlabel()) and bool(ax.get_ylabel())


def test_suffix_correlation_is_reversed_prefix():
    R = srp.attention_suffix_correlation(6, 2)
    assert np.all(R[-2:, -2:] == 1) and R[0, 1] == 0
    assert np.allclose(R, sr.prefix_correlation(6, 2)[::-1, ::-1])


def test_weight_samples_shape_and_limit():
    W, w = srp.attention_weight_samples(64, T=8, L=2, tau=1.0, n_sequences=30, seed=3)
    assert W.shape == (30, 8)
    assert np.allclose(W.sum(axis=1), 1.0)
    assert np.allclose(w, sr.causal_weights(8, 1.0))
    # at tau = 0 all scores vanish: weights equal the limit exactly
    W0, w0 = srp.attention_weight_samples(32, T=8, L=2, tau=0.0, n_sequences=5)
    assert np.allclose(W0, w0)


def test_convergence_data_rate():
    c = srp.attention_convergence_data(ds=(16, 64, 256), n_sequences=60, T=8, L=2)
    assert c["error"].shape == (3,) and np.all(np.diff(c["error"]) < 0)
    assert -0.8 < c["rate"] < -0.25


def test_spectrum_data_matches_fixed_weights():
    r = srp.attention_spectrum_data(120, T=8, L=2, seed=1)
    assert r["eigenvalues"].shape == (120,)
    assert abs(r["outlier"] / r["fixed_outlier"] - 1) < 0.03
    assert r["prediction"].sample_outlier is not None
    # the realized prediction uses the table's ||mu + Delta||^2 (the table is the first draw of the seed)
    V, _ = sr.sizes(120, 0.5, 0.5)
    tab = sr.make_table(120, V, 1.0, seed=np.random.default_rng(1))
    x = tab.mu + tab.Delta
    assert r["prediction_realized"].theta == pytest.approx(r["prediction"].alpha * (x @ x), rel=1e-12)
    top = srp.attention_spectrum_data(120, T=8, L=2, seed=1, full=False)
    assert top["eigenvalues"].shape == (1,) and np.isclose(top["outlier"], r["outlier"])


@pytest.mark.parametrize("kw", [{}, {"tau": 2.0, "T": 8}])
def test_profiles(kw):
    fig = srp.attention_profiles(ds=(16, 64), n_show=3, **kw)
    assert isinstance(fig, Figure)
    axes = [a for a in fig.axes if a.get_visible()]
    assert len(axes) == 2
    assert axes[0].get_ylabel() and axes[0].get_xlabel()
    assert len(axes[0].lines) == 4  # 3 sequences + limit


def test_convergence_figure():
    data = srp.attention_convergence_data(ds=(16, 64), n_sequences=20, T=8, L=2)
    fig = srp.attention_convergence(data=data)
    ax = fig.axes[0]
    assert _labelled(ax) and ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert len(ax.lines) >= 2 and has_legend(ax)


def test_spectrum_figure():
    data = srp.attention_spectrum_data(100, T=8, L=2, seed=0)
    fig = srp.attention_spectrum(d=100, T=8, L=2, data=data)
    ax = fig.axes[0]
    assert _labelled(ax) and has_legend(ax)
    # the predictions are those of the limit weights w(tau = 1)
    R, w = sr.prefix_correlation(8, 2), sr.causal_weights(8, 1.0)
    np.testing.assert_allclose(data["w"], w)
    p = sr.predict(data["delta"], data["gamma"], w, R, 1.0)
    pi = sr.predict(data["delta"], data["gamma"], w, R, 1.0, finite_table=False)
    assert data["prediction"].sample_outlier == pytest.approx(p.sample_outlier, rel=1e-12)
    # histogram: density of the returned eigenvalues; curve: Theorem 1 with kappa = ||w||^2
    left = np.array([r.get_x() for r in ax.patches])
    width = np.array([r.get_width() for r in ax.patches])
    dens, _ = np.histogram(data["eigenvalues"], bins=np.r_[left, left[-1] + width[-1]], density=True)
    np.testing.assert_allclose([r.get_height() for r in ax.patches], dens, rtol=1e-12, atol=1e-15)
    bulk = [ln for ln in ax.lines if ln.get_label().startswith("bulk")]
    assert len(bulk) == 1
    x = np.asarray(bulk[0].get_xdata())
    np.testing.assert_allclose(
        bulk[0].get_ydata(), sr.bulk_density(x, data["delta"], data["gamma"], sr.kappa(w)), rtol=1e-12
    )
    for pred, start in ((p, "predicted outlier"), (pi, "idealized")):
        lines = [ln for ln in ax.lines if ln.get_label().startswith(start)]
        assert len(lines) == (pred.sample_outlier is not None)
        if lines:
            assert lines[0].get_xdata()[0] == pytest.approx(pred.sample_outlier, rel=1e-12)


@pytest.mark.parametrize("kw", [{}, {"T": 8, "taus": (-1.0, 1.0)}])
def test_tau_profiles(kw):
    fig = srp.attention_tau_profiles(**kw)
    ax = fig.axes[0]
    assert _labelled(ax)
    taus = kw.get("taus", (-6.0, -2.0, 0.0, 2.0, 6.0))
    T = kw.get("T", 16)
    assert len(ax.lines) == len(taus) + 2  # taus + strict + mean
    for ln, tau in zip(ax.lines, taus):
        np.testing.assert_allclose(ln.get_ydata(), sr.causal_weights(T, tau), rtol=1e-12)
    np.testing.assert_allclose(ax.lines[len(taus)].get_ydata(), sr.causal_weights(T, strict=True), rtol=1e-12)
    np.testing.assert_allclose(ax.lines[-1].get_ydata(), 1 / T)


@pytest.mark.parametrize("kw", [{}, {"T": 32, "L": 8, "rho": 0.9, "tau_mark": 1.0}])
def test_snr_tau(kw):
    fig = srp.attention_snr_tau(**kw)
    ax = fig.axes[0]
    assert _labelled(ax) and has_legend(ax)
    y = ax.lines[0].get_ydata()  # prefix curve ends at the mean-pooling level
    T, L = kw.get("T", 16), kw.get("L", 4)
    assert np.isclose(y[-1], (L * L + T - L) / T, rtol=0.02)
    # each curve is alpha/kappa of w(tau) at the plotted tau, for its correlation
    Rs = {
        "prefix": sr.prefix_correlation(T, L),
        "suffix": srp.attention_suffix_correlation(T, L),
        "Markov": sr.markov_correlation(T, kw.get("rho", 0.5)),
    }
    for name, R in Rs.items():
        ln = [x for x in ax.lines if x.get_label().startswith(f"causal, {name}")]
        assert len(ln) == 1
        taus, vals = ln[0].get_xdata(), ln[0].get_ydata()
        for i in range(0, len(taus), 10):
            w = sr.causal_weights(T, taus[i])
            assert vals[i] == pytest.approx(sr.alpha(w, R) / sr.kappa(w), rel=1e-10)


@pytest.mark.parametrize("kw", [{}, {"tau": -6.0, "T": 8}])
def test_explorer(kw):
    fig = srp.attention_explorer(d=64, **kw)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert all(_labelled(a) for a in fig.axes)
    T, tau = kw.get("T", 16), kw.get("tau", 0.0)
    limit = [ln for ln in fig.axes[0].lines if ln.get_label().startswith("limit")]
    assert len(limit) == 1
    np.testing.assert_allclose(limit[0].get_ydata(), sr.causal_weights(T, tau), rtol=1e-12)
    mark = [ln for ln in fig.axes[1].lines if len(ln.get_xdata()) == 2 and ln.get_xdata()[0] == ln.get_xdata()[1]]
    assert [float(m.get_xdata()[0]) for m in mark if m.get_linestyle() == "-" and m.get_label().startswith("_")] == [
        tau
    ]


@pytest.mark.parametrize(
    "call",
    [
        lambda: srp.attention_weight_samples(0),
        lambda: srp.attention_weight_samples(16, delta=-1.0),
        lambda: srp.attention_convergence_data(ds=(16,)),
        lambda: srp.attention_convergence_data(tau=0.0),
        lambda: srp.attention_spectrum_data(50, gamma=0.0),
        lambda: srp.attention_snr_tau(T=4, L=5),
        lambda: srp.attention_snr_tau(rho=2.0),
        lambda: srp.attention_snr_tau(tau_range=(1.0, -1.0)),
        lambda: srp.attention_tau_profiles(T=1),
        lambda: srp.attention_profiles(ds=()),
    ],
)
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


def test_bad_input_names_parameter():
    with pytest.raises(ValueError, match="delta"):
        srp.attention_weight_samples(16, delta=0.0)
    with pytest.raises(ValueError, match="rho"):
        srp.attention_snr_tau(rho=-3)
    with pytest.raises(ValueError, match="tau"):
        srp.attention_convergence_data(tau=0)
