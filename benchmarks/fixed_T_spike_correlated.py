"""Simulations of the signal eigenvalue at fixed T with correlated positions (chapter 3, "The spike at fixed T").

Writes ``seqrmt/data/fixed_T_spike_correlated.csv``, the stored means that
``tests/test_fixed_T_spike.py`` checks ``seqrmt.fixed_T_predict`` against (and that the figure
``seqrmt.plots.spikes_fixed_T_vs_T`` draws).  Each row is one setting, simulated over ``SEEDS``
tables (seeds ``SEED0 + k``; table, signs and tokens all drawn from that seed by
``seqrmt.simulate``) of the centered ``S``:

* ``kind = "spike"``: the mean and standard error of the mean of the top eigenvalue and of the
  squared cosine of its eigenvector with ``mu / ||mu||`` (Markov ``rho = 0.8`` at ``T = 2, 4, 8, 16``,
  the prefix model with ``L = T/4`` at ``T = 32, 64``; ``d = 800``);
* ``kind = "validity"``: at ``T = 2``, ``rho = 0.6``, ``w = (0.75, 0.25)``, ``delta = 0.5``,
  ``gamma = 1`` (``d = 500`` and ``1000``), the same plus the number of eigenvalues above the
  predicted signal eigenvalue ``x`` in tables at ``beta = 0`` (``count_beta0``) and the squared
  cosine carried by all eigenvalues above ``threshold`` together (``mass_sim``).

The predictions are not stored: the tests compute them.  Usage::

    python benchmarks/fixed_T_spike_correlated.py                # about 10 minutes on one core
    python benchmarks/fixed_T_spike_correlated.py --jobs 2 --out /tmp/x.csv
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import seqrmt as sr

SEEDS, SEED0 = 32, 7000
VALIDITY_SEEDS = 32
#: name, T, correlation (kind, parameter), weights, delta, gamma, beta, d
SETTINGS = [
    ("markov0.8_T2", 2, ("markov", 0.8), "mean", 0.5, 0.5, 1.0, 800),
    ("markov0.8_T4", 4, ("markov", 0.8), "mean", 0.5, 0.5, 1.0, 800),
    ("markov0.8_T8", 8, ("markov", 0.8), "mean", 0.5, 0.5, 1.0, 800),
    ("markov0.8_T16", 16, ("markov", 0.8), "causal", 0.5, 0.5, 1.0, 800),
    ("prefix_T32", 32, ("prefix", 8), "mean", 1.0, 0.5, 2.0, 800),
    ("prefix_T64", 64, ("prefix", 16), "mean", 1.0, 0.5, 2.0, 800),
]
#: the validity point: the predicted signal eigenvalue is x = 3.725 at this beta
VALIDITY = dict(
    T=2, rho=0.6, w=(0.75, 0.25), delta=0.5, gamma=1.0, beta=1.6915871234362079, x=3.725, threshold=3.58, ds=(500, 1000)
)


def correlation(kind: str, par: float, T: int) -> np.ndarray:
    return sr.markov_correlation(T, par) if kind == "markov" else sr.prefix_correlation(T, int(par))


def weights(name: str, T: int) -> np.ndarray:
    return {"mean": sr.mean_weights, "causal": sr.causal_weights}[name](T)


def unit(d, delta, gamma, w, R, beta, seed, x=None, threshold=None):
    """One table: top eigenvalue and overlap; with ``threshold``, the overlap above it; with ``x``, the
    number of eigenvalues above ``x`` of a table at ``beta = 0`` of the same seed."""
    V, N = sr.sizes(d, delta, gamma)
    sim = sr.simulate(d, V, N, np.asarray(w), R, beta, seed=seed, n_vectors=40)
    out = [float(sim.eigenvalues[0]), float(sim.overlaps[0])]
    if threshold is not None:
        top = sim.eigenvalues[: sim.overlaps.size]
        assert top[-1] < threshold, "more than 40 eigenvalues above the threshold"
        out.append(float(sim.overlaps[top > threshold].sum()))
    if x is not None:
        null = sr.simulate(d, V, N, np.asarray(w), R, 0.0, seed=seed, n_vectors=40)
        out.append(float(np.sum(null.eigenvalues > x)))
    return out


def _stats(v):
    v = np.asarray(v, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default=str(Path(sr.__file__).parent / "data" / "fixed_T_spike_correlated.csv"))
    args = ap.parse_args()
    t0 = time.time()
    tasks, keys = [], []
    for name, T, (ck, cp), wn, dl, gm, beta, d in SETTINGS:
        R = correlation(ck, cp, T)
        for k in range(SEEDS):
            tasks.append((d, dl, gm, tuple(weights(wn, T)), R, beta, SEED0 + k))
            keys.append(name)
    vp = VALIDITY
    Rv = sr.markov_correlation(vp["T"], vp["rho"])
    for d in vp["ds"]:
        for k in range(VALIDITY_SEEDS):
            tasks.append((d, vp["delta"], vp["gamma"], vp["w"], Rv, vp["beta"], SEED0 + k, vp["x"], vp["threshold"]))
            keys.append(f"validity_d{d}")
    results = [None] * len(tasks)
    with ProcessPoolExecutor(args.jobs) as ex:
        futures = {ex.submit(unit, *t): i for i, t in enumerate(tasks)}
        from concurrent.futures import as_completed

        for n, f in enumerate(as_completed(futures), 1):
            results[futures[f]] = f.result()
            if n % 16 == 0 or n == len(tasks):
                print(f"  {n}/{len(tasks)} tables, {time.time() - t0:.0f} s", flush=True)
    rows = []
    for name, T, (ck, cp), wn, dl, gm, beta, d in SETTINGS:
        res = np.array([r for r, k in zip(results, keys) if k == name])
        (lam, lam_sem), (ov, ov_sem) = _stats(res[:, 0]), _stats(res[:, 1])
        rows.append(
            dict(
                kind="spike",
                name=name,
                T=T,
                R=ck,
                R_par=cp,
                weights=wn,
                delta=dl,
                gamma=gm,
                beta=beta,
                d=d,
                n=res.shape[0],
                lambda_sim=lam,
                lambda_sem=lam_sem,
                overlap_sim=ov,
                overlap_sem=ov_sem,
                threshold=math.nan,
                mass_sim=math.nan,
                mass_sem=math.nan,
                x=math.nan,
                count_beta0=math.nan,
                count_sem=math.nan,
            )
        )
    for d in vp["ds"]:
        res = np.array([r for r, k in zip(results, keys) if k == f"validity_d{d}"])
        (lam, lam_sem), (ov, ov_sem) = _stats(res[:, 0]), _stats(res[:, 1])
        (ms, ms_sem), (cn, cn_sem) = _stats(res[:, 2]), _stats(res[:, 3])
        rows.append(
            dict(
                kind="validity",
                name=f"validity_d{d}",
                T=vp["T"],
                R="markov",
                R_par=vp["rho"],
                weights="0.75 0.25",
                delta=vp["delta"],
                gamma=vp["gamma"],
                beta=vp["beta"],
                d=d,
                n=res.shape[0],
                lambda_sim=lam,
                lambda_sem=lam_sem,
                overlap_sim=ov,
                overlap_sem=ov_sem,
                threshold=vp["threshold"],
                mass_sim=ms,
                mass_sem=ms_sem,
                x=vp["x"],
                count_beta0=cn,
                count_sem=cn_sem,
            )
        )
    meta = dict(
        study="fixed_T_spike_correlated",
        seeds=f"{SEED0}..{SEED0 + SEEDS - 1}",
        centered=True,
        simulator="seqrmt.simulate (n_vectors=40)",
        version=sr.__version__,
        command="python benchmarks/fixed_T_spike_correlated.py",
        seconds=round(time.time() - t0, 1),
    )
    from seqrmt import validation as sv

    sv.to_csv(rows, args.out, meta=meta)
    print(f"wrote {len(rows)} rows to {args.out} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
