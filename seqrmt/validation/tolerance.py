"""The agreement rule of the chapter-7 comparisons: ``|predicted - mean| <= max(t * sem, absolute)``."""

from __future__ import annotations

import functools
from dataclasses import dataclass

__all__ = ["Tolerance"]


@functools.lru_cache(maxsize=None)
def _student_quantile(level: float, n: int) -> float:
    """Two-sided Student quantile at confidence ``level`` with ``n - 1`` degrees of freedom."""
    from scipy.stats import t as student_t

    return float(student_t.ppf(0.5 + level / 2, n - 1))


@dataclass(frozen=True)
class Tolerance:
    """Agreement rule: ``|predicted - mean| <= max(t * sem, absolute)``.

    ``t`` is the two-sided Student quantile at confidence ``level`` with ``n - 1``
    degrees of freedom (``n`` seeds: 5.84 for 4 seeds, 4.03 for 6, 3.50 for 8 at the
    default 99 %), so the first term is the half-width of a confidence interval for
    the mean over tables: it is what the seed spread allows.  The absolute part is
    ``eig_rtol * |predicted|`` for eigenvalues, ``overlap_atol`` for squared cosines
    and ``ks_atol`` for the Kolmogorov distance (predicted 0).

    The defaults (3 % on eigenvalues, 0.05 on squared cosines, 0.02 on the Kolmogorov
    distance) are a few times the seed-to-seed spread measured at ``d = 800`` away from
    the transitions (about 0.5-1 % on outliers of the centered ``S``, 0.01-0.03 on
    squared cosines, 0.005 on the Kolmogorov distance); the ``t * sem`` term widens
    them where the spread is larger: near the transitions, and for outliers whose
    strength carries the table-to-table fluctuation of ``||mu + Delta||^2`` or
    ``||zbar||^2`` (variances ``2 d / V^2 + 4 beta / V`` and ``2 d / V^2``,
    :func:`seqrmt.spike_norm2_variance`; relative size ``sqrt(2/d)``, 5 % at ``d = 800``,
    for ``||zbar||^2``).
    """

    eig_rtol: float = 0.03
    overlap_atol: float = 0.05
    ks_atol: float = 0.02
    level: float = 0.99

    def quantile(self, n: int) -> float:
        """Student ``t`` quantile for ``n`` seeds (``inf`` for a single seed)."""
        if n < 2:
            return float("inf")
        return _student_quantile(float(self.level), int(n))

    def absolute(self, quantity: str, predicted: float) -> float:
        if quantity.startswith("lambda"):
            return self.eig_rtol * abs(predicted)
        if quantity.startswith("overlap"):
            return self.overlap_atol
        if quantity.startswith("ks"):
            return self.ks_atol
        raise ValueError(f"unknown quantity {quantity!r}")

    def __call__(self, quantity: str, predicted: float, sem: float, n: int) -> float:
        if n < 2:
            return self.absolute(quantity, predicted)
        return max(self.quantile(n) * float(sem), self.absolute(quantity, predicted))
