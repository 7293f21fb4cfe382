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
    assert loss[0] == pytest.approx(np.log(2))  # zero read-out: log(1 + e^0)


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
            num[j] = (
                lrn._loss_grad(kind, up, table.E, tokens, y, ridge, loss, grad=False)[0]
                - lrn._loss_grad(kind, dn, table.E, tokens, y, ridge, loss, grad=False)[0]
            ) / (2 * h)
        assert np.allclose(grads[i], num, rtol=1e-5, atol=1e-8)
    up, dn = list(params), list(params)
    up[1], dn[1] = params[1] + h, params[1] - h
    num0 = (
        lrn._loss_grad(kind, up, table.E, tokens, y, ridge, loss, grad=False)[0]
        - lrn._loss_grad(kind, dn, table.E, tokens, y, ridge, loss, grad=False)[0]
    ) / (2 * h)
    assert grads[1] == pytest.approx(num0, rel=1e-5, abs=1e-8)
    if kind == "positional":
        assert abs(grads[2].sum()) < 1e-12  # softmax: the score gradient sums to zero


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
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
    ],
)
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


def test_supervised_optimum_beta0_is_the_larger_part_of_the_column():
    """beta = 0: w_sup is proportional to the positive or the negative part of R e_j, the larger one."""
    for rho in (0.8, -0.6, -0.95):
        R = sr.markov_correlation(T, rho)
        for j in (1, 5, 8):
            col = R[:, j - 1]
            pos, neg = np.maximum(col, 0), np.maximum(-col, 0)
            part = pos if pos @ pos >= neg @ neg else neg
            w = sr.supervised_weights(R, j)
            assert np.allclose(w, part / part.sum())
            assert sr.label_signal(w, R, j) == pytest.approx(max(pos @ pos, neg @ neg))


def _flip_signs(n, T, p, rng):
    """xi_1 a fair sign, xi_t = -xi_1 f_t (t >= 2) with independent f_t, P(f_t = 1) = p."""
    x1 = rng.choice([-1.0, 1.0], size=n)
    f = np.where(rng.random((n, T - 1)) < p, 1.0, -1.0)
    return np.column_stack([x1, -x1[:, None] * f])


def _flip_correlation(T, p):
    """R of the flip process: R_1t = -(2p - 1), R_ts = (2p - 1)^2 for 2 <= s != t."""
    a = 2 * p - 1
    c = np.r_[1.0, np.full(T - 1, -a)]
    return np.outer(c, c) + np.diag(np.r_[0.0, np.full(T - 1, 1 - a * a)])


def _simplex_grid(T, m):
    """All points of the simplex with coordinates in (1/m) Z."""
    pts = [c for c in np.ndindex(*(m + 1,) * (T - 1)) if sum(c) <= m]
    return np.array([list(c) + [m - sum(c)] for c in pts], dtype=float) / m


def test_negative_branch_counterexample_from_the_sign_process():
    """A genuine sign process whose best read-out of xi_1 uses the other positions with a minus sign."""
    rng = np.random.default_rng(5)
    xi = _flip_signs(400_000, 4, 0.95, rng)
    R = _flip_correlation(4, 0.95)
    assert np.allclose(R[0, 1:], -0.9) and np.isclose(R[1, 2], 0.81)
    assert np.abs(xi.T @ xi / len(xi) - R).max() < 0.01  # about 6 standard errors at n = 4e5
    assert np.abs(xi.mean(axis=0)).max() < 0.01
    # beta = 0: (Re_1)_+ = e_1 gives 1, the negative part gives 3 * 0.81 = 2.43
    e1, neg = np.eye(4)[0], np.r_[0.0, 1, 1, 1] / 3
    assert sr.label_signal(e1, R) == pytest.approx(1.0)
    assert sr.label_signal(neg, R) == pytest.approx(2.43)
    assert np.allclose(sr.supervised_weights(R, 1), neg)
    # brute force over the simplex: a grid of step 1/60 and random points never beat it
    grid = _simplex_grid(4, 60)
    vals = (grid @ R[:, 0]) ** 2 / np.einsum("nt,nt->n", grid, grid)
    assert vals.max() == pytest.approx(2.43) and vals.max() <= 2.43 + 1e-12
    pts = rng.dirichlet(np.full(4, 0.5), size=2000)
    assert max(sr.label_signal(p, R) for p in pts) <= 2.43 + 1e-12
    # the sign is real: simulated token values sqrt(b) xi_t + eps_t pooled with w have squared
    # correlation b Lambda(w) with the label, and the negative branch correlates negatively
    b = 0.5
    vals_tok = np.sqrt(b) * xi + rng.standard_normal(xi.shape)
    y = xi[:, 0]
    for v in (e1, neg):
        c2 = np.corrcoef(vals_tok @ v, y)[0, 1] ** 2
        assert c2 == pytest.approx(b * sr.label_signal(v, R, beta=b), abs=0.005)
    assert np.corrcoef(vals_tok @ neg, y)[0, 1] < 0
    # at b = 0.5 the negative branch still wins; for noiseless tokens (R positive definite) e_1 does
    assert np.allclose(sr.supervised_weights(R, 1, beta=b), neg)
    assert np.allclose(sr.supervised_weights(R, 1, beta=np.inf), e1)
    assert np.allclose(sr.supervised_weights(R, 1, beta=50.0), e1)


