"""The validation sweeps on an executor: same rows in-process, on a process pool and on a
real ``dask.distributed`` cluster; progress bar; memory of one simulation.

The unit of work of :func:`seqrmt.validation.atlas` (one seed of one block),
:func:`~seqrmt.validation.finite_size` (one seed of one setting at one ``d``) and
:func:`~seqrmt.validation.bulk_vs_T` (one seed at one ``T``) runs with single-threaded
BLAS and the results are reassembled in seed order, so the rows must be equal to the
last bit whatever the executor: they are compared through their exact CSV text
(``repr`` of every float).  No timing is asserted here (the speed-up of 2 processes is
measured by ``python benchmarks/atlas.py --ratio``).
"""

from __future__ import annotations

import math
import tracemalloc
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pytest

import seqrmt as sr
import seqrmt.validation as sv
from seqrmt.validation.executors import _run_units
from seqrmt.validation.measure import _spectra, _table_noise_T

GRID = dict(delta=[0.5], gamma=[0.25, 1.5], R=["prefix"], weights=["mean", "optimal"], regime=["mid", "high"])
FS_SETTINGS = {k: sv.FINITE_SIZE_SETTINGS[k] for k in ("prefix/mean, far above", "markov/optimal, uncentered")}


def _exact(rows) -> str:
    """Rows as CSV text with every float written exactly (``repr``): equal text = equal bits."""
    return sv.to_csv(rows)


def _sweeps(executor):
    return (
        sv.atlas(96, 3, grid=GRID, executor=executor),
        sv.finite_size([64, 96], {64: 3, 96: 2}, settings=FS_SETTINGS, executor=executor),
        sv.bulk_vs_T(96, [1, 4], 2, fixed_T=False, executor=executor),
    )


@pytest.fixture(scope="module")
def in_process():
    return _sweeps(None)


def test_in_process_is_deterministic(in_process):
    again = _sweeps(None)
    for a, b in zip(in_process, again):
        assert _exact(a) == _exact(b)


def test_process_pool_gives_identical_rows(in_process):
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as ex:
        pooled = _sweeps(ex)
    for a, b in zip(in_process, pooled):
        assert len(a) == len(b) > 0
        assert _exact(a) == _exact(b)


def test_dask_local_cluster_gives_identical_rows(in_process):
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert len(client.scheduler_info()["workers"]) == 2
        on_dask = _sweeps(client.get_executor())
    for a, b in zip(in_process, on_dask):
        assert _exact(a) == _exact(b)


def test_spikes_vs_T_passes_the_executor():
    kw = dict(ratios=(3.0,), fixed_T=False)
    here = sv.spikes_vs_T(96, [2], 2, **kw)
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as ex:
        there = sv.spikes_vs_T(96, [2], 2, executor=ex, **kw)
    assert _exact(here) == _exact(there)


def test_run_units_keeps_order_and_raises():
    tasks = [(float(x),) for x in (9, 1, 16, 4, 25)]
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as ex:
        assert _run_units(math.sqrt, tasks, ex) == [3.0, 1.0, 4.0, 2.0, 5.0]
        with pytest.raises(ValueError, match="math domain"):
            _run_units(math.sqrt, [(4.0,), (-1.0,), (1.0,)], ex)


def test_executor_argument_is_checked():
    for f in (
        lambda e: sv.atlas(64, 2, grid=GRID, executor=e),
        lambda e: sv.finite_size([64], 2, settings=FS_SETTINGS, executor=e),
        lambda e: sv.bulk_vs_T(64, [2], 2, executor=e),
    ):
        with pytest.raises(TypeError, match="executor"):
            f(object())


def test_progress_bar(capsys):
    sv.bulk_vs_T(64, [1, 2], 3, fixed_T=False, progress=True)
    err = capsys.readouterr().err
    assert "6/6" in err and "bulk vs T" in err  # units done / total, with a label
    sv.bulk_vs_T(64, [1, 2], 3, fixed_T=False)
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""  # quiet by default


# ----------------------------------------------------------------- memory of one simulation
def test_table_noise_is_make_table_transposed():
    d, V = 37, 122
    rng = np.random.default_rng(4)
    ZT = _table_noise_T(d, V, rng)
    table = sr.make_table(d, V, 0.0, seed=np.random.default_rng(4))
    assert np.array_equal(ZT, table.E.T)
    rng2 = np.random.default_rng(4)
    sr.make_table(d, V, 0.0, seed=rng2)
    assert rng.integers(1 << 30) == rng2.integers(1 << 30)  # the same draws follow


def test_chunked_pooling_matches_one_block(monkeypatch):
    R = sv.atlas_correlation("markov")
    w = sr.named_weights("optimal", R)
    d, V, N = 50, 100, 700

    def spectra():
        return [(lam, U) for *_, lam, U, _ in _spectra(d, V, N, R, {"w": w}, {"w": [0.0, 0.7]}, [True, False], 5)]

    one = spectra()
    monkeypatch.setattr(sv.measure, "_POOL_CHUNK", 64)  # 11 blocks of sequences
    many = spectra()
    for (l1, U1), (l2, U2) in zip(one, many):
        np.testing.assert_allclose(l1, l2, rtol=1e-11, atol=1e-12)
        np.testing.assert_allclose(np.abs(U1[:, :2]), np.abs(U2[:, :2]), atol=1e-8)


def test_one_simulation_holds_only_the_matrices_it_needs(monkeypatch):
    """Peak of the numpy allocations of one simulation: the table noise Z^T (V x d), the
    d x d matrix S and the copy LAPACK factorizes, one block of pooled vectors, and the
    N x T signs and tokens with the draws that make them; the d x N pooled matrix (here
    more than twice all of that together) is never formed."""
    monkeypatch.setattr(sv.measure, "_POOL_CHUNK", 256)
    d, V, N = 200, 400, 6400
    R = sv.atlas_correlation("prefix")
    w = sr.named_weights("mean", R)
    T = R.shape[0]
    needed = (V * d + 2 * d * d + 256 * d + 4 * N * T) * 8
    pooled = d * N * 8
    tracemalloc.start()
    try:
        for _ in _spectra(d, V, N, R, {"w": w}, {"w": [1.0]}, [True], 0):
            pass
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert pooled > 2 * needed
    assert peak < 1.1 * needed, f"peak {peak / 2**20:.1f} MiB, needed {needed / 2**20:.1f} MiB"
