"""Tests of the fixed-T bulk (``sr.fixed_T_bulk_law``): a generalized Marchenko-Pastur law whose
population spectrum is that of the sparse token Gram matrix."""

from __future__ import annotations


import numpy as np
import pytest
from scipy import sparse

import seqrmt as sr
from seqrmt.validation import kolmogorov_distance

DELTA = GAMMA = 1.5
D_SIM = 1000
TABLE_SEEDS = (11, 12, 13)


def _pooled_spectrum(delta, gamma, w, R=None, d=D_SIM, seeds=TABLE_SEEDS):
    """Eigenvalues of the centered S for three independent tables (beta = 0), pooled."""
    R = np.eye(w.size) if R is None else R
    V, N = sr.sizes(d, delta, gamma)
    return np.concatenate([sr.simulate(d, V, N, w, R, 0.0, seed=s, n_vectors=1).eigenvalues for s in seeds])


def _zero_fraction(lam):
    return float(np.mean(lam < 1e-9 * lam.max()))


# ------------------------------------------------------------------------- against simulation


@pytest.mark.parametrize("T", [1, 2])
def test_matches_simulation_where_theorem_1_fails(T):
    w = sr.mean_weights(T)
    lam = _pooled_spectrum(DELTA, GAMMA, w)
    law = sr.fixed_T_bulk_law(DELTA, GAMMA, w)
    ks = kolmogorov_distance(lam, law)
    ks_thm1 = kolmogorov_distance(lam, sr.BulkLaw(DELTA, GAMMA, sr.kappa(w)))
    # finite-d fluctuations of three pooled spectra at d = 1000 are a few thousandths
    assert ks <= 0.02, ks
    assert ks_thm1 >= 0.1, ks_thm1  # Theorem 1 is off by 0.1-0.25 here
    # the atom: the centered S loses at most one more dimension (1/d) and the rank of the
    # sparse token matrix fluctuates by O(1/sqrt(V)) from table to table
    assert abs(law.atom - _zero_fraction(lam)) <= 0.015


def test_rank_is_below_min_of_sequences_and_drawn_tokens():
    """At T = 2 two tokens drawn only by the same sequence give proportional rows of A: the
    rank is below min(N, #drawn tokens), and the simulation sees it."""
    w = sr.mean_weights(2)
    lam = _pooled_spectrum(DELTA, GAMMA, w, seeds=(21, 22, 23))
    lam_tok = 2 * DELTA / GAMMA
    naive = 1 - min(GAMMA**-1 * DELTA, 1 - np.exp(-lam_tok)) / DELTA  # min(N, drawn)/d
    law = sr.fixed_T_bulk_law(DELTA, GAMMA, w)
    assert law.atom - naive > 0.015
    assert abs(law.atom - _zero_fraction(lam)) < abs(naive - _zero_fraction(lam))


def test_law_does_not_depend_on_the_sign_correlation():
    """Prefix signs shared by the whole sequence (R = all ones): same fixed-T law."""
    T = 2
    w = sr.mean_weights(T)
    lam = _pooled_spectrum(DELTA, GAMMA, w, R=sr.prefix_correlation(T, T), d=800, seeds=(31, 32, 33))
    assert kolmogorov_distance(lam, sr.fixed_T_bulk_law(DELTA, GAMMA, w)) <= 0.02


def test_zero_weights_count_as_absent_positions():
    w = np.array([0.5, 0.5, 0.0, 0.0])
    assert sr.fixed_T_atom(DELTA, GAMMA, w) == sr.fixed_T_atom(DELTA, GAMMA, [0.5, 0.5])
    assert sr.fixed_T_atom(DELTA, GAMMA, w) > sr.fixed_T_atom(DELTA, GAMMA, sr.mean_weights(4)) + 0.05
    lam = _pooled_spectrum(DELTA, GAMMA, w, d=800, seeds=(41, 42, 43))
    law = sr.fixed_T_bulk_law(DELTA, GAMMA, w)
    assert kolmogorov_distance(lam, law) <= 0.02
    assert abs(law.atom - _zero_fraction(lam)) <= 0.015


