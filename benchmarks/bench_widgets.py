"""Benchmark: one theory-only figure update, as a widget frame needs it.

A slider move (or one precomputed frame of ``seqrmt.widgets.explore``) re-evaluates the
theory and redraws a figure.  This script times, over a sweep of ``(delta, gamma)``
values (one value per update, so nothing is cached between updates):

1. ``compute``: ``sr.predict`` + ``sr.bulk_density`` on 400 points + a vectorized
   ``sr.spike_curve`` on 400 spike strengths (the formula part of an update);
2. ``figure``: building ``seqrmt.plots.bulk_density_figure`` (a theory-only figure of
   Theorem 1) without rendering;
3. ``figure + PNG``: the same figure rendered to PNG in memory (what ``explore`` stores
   per frame), together with step 1: the whole update;
4. ``spikes_vs_beta (theory) + PNG``: ``seqrmt.plots.spikes_vs_beta(seeds=())``, the
   theory curves of Theorems 2-4, rendered to PNG.

Bar: under 50 ms.  The formula part (1) must be well under it; (3) is the complete
update including matplotlib's rendering, reported against the same 50 ms.

Usage::

    python benchmarks/bench_widgets.py [--json]

Times are medians over the sweep (first call excluded as warm-up).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import seqrmt as sr  # noqa: E402

try:  # the figure module is optional for the computation part
    import seqrmt.plots as srp  # noqa: E402
except ImportError:  # pragma: no cover
    srp = None

BAR_MS = 50.0
T = 16
R = sr.prefix_correlation(T, 4)
W = sr.optimal_weights(R)
SWEEP = [(dl, gm) for dl in (0.25, 0.5, 1.0, 1.5, 2.0) for gm in (0.25, 0.5, 1.0, 1.5)]


def compute(delta, gamma):
    p = sr.predict(delta, gamma, W, R, 1.0, centered=False)
    x = np.linspace(0.0, 1.1 * max([p.bulk_edge] + p.outliers), 400)
    rho = sr.bulk_density(x, delta, gamma, p.kappa)
    c = sr.spike_curve(np.linspace(0.0, 4.0 * p.theta, 400), delta, gamma, p.kappa)
    return p, rho, c


def png(fig) -> int:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, bbox_inches="tight")
    return buf.tell()


def timed_median(fn):
    fn(*SWEEP[0])  # warm-up (font cache, imports)
    times = []
    for dl, gm in SWEEP:
        t0 = time.perf_counter()
        fn(dl, gm)
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times)), 1e3 * float(np.max(times))


def run() -> dict:
    rows = {}
    rows["compute (predict + bulk_density 400 pts + spike_curve 400)"] = timed_median(compute)
    if srp is not None and hasattr(srp, "bulk_density_figure"):
        from matplotlib.figure import Figure

        def fig_only(dl, gm):
            fig = srp.bulk_density_figure(dl, gm, sr.kappa(W))
            assert isinstance(fig, Figure)

        def full_update(dl, gm):
            compute(dl, gm)
            png(srp.bulk_density_figure(dl, gm, sr.kappa(W)))

        rows["figure: bulk_density_figure (no render)"] = timed_median(fig_only)
        rows["update: compute + bulk_density_figure + PNG"] = timed_median(full_update)
    if srp is not None and hasattr(srp, "spikes_vs_beta"):
        rows["spikes_vs_beta(seeds=()) + PNG"] = timed_median(
            lambda dl, gm: png(srp.spikes_vs_beta(delta=dl, gamma=gm, seeds=()))
        )
    compute_ms = rows["compute (predict + bulk_density 400 pts + spike_curve 400)"][0]
    update_key = "update: compute + bulk_density_figure + PNG"
    update_ms = rows[update_key][0] if update_key in rows else None
    return {
        "n_updates": len(SWEEP),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "rows_ms": {k: {"median": v[0], "max": v[1]} for k, v in rows.items()},
        "bar_ms": BAR_MS,
        "compute_ms": compute_ms,
        "compute_pass": compute_ms < BAR_MS,
        "update_ms": update_ms,
        "update_pass": None if update_ms is None else update_ms < BAR_MS,
    }


def report(res: dict) -> str:
    lines = [
        f"theory-only figure update, median (max) over {res['n_updates']} (delta, gamma) values, "
        f"load average {res['load_average']:.2f}"
    ]
    for k, v in res["rows_ms"].items():
        lines.append(f"  {k:58s} {v['median']:8.1f} ms ({v['max']:.1f})")
    lines.append(
        f"  formula part {res['compute_ms']:.1f} ms (bar < {res['bar_ms']:.0f} ms): "
        f"{'PASS' if res['compute_pass'] else 'FAIL'}"
    )
    if res["update_ms"] is not None:
        lines.append(
            f"  whole update with PNG {res['update_ms']:.1f} ms (bar < {res['bar_ms']:.0f} ms): "
            f"{'PASS' if res['update_pass'] else 'FAIL'}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    res = run()
    print(json.dumps(res) if args.json else report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
