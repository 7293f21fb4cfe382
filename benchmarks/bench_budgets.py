"""Speed budgets that were once assertions of the test command, measured here instead.

Usage::

    python benchmarks/bench_budgets.py [--repeat 3] [--json]

* **fixed-T bulk law**: CPU time of a first ``sr.fixed_T_bulk_law(1.3, 1.1, sr.mean_weights(3))``
  (no disk cache, a new seed each repeat so that no in-memory cache answers), best of the repeats;
  bar 5 s of CPU.
* **figure readability check**: the share of ``seqrmt.plots.render_png`` spent in the check of the
  figure (the ``seconds`` it records, over the whole call), median of the repeats; bar 0.5.

CPU time and a ratio within one call, so a busy machine moves them little; the load average is
printed beside them.  ``benchmarks/run_all.py`` runs this script and adds its rows to the summary.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

BARS = {"fixed_T_bulk_cpu_s": 5.0, "figure_check_share": 0.5}


def fixed_T_bulk_cpu(repeat: int) -> float:
    import seqrmt as sr

    w = sr.mean_weights(3)
    times = []
    for seed in range(repeat):
        t0 = time.process_time()
        sr.fixed_T_bulk_law(1.3, 1.1, w, seed=100 + seed)
        times.append(time.process_time() - t0)
    return min(times)


def figure_check_share(repeat: int) -> float:
    os.environ["SEQRMT_FIGURE_CHECK"] = "1"  # as in the build and the tests (a reader's session: off)
    import seqrmt.plots as srp

    shares = []
    for _ in range(repeat):
        fig = srp.bulk_density_figure(2.0, 0.5)
        srp.readable_fonts(fig)
        srp.clear_figure_reports()
        t0 = time.perf_counter()
        srp.render_png(fig)
        total = time.perf_counter() - t0
        (rec,) = srp.figure_reports()
        srp.clear_figure_reports()
        shares.append(rec["seconds"] / total)
    return statistics.median(shares)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ["SEQRMT_CACHE_DIR"] = ""  # measure the computation, not a stored result
    out = {
        "fixed_T_bulk_cpu_s": fixed_T_bulk_cpu(args.repeat),
        "figure_check_share": figure_check_share(max(args.repeat, 5)),
        "bars": BARS,
        "load_average": os.getloadavg()[0],
    }
    out["pass"] = {k: out[k] <= bar for k, bar in BARS.items()}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"load average {out['load_average']:.2f}")
        print(
            f"fixed_T_bulk_law construction: {out['fixed_T_bulk_cpu_s']:.2f} s CPU (bar {BARS['fixed_T_bulk_cpu_s']} s)"
        )
        print(f"figure check share of render_png: {out['figure_check_share']:.2f} (bar {BARS['figure_check_share']})")
    return 0 if all(out["pass"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
