"""Rerun the validation atlas of the chapter "How exact is the theory?".

Produces ``atlas.csv`` (the whole grid of :data:`seqrmt.validation.ATLAS_GRID`, theory
against simulation at dimension ``d``, with the verdicts of :func:`seqrmt.validation.judge`)
and ``finite_size.csv`` (finite-size scaling at ``d = 200, 400, 800, 1600`` for a few
settings; the bulk Kolmogorov distance to Theorem 1 and to the fixed-``T`` law as a
function of the sequence length ``T``; the spike formulas at ``T = 1, 2, 4, 16``).  The files carry ``# key: value`` header lines
recording ``d``, the seeds, the package version, the command and the run time.

Usage::

    python benchmarks/atlas.py                 # full sweep, writes seqrmt/data/*.csv
    python benchmarks/atlas.py --quick         # small check (d = 300, 2 seeds), ~1 min
    python benchmarks/atlas.py --d 800 --seeds 4 --jobs 2 --out /tmp/atlas
    python benchmarks/atlas.py --update bulk_T spikes_T   # recompute these studies of
                                                          # finite_size.csv, keep the rest

The work is split over ``--jobs`` processes, each with single-threaded BLAS (faster
than threaded BLAS on a small shared machine).  The full sweep takes a few minutes on
2 cores.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from multiprocessing import get_context  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import seqrmt  # noqa: E402
import seqrmt.validation as sv  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _atlas_block(args):
    d, seeds, delta, gamma, R = args
    t = time.time()
    rows = sv.atlas(d, seeds, grid=dict(delta=[delta], gamma=[gamma], R=[R]))
    return (delta, gamma, R), rows, time.time() - t


def _scaling_task(args):
    name, d, nseeds = args
    t = time.time()
    rows = sv.finite_size([d], {d: nseeds}, settings={name: sv.FINITE_SIZE_SETTINGS[name]})
    return (name, d), rows, time.time() - t


def _spikes_task(args):
    d, T, seeds = args
    t = time.time()
    rows = sv.spikes_vs_T(d, [T], seeds)
    return (d, T), rows, time.time() - t


def _bulk_task(args):
    d, T, seeds = args
    t = time.time()
    rows = sv.bulk_vs_T(d, [T], seeds)
    return (d, T), rows, time.time() - t


FS_TABLE = ("seqrmt finite-size scaling (study=scaling), bulk law vs T (study=bulk_T) and spike "
            "formulas vs T (study=spikes_T)")


def _sort(fs):
    fs.sort(key=lambda r: (r["study"], r["setting"] if r["study"] != "bulk_T" else "", r["T"], r["d"]))


def _run(jobs, tasks):
    out = {}
    t0 = time.time()
    with get_context("spawn").Pool(jobs) as pool:
        pending = [(fn, pool.apply_async(fn, (a,))) for fn, a in tasks]
        for i, (fn, res) in enumerate(pending):
            key, rows, dt = res.get()
            out[fn.__name__, key] = rows
            print(f"[{i + 1:3d}/{len(pending)}] {fn.__name__} {key}: {dt:5.1f} s "
                  f"(elapsed {time.time() - t0:5.1f} s)", flush=True)
    return out, time.time() - t0


def _update(args, argv, scaling, bulk, spikes) -> int:
    """Recompute some studies of finite_size.csv, keep the other rows and the header."""
    path = args.out / "finite_size.csv"
    old, meta = sv.read_csv(path)
    tasks = ([(_scaling_task, a) for a in scaling] + [(_bulk_task, a) for a in bulk]
             + [(_spikes_task, a) for a in spikes])
    redo = set(args.update)
    out, runtime = _run(args.jobs, tasks)
    fs = [r for r in old if r["study"] not in redo] + [r for rows in out.values() for r in rows]
    _sort(fs)
    meta = dict(meta, table=FS_TABLE)
    if spikes:
        meta["seeds"] = meta["seeds"].split("; spikes_T")[0] + f"; spikes_T: {spikes[0][2]} (seeds 1000..)"
        meta["d"] = meta["d"].split("; spikes_T")[0] + f"; spikes_T: {spikes[0][0]}"
    meta["updated"] = (f"{', '.join(sorted(redo))} recomputed {time.strftime('%Y-%m-%d')} by python "
                       f"benchmarks/atlas.py {' '.join(argv if argv is not None else sys.argv[1:])} "
                       f"({runtime:.0f} s, {args.jobs} processes)")
    sv.to_csv(fs, path, meta=meta, digits=8)
    print(f"wrote {path}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (d = 300, 2 seeds) for a smoke test")
    ap.add_argument("--d", type=int, default=None, help="dimension of the atlas grid (default 800)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per atlas cell (default 6)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--out", type=Path, default=ROOT / "seqrmt" / "data", help="output folder")
    ap.add_argument("--update", nargs="+", choices=("scaling", "bulk_T", "spikes_T"), default=None,
                    help="recompute only these studies of finite_size.csv and keep its other rows")
    args = ap.parse_args(argv)

    d = args.d or (300 if args.quick else 800)
    seeds = args.seeds or (2 if args.quick else 6)
    if args.quick:
        ds, scaling_seeds = (100, 200, 400), {100: 4, 200: 4, 400: 3}
        bulk_ds, bulk_seeds = (300,), 2
    else:
        ds, scaling_seeds = (200, 400, 800, 1600), {200: 16, 400: 12, 800: 8, 1600: 8}
        bulk_ds, bulk_seeds = (400, 800, 1600), 3
    Ts = (1, 2, 4, 8, 16)
    spike_d, spike_Ts, spike_seeds = (300, (1, 2, 4, 16), 3) if args.quick else (800, (1, 2, 4, 16), 16)
    args.out.mkdir(parents=True, exist_ok=True)
    g = sv.ATLAS_GRID
    blocks = [(d, seeds, dl, gm, R) for dl in g["delta"] for gm in g["gamma"] for R in g["R"]]
    # most expensive first (small gamma = many sequences, small delta = large vocabulary)
    blocks.sort(key=lambda b: (b[3], b[2]))
    scaling = [(name, dd, scaling_seeds[dd]) for dd in sorted(ds, reverse=True)
               for name in sv.FINITE_SIZE_SETTINGS]
    bulk = [(dd, T, bulk_seeds) for dd in bulk_ds for T in Ts]
    spikes = [(spike_d, T, spike_seeds) for T in spike_Ts]
    if args.update:
        return _update(args, argv, scaling if "scaling" in args.update else [],
                       bulk if "bulk_T" in args.update else [], spikes if "spikes_T" in args.update else [])
    print(f"seqrmt {seqrmt.__version__}: atlas of {len(blocks)} blocks x "
          f"{len(g['weights']) * len(g['regime']) * len(g['centered'])} cells at d = {d}, {seeds} seeds; "
          f"finite size at d = {ds}; bulk vs T = {Ts}; {args.jobs} processes", flush=True)
    t0 = time.time()
    atlas_rows: dict = {}
    fs_rows: dict = {}
    bulk_rows: dict = {}
    spike_rows: dict = {}
    tasks = ([("atlas", b) for b in blocks] + [("scaling", s) for s in scaling]
             + [("bulk", b) for b in bulk] + [("spikes", b) for b in spikes])
    funcs = {"atlas": _atlas_block, "scaling": _scaling_task, "bulk": _bulk_task, "spikes": _spikes_task}
    store = {"atlas": atlas_rows, "scaling": fs_rows, "bulk": bulk_rows, "spikes": spike_rows}
    with get_context("spawn").Pool(args.jobs) as pool:
        pending = [(kind, pool.apply_async(funcs[kind], (a,))) for kind, a in tasks]
        for i, (kind, res) in enumerate(pending):
            key, rows, dt = res.get()
            store[kind][key] = rows
            extra = ""
            if kind == "atlas":
                bad = sum(r["status"] == "disagree" for r in rows)
                expl = sum(r["status"] == "explained" for r in rows)
                extra = f", {len(rows)} rows, {expl} explained, {bad} disagree"
            print(f"[{i + 1:3d}/{len(pending)}] {kind:7s} {key}: {dt:5.1f} s{extra}  "
                  f"(elapsed {time.time() - t0:5.1f} s)", flush=True)
    runtime = time.time() - t0

    rows = [r for b in blocks for r in atlas_rows[b[2:]]]
    tol = sv.Tolerance()
    meta = {
        "table": "seqrmt validation atlas: theory (exact finite-table, idealized, realized-table) "
                 "against simulation",
        "seqrmt_version": seqrmt.__version__,
        "numpy_version": np.__version__,
        "d": d,
        "seeds": f"0..{seeds - 1} ({seeds} per cell)",
        "T": 16,
        "tolerance": f"|pred - mean| <= max(t sem, abs), t = Student quantile at {tol.level:g} "
                     f"({tol.quantile(seeds):.2f} for {seeds} seeds), abs = {tol.eig_rtol:g} |pred| "
                     f"(eigenvalues), {tol.overlap_atol:g} (overlaps), {tol.ks_atol:g} (Kolmogorov)",
        "verdicts": ("seqrmt.validation.judge: agree (limit and finite-size corrected predictions within tol) / "
                     "explained (finite-size correction, transition window, unresolved pair, fixed-T bulk) / "
                     "disagree"),
        "command": "python benchmarks/atlas.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "runtime_seconds_whole_sweep": f"{runtime:.0f} ({args.jobs} processes)",
        "date": time.strftime("%Y-%m-%d"),
    }
    sv.to_csv(rows, args.out / "atlas.csv", meta=meta, digits=8)
    fs = ([r for s in scaling for r in fs_rows[s[:2]]] + [r for b in bulk for r in bulk_rows[b[:2]]]
          + [r for b in spikes for r in spike_rows[b[:2]]])
    _sort(fs)
    meta_fs = dict(meta, table=FS_TABLE, d=f"scaling: {ds}; bulk_T: {bulk_ds}; spikes_T: {spike_d}",
                   seeds=f"scaling: {scaling_seeds} (seeds 1000..); bulk_T: {bulk_seeds} (seeds 2000..); "
                         f"spikes_T: {spike_seeds} (seeds 1000..)")
    sv.to_csv(fs, args.out / "finite_size.csv", meta=meta_fs, digits=8)

    cells = {r["cell"] for r in rows}
    expl = [r for r in rows if r["status"] == "explained"]
    bad = sv.disagreements(rows)
    print(f"\natlas: {len(cells)} cells, {len(rows)} rows: {len(rows) - len(expl) - len(bad)} agree, "
          f"{len(expl)} explained, {len(bad)} disagree")
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
