"""Figures for the chapter "How exact is the theory?".

The table-driven figures read the precomputed tables of :mod:`seqrmt.validation`
(``load_atlas``, ``load_finite_size``) unless ``rows`` is given; the simulation-driven
figures (:func:`validation_transition`, :func:`validation_bulk_histogram`) run small
simulations with the same draws as :func:`seqrmt.simulate`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D

from .. import _checks
from .. import validation as _v
from ..validation import measure as _measure
from ..attention import alpha, kappa, mean_weights, named_weights
from ..model import sizes
from ..spectrum import BulkLaw
from ..spikes import critical_beta, predict, spike_curve
from ._style import (
    IDEAL_COLOR,
    MEAN_SPIKE_COLOR,
    SIM_COLOR,
    THEORY_COLOR,
    WEIGHT_COLORS,
    figure,
    legend_below,
    legend_right,
    finish,
    log_ticks,
    fmt,
    plain_text,
    set_alt,
)

__all__ = [
    "validation_table",
    "validation_atlas",
    "validation_ideal",
    "validation_mean_spike",
    "validation_scaling",
    "validation_bulk_T",
    "validation_spikes_T",
    "validation_bulk_histogram",
    "validation_transition",
]

_REGIME_MARKERS = {"low": "v", "mid": "o", "high": "^"}
_BAD_COLOR = "#D62728"
_EXPLAINED_COLOR = "#FF9F1C"


def _rows(rows, load):
    rows = list(load()[0] if rows is None else rows)
    if not rows:
        raise ValueError("rows must not be empty")
    return rows


def _atlas_rows(rows):
    return _rows(rows, _v.load_atlas)


def _fs_rows(rows):
    return _rows(rows, _v.load_finite_size)


def _choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed, key=str)}, got {value!r}")
    return value


def validation_atlas(
    *,
    delta: float = 0.5,
    gamma: float = 0.25,
    rows=None,
    eigenvalue: str = "lambda_signal",
    overlap: str = "overlap_signal",
):
    """Theory against simulation for every cell of the atlas at one ``(delta, gamma)``.

    Top: relative error ``(mean - predicted) / predicted`` of an eigenvalue (default the
    signal eigenvalue: the outlier of Theorems 2-3, or the bulk edge of Theorem 1 when
    no outlier is predicted), with ``t * sem`` error bars and the +-3 % band; bottom: the
    error of a squared cosine (Theorem 4) with the +-0.05 band.  One group per
    ``(R, weights)``; marker shape gives the regime of ``beta`` (below / between /
    above the transitions), filled markers the centered ``S``, open ones the uncentered
    ``S``; a red ring marks a row whose verdict (:func:`seqrmt.validation.judge`) is
    ``disagree``, an orange ring one that is ``explained`` by a quantitative criterion.
    """
    rows = _atlas_rows(rows)
    deltas = sorted({r["delta_nominal"] for r in rows})
    gammas = sorted({r["gamma_nominal"] for r in rows})
    _choice("delta", delta, deltas)
    _choice("gamma", gamma, gammas)
    _choice("eigenvalue", eigenvalue, {"lambda_1", "lambda_2", "lambda_signal", "lambda_mean"})
    _choice("overlap", overlap, {"overlap_signal", "overlap_mean"})
    sel = [r for r in rows if r["delta_nominal"] == delta and r["gamma_nominal"] == gamma]
    Rs = [x for x in ("prefix", "markov", "copula") if any(r["R"] == x for r in sel)]
    Ws = [x for x in ("mean", "causal", "optimal") if any(r["weights"] == x for r in sel)]
    fig, axes = figure(1, 2, width=7.2, height=7.4)
    tol = _v.Tolerance()
    summary = [_atlas_panel(ax, sel, Rs, Ws, q, tol) for ax, q in zip(axes, (eigenvalue, overlap))]
    handles = [Line2D([], [], ls="", marker=m, color="0.3", label=f"beta {k}") for k, m in _REGIME_MARKERS.items()]
    handles += [
        Line2D([], [], ls="", marker="o", color="0.3", mfc="white", label="uncentered"),
        Line2D([], [], ls="", marker="o", ms=11, mfc="none", mec=_EXPLAINED_COLOR, label="explained"),
        Line2D([], [], ls="", marker="o", ms=11, mfc="none", mec=_BAD_COLOR, label="disagree"),
    ]
    legend_below(fig, handles=handles, ncols=3, fontsize="x-small")
    fig.suptitle(
        rf"atlas at $\delta = {delta:g}$, $\gamma = {gamma:g}$, $d = {sel[0]['d']}$, {sel[0]['n']} seeds"
        "\n"
        r"bars $\pm$ 1 s.e.m., grey: tolerance",
        fontsize="medium",
    )
    return set_alt(
        fig,
        f"Validation atlas at δ = {fmt(delta)}, γ = {fmt(gamma)}, d = {sel[0]['d']}, {sel[0]['n']} seeds: "
        f"theory against simulation for every cell, grouped by correlation ({', '.join(Rs)}) and "
        f"weights ({', '.join(Ws)}), markers by β regime and centering. Top, "
        + summary[0]
        + ". Bottom, "
        + summary[1]
        + ".",
    )


_ATLAS_NAMES = {
    "lambda_signal": r"\lambda_{\rm signal}",
    "lambda_1": r"\lambda_1",
    "lambda_2": r"\lambda_2",
    "lambda_mean": r"\lambda_{\rm mean}",
    "overlap_signal": r"|\hat u^\top u|^2",
    "overlap_mean": r"|\hat u^\top \bar z|^2",
}


def _atlas_points(sel, Rs, Ws, q):
    """The points of one panel of :func:`validation_atlas` for quantity ``q``, one group per ``(R,
    weights)``: ``(points, ticks, labels)``, a point ``(x, error, sem, weights, regime, centered,
    status)`` (the error relative to the prediction for an eigenvalue)."""
    is_eig = q.startswith("lambda")
    pts = []
    ticks, labels = [], []
    k = 0
    for Rn in Rs:
        for wn in Ws:
            grp = [r for r in sel if r["R"] == Rn and r["weights"] == wn and r["quantity"] == q]
            grp.sort(key=lambda r: (("low", "mid", "high").index(r["regime"]), not r["centered"]))
            xs = k + np.linspace(-0.35, 0.35, max(len(grp), 1))
            for x, r in zip(xs, grp):
                scale = abs(r["predicted"]) if is_eig and r["predicted"] else 1.0
                error = (r["empirical"] - r["predicted"]) / scale
                pts.append((x, error, r["sem"] / scale, wn, r["regime"], bool(r["centered"]), r["status"]))
            ticks.append(k)
            labels.append(f"{Rn} {wn}")
            k += 1
    return pts, ticks, labels


def _draw_atlas_points(ax, pts, Ws) -> None:
    """The points with their bars, rings for the rows that disagree or are explained, a marker per
    regime, filled for the centered ``S``."""
    x, y, e = (np.array([p[i] for p in pts], dtype=float) for i in range(3))
    ax.vlines(x, y - e, y + e, color="0.35", lw=0.8, zorder=2)
    bad = np.array([p[6] == "disagree" for p in pts])
    expl = np.array([p[6] == "explained" for p in pts])
    ax.scatter(x[bad], y[bad], s=150, facecolors="none", edgecolors=_BAD_COLOR, linewidths=1.5, zorder=1)
    ax.scatter(x[expl], y[expl], s=150, facecolors="none", edgecolors=_EXPLAINED_COLOR, linewidths=1.5, zorder=1)
    for wn in Ws:
        for reg, m in _REGIME_MARKERS.items():
            for cen in (True, False):
                sel_i = [i for i, p in enumerate(pts) if p[3] == wn and p[4] == reg and p[5] == cen]
                if sel_i:
                    col = WEIGHT_COLORS[wn]
                    ax.scatter(
                        x[sel_i],
                        y[sel_i],
                        s=30,
                        marker=m,
                        c=col if cen else "white",
                        edgecolors=col,
                        linewidths=1.0,
                        zorder=3,
                    )


def _atlas_panel(ax, sel, Rs, Ws, q, tol) -> str:
    """One panel of :func:`validation_atlas` (quantity ``q``); returns the sentence of the alt text."""
    is_eig = q.startswith("lambda")
    pts, ticks, labels = _atlas_points(sel, Rs, Ws, q)
    if pts:
        _draw_atlas_points(ax, pts, Ws)
    band = tol.eig_rtol if is_eig else tol.overlap_atol
    ys = np.array([p[1] for p in pts], dtype=float)
    st = [p[6] for p in pts]
    what = (
        "relative error of the " + q.replace("_", " ")
        if is_eig
        else "error (simulation minus theory) of the squared cosine " + q.replace("_", " ")
    )
    summary = (
        f"{what}: {len(pts)} points, {int(np.sum(np.abs(ys) <= band))} inside the grey band "
        f"±{fmt(band)}, largest {fmt(np.max(np.abs(ys)) if ys.size else 0, 2)}; "
        f"{st.count('disagree')} disagree, {st.count('explained')} explained"
    )
    ax.axhspan(-band, band, color="0.88", zorder=0)
    ax.axhline(0, color=THEORY_COLOR, lw=0.8)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize="x-small", rotation=90)
    ax.set_xlim(-0.6, len(ticks) - 0.4)
    name = _ATLAS_NAMES[q]
    ylabel = (
        rf"$({name}^{{\rm sim}} - {name}^{{\rm th}}) / {name}^{{\rm th}}$" if is_eig else rf"${name}$: sim $-$ theory"
    )
    finish(ax, ylabel=ylabel, legend=False)
    return summary


def validation_ideal(*, rows=None, centered: bool = True):
    """Exact finite-table prediction (Theorems 2-4 with the class-mean noise) against the
    idealized one (``theta = alpha beta``), both against simulation, over the whole atlas.

    Top: simulated signal eigenvalue against each prediction; bottom: the same for the
    squared cosine with ``mu``.  Points on the diagonal are exact predictions.
    """
    rows = _atlas_rows(rows)
    if not isinstance(centered, (bool, np.bool_)):
        raise ValueError(f"centered must be True or False, got {centered!r}")
    fig, axes = figure(1, 2, width=7.2, height=7.4)
    summary = []
    for ax, q, lab in zip(
        axes,
        ("lambda_signal", "overlap_signal"),
        (r"signal eigenvalue $\lambda$", r"squared cosine $|\hat u^\top u|^2$"),
    ):
        sel = [r for r in rows if r["quantity"] == q and r["centered"] == centered]
        emp = np.array([r["empirical"] for r in sel])
        ex = np.array([r["predicted"] for r in sel])
        idl = np.array([r["predicted_ideal"] for r in sel])
        ax.plot(idl, emp, "s", ms=4, color=IDEAL_COLOR, alpha=0.7, label=r"idealized ($\theta=\alpha\beta$)")
        ax.plot(
            ex, emp, "o", ms=4, color=THEORY_COLOR, alpha=0.8, label=r"finite table ($\theta=\alpha(\beta+\delta)$)"
        )
        rms = lambda pred: float(np.sqrt(np.mean((emp - pred) ** 2)))  # noqa: E731
        summary.append(
            f"{'signal eigenvalue' if q == 'lambda_signal' else 'squared cosine'} "
            f"({len(sel)} cells): root-mean-square distance to the diagonal {fmt(rms(ex), 2)} for the "
            f"finite-table prediction and {fmt(rms(idl), 2)} for the idealized one"
        )
        hi = max(emp.max(), ex.max(), idl.max()) * 1.05
        lo = 0.0 if q.startswith("overlap") else min(emp.min(), ex.min(), idl.min()) * 0.95
        ax.plot([lo, hi], [lo, hi], color="0.5", lw=0.8, ls="--")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        finish(ax, xlabel=f"predicted {lab}", ylabel=f"simulated {lab}", legend=False)
    legend_below(fig, axes[0], ncols=2)
    fig.suptitle(
        f"every {'centered' if centered else 'uncentered'} cell of the atlas:\n"
        "which prediction does the simulation follow?",
        fontsize="medium",
    )
    return set_alt(
        fig,
        f"Simulated against predicted values for every {'centered' if centered else 'uncentered'} "
        f"cell of the atlas, exact predictions as dots and idealized ones as squares, with the "
        f"diagonal dashed. Top, " + summary[0] + ". Bottom, " + summary[1] + ".",
    )


def validation_mean_spike(*, rows=None):
    """The vocabulary-mean outlier of the uncentered ``S`` (strength ``sigma_w^2 delta``).

    Top: simulated against predicted location, with the limit prediction (filled) and
    the one using the realized ``||zbar||^2`` of each table (open).  Bottom: predicted
    signal eigenvalue against predicted mean outlier for every uncentered cell; above the
    diagonal the top eigenvector of the uncentered ``S`` is the vocabulary mean, not the
    signal.  Centering removes the mean outlier (the centered cells have none).
    """
    rows = _atlas_rows(rows)
    sel = [r for r in rows if r["quantity"] == "lambda_mean" and not r["centered"]]
    if not sel:
        raise ValueError("rows contain no uncentered lambda_mean row")
    fig, axes = figure(1, 2, width=7.2, height=7.4)
    ax = axes[0]
    for wn, col in WEIGHT_COLORS.items():
        s = [r for r in sel if r["weights"] == wn]
        if not s:
            continue
        ax.plot([r["predicted"] for r in s], [r["empirical"] for r in s], "o", color=col, ms=4, label=f"{wn}: limit")
        ax.plot(
            [r["predicted_realized"] for r in s],
            [r["empirical"] for r in s],
            "o",
            color=col,
            mfc="white",
            ms=4,
            label=f"{wn}: realized table",
        )
    v = np.array([r["empirical"] for r in sel] + [r["predicted"] for r in sel])
    ax.plot([v.min() * 0.95, v.max() * 1.05], [v.min() * 0.95, v.max() * 1.05], "--", color="0.5", lw=0.8)
    finish(ax, xlabel=r"predicted mean outlier", ylabel=r"simulated mean outlier", legend=False)
    legend_right(ax, fontsize="x-small")
    ax = axes[1]
    for wn, col in WEIGHT_COLORS.items():
        s = [r for r in sel if r["weights"] == wn]
        if s:
            ax.plot(
                [r["signal_outlier"] if np.isfinite(r["signal_outlier"]) else r["bulk_edge"] for r in s],
                [r["predicted"] for r in s],
                "o",
                color=col,
                ms=4,
                label=wn,
            )
    ax.plot([0, v.max() * 1.1], [0, v.max() * 1.1], "--", color=MEAN_SPIKE_COLOR, lw=0.8)
    ax.set_xlim(0, None)
    ax.set_ylim(0, None)
    # above the diagonal (a white box: the diagonal runs under the words)
    ax.text(
        0.05,
        0.92,
        "above: top eigenvector = vocabulary mean",
        transform=ax.transAxes,
        fontsize="x-small",
        color=MEAN_SPIKE_COLOR,
        bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1.5),
    )
    finish(ax, xlabel="predicted signal eigenvalue (or bulk edge)", ylabel="predicted mean outlier", legend=False)
    legend_right(ax, fontsize="x-small")
    emp = np.array([r["empirical"] for r in sel])
    pr = np.array([r["predicted"] for r in sel])
    prr = np.array([r["predicted_realized"] for r in sel])
    sig = np.array([r["signal_outlier"] if np.isfinite(r["signal_outlier"]) else r["bulk_edge"] for r in sel])
    return set_alt(
        fig,
        f"The vocabulary-mean outlier of the uncentered S over {len(sel)} atlas cells. Top: simulated "
        f"against predicted location, coloured by weights, largest relative error "
        f"{np.max(np.abs(emp / pr - 1)):.1%} with the limit prediction and "
        f"{np.max(np.abs(emp / prr - 1)):.1%} with the realized table. Bottom: predicted mean outlier "
        f"against predicted signal eigenvalue; in {int(np.sum(pr > sig))} of {len(sel)} cells it lies "
        f"above the diagonal, where the top eigenvector is the vocabulary mean.",
    )


def validation_scaling(*, rows=None, quantity: str = "lambda_signal"):
    """Finite-size scaling: error and spread against ``d`` on log-log axes.

    Top: root-mean-square error over seeds of ``quantity`` relative to its prediction,
    with the fitted log-log slope in the legend (Gaussian spike fluctuations give
    ``-1/2``); bottom: seed-to-seed standard deviation with ``d^(-1/2)`` and
    ``d^(-2/3)`` (Tracy-Widom edge) reference slopes.
    """
    rows = [r for r in _fs_rows(rows) if r.get("study") == "scaling"]
    qs = {r["quantity"] for r in rows}
    _choice("quantity", quantity, qs)
    sel = [r for r in rows if r["quantity"] == quantity]
    settings = list(dict.fromkeys(r["setting"] for r in sel))
    rates = _v.scaling_rates(sel, "rmse")
    srates = _v.scaling_rates(sel, "std")
    fig, axes = figure(1, 2, width=7.2, height=7.4)
    cols = ["#4C72B0", "#55A868", "#DD8452", "#8172B3", "#937860", "#C44E52"]
    for i, name in enumerate(settings):
        s = sorted((r for r in sel if r["setting"] == name), key=lambda r: r["d"])
        ds = np.array([r["d"] for r in s])
        scale = np.array([abs(r["predicted"]) if quantity.startswith("lambda") and r["predicted"] else 1.0 for r in s])
        col = cols[i % len(cols)]
        axes[0].loglog(
            ds,
            [r["rmse"] for r in s] / scale,
            "o-",
            color=col,
            label=f"{name}\n(slope {rates.get((name, quantity), np.nan):+.2f})",
        )
        axes[1].loglog(
            ds,
            [r["std"] for r in s] / scale,
            "o-",
            color=col,
            label=f"{name}\n(slope {srates.get((name, quantity), np.nan):+.2f})",
        )
    allds = np.array(sorted({r["d"] for r in sel}), dtype=float)
    ref = np.array(
        [
            r["std"] / (abs(r["predicted"]) if quantity.startswith("lambda") and r["predicted"] else 1.0)
            for r in sel
            if r["d"] == allds[0]
        ]
    )
    y0 = float(np.median(ref)) if ref.size else 1e-2
    axes[1].loglog(allds, y0 * (allds / allds[0]) ** -0.5, ":", color="0.4", label=r"$d^{-1/2}$")
    axes[1].loglog(allds, y0 * (allds / allds[0]) ** (-2 / 3), "--", color="0.6", label=r"$d^{-2/3}$")
    for ax in axes:
        ax.set_xticks(allds)
        ax.set_xticklabels([f"{int(x)}" for x in allds])
        ax.minorticks_off()
        log_ticks(ax, "y")
    rel = " (relative)" if quantity.startswith("lambda") else ""
    qname = {"lambda_signal": r"$\lambda_{\rm signal}$", "overlap_signal": r"$|\hat u^\top u|^2$"}.get(
        quantity, quantity.replace("_", " ")
    )
    finish(axes[0], xlabel="$d$", ylabel=f"RMSE{rel}", title=f"root-mean-square error of {qname}", legend=False)
    finish(axes[1], xlabel="$d$", ylabel=f"std over seeds{rel}", title=f"fluctuation of {qname}", legend=False)
    for ax in axes:
        legend_right(ax, fontsize="x-small")
    return set_alt(
        fig,
        f"Finite-size scaling of {quantity.replace('_', ' ')} on log-log axes, d = "
        + ", ".join(str(int(x)) for x in allds)
        + f". Top: root-mean-square error{rel} against d; "
        "fitted slopes "
        + ", ".join(f"{n} {rates.get((n, quantity), np.nan):+.2f}" for n in settings)
        + f". Bottom: standard deviation over seeds{rel} with d^-1/2 and d^-2/3 reference lines; slopes "
        + ", ".join(f"{n} {srates.get((n, quantity), np.nan):+.2f}" for n in settings)
        + ".",
    )


def _has(r, key):
    v = r.get(key, "")
    return isinstance(v, float) and np.isfinite(v)


def validation_bulk_T(*, rows=None):
    """Kolmogorov distance of the simulated bulk to Theorem 1's law ``kappa (MP_delta boxtimes
    MP_gamma)`` (solid) and to the fixed-``T`` law ``seqrmt.fixed_T_bulk_law`` (dashed) as a
    function of the sequence length ``T`` (top, one shade per ``d``; the thick grey line
    is the distance between the two laws), and as a function of ``d`` (bottom, one colour
    per ``T``, distance to Theorem 1 solid, to the fixed-``T`` law dashed).  A distance to
    the right law shrinks with ``d``; a distance to a wrong law stays near the distance
    between the laws."""
    rows = [r for r in _fs_rows(rows) if r.get("study") == "bulk_T"]
    if not rows:
        raise ValueError("rows contain no bulk_T study")
    fig, axes = figure(1, 2, width=7.2, height=7.2)
    ds = sorted({r["d"] for r in rows})
    Ts = sorted({r["T"] for r in rows})
    _bulk_distance_vs_T(axes[0], rows, ds, Ts)
    _bulk_distance_vs_d(axes[1], rows, ds, Ts)
    r0 = rows[0]
    fig.suptitle(
        rf"bulk law vs $T$: mean pooling, $R = I$, $\beta = 0$,"
        "\n"
        rf"$\delta = {r0['delta']:.2g}$, $\gamma = {r0['gamma']:.2g}$",
        fontsize="medium",
    )
    big = [r for r in rows if r["d"] == ds[-1]]
    per_T = "; ".join(
        f"T = {r['T']}: {fmt(r['empirical'], 2)} to the paper's Theorem 1"
        + (f", {fmt(r['ks_fixed_T'], 2)} to the fixed-T law" if _has(r, "ks_fixed_T") else "")
        for r in sorted(big, key=lambda r: r["T"])
    )
    return set_alt(
        fig,
        f"Kolmogorov distance of the simulated bulk (mean pooling, R = I, β = 0, "
        f"δ = {fmt(r0['delta'], 2)}, γ = {fmt(r0['gamma'], 2)}) to the paper's Theorem 1 law and to the "
        f"fixed-T law. Top: against the sequence length T = "
        + ", ".join(map(str, Ts))
        + ", one shade per d = "
        + ", ".join(map(str, ds))
        + f", log scales. Bottom: against d, one "
        f"colour per T, with a 1/d reference. At d = {ds[-1]}: " + per_T + ".",
    )


def _bulk_distance_vs_T(ax, rows, ds, Ts) -> None:
    """The top panel of :func:`validation_bulk_T`: the distances against ``T``, one shade per ``d``, and
    the distance between the two laws."""
    greys = np.linspace(0.65, 0.1, len(ds))
    for g, d in zip(greys, ds):
        s = sorted((r for r in rows if r["d"] == d), key=lambda r: r["T"])
        ax.errorbar(
            [r["T"] for r in s],
            [r["empirical"] for r in s],
            yerr=[r["sem"] for r in s],
            fmt="o-",
            color=str(g),
            label=f"paper's Thm 1, $d = {d}$",
        )
        f = [r for r in s if _has(r, "ks_fixed_T")]
        if f:
            ax.errorbar(
                [r["T"] for r in f],
                [r["ks_fixed_T"] for r in f],
                yerr=[r["ks_fixed_T_sem"] for r in f],
                fmt="s--",
                color=str(g),
                mfc="white",
                label=f"fixed-$T$ law, $d = {d}$",
            )
    gap = sorted({(r["T"], r["law_gap"]) for r in rows if _has(r, "law_gap") and r["d"] == ds[-1]})
    if gap:
        ax.plot(
            [t for t, _ in gap], [v for _, v in gap], "-", color="0.75", lw=4, zorder=0, label="between the two laws"
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(Ts)
    ax.set_xticklabels([str(t) for t in Ts])
    finish(ax, xlabel="sequence length $T$", ylabel=r"Kolmogorov distance $D$", legend=False)
    legend_right(ax, fontsize="x-small")


def _bulk_distance_vs_d(ax, rows, ds, Ts) -> None:
    """The bottom panel of :func:`validation_bulk_T`: the distances against ``d``, one colour per ``T``,
    with a ``1/d`` reference."""
    cmap = ["#C44E52", "#DD8452", "#4C72B0", "#55A868", "#8172B3", "#937860"]
    for i, T in enumerate(Ts):
        s = sorted((r for r in rows if r["T"] == T), key=lambda r: r["d"])
        ax.loglog([r["d"] for r in s], [r["empirical"] for r in s], "o-", color=cmap[i % len(cmap)], label=f"$T = {T}$")
        f = [r for r in s if _has(r, "ks_fixed_T")]
        if f:
            ax.loglog([r["d"] for r in f], [r["ks_fixed_T"] for r in f], "s--", mfc="white", color=cmap[i % len(cmap)])
    dd = np.array(ds, dtype=float)
    y0 = min(r["empirical"] for r in rows if r["d"] == ds[0])
    ax.loglog(dd, y0 * dd[0] / dd, ":", color="0.4", label=r"$\propto 1/d$")
    if any(_has(r, "ks_fixed_T") for r in rows):
        ax.plot([], [], "s--", mfc="white", color="0.4", label="to the fixed-$T$ law")
    ax.set_xticks(dd)
    ax.set_xticklabels([f"{int(x)}" for x in dd])
    ax.minorticks_off()
    log_ticks(ax, "y")
    finish(ax, xlabel="$d$", ylabel=r"Kolmogorov distance $D$", legend=False)
    legend_right(ax, fontsize="x-small")


def validation_spikes_T(*, rows=None, fixed_T: bool = True):
    """The spike formulas at short sequence lengths (study ``spikes_T`` of
    :func:`seqrmt.validation.spikes_vs_T`): relative error of the signal eigenvalue
    (top) and error of its squared cosine with ``mu`` (bottom) against ``T``, one marker
    per ``theta / theta_c``, bars ``+- t * sem`` (Student quantile, 99 %), grey bands the
    absolute tolerances of :class:`seqrmt.validation.Tolerance`.  Filled markers: against the
    large-``T`` formulas (:func:`seqrmt.predict`, the stored ``predicted``); with ``fixed_T``,
    hollow markers: against the fixed-``T`` prediction (:func:`seqrmt.fixed_T_predict` with the
    rows' ``d``)."""
    rows = [r for r in _fs_rows(rows) if r.get("study") == "spikes_T"]
    if not rows:
        raise ValueError("rows contain no spikes_T study")
    fixed_T = _checks.flag("fixed_T", fixed_T)
    tol = _v.Tolerance()
    fig, axes = figure(1, 2, width=7.2, height=7.2)
    ratios = sorted({round(r["ratio"], 6) for r in rows})
    theories = [("predicted", "large $T$", False)] + ([("fixed", "fixed $T$", True)] if fixed_T else [])
    worst = [
        _spikes_T_panel(ax, rows, q, theories, ratios, tol) for ax, q in zip(axes, ("lambda_signal", "overlap_signal"))
    ]
    finish(
        axes[0],
        xlabel="sequence length $T$",
        ylabel=r"$(\lambda^{\rm sim} - \lambda^{\rm th}) / \lambda^{\rm th}$",
        title="signal eigenvalue",
        legend=False,
    )
    finish(
        axes[1],
        xlabel="sequence length $T$",
        ylabel=r"$|\hat u^\top u|^2$: sim $-$ theory",
        title=r"squared cosine with $\mu$",
        legend=False,
    )
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(handles), 2), fontsize="small", frameon=False)
    r0 = rows[0]
    fig.suptitle(
        rf"spike formulas at short $T$: $d = {r0['d']}$, {r0['n']} seeds, $R = I$,"
        "\n"
        rf"mean pooling, $\delta = {r0['delta']:.2g}$, $\gamma = {r0['gamma']:.2g}$",
        fontsize="medium",
    )
    return set_alt(
        fig,
        "Spike formulas at short sequence lengths T = "
        + ", ".join(str(t) for t in sorted({r["T"] for r in rows}))
        + f" (d = {r0['d']}, {r0['n']} seeds, R = I, mean pooling, δ = {fmt(r0['delta'], 2)}, "
        f"γ = {fmt(r0['gamma'], 2)}), one marker per θ/θc = "
        + ", ".join(fmt(x) for x in ratios)
        + (", filled against the large-T formulas, hollow against the fixed-T prediction" if fixed_T else "")
        + ". Top: relative error of the signal eigenvalue, "
        + worst[0]
        + ". Bottom: error of the squared cosine with μ, "
        + worst[1]
        + ".",
    )


