"""Figures for the learned-attention chapter (Chapter 8).

The weights are trained by :func:`seqrmt.learn_attention`; these functions draw what
was learned next to the fixed weightings of Chapters 4 and 5 (mean, causal, the
Theorem 5 optimum) and the supervised optimum (:func:`seqrmt.supervised_weights`),
show the margins and the fixed-weight objective behind the small-``N`` collapse, and
compare the spectrum of learned pooling with the fixed-weight theory.
Training is not done here: every function takes the trained objects or measured
numbers, so that a notebook trains once and draws many frames.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..attention import alpha as _alpha
from ..attention import causal_weights, mean_weights, optimal_weights
from ..attention import kappa as _kappa
from ..learning import LearnedAttention, supervised_weights
from ._style import THEORY_COLOR, WEIGHT_COLORS, figure, legend_below, legend_right, finish, fmt, plain_text, set_alt

__all__ = [
    "learning_profiles",
    "learning_training",
    "learning_curve",
    "learning_margins",
    "learning_spectrum",
    "learning_content",
]

#: Colors of the weightings that appear only in Chapter 8.
_LEARNED_COLORS = {
    "supervised": "#8172B3",
    "learned": "#C44E52",
    "learned (squared loss)": "#C44E52",
    "learned (logistic loss)": "#937860",
    "supervised, fitted b": "#DA8BC3",
}


def _ratio(w, R) -> float:
    return _alpha(w, R) / _kappa(w)


def _color(name: str, i: int) -> str:
    if name in WEIGHT_COLORS:
        return WEIGHT_COLORS[name]
    if name in _LEARNED_COLORS:
        return _LEARNED_COLORS[name]
    if name.startswith("supervised"):
        return _LEARNED_COLORS["supervised, fitted b"]
    return f"C{i % 10}"


def learning_profiles(
    R,
    extra: Mapping[str, Sequence[float]] | None = None,
    *,
    label: int = 1,
    title: str = "",
    reference: Sequence[str] = ("mean", "causal", "optimal", "supervised"),
):
    """Weight profiles and ``alpha/kappa`` of fixed and learned weightings.

    ``reference`` picks among mean pooling, causal attention (``tau = 0``), the Theorem 5
    optimum on the simplex (``optimal_weights(R, simplex=True)``) and the supervised
    optimum for the label ``xi_label`` (``supervised_weights(R, label)``); ``extra``
    adds named weight vectors (for instance learned ones). Left: ``w_t`` against the
    position; right: ``alpha/kappa = w^T R w / w^T w`` of each, dashed: ``lambda_max(R)``.
    """
    R = np.asarray(R, dtype=float)
    T = R.shape[0]
    table = {
        "mean": lambda: mean_weights(T),
        "causal": lambda: causal_weights(T),
        "optimal": lambda: optimal_weights(R, simplex=True),
        "supervised": lambda: supervised_weights(R, label),
    }
    ws = {}
    for name in reference:
        if name not in table:
            raise ValueError(f"reference entries must be among {tuple(table)}, got {name!r}")
        ws[name] = table[name]()
    for name, w in (extra or {}).items():
        ws[name] = np.asarray(w, dtype=float)
    t = np.arange(1, T + 1)
    fig, (ax1, ax2) = figure(1, 2, width=7, height=6.4, gridspec_kw={"height_ratios": [1.3, 1]})
    names = list(ws)
    ratios = []
    for i, name in enumerate(names):
        w = ws[name]
        learned = name.startswith("learned")
        ax1.plot(
            t,
            w,
            "o-" if not learned else "s--",
            color=_color(name, i),
            ms=5 if learned else 3.5,
            lw=2 if learned else 1.2,
            label=name,
            zorder=3 if learned else 2,
        )
        ratios.append(_ratio(w, R))
    top = float(np.linalg.eigvalsh(R)[-1])
    # one horizontal bar per weighting, its name beside it (long names never collide)
    pos = np.arange(len(names))[::-1]
    bars = ax2.barh(pos, ratios, color=[_color(n, i) for i, n in enumerate(names)], height=0.7)
    for bar, r in zip(bars, ratios):
        ax2.text(r, bar.get_y() + bar.get_height() / 2, f" {r:.2f}", ha="left", va="center", fontsize="small")
    ax2.set_yticks(pos, names, fontsize="small")
    ax2.axvline(top, color=THEORY_COLOR, ls="--", lw=1, label=r"$\lambda_{\max}(R)$, the largest possible")
    ax2.set_xlim(0, 1.25 * top)
    ax1.set_ylim(bottom=0)
    finish(ax1, xlabel="position $t$", ylabel="weight $w_t$", title=title, legend=False)
    legend_right(ax1, fontsize="small")
    finish(ax2, xlabel=r"$\alpha/\kappa$", title="Rayleigh quotient of each weighting", legend=False)
    legend_below(fig, ax2, ncols=1, fontsize="small")
    parts = "; ".join(f"{n} {fmt(r, 3)}" for n, r in zip(names, ratios))

    def shape(w):
        if np.ptp(w) < 1e-9 * max(1.0, float(np.abs(w).max())):
            return "flat"
        return f"largest {fmt(float(w.max()), 2)} at position {int(np.argmax(w)) + 1}"

    peaks = "; ".join(f"{n} {shape(ws[n])}" for n in names)
    where = f" ({plain_text(title)})" if title else ""
    return set_alt(
        fig,
        f"Top: weight profiles against the position t = 1 to {T}{where}: {peaks}. "
        f"Bottom: alpha/kappa of each weighting: {parts}; "
        f"the largest possible value lambda_max(R) is {fmt(top, 3)}.",
    )


def learning_training(result: LearnedAttention, *, step: int | None = None, ylim: float | None = None):
    """Training of positional attention: the weights at one recorded step, and ``alpha/kappa``
    of the weights along the training (marker at ``step``; default the last step).

    ``alpha/kappa`` uses the ``R`` the sequences were drawn from; the dotted lines are mean pooling
    (its weight ``1/T`` and its ``alpha/kappa``, one legend entry), the dashed line ``lambda_max(R)``.
    """
    if not isinstance(result, LearnedAttention):
        raise TypeError(f"result must be a LearnedAttention, got {type(result).__name__}")
    R = result.params["R"]
    h = result.history
    steps = h["step"]
    k = len(steps) - 1 if step is None else int(np.argmin(np.abs(steps - step)))
    T = R.shape[0]
    ratios = np.array([_ratio(w, R) for w in h["weights"]])
    fig, (ax1, ax2) = figure(1, 2, width=7, height=6)
    ax1.bar(np.arange(1, T + 1), h["weights"][k], color=_LEARNED_COLORS["learned"])
    ax1.axhline(
        1 / T, color=WEIGHT_COLORS["mean"], ls=":", lw=1, label="mean pooling"
    )  # one legend entry for both panels
    ax1.set_ylim(0, ylim if ylim is not None else max(0.3, 1.1 * h["weights"][k].max()))
    finish(
        ax1,
        xlabel="position $t$",
        ylabel="learned weight $w_t$",
        legend=False,
        title=f"$N={result.params['N']}$, step {int(steps[k])}: "
        + rf"$\alpha/\kappa={ratios[k]:.2f}$, train accuracy {h['accuracy'][k]:.2f}",
    )
    ax2.plot(steps, ratios, color=_LEARNED_COLORS["learned"], lw=1.5, label="learned weights")
    ax2.plot(steps[k], ratios[k], "o", color=_LEARNED_COLORS["learned"])
    ax2.axhline(_ratio(mean_weights(T), R), color=WEIGHT_COLORS["mean"], ls=":", lw=1, label="mean pooling")
    ax2.axhline(float(np.linalg.eigvalsh(R)[-1]), color=THEORY_COLOR, ls="--", lw=1, label=r"$\lambda_{\max}(R)$")
    ax2.set_ylim(0, 1.15 * float(np.linalg.eigvalsh(R)[-1]))
    finish(
        ax2, xlabel="training step", ylabel=r"$\alpha/\kappa$ of the weights", title="along the training", legend=False
    )
    legend_below(fig, ncols=2, fontsize="small")
    w = h["weights"][k]
    return set_alt(
        fig,
        f"Positional attention trained on N = {result.params['N']} labelled sequences. "
        f"Top: the learned weights at step {int(steps[k])}, largest {fmt(w.max(), 2)} at position "
        f"{int(np.argmax(w)) + 1}, alpha/kappa {fmt(ratios[k], 3)}, training accuracy "
        f"{fmt(h['accuracy'][k], 3)}. Bottom: alpha/kappa of the weights along {int(steps[-1])} "
        f"steps, from {fmt(ratios[0], 3)} (mean pooling) with maximum {fmt(ratios.max(), 3)} and "
        f"final value {fmt(ratios[-1], 3)}; the optimum lambda_max(R) is "
        f"{fmt(float(np.linalg.eigvalsh(R)[-1]), 3)}.",
    )


def learning_curve(Ns: Sequence[int], ratios, R, *, title: str = ""):
    """``alpha/kappa`` of learned weights against the number ``N`` of labelled sequences.

    ``ratios`` has shape ``(n_seeds, len(Ns))`` (one row per seed); points are the
    seeds, the line their mean. Horizontal lines: mean pooling, causal attention and
    ``lambda_max(R)`` (the Theorem 5 optimum).
    """
    Ns = np.asarray(Ns, dtype=float)
    ratios = np.atleast_2d(np.asarray(ratios, dtype=float))
    R = np.asarray(R, dtype=float)
    T = R.shape[0]
    fig, ax = figure(width=6.8, height=3.6)
    for row in ratios:
        ax.plot(Ns, row, "o", color=_LEARNED_COLORS["learned"], alpha=0.45, ms=4)
    ax.plot(Ns, ratios.mean(axis=0), "-", color=_LEARNED_COLORS["learned"], lw=1.8, label="learned (mean over seeds)")
    ax.axhline(_ratio(mean_weights(T), R), color=WEIGHT_COLORS["mean"], ls=":", label="mean pooling")
    ax.axhline(_ratio(causal_weights(T), R), color=WEIGHT_COLORS["causal"], ls="-.", label="causal")
    ax.axhline(
        float(np.linalg.eigvalsh(R)[-1]), color=THEORY_COLOR, ls="--", lw=1, label=r"optimum $\lambda_{\max}(R)$"
    )
    ax.set_xscale("log")
    ax.set_ylim(0, 1.2 * float(np.linalg.eigvalsh(R)[-1]))
    finish(
        ax, xlabel="labelled sequences $N$", ylabel=r"$\alpha/\kappa$ of the learned weights", title=title, legend=False
    )
    legend_below(fig, ax, ncols=2, fontsize="small")
    m = ratios.mean(axis=0)
    pts = ", ".join(f"N = {int(n)}: {fmt(v, 3)}" for n, v in zip(Ns, m))
    return set_alt(
        fig,
        f"alpha/kappa of the learned weights against the number N of labelled sequences "
        f"(log scale, {ratios.shape[0]} seeds; {plain_text(title)}). Mean over seeds: {pts}. "
        f"References: mean pooling {fmt(_ratio(mean_weights(T), R), 3)}, causal "
        f"{fmt(_ratio(causal_weights(T), R), 3)}, optimum {fmt(float(np.linalg.eigvalsh(R)[-1]), 3)}.",
    )


def learning_margins(
    Ns: Sequence[int],
    margins: Mapping[str, Sequence[float]],
    objective_gap: Sequence[float],
    *,
    d: int,
    heuristic: Mapping[str, Sequence[float]] | None = None,
    title: str = "",
):
    """Why small ``N`` collapses: margins and the training objective at fixed weights.

    Top: the hard margin (:func:`seqrmt.readout_margin`) of the pooled training vectors
    against ``N`` for each fixed weighting in ``margins`` (e.g. one position and the prefix
    average), with the heuristic ``sqrt(beta + kappa (d - N)/N)`` of
    :func:`seqrmt.interpolation_margin` (dashed, ``heuristic[name]`` at the ``N < d``).
    Bottom: ``objective_gap``, the relative difference of the training objective minimized
    over the read-out (:func:`seqrmt.readout_objective`) between the first and the second
    weighting, in percent: negative where the objective prefers the first. The dotted
    vertical line is ``N = d``.
    """
    Ns = np.asarray(Ns, dtype=float)
    gap = np.asarray(objective_gap, dtype=float)
    names = list(margins)
    if len(names) != 2:
        raise ValueError(f"margins must hold two weightings, got {len(names)}")
    fig, (ax1, ax2) = figure(1, 2, width=6.8, height=6, sharex=True)
    colors = (_LEARNED_COLORS["learned"], WEIGHT_COLORS["optimal"])
    for i, name in enumerate(names):
        ax1.plot(Ns, margins[name], "o-", color=colors[i], label=name)
        if heuristic and name in heuristic:
            h = np.asarray(heuristic[name], dtype=float)
            ax1.plot(Ns[: h.size], h, "--", color=colors[i], lw=1.2, label=f"{name}: heuristic")
    ax2.axhline(0, color=THEORY_COLOR, lw=0.8)
    ax2.plot(Ns, gap, "s-", color=THEORY_COLOR, label=f"{names[0]} minus {names[1]}")
    for ax in (ax1, ax2):
        ax.axvline(d, color="0.5", ls=":", lw=1)
        ax.set_xscale("log")
    finish(ax1, ylabel="hard margin of the read-out", title=title)
    finish(ax2, xlabel="labelled sequences $N$ (dotted: $N=d$)", ylabel="objective gap (%)")
    pts = "; ".join(
        f"N = {int(n)}: "
        + ", ".join(f"{plain_text(k)} {fmt(margins[k][i], 3)}" for k in names)
        + f", gap {fmt(gap[i], 2)} %"
        for i, n in enumerate(Ns)
    )
    return set_alt(
        fig,
        f"Top: hard margin of the best read-out of the training sequences pooled with fixed "
        f"weights ({' and '.join(plain_text(k) for k in names)}) against N on a log scale, "
        f"dashed the heuristic for N below d = {int(d)}. Bottom: relative difference in percent "
        f"of the training objective minimized over the read-out, {plain_text(names[0])} minus "
        f"{plain_text(names[1])}, negative where the objective prefers {plain_text(names[0])}. "
        f"{pts}.",
    )


def learning_spectrum(
    Ns: Sequence[int],
    measured: Mapping[str, Sequence[float]],
    predicted: Sequence[float],
    measured_overlap: Mapping[str, Sequence[float]],
    predicted_overlap: Sequence[float],
    *,
    title: str = "",
):
    """Top eigenvalue and squared overlap of learned pooling against the fixed-weight theory.

    ``measured[name]`` and ``measured_overlap[name]`` are per-``N`` values for each way
    of pooling (e.g. fresh data, training data); ``predicted*`` the prediction of
    :func:`seqrmt.predict` with the learned weights at the same ``N``.
    """
    Ns = np.asarray(Ns, dtype=float)
    fig, (ax1, ax2) = figure(1, 2, width=7, height=6)
    markers = ["o", "s", "^", "D"]
    for i, (name, vals) in enumerate(measured.items()):
        ax1.plot(Ns, vals, markers[i % 4], color=f"C{i}", ms=6, label=name, mfc="none" if i else None)
        ax2.plot(Ns, measured_overlap[name], markers[i % 4], color=f"C{i}", ms=6, label=name, mfc="none" if i else None)
    ax1.plot(Ns, predicted, "-", color=THEORY_COLOR, lw=1.2, label="theory with the learned $w$")
    ax2.plot(Ns, predicted_overlap, "-", color=THEORY_COLOR, lw=1.2, label="theory with the learned $w$")
    for ax in (ax1, ax2):
        ax.set_xscale("log")
    ax2.set_ylim(-0.02, 1.02)
    finish(ax1, xlabel="$N$ (training = pooled sequences)", ylabel=r"top eigenvalue $\lambda_1$ of $S_c$", title=title)
    finish(ax2, xlabel="$N$", ylabel=r"$(\hat u^\top u)^2$", title="alignment with $\\mu$")
    pred = np.asarray(predicted, dtype=float)
    devs = "; ".join(
        f"{name}: largest relative deviation of the top eigenvalue from the theory "
        f"{fmt(100 * np.max(np.abs(np.asarray(v) / pred - 1)), 2)} %, largest overlap deviation "
        f"{fmt(np.max(np.abs(np.asarray(measured_overlap[name]) - np.asarray(predicted_overlap))), 2)}"
        for name, v in measured.items()
    )
    return set_alt(
        fig,
        f"Top: top eigenvalue of the centered sample covariance pooled with learned weights, "
        f"against N from {int(Ns.min())} to {int(Ns.max())} (log scale), measured "
        f"({', '.join(measured)}) and predicted (line, from {fmt(pred.max(), 3)} down to "
        f"{fmt(pred.min(), 3)}). Bottom: squared overlap of its eigenvector with mu. {devs}.",
    )


def learning_content(scales: Sequence[float], rows: Mapping[str, Mapping[str, Sequence[float]]], *, title: str = ""):
    """Content attention: measured spectrum against the theory at the average weights.

    ``rows[name]`` holds, per query scale, ``"lambda"`` (measured top eigenvalue),
    ``"lambda_theory"`` (prediction at the average weights), ``"overlap"`` and
    ``"overlap_theory"``, and ``"sign_correlation"`` (correlation of the weights with the
    signs). One color per query.
    """
    s = np.asarray(scales, dtype=float)
    fig, (ax1, ax2, ax3) = figure(1, 3, width=7, height=8.5)
    for i, (name, r) in enumerate(rows.items()):
        col = f"C{i}"
        ax1.plot(s, r["lambda"], "o-", color=col, label=f"{name}: measured")
        ax1.plot(s, r["lambda_theory"], "--", color=col, label=f"{name}: theory at $\\bar w$")
        ax2.plot(s, r["overlap"], "o-", color=col)
        ax2.plot(s, r["overlap_theory"], "--", color=col)
        ax3.plot(s, r["sign_correlation"], "o-", color=col, label=name)
    ax2.set_ylim(-0.02, 1.02)
    finish(ax1, xlabel="query scale $c$ (query $c\\,q$)", ylabel=r"top eigenvalue $\lambda_1$", title=title)
    ax1.legend(fontsize="x-small", frameon=False)
    finish(ax2, xlabel="query scale $c$", ylabel=r"$(\hat u^\top u)^2$", title="alignment with $\\mu$")
    finish(ax3, xlabel="query scale $c$", ylabel=r"corr$(w^{(n)}_t, \xi_{n,t})$", title="weights against signs")
    desc = "; ".join(
        f"{plain_text(name)}: measured/theory top eigenvalue {fmt(r['lambda'][0] / r['lambda_theory'][0], 3)} at "
        f"c = {fmt(s[0])} and {fmt(r['lambda'][-1] / r['lambda_theory'][-1], 3)} at c = {fmt(s[-1])}, overlap "
        f"from {fmt(r['overlap'][0], 2)} to {fmt(r['overlap'][-1], 2)} (theory {fmt(r['overlap_theory'][-1], 2)}), "
        f"largest weight-sign correlation {fmt(np.max(np.abs(r['sign_correlation'])), 2)}"
        for name, r in rows.items()
    )
    return set_alt(
        fig,
        f"Content attention with the query scaled by c from {fmt(s[0])} to {fmt(s[-1])}. Top: "
        f"measured top eigenvalue (points) against the theory at the average weights (dashed). "
        f"Middle: squared overlap with mu. Bottom: correlation of the weights with the signs. "
        f"{desc}.",
    )
