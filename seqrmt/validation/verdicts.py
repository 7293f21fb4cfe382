"""The verdicts of the atlas (:func:`judge`): agreement, the quantitative criteria that explain
a miss (finite-size correction, transition window, unresolved pair, fixed-``T`` bulk) and the
Tracy-Widom scale of the edge behind the window."""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import numpy as np

from .. import _checks
from ..attention import named_weights
from ..fixed_T_bulk import fixed_T_bulk_law
from ..spectrum import BulkLaw
from ..spikes import sample_threshold, spike_curve, spike_norm2_variance
from .settings import atlas_correlation
from .tables import load_atlas, read_csv
from .tolerance import Tolerance

__all__ = [
    "TW1_QUANTILES",
    "PAIR_SDS",
    "REASONS",
    "edge_scale",
    "transition_window",
    "law_distance",
    "judge",
    "disagreements",
    "rejudge_shipped",
]

#: Quantiles 0.01 and 0.99 of the Tracy-Widom law of the largest eigenvalue of a real
#: (GOE / real Wishart) ensemble, TW_1 (Johnstone 2001, Table 1).
TW1_QUANTILES: tuple[float, float] = (-3.90, 2.02)

#: Number of standard deviations of the table-to-table fluctuation of the two spike
#: strengths within which two predicted outliers count as unresolved (a pair).
PAIR_SDS: float = 3.0

#: The reasons a row that misses the limit prediction may be accepted (``reason`` column).
REASONS: tuple[str, ...] = ("finite-size correction", "transition window", "unresolved pair", "fixed-T bulk")


def edge_scale(law, d: int) -> float:
    """Tracy-Widom scale ``(pi A d)^(-2/3)`` of the largest bulk eigenvalue at dimension ``d``.

    Near its right edge ``lambda_+`` the bulk density behaves like ``A sqrt(lambda_+ - x)``;
    matching ``d A sqrt(lambda_+ - x)`` with the density ``sqrt(-s) / pi`` of the Airy point
    process at ``s = (x - lambda_+) / c`` gives ``c = (pi A d)^(-2/3)``: the largest
    eigenvalue is ``lambda_+ + c X`` with ``X`` of law ``TW_1`` to leading order (square-root
    edge universality).  ``A`` is read from ``law.pdf`` at ``lambda_+ (1 - 1e-6)``.
    """
    d = _checks.integer("d", d, minimum=1)
    right = law.support()[1]
    if not math.isfinite(right):
        raise ValueError("law has no right edge (a fixed-T bulk law: its support is unbounded)")
    eps = 1e-6 * right
    A = float(np.asarray(law.pdf(np.array([right - eps])), dtype=float)[0]) / math.sqrt(eps)
    if not A > 0:
        raise ValueError("the law has no square-root right edge")
    return float((math.pi * A * d) ** (-2.0 / 3.0))


def transition_window(delta: float, gamma: float, kappa: float, d: int) -> dict:
    """The finite-``d`` window of the sample transition, in the spike strength.

    Derived in this book from the Tracy-Widom scale of the edge mapped through the
    outlier map ``phi`` (``sample_location`` of :func:`seqrmt.spike_curve`): at ``d`` the
    largest bulk eigenvalue fluctuates by ``c = edge_scale(law, d)``, and an outlier
    ``phi(theta)`` is resolved from it only when ``phi(theta) - lambda_+`` exceeds the
    0.99 quantile of ``TW_1`` times ``c``.  Since ``phi'(theta_c) = 0``,
    ``phi(theta) - lambda_+ ~ phi''(theta_c) (theta - theta_c)^2 / 2`` and the window
    ``|theta / theta_c - 1| <= h`` has ``h = c_w d^(-1/3)`` (the BBP window) with
    ``c_w`` computed, not fitted.  Inside it the limit statements (edge below, ``phi``
    above) are not yet separated by the fluctuations, and the top eigenvalue is only
    predicted to lie within ``lambda_+ + c [tw_0.01, tw_0.99]`` (``TW_1`` quantiles).

    Returns a dict with ``theta_c``, ``h`` (relative half-width), ``c_w = h d^(1/3)``,
    ``edge``, ``scale`` (``c``), the eigenvalue band ``(low, high)`` and
    ``overlap_high``, the squared cosine (with the spike direction) at the upper end
    ``theta_c (1 + h)``.
    """
    from scipy.optimize import brentq

    d = _checks.integer("d", d, minimum=1)
    law = BulkLaw(delta, gamma, kappa)
    edge = law.support()[1]
    c = edge_scale(law, d)
    tc = sample_threshold(delta, gamma, kappa)
    q_lo, q_hi = TW1_QUANTILES

    def excess(h):
        return float(np.ravel(spike_curve(tc * (1 + h), delta, gamma, kappa).sample_location)[0]) - edge - q_hi * c

    hi = 1.0
    while excess(hi) < 0:
        hi *= 2.0
    h = brentq(excess, 1e-12, hi, xtol=1e-12)
    ov = float(np.ravel(spike_curve(tc * (1 + h), delta, gamma, kappa).overlap)[0])
    return dict(
        theta_c=tc,
        h=h,
        c_w=h * d ** (1.0 / 3.0),
        edge=edge,
        scale=c,
        low=edge + q_lo * c,
        high=edge + q_hi * c,
        overlap_high=ov,
    )


