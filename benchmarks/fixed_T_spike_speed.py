"""Speed of the fixed-T spike prediction, and how close it is to the large-T formula.

``seqrmt.fixed_T_predict`` builds a model (token draws, grouped measures, the equation on a grid)
once per ``(delta, gamma, w, R)``; a prediction is then a root finding.  For ``T = 1, 2, 4, 8, 16,
32, 64`` (Markov ``rho = 0.8``, mean weights, ``delta = gamma = 0.5``, ``beta = 1``) this measures the
first call (wall-clock and CPU seconds, in a fresh cache), a 40-point ``beta`` curve after it, and
one call of the large-T ``seqrmt.predict`` (mean of 200), and their ratios.  With ``--limit`` it
also prints, for ``T = 16, 32, 64``, Markov ``rho`` in ``{0.5, 0.8, -0.4}`` and the prefix model
``L = T/4`` and the mean, causal and optimal weights (36 cases, ``beta = 2.5 beta_c``, or ``1`` where
``beta_c = 0``), the fixed-T and large-T location and alignment, with the model's own error
estimates.

Usage::

    python benchmarks/fixed_T_spike_speed.py            # timings, about a minute
    python benchmarks/fixed_T_spike_speed.py --limit    # and the 36 limit cases, a few minutes
    python benchmarks/fixed_T_spike_speed.py --out benchmarks/results/fixed_T_spike_speed.txt
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["SEQRMT_CACHE_DIR"] = ""  # first calls are timed: no disk cache (seqrmt/_cache.py)

import numpy as np  # noqa: E402

import seqrmt as sr  # noqa: E402
from seqrmt import fixed_T_spike as sp  # noqa: E402


def timings(lines: list[str]) -> None:
    lines.append(
        f"{'T':>3s} {'first call':>11s} {'(CPU)':>7s} {'40-beta curve':>14s} {'predict':>9s} "
        f"{'first / predict':>16s} {'curve / predict':>16s}"
    )
    for T in (1, 2, 4, 8, 16, 32, 64):
        w, R = sr.mean_weights(T), sr.markov_correlation(T, 0.8)
        t0 = time.perf_counter()
        for _ in range(200):
            sr.predict(0.5, 0.5, w, R, 1.0)
        t_pred = (time.perf_counter() - t0) / 200
        sp._SPIKE_CACHE.clear()
        c0, t0 = time.process_time(), time.perf_counter()
        sr.fixed_T_predict(0.5, 0.5, w, R, 1.0)
        t_first, c_first = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        sr.fixed_T_spike_model(0.5, 0.5, w, R).curve(np.linspace(0.2, 3.0, 40))
        t_curve = time.perf_counter() - t0
        lines.append(
            f"{T:3d} {t_first:10.2f}s {c_first:6.2f}s {t_curve:13.3f}s {1e3 * t_pred:7.2f}ms "
            f"{t_first / t_pred:16.0f} {t_curve / t_pred:16.0f}"
        )
        print(lines[-1], flush=True)


def limit(lines: list[str]) -> None:
    lines.append("")
    lines.append(
        f"{'T':>3s} {'R':>10s} {'w':>8s} {'beta':>7s} {'x fixed':>9s} {'x large':>9s} {'rel':>7s} "
        f"{'ov fixed':>9s} {'ov large':>9s} {'diff':>7s} {'w_*':>6s} {'bias w_*':>9s} {'disc. err':>9s}"
    )
    for T in (16, 32, 64):
        for rn in ("0.5", "0.8", "-0.4", "prefix"):
            R = sr.prefix_correlation(T, T // 4) if rn == "prefix" else sr.markov_correlation(T, float(rn))
            for wn in ("mean", "causal", "optimal"):
                w = {"mean": sr.mean_weights(T), "causal": sr.causal_weights(T)}.get(wn)
                if w is None:
                    w = sr.optimal_weights(R, normalize="unit" if np.any(R < 0) else "sum")
                bc = sr.critical_beta(0.5, 0.5, w, R)
                beta = 2.5 * bc if bc > 0 else 1.0
                pf, pl = sr.fixed_T_predict(0.5, 0.5, w, R, beta), sr.predict(0.5, 0.5, w, R, beta)
                m = sr.fixed_T_spike_model(0.5, 0.5, w, R)
                ws = f"{m.s_outlier[1]:6.3f}" if m.s_outlier else f"{'-':>6s}"
                wb = f"{m.outlier_bias[1]:+9.4f}" if m.outlier_bias else f"{'-':>9s}"
                lines.append(
                    f"{T:3d} {rn:>10s} {wn:>8s} {beta:7.3f} {pf.sample_outlier:9.4f} {pl.sample_outlier:9.4f} "
                    f"{pf.sample_outlier / pl.sample_outlier - 1:+7.4f} {pf.overlap:9.4f} {pl.overlap:9.4f} "
                    f"{pf.overlap - pl.overlap:+7.4f} {ws} {wb} {pf.location_error:9.1e}"
                )
                print(lines[-1], flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    lines = [f"# seqrmt {sr.__version__}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start"]
    timings(lines)
    if args.limit:
        limit(lines)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
