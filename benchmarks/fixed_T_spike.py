"""Simulations of the signal eigenvalue at fixed T (chapter 3, "The spike at fixed T").

Writes ``seqrmt/data/fixed_T_spike.csv``: for mean pooling over ``T = 1, 2, 3`` independent
positions at ``delta = gamma = 0.5`` and ``d = 800``, and signal strengths ``beta`` from the
large-T sample threshold to three times it, the mean and standard error over 32 tables of the
top eigenvalue of the centered ``S`` and of its alignment with ``mu / ||mu||``, with the
fixed-T prediction (``seqrmt.fixed_T_predict``), the large-T one (``seqrmt.predict``) and the
expected number of fixed-T bulk eigenvalues above the former
(``seqrmt.validation.fixed_T_spike_check``).  The tables and tokens of seed ``3000 + k`` are
the same for every ``beta`` (and the same as in ``tests/test_fixed_T_spike.py``).

Usage::

    python benchmarks/fixed_T_spike.py                 # writes seqrmt/data/fixed_T_spike.csv
    python benchmarks/fixed_T_spike.py --jobs 2 --out /tmp/fixed_T_spike.csv
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import seqrmt as sr
from seqrmt import validation as sv

DELTA = GAMMA = 0.5
D, SEEDS, SEED0 = 800, 32, 3000
TS = (1, 2, 3)
RATIOS = (1.0, 1.15, 1.3, 1.45, 1.6, 2.0, 2.5, 3.0)


def rows(executor=None, progress=False) -> list[dict]:
    out = []
    for T in TS:
        w, R = sr.mean_weights(T), np.eye(T)
        bc = sr.critical_beta(DELTA, GAMMA, w, R)
        for ratio, row in zip(
            RATIOS,
            sv.fixed_T_spike_check(
                D,
                DELTA,
                GAMMA,
                w,
                R,
                [r * bc for r in RATIOS],
                seeds=SEEDS,
                seed0=SEED0,
                executor=executor,
                progress=progress,
            ),
        ):
            out.append(dict(row, ratio=ratio, beta_c=bc))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(Path(sr.__file__).parent / "data" / "fixed_T_spike.csv"))
    args = ap.parse_args()
    t0 = time.time()
    with ProcessPoolExecutor(args.jobs) as ex:
        data = rows(ex, progress=True)
    meta = dict(
        study="fixed_T_spike",
        d=D,
        delta=DELTA,
        gamma=GAMMA,
        seeds=f"{SEED0}..{SEED0 + SEEDS - 1}",
        T=" ".join(map(str, TS)),
        weights="mean",
        R="independent positions",
        centered=True,
        version=sr.__version__,
        command="python benchmarks/fixed_T_spike.py",
        seconds=round(time.time() - t0, 1),
    )
    sv.to_csv(data, args.out, meta=meta)
    print(f"wrote {len(data)} rows to {args.out} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
