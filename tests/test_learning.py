"""Learned attention (seqrmt.learning) and its figures (seqrmt.plots.learning)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import seqrmt as sr
from seqrmt import learning as lrn

T, L = 16, 4
R_PREFIX = sr.prefix_correlation(T, L)


def _ak(w, R):
    return sr.alpha(w, R) / sr.kappa(w)


# --- the bar -------------------------------------------------------------------------------

def test_bar_prefix_positional_reaches_085_L():
    """Held-out bar: T=16, L=4, beta=2, d=200, V=400, N=4000 -> alpha/kappa >= 0.85 L.

    Seed 2026 is not used anywhere in the book. Mean pooling gives (L^2 + T - L)/T = 1.75.
    """
    res = sr.learn_attention(R_PREFIX, 2.0, d=200, V=400, N=4000, seed=2026)
    assert _ak(res.weights, R_PREFIX) >= 0.85 * L
    assert _ak(sr.mean_weights(T), R_PREFIX) == pytest.approx(1.75)


# --- determinism, shapes, simplex ------------------------------------------------------------

@pytest.mark.parametrize("kind", lrn.KINDS)
def test_deterministic_for_a_seed(kind):
    kw = dict(d=20, V=40, N=150, kind=kind, steps=60)
    a = sr.learn_attention(R_PREFIX, 1.0, seed=3, **kw)
    b = sr.learn_attention(R_PREFIX, 1.0, seed=3, **kw)
    c = sr.learn_attention(R_PREFIX, 1.0, seed=4, **kw)
    assert np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.readout, b.readout)
    assert np.array_equal(a.history["loss"], b.history["loss"])
    assert not np.array_equal(a.readout, c.readout)


@pytest.mark.parametrize("kind", lrn.KINDS)
def test_weights_on_the_simplex_and_shapes(kind):
    res = sr.learn_attention(R_PREFIX, 2.0, d=30, V=60, N=200, kind=kind, seed=0, steps=80, record_every=20)
    w = res.weights
    assert w.shape == (T,) and np.all(w >= 0) and w.sum() == pytest.approx(1.0)
    W = res.sequence_weights(res.tokens)
    assert W.shape == (200, T) and np.allclose(W.sum(axis=1), 1) and np.all(W >= 0)
    assert np.allclose(W.mean(axis=0) / W.mean(axis=0).sum(), w)
    assert res.readout.shape == (30,)
    assert list(res.history["step"]) == [0, 20, 40, 60, 80]
    assert res.history["weights"].shape == (5, T)
    if kind == "content":
        assert res.query.shape == (30,) and res.scores is None
    else:
        assert res.scores.shape == (T,) and res.query is None
        assert np.allclose(np.exp(res.scores) / np.exp(res.scores).sum(), w)


def test_positional_pool_matches_seqrmt_pool():
    res = sr.learn_attention(R_PREFIX, 1.0, d=25, V=50, N=100, seed=1, steps=30)
    assert np.allclose(res.pool(res.tokens), sr.pool(res.table, res.tokens, res.weights))
    f = res.decision(res.tokens)
    assert np.allclose(f, res.readout @ res.pool(res.tokens) + res.bias)


def test_training_decreases_the_loss():
    res = sr.learn_attention(R_PREFIX, 2.0, d=40, V=80, N=400, seed=0, steps=200)
    loss = res.history["loss"]
    assert loss[-1] < 0.5 * loss[0]
    assert loss[0] == pytest.approx(np.log(2))      # zero read-out: log(1 + e^0)


# --- gradients ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", lrn.KINDS)
@pytest.mark.parametrize("loss", lrn.LOSSES)
def test_gradient_matches_finite_differences(kind, loss):
    rng = np.random.default_rng(0)
    d, V, N = 8, 12, 30
    table = sr.make_table(d, V, 1.5, seed=rng)
    xi = sr.sample_signs(N, sr.markov_correlation(5, 0.6), seed=rng)
    tokens = sr.sample_tokens(xi, V, seed=rng)
    y = xi[:, 0]
    third = rng.standard_normal(5) if kind == "positional" else rng.standard_normal(d)
    params = [rng.standard_normal(d), 0.3, third]
    ridge = 0.05
    _, grads, _ = lrn._loss_grad(kind, params, table.E, tokens, y, ridge, loss)
    h = 1e-6
    for i in (0, 2):
        num = np.zeros_like(params[i])
        for j in range(params[i].size):
            up = [p.copy() if isinstance(p, np.ndarray) else p for p in params]
            dn = [p.copy() if isinstance(p, np.ndarray) else p for p in params]
            up[i][j] += h
            dn[i][j] -= h
            num[j] = (lrn._loss_grad(kind, up, table.E, tokens, y, ridge, loss, grad=False)[0]
                      - lrn._loss_grad(kind, dn, table.E, tokens, y, ridge, loss, grad=False)[0]) / (2 * h)
        assert np.allclose(grads[i], num, rtol=1e-5, atol=1e-8)
    up, dn = list(params), list(params)
    up[1], dn[1] = params[1] + h, params[1] - h
    num0 = (lrn._loss_grad(kind, up, table.E, tokens, y, ridge, loss, grad=False)[0]
            - lrn._loss_grad(kind, dn, table.E, tokens, y, ridge, loss, grad=False)[0]) / (2 * h)
    assert grads[1] == pytest.approx(num0, rel=1e-5, abs=1e-8)
    if kind == "positional":
        assert abs(grads[2].sum()) < 1e-12      # softmax: the score gradient sums to zero


# --- validation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    (dict(kind="attention"), "kind"),
    (dict(label=0), "label"),
    (dict(label=T + 1), "label"),
    (dict(V=41), "V"),
    (dict(d=0), "d"),
    (dict(N=1), "N"),
    (dict(steps=0), "steps"),
    (dict(lr=0.0), "lr"),
    (dict(ridge=-1.0), "ridge"),
    (dict(loss="hinge"), "loss"),
    (dict(record_every=0), "record_every"),
])
def test_bad_input_raises_value_error_naming_the_parameter(kwargs, match):
    base = dict(d=10, V=40, N=50, seed=0, steps=5)
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sr.learn_attention(R_PREFIX, 1.0, **base)


def test_bad_beta_R_table_and_types():
    with pytest.raises(ValueError, match="beta"):
        sr.learn_attention(R_PREFIX, -1.0, d=10, V=40, N=50)
    with pytest.raises(ValueError, match="R"):
        sr.learn_attention(np.ones((3, 3)) * 2, 1.0, d=10, V=40, N=50)
    table = sr.make_table(10, 40, 1.0, seed=0)
    with pytest.raises(ValueError, match="table"):
        sr.learn_attention(R_PREFIX, 1.0, d=12, V=40, N=50, table=table)
    with pytest.raises(TypeError, match="kind"):
        sr.learn_attention(R_PREFIX, 1.0, d=10, V=40, N=50, kind=1)
    with pytest.raises(TypeError, match="table"):
        sr.learn_attention(R_PREFIX, 1.0, d=10, V=40, N=50, table="E")
    res = sr.learn_attention(R_PREFIX, 1.0, d=10, V=40, N=50, table=table, steps=3, seed=0)
    assert res.table is table


def test_supervised_weights_validation():
    with pytest.raises(ValueError, match="label"):
        sr.supervised_weights(R_PREFIX, 0)
    with pytest.raises(ValueError, match="beta"):
        sr.supervised_weights(R_PREFIX, 1, beta=-0.5)
    with pytest.raises(ValueError, match="label"):
        sr.label_signal(sr.mean_weights(T), R_PREFIX, 17)


def test_learned_spectrum_validation():
    res = sr.learn_attention(R_PREFIX, 1.0, d=10, V=40, N=50, seed=0, steps=3)
    with pytest.raises(ValueError, match="N"):
        sr.learned_spectrum(res)
    with pytest.raises(ValueError, match="N"):
        sr.learned_spectrum(res, 10, same_data=True)
    with pytest.raises(TypeError, match="result"):
        sr.learned_spectrum("res", 10)
    with pytest.raises(TypeError, match="result"):
        sr.token_snr(None)


# --- the supervised optimum ------------------------------------------------------------------

@pytest.mark.parametrize("beta", [0.0, 0.5, 3.0, 100.0])
def test_supervised_optimum_prefix_is_the_spectral_optimum(beta):
    for j in range(1, L + 1):
        assert np.allclose(sr.supervised_weights(R_PREFIX, j, beta=beta), sr.optimal_weights(R_PREFIX))
    # a label outside the prefix: one independent position
    assert np.allclose(sr.supervised_weights(R_PREFIX, L + 2, beta=beta), np.eye(T)[L + 1])


def test_supervised_optimum_beta0_is_the_positive_part_of_the_column():
    for rho in (0.8, -0.6):
        R = sr.markov_correlation(T, rho)
        for j in (1, 5):
            col = np.maximum(R[:, j - 1], 0)
            assert np.allclose(sr.supervised_weights(R, j), col / col.sum())


@pytest.mark.parametrize("rho, beta", [(0.8, 0.0), (0.8, 2.0), (-0.5, 1.0), (0.3, 10.0)])
def test_supervised_optimum_beats_random_simplex_points(rho, beta):
    R = sr.markov_correlation(10, rho)
    w = sr.supervised_weights(R, 3, beta=beta)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1)
    best = sr.label_signal(w, R, 3, beta=beta)
    rng = np.random.default_rng(1)
    pts = rng.dirichlet(np.full(10, 0.3), size=3000)
    vals = [sr.label_signal(p, R, 3, beta=beta) for p in pts]
    assert best >= max(vals) - 1e-12
    # local optimality: small feasible moves do not increase the objective
    for _ in range(200):
        v = np.clip(w + 1e-4 * rng.standard_normal(10), 0, None)
        assert sr.label_signal(v / v.sum(), R, 3, beta=beta) <= best + 1e-9


def test_supervised_optimum_tends_to_the_label_position():
    R = sr.markov_correlation(T, 0.8)
    w = sr.supervised_weights(R, 1, beta=1e5)
    assert w[0] > 0.999
    assert sr.label_signal(np.eye(T)[0], R, 1, beta=0.0) == pytest.approx(1.0)


def test_markov_supervised_and_spectral_optima_differ():
    R = sr.markov_correlation(T, 0.8)
    sup, spec = sr.supervised_weights(R), sr.optimal_weights(R)
    assert np.argmax(sup) == 0 and np.argmax(spec) in (7, 8)
    assert _ak(spec, R) > _ak(sup, R) + 1


# --- statistics and spectra ---------------------------------------------------------------------

def test_weight_statistics_for_fixed_weights():
    xi = sr.sample_signs(5000, R_PREFIX, seed=0)
    w = sr.causal_weights(T)
    st = sr.weight_statistics(np.tile(w, (5000, 1)), xi)
    assert st["sign_correlation"] == 0.0
    assert st["kappa_mean"] == pytest.approx(sr.kappa(w))
    assert st["signal_variance"] + st["signal_mean"] ** 2 == pytest.approx(st["alpha_bar"])
    assert st["alpha_bar"] == pytest.approx(sr.alpha(w, R_PREFIX), rel=0.05)
    with pytest.raises(ValueError, match="W"):
        sr.weight_statistics(np.ones((3, 4)), np.ones((3, 5)))


def test_learned_spectrum_fresh_equals_simulate_table():
    res = sr.learn_attention(R_PREFIX, 2.0, d=40, V=80, N=300, seed=0, steps=50)
    a = sr.learned_spectrum(res, 500, seed=9)
    b = sr.simulate_table(res.table, 500, res.weights, R_PREFIX, seed=9)
    assert np.allclose(a.eigenvalues, b.eigenvalues)
    assert np.allclose(a.overlaps, b.overlaps)
    assert (a.delta_norm2, a.zbar_norm2, a.spike_norm2) == (b.delta_norm2, b.zbar_norm2, b.spike_norm2)
    same = sr.learned_spectrum(res, same_data=True)
    assert same.params["N"] == 300 and same.params["same_data"]


def test_token_snr_of_the_mu_readout():
    """A read-out along mu gives p_v = s_v sqrt(beta) |mu-part| + noise: snr ~ beta."""
    res = sr.learn_attention(R_PREFIX, 2.0, d=30, V=4000, N=50, seed=0, steps=2)
    res = dataclasses.replace(res, readout=res.table.mu / np.linalg.norm(res.table.mu))
    assert sr.token_snr(res) == pytest.approx(2.0, rel=0.1)


def test_content_query_along_mu_correlates_weights_with_signs():
    res = sr.learn_attention(R_PREFIX, 2.0, d=50, V=100, N=100, kind="content", seed=0, steps=2)
    u = res.table.mu / np.linalg.norm(res.table.mu)
    xi = sr.sample_signs(2000, R_PREFIX, seed=1)
    tok = sr.sample_tokens(xi, 100, seed=2)
    plus = dataclasses.replace(res, query=3 * np.sqrt(50) * u)
    st = sr.weight_statistics(plus.sequence_weights(tok), xi)
    assert st["sign_correlation"] > 0.3 and st["signal_mean"] > 0.2
    zero = dataclasses.replace(res, query=np.zeros(50))
    assert np.allclose(zero.sequence_weights(tok), 1 / T)


# --- figures -----------------------------------------------------------------------------------

def test_figures_have_alt_text_with_numbers():
    import seqrmt.plots as srp
    res = sr.learn_attention(R_PREFIX, 2.0, d=30, V=60, N=200, seed=0, steps=50)
    figs = [
        srp.learning_profiles(R_PREFIX, {"learned": res.weights}, title="prefix"),
        srp.learning_training(res, step=25),
        srp.learning_curve([100, 200], [[1.5, 3.0], [1.7, 3.2]], R_PREFIX),
        srp.learning_spectrum([100, 200], {"fresh data": [2.0, 2.1]}, [2.0, 2.0], {"fresh data": [0.5, 0.6]},
                              [0.5, 0.55]),
        srp.learning_content([0, 1], {"q": {"lambda": [1.0, 2.0], "lambda_theory": [1.0, 1.0],
                                            "overlap": [0.7, 0.1], "overlap_theory": [0.7, 0.7],
                                            "sign_correlation": [0.0, 0.5]}}),
    ]
    for fig in figs:
        alt = srp.alt_text(fig)
        assert alt == fig.seqrmt_alt and any(ch.isdigit() for ch in alt)
        assert fig.get_size_inches()[0] <= 7.0
    assert "4" in srp.alt_text(figs[0])                      # lambda_max of the prefix R
    assert "2 %" in srp.alt_text(figs[3]) or "5 %" in srp.alt_text(figs[3])
    with pytest.raises(ValueError, match="reference"):
        srp.learning_profiles(R_PREFIX, reference=("best",))