def _fixed_T_value(r, q):
    """The fixed-``T`` prediction of quantity ``q`` for a row of the ``spikes_T`` study (``None``: none)."""
    from ..fixed_T_spike import fixed_T_predict

    p = fixed_T_predict(
        r["delta"], r["gamma"], mean_weights(r["T"]), _v.atlas_correlation(r["R"], r["T"]), r["beta"], d=int(r["d"])
    )
    return p.sample_outlier if q.startswith("lambda") else p.overlap


def _spikes_T_panel(ax, rows, q, theories, ratios, tol) -> str:
    """One panel of :func:`validation_spikes_T` (quantity ``q``): the errors against each theory, one
    marker per ``theta / theta_c``; returns the sentence of the alt text."""
    markers = ["o", "^", "s", "D"]
    errs = {}
    for k, (key, name, hollow) in enumerate(theories):
        for j, rt in enumerate(ratios):
            s = sorted((r for r in rows if r["quantity"] == q and round(r["ratio"], 6) == rt), key=lambda r: r["T"])
            pred = [r["predicted"] if key == "predicted" else _fixed_T_value(r, q) for r in s]
            if any(p is None for p in pred):
                keep = [i for i, p in enumerate(pred) if p is not None]
                s, pred = [s[i] for i in keep], [pred[i] for i in keep]
            scale = [p if q.startswith("lambda") else 1.0 for p in pred]
            y = [(r["empirical"] - p) / c for r, p, c in zip(s, pred, scale)]
            e = [tol.quantile(r["n"]) * r["sem"] / c for r, c in zip(s, scale)]
            errs.setdefault(name, []).extend(zip([r["T"] for r in s], y))
            col = SIM_COLOR if j else THEORY_COLOR
            ax.errorbar(
                [r["T"] * (1 + 0.05 * (2 * k + j - 1.5)) for r in s],
                y,
                yerr=e,
                fmt=markers[j % 4],
                color=col,
                mfc="white" if hollow else col,
                ms=5,
                capsize=2,
                label=rf"{name}, $\theta/\theta_c = {rt:g}$",
            )
    band = tol.eig_rtol if q.startswith("lambda") else tol.overlap_atol
    parts = []
    for name, te in errs.items():
        t_w, e_w = max(te, key=lambda x: abs(x[1])) if te else (0, 0.0)
        parts.append(f"{plain_text(name)}: largest error {fmt(e_w, 2)} (at T = {t_w})")
    ax.axhspan(-band, band, color="0.88", zorder=0)
    ax.axhline(0, color=THEORY_COLOR, lw=0.8)
    ax.set_xscale("log", base=2)
    Ts = sorted({r["T"] for r in rows})
    ax.set_xticks(Ts)
    ax.set_xticklabels([str(t) for t in Ts])
    ax.minorticks_off()
    return "; ".join(parts) + f"; band ±{fmt(band)}"