# ------------------------------------------------------------------------- the rank formula


def _draw_rank(Tp, V, ratio, seed):
    rng = np.random.default_rng(seed)
    N = int(round(ratio * V))
    tok = np.argpartition(rng.random((N, V)), Tp - 1, axis=1)[:, :Tp]
    vals = rng.uniform(0.5, 1.5, size=(N, Tp))
    A = sparse.csr_matrix((vals.ravel(), (tok.ravel(), np.repeat(np.arange(N), Tp))), shape=(V, N))
    return np.linalg.matrix_rank(A.toarray()) / V


@pytest.mark.parametrize("Tp, ratio", [(1, 0.7), (2, 1.0), (3, 0.5), (2, 3.0)])
def test_token_rank_fraction_against_exact_ranks(Tp, ratio):
    r = sr.token_rank_fraction(Tp, Tp * ratio)
    draws = [_draw_rank(Tp, 1200, ratio, s) for s in range(3)]
    # the rank fraction of one draw fluctuates by about 0.5 / sqrt(V) ~ 0.015 / sqrt(3 draws)
    assert abs(np.mean(draws) - r) < 0.012, (np.mean(draws), r)
    assert r <= min(ratio, 1 - np.exp(-Tp * ratio)) + 1e-12


def test_token_rank_fraction_T1_is_drawn_tokens():
    for lam in (0.3, 1.0, 2.5):
        assert sr.token_rank_fraction(1, lam) == pytest.approx(1 - np.exp(-lam), abs=1e-12)


def test_rank_potential_at_zero_depends_on_T_prime():
    from seqrmt.fixed_T_bulk import _rank_potential

    a = np.linspace(0.0, 1.0, 11)
    # T' = 1: a^0 = 1 everywhere (0^0 = 1), the bracket vanishes and Phi is the constant e^{-lambda};
    # in particular Phi(0) = e^{-1} = 0.368 at lambda = 1, not 1 - N/V = 0
    for lam in (0.5, 1.0, 3.0):
        assert np.allclose(_rank_potential(a, 1, lam), np.exp(-lam), atol=1e-15)
    assert _rank_potential(0.0, 1, 1.0) == pytest.approx(np.exp(-1.0)) and np.exp(-1.0) > 0.36
    # T' >= 2: Phi(0) = 1 - lambda/T' (= 1 - N/V) and Phi(1) = e^{-lambda}
    for Tp, lam in ((2, 1.0), (3, 2.0), (4, 0.7)):
        assert _rank_potential(0.0, Tp, lam) == pytest.approx(1 - lam / Tp, abs=1e-15)
        assert _rank_potential(1.0, Tp, lam) == pytest.approx(np.exp(-lam), abs=1e-15)
        assert sr.token_rank_fraction(Tp, lam) <= min(lam / Tp, 1 - np.exp(-lam)) + 1e-12


# ------------------------------------------------------------------------- towards Theorem 1


def test_tends_to_theorem_1_as_T_grows():
    dist = []
    for T in (1, 2, 4, 64):
        w = sr.mean_weights(T)
        law = sr.fixed_T_bulk_law(DELTA, GAMMA, w)
        x = np.linspace(0, 3.5, 2000) * sr.kappa(w)
        dist.append(np.max(np.abs(law.cdf(x) - sr.BulkLaw(DELTA, GAMMA, sr.kappa(w)).cdf(x))))
    assert dist[0] > dist[1] > dist[2] > dist[3], dist
    assert dist[3] < 0.005, dist
    assert sr.fixed_T_atom(DELTA, GAMMA, sr.mean_weights(64)) == pytest.approx(1 - 1 / DELTA, abs=1e-9)


# ------------------------------------------------------------------------- the distribution