def law_distance(law_a, law_b, n: int = 4001) -> float:
    """``sup_x |F_a(x) - F_b(x)|`` between two laws on ``[0, inf)`` (atoms at 0 included).

    Evaluated on ``n`` points spread uniformly from ``0`` to the largest ``ppf(1)`` of the two
    laws (the right edge of :class:`seqrmt.BulkLaw`; the end of the computed approximation of
    :class:`seqrmt.FixedTBulkLaw`, whose limit law has no right edge) and at ``0`` (left
    and right limits); the error is at most the largest mass either law puts on one grid
    interval.
    """
    n = _checks.integer("n", n, minimum=3)
    top = max(float(np.ravel(law_a.ppf(1.0))[0]), float(np.ravel(law_b.ppf(1.0))[0]))
    x = np.linspace(0.0, top * 1.0001, n)
    gap = np.max(np.abs(np.asarray(law_a.cdf(x), dtype=float) - np.asarray(law_b.cdf(x), dtype=float)))
    return float(gap)


def _fixed_T_law(delta: float, gamma: float, w: np.ndarray):
    """``seqrmt.fixed_T_bulk_law(delta, gamma, w)``, or None (with a warning) when it cannot be built."""
    import warnings

    try:
        return fixed_T_bulk_law(delta, gamma, w)
    except (ValueError, RuntimeError, FloatingPointError) as exc:
        warnings.warn(f"fixed-T law not built for delta={delta}, gamma={gamma}, T={len(w)}: {exc}", stacklevel=3)
        return None


def _quantity_spikes(row: Mapping) -> list[tuple[str, float]]:
    """The spikes (name, strength) whose transition governs a quantity of a row."""
    q = row["quantity"]
    sig = ("signal", float(row["theta"]))
    mean = ("mean", float(row["sigma_w"]) ** 2 * float(row["delta"]))
    if row["centered"]:
        return [sig] if q != "ks_bulk" else []
    return {
        "lambda_1": [sig, mean],
        "lambda_2": [sig, mean],
        "lambda_signal": [sig],
        "overlap_signal": [sig],
        "lambda_mean": [mean],
        "overlap_mean": [mean],
    }.get(q, [])


def _strength_sd(theta_part: float, d: int, V: int, beta: float = 0.0) -> float:
    """Standard deviation of a spike strength ``c ||mu + x||^2`` over tables, with
    ``||mu||^2 = beta`` and ``x ~ N(0, I_d / V)`` (``x = Delta`` for the signal spike,
    ``x = zbar`` and ``beta = 0`` for the vocabulary-mean spike):
    ``c sqrt(2 d / V^2 + 4 beta / V)`` (:func:`seqrmt.spike_norm2_variance`)."""
    return theta_part * math.sqrt(spike_norm2_variance(d, V, beta))


def _location_slope(theta: float, delta: float, gamma: float, kappa: float) -> float:
    """``d phi / d theta`` by a central difference of :func:`seqrmt.spike_curve`."""
    h = 1e-6 * theta
    f = lambda t: float(np.ravel(spike_curve(t, delta, gamma, kappa).sample_location)[0])  # noqa: E731
    return (f(theta + h) - f(theta - h)) / (2 * h)