def validation_bulk_histogram(*, T: int = 1, d: int = 400, delta: float = 0.5, gamma: float = 0.5, seed: int = 0):
    """Simulated spectrum (mean pooling over ``T`` independent positions, ``beta = 0``,
    centered ``S``) against the bulk law ``kappa (MP_delta boxtimes MP_gamma)`` of Theorem 1:
    density (top) and distribution function (bottom), with the Kolmogorov distance."""
    T = _checks.integer("T", T)
    d = _checks.integer("d", d, minimum=20)
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    seed = _checks.integer("seed", seed, minimum=0)
    V, N = sizes(d, delta, gamma)
    w = np.full(T, 1.0 / T)
    ((_, _, _, lam, _, _),) = _measure._spectra(d, V, N, np.eye(T), {"m": w}, {"m": [0.0]}, [True], seed, n_top=1)
    law = BulkLaw(d / V, d / N, 1.0 / T)
    D = _v.kolmogorov_distance(lam, law)
    left, right = law.support()
    xmax = max(right, lam[0]) * 1.08
    fig, axes = figure(1, 2, width=6.4, height=6.4)
    keep = lam > 1e-9 * lam[0]
    bins = np.linspace(0, xmax, 50)
    axes[0].hist(
        lam[keep],
        bins=bins,
        weights=np.full(keep.sum(), 1.0 / d / (bins[1] - bins[0])),
        color=SIM_COLOR,
        alpha=0.6,
        label=f"simulation, $d={d}$",
    )
    x = np.linspace(max(left, 1e-9), right, 400)
    axes[0].plot(x, law.pdf(x), color=THEORY_COLOR, lw=1.5, label=r"$\kappa\,(MP_\delta \boxtimes MP_\gamma)$")
    axes[0].set_xlim(0, xmax)
    finish(axes[0], xlabel=r"$\lambda$", ylabel="density", title=f"$T = {T}$")
    xs = np.sort(np.where(keep, lam, 0.0))
    axes[1].step(xs, np.arange(1, d + 1) / d, where="post", color=SIM_COLOR, lw=1.5, label="empirical")
    xg = np.linspace(0, xmax, 400)
    axes[1].plot(xg, law.cdf(xg), color=THEORY_COLOR, lw=1.0, ls="--", label="bulk law")
    axes[1].set_xlim(0, xmax)
    finish(axes[1], xlabel=r"$\lambda$", ylabel="distribution function", title=f"Kolmogorov distance $D = {D:.3f}$")
    return set_alt(
        fig,
        f"Simulated spectrum of the centered S for mean pooling over T = {T} independent positions "
        f"(d = {d}, δ = {fmt(delta)}, γ = {fmt(gamma)}, β = 0) against the paper's Theorem 1 bulk law with "
        f"support {fmt(left)} to {fmt(right)}. Top: histogram and density, largest simulated "
        f"eigenvalue {fmt(lam[0])}. Bottom: empirical and theoretical distribution functions; "
        f"Kolmogorov distance {D:.3f}.",
    )