def _least_norm_by_supports(R, j, sgn):
    """Least-norm v >= 0 with R v = sgn R e_j, by enumerating supports (small T only)."""
    T_ = R.shape[0]
    target = sgn * R[:, j - 1]
    best = None
    for mask in range(1, 2**T_):
        J = [t for t in range(T_) if mask >> t & 1]
        x, *_ = np.linalg.lstsq(R[:, J], target, rcond=None)
        if np.abs(R[:, J] @ x - target).max() > 1e-9 or x.min() < -1e-12:
            continue
        v = np.zeros(T_)
        v[J] = x
        if best is None or v @ v < best @ best - 1e-12:
            best = v
    return best


def _singular_correlation(T_, k, rng):
    X = rng.standard_normal((k, T_))
    X /= np.linalg.norm(X, axis=0)
    return X.T @ X


def test_supervised_limit_is_the_least_norm_point_of_the_kernel_fibre():
    """beta -> inf: limit u^s / sum(u^s), u^s the least-norm v >= 0 with R v = s R e_j (enumerated)."""
    rng = np.random.default_rng(3)
    for trial in range(6):
        T_, k = 6, 2 + trial % 3
        R = _singular_correlation(T_, k, rng)
        j = 1 + trial % T_
        limit = sr.supervised_weights(R, j, beta=np.inf)
        cands = [v for v in (_least_norm_by_supports(R, j, s) for s in (1, -1)) if v is not None]
        best = min(cands, key=lambda v: v @ v)
        assert np.allclose(limit, best / best.sum(), atol=1e-8)
        # the maximizer at large beta approaches the limit (the rate 1/beta is observed, not proved),
        # and 1 / max Lambda - beta -> ||u||^2
        for b in (1e4, 1e6):
            w = sr.supervised_weights(R, j, beta=b)
            assert np.abs(w - limit).max() < 1000 / b
        b = 1e6
        w = sr.supervised_weights(R, j, beta=b)
        assert 1 / sr.label_signal(w, R, j, beta=b) - b == pytest.approx(best @ best, abs=1e-3)


def test_supervised_limit_prefix_and_positive_definite():
    # singular R: the prefix model gives the uniform prefix, not e_j (also what large finite beta returns)
    uniform = np.r_[np.ones(L) / L, np.zeros(T - L)]
    for b in (1e8, np.inf):
        assert np.allclose(sr.supervised_weights(R_PREFIX, 1, beta=b), uniform)
    # positive definite R: the limit is e_j
    R = sr.markov_correlation(T, 0.8)
    for j in (1, 7):
        assert np.allclose(sr.supervised_weights(R, j, beta=np.inf), np.eye(T)[j - 1])
    # rank one with opposite signs: the limit is on the negative branch
    s = np.r_[1.0, -1, -1, -1]
    assert np.allclose(sr.supervised_weights(np.outer(s, s), 1, beta=np.inf), np.r_[0, 1, 1, 1] / 3)


def test_supervised_optimum_outside_the_prefix_is_the_label_position():
    """j > L: w_sup = e_j for every beta (Lambda(e_j) = 1/(beta+1) is the maximum), not the spectral optimum."""
    grid = _simplex_grid(5, 20)
    R = sr.prefix_correlation(5, 2)
    for b in (0.0, 1.0, 10.0):
        w = sr.supervised_weights(R, 4, beta=b)
        assert np.allclose(w, np.eye(5)[3])
        assert sr.label_signal(w, R, 4, beta=b) == pytest.approx(1 / (b + 1))
        M = b * R + np.eye(5)
        vals = (grid @ R[:, 3]) ** 2 / np.einsum("nt,ts,ns->n", grid, M, grid)
        assert vals.max() <= 1 / (b + 1) + 1e-12
    assert _ak(np.eye(5)[3], R) == pytest.approx(1.0) and _ak(sr.optimal_weights(R), R) == pytest.approx(2.0)


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
    R = sr.markov_correlation(T, 0.8)  # positive definite: the limit is e_1
    w = sr.supervised_weights(R, 1, beta=1e5)
    assert w[0] > 0.999
    assert sr.label_signal(np.eye(T)[0], R, 1, beta=0.0) == pytest.approx(1.0)


