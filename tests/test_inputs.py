"""Bad input ("Bad input" bar): every public function of the seqrmt top level rejects
invalid arguments with a TypeError (wrong type) or ValueError (bad value) whose message
names the offending parameter; it never returns NaN and never hangs.

The table BAD_INPUTS lists, for each public callable, at least one bad call.  The test
test_every_public_callable_is_covered enumerates the callables of ``seqrmt`` by
introspection, so a new public function without a bad-input case makes it fail.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import seqrmt as sr

NAN = float("nan")
T = 4
R = sr.prefix_correlation(T, 2)
W = sr.mean_weights(T)
TABLE = sr.make_table(8, 10, 1.0, seed=0)
XI = sr.prefix_signs(5, T, 2, seed=0)
TOKENS = sr.sample_tokens(XI, 10, seed=0)
X = sr.embed(TABLE, TOKENS)
C = sr.pool(TABLE, TOKENS, W)

R_NONSYM = np.array([[1.0, 0.5], [0.2, 1.0]])
R_NONPSD = np.array([[1.0, -0.6, -0.6], [-0.6, 1.0, -0.6], [-0.6, -0.6, 1.0]])  # eigenvalue -0.2
R_DIAG = np.array([[2.0, 0.0], [0.0, 1.0]])
# PSD unit-diagonal but not the correlation of any +-1 vector (R12 + R13 + R23 < -1)
R_NOT_BINARY = 1.45 * np.eye(3) - 0.45 * np.ones((3, 3))
# a binary correlation (xi uniform over the balanced sign vectors of length 4) that no
# Gaussian copula reaches: sin(pi R / 2) has eigenvalue -1/2 (see test_model.py)
R_NOT_COPULA = (4 / 3) * np.eye(4) - (1 / 3) * np.ones((4, 4))
W3 = sr.mean_weights(3)

# Result containers returned by the functions, not entry points: no validation expected.
RESULT_CONTAINERS = {
    "VocabularyTable",
    "Prediction",
    "FixedTPrediction",
    "Simulation",
    "SpikeCurve",
    "Summary",
    "LearnedAttention",
}
# Public callables without parameters: nothing to get wrong (their output is tested where it is used).
NO_PARAMETERS = {"load_fixed_T_spike_correlated"}

BAD_INPUTS: list[tuple[str, str, str, object]] = []  # (function, parameter, description, call)


def bad(func, param, desc, call):
    BAD_INPUTS.append((func, param, desc, call))


# --- model -------------------------------------------------------------------
bad("make_table", "d", "negative", lambda: sr.make_table(-1, 10, 1.0))
bad("make_table", "d", "str", lambda: sr.make_table("8", 10, 1.0))
bad("make_table", "d", "bool", lambda: sr.make_table(True, 10, 1.0))
bad("make_table", "d", "non-integer", lambda: sr.make_table(2.5, 10, 1.0))
bad("make_table", "V", "odd", lambda: sr.make_table(8, 11, 1.0))
bad("make_table", "V", "zero", lambda: sr.make_table(8, 0, 1.0))
bad("make_table", "beta", "negative", lambda: sr.make_table(8, 10, -1.0))
bad("make_table", "beta", "NaN", lambda: sr.make_table(8, 10, NAN))
bad("make_table", "beta", "str", lambda: sr.make_table(8, 10, "1"))
bad("make_table", "beta", "bool", lambda: sr.make_table(8, 10, True))
bad("make_table", "seed", "str", lambda: sr.make_table(8, 10, 1.0, seed="x"))
bad("make_table", "seed", "negative", lambda: sr.make_table(8, 10, 1.0, seed=-1))
bad("prefix_correlation", "T", "zero", lambda: sr.prefix_correlation(0, 1))
bad("prefix_correlation", "T", "str", lambda: sr.prefix_correlation("4", 1))
bad("prefix_correlation", "T", "NaN", lambda: sr.prefix_correlation(NAN, 1))
bad("prefix_correlation", "L", "zero", lambda: sr.prefix_correlation(4, 0))
bad("prefix_correlation", "L", "L > T", lambda: sr.prefix_correlation(4, 5))
bad("prefix_correlation", "L", "bool", lambda: sr.prefix_correlation(4, True))
bad("markov_correlation", "T", "zero", lambda: sr.markov_correlation(0, 0.5))
bad("markov_correlation", "rho", "> 1", lambda: sr.markov_correlation(4, 1.5))
bad("markov_correlation", "rho", "< -1", lambda: sr.markov_correlation(4, -1.5))
bad("markov_correlation", "rho", "NaN", lambda: sr.markov_correlation(4, NAN))
bad("markov_correlation", "rho", "str", lambda: sr.markov_correlation(4, "0.5"))
bad("markov_correlation", "rho", "bool", lambda: sr.markov_correlation(4, True))
bad("copula_correlation", "Sigma", "non-symmetric", lambda: sr.copula_correlation(R_NONSYM))
bad("copula_correlation", "Sigma", "non-PSD", lambda: sr.copula_correlation(R_NONPSD))
bad("copula_correlation", "Sigma", "non-unit diagonal", lambda: sr.copula_correlation(R_DIAG))
bad("copula_correlation", "Sigma", "NaN", lambda: sr.copula_correlation(np.full((2, 2), NAN)))
bad("copula_correlation", "Sigma", "str", lambda: sr.copula_correlation("abc"))
bad("copula_reachable", "R", "non-symmetric", lambda: sr.copula_reachable(R_NONSYM))
bad("copula_reachable", "R", "non-PSD", lambda: sr.copula_reachable(R_NONPSD))
bad("copula_reachable", "R", "not square", lambda: sr.copula_reachable(np.ones((2, 3))))
bad("prefix_signs", "N", "zero", lambda: sr.prefix_signs(0, 4, 2))
bad("prefix_signs", "N", "bool", lambda: sr.prefix_signs(True, 4, 2))
bad("prefix_signs", "T", "zero", lambda: sr.prefix_signs(5, 0, 1))
bad("prefix_signs", "L", "L > T", lambda: sr.prefix_signs(5, 3, 4))
bad("markov_signs", "N", "negative", lambda: sr.markov_signs(-3, 4, 0.5))
bad("markov_signs", "T", "zero", lambda: sr.markov_signs(5, 0, 0.5))
bad("markov_signs", "rho", "> 1", lambda: sr.markov_signs(5, 4, 2.0))
bad("markov_signs", "rho", "NaN", lambda: sr.markov_signs(5, 4, NAN))
bad("copula_signs", "N", "zero", lambda: sr.copula_signs(0, R))
bad("copula_signs", "R", "binary but not copula-reachable", lambda: sr.copula_signs(5, R_NOT_COPULA))
bad("copula_signs", "R", "not a binary correlation", lambda: sr.copula_signs(5, R_NOT_BINARY))
bad("copula_signs", "R", "non-PSD", lambda: sr.copula_signs(5, R_NONPSD))
bad("sample_signs", "N", "zero", lambda: sr.sample_signs(0, R))
bad("sample_signs", "N", "str", lambda: sr.sample_signs("5", R))
bad("sample_signs", "R", "binary but not copula-reachable", lambda: sr.sample_signs(5, R_NOT_COPULA))
bad("sample_signs", "R", "not a binary correlation", lambda: sr.sample_signs(5, R_NOT_BINARY))
bad("sample_signs", "R", "non-symmetric", lambda: sr.sample_signs(5, R_NONSYM))
bad("sample_signs", "R", "NaN", lambda: sr.sample_signs(5, np.full((2, 2), NAN)))
bad("sample_tokens", "xi", "not signs", lambda: sr.sample_tokens(np.zeros((2, 3)), 10))
bad("sample_tokens", "xi", "1-d", lambda: sr.sample_tokens(np.ones(3), 10))
bad("sample_tokens", "xi", "str", lambda: sr.sample_tokens("abc", 10))
bad("sample_tokens", "xi", "bool array", lambda: sr.sample_tokens(np.ones((2, 3), dtype=bool), 10))
bad("sample_tokens", "V", "odd", lambda: sr.sample_tokens(XI, 11))
bad("sample_tokens", "V", "str", lambda: sr.sample_tokens(XI, "10"))
bad("embed", "table", "str", lambda: sr.embed("table", TOKENS))
bad("embed", "tokens", "out of range", lambda: sr.embed(TABLE, TOKENS + 10))
bad("embed", "tokens", "negative", lambda: sr.embed(TABLE, -TOKENS - 1))
bad("embed", "tokens", "1-d", lambda: sr.embed(TABLE, TOKENS[0]))
bad("embed", "tokens", "float", lambda: sr.embed(TABLE, TOKENS + 0.5))
bad("pool", "w", "zero weights", lambda: sr.pool(TABLE, TOKENS, np.zeros(T)))
bad("pool", "w", "length != T", lambda: sr.pool(TABLE, TOKENS, W3))
bad("pool", "w", "NaN", lambda: sr.pool(TABLE, TOKENS, np.full(T, NAN)))
bad("pool", "w", "str", lambda: sr.pool(TABLE, TOKENS, "abcd"))
bad("pool", "tokens", "float", lambda: sr.pool(TABLE, TOKENS + 0.5, W))
bad("pool", "table", "str", lambda: sr.pool("table", TOKENS, W))
bad("sample_matrix", "C", "1-d", lambda: sr.sample_matrix(np.ones(3)))
bad("sample_matrix", "C", "NaN", lambda: sr.sample_matrix(np.full((3, 4), NAN)))
bad("sample_matrix", "C", "str", lambda: sr.sample_matrix("abc"))
bad("sample_matrix", "C", "no column", lambda: sr.sample_matrix(np.ones((3, 0))))
bad("sample_matrix", "centered", "str", lambda: sr.sample_matrix(C, centered="no"))

# --- attention -----------------------------------------------------------------
bad("kappa", "w", "zero weights", lambda: sr.kappa(np.zeros(3)))
bad("kappa", "w", "empty", lambda: sr.kappa([]))
bad("kappa", "w", "NaN", lambda: sr.kappa([1.0, NAN]))
bad("kappa", "w", "str", lambda: sr.kappa("ab"))
bad("kappa", "w", "bool", lambda: sr.kappa(True))
bad("kappa", "w", "bool array", lambda: sr.kappa([True, False]))
bad("alpha", "w", "length != T", lambda: sr.alpha(W3, R))
bad("alpha", "w", "zero weights", lambda: sr.alpha(np.zeros(T), R))
bad("alpha", "R", "non-symmetric", lambda: sr.alpha([1.0, 1.0], R_NONSYM))
bad("alpha", "R", "non-PSD", lambda: sr.alpha(W3, R_NONPSD))
bad("alpha", "R", "str", lambda: sr.alpha(W, "R"))
bad("sigma_w", "w", "zero weights", lambda: sr.sigma_w([0.0, 0.0]))
bad("sigma_w", "w", "NaN", lambda: sr.sigma_w([NAN]))
bad("snr", "beta", "negative", lambda: sr.snr(W, R, beta=-1.0))
bad("snr", "delta", "negative", lambda: sr.snr(W, R, delta=-0.5))
bad("snr", "delta", "NaN", lambda: sr.snr(W, R, delta=NAN))
bad("snr", "w", "length != T", lambda: sr.snr(W3, R))
bad("mean_weights", "T", "zero", lambda: sr.mean_weights(0))
bad("mean_weights", "T", "str", lambda: sr.mean_weights("3"))
bad("mean_weights", "T", "bool", lambda: sr.mean_weights(True))
bad("mean_weights", "T", "non-integer", lambda: sr.mean_weights(2.5))
bad("optimal_weights", "R", "non-symmetric", lambda: sr.optimal_weights(R_NONSYM))
bad("optimal_weights", "R", "non-PSD", lambda: sr.optimal_weights(R_NONPSD))
bad("optimal_weights", "R", "non-unit diagonal", lambda: sr.optimal_weights(R_DIAG))
bad("optimal_weights", "R", "NaN", lambda: sr.optimal_weights(np.full((2, 2), NAN)))
bad("causal_weights", "T", "zero", lambda: sr.causal_weights(0))
bad("causal_weights", "T", "T = 1 with strict", lambda: sr.causal_weights(1, strict=True))
bad("causal_weights", "tau", "NaN", lambda: sr.causal_weights(4, NAN))
bad("causal_weights", "tau", "str", lambda: sr.causal_weights(4, "1"))
bad("causal_weights", "tau", "bool", lambda: sr.causal_weights(4, True))
bad("causal_weights", "tau", "overflow", lambda: sr.causal_weights(4, 1000.0))
bad("causal_weights", "strict", "str", lambda: sr.causal_weights(4, 0.0, strict="no"))
bad("sizes", "delta", "negative", lambda: sr.sizes(100, -0.5, 1.0))
bad("sizes", "gamma", "NaN", lambda: sr.sizes(100, 0.5, NAN))
bad("sizes", "d", "zero", lambda: sr.sizes(0, 0.5, 1.0))
bad("named_weights", "name", "unknown", lambda: sr.named_weights("uniform", np.eye(4)))
bad("named_weights", "R", "non-symmetric", lambda: sr.named_weights("mean", np.triu(np.ones((3, 3)))))
bad("named_weights", "tau", "NaN", lambda: sr.named_weights("causal", np.eye(3), tau=NAN))
bad("causal_attention", "X", "2-d", lambda: sr.causal_attention(np.ones((3, 4))))
bad("causal_attention", "X", "str", lambda: sr.causal_attention("abc"))
bad("causal_attention", "X", "NaN", lambda: sr.causal_attention(np.full((2, 3, 4), NAN)))
bad("causal_attention", "tau", "NaN", lambda: sr.causal_attention(X, NAN))
bad("causal_attention", "T", "T = 1 with strict", lambda: sr.causal_attention(X[:, :1], 1.0, strict=True))

# --- spectrum --------------------------------------------------------------------
bad("mp_edges", "ratio", "negative", lambda: sr.mp_edges(-1.0))
bad("mp_edges", "ratio", "NaN", lambda: sr.mp_edges(NAN))
bad("mp_edges", "ratio", "str", lambda: sr.mp_edges("1"))
bad("mp_edges", "scale", "zero", lambda: sr.mp_edges(0.5, 0.0))
bad("mp_density", "ratio", "negative", lambda: sr.mp_density([1.0], -1.0))
bad("mp_density", "scale", "negative", lambda: sr.mp_density([1.0], 0.5, -1.0))
bad("mp_density", "x", "NaN", lambda: sr.mp_density([1.0, NAN], 0.5))
bad("mp_density", "x", "str", lambda: sr.mp_density("a", 0.5))
bad("mp_density", "x", "bool", lambda: sr.mp_density(True, 0.5))
bad("mp_stieltjes", "ratio", "negative", lambda: sr.mp_stieltjes(3.0, -1.0))
bad("mp_stieltjes", "z", "NaN", lambda: sr.mp_stieltjes(NAN, 0.5))
bad("mp_stieltjes", "z", "str", lambda: sr.mp_stieltjes("a", 0.5))
bad("mp_stieltjes_derivative", "ratio", "NaN", lambda: sr.mp_stieltjes_derivative(3.0, NAN))
bad("mp_stieltjes_derivative", "z", "NaN", lambda: sr.mp_stieltjes_derivative(NAN, 0.5))
bad("bulk_density", "delta", "negative", lambda: sr.bulk_density([1.0], -1.0, 0.5))
bad("bulk_density", "gamma", "NaN", lambda: sr.bulk_density([1.0], 0.5, NAN))
bad("bulk_density", "kappa", "zero", lambda: sr.bulk_density([1.0], 0.5, 0.5, 0.0))
bad("bulk_density", "x", "NaN", lambda: sr.bulk_density([NAN], 0.5, 0.5))
bad("bulk_density", "x", "str", lambda: sr.bulk_density("a", 0.5, 0.5))
bad("bulk_density", "x", "bool", lambda: sr.bulk_density(True, 0.5, 0.5))
bad("bulk_edges", "delta", "negative", lambda: sr.bulk_edges(-1.0, 0.5))
bad("bulk_edges", "gamma", "str", lambda: sr.bulk_edges(0.5, "0.5"))
bad("bulk_edges", "kappa", "negative", lambda: sr.bulk_edges(0.5, 0.5, -1.0))
bad("bulk_edges", "delta", "bool", lambda: sr.bulk_edges(True, 0.5))
bad("bulk_inverse_map", "psi", "zero", lambda: sr.bulk_inverse_map([0.0], 0.5, 0.5))
bad("bulk_inverse_map", "psi", "NaN", lambda: sr.bulk_inverse_map([NAN], 0.5, 0.5))
bad("bulk_inverse_map", "psi", "str", lambda: sr.bulk_inverse_map("a", 0.5, 0.5))
bad("bulk_inverse_map", "delta", "negative", lambda: sr.bulk_inverse_map([1.0], -0.5, 0.5))
bad("bulk_critical_points", "delta", "zero", lambda: sr.bulk_critical_points(0.0, 0.5))
bad("bulk_critical_points", "gamma", "NaN", lambda: sr.bulk_critical_points(0.5, NAN))
bad("bulk_critical_points", "gamma", "str", lambda: sr.bulk_critical_points(0.5, "1"))
bad("bulk_atom", "delta", "negative", lambda: sr.bulk_atom(-1.0, 0.5))
bad("bulk_atom", "gamma", "NaN", lambda: sr.bulk_atom(0.5, NAN))
bad("bulk_stieltjes", "z", "NaN", lambda: sr.bulk_stieltjes(NAN, 0.5, 0.5))
bad("bulk_stieltjes", "delta", "negative", lambda: sr.bulk_stieltjes(3.0, -1.0, 0.5))
bad("bulk_moment", "k", "negative", lambda: sr.bulk_moment(-1, 0.5, 0.5))
bad("bulk_moment", "k", "non-integer", lambda: sr.bulk_moment(1.5, 0.5, 0.5))
bad("bulk_moment", "delta", "negative", lambda: sr.bulk_moment(2, -1.0, 0.5))
bad("BulkLaw", "delta", "negative", lambda: sr.BulkLaw(-1.0, 0.5))
bad("BulkLaw", "gamma", "NaN", lambda: sr.BulkLaw(0.5, NAN))
bad("BulkLaw", "kappa", "zero", lambda: sr.BulkLaw(0.5, 0.5, 0.0))
bad("BulkLaw", "panels", "too few", lambda: sr.BulkLaw(0.5, 0.5, panels=2))
bad("BulkLaw", "q", "ppf outside [0, 1]", lambda: sr.BulkLaw(0.5, 0.5).ppf(2.0))
bad("BulkLaw", "x", "cdf NaN", lambda: sr.BulkLaw(0.5, 0.5).cdf(NAN))
bad(
    "SpectralLaw",
    "d",
    "expected_above zero (the base class, through BulkLaw)",
    lambda: sr.BulkLaw(0.5, 0.5).expected_above(1.0, 0),
)
bad(
    "SpectralLaw",
    "d",
    "expected_above not an integer (through FixedTBulkLaw)",
    lambda: sr.fixed_T_bulk_law(0.5, 0.5, W).expected_above(1.0, 2.5),
)
bad("fixed_T_setting", "row", "not a row", lambda: sr.fixed_T_setting({"T": 4}))
bad(
    "fixed_T_setting",
    "R",
    "unknown correlation",
    lambda: sr.fixed_T_setting({"T": 4, "R": "iid", "R_par": 0, "weights": "mean"}),
)
bad("token_rank_fraction", "n_nonzero", "zero", lambda: sr.token_rank_fraction(0, 1.0))
bad("token_rank_fraction", "draws_per_token", "zero", lambda: sr.token_rank_fraction(2, 0.0))
bad("token_rank_fraction", "draws_per_token", "NaN", lambda: sr.token_rank_fraction(2, NAN))
bad("fixed_T_atom", "delta", "zero", lambda: sr.fixed_T_atom(0.0, 0.5, W))
bad("fixed_T_atom", "gamma", "NaN", lambda: sr.fixed_T_atom(0.5, NAN, W))
bad("fixed_T_atom", "w", "all zero", lambda: sr.fixed_T_atom(0.5, 0.5, np.zeros(4)))
bad("fixed_T_bulk_law", "delta", "negative", lambda: sr.fixed_T_bulk_law(-1.0, 0.5, W))
bad("fixed_T_bulk_law", "gamma", "zero", lambda: sr.fixed_T_bulk_law(0.5, 0.0, W))
bad("fixed_T_bulk_law", "w", "NaN", lambda: sr.fixed_T_bulk_law(0.5, 0.5, [NAN, 1.0]))
bad("FixedTBulkLaw", "delta", "NaN", lambda: sr.FixedTBulkLaw(NAN, 0.5, W))
bad("FixedTBulkLaw", "w", "all zero", lambda: sr.FixedTBulkLaw(0.5, 0.5, np.zeros(3)))
bad("FixedTBulkLaw", "n_tokens", "too few", lambda: sr.FixedTBulkLaw(0.5, 0.5, W, n_tokens=2))
bad("FixedTBulkLaw", "n_top", "negative", lambda: sr.FixedTBulkLaw(0.5, 0.5, W, n_top=-1))
bad("FixedTBulkLaw", "x", "tail_mass NaN", lambda: sr.fixed_T_bulk_law(0.5, 0.5, [1.0]).tail_mass(NAN))
bad("FixedTBulkLaw", "d", "expected_above zero", lambda: sr.fixed_T_bulk_law(0.5, 0.5, [1.0]).expected_above(1.0, 0))
bad("BulkLaw", "x", "tail_mass NaN", lambda: sr.BulkLaw(0.5, 0.5).tail_mass(NAN))
bad("BulkLaw", "d", "expected_above non-integer", lambda: sr.BulkLaw(0.5, 0.5).expected_above(1.0, 2.5))

bad("fixed_T_predict", "beta", "negative", lambda: sr.fixed_T_predict(0.5, 0.5, W, np.eye(W.size), -1.0))
bad("fixed_T_predict", "R", "wrong size", lambda: sr.fixed_T_predict(0.5, 0.5, W, np.eye(2), 1.0))
bad(
    "fixed_T_predict",
    "spike_norm2",
    "NaN",
    lambda: sr.fixed_T_predict(0.5, 0.5, [1.0], np.eye(1), 1.0, spike_norm2=NAN),
)
bad("fixed_T_spike_model", "delta", "zero", lambda: sr.fixed_T_spike_model(0.0, 0.5, [1.0], np.eye(1)))
bad("fixed_T_spike_model", "d", "one", lambda: sr.fixed_T_spike_model(0.5, 0.5, [1.0], np.eye(1), d=1))
bad("FixedTSpike", "block", "odd", lambda: sr.FixedTSpike(0.5, 0.5, [0.5, 0.5], np.eye(2), block=501))
bad("FixedTSpike", "n_atoms", "too few", lambda: sr.FixedTSpike(0.5, 0.5, [1.0], np.eye(1), n_atoms=3))
bad("FixedTSpike", "x", "H at zero", lambda: sr.fixed_T_spike_model(0.5, 0.5, [1.0], np.eye(1)).H(0.0))
bad("FixedTSpike", "beta", "curve NaN", lambda: sr.fixed_T_spike_model(0.5, 0.5, [1.0], np.eye(1)).curve([NAN]))
bad(
    "FixedTSpike",
    "spike_norm2",
    "outlier negative",
    lambda: sr.fixed_T_spike_model(0.5, 0.5, [1.0], np.eye(1)).outlier(-1.0),
)

# --- spikes ---------------------------------------------------------------------
bad("spike_curve", "theta", "negative", lambda: sr.spike_curve(-1.0, 0.5, 0.5))
bad("spike_curve", "theta", "NaN", lambda: sr.spike_curve([1.0, NAN], 0.5, 0.5))
bad("spike_curve", "theta", "str", lambda: sr.spike_curve("a", 0.5, 0.5))
bad("spike_curve", "theta", "bool", lambda: sr.spike_curve(True, 0.5, 0.5))
bad("spike_curve", "delta", "zero", lambda: sr.spike_curve(1.0, 0.0, 0.5))
bad("spike_curve", "gamma", "negative", lambda: sr.spike_curve(1.0, 0.5, -0.5))
bad("spike_curve", "kappa", "zero", lambda: sr.spike_curve(1.0, 0.5, 0.5, 0.0))
bad("population_threshold", "delta", "negative", lambda: sr.population_threshold(-1.0))
bad("population_threshold", "delta", "NaN", lambda: sr.population_threshold(NAN))
bad("population_threshold", "kappa", "zero", lambda: sr.population_threshold(0.5, 0.0))
bad("sample_threshold", "delta", "negative", lambda: sr.sample_threshold(-1.0, 0.5))
bad("sample_threshold", "gamma", "NaN", lambda: sr.sample_threshold(0.5, NAN))
bad("sample_threshold", "kappa", "zero", lambda: sr.sample_threshold(0.5, 0.5, 0.0))
bad("predict", "delta", "negative", lambda: sr.predict(-0.5, 0.5, W, R, 1.0))
bad("predict", "delta", "NaN", lambda: sr.predict(NAN, 0.5, W, R, 1.0))
bad("predict", "gamma", "negative", lambda: sr.predict(0.5, -0.5, W, R, 1.0))
bad("predict", "gamma", "str", lambda: sr.predict(0.5, "0.5", W, R, 1.0))
bad("predict", "beta", "negative", lambda: sr.predict(0.5, 0.5, W, R, -1.0))
bad("predict", "w", "zero weights", lambda: sr.predict(0.5, 0.5, np.zeros(T), R, 1.0))
bad("predict", "w", "length != T", lambda: sr.predict(0.5, 0.5, W3, R, 1.0))
bad("predict", "R", "non-symmetric", lambda: sr.predict(0.5, 0.5, [1.0, 1.0], R_NONSYM, 1.0))
bad("predict", "R", "non-PSD", lambda: sr.predict(0.5, 0.5, W3, R_NONPSD, 1.0))
bad("predict", "delta_norm2", "negative", lambda: sr.predict(0.5, 0.5, W, R, 1.0, delta_norm2=-1.0))
bad("predict", "zbar_norm2", "NaN", lambda: sr.predict(0.5, 0.5, W, R, 1.0, zbar_norm2=NAN))
bad("predict", "spike_norm2", "negative", lambda: sr.predict(0.5, 0.5, W, R, 1.0, spike_norm2=-1.0))
bad("predict", "spike_norm2", "NaN", lambda: sr.predict(0.5, 0.5, W, R, 1.0, spike_norm2=NAN))
bad("predict", "spike_norm2", "str", lambda: sr.predict(0.5, 0.5, W, R, 1.0, spike_norm2="1.5"))
bad(
    "predict",
    "spike_norm2",
    "beyond Cauchy-Schwarz with delta_norm2",
    lambda: sr.predict(0.5, 0.5, W, R, 1.0, spike_norm2=5.0, delta_norm2=0.5),
)
bad(
    "predict",
    "spike_norm2",
    "differs from delta_norm2 at beta = 0",
    lambda: sr.predict(0.5, 0.5, W, R, 0.0, spike_norm2=0.6, delta_norm2=0.5),
)
bad(
    "predict",
    "spike_norm2",
    "with the idealized statement",
    lambda: sr.predict(0.5, 0.5, W, R, 1.0, finite_table=False, spike_norm2=1.5),
)
bad(
    "predict",
    "delta_norm2",
    "with the idealized statement",
    lambda: sr.predict(0.5, 0.5, W, R, 1.0, finite_table=False, delta_norm2=0.5),
)
bad(
    "predict",
    "zbar_norm2",
    "with the idealized statement",
    lambda: sr.predict(0.5, 0.5, W, R, 1.0, centered=False, finite_table=False, zbar_norm2=0.5),
)
bad("spike_norm2_variance", "d", "zero", lambda: sr.spike_norm2_variance(0, 10, 1.0))
bad("spike_norm2_variance", "d", "float", lambda: sr.spike_norm2_variance(2.5, 10, 1.0))
bad("spike_norm2_variance", "V", "odd", lambda: sr.spike_norm2_variance(10, 11, 1.0))
bad("spike_norm2_variance", "beta", "negative", lambda: sr.spike_norm2_variance(10, 10, -1.0))
bad("spike_norm2_variance", "beta", "NaN", lambda: sr.spike_norm2_variance(10, 10, NAN))
bad("predict", "centered", "str", lambda: sr.predict(0.5, 0.5, W, R, 1.0, centered="no"))
bad("predict", "finite_table", "str", lambda: sr.predict(0.5, 0.5, W, R, 1.0, finite_table="no"))
bad("critical_beta", "delta", "negative", lambda: sr.critical_beta(-0.5, 0.5, W, R))
bad("critical_beta", "gamma", "negative", lambda: sr.critical_beta(0.5, -0.5, W, R))
bad("critical_beta", "gamma", "NaN, population stage", lambda: sr.critical_beta(0.5, NAN, W, R, stage="population"))
bad("critical_beta", "gamma", "str, population stage", lambda: sr.critical_beta(0.5, "0.5", W, R, stage="population"))
bad("critical_beta", "stage", "unknown", lambda: sr.critical_beta(0.5, 0.5, W, R, stage="both"))
bad("critical_beta", "w", "alpha = 0", lambda: sr.critical_beta(0.5, 0.5, [1.0, -1.0], np.ones((2, 2))))
bad("critical_beta", "w", "zero weights", lambda: sr.critical_beta(0.5, 0.5, np.zeros(T), R))
bad("critical_beta", "R", "non-symmetric", lambda: sr.critical_beta(0.5, 0.5, [1.0, 1.0], R_NONSYM))
bad("critical_gamma", "delta", "negative", lambda: sr.critical_gamma(-0.5, W, R, 1.0))
bad("critical_gamma", "beta", "negative", lambda: sr.critical_gamma(0.5, W, R, -1.0))
bad("critical_gamma", "w", "length != T", lambda: sr.critical_gamma(0.5, W3, R, 1.0))
bad("critical_N", "d", "zero", lambda: sr.critical_N(0, 10, W, R, 1.0))
bad("critical_N", "V", "odd", lambda: sr.critical_N(8, 11, W, R, 1.0))
bad("critical_N", "beta", "NaN", lambda: sr.critical_N(8, 10, W, R, NAN))
bad("critical_delta", "gamma", "negative", lambda: sr.critical_delta(-0.5, W, R, 1.0))
bad("critical_delta", "beta", "negative", lambda: sr.critical_delta(0.5, W, R, -1.0))
bad("critical_delta", "stage", "unknown", lambda: sr.critical_delta(0.5, W, R, 1.0, stage="x"))
bad("critical_delta", "delta_range", "reversed", lambda: sr.critical_delta(0.5, W, R, 1.0, delta_range=(1.0, 0.5)))
bad("critical_delta", "delta_range", "NaN", lambda: sr.critical_delta(0.5, W, R, 1.0, delta_range=(NAN, 1.0)))

# --- experiments --------------------------------------------------------------------
bad("simulate", "d", "zero", lambda: sr.simulate(0, 10, 20, W, R, 1.0))
bad("simulate", "V", "odd", lambda: sr.simulate(8, 11, 20, W, R, 1.0))
bad("simulate", "N", "zero", lambda: sr.simulate(8, 10, 0, W, R, 1.0))
bad("simulate", "beta", "negative", lambda: sr.simulate(8, 10, 20, W, R, -1.0))
bad("simulate", "w", "zero weights", lambda: sr.simulate(8, 10, 20, np.zeros(T), R, 1.0))
bad("simulate", "w", "length != T", lambda: sr.simulate(8, 10, 20, W3, R, 1.0))
bad("simulate", "R", "binary but not copula-reachable", lambda: sr.simulate(8, 10, 20, W, R_NOT_COPULA, 1.0))
bad("simulate", "R", "not a binary correlation", lambda: sr.simulate(8, 10, 20, W3, R_NOT_BINARY, 1.0))
bad("simulate", "R", "non-symmetric", lambda: sr.simulate(8, 10, 20, [1.0, 1.0], R_NONSYM, 1.0))
bad("simulate", "n_vectors", "zero", lambda: sr.simulate(8, 10, 20, W, R, 1.0, n_vectors=0))
bad("simulate", "seed", "str", lambda: sr.simulate(8, 10, 20, W, R, 1.0, seed="x"))
bad("simulate", "centered", "str", lambda: sr.simulate(8, 10, 20, W, R, 1.0, centered="no"))
bad("simulate_table", "table", "str", lambda: sr.simulate_table("table", 20, W, R))
bad("simulate_table", "N", "zero", lambda: sr.simulate_table(TABLE, 0, W, R))
bad("simulate_table", "w", "length != T", lambda: sr.simulate_table(TABLE, 20, W3, R))
bad("simulate_table", "R", "binary but not copula-reachable", lambda: sr.simulate_table(TABLE, 20, W, R_NOT_COPULA))
bad("repeat", "fn", "not callable", lambda: sr.repeat(3, [0, 1]))
bad("repeat", "seeds", "empty", lambda: sr.repeat(lambda s: {"x": s}, []))
bad("repeat", "seeds", "zero", lambda: sr.repeat(lambda s: {"x": s}, 0))
bad("repeat", "seeds", "bool", lambda: sr.repeat(lambda s: {"x": s}, True))
bad("repeat", "seeds", "str", lambda: sr.repeat(lambda s: {"x": s}, "ab"))
bad("ridge_accuracy", "table", "str", lambda: sr.ridge_accuracy("table", 20, W, R))
bad("ridge_accuracy", "N", "zero", lambda: sr.ridge_accuracy(TABLE, 0, W, R))
bad("ridge_accuracy", "ridge", "zero", lambda: sr.ridge_accuracy(TABLE, 20, W, R, ridge=0.0))
bad("ridge_accuracy", "ridge", "NaN", lambda: sr.ridge_accuracy(TABLE, 20, W, R, ridge=NAN))
bad("ridge_accuracy", "n_test", "zero", lambda: sr.ridge_accuracy(TABLE, 20, W, R, n_test=0))
bad("ridge_accuracy", "w", "length != T", lambda: sr.ridge_accuracy(TABLE, 20, W3, R))
bad("ridge_accuracy", "R", "binary but not copula-reachable", lambda: sr.ridge_accuracy(TABLE, 20, W, R_NOT_COPULA))
bad("classification_curve", "Ns", "empty", lambda: sr.classification_curve(8, 10, [], {"m": W}, R, 1.0, seeds=1))
bad("classification_curve", "Ns", "zero", lambda: sr.classification_curve(8, 10, [0], {"m": W}, R, 1.0, seeds=1))
bad("classification_curve", "weights", "empty", lambda: sr.classification_curve(8, 10, [20], {}, R, 1.0, seeds=1))
bad("classification_curve", "weights", "str", lambda: sr.classification_curve(8, 10, [20], "W", R, 1.0, seeds=1))
bad("classification_curve", "d", "zero", lambda: sr.classification_curve(0, 10, [20], {"m": W}, R, 1.0, seeds=1))
bad("classification_curve", "V", "odd", lambda: sr.classification_curve(8, 11, [20], {"m": W}, R, 1.0, seeds=1))
bad(
    "classification_curve", "beta", "negative", lambda: sr.classification_curve(8, 10, [20], {"m": W}, R, -1.0, seeds=1)
)
bad(
    "classification_curve",
    "R",
    "binary but not copula-reachable",
    lambda: sr.classification_curve(8, 10, [20], {"m": W}, R_NOT_COPULA, 1.0, seeds=1),
)


# toolkit (chapter 0)
bad("stieltjes_inversion", "stieltjes", "not callable", lambda: sr.stieltjes_inversion(3.0, [1.0], 1e-3))
bad("stieltjes_inversion", "eps", "zero", lambda: sr.stieltjes_inversion(np.conj, [1.0], 0.0))
bad("empirical_stieltjes", "eigenvalues", "empty", lambda: sr.empirical_stieltjes(1j, []))
bad("empirical_stieltjes", "eigenvalues", "NaN", lambda: sr.empirical_stieltjes(1j, [NAN]))
bad("mp_r_transform", "ratio", "negative", lambda: sr.mp_r_transform(0.1, -0.5))
bad("mp_r_transform", "scale", "zero", lambda: sr.mp_r_transform(0.1, 0.5, 0.0))
bad("mp_s_transform", "ratio", "NaN", lambda: sr.mp_s_transform(0.1, NAN))
bad("semicircle_density", "variance", "zero", lambda: sr.semicircle_density(0.0, 0.0))
bad("bbp_threshold", "gamma", "negative", lambda: sr.bbp_threshold(-1.0))
bad("bbp_outlier", "theta", "negative", lambda: sr.bbp_outlier(-1.0, 0.5))
bad("bbp_outlier", "gamma", "str", lambda: sr.bbp_outlier(1.0, "0.5"))
bad("bbp_overlap", "gamma", "zero", lambda: sr.bbp_overlap(1.0, 0.0))
bad("spiked_covariance_sample", "d", "zero", lambda: sr.spiked_covariance_sample(0, 0.5, 1.0))
bad("spiked_covariance_sample", "theta", "negative", lambda: sr.spiked_covariance_sample(10, 0.5, -1.0))
bad("wishart_product_eigenvalues", "delta", "zero", lambda: sr.wishart_product_eigenvalues(10, 0.0, 0.5))
bad("wishart_product_eigenvalues", "d", "str", lambda: sr.wishart_product_eigenvalues("10", 0.5, 0.5))
# learned attention (chapter 8)
bad("learn_attention", "kind", "unknown", lambda: sr.learn_attention(R, 1.0, d=8, V=10, N=20, kind="x"))
bad("learn_attention", "N", "zero", lambda: sr.learn_attention(R, 1.0, d=8, V=10, N=0))
bad("learn_attention", "beta", "negative", lambda: sr.learn_attention(R, -1.0, d=8, V=10, N=20))
bad("learn_attention", "steps", "zero", lambda: sr.learn_attention(R, 1.0, d=8, V=10, N=20, steps=0))
bad("learn_attention", "lr", "NaN", lambda: sr.learn_attention(R, 1.0, d=8, V=10, N=20, lr=NAN))
bad("learn_attention", "label", "beyond T", lambda: sr.learn_attention(R, 1.0, d=8, V=10, N=20, label=T + 1))
bad("supervised_weights", "label", "zero", lambda: sr.supervised_weights(R, 0))
bad("supervised_weights", "beta", "negative", lambda: sr.supervised_weights(R, 1, beta=-1.0))
bad("label_signal", "w", "wrong length", lambda: sr.label_signal(W3, R))
bad("token_snr", "result", "not a result", lambda: sr.token_snr(3.0))
bad("weight_statistics", "W", "NaN", lambda: sr.weight_statistics(np.full((5, T), NAN), XI))
bad("weight_statistics", "W", "shape", lambda: sr.weight_statistics(np.ones((4, T)), XI))
bad("learned_spectrum", "result", "not a result", lambda: sr.learned_spectrum("x"))
bad("supervised_weights", "beta", "NaN", lambda: sr.supervised_weights(R, 1, beta=NAN))
bad("class_separable", "table", "not a table", lambda: sr.class_separable(np.ones((8, 10))))
bad("readout_objective", "result", "not a result", lambda: sr.readout_objective("x", W))
bad(
    "readout_objective",
    "w",
    "off the simplex",
    lambda: sr.readout_objective(sr.learn_attention(R, 1.0, d=8, V=10, N=20, steps=1, seed=0), 2 * W),
)
bad(
    "readout_objective",
    "ridge",
    "negative",
    lambda: sr.readout_objective(sr.learn_attention(R, 1.0, d=8, V=10, N=20, steps=1, seed=0), W, ridge=-1.0),
)
bad("readout_margin", "result", "not a result", lambda: sr.readout_margin(None, W))
bad(
    "readout_margin",
    "w",
    "wrong length",
    lambda: sr.readout_margin(sr.learn_attention(R, 1.0, d=8, V=10, N=20, steps=1, seed=0), W3),
)
bad("readout_support_fraction", "result", "not a result", lambda: sr.readout_support_fraction(None, W))
bad(
    "readout_support_fraction",
    "rtol",
    "not below 1",
    lambda: sr.readout_support_fraction(sr.learn_attention(R, 1.0, d=8, V=10, N=20, steps=1, seed=0), W, rtol=1.0),
)
bad("interpolation_margin", "N", "not below d", lambda: sr.interpolation_margin(1.0, 1.0, 10, 10))
bad("interpolation_margin", "kappa", "NaN", lambda: sr.interpolation_margin(1.0, NAN, 10, 5))
bad(
    "spectral_classifier_accuracy",
    "overlap",
    "above 1",
    lambda: sr.spectral_classifier_accuracy(1.5, 2.0, 0.3, 1.0, 0.5),
)
bad(
    "spectral_classifier_accuracy",
    "noise_var",
    "zero",
    lambda: sr.spectral_classifier_accuracy(0.5, 2.0, 0.0, 1.0, 0.5),
)
bad(
    "spectral_classifier_accuracy",
    "label_weight",
    "square above alpha",
    lambda: sr.spectral_classifier_accuracy(0.5, 2.0, 0.3, 1.0, 2.0),
)


def _public_callables():
    return {
        name
        for name in dir(sr)
        if not name.startswith("_") and callable(getattr(sr, name)) and not isinstance(getattr(sr, name), type(sr))
    }  # skip submodules


def test_every_public_callable_is_covered():
    public = _public_callables()
    covered = {f for f, *_ in BAD_INPUTS}
    assert covered <= public, f"cases for unknown names: {sorted(covered - public)}"
    for name in RESULT_CONTAINERS:
        assert dataclasses.is_dataclass(getattr(sr, name)), name
    for name in NO_PARAMETERS:
        assert not inspect.signature(getattr(sr, name)).parameters, name
    missing = public - covered - RESULT_CONTAINERS - NO_PARAMETERS
    assert not missing, f"public callables without a bad-input case: {sorted(missing)}"


@pytest.mark.parametrize("func, param, desc, call", BAD_INPUTS, ids=[f"{f}-{p}-{d}" for f, p, d, _ in BAD_INPUTS])
def test_bad_input_raises_naming_parameter(func, param, desc, call):
    with pytest.raises((TypeError, ValueError), match=rf"\b{param}\b"):
        out = call()
        # reaching this line is a failure; show what came back (NaN, a silent result, ...)
        pytest.fail(f"{func}({param}: {desc}) returned {out!r:.200}")


# ---------------------------------------------------------------------------
# extreme but valid values: finite results, no hang
# ---------------------------------------------------------------------------

#: A hang fails the test after this many seconds (pytest-timeout, not an assertion on the clock: the
#: calls take milliseconds, and a loaded machine never fails a test that ends).
HANG_S = 300

RATIOS = [1e-8, 1e-3, 1.0, 1e3, 1e8]


def _finite(out):
    if dataclasses.is_dataclass(out):
        vals = [v for v in dataclasses.asdict(out).values() if v is not None and not isinstance(v, bool)]
    elif isinstance(out, tuple):
        vals = list(out)
    else:
        vals = [out]
    return all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in vals)


@pytest.mark.timeout(HANG_S)
@pytest.mark.parametrize("delta", RATIOS, ids=lambda v: f"delta={v:g}")
@pytest.mark.parametrize("gamma", [0.0] + RATIOS, ids=lambda v: f"gamma={v:g}")
def test_sample_threshold_extremes(delta, gamma):
    tc = sr.sample_threshold(delta, gamma)
    assert np.isfinite(tc) and tc >= sr.population_threshold(delta) * (1 - 1e-12)


@pytest.mark.timeout(HANG_S)
@pytest.mark.parametrize("gamma", [0.0, 1e-8, 0.5, 1e8], ids=lambda v: f"gamma={v:g}")
@pytest.mark.parametrize("beta", [0.0, 1e-8, 1.0, 1e8], ids=lambda v: f"beta={v:g}")
def test_critical_functions_extremes(gamma, beta):
    Rp = sr.prefix_correlation(8, 3)
    for w in (sr.mean_weights(8), sr.optimal_weights(Rp)):
        roots = sr.critical_delta(gamma, w, Rp, beta, delta_range=(1e-8, 1e8))
        assert np.all(np.isfinite(roots))
        for dl in (1e-8, 1.0, 1e8):
            assert np.isfinite(sr.critical_beta(dl, gamma, w, Rp))
            g = sr.critical_gamma(dl, w, Rp, beta)
            assert np.isfinite(g) and g >= 0
            assert _finite(sr.predict(dl, gamma, w, Rp, beta, centered=False))


@pytest.mark.timeout(HANG_S)
@pytest.mark.parametrize("delta", RATIOS, ids=lambda v: f"delta={v:g}")
@pytest.mark.parametrize("gamma", RATIOS, ids=lambda v: f"gamma={v:g}")
def test_bulk_and_spike_curve_extremes(delta, gamma):
    edges = sr.bulk_edges(delta, gamma)
    assert _finite(edges) and edges[0] <= edges[1]
    c = sr.spike_curve(np.geomspace(1e-6, 1e12, 50), delta, gamma)
    assert _finite(c)