def validation_transition(
    *,
    R: str = "prefix",
    weights: str = "mean",
    delta: float = 0.5,
    gamma: float = 0.25,
    d: int = 400,
    seeds: int = 2,
    n_beta: int = 8,
    beta_max: float | None = None,
):
    """Across the transitions: squared cosine with ``mu`` and top eigenvalue against ``beta``.

    Curves: exact finite-table theory (Theorems 2-4 with ``theta = alpha (beta + delta)``
    and the alignment factor ``beta / (beta + delta)``) and the idealized statement;
    points: simulation (mean and spread over ``seeds``); vertical lines: critical betas
    (:func:`seqrmt.critical_beta`, sample stage solid, population stage dotted).
    """
    _choice("R", R, {"prefix", "markov", "copula"})
    _choice("weights", weights, {"mean", "causal", "optimal"})
    d = _checks.integer("d", d, minimum=20)
    seeds = _checks.integer("seeds", seeds)
    n_beta = _checks.integer("n_beta", n_beta, minimum=2)
    Rm = _v.atlas_correlation(R)
    w = named_weights(weights, Rm)
    V, N = sizes(d, delta, gamma)
    dl, gm = d / V, d / N
    bs = critical_beta(dl, gm, w, Rm)
    bsi = critical_beta(dl, gm, w, Rm, finite_table=False)
    bp = critical_beta(dl, gm, w, Rm, stage="population")
    bmax = beta_max if beta_max is not None else 2.5 * max(bs, bsi)
    bmax = _checks.positive("beta_max", bmax)
    fine = np.linspace(0.0, bmax, 200)
    k, a = kappa(w), alpha(w, Rm)
    ex = spike_curve(a * (fine + dl), dl, gm, k)
    idl = spike_curve(a * fine, dl, gm, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(fine + dl > 0, fine / (fine + dl), 0.0)
    betas = np.linspace(bmax / n_beta, bmax, n_beta)
    lam1 = np.zeros((seeds, n_beta))
    ov = np.zeros((seeds, n_beta))
    for s in range(seeds):
        for _, b, _, lam, U, info in _measure._spectra(d, V, N, Rm, {"w": w}, {"w": list(betas)}, [True], s):
            i = int(np.argmin(np.abs(betas - b)))
            pv = _measure._predicted(predict(dl, gm, w, Rm, b), "limit")
            e = _measure._empirical(lam, U, b, info, pv, _NoLaw())
            lam1[s, i] = e["lambda_signal"]
            ov[s, i] = e["overlap_signal"]
    fig, axes = figure(1, 2, width=7.2, height=7.0)
    axes[0].plot(fine, ex.overlap * frac, color=THEORY_COLOR, label="finite-table theory")
    axes[0].plot(fine, idl.overlap, color=IDEAL_COLOR, ls="--", label="idealized theory")
    axes[0].errorbar(
        betas, ov.mean(0), yerr=ov.std(0), fmt="o", color=SIM_COLOR, ms=5, label=f"simulation ($d={d}$, {seeds} seeds)"
    )
    axes[1].plot(fine, ex.sample_location, color=THEORY_COLOR, label="finite-table theory")
    axes[1].plot(fine, idl.sample_location, color=IDEAL_COLOR, ls="--", label="idealized theory")
    axes[1].errorbar(betas, lam1.mean(0), yerr=lam1.std(0), fmt="o", color=SIM_COLOR, ms=5, label="simulation")
    for ax in axes:
        ax.axvline(bs, color=THEORY_COLOR, lw=0.8)
        ax.axvline(bsi, color=IDEAL_COLOR, lw=0.8)
        if bp > 0:
            ax.axvline(bp, color=THEORY_COLOR, lw=0.8, ls=":")
    finish(
        axes[0],
        xlabel=r"$\beta = \|\mu\|^2$",
        ylabel=r"$|\hat u^\top u|^2$",
        title=rf"{R}, {weights} weights, $\delta = {dl:.2g}$, $\gamma = {gm:.2g}$, centered $S$"
        "\n"
        rf"$\beta_c$ = {bs:.2f} (finite table), {bsi:.2f} (idealized)"
        + (rf"; population {bp:.2f} (dotted)" if bp > 0 else ""),
        legend=False,
    )
    finish(axes[1], xlabel=r"$\beta = \|\mu\|^2$", ylabel=r"signal eigenvalue $\lambda$", legend=False)
    legend_below(fig, axes[0], ncols=2)
    return set_alt(
        fig,
        f"Across the transitions, {R} correlation, {weights} weights, δ = {fmt(dl, 2)}, γ = {fmt(gm, 2)}, "
        f"centered S, β from 0 to {fmt(bmax, 2)}; critical β {bs:.2f} (finite table) and {bsi:.2f} "
        f"(idealized)"
        + (f", population threshold {bp:.2f} dotted" if bp > 0 else "")
        + ". Top: squared cosine with μ, at β = {fmt(betas[-1], 2)} simulated "
        f"{ov.mean(0)[-1]:.2f} (d = {d}, {seeds} seeds), finite-table {ex.overlap[-1] * frac[-1]:.2f}, "
        f"idealized {idl.overlap[-1]:.2f}. Bottom: signal eigenvalue, at β = {fmt(betas[-1], 2)} "
        f"simulated {fmt(lam1.mean(0)[-1])}, finite-table {fmt(ex.sample_location[-1])}, idealized "
        f"{fmt(idl.sample_location[-1])}.",
    )


class _NoLaw:
    """Stand-in bulk law (the Kolmogorov distance is not drawn by validation_transition)."""

    @staticmethod
    def cdf(x):
        return np.zeros_like(np.asarray(x, dtype=float))


#: Class of the HTML tables of :func:`validation_table` (laid out as cards on a phone by the book).
TABLE_CLASS = "seqrmt-table"


class _Table:
    """A small table shown as HTML in Jupyter and in the book, as text elsewhere."""

    def __init__(self, header: list[str], rows: list[list[str]], status: list[str]):
        self.header, self.rows, self.status = header, rows, status

    def __repr__(self) -> str:
        widths = [max(len(h), *(len(r[i]) for r in self.rows)) for i, h in enumerate(self.header)]
        line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
        return "\n".join([line(self.header)] + [line(r) for r in self.rows])

    def _repr_html_(self) -> str:
        import html

        head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in self.header)
        labels = [f' data-label="{html.escape(h, quote=True)}"' for h in self.header]
        body = []
        for r, st in zip(self.rows, self.status):
            style = {"agree": "", "explained": f' style="color:{_EXPLAINED_COLOR};font-weight:bold"'}.get(
                st, f' style="color:{_BAD_COLOR};font-weight:bold"'
            )
            body.append(
                "<tr>"
                + "".join(
                    f"<td{labels[i]}{style if i == len(r) - 1 else ''}>{html.escape(c)}</td>" for i, c in enumerate(r)
                )
                + "</tr>"
            )
        # class seqrmt-table: on a phone the book's stylesheet shows each row as a card of
        # "name: value" lines (data-label), so that the verdict is on screen
        return (
            f'<table class="{TABLE_CLASS}" style="font-size:0.8em;white-space:nowrap">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        )


def validation_table(rows, quantities=("lambda_signal", "overlap_signal")):
    """Atlas rows as a table: cell, quantity, exact and idealized prediction, simulation
    mean and standard error, verdict (from :func:`seqrmt.validation.atlas`)."""
    rows = _atlas_rows(rows)
    if isinstance(quantities, str):
        quantities = (quantities,)
    unknown = set(quantities) - set(_v.ATLAS_QUANTITIES)
    if unknown:
        raise ValueError(f"quantities must be among {_v.ATLAS_QUANTITIES}, got {sorted(unknown)}")
    keep = [r for r in rows if r["quantity"] in quantities]
    cells = [
        [
            r["weights"],
            f"{r['beta']:.3g} ({r['regime']})",
            "centered" if r["centered"] else "uncentered",
            r["quantity"],
            f"{r['predicted']:.4f}",
            f"{r['predicted_ideal']:.4f}",
            f"{r['empirical']:.4f}",
            f"{r['sem']:.4f}",
            r["status"] + (f" ({r['reason']})" if r["status"] == "explained" else ""),
        ]
        for r in keep
    ]
    header = ["weights", "beta", "S", "quantity", "exact", "idealized", "simulation", "s.e.m.", "verdict"]
    return _Table(header, cells, [r["status"] for r in keep])