@pytest.mark.parametrize(
    "delta, gamma, w",
    [
        (1.5, 1.5, sr.mean_weights(2)),
        (0.5, 0.5, sr.mean_weights(2)),
        (0.5, 2.0, sr.mean_weights(1)),
        (1.0, 1.0, sr.causal_weights(3)),
        (2.0, 0.5, np.array([0.7, 0.2, 0.1, 0.0])),
    ],
)
def test_distribution(delta, gamma, w):
    law = sr.fixed_T_bulk_law(delta, gamma, w)
    k = sr.kappa(w)
    left, inf = law.support()
    assert inf == np.inf and 0 <= left < law.truncation  # the limit law has no right edge
    right = law.truncation  # where the computed law ends
    # pdf integrates to 1 - atom (own grid, independent of the cdf table)
    x = np.union1d(np.geomspace(1e-9 * right, 0.05 * right, 400), np.linspace(0, right, 3000))
    assert np.trapezoid(law.pdf(x), x) == pytest.approx(1 - law.atom, abs=3e-3)
    assert abs(law.mass_error) < 2e-3
    # cdf: 0 below 0, the atom at 0, nondecreasing, 1 at the right edge
    grid = np.linspace(-0.1, 1.05 * right, 4000)
    F = law.cdf(grid)
    assert np.all(np.diff(F) >= 0) and F[0] == 0.0 and F[-1] > 1 - 1e-6
    assert law.cdf(1e3 * right) == 1.0
    assert law.cdf(0.0) == pytest.approx(law.atom, abs=1e-12)
    # exact moments: E tr S / d = tr M = kappa and the second moment
    # c h2 + c^2 h1^2 = kappa^2 (1 + delta + gamma), the same as Theorem 1's at any T
    assert law.mean() == pytest.approx(k, rel=3e-3)
    assert law.moment(2) == pytest.approx(k**2 * (1 + delta + gamma), rel=1e-2)
    # quantiles invert the cdf
    q = np.array([0.2, 0.5, 0.9, 0.99])
    q = q[q > law.atom + 1e-3]
    assert np.allclose(law.cdf(law.ppf(q)), q, atol=2e-3)


# ------------------------------------------------------------------------- the upper tail


def test_no_right_edge_at_T1():
    """At T = 1 the population law is gamma w^2 Poisson(delta/gamma), unbounded: the support of
    the limit law has no right end, and the computed truncation is where the Poisson counts
    stop mattering, far beyond Theorem 1's edge (it does not depend on the token sample)."""
    law = sr.fixed_T_bulk_law(0.5, 0.5, [1.0])
    assert law.support()[1] == np.inf and law.resolution == 0.0
    edge = sr.BulkLaw(0.5, 0.5).support()[1]
    assert law.truncation > 4 * edge
    assert sr.fixed_T_bulk_law(0.5, 0.5, [1.0], n_tokens=1500).truncation == law.truncation
    # a positive mass above every point before the truncation, growing Poisson tail below it
    x = np.linspace(edge, 0.9 * law.truncation, 50)
    assert np.all(law.tail_mass(x) > 0)


@pytest.mark.parametrize(
    "delta, gamma, w",
    [
        (0.5, 0.5, [1.0]),
        (1.5, 1.5, [1.0]),
        (0.5, 0.5, sr.mean_weights(2)),
        (1.5, 1.5, sr.optimal_weights(sr.prefix_correlation(16, 4))),
    ],
)
def test_tail_mass(delta, gamma, w):
    law = sr.fixed_T_bulk_law(delta, gamma, w)
    x = np.concatenate([[-np.inf, -1.0, 0.0], np.linspace(1e-6, 1.2 * law.truncation, 3000), [np.inf]])
    tail = law.tail_mass(x)
    # a survival function: in [0, 1], nonincreasing, 1 below 0, 1 - atom just above 0, 0 at the end
    assert np.all((tail >= 0) & (tail <= 1)) and np.all(np.diff(tail) <= 1e-15)
    assert tail[0] == tail[1] == 1.0 and tail[2] == pytest.approx(1 - law.atom, abs=1e-12)
    assert tail[-1] == 0.0 and law.tail_mass(law.truncation) == 0.0
    assert np.allclose(tail, 1 - law.cdf(x), atol=1e-12)
    # vectorized with the shape of x; the expected count is d times the mass
    grid = np.linspace(0, law.truncation, 12).reshape(3, 4)
    assert law.tail_mass(grid).shape == (3, 4)
    assert np.allclose(law.expected_above(grid, 600), 600 * law.tail_mass(grid))


