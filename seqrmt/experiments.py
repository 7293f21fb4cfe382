"""Simulations of the model (Section 6): spectra, eigenvector alignment, repetition
over seeds, and the downstream ridge classification."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from . import _checks
from ._numerics import _eigh_top
from .model import VocabularyTable, make_table, pool, sample_signs, sample_tokens

__all__ = ["Simulation", "simulate", "simulate_table", "repeat", "Summary", "ridge_accuracy", "classification_curve"]


@dataclass(frozen=True)
class Simulation:
    """Result of :func:`simulate`.

    Attributes
    ----------
    eigenvalues : ndarray, shape (d,)
        Eigenvalues of ``S``, in decreasing order.
    overlaps : ndarray, shape (k,)
        Squared cosines of the top ``k`` eigenvectors (same order) with ``mu / ||mu||``.
    mean_overlaps : ndarray, shape (k,)
        Squared cosines of the same eigenvectors with the vocabulary-mean noise
        ``zbar / ||zbar||``.
    delta_norm2, zbar_norm2 : float
        Realized ``||Delta||^2`` and ``||zbar||^2`` of the table (both ``-> delta``).
    spike_norm2 : float
        Realized ``||mu + Delta||^2`` of the table (``-> beta + delta``), the squared norm
        of the signal spike direction; pass it to :func:`seqrmt.predict` as ``spike_norm2``
        (with ``delta_norm2`` for the exact alignment with ``mu``).
    """

    eigenvalues: np.ndarray
    overlaps: np.ndarray
    mean_overlaps: np.ndarray
    delta_norm2: float
    zbar_norm2: float
    spike_norm2: float
    params: dict = field(default_factory=dict)

    @property
    def realized_norms(self) -> dict[str, float]:
        """The table's realized norms as keywords of :func:`seqrmt.predict`.

        ``sr.predict(..., **sim.realized_norms)`` predicts for this very table:
        ``spike_norm2``, ``delta_norm2`` and ``zbar_norm2`` in place of their limits.
        """
        return dict(spike_norm2=self.spike_norm2, delta_norm2=self.delta_norm2, zbar_norm2=self.zbar_norm2)

    @property
    def signal_index(self) -> int:
        """Index of the top eigenvector best aligned with the signal."""
        return int(np.argmax(self.overlaps))


def simulate_table(
    table: VocabularyTable,
    N: int,
    w: ArrayLike,
    R: ArrayLike,
    *,
    centered: bool = True,
    seed=None,
    n_vectors: int = 5,
    return_matrix: bool = False,
):
    """Simulate ``S`` for a given vocabulary table (see :func:`simulate`)."""
    table = _checks.table(table)
    N = _checks.integer("N", N)
    centered = _checks.flag("centered", centered)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    n_vectors = _checks.integer("n_vectors", n_vectors)
    rng = _checks.seed(seed)
    xi = sample_signs(N, R, seed=rng)
    tokens = sample_tokens(xi, table.V, seed=rng)
    C = pool(table, tokens, w)
    if centered:
        C -= C.mean(axis=1, keepdims=True)
    S = C @ C.T
    S /= N
    # S is full and symmetric; it is destroyed unless the caller asked for it.
    lam, vecs = _eigh_top(S, min(n_vectors, table.d), overwrite=not return_matrix)
    u = table.mu / np.linalg.norm(table.mu) if table.beta > 0 else None
    zbar = table.zbar
    Delta = table.Delta
    overlaps = (u @ vecs) ** 2 if u is not None else np.zeros(vecs.shape[1])
    mean_overlaps = (zbar @ vecs) ** 2 / (zbar @ zbar)
    out = Simulation(
        eigenvalues=lam,
        overlaps=overlaps,
        mean_overlaps=mean_overlaps,
        delta_norm2=float(Delta @ Delta),
        zbar_norm2=float(zbar @ zbar),
        spike_norm2=table.spike_norm2,
        params=dict(d=table.d, V=table.V, N=N, beta=table.beta, centered=centered),
    )
    return (out, S) if return_matrix else out


def simulate(
    d: int,
    V: int,
    N: int,
    w: ArrayLike,
    R: ArrayLike,
    beta: float,
    *,
    centered: bool = True,
    seed=None,
    n_vectors: int = 5,
) -> Simulation:
    """Draw a table, ``N`` sequences and the pooled ``S``; return its spectrum.

    The cost is forming ``C C^T`` (``d^2 N`` flops) and the symmetric
    eigendecomposition of the ``d x d`` matrix ``S``: all eigenvalues, and the
    ``n_vectors`` top eigenvectors (their squared cosines with ``mu/||mu||`` are
    the ``overlaps``).

    Parameters
    ----------
    d, V, N : int
        Dimension, vocabulary size (even) and number of sequences.
    w : array_like, shape (T,)
        Pooling weights.
    R : array_like, shape (T, T)
        Positional sign correlation.
    beta : float
        ``||mu||^2``.
    centered : bool
        Centered sample covariance (default) or the uncentered ``S = C C^T / N``.
    seed : None, int or Generator
        Fixes the table and the sequences.
    n_vectors : int
        Number of top eigenvectors whose overlaps are returned.
    """
    rng = _checks.seed(seed)
    _checks.flag("centered", centered)
    table = make_table(d, V, beta, seed=rng)
    return simulate_table(table, N, w, R, centered=centered, seed=rng, n_vectors=n_vectors)


@dataclass(frozen=True)
class Summary:
    """Mean and standard deviation over seeds of each named quantity.

    ``values[name]`` holds the per-seed values, stacked along a first axis of length ``n``
    (in the order of the seeds).
    """

    mean: dict
    std: dict
    n: int
    values: dict = field(default_factory=dict)

    def sem(self, name: str) -> np.ndarray:
        """Standard error of the mean of ``name``."""
        return np.asarray(self.std[name]) / np.sqrt(self.n)


def repeat(
    fn: Callable[[int], Mapping[str, ArrayLike]], seeds: Sequence[int] | int, *, progress: bool = False
) -> Summary:
    """Run ``fn(seed)`` for each seed and summarize each returned quantity.

    ``fn`` returns a mapping of names to numbers or equal-shape arrays. ``seeds`` is a
    list of seeds or a count ``n`` (seeds ``0..n-1``).
    """
    if not callable(fn):
        raise TypeError("fn must be callable")
    if isinstance(seeds, (bool, np.bool_, str, bytes)):
        raise TypeError(f"seeds must be a count or a sequence of integer seeds, got {seeds!r}")
    if isinstance(seeds, (int, np.integer)):
        seeds = list(range(_checks.integer("seeds", seeds)))
    try:
        seeds = list(seeds)
    except TypeError as exc:
        raise TypeError(f"seeds must be a count or a sequence of integer seeds, got {seeds!r}") from exc
    if not seeds:
        raise ValueError("seeds must contain at least one seed")
    for s in seeds:
        _checks.integer("seeds", s, minimum=0)
    rows = []
    for i, s in enumerate(seeds):
        rows.append({k: np.asarray(v, dtype=float) for k, v in fn(s).items()})
        if progress:
            print(f"\rseed {i + 1}/{len(seeds)}", end="", flush=True)
    if progress:
        print()
    values = {k: np.stack([r[k] for r in rows]) for k in rows[0]}
    mean = {k: v.mean(axis=0) for k, v in values.items()}
    std = {k: (v.std(axis=0, ddof=1) if len(rows) > 1 else np.zeros_like(mean[k])) for k, v in values.items()}
    return Summary(mean=mean, std=std, n=len(rows), values=values)


def _labelled(table, N, w, R, rng):
    xi = sample_signs(N, R, seed=rng)
    C = pool(table, sample_tokens(xi, table.V, seed=rng), w)
    return C.T, xi[:, 0]


def ridge_accuracy(
    table: VocabularyTable, N: int, w: ArrayLike, R: ArrayLike, *, ridge: float = 1.0, n_test: int = 2000, seed=None
) -> float:
    """Test accuracy of ridge regression predicting the label ``y = xi_1`` from ``c_n``.

    Fits ``b = (C^T C / N + ridge I)^{-1} C^T y / N`` on ``N`` centered training sequences
    and classifies ``n_test`` fresh ones by ``sign(b^T c)``. For the prefix model ``xi_1``
    is the sign shared by the first ``L`` positions.  The argument ``ridge`` is the
    penalty written ``zeta`` in the book (``lambda`` is reserved for eigenvalues).

    The training and the test sequences are drawn from ``seed`` in that order, before
    pooling; the draws do not depend on ``w``, so two calls with the same table and
    the same integer ``seed`` but different ``w`` see the same sequences and labels.
    """
    table = _checks.table(table)
    N = _checks.integer("N", N)
    n_test = _checks.integer("n_test", n_test)
    ridge = _checks.positive("ridge", ridge)
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    rng = _checks.seed(seed)
    X, y = _labelled(table, N, w, R, rng)
    Xt, yt = _labelled(table, n_test, w, R, rng)
    m = X.mean(axis=0)
    X, Xt = X - m, Xt - m
    d = X.shape[1]
    if N < d:  # dual form: same solution, cheaper
        b = X.T @ np.linalg.solve(X @ X.T / N + ridge * np.eye(N), y / N)
    else:
        b = np.linalg.solve(X.T @ X / N + ridge * np.eye(d), X.T @ y / N)
    pred = np.sign(Xt @ b)
    return float(np.mean(pred == yt))


def classification_curve(
    d: int,
    V: int,
    Ns: Sequence[int],
    weights: Mapping[str, ArrayLike],
    R: ArrayLike,
    beta: float,
    *,
    ridge: float = 1.0,
    n_test: int = 2000,
    seeds: Sequence[int] | int = 5,
    progress: bool = False,
) -> dict:
    """Ridge accuracy against ``N`` for several weightings, mean and spread over seeds.

    Paired design: for a given seed and sample size ``N``, every weighting sees the
    same table, the same ``N`` training sequences (signs and tokens) and the same
    ``n_test`` test sequences; only the pooling weights differ.  Sign and token
    draws do not depend on ``w``, so :func:`ridge_accuracy` is called with one
    sequence seed per ``(seed, N)``, drawn from the seed's generator after the table.
    Different ``N`` use independent sequences.  Differences between weightings are
    therefore paired, and their spread over seeds (``values``) is much smaller than
    that of each accuracy.

    Parameters
    ----------
    d, V : int
        Dimension and vocabulary size (even) of the table drawn for each seed.
    Ns : sequence of int
        Numbers of training sequences.
    weights : mapping of str to array_like
        Named pooling weights, each of length ``T``.
    R : array_like, shape (T, T)
        Positional sign correlation.
    beta : float
        ``||mu||^2``.
    ridge : float
        Ridge penalty (written zeta in the book), see :func:`ridge_accuracy`.
    n_test : int
        Number of fresh test sequences.
    seeds : int or sequence of int
        Seeds (a count ``n`` means ``0..n-1``).

    Returns
    -------
    dict
        ``{"N": array, name: dict(mean=array, std=array, n=int, values=array), ...}``;
        ``values`` has shape ``(n_seeds, len(Ns))`` (one row per seed, rows paired
        across weightings).
    """
    Ns = [_checks.integer("Ns", n) for n in Ns]
    if not Ns:
        raise ValueError("Ns must contain at least one sample size")
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping from names to weight vectors, got {type(weights).__name__}")
    if not weights:
        raise ValueError("weights must map at least one name to a weight vector")

    def one(seed):
        rng = np.random.default_rng(seed)
        table = make_table(d, V, beta, seed=rng)
        # one sequence seed per N, shared by every weighting: a paired comparison
        seq_seeds = rng.integers(0, 2**63 - 1, size=len(Ns))
        return {
            name: [
                ridge_accuracy(table, n, w, R, ridge=ridge, n_test=n_test, seed=int(s)) for n, s in zip(Ns, seq_seeds)
            ]
            for name, w in weights.items()
        }

    summ = repeat(one, seeds, progress=progress)
    out = {"N": np.array(Ns)}
    for name in weights:
        out[name] = {"mean": summ.mean[name], "std": summ.std[name], "n": summ.n, "values": summ.values[name]}
    return out
