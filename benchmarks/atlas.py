"""Rerun the validation atlas of the chapter "How exact is the theory?".

Produces ``atlas.csv`` (the whole grid of :data:`seqrmt.validation.ATLAS_GRID`, theory
against simulation at dimension ``d``, with the verdicts of :func:`seqrmt.validation.judge`)
and ``finite_size.csv`` (finite-size scaling at ``d = 200, 400, 800, 1600`` for a few
settings; the bulk Kolmogorov distance to Theorem 1 and to the fixed-``T`` law as a
function of the sequence length ``T``; the spike formulas at ``T = 1, 2, 4, 16``).  The
files carry ``# key: value`` header lines recording ``d``, the seeds, the package
version, the command and the run time.

Usage::

    python benchmarks/atlas.py                 # full sweep, writes seqrmt/data/*.csv
    python benchmarks/atlas.py --quick         # small check (d = 300, 2 seeds), ~1 min
    python benchmarks/atlas.py --d 800 --seeds 4 --jobs 2 --out /tmp/atlas
    python benchmarks/atlas.py --update bulk_T spikes_T   # recompute these studies of
                                                          # finite_size.csv, keep the rest
    python benchmarks/atlas.py --update atlas             # recompute atlas.csv only
    python benchmarks/atlas.py --large         # finite_size_large.csv: three settings to d = 3200
    python benchmarks/atlas.py --cost          # cost.csv: time and peak memory of one cell
                                               # against d (fresh process per cell)
    python benchmarks/atlas.py --ratio         # in-process against 2 processes on a small grid
    python benchmarks/atlas.py --executor dask --jobs 2                # a local Dask cluster
    python benchmarks/atlas.py --executor dask --scheduler tcp://host:8786   # an existing one

The simulations run on a :mod:`concurrent.futures` executor passed to
``seqrmt.validation.atlas(..., executor=...)`` (and ``finite_size``, ``bulk_vs_T``,
``spikes_vs_T``): ``--executor process`` (default) is a ``ProcessPoolExecutor`` with
``--jobs`` workers, ``--executor dask`` the executor of a ``dask.distributed`` client
(``pip install seqrmt[cluster]``), ``--executor serial`` runs in this process.  The
unit of work is one simulation (one seed of one setting), with single-threaded BLAS,
and the rows do not depend on the executor.  A ``tqdm`` progress bar shows the
simulations done, the elapsed time and the time left.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from multiprocessing import get_context  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import seqrmt  # noqa: E402
import seqrmt.validation as sv  # noqa: E402
from seqrmt.validation.grid import _atlas_unit, _grid  # noqa: E402
from seqrmt.validation.measure import _POOL_CHUNK  # noqa: E402
from seqrmt.validation.scaling import _finite_size_beta, _scaling_unit  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

FS_TABLE = (
    "seqrmt finite-size scaling (study=scaling), bulk law vs T (study=bulk_T) and spike formulas vs T (study=spikes_T)"
)

#: Settings of the large finite-size table (finite_size_large.csv), and its seeds per d.
LARGE_SETTINGS = ("prefix/mean, far above", "prefix/mean, just above", "markov/optimal, uncentered")
LARGE_SEEDS = {200: 16, 400: 12, 800: 8, 1600: 8, 3200: 4}

#: The cell timed by --cost (one seed of this finite-size setting, in a fresh process).
COST_SETTING = "prefix/mean, far above"


@contextlib.contextmanager
def make_executor(kind: str, jobs: int, scheduler: str | None = None):
    """A concurrent.futures executor: 'serial' (None), 'process' or 'dask'."""
    if kind == "serial":
        yield None
    elif kind == "process":
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as ex:
            yield ex
    elif kind == "dask":
        from dask.distributed import Client, LocalCluster

        if scheduler:
            with Client(scheduler) as client:
                yield client.get_executor()
        else:
            with (
                LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
                Client(cluster) as client,
            ):
                yield client.get_executor()
    else:
        raise ValueError(f"executor must be 'serial', 'process' or 'dask', got {kind!r}")


def _sort(fs):
    fs.sort(key=lambda r: (r["study"], r["setting"] if r["study"] != "bulk_T" else "", r["T"], r["d"]))


def _command(argv) -> str:
    return "python benchmarks/atlas.py " + " ".join(argv if argv is not None else sys.argv[1:])


def _studies(ex, args, scaling_ds, scaling_seeds, bulk_ds, bulk_seeds, spikes, which):
    """The rows of finite_size.csv for the studies in ``which``."""
    out = []
    if "scaling" in which:
        out += sv.finite_size(scaling_ds, scaling_seeds, executor=ex, progress=True)
    if "bulk_T" in which:
        for dd in bulk_ds:
            out += sv.bulk_vs_T(dd, (1, 2, 4, 8, 16), bulk_seeds, executor=ex, progress=True)
    if "spikes_T" in which:
        spike_d, spike_Ts, spike_seeds = spikes
        out += sv.spikes_vs_T(spike_d, spike_Ts, spike_seeds, executor=ex, progress=True)
    return out


# --------------------------------------------------------------------------- cost and memory
def _cell_child(d: int, seed: int) -> None:
    """Run one cell of COST_SETTING in this (fresh) process; print time and peak memory as JSON."""
    dl, gm, R, w, c, rule = sv.FINITE_SIZE_SETTINGS[COST_SETTING]
    beta = _finite_size_beta(d, dl, gm, R, 16, w, rule)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    cpu = time.process_time()
    res = _scaling_unit(d, dl, gm, R, 16, w, beta, c, seed)
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    V, N = seqrmt.sizes(d, dl, gm)
    print(
        json.dumps(
            dict(
                kind="cell",
                d=d,
                V=V,
                N=N,
                seed=seed,
                seconds=cpu,
                wall_seconds=res["seconds"],
                baseline_mib=base / 1024,
                peak_mib=peak / 1024,
                matrices_mib=(V * d + d * d + _POOL_CHUNK * d) * 8 / 2**20,
            )
        )
    )


def cost(args, argv) -> int:
    """cost.csv: one cell (setting COST_SETTING) timed at each d, each in a fresh process
    (peak resident memory from getrusage; ``matrices_mib`` is what the cell must hold at
    once: the table noise Z^T, the d x d matrix S and one block of pooled vectors), and one
    seed of the whole atlas grid at d = 800 run here (the unit from which the time of the
    full atlas is extrapolated, see seqrmt.validation.atlas_hours)."""
    rows = []
    t0 = time.time()
    for d in args.cost_ds:
        for r in range(args.repeat if d <= 3200 else 1):
            proc = subprocess.run(
                [sys.executable, __file__, "--cell", str(d), str(1000 + r)], capture_output=True, text=True, check=True
            )
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(
                f"cell d={d:5d} seed={row['seed']}: {row['seconds']:8.2f} s CPU ({row['wall_seconds']:.2f} s wall), "
                f"peak {row['peak_mib']:7.0f} MiB "
                f"(baseline {row['baseline_mib']:.0f} MiB; Z^T + S + one block = {row['matrices_mib']:.0f} MiB)",
                flush=True,
            )
    with sv.blas_threads(1):
        for r in range(max(1, args.repeat // 2)):
            t, cpu = time.perf_counter(), time.process_time()
            sv.atlas(800, [r])
            dt, cpu = time.perf_counter() - t, time.process_time() - cpu
            rows.append(dict(kind="atlas_seed", d=800, seed=r, seconds=cpu, wall_seconds=dt))
            print(
                f"one seed of the whole atlas grid (324 cells) at d = 800: {cpu:.1f} s CPU ({dt:.1f} s wall)",
                flush=True,
            )
    fit = sv.cost_exponent(rows)
    print(
        f"cost exponent (least squares on log-log, fastest run at d = {sorted(fit['seconds'])}): "
        f"{fit['exponent']:.2f} (largest relative residual {fit['residual']:.2f})"
    )
    meta = {
        "table": "seqrmt cost of one simulation (kind=cell: one seed of the finite-size setting "
        f"'{COST_SETTING}', fresh process, single-threaded BLAS; peak_mib = ru_maxrss) and of one "
        "seed of the whole atlas grid at d = 800 (kind=atlas_seed, in-process); seconds = CPU time "
        "of the process (time.process_time, insensitive to other jobs on a shared machine), "
        "wall_seconds = elapsed time",
        "seqrmt_version": seqrmt.__version__,
        "numpy_version": np.__version__,
        "command": _command(argv),
        "load_average": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "cpu_count": os.cpu_count(),
        "runtime_seconds": f"{time.time() - t0:.0f}",
        "date": time.strftime("%Y-%m-%d"),
    }
    sv.to_csv(rows, args.out / "cost.csv", meta=meta, digits=6)
    print(f"wrote {args.out / 'cost.csv'}")
    return 0


# --------------------------------------------------------------------------- executor ratio
def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ratio(args, argv) -> int:
    """Time a small atlas grid in-process and on a 2-process executor; check the rows are equal.

    Besides the elapsed times (the bar), the CPU time of this process and of each worker is
    recorded: ``parent + busiest worker`` over the in-process CPU time is the ratio the run
    would show on two idle cores, whatever other jobs do to the elapsed times."""
    grid = dict(delta=[0.5, 1.5], gamma=[0.25], R=["prefix", "markov"])
    d, seeds = 400, 4
    times = {"serial": [], "process": []}
    cpu_ratio = []
    rows = {}
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as ex:
        ex.submit(int, 0).result()  # start the workers before timing
        list(
            ex.map(
                _atlas_unit,
                *zip(*[(100, 0.5, 0.25, "prefix", 16, ("mean",), {"mean": [0.0]}, (True,), s) for s in range(2)]),
            )
        )  # warm imports
        pids = list(ex._processes)
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            rows["serial"] = sv.atlas(d, seeds, grid=grid)
            times["serial"].append(time.perf_counter() - t)
            serial_cpu = time.process_time() - c
            w0 = [_cpu_seconds(p) for p in pids]
            t, c = time.perf_counter(), time.process_time()
            rows["process"] = sv.atlas(d, seeds, grid=grid, executor=ex)
            times["process"].append(time.perf_counter() - t)
            parent_cpu = time.process_time() - c
            busiest = max(_cpu_seconds(p) - a for p, a in zip(pids, w0))
            cpu_ratio.append((parent_cpu + busiest) / serial_cpu)
            print(
                f"in-process {times['serial'][-1]:6.2f} s ({serial_cpu:.2f} s CPU); 2 processes "
                f"{times['process'][-1]:6.2f} s (this process {parent_cpu:.2f} s CPU, busiest worker "
                f"{busiest:.2f} s CPU)",
                flush=True,
            )
    same = sv.to_csv(rows["serial"]) == sv.to_csv(rows["process"])  # exact (repr) floats
    rs = [p / s for p, s in zip(times["process"], times["serial"])]
    print(
        f"grid {grid}, d = {d}, {seeds} seeds ({len({r['cell'] for r in rows['serial']})} cells, "
        f"{4 * seeds} simulations); load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"elapsed: in-process median {np.median(times['serial']):.2f} s, 2 processes median "
        f"{np.median(times['process']):.2f} s; ratio 2-process / in-process: median {np.median(rs):.3f}, "
        f"range {min(rs):.3f} - {max(rs):.3f} over {len(rs)} pairs"
    )
    print(
        f"CPU critical path (this process + busiest worker) / in-process CPU: median {np.median(cpu_ratio):.3f}, "
        f"range {min(cpu_ratio):.3f} - {max(cpu_ratio):.3f}; rows identical: {same}"
    )
    return 0 if same and np.median(rs) <= 0.7 else 1


# --------------------------------------------------------------------------- large table
def large(args, argv) -> int:
    settings = {k: sv.FINITE_SIZE_SETTINGS[k] for k in LARGE_SETTINGS}
    ds = sorted(LARGE_SEEDS)
    t0 = time.time()
    with make_executor(args.executor, args.jobs, args.scheduler) as ex:
        rows = sv.finite_size(ds, LARGE_SEEDS, settings=settings, executor=ex, progress=True)
    runtime = time.time() - t0
    meta = {
        "table": "seqrmt finite-size scaling to d = 3200 (study=scaling), executor path",
        "seqrmt_version": seqrmt.__version__,
        "numpy_version": np.__version__,
        "d": str(tuple(ds)),
        "seeds": f"{LARGE_SEEDS} (seeds 1000..)",
        "T": 16,
        "settings": "; ".join(LARGE_SETTINGS),
        "command": _command(argv),
        "runtime_seconds_whole_sweep": f"{runtime:.0f} ({args.executor}, {args.jobs} workers)",
        "date": time.strftime("%Y-%m-%d"),
    }
    sv.to_csv(rows, args.out / "finite_size_large.csv", meta=meta, digits=8)
    for (name, q), s in sorted(sv.scaling_rates(rows).items()):
        print(f"  {name:32s} {q:15s} {s:+.2f}")
    print(f"wrote {args.out / 'finite_size_large.csv'} in {runtime:.0f} s")
    return 0


# --------------------------------------------------------------------------- main sweep
def _atlas_meta(d: int, seeds: int, argv, runtime: str) -> dict:
    """The header of atlas.csv."""
    tol = sv.Tolerance()
    return {
        "table": "seqrmt validation atlas: theory (exact finite-table, idealized, realized-table) against simulation",
        "seqrmt_version": seqrmt.__version__,
        "numpy_version": np.__version__,
        "d": d,
        "seeds": f"0..{seeds - 1} ({seeds} per cell)",
        "T": 16,
        "tolerance": f"|pred - mean| <= max(t sem, abs), t = Student quantile at {tol.level:g} "
        f"({tol.quantile(seeds):.2f} for {seeds} seeds), abs = {tol.eig_rtol:g} |pred| "
        f"(eigenvalues), {tol.overlap_atol:g} (overlaps), {tol.ks_atol:g} (Kolmogorov)",
        "verdicts": (
            "seqrmt.validation.judge: agree (limit and finite-size corrected predictions within tol) / "
            "explained (finite-size correction, transition window, unresolved pair, fixed-T bulk) / "
            "disagree"
        ),
        "command": _command(argv),
        "runtime_seconds_whole_sweep": runtime,
        "date": time.strftime("%Y-%m-%d"),
    }


def _update_atlas(args, argv, d: int, seeds: int) -> None:
    """Recompute atlas.csv alone."""
    t0 = time.time()
    with make_executor(args.executor, args.jobs, args.scheduler) as ex:
        rows = sv.atlas(d, seeds, executor=ex, progress=True)
    runtime = time.time() - t0
    meta = _atlas_meta(d, seeds, argv, f"{runtime:.0f} ({args.executor}, {args.jobs} workers; atlas only)")
    sv.to_csv(rows, args.out / "atlas.csv", meta=meta, digits=8)
    print(f"wrote {args.out / 'atlas.csv'}")


def _update(args, argv, scaling_ds, scaling_seeds, bulk_ds, bulk_seeds, spikes, d=800, seeds=6) -> int:
    """Recompute atlas.csv and/or some studies of finite_size.csv, keep the other rows and
    the header of finite_size.csv."""
    redo = set(args.update)
    if "atlas" in redo:
        _update_atlas(args, argv, d, seeds)
        redo.discard("atlas")
        if not redo:
            return 0
    path = args.out / "finite_size.csv"
    old, meta = sv.read_csv(path)
    t0 = time.time()
    with make_executor(args.executor, args.jobs, args.scheduler) as ex:
        new = _studies(ex, args, scaling_ds, scaling_seeds, bulk_ds, bulk_seeds, spikes, redo)
    runtime = time.time() - t0
    fs = [r for r in old if r["study"] not in redo] + new
    _sort(fs)
    meta = dict(meta, table=FS_TABLE)
    if "spikes_T" in redo:
        meta["seeds"] = meta["seeds"].split("; spikes_T")[0] + f"; spikes_T: {spikes[2]} (seeds 1000..)"
        meta["d"] = meta["d"].split("; spikes_T")[0] + f"; spikes_T: {spikes[0]}"
    meta["updated"] = (
        f"{', '.join(sorted(redo))} recomputed {time.strftime('%Y-%m-%d')} by "
        f"{_command(argv)} ({runtime:.0f} s, {args.executor}, {args.jobs} workers)"
    )
    sv.to_csv(fs, path, meta=meta, digits=8)
    print(f"wrote {path}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (d = 300, 2 seeds) for a smoke test")
    ap.add_argument("--d", type=int, default=None, help="dimension of the atlas grid (default 800)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per atlas cell (default 6)")
    ap.add_argument(
        "--executor",
        choices=("process", "dask", "serial"),
        default="process",
        help="where the simulations run (default: a process pool)",
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--scheduler", default=None, help="address of a running dask scheduler (--executor dask)")
    ap.add_argument("--out", type=Path, default=ROOT / "seqrmt" / "data", help="output folder")
    ap.add_argument(
        "--update",
        nargs="+",
        choices=("atlas", "scaling", "bulk_T", "spikes_T"),
        default=None,
        help="recompute only atlas.csv and/or these studies of finite_size.csv (its other rows are kept)",
    )
    ap.add_argument("--large", action="store_true", help="write finite_size_large.csv (d up to 3200)")
    ap.add_argument("--cost", action="store_true", help="write cost.csv (time and memory of one cell vs d)")
    ap.add_argument(
        "--cost-ds", type=int, nargs="+", default=[400, 800, 1600, 3200, 6400], help="dimensions timed by --cost"
    )
    ap.add_argument("--ratio", action="store_true", help="in-process against 2 processes on a small grid")
    ap.add_argument("--repeat", type=int, default=3, help="repeats for --cost and --ratio (default 3)")
    ap.add_argument("--cell", type=int, nargs=2, default=None, metavar=("D", "SEED"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.cell:
        _cell_child(*args.cell)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.cost:
        return cost(args, argv)
    if args.ratio:
        return ratio(args, argv)
    if args.large:
        return large(args, argv)

    d = args.d or (300 if args.quick else 800)
    seeds = args.seeds or (2 if args.quick else 6)
    if args.quick:
        ds, scaling_seeds = (100, 200, 400), {100: 4, 200: 4, 400: 3}
        bulk_ds, bulk_seeds = (300,), 2
    else:
        ds, scaling_seeds = (200, 400, 800, 1600), {200: 16, 400: 12, 800: 8, 1600: 8}
        bulk_ds, bulk_seeds = (400, 800, 1600), 3
    spikes = (300, (1, 2, 4, 16), 3) if args.quick else (800, (1, 2, 4, 16), 16)
    if args.update:
        return _update(args, argv, ds, scaling_seeds, bulk_ds, bulk_seeds, spikes, d, seeds)
    print(
        f"seqrmt {seqrmt.__version__}: atlas of {len(_grid(None)['delta']) * 6} blocks x 18 cells at "
        f"d = {d}, {seeds} seeds; finite size at d = {ds}; bulk vs T; spikes vs T; "
        f"{args.executor} executor, {args.jobs} workers",
        flush=True,
    )
    t0 = time.time()
    with make_executor(args.executor, args.jobs, args.scheduler) as ex:
        rows = sv.atlas(d, seeds, executor=ex, progress=True)
        t_atlas = time.time() - t0
        fs = _studies(ex, args, ds, scaling_seeds, bulk_ds, bulk_seeds, spikes, ("scaling", "bulk_T", "spikes_T"))
    runtime = time.time() - t0

    meta = _atlas_meta(d, seeds, argv, f"{runtime:.0f} ({args.executor}, {args.jobs} workers; atlas {t_atlas:.0f})")
    sv.to_csv(rows, args.out / "atlas.csv", meta=meta, digits=8)
    _sort(fs)
    meta_fs = dict(
        meta,
        table=FS_TABLE,
        d=f"scaling: {ds}; bulk_T: {bulk_ds}; spikes_T: {spikes[0]}",
        seeds=f"scaling: {scaling_seeds} (seeds 1000..); bulk_T: {bulk_seeds} (seeds 2000..); "
        f"spikes_T: {spikes[2]} (seeds 1000..)",
    )
    sv.to_csv(fs, args.out / "finite_size.csv", meta=meta_fs, digits=8)

    cells = {r["cell"] for r in rows}
    expl = [r for r in rows if r["status"] == "explained"]
    bad = sv.disagreements(rows)
    print(
        f"\natlas: {len(cells)} cells, {len(rows)} rows: {len(rows) - len(expl) - len(bad)} agree, "
        f"{len(expl)} explained, {len(bad)} disagree"
    )
    for r in expl + bad:
        print(f"  {r['status']} ({r['reason']}) {r['cell']} {r['quantity']}: {r['note']}")
    print("\nfinite-size log-log slopes of the RMSE over seeds:")
    for (name, q), slope in sorted(sv.scaling_rates(fs).items()):
        print(f"  {name:32s} {q:15s} {slope:+.2f}")
    print("\nbulk Kolmogorov distance vs T:")
    for r in fs:
        if r["study"] == "bulk_T":
            print(f"  d={r['d']:5d} T={r['T']:3d}: {r['empirical']:.4f} +- {r['sem']:.4f}")
    print(f"\nwrote {args.out / 'atlas.csv'} and {args.out / 'finite_size.csv'} in {runtime:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
