"""The spectral classifier's accuracy formula (``sr.spectral_classifier_accuracy``).

The formula ``Phi(m a / sqrt(a^2 (alpha - m^2) + u^T kappa W u))`` is derived in chapter 6
under two approximations (``u_hat`` independent of the new sequence, Gaussian projected
noise). These tests check it against its own building blocks (exact cases of the Gaussian
computation) and against simulation: the top eigenvector of a simulated ``S``, fresh
labelled sequences from the same table, and the measured projections.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtr

import seqrmt as sr


def test_exported():
    import seqrmt.spikes

    assert "spectral_classifier_accuracy" in seqrmt.spikes.__all__
    assert sr.spectral_classifier_accuracy is seqrmt.spikes.spectral_classifier_accuracy


def test_closed_form_and_limits():
    # r = 0 (alpha = m^2): Phi(m a / s)
    assert np.isclose(sr.spectral_classifier_accuracy(0.25, 4.0, 1.0, 1.0, 1.0), ndtr(1.0))
    # no projection on the signal: chance
    assert sr.spectral_classifier_accuracy(0.0, 4.0, 1.0, 1.0, 0.5) == 0.5
    assert sr.spectral_classifier_accuracy(0.5, 2.0, 1.0, 1.0, 0.0) == 0.5
    # a negative label weight gives the mirror accuracy
    a, b = (sr.spectral_classifier_accuracy(0.5, 2.0, 0.3, 1.0, m) for m in (0.6, -0.6))
    assert np.isclose(a + b, 1.0)
    # more noise, lower accuracy; more overlap, higher accuracy
    assert sr.spectral_classifier_accuracy(0.5, 2.0, 0.1, 1.0, 0.6) > sr.spectral_classifier_accuracy(
        0.5, 2.0, 1.0, 1.0, 0.6
    )
    assert sr.spectral_classifier_accuracy(0.9, 2.0, 0.3, 1.0, 0.6) > sr.spectral_classifier_accuracy(
        0.2, 2.0, 0.3, 1.0, 0.6
    )
    # with r != 0 and huge overlap the accuracy saturates at Phi(m / sqrt(alpha - m^2)), not at 1
    sat = sr.spectral_classifier_accuracy(1.0, 1e8, 1e-6, 1.0, 0.6)
    assert np.isclose(sat, ndtr(0.6 / 0.8), rtol=1e-6)


def test_gaussian_monte_carlo():
    """Z = (m y + r) a + g with Gaussian r and g: the formula is exact."""
    rng = np.random.default_rng(0)
    n, m, alpha, a, s2 = 400_000, 0.5, 1.0, 1.3, 0.7
    y = rng.choice([-1.0, 1.0], size=n)
    r = rng.normal(0, np.sqrt(alpha - m * m), size=n)
    g = rng.normal(0, np.sqrt(s2), size=n)
    acc = np.mean(np.sign((m * y + r) * a + g) == y)
    pred = sr.spectral_classifier_accuracy(1.0, a * a, s2, alpha, m)
    assert abs(acc - pred) < 4 * np.sqrt(pred * (1 - pred) / n)


@pytest.mark.parametrize(
    "bad",
    [
        dict(overlap=1.5),
        dict(overlap=-0.1),
        dict(spike_norm2=-1.0),
        dict(noise_var=0.0),
        dict(alpha=0.0),
        dict(label_weight=2.0),
        dict(overlap=float("nan")),
    ],
)
def test_validation(bad):
    args = dict(overlap=0.5, spike_norm2=2.0, noise_var=0.3, alpha=1.0, label_weight=0.5)
    args.update(bad)
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        sr.spectral_classifier_accuracy(**args)


def test_type_checked():
    with pytest.raises(TypeError, match="alpha"):
        sr.spectral_classifier_accuracy(0.5, 2.0, 0.3, "1", 0.5)


def _measure(w, R, L, beta, d=200, delta=0.5, gamma=0.5, n_test=20_000, seed=0):
    V, N = sr.sizes(d, delta, gamma)
    rng = np.random.default_rng(seed)
    table = sr.make_table(d, V, beta, seed=rng)
    _, S = sr.simulate_table(table, N, w, R, seed=rng, n_vectors=1, return_matrix=True)
    u_hat = np.linalg.eigh(S)[1][:, -1]
    spike = table.mu + table.Delta
    u_hat = u_hat if u_hat @ spike > 0 else -u_hat
    proj = u_hat @ table.E
    plus = table.signs > 0
    noise_var = sr.kappa(w) * 0.5 * (proj[plus].var() + proj[~plus].var())
    eta = (u_hat @ spike) ** 2 / (spike @ spike)
    m = float(w[:L].sum())
    pred = sr.spectral_classifier_accuracy(eta, spike @ spike, noise_var, sr.alpha(w, R), m)
    xi = sr.sample_signs(n_test, R, seed=rng)
    C = sr.pool(table, sr.sample_tokens(xi, V, seed=rng), w)
    emp = float(np.mean(np.sign(u_hat @ (C - sr.sigma_w(w) * table.zbar[:, None])) == xi[:, 0]))
    return pred, emp


@pytest.mark.parametrize("name", ["mean", "causal", "optimal"])
def test_formula_against_simulation(name):
    T, L = 16, 4
    R = sr.prefix_correlation(T, L)
    w = {"mean": sr.mean_weights(T), "causal": sr.causal_weights(T), "optimal": sr.optimal_weights(R)}[name]
    pred, emp = _measure(w, R, L, beta=1.5)
    se = np.sqrt(emp * (1 - emp) / 20_000)
    assert 0.6 < emp < 1.0  # a non-trivial accuracy, so the test can fail
    assert abs(pred - emp) < 4 * se + 0.01, (pred, emp)


def test_formula_fails_when_the_noise_term_is_wrong():
    """The measured u^T kappa W u matters: kappa alone (white noise) overestimates the accuracy."""
    T, L = 16, 4
    R = sr.prefix_correlation(T, L)
    w = sr.mean_weights(T)
    pred, emp = _measure(w, R, L, beta=1.0)
    p = sr.predict(0.5, 0.5, w, R, 1.0)
    naive = sr.spectral_classifier_accuracy(
        p.population_overlap * p.sample_overlap, 1.5, sr.kappa(w), sr.alpha(w, R), float(w[:L].sum())
    )
    assert naive - emp > abs(pred - emp)