def judge(rows: Sequence[Mapping], tol: Tolerance | None = None) -> list[dict]:
    """Verdict of every atlas row from the numbers it records (no simulation).

    ``status_limit`` and ``status_corrected`` compare the mean over seeds with the limit
    prediction and with the finite-size corrected one (``|x - mean| <= tol``, see
    :class:`Tolerance`).  ``status`` is

    * ``"agree"`` when both agree;
    * ``"explained"`` when one of the following quantitative criteria, each computed from
      the theory with nothing fitted to the simulation, accepts the row (``reason``):

      - ``"finite-size correction"``: the corrected prediction agrees (the classical
        location ``F^{-1}(1 - (j - 1/2)/d)`` of a bulk eigenvalue, or the prediction with
        the realized ``||mu + Delta||^2, ||Delta||^2, ||zbar||^2`` of the drawn tables);
      - ``"transition window"``: a spike that governs the quantity is within the window
        ``|theta / theta_c - 1| <= h`` of :func:`transition_window` and the mean lies in
        the window's band (eigenvalues: ``lambda_+ + c [tw_0.01, tw_0.99]`` of ``TW_1``;
        squared cosines: ``[0, overlap at theta_c (1 + h)]``), widened by ``t * sem``;
      - ``"unresolved pair"``: uncentered ``S`` with both outliers predicted, their gap
        within :data:`PAIR_SDS` standard deviations of its table-to-table fluctuation
        (variances ``2 d / V^2 + 4 beta / V`` of ``||mu + Delta||^2`` and ``2 d / V^2`` of
        ``||zbar||^2``, :func:`seqrmt.spike_norm2_variance`, mapped through ``phi'``), and the sum ``lambda_1 + lambda_2`` agreeing with the sum of the two
        predicted outliers (the trace of the outlier block is resolved even when the two
        eigenvalues are not); eigenvalue rows only;
      - ``"fixed-T bulk"``: ``ks_bulk <= D + tol`` with ``D`` the Kolmogorov distance
        between Theorem 1's law and the fixed-``T`` law ``seqrmt.fixed_T_bulk_law(delta,
        gamma, w)`` (triangle inequality: a simulation within ``tol`` of the fixed-``T``
        law is within ``D + tol`` of Theorem 1's);
    * ``"disagree"`` otherwise.

    Added columns: ``status_limit``, ``status`` (as above), ``reason`` (empty when the
    row agrees, ``"none"`` when it disagrees), ``window`` (the half-width ``h`` for the
    row's signal spike), ``theta_ratio`` (``theta / theta_c``), ``ks_fixed_T`` (``D``,
    ks rows that miss the tolerance only) and ``note`` (the numbers behind the verdict).
    """
    tol = tol or Tolerance()
    rows = [dict(r) for r in rows]
    by_cell: dict = {}
    for r in rows:
        by_cell.setdefault(r["cell"], {})[r["quantity"]] = r
    windows: dict = {}
    dists: dict = {}

    def window(r):
        key = (r["delta"], r["gamma"], r["kappa"], r["d"])
        if key not in windows:
            windows[key] = transition_window(r["delta"], r["gamma"], r["kappa"], r["d"])
        return windows[key]

    for r in rows:
        q = r["quantity"]
        n = int(r["n"])
        tq = tol.quantile(n) if n > 1 else 0.0
        mean, pred = float(r["empirical"]), float(r["predicted"])
        lim_ok = abs(mean - pred) <= tol(q, pred, r["sem"], n)
        corr = float(r["predicted_corrected"])
        corr_ok = abs(mean - corr) <= tol(q, corr, r["sem"], n)
        r["status_limit"] = "agree" if lim_ok else "disagree"
        r["status_corrected"] = "agree" if corr_ok else "disagree"
        w0 = window(r)
        r["window"] = w0["h"]
        r["theta_ratio"] = r["theta"] / r["theta_c"] if r["theta_c"] > 0 else float("inf")
        if not (isinstance(r.get("ks_fixed_T"), float)):
            r["ks_fixed_T"] = float("nan")
        off = (
            f"mean {mean:.4g} +- {r['sem']:.2g} (sem), limit {pred:.4g} (tolerance "
            f"{tol(q, pred, r['sem'], n):.3g}), corrected {corr:.4g}"
        )
        if lim_ok and corr_ok:
            r.update(status="agree", reason="", note="")
            continue
        reason, why = "none", []
        if corr_ok:
            reason = "finite-size correction"
            why.append("the finite-size corrected prediction agrees")
        if reason == "none" and q != "ks_bulk" and _in_window(r, w0, mean, pred, tq, why):
            reason = "transition window"
        if (
            reason == "none"
            and q.startswith("lambda")
            and not r["centered"]
            and math.isfinite(r["signal_outlier"])
            and math.isfinite(r["mean_outlier"])
            and _unresolved_pair(r, by_cell[r["cell"]], tol, tq, why)
        ):
            reason = "unresolved pair"
        if reason == "none" and q == "ks_bulk" and _within_fixed_T_bulk(r, dists, tol(q, pred, r["sem"], n), why):
            reason = "fixed-T bulk"
        r.update(
            status="disagree" if reason == "none" else "explained",
            reason=reason,
            note=off + "; " + "; ".join(why) if why else off,
        )
    return rows


