"""Tests of the generative model (seqrmt.model): vocabulary table, positional sign
correlations, sign samplers, tokens, pooling and the sample matrix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import seqrmt as sr

# ---------------------------------------------------------------------------
# vocabulary table
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("d, V, beta", [(7, 10, 0.0), (50, 30, 2.5), (200, 400, 1.0)])
def test_table_shape_signs_and_signal_norm(d, V, beta):
    tab = sr.make_table(d, V, beta, seed=1)
    assert tab.E.shape == (d, V) and tab.d == d and tab.V == V
    assert tab.mu.shape == (d,) and tab.signs.shape == (V,)
    # balanced classes: exactly V/2 tokens of each sign, +1 first
    assert set(np.unique(tab.signs)) <= {-1.0, 1.0}
    assert np.sum(tab.signs == 1) == V // 2 and np.sum(tab.signs == -1) == V // 2
    assert np.all(tab.signs[: V // 2] == 1) and np.all(tab.signs[V // 2 :] == -1)
    assert tab.mu @ tab.mu == pytest.approx(beta, rel=1e-12, abs=1e-14)
    assert tab.beta == beta


def test_table_is_reproducible_and_seed_dependent():
    a = sr.make_table(20, 40, 1.0, seed=3)
    b = sr.make_table(20, 40, 1.0, seed=3)
    c = sr.make_table(20, 40, 1.0, seed=4)
    np.testing.assert_array_equal(a.E, b.E)
    assert not np.allclose(a.E, c.E)
    gen = np.random.default_rng(3)
    np.testing.assert_array_equal(sr.make_table(20, 40, 1.0, seed=gen).E, a.E)


def test_Delta_and_zbar_definitions():
    tab = sr.make_table(30, 16, 1.7, seed=5)
    Z = tab.E - np.outer(tab.mu, tab.signs)  # the noise z_v, column by column
    V = tab.V
    Delta = sum(tab.signs[v] * Z[:, v] for v in range(V)) / V
    zbar = sum(Z[:, v] for v in range(V)) / V
    np.testing.assert_allclose(tab.Delta, Delta, atol=1e-13)
    np.testing.assert_allclose(tab.zbar, zbar, atol=1e-13)
    # the empirical class-mean difference is mu + Delta; the table mean is zbar (balanced)
    diff = (tab.E[:, : V // 2].mean(axis=1) - tab.E[:, V // 2 :].mean(axis=1)) / 2
    np.testing.assert_allclose(diff, tab.mu + tab.Delta, atol=1e-13)
    np.testing.assert_allclose(tab.E.mean(axis=1), tab.zbar, atol=1e-13)


@pytest.mark.parametrize("d, V", [(400, 800), (400, 200)])
def test_Delta_and_zbar_norms_close_to_delta(d, V):
    # Delta and zbar are N(0, I_d / V), so ||.||^2 = chi2(d) / V: mean delta = d/V and
    # standard deviation sqrt(2 d) / V.  Five standard deviations over four tables.
    delta, sd = d / V, np.sqrt(2 * d) / V
    for seed in range(4):
        tab = sr.make_table(d, V, 1.0, seed=seed)
        assert abs(tab.Delta @ tab.Delta - delta) <= 5 * sd
        assert abs(tab.zbar @ tab.zbar - delta) <= 5 * sd


# ---------------------------------------------------------------------------
# correlation matrices
# ---------------------------------------------------------------------------


def _assert_correlation(R):
    assert np.allclose(R, R.T)
    np.testing.assert_allclose(np.diag(R), 1.0)
    assert np.linalg.eigvalsh(R)[0] >= -1e-10 * R.shape[0]
    assert np.all(np.abs(R) <= 1 + 1e-12)


def test_prefix_correlation_values():
    R = sr.prefix_correlation(5, 3)
    expected = np.array(
        [[1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]], dtype=float
    )
    np.testing.assert_array_equal(R, expected)
    np.testing.assert_array_equal(sr.prefix_correlation(4, 1), np.eye(4))
    np.testing.assert_array_equal(sr.prefix_correlation(4, 4), np.ones((4, 4)))


def test_markov_correlation_values():
    R = sr.markov_correlation(4, 0.5)
    expected = 0.5 ** np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    np.testing.assert_allclose(R, expected, atol=1e-15)
    np.testing.assert_array_equal(sr.markov_correlation(3, 0.0), np.eye(3))
    np.testing.assert_array_equal(sr.markov_correlation(3, 1.0), np.ones((3, 3)))
    # rho = -1: the sign alternates, R_ts = (-1)^|t-s|
    np.testing.assert_array_equal(
        sr.markov_correlation(3, -1.0), np.array([[1, -1, 1], [-1, 1, -1], [1, -1, 1]], dtype=float)
    )


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 30), data=st.data())
def test_prefix_and_markov_are_correlations(T, data):
    L = data.draw(st.integers(1, T))
    rho = data.draw(st.floats(-1, 1))
    _assert_correlation(sr.prefix_correlation(T, L))
    _assert_correlation(sr.markov_correlation(T, rho))


def _random_correlation(T, seed):
    A = np.random.default_rng(seed).standard_normal((T, T + 1))
    S = A @ A.T
    s = np.sqrt(np.diag(S))
    return S / np.outer(s, s)


def test_copula_correlation_values():
    Sigma = np.array([[1.0, 0.5, -0.5], [0.5, 1.0, 0.0], [-0.5, 0.0, 1.0]])
    R = sr.copula_correlation(Sigma)
    # Sheppard: (2/pi) arcsin(1/2) = 1/3, arcsin(0) = 0
    expected = np.array([[1, 1 / 3, -1 / 3], [1 / 3, 1, 0], [-1 / 3, 0, 1]])
    np.testing.assert_allclose(R, expected, atol=1e-14)
    assert sr.copula_reachable(R)


@settings(max_examples=30, deadline=None)
@given(T=st.integers(1, 12), seed=st.integers(0, 2**31 - 1))
def test_copula_correlation_is_reachable_correlation(T, seed):
    # arcsin has a power series with non-negative coefficients, so (2/pi) arcsin(Sigma) is
    # PSD by the Schur product theorem, and sin(pi R / 2) = Sigma by construction.
    Sigma = _random_correlation(T, seed)
    R = sr.copula_correlation(Sigma)
    _assert_correlation(R)
    np.testing.assert_allclose(np.sin(np.pi * R / 2), Sigma, atol=1e-12)
    assert sr.copula_reachable(R)


# --- unreachable correlations --------------------------------------------------
#
# (a) A binary correlation that no Gaussian copula produces.  Let xi be uniform over the
#     six sign vectors of length 4 with two +1 and two -1.  E[xi] = 0 by symmetry, and
#     sum_t xi_t = 0 gives sum_{t != s} xi_t xi_s = -4, so every off-diagonal entry is
#     -4/12 = -1/3: R = (4/3) I - (1/3) J, PSD (eigenvalues 0 and 4/3), and a genuine
#     binary correlation.  But sin(pi R / 2) has off-diagonal entries sin(-pi/6) = -1/2,
#     i.e. Sigma = (3/2) I - (1/2) J with eigenvalue 3/2 - 4/2 = -1/2 < 0, so no Gaussian
#     vector has sign correlation R.  (Dimension 4 is the smallest: a numerical search over
#     mixtures of the cut matrices xx^T found every 3 x 3 binary correlation reachable.)
R_BINARY_NOT_COPULA = (4 / 3) * np.eye(4) - (1 / 3) * np.ones((4, 4))
#
# (b) A PSD unit-diagonal matrix that is no binary correlation at all: T = 3 with all
#     off-diagonal entries -0.45.  Eigenvalues 1.45 (twice) and 0.1 > 0,
#     yet (xi_1 + xi_2 + xi_3)^2 >= 1 forces R_12 + R_13 + R_23 >= -1, violated (-1.35).
#     sin(-0.45 pi / 2) = -0.649 makes Sigma's smallest eigenvalue 1 - 1.298 < 0.
R_PSD_NOT_BINARY = 1.45 * np.eye(3) - 0.45 * np.ones((3, 3))


def test_binary_not_copula_example_is_a_binary_correlation():
    pats = np.array([p for p in np.ndindex(2, 2, 2, 2) if sum(p) == 2], dtype=float) * 2 - 1
    assert len(pats) == 6
    np.testing.assert_allclose(pats.mean(axis=0), 0.0)
    np.testing.assert_allclose(pats.T @ pats / len(pats), R_BINARY_NOT_COPULA, atol=1e-15)
    assert np.linalg.eigvalsh(R_BINARY_NOT_COPULA)[0] > -1e-12  # PSD
    assert np.linalg.eigvalsh(np.sin(np.pi * R_BINARY_NOT_COPULA / 2))[0] == pytest.approx(-0.5)


@pytest.mark.parametrize("R", [R_BINARY_NOT_COPULA, R_PSD_NOT_BINARY], ids=["binary", "not-binary"])
def test_copula_unreachable_raises(R):
    assert np.linalg.eigvalsh(R)[0] > -1e-12  # passes the PSD check ...
    assert not sr.copula_reachable(R)  # ... but is not copula-reachable
    with pytest.raises(ValueError, match="R"):
        sr.copula_signs(100, R, seed=0)
    with pytest.raises(ValueError, match="R"):
        sr.sample_signs(100, R, seed=0)  # neither prefix nor Markov: copula


# ---------------------------------------------------------------------------
# sign samplers
# ---------------------------------------------------------------------------

N_SIGNS = 40_000


def _check_empirical_correlation(xi, R):
    """Entry-wise: |mean(xi_t xi_s) - R_ts| <= 5 standard errors, SE = sqrt((1 - R^2) / N).

    A product of two signs has variance 1 - R_ts^2.  Five standard errors keep the chance
    of a false alarm below 1e-5 over all entries of all cases (seeds are fixed anyway).
    """
    N, T = xi.shape
    assert set(np.unique(xi)) <= {-1.0, 1.0}
    emp = xi.T @ xi / N
    se = np.sqrt(np.clip(1 - R**2, 0, None) / N)
    assert np.all(np.abs(emp - R) <= 5 * se + 1e-12), np.max(np.abs(emp - R) / (se + 1e-300))
    # E[xi_t] = 0: SE 1/sqrt(N)
    assert np.all(np.abs(xi.mean(axis=0)) <= 5 / np.sqrt(N))


CORRELATIONS = {
    "prefix": sr.prefix_correlation(6, 3),
    "markov+": sr.markov_correlation(6, 0.6),
    "markov-": sr.markov_correlation(6, -0.4),
    "copula": sr.copula_correlation(_random_correlation(5, 11)),
}


@pytest.mark.parametrize("name", list(CORRELATIONS))
def test_sample_signs_empirical_correlation(name):
    R = CORRELATIONS[name]
    _check_empirical_correlation(sr.sample_signs(N_SIGNS, R, seed=2), R)


def test_specific_samplers_empirical_correlation():
    _check_empirical_correlation(sr.prefix_signs(N_SIGNS, 7, 4, seed=1), sr.prefix_correlation(7, 4))
    _check_empirical_correlation(sr.markov_signs(N_SIGNS, 7, 0.3, seed=1), sr.markov_correlation(7, 0.3))
    R = CORRELATIONS["copula"]
    _check_empirical_correlation(sr.copula_signs(N_SIGNS, R, seed=1), R)
    # the copula sampler also reproduces a prefix or Markov R (it is a Gaussian copula too)
    R = sr.markov_correlation(5, 0.5)
    _check_empirical_correlation(sr.copula_signs(N_SIGNS, R, seed=1), R)


def test_prefix_signs_structure():
    xi = sr.prefix_signs(500, 6, 3, seed=0)
    assert xi.shape == (500, 6)
    assert np.all(xi[:, :3] == xi[:, :1])


def test_sample_signs_dispatch():
    # a prefix or Markov R is recognized and sampled by its exact sampler (same stream)
    np.testing.assert_array_equal(
        sr.sample_signs(300, sr.prefix_correlation(6, 2), seed=7), sr.prefix_signs(300, 6, 2, seed=7)
    )
    np.testing.assert_array_equal(
        sr.sample_signs(300, sr.markov_correlation(6, -0.3), seed=7), sr.markov_signs(300, 6, -0.3, seed=7)
    )
    np.testing.assert_array_equal(sr.sample_signs(300, np.eye(4), seed=7), sr.prefix_signs(300, 4, 1, seed=7))
    # anything else goes through the copula
    R = CORRELATIONS["copula"]
    np.testing.assert_array_equal(sr.sample_signs(300, R, seed=7), sr.copula_signs(300, R, seed=7))


# ---------------------------------------------------------------------------
# tokens, embeddings, pooling, sample matrix
# ---------------------------------------------------------------------------


def test_tokens_in_right_class_and_uniform():
    V = 10
    xi = sr.markov_signs(20_000, 4, 0.2, seed=0)
    tok = sr.sample_tokens(xi, V, seed=1)
    assert tok.shape == xi.shape and np.issubdtype(tok.dtype, np.integer)
    assert np.all((tok < V // 2) == (xi > 0))
    assert tok.min() >= 0 and tok.max() < V
    # uniform within the class: each of the V/2 tokens has probability 2/V given the class.
    for sign, block in ((1, range(0, V // 2)), (-1, range(V // 2, V))):
        n = np.sum(xi == sign)
        counts = np.array([np.sum(tok == v) for v in block])
        p = 2 / V
        assert np.all(np.abs(counts - n * p) <= 5 * np.sqrt(n * p * (1 - p)))


def test_embed_and_pool_brute_force():
    tab = sr.make_table(6, 8, 1.3, seed=0)
    xi = sr.prefix_signs(9, 5, 2, seed=1)
    tok = sr.sample_tokens(xi, tab.V, seed=2)
    X = sr.embed(tab, tok)
    assert X.shape == (9, 5, 6)
    w = np.array([0.5, -1.0, 0.0, 2.0, 0.25])
    C = sr.pool(tab, tok, w)
    assert C.shape == (6, 9)
    for n in range(9):
        brute = np.zeros(6)
        for t in range(5):
            np.testing.assert_array_equal(X[n, t], tab.E[:, tok[n, t]])
            brute += w[t] * tab.E[:, tok[n, t]]
        np.testing.assert_allclose(C[:, n], brute, atol=1e-13)
    np.testing.assert_allclose(C, np.einsum("t,ntd->dn", w, X), atol=1e-13)


def test_sample_matrix_centered_and_uncentered():
    C = np.random.default_rng(0).standard_normal((4, 30)) + 2.0
    S_u = sr.sample_matrix(C, centered=False)
    np.testing.assert_allclose(S_u, C @ C.T / 30, atol=1e-13)
    S_c = sr.sample_matrix(C)  # centered is the default
    np.testing.assert_allclose(S_c, np.cov(C, bias=True), atol=1e-13)
    cbar = C.mean(axis=1)
    np.testing.assert_allclose(S_u - S_c, np.outer(cbar, cbar), atol=1e-12)


@pytest.mark.parametrize("d, delta, gamma", [(100, 0.5, 2.0), (100, 3.0, 0.5), (37, 0.7, 0.3), (5, 50.0, 40.0)])
def test_sizes_realize_the_ratios(d, delta, gamma):
    # V even (balanced classes) and N integer, both >= 2, as close as possible to d/delta, d/gamma
    V, N = sr.sizes(d, delta, gamma)
    assert isinstance(V, int) and isinstance(N, int)
    assert V % 2 == 0 and V >= 2 and N >= 2
    evens = np.arange(2, 4 * d / delta + 4, 2)
    assert V == evens[np.argmin(np.abs(evens - d / delta))]
    assert N == max(2, round(d / gamma))


def test_copula_signs_with_a_singular_correlation():
    # the prefix block makes sin(pi R / 2) = R singular (L equal columns): still reachable,
    # and the first L signs are then identical
    R = sr.prefix_correlation(6, 3)
    assert np.linalg.eigvalsh(R)[0] == pytest.approx(0.0, abs=1e-12)
    xi = sr.copula_signs(400, R, seed=2)
    assert np.all(xi[:, 0] == xi[:, 1]) and np.all(xi[:, 0] == xi[:, 2])
    assert np.abs(xi[:, 0] @ xi[:, 4] / 400) < 4 / np.sqrt(400)


def test_sample_matrix_of_one_sequence():
    # N = 1: the uncentered S is c c^T, the centered one is zero
    c = np.array([[1.0], [2.0], [-1.0]])
    np.testing.assert_allclose(sr.sample_matrix(c, centered=False), c @ c.T)
    np.testing.assert_allclose(sr.sample_matrix(c), np.zeros((3, 3)))


def test_spike_norm2_is_the_squared_class_mean_difference():
    table = sr.make_table(60, 120, 1.5, seed=3)
    m = table.E[:, table.signs > 0].mean(axis=1) / 2 - table.E[:, table.signs < 0].mean(axis=1) / 2
    assert table.spike_norm2 == pytest.approx(float(m @ m), rel=1e-12)
    assert table.spike_norm2 == pytest.approx(float((table.mu + table.Delta) @ (table.mu + table.Delta)), rel=1e-12)
    sim = sr.simulate(60, 120, 200, sr.mean_weights(4), sr.prefix_correlation(4, 2), 1.5, seed=3)
    assert sim.realized_norms == dict(
        spike_norm2=sim.spike_norm2, delta_norm2=sim.delta_norm2, zbar_norm2=sim.zbar_norm2
    )
