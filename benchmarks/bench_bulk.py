"""Benchmark of the bulk law of Theorem 1, ``kappa (MP_delta boxtimes MP_gamma)``.

Run as ``python benchmarks/bench_bulk.py``.  Times

* :func:`seqrmt.bulk_density` on 10,000 points (closed-form vectorized cubic) against a
  point-by-point baseline that solves the cubic
  ``delta gamma psi^3 + (delta + gamma + delta gamma) psi^2 + (1 + delta + gamma - x/kappa) psi + 1 = 0``
  with :func:`numpy.roots` and keeps the physical root (``Im psi < 0``);
* one :class:`seqrmt.BulkLaw` construction plus a cdf evaluation on 10,000 points (the
  construction is lazy: the quadrature table is built by the first cdf call).

Best of several repeats with :func:`time.perf_counter`.
"""

from __future__ import annotations

import time

import numpy as np

from seqrmt import BulkLaw, bulk_density, bulk_edges


def density_numpy_roots(x: np.ndarray, delta: float, gamma: float, kappa: float = 1.0) -> np.ndarray:
    """Baseline: ``numpy.roots`` point by point, physical root = the one with ``Im psi < 0``."""
    left, right = bulk_edges(delta, gamma, kappa)
    out = np.zeros(len(x))
    for i, xx in enumerate(x):
        if not left < xx < right:
            continue
        r = np.roots([delta * gamma, delta + gamma + delta * gamma, 1.0 + delta + gamma - xx / kappa, 1.0])
        psi = r[np.argmin(r.imag)]
        out[i] = max(0.0, -psi.imag / (np.pi * xx))
    return out


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    n = 10_000
    rows = []
    for delta, gamma, kappa in [(0.5, 0.25, 1.0), (2.0, 0.5, 1.5), (1.0, 1.0, 1.0)]:
        left, right = bulk_edges(delta, gamma, kappa)
        x = np.linspace(left, right, n + 2)[1:-1]
        fast = best_of(lambda: bulk_density(x, delta, gamma, kappa), 20)
        slow = best_of(lambda: density_numpy_roots(x, delta, gamma, kappa), 3)
        err = np.max(
            np.abs(bulk_density(x, delta, gamma, kappa) - density_numpy_roots(x, delta, gamma, kappa))
            / np.maximum(density_numpy_roots(x, delta, gamma, kappa), 1e-300)
        )
        rows.append((f"({delta}, {gamma}, {kappa})", fast, slow, slow / fast, err))

    print(f"bulk_density on {n} points inside the support (best of repeats)")
    print(f"{'(delta, gamma, kappa)':<22}{'vectorized [ms]':>16}{'np.roots [ms]':>15}{'ratio':>9}{'max rel diff':>15}")
    for name, fast, slow, ratio, err in rows:
        print(f"{name:<22}{fast * 1e3:>16.2f}{slow * 1e3:>15.1f}{ratio:>9.0f}{err:>15.1e}")

    print()
    print(f"BulkLaw construction + cdf on {n} points (best of 5)")
    print(
        f"{'(delta, gamma, kappa)':<22}{'construct+cdf [ms]':>19}{'cdf again [ms]':>16}{'ppf [ms]':>10}{'|cdf(right)-1|':>16}"
    )
    for delta, gamma, kappa in [(0.5, 0.25, 1.0), (2.0, 0.5, 1.5), (1.0, 1.0, 1.0)]:
        xs = np.linspace(-0.5, 1.1 * bulk_edges(delta, gamma, kappa)[1], n)

        def build():
            law = BulkLaw(delta, gamma, kappa)
            law.cdf(xs)
            return law

        t_build = best_of(build, 5)
        law = build()
        t_cdf = best_of(lambda: law.cdf(xs), 5)
        q = np.linspace(0, 1, n)
        t_ppf = best_of(lambda: law.ppf(q), 3)
        err = abs(law.atom + law.continuous_mass() - 1.0)
        print(
            f"{f'({delta}, {gamma}, {kappa})':<22}{t_build * 1e3:>19.1f}{t_cdf * 1e3:>16.1f}{t_ppf * 1e3:>10.1f}{err:>16.1e}"
        )


if __name__ == "__main__":
    main()