def test_markov_supervised_and_spectral_optima_differ():
    R = sr.markov_correlation(T, 0.8)
    sup, spec = sr.supervised_weights(R), sr.optimal_weights(R)
    assert np.argmax(sup) == 0 and np.argmax(spec) in (7, 8)
    assert _ak(spec, R) > _ak(sup, R) + 1


# --- separability, margins, the objective at fixed weights ------------------------------------


def test_class_separable_vocabulary():
    """The chapter's tables (d = 200, V = 400, beta = 2) are separable by class; V >> 2d at beta = 0 is not."""
    for seed in (0, 1):
        assert sr.class_separable(sr.make_table(200, 400, 2.0, seed=seed))
    assert not sr.class_separable(sr.make_table(10, 60, 0.0, seed=0))  # Cover: P(separable) < 1e-6
    assert sr.class_separable(sr.make_table(10, 60, 400.0, seed=0))  # classes far apart
    with pytest.raises(TypeError, match="table"):
        sr.class_separable(np.zeros((3, 4)))


def _primal_margin(C, y):
    """Independent hard margin 1/||r|| of the maximum-margin read-out found by SLSQP."""
    r, _ = _primal_readout(C, y)
    return 1 / np.linalg.norm(r)


def test_readout_margin_matches_an_independent_solver():
    res = sr.learn_attention(R_PREFIX, 2.0, d=12, V=40, N=18, seed=4, steps=2)
    for w in (np.eye(T)[0], np.r_[np.ones(L) / L, np.zeros(T - L)]):
        C = sr.pool(res.table, res.tokens, w)
        assert sr.readout_margin(res, w) == pytest.approx(_primal_margin(C, res.labels.astype(float)), rel=1e-5)
    # not separable: labels of a position outside the prefix read through the prefix only
    res_out = sr.learn_attention(R_PREFIX, 0.0, d=5, V=40, N=200, seed=0, steps=2, label=L + 1)
    assert sr.readout_margin(res_out, np.eye(T)[0]) == 0.0


def test_readout_objective_is_the_minimum_over_the_readout():
    res = sr.learn_attention(R_PREFIX, 2.0, d=30, V=60, N=120, seed=2, steps=400)
    J = sr.readout_objective(res, res.weights)
    assert J <= res.history["loss"][-1] + 1e-12
    # squared loss: the minimum over (r, r_0) is a ridge regression with an unpenalized bias
    sq = sr.learn_attention(R_PREFIX, 2.0, d=30, V=60, N=120, seed=2, steps=2, loss="squared", ridge=0.01)
    w = np.r_[np.ones(L) / L, np.zeros(T - L)]
    C, y, N = sr.pool(sq.table, sq.tokens, w), sq.labels.astype(float), 120
    Cc, yc = C - C.mean(axis=1, keepdims=True), y - y.mean()
    r = np.linalg.solve(Cc @ Cc.T / N + 0.01 * np.eye(30), Cc @ yc / N)
    r0 = y.mean() - r @ C.mean(axis=1)
    exact = 0.5 * np.mean((r @ C + r0 - y) ** 2) + 0.005 * r @ r
    assert sr.readout_objective(sq, w) == pytest.approx(exact, rel=1e-7)
    with pytest.raises(ValueError, match="ridge"):
        sr.readout_objective(res, w, ridge=0.0)
    with pytest.raises(ValueError, match="ridge"):
        sr.readout_objective(res, w, ridge=-1.0)
    # a larger ridge costs more at the same weights
    assert sr.readout_objective(res, w, ridge=0.1) > sr.readout_objective(res, w)
    with pytest.raises(ValueError, match="simplex"):
        sr.readout_objective(res, np.r_[2.0, np.zeros(T - 1)])
    content = sr.learn_attention(R_PREFIX, 2.0, d=10, V=40, N=50, seed=0, steps=2, kind="content")
    with pytest.raises(ValueError, match="positional"):
        sr.readout_margin(content, w)
    with pytest.raises(TypeError, match="result"):
        sr.readout_objective("res", w)


def _primal_readout(C, y):
    """Independent maximum-margin read-out (r, r_0): min ||r||^2 s.t. y_n (r^T c_n + r_0) >= 1 by SLSQP."""
    from scipy.optimize import minimize

    d = C.shape[0]
    cons = {
        "type": "ineq",
        "fun": lambda x: y * (x[:d] @ C + x[d]) - 1,
        "jac": lambda x: np.column_stack([y[:, None] * C.T, y]),
    }
    x0 = np.r_[np.linalg.lstsq(C.T, y, rcond=None)[0] * 10, 0.0]
    out = minimize(
        lambda x: x[:d] @ x[:d],
        x0,
        jac=lambda x: np.r_[2 * x[:d], 0.0],
        constraints=[cons],
        method="SLSQP",
        options=dict(maxiter=2000, ftol=1e-14),
    )
    assert out.success
    return out.x[:d], out.x[d]


