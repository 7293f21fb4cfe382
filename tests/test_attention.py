"""Tests of seqrmt.attention: the scalars kappa, alpha, sigma_w, snr; mean, optimal and
causal weights; finite-d causal attention."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import seqrmt as sr


def harmonic(n):
    """H_n = sum_{k <= n} 1/k (H_0 = 0)."""
    return float(np.sum(1.0 / np.arange(1, n + 1)))


# ---------------------------------------------------------------------------
# scalars
# ---------------------------------------------------------------------------


def test_scalars_basic_values():
    w = np.array([1.0, 2.0, -0.5])
    R = sr.markov_correlation(3, 0.5)
    assert sr.kappa(w) == pytest.approx(1 + 4 + 0.25)
    assert sr.sigma_w(w) == pytest.approx(2.5)
    assert sr.alpha(w, R) == pytest.approx(w @ R @ w)
    assert sr.alpha(w, np.eye(3)) == pytest.approx(sr.kappa(w))  # independent positions
    assert sr.snr(w, R, beta=2.0, delta=0.5) == pytest.approx((w @ R @ w) * 2.5 / 5.25)
    assert sr.snr(w, R, beta=2.0) == pytest.approx((w @ R @ w) * 2.0 / 5.25)  # idealized rho


def test_mean_weights():
    w = sr.mean_weights(8)
    np.testing.assert_allclose(w, 1 / 8)
    assert sr.kappa(w) == pytest.approx(1 / 8) and sr.sigma_w(w) == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# optimal weights (Theorem 5) and the prefix formulas
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("T, L", [(16, 4), (8, 1), (10, 10), (5, 2)])
def test_prefix_ratio_formulas(T, L):
    R = sr.prefix_correlation(T, L)
    w_opt = sr.optimal_weights(R)
    assert sr.alpha(w_opt, R) / sr.kappa(w_opt) == pytest.approx(L, rel=1e-10)
    w_mean = sr.mean_weights(T)
    assert sr.alpha(w_mean, R) / sr.kappa(w_mean) == pytest.approx((L**2 + T - L) / T, rel=1e-12)
    if L > 1:
        # the top eigenvector is uniform on the prefix and zero elsewhere; it sums to one
        expected = np.r_[np.full(L, 1 / L), np.zeros(T - L)]
        np.testing.assert_allclose(w_opt, expected, atol=1e-10)
        assert sr.sigma_w(w_opt) == pytest.approx(1.0)


def _random_R(kind, T, seed):
    rng = np.random.default_rng(seed)
    if kind == "prefix":
        return sr.prefix_correlation(T, int(rng.integers(1, T + 1)))
    if kind == "markov":
        return sr.markov_correlation(T, float(rng.uniform(-1, 1)))
    A = rng.standard_normal((T, T + 1))
    S = A @ A.T
    s = np.sqrt(np.diag(S))
    return S / np.outer(s, s)


def _ratio(w, R):
    return float(w @ R @ w / (w @ w))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["prefix", "markov", "gram"]), T=st.integers(1, 12), seed=st.integers(0, 2**31 - 1))
def test_optimal_weights_maximize_ratio(kind, T, seed):
    R = _random_R(kind, T, seed)
    lam_max = np.linalg.eigvalsh(R)[-1]
    u = sr.optimal_weights(R, normalize="unit")  # unconstrained optimum, any R
    assert np.linalg.norm(u) == pytest.approx(1.0, rel=1e-12) and u.sum() >= -1e-12
    best = sr.alpha(u, R) / sr.kappa(u)
    assert best == pytest.approx(lam_max, rel=1e-9, abs=1e-12)  # Rayleigh quotient maximum
    rng = np.random.default_rng(seed + 1)
    for _ in range(20):
        w = rng.standard_normal(T)
        assert sr.alpha(w, R) / sr.kappa(w) <= best * (1 + 1e-9) + 1e-12
    for w in (sr.mean_weights(T), sr.causal_weights(T, 0.0)):
        assert sr.alpha(w, R) / sr.kappa(w) <= best * (1 + 1e-9) + 1e-12
    # the default is an attention vector reaching lambda_max, or it refuses
    try:
        w = sr.optimal_weights(R)
    except ValueError as err:
        assert "alternates in sign" in str(err)
        assert u.min() < 0 < u.max()
    else:
        assert w.min() >= 0 and w.sum() == pytest.approx(1.0)
        assert _ratio(w, R) == pytest.approx(lam_max, rel=1e-9)


@pytest.mark.parametrize(
    "R",
    [
        sr.prefix_correlation(16, 4),
        sr.markov_correlation(16, 0.8),
        sr.markov_correlation(9, 0.0),
        sr.markov_correlation(7, 1.0),
        sr.copula_correlation(np.full((6, 6), 0.4) + 0.6 * np.eye(6)),
    ],
    ids=["prefix", "markov", "independent", "rho=1", "copula"],
)
def test_optimal_weights_nonnegative_R_is_normalized_perron_vector(R):
    # Perron-Frobenius: R >= 0 entrywise has a one-signed top eigenvector; the default
    # returns it scaled to sum to one, and the simplex search returns the same vector.
    lam, U = np.linalg.eigh(R)
    w = sr.optimal_weights(R)
    assert w.min() >= 0 and w.sum() == pytest.approx(1.0, abs=1e-12)
    assert _ratio(w, R) == pytest.approx(lam[-1], rel=1e-12)
    if lam[-1] - lam[-2] > 1e-6:  # simple: the eigenvector itself
        np.testing.assert_allclose(w, U[:, -1] / U[:, -1].sum(), atol=1e-12)
    np.testing.assert_array_equal(sr.optimal_weights(R, simplex=True), w)
    u = sr.optimal_weights(R, normalize="unit")
    np.testing.assert_allclose(u, w / np.linalg.norm(w), atol=1e-12)


def test_optimal_weights_degenerate_top_eigenvalue():
    # R = I: every w is optimal; the choice closest to mean pooling is mean pooling.
    np.testing.assert_allclose(sr.optimal_weights(np.eye(5)), sr.mean_weights(5), atol=1e-14)
    # two equal blocks J_2 (+) J_2 (+) I_2: top eigenvalue 2 twice; projection of 1 on the
    # eigenspace is uniform on the four block positions
    R = np.eye(6)
    R[:2, :2] = R[2:4, 2:4] = 1.0
    np.testing.assert_allclose(sr.optimal_weights(R), np.r_[np.full(4, 0.25), 0, 0], atol=1e-12)
    # a degenerate eigenspace orthogonal to the ones vector: unit mode picks a sign
    R = np.array([[1.0, -1.0], [-1.0, 1.0]])
    u = sr.optimal_weights(R, normalize="unit")
    assert _ratio(u, R) == pytest.approx(2.0) and u[np.argmax(np.abs(u))] > 0


@pytest.mark.parametrize("T", [15, 16])
def test_optimal_weights_negative_markov_refuses_and_explains(T):
    R = sr.markov_correlation(T, -0.5)
    with pytest.raises(ValueError) as err:
        sr.optimal_weights(R)
    msg = str(err.value)
    for part in ("alternates in sign", "simplex", "normalize='unit'", "simplex=True"):
        assert part in msg
    with pytest.raises(ValueError, match="alternates in sign"):
        sr.named_weights("optimal", R)
    u = sr.optimal_weights(R, normalize="unit")
    lam = np.linalg.eigvalsh(R)
    assert _ratio(u, R) == pytest.approx(lam[-1], rel=1e-12)
    assert np.linalg.norm(u) == pytest.approx(1.0) and u.sum() >= -1e-12
    assert np.sum(u > 1e-9) >= 2 and np.sum(u < -1e-9) >= 2  # alternating signs
    w = sr.optimal_weights(R, simplex=True)
    assert w.min() >= 0 and w.sum() == pytest.approx(1.0, abs=1e-12)
    assert _ratio(w, R) < lam[-1] - 0.5  # attention pays a price


def test_optimal_weights_arguments():
    R = sr.markov_correlation(5, 0.5)
    with pytest.raises(ValueError, match="normalize"):
        sr.optimal_weights(R, normalize="l1")
    with pytest.raises(TypeError, match="normalize"):
        sr.optimal_weights(R, normalize=1)
    with pytest.raises(TypeError, match="simplex"):
        sr.optimal_weights(R, simplex="yes")
    with pytest.raises(ValueError, match="simplex=True.*normalize|normalize.*simplex"):
        sr.optimal_weights(R, simplex=True, normalize="unit")
    with pytest.raises(TypeError):
        sr.optimal_weights(R, "unit")  # keyword-only options


def _slsqp_best(R, n_starts, seed):
    """Multi-start SLSQP on the simplex: max w^T R w / w^T w, w >= 0, sum w = 1."""
    from scipy.optimize import minimize

    T = R.shape[0]
    rng = np.random.default_rng(seed)
    starts = list(np.eye(T) * 0.9 + 0.1 / T) + list(rng.dirichlet(np.ones(T), size=n_starts))
    cons = ({"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: np.ones(T)},)

    def f(w):
        q = w @ w
        return -(w @ R @ w) / q, -(2 * R @ w * q - 2 * w * (w @ R @ w)) / q**2

    best = -np.inf
    for w0 in starts:
        res = minimize(
            f,
            w0,
            jac=True,
            method="SLSQP",
            bounds=[(0, 1)] * T,
            constraints=cons,
            options={"maxiter": 500, "ftol": 1e-12},
        )
        w = np.clip(res.x, 0, None)
        if w.sum() > 0:
            best = max(best, _ratio(w, R))
    return best


def _gram_R(T, seed, k=None):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((T, k or T + 1))
    S = A @ A.T
    s = np.sqrt(np.diag(S))
    return S / np.outer(s, s)


@pytest.mark.parametrize(
    "R",
    [
        sr.markov_correlation(15, -0.5),
        sr.markov_correlation(16, -0.5),
        sr.markov_correlation(12, -0.8),
        _gram_R(8, 1),
        _gram_R(10, 2),
        _gram_R(12, 3, k=3),
        _gram_R(16, 4, k=4),
    ],
    ids=["markov15", "markov16", "markov12-0.8", "gram8", "gram10", "gram12-rank3", "gram16-rank4"],
)
def test_simplex_weights_match_multistart_search(R):
    w = sr.optimal_weights(R, simplex=True)
    q = _ratio(w, R)
    q_search = _slsqp_best(R, n_starts=40, seed=0)
    assert q >= q_search - 1e-9  # never beaten by the search
    assert q_search >= q - 1e-6  # and the search finds the same value
    # it is not beaten by the vertices (ratio 1), the best point of any edge (the 2 x 2
    # block: 1 + R_ij if R_ij > 0, else a vertex), mean pooling or random attention weights
    T = R.shape[0]
    off = R[~np.eye(T, dtype=bool)]
    assert q >= max(1.0, 1.0 + off.max()) - 1e-12
    W = np.random.default_rng(0).dirichlet(np.ones(T), size=2000)
    assert q >= np.max(np.einsum("nt,ts,ns->n", W, R, W) / np.einsum("nt,nt->n", W, W)) - 1e-12
    # KKT conditions of max w^T R w / w^T w over w >= 0 at lambda = q
    g = R @ w
    on = w > 0
    np.testing.assert_allclose(g[on], q * w[on], atol=1e-10)
    assert np.all(g[~on] <= 1e-10)
    # deterministic
    np.testing.assert_array_equal(sr.optimal_weights(R, simplex=True), w)


@pytest.mark.parametrize("seed", range(6))
def test_simplex_large_T_method_agrees_with_enumeration(seed):
    # The method used above the enumeration limit (multi-start ascent) on sizes where
    # enumeration is exact.
    from seqrmt.attention import _simplex_ascent, _simplex_exact

    rng = np.random.default_rng(seed)
    T = int(rng.integers(4, 13))
    R = _gram_R(T, seed + 100, k=int(rng.integers(2, T + 2)))
    assert _ratio(_simplex_ascent(R), R) == pytest.approx(_ratio(_simplex_exact(R), R), rel=1e-9)


@pytest.mark.parametrize("R", [sr.markov_correlation(24, -0.5), _gram_R(20, 7, k=5)], ids=["markov24", "gram20"])
def test_simplex_weights_large_T_match_search(R):
    w = sr.optimal_weights(R, simplex=True)
    q = _ratio(w, R)
    assert w.min() >= 0 and w.sum() == pytest.approx(1.0)
    assert q >= _slsqp_best(R, n_starts=30, seed=1) - 1e-9


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 10), seed=st.integers(0, 2**31 - 1), c=st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3))
def test_ratio_is_scale_invariant(T, seed, c):
    # alpha and kappa are both quadratic in w: alpha/kappa depends on the direction only
    R = _gram_R(T, seed % 1000)
    w = np.random.default_rng(seed).standard_normal(T)
    assert sr.alpha(c * w, R) / sr.kappa(c * w) == pytest.approx(sr.alpha(w, R) / sr.kappa(w), rel=1e-9)
    assert sr.alpha(c * w, R) == pytest.approx(c**2 * sr.alpha(w, R), rel=1e-9)


# ---------------------------------------------------------------------------
# causal weights: closed forms and limits
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("T", [1, 2, 3, 7, 16, 64])
def test_causal_weights_harmonic_tau0(T):
    # keys s <= t: query t averages its t keys, so w_s = (1/T) sum_{t >= s} 1/t = (H_T - H_{s-1}) / T
    w = sr.causal_weights(T, 0.0)
    expected = np.array([(harmonic(T) - harmonic(s - 1)) / T for s in range(1, T + 1)])
    np.testing.assert_allclose(w, expected, rtol=1e-12)


@pytest.mark.parametrize("T", [2, 3, 7, 16, 64])
def test_causal_weights_harmonic_strict(T):
    # keys s < t, queries t = 2..T: w_s = (1/(T-1)) sum_{t > s} 1/(t-1) = (H_{T-1} - H_{s-1}) / (T-1)
    w = sr.causal_weights(T, 0.0, strict=True)
    expected = np.array([(harmonic(T - 1) - harmonic(s - 1)) / (T - 1) for s in range(1, T + 1)])
    np.testing.assert_allclose(w, expected, rtol=1e-12, atol=1e-15)
    assert w[-1] == 0.0
    # the strict weights do not depend on tau (no self score)
    np.testing.assert_array_equal(sr.causal_weights(T, 3.0, strict=True), w)


def test_causal_weights_general_tau_closed_form():
    T, tau = 6, 1.3
    a = np.exp(tau)
    expected = [(a / (a + s - 1) + sum(1 / (a + t - 1) for t in range(s + 1, T + 1))) / T for s in range(1, T + 1)]
    np.testing.assert_allclose(sr.causal_weights(T, tau), expected, rtol=1e-12)


@settings(max_examples=80, deadline=None)
@given(T=st.integers(1, 200), tau=st.floats(-60, 60))
def test_causal_weights_sum_to_one_and_decrease(T, tau):
    # Decreasing for every tau: T (w_s - w_{s+1}) = a/(a+s-1) + (1-a)/(a+s) with a = e^tau,
    # which is > 0 (a(a+s) > (a-1)(a+s-1)).
    w = sr.causal_weights(T, tau)
    assert np.all(np.isfinite(w))
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(w >= 0)
    assert np.all(np.diff(w) <= 1e-15)


def test_causal_weights_tau_plus_infinity_is_uniform():
    # a = e^tau -> inf: a/(a+s-1) -> 1 and the other terms -> 0, so w_s -> 1/T: each query
    # attends only to itself and the pooled output is the plain mean. Error O(T e^-tau).
    T = 9
    for tau in (10.0, 20.0, 40.0):
        np.testing.assert_allclose(sr.causal_weights(T, tau), 1 / T, atol=T * np.exp(-tau))


def test_causal_weights_tau_minus_infinity_limit():
    # a -> 0: the self score is suppressed; query 1 still sees only itself, query t >= 2
    # averages the t-1 earlier keys.  w_s -> (1/T) [1{s = 1} + H_{T-1} - H_{s-1}],
    # i.e. ((T - 1) w_strict + e_1) / T.
    T = 7
    limit = np.array([(float(s == 1) + harmonic(T - 1) - harmonic(s - 1)) / T for s in range(1, T + 1)])
    np.testing.assert_allclose(limit, ((T - 1) * sr.causal_weights(T, strict=True) + np.eye(T)[0]) / T)
    for tau in (-10.0, -20.0):
        np.testing.assert_allclose(sr.causal_weights(T, tau), limit, atol=T * np.exp(tau))


@pytest.mark.parametrize("tau", [-40.0, -50.0, -200.0, -800.0])
def test_causal_weights_very_negative_tau_is_finite(tau):
    # e^tau below machine epsilon: must give the tau -> -inf limit, not NaN.
    T = 7
    limit = np.array([(float(s == 1) + harmonic(T - 1) - harmonic(s - 1)) / T for s in range(1, T + 1)])
    w = sr.causal_weights(T, tau)
    assert np.all(np.isfinite(w))
    np.testing.assert_allclose(w, limit, atol=1e-12)


# ---------------------------------------------------------------------------
# finite-d causal attention converges to the deterministic weights
# ---------------------------------------------------------------------------


def _attention_error(d, tau, strict, seed=0, N=150, T=6):
    # a large vocabulary keeps repeated tokens in a sequence rare (their cross score is tau)
    tab = sr.make_table(d, 4000, 1.0, seed=seed)
    xi = sr.markov_signs(N, T, 0.5, seed=seed + 1)
    X = sr.embed(tab, sr.sample_tokens(xi, tab.V, seed=seed + 2))
    C, W = sr.causal_attention(X, tau, strict=strict, return_weights=True)
    assert C.shape == (d, N) and W.shape == (N, T)
    np.testing.assert_allclose(C, np.einsum("nt,ntd->dn", W, X), atol=1e-10)  # c = sum_s w_s x_s
    np.testing.assert_allclose(W.sum(axis=1), 1.0, atol=1e-12)
    return np.mean(np.abs(W - sr.causal_weights(T, tau, strict=strict)))


@pytest.mark.parametrize("tau, strict", [(1.5, False), (-2.0, False), (2.0, True)])
def test_causal_attention_converges(tau, strict):
    # the cross scores (tau/d) <x_t, x_s> are O(d^{-1/2}) and the self score tends to tau,
    # so the mean absolute weight error should shrink like d^{-1/2}: a factor 4 from d = 50
    # to d = 800.  We ask for a factor 2 (seed noise) and a small absolute error.
    errs = [_attention_error(d, tau, strict) for d in (50, 200, 800)]
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < errs[0] / 2
    assert errs[2] < 0.01


def test_causal_attention_tau0_is_exact():
    # tau = 0: all scores vanish, the softmax is uniform over the visible keys
    X = np.random.default_rng(0).standard_normal((3, 5, 4))
    _, W = sr.causal_attention(X, 0.0, return_weights=True)
    np.testing.assert_allclose(W, np.tile(sr.causal_weights(5, 0.0), (3, 1)), atol=1e-14)
    _, W = sr.causal_attention(X, 0.0, strict=True, return_weights=True)
    np.testing.assert_allclose(W, np.tile(sr.causal_weights(5, 0.0, strict=True), (3, 1)), atol=1e-14)


def test_strict_causal_shortest_sequence():
    # T = 2: query 2 sees only key 1, query 1 sees nothing, so all the weight is on position 1.
    assert np.array_equal(sr.causal_weights(2, strict=True), [1.0, 0.0])
    X = np.random.default_rng(0).standard_normal((5, 2, 30))
    C, W = sr.causal_attention(X, tau=3.0, strict=True, return_weights=True)
    assert np.allclose(W, [[1.0, 0.0]] * 5) and np.allclose(C, X[:, 0, :].T)


def test_named_weights_are_the_named_functions():
    R = sr.markov_correlation(7, 0.6)
    assert np.array_equal(sr.named_weights("strict causal", R, tau=0.7), sr.causal_weights(7, 0.7, strict=True))
    assert np.array_equal(sr.named_weights("causal", R, tau=0.7), sr.causal_weights(7, 0.7))
    assert not np.allclose(sr.named_weights("strict causal", R), sr.named_weights("causal", R))


def test_snr_defaults_are_the_papers_ratio():
    R = sr.prefix_correlation(8, 3)
    w = sr.causal_weights(8)
    ratio = sr.alpha(w, R) / sr.kappa(w)
    assert sr.snr(w, R) == pytest.approx(ratio)  # beta = 1, delta = 0
    assert sr.snr(w, R, beta=2.0, delta=0.5) == pytest.approx(2.5 * ratio)