def test_tail_mass_against_the_density():
    """The tail of the cdf table against an independent, finer integration of the density
    (T = 1, delta = gamma = 1.5: the setting of chapter 7's counterexample, where the tail above
    the predicted outlier 10.94 is about 6e-5, 0.035 eigenvalues at d = 600)."""
    law = sr.fixed_T_bulk_law(1.5, 1.5, [1.0])
    # the bumps of the rarest token counts are narrow: the table's trapezoid rule is good to a
    # few per cent of the tail there (documented accuracy), far better than the criterion needs
    # (20001 points: the integrals agree with 60001 points to 3e-5 relative, at a quarter of the cost)
    for x0 in (5.0, 8.0, 10.9375):
        x = np.linspace(x0, law.truncation, 20001)
        fine = np.trapezoid(law.pdf(x), x)
        assert law.tail_mass(x0) == pytest.approx(fine, rel=0.1, abs=1e-7)
    assert 3e-5 < law.tail_mass(10.9375) < 1e-4
    assert 0.02 < law.expected_above(10.9375, 600) < 0.06


def test_theorem_1_tail_is_zero_beyond_its_edge():
    law = sr.BulkLaw(0.5, 0.5, 0.3)
    right = law.support()[1]
    assert law.tail_mass(right) == 0.0 and law.tail_mass(1.01 * right) == 0.0
    assert law.tail_mass(0.5 * right) > 0 and law.expected_above(-1.0, 10) == 10.0


def test_tail_mass_bad_input():
    law = sr.fixed_T_bulk_law(DELTA, GAMMA, [1.0])
    with pytest.raises(ValueError, match="x"):
        law.tail_mass([1.0, np.nan])
    with pytest.raises(TypeError, match="x"):
        law.tail_mass(["a"])
    for bad in (0, -5):
        with pytest.raises(ValueError, match="d"):
            law.expected_above(1.0, bad)
    with pytest.raises(TypeError, match="d"):
        law.expected_above(1.0, 2.5)
    with pytest.raises(ValueError, match="d"):
        sr.BulkLaw(0.5, 0.5).expected_above(1.0, 0)
    with pytest.raises(ValueError, match="n_top"):
        sr.fixed_T_bulk_law(DELTA, GAMMA, sr.mean_weights(2), n_top=-1)


def test_third_moment_at_T1():
    """At T = 1, H = gamma Poisson(delta/gamma) exactly and the companion law has third moment
    c h3 + 3 c^2 h1 h2 + c^3 h1^3 with c = 1/delta and the Poisson moments h_k."""
    delta, gamma = 0.8, 1.6
    lam = delta / gamma
    pois = [lam, lam + lam**2, lam + 3 * lam**2 + lam**3]
    h1, h2, h3 = (gamma**k * m for k, m in zip((1, 2, 3), pois))
    c = 1 / delta
    law = sr.fixed_T_bulk_law(delta, gamma, [1.0])
    assert law.moment(3) == pytest.approx(c * h3 + 3 * c**2 * h1 * h2 + c**3 * h1**3, rel=5e-3)


def test_stieltjes():
    law = sr.fixed_T_bulk_law(DELTA, GAMMA, sr.mean_weights(2))
    z = np.array([0.3 + 0.2j, 1.0 + 0.05j, -0.5 + 1j, 20.0 + 0.0j])
    G = law.stieltjes(z)
    # against the cdf table: G(z) = atom/z + int dF_cont(x)/(z - x)
    xm = (law._x[1:] + law._x[:-1]) / 2
    ref = law.atom / z + (np.diff(law._cum)[None, :] / (z[:, None] - xm[None, :])).sum(axis=1)
    assert np.allclose(G[:3], ref[:3], atol=5e-3)
    assert G[3] == pytest.approx(ref[3], rel=1e-3)
    assert np.all(G[:3].imag < 0)
    assert np.allclose(law.stieltjes(np.conj(z[:3])), np.conj(G[:3]))
    assert law.stieltjes(1e6j)[()] * 1e6j == pytest.approx(1.0, abs=1e-5)