def test_readout_support_fraction_against_an_independent_solver():
    """The distinct training vectors at the margin, counted from an SLSQP solution of the primal."""
    for d, V, N, seed in ((12, 40, 18, 4), (30, 80, 60, 1), (20, 60, 15, 2)):
        res = sr.learn_attention(R_PREFIX, 2.0, d=d, V=V, N=N, seed=seed, steps=1)
        for w in (np.eye(T)[0], np.r_[np.ones(L) / L, np.zeros(T - L)]):
            C, y = sr.pool(res.table, res.tokens, w), res.labels.astype(float)
            r, r0 = _primal_readout(C, y)
            first = np.unique(np.round(C.T, 12), axis=0, return_index=True)[1]
            on_margin = y[first] * (r @ C[:, first] + r0) < 1 + 1e-4
            assert sr.readout_support_fraction(res, w) == pytest.approx(on_margin.mean())
            assert 0 < on_margin.mean() < 1  # these sizes leave points beyond the margin


def test_readout_support_fraction_proliferation_and_limits():
    # d much larger than N log N: every training point is a support vector (and the least-norm
    # interpolant is the maximum-margin read-out)
    res = sr.learn_attention(R_PREFIX, 2.0, d=400, V=800, N=10, seed=3, steps=1)
    for w in (np.eye(T)[1], np.r_[np.ones(L) / L, np.zeros(T - L)]):
        assert sr.readout_support_fraction(res, w) == 1.0
    # not separable: 0
    res_out = sr.learn_attention(R_PREFIX, 0.0, d=5, V=40, N=200, seed=0, steps=2, label=L + 1)
    assert sr.readout_support_fraction(res_out, np.eye(T)[0]) == 0.0
    for bad in (0.0, 1.0, -1e-3):
        with pytest.raises(ValueError, match="rtol"):
            sr.readout_support_fraction(res, np.eye(T)[1], rtol=bad)


def test_interpolation_margin_heuristic_at_small_N():
    """N << d: the hard margin of y_n mu + pooled noise is sqrt(beta + kappa (d - N)/N) within a few %."""
    res = sr.learn_attention(R_PREFIX, 2.0, d=400, V=800, N=60, seed=8, steps=1)
    for w, kap in ((np.eye(T)[1], 1.0), (np.r_[np.ones(L) / L, np.zeros(T - L)], 1 / L)):
        assert sr.readout_margin(res, w) == pytest.approx(sr.interpolation_margin(2.0, kap, 400, 60), rel=0.03)
    assert sr.interpolation_margin(2.0, 1.0, 200, 50) == pytest.approx(np.sqrt(5.0))
    with pytest.raises(ValueError, match="N"):
        sr.interpolation_margin(2.0, 1.0, 200, 200)
    with pytest.raises(ValueError, match="kappa"):
        sr.interpolation_margin(2.0, 0.0, 200, 20)


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
        srp.learning_margins(
            [50, 400],
            {"one position": [2.2, 0.9], "prefix average": [1.6, 1.1]},
            [-40.0, 35.0],
            d=200,
            heuristic={"one position": [2.24]},
        ),
        srp.learning_spectrum(
            [100, 200], {"fresh data": [2.0, 2.1]}, [2.0, 2.0], {"fresh data": [0.5, 0.6]}, [0.5, 0.55]
        ),
        srp.learning_content(
            [0, 1],
            {
                "q": {
                    "lambda": [1.0, 2.0],
                    "lambda_theory": [1.0, 1.0],
                    "overlap": [0.7, 0.1],
                    "overlap_theory": [0.7, 0.7],
                    "sign_correlation": [0.0, 0.5],
                }
            },
        ),
    ]
    for fig in figs:
        alt = srp.alt_text(fig)
        assert alt == fig.seqrmt_alt and any(ch.isdigit() for ch in alt)
        assert fig.get_size_inches()[0] <= 7.0
    assert "4" in srp.alt_text(figs[0])  # lambda_max of the prefix R
    assert "2 %" in srp.alt_text(figs[4]) or "5 %" in srp.alt_text(figs[4])
    with pytest.raises(ValueError, match="reference"):
        srp.learning_profiles(R_PREFIX, reference=("best",))
    with pytest.raises(ValueError, match="margins"):
        srp.learning_margins([50], {"a": [1.0]}, [0.0], d=200)
    assert "-40" in srp.alt_text(figs[3]) and "2.2" in srp.alt_text(figs[3])