def _in_window(r: dict, w0: dict, mean: float, pred: float, tq: float, why: list[str]) -> bool:
    """Criterion ``"transition window"`` of :func:`judge` for row ``r`` (window ``w0``, Student
    quantile ``tq``): a spike of the quantity inside the window and the mean in its band; the numbers
    go to ``why``."""
    for name, th in _quantity_spikes(r):
        ratio = th / w0["theta_c"] if w0["theta_c"] > 0 else float("inf")
        if abs(ratio - 1) > w0["h"]:
            continue
        if r["quantity"].startswith("lambda"):
            lo, hi = w0["low"], w0["high"]
        else:
            frac = r["beta"] / (r["beta"] + r["delta"]) if name == "signal" else 1.0
            lo, hi = 0.0, max(w0["overlap_high"] * frac, pred)
        if lo - tq * r["sem"] <= mean <= hi + tq * r["sem"]:
            why.append(
                f"{name} spike at theta / theta_c = {ratio:.3f}, inside the window "
                f"|theta / theta_c - 1| <= {w0['h']:.3f} ({w0['c_w']:.2f} d^(-1/3)); "
                f"band [{lo:.4g}, {hi:.4g}]"
            )
            return True
        why.append(
            f"{name} spike inside the window (theta / theta_c = {ratio:.3f}) but the mean "
            f"is outside its band [{lo:.4g}, {hi:.4g}]"
        )
    return False


def _unresolved_pair(r: dict, cell: Mapping, tol: Tolerance, tq: float, why: list[str]) -> bool:
    """Criterion ``"unresolved pair"`` of :func:`judge` for an eigenvalue row ``r`` of an uncentered cell
    (its rows by quantity: ``cell``) with both outliers predicted; the numbers go to ``why``."""
    so, mo = float(r["signal_outlier"]), float(r["mean_outlier"])
    th_m = float(r["sigma_w"]) ** 2 * float(r["delta"])
    sd = math.hypot(
        _location_slope(r["theta"], r["delta"], r["gamma"], r["kappa"])
        * _strength_sd(r["alpha"], int(r["d"]), int(r["V"]), float(r["beta"])),
        _location_slope(th_m, r["delta"], r["gamma"], r["kappa"])
        * _strength_sd(float(r["sigma_w"]) ** 2, int(r["d"]), int(r["V"])),
    )
    r1, r2 = cell.get("lambda_1"), cell.get("lambda_2")
    if not (abs(so - mo) <= PAIR_SDS * sd and r1 is not None and r2 is not None):
        return False
    s_emp = float(r1["empirical"]) + float(r2["empirical"])
    s_pred = so + mo
    s_tol = max(tq * (float(r1["sem"]) + float(r2["sem"])), tol.eig_rtol * s_pred)
    ok = abs(s_emp - s_pred) <= s_tol
    why.append(
        f"outliers {so:.4g} and {mo:.4g} {abs(so - mo):.3g} apart, within {PAIR_SDS:g} "
        f"sd ({sd:.3g}) of their table-to-table fluctuation; lambda_1 + lambda_2 = {s_emp:.4g} "
        f"against {s_pred:.4g} (tolerance {s_tol:.3g})" + ("" if ok else ": the sum disagrees too")
    )
    return ok


def _within_fixed_T_bulk(r: dict, dists: dict, t: float, why: list[str]) -> bool:
    """Criterion ``"fixed-T bulk"`` of :func:`judge` for a ``ks_bulk`` row ``r`` (tolerance ``t``): sets
    ``r["ks_fixed_T"]`` (the distances by setting are kept in ``dists``); the numbers go to ``why``."""
    key = (r["delta"], r["gamma"], r["weights"], r["R"], r["T"])
    stored = r.get("ks_fixed_T")
    if key not in dists and isinstance(stored, float) and math.isfinite(stored):
        dists[key] = stored  # recorded by an earlier verdict of this row
    if key not in dists:
        w = named_weights(r["weights"], atlas_correlation(r["R"], int(r["T"])))
        law_t = _fixed_T_law(r["delta"], r["gamma"], w)
        dists[key] = float("nan") if law_t is None else law_distance(BulkLaw(r["delta"], r["gamma"], r["kappa"]), law_t)
    D = dists[key]
    r["ks_fixed_T"] = D
    why.append(
        "fixed-T law not available"
        if not math.isfinite(D)
        else f"Theorem 1's law and the fixed-T law are {D:.4f} apart; allowed {D + t:.4f}"
    )
    return math.isfinite(D) and float(r["empirical"]) <= D + t


def disagreements(rows: Iterable[Mapping]) -> list[dict]:
    """The rows whose ``status`` is ``"disagree"`` (no quantitative criterion accepts them)."""
    return [dict(r) for r in rows if r["status"] == "disagree"]


def rejudge_shipped(path=None) -> tuple[list[dict], dict]:
    """The shipped atlas with its verdicts recomputed by :func:`judge` from its stored numbers."""
    rows, meta = load_atlas() if path is None else read_csv(path)
    return judge(rows), meta