def test_construction_is_cached():
    # its CPU time (at most 5 s) is a bar of benchmarks/bench_budgets.py, not a test
    w = sr.mean_weights(3)
    law = sr.fixed_T_bulk_law(1.3, 1.1, w)
    assert sr.fixed_T_bulk_law(1.3, 1.1, w) is law
    assert sr.fixed_T_bulk_law(1.3, 1.1, w, seed=1) is not law


# ------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(delta=0.0, gamma=1.0, w=[1.0]), "delta"),
        (dict(delta=1.0, gamma=-1.0, w=[1.0]), "gamma"),
        (dict(delta=1.0, gamma=1.0, w=[0.0, 0.0]), "w"),
        (dict(delta=1.0, gamma=1.0, w=[]), "w"),
        (dict(delta=1.0, gamma=1.0, w=[1.0, np.nan]), "w"),
        (dict(delta=float("inf"), gamma=1.0, w=[1.0]), "delta"),
        (dict(delta=1.0, gamma=1.0, w=[1.0], n_atoms=2), "n_atoms"),
    ],
)
def test_bad_input(kw, name):
    with pytest.raises(ValueError, match=name):
        sr.fixed_T_bulk_law(**kw)


def test_bad_input_other():
    with pytest.raises(TypeError, match="w"):
        sr.fixed_T_bulk_law(1.0, 1.0, ["a"])
    with pytest.raises(ValueError, match="n_nonzero"):
        sr.token_rank_fraction(0, 1.0)
    with pytest.raises(ValueError, match="draws_per_token"):
        sr.token_rank_fraction(2, 0.0)
    with pytest.raises(ValueError, match="q"):
        sr.fixed_T_bulk_law(DELTA, GAMMA, sr.mean_weights(2)).ppf([1.5])
    with pytest.raises(ValueError, match="x"):
        sr.fixed_T_bulk_law(DELTA, GAMMA, sr.mean_weights(2)).cdf([np.nan])


def test_repr_names_the_law_and_its_parameters():
    law = sr.fixed_T_bulk_law(1.5, 1.5, sr.mean_weights(1))
    text = repr(law)
    assert text.startswith("FixedTBulkLaw(") and "delta=1.5" in text and "gamma=1.5" in text and "[1.0]" in text


# ------------------------------------------------ the old ("finite T") names, removed in 0.2.0

#: old name -> (new name, the module of the new name, the module that used to forward both)
RENAMED = {
    "finite_T_bulk": ("fixed_T_bulk_law", "fixed_T_bulk", "spectrum"),
    "finite_T_atom": ("fixed_T_atom", "fixed_T_bulk", "spectrum"),
    "FiniteTBulkLaw": ("FixedTBulkLaw", "fixed_T_bulk", "spectrum"),
    "finite_T_spike": ("fixed_T_predict", "fixed_T_spike", "spikes"),
    "FiniteTSpike": ("FixedTSpike", "fixed_T_spike", "spikes"),
}


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_old_names_are_removed(old):
    """The deprecated aliases are gone (0.2.0): ``seqrmt.<old>`` and ``seqrmt.<module>.<old>`` raise
    ``AttributeError``, ``from seqrmt import <old>`` an ``ImportError``; the new name is where it lives,
    and the module that used to forward it no longer does (no module ``__getattr__`` is left)."""
    import importlib

    new, home, forwarder = RENAMED[old]
    home_module = importlib.import_module(f"seqrmt.{home}")
    forwarder_module = importlib.import_module(f"seqrmt.{forwarder}")
    for module in (sr, home_module, forwarder_module):
        assert not hasattr(module, "__getattr__")
        with pytest.raises(AttributeError, match="no attribute"):
            getattr(module, old)
    with pytest.raises(ImportError):
        exec(f"from seqrmt import {old} as alias", {})
    assert getattr(sr, new) is getattr(home_module, new) and new in home_module.__all__
    assert not hasattr(forwarder_module, new)
