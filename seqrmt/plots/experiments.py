"""Figures for the experiments chapter (Section 6 of the paper).

(a) spectra of the centered ``S`` against the bulk law with the predicted outliers for
mean, causal and optimal pooling; (b) eigenvector alignment ``|u_S^T u|^2`` against
``beta`` (simulation over seeds, exact finite-table and idealized theory, thresholds);
(c) downstream ridge classification of the sequence label against ``N``.
The data helpers return the numbers behind the figures so a notebook can check them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import seqrmt as sr

from .. import _checks

from ._style import IDEAL_COLOR, SIM_COLOR, THEORY_COLOR, WEIGHT_COLORS, figure, legend_below, finish, fmt, set_alt

__all__ = [
    "experiments_weights",
    "experiments_spectra",
    "experiments_alignment_data",
    "experiments_alignment",
    "experiments_classification_data",
    "experiments_classification",
]

_NAMES = ("mean", "causal", "optimal")


def _sizes(d, delta, gamma):
    d = _checks.integer("d", d)
    return (d, *sr.sizes(d, delta, gamma))


def experiments_weights(T: int = 16, L: int = 4, *, names: Sequence[str] = _NAMES, tau: float = 0.0, R=None) -> dict:
    """The pooling weights compared in Section 6, by name.

    ``"mean"``: ``1/T``; ``"causal"``: the deterministic causal-attention weights
    :func:`seqrmt.causal_weights` at ``tau``; ``"optimal"``: the top eigenvector of
    ``R`` (Theorem 5). ``R`` defaults to the prefix correlation ``(T, L)``.
    """
    R = sr.prefix_correlation(T, L) if R is None else R
    if isinstance(names, str):
        names = (names,)
    unknown = [n for n in names if n not in sr.WEIGHT_NAMES]
    if unknown:
        raise ValueError(f"names must be among {sr.WEIGHT_NAMES}, got {unknown}")
    out = {n: sr.named_weights(n, R, tau=tau) for n in names}
    if not out:
        raise ValueError("names must contain at least one weighting")
    return out


# --------------------------------------------------------------------------- (a) spectra
def experiments_spectra(
    *,
    d: int = 400,
    delta: float = 0.5,
    gamma: float = 0.5,
    beta: float = 1.0,
    T: int = 16,
    L: int = 4,
    seed=0,
    names: Sequence[str] = _NAMES,
    beta_max: float | None = None,
    bins: int = 60,
):
    """Spectra of the centered ``S`` for several poolings against Theorems 1-4.

    One panel per weighting (same table and token sequences in every panel):
    histogram of the eigenvalues of ``S``, the bulk density
    ``kappa (MP_delta boxtimes MP_gamma)`` with ``kappa = ||w||^2`` (Theorem 1), and the
    predicted signal outlier from :func:`seqrmt.predict`: finite-table theory
    (spike ``alpha (beta + delta)``, solid) and idealized statement
    (``alpha beta``, dashed).  A triangle marks the top simulated eigenvalue.
    ``beta_max`` fixes the horizontal range to cover the outliers up to that
    ``beta`` (so that frames of a widget share their axes).
    """
    d, V, N = _sizes(d, delta, gamma)
    beta = _checks.nonnegative("beta", beta)
    W = experiments_weights(T, L, names=names)
    R = sr.prefix_correlation(T, L)
    dv, gv = d / V, d / N
    # one panel per weighting, stacked (readable on a phone column)
    fig, axes = figure(1, len(W), width=6.4, height=2.7 * len(W) + 0.6)
    axes = np.atleast_1d(axes)
    alt = [
        _spectrum_panel(
            ax, name, sr.simulate(d, V, N, w, R, beta, seed=seed, n_vectors=1), w, R, dv, gv, beta, beta_max, bins
        )
        for ax, (name, w) in zip(axes, W.items())
    ]
    legend_below(fig, axes[0], ncols=3, fontsize="x-small")
    fig.suptitle(
        rf"Spectrum of centered $S$: $d = {d}$, $\delta = {dv:.2g}$, "
        rf"$\gamma = {gv:.2g}$, $\beta = {beta:g}$, prefix $T = {T}$, $L = {L}$",
        fontsize="medium",
    )
    return set_alt(
        fig,
        f"Eigenvalue histograms of the centered S, one panel per weighting (d = {d}, "
        f"δ = {fmt(dv, 2)}, γ = {fmt(gv, 2)}, β = {fmt(beta)}, prefix model T = {T}, L = {L}), "
        f"with the bulk density of the paper's Theorem 1 and the predicted outliers. " + "; ".join(alt) + ".",
    )


def _spectrum_panel(ax, name, sim, w, R, dv, gv, beta, beta_max, bins) -> str:
    """One panel of :func:`experiments_spectra`: the simulated spectrum ``sim`` of the weighting ``name``
    against the bulk density and the predicted outliers; returns its part of the alt text."""
    lam = sim.eigenvalues
    p = sr.predict(dv, gv, w, R, beta)
    pi = sr.predict(dv, gv, w, R, beta, finite_table=False)
    ref = sr.predict(dv, gv, w, R, max(beta, _checks.positive("beta_max", beta_max))) if beta_max else p
    hi = 1.12 * max(lam[0], ref.sample_outlier or 0.0, pi.sample_outlier or 0.0, ref.bulk_edge)
    edges = np.linspace(0, hi, bins + 1)
    counts, _, _ = ax.hist(lam, bins=edges, density=True, color=SIM_COLOR, alpha=0.8, label="simulation")
    x = np.linspace(0, hi, 500)
    ax.plot(x, sr.bulk_density(x, dv, gv, p.kappa), color=THEORY_COLOR, lw=1.4, label="bulk (paper's Thm 1)")
    if p.sample_outlier is not None:
        ax.axvline(p.sample_outlier, color=WEIGHT_COLORS[name], lw=2, label="outlier, finite table")
    if pi.sample_outlier is not None:
        ax.axvline(pi.sample_outlier, color=IDEAL_COLOR, ls="--", lw=1.4, label="outlier, idealized")
    missing = [who for who, q in (("finite-table", p), ("idealized", pi)) if q.sample_outlier is None]
    if missing:  # one note, clear of the bars
        ax.text(
            0.97,
            0.93,
            " and ".join(missing) + " theory:\nno outlier",
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize="x-small",
            color=THEORY_COLOR,
        )
    ax.plot([lam[0]], [0], marker="v", ms=9, color="k", clip_on=False, zorder=5, label=r"top $\lambda$")
    ax.set_xlim(0, hi)
    ax.set_ylim(0, 1.08 * np.max(counts))  # every bar whole
    title = (
        rf"{name}: $\alpha/\kappa = {p.alpha / p.kappa:.2f}$"
        "\n"
        rf"$|u_S^\top u|^2$ sim {sim.overlaps[0]:.2f}, theory {p.overlap:.2f}"
    )
    finish(ax, xlabel=r"$\lambda$", ylabel="density", title=title, legend=False)
    return (
        f"{name} weights (α/κ = {p.alpha / p.kappa:.2f}): bulk up to {fmt(p.bulk_edge)}, top "
        f"eigenvalue {fmt(lam[0])}, "
        + (
            f"predicted outlier {fmt(p.sample_outlier)} by the finite-table theory"
            if p.sample_outlier is not None
            else "no outlier predicted by the finite-table theory"
        )
        + (
            f" and {fmt(pi.sample_outlier)} idealized"
            if pi.sample_outlier is not None
            else ", none by the idealized one"
        )
        + f", alignment {sim.overlaps[0]:.2f} simulated vs {p.overlap:.2f} predicted"
    )


# --------------------------------------------------------------------------- (b) alignment
def experiments_alignment_data(
    *,
    d: int = 300,
    delta: float = 0.5,
    gamma: float = 0.5,
    betas=(0.125, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0),
    T: int = 16,
    L: int = 4,
    seeds=5,
    names: Sequence[str] = _NAMES,
    n_theory: int = 120,
) -> dict:
    """Simulated and predicted alignment ``|u_S^T u|^2`` of the top eigenvector of the
    centered ``S`` with ``u = mu / ||mu||``, against ``beta``.

    The simulation uses :func:`seqrmt.simulate` (one table and token draw per seed,
    the same for every ``beta`` and weighting: common random numbers) summarized over
    seeds by :func:`seqrmt.repeat`.  Theory: :func:`seqrmt.predict` (exact finite-table,
    ``eta_pop eta_s beta/(beta+delta)``, and idealized ``finite_table=False``) on a fine
    grid, and the sample thresholds :func:`seqrmt.critical_beta` of both.

    Returns
    -------
    dict
        ``betas``, ``beta_grid``, and per weighting name a dict with ``mean``, ``std``,
        ``n`` (simulation), ``exact`` and ``ideal`` (theory on ``betas``),
        ``exact_grid``, ``ideal_grid`` (theory on ``beta_grid``), ``beta_c`` and
        ``beta_c_ideal``, ``alpha_over_kappa``; and ``d``, ``delta``, ``gamma``.
    """
    d, V, N = _sizes(d, delta, gamma)
    betas = np.asarray(betas, dtype=float)
    if betas.ndim != 1 or betas.size < 1 or np.any(betas <= 0) or not np.all(np.isfinite(betas)):
        raise ValueError(f"betas must be a non-empty list of values > 0 (u = mu/||mu|| needs beta > 0), got {betas!r}")
    W = experiments_weights(T, L, names=names)
    R = sr.prefix_correlation(T, L)
    dv, gv = d / V, d / N

    def one(seed):
        out = {}
        for name, w in W.items():
            out[name] = [sr.simulate(d, V, N, w, R, b, seed=seed, n_vectors=1).overlaps[0] for b in betas]
        return out

    summ = sr.repeat(one, seeds)
    grid = np.linspace(0, betas.max(), _checks.integer("n_theory", n_theory, minimum=2))
    res = dict(betas=betas, beta_grid=grid, d=d, delta=dv, gamma=gv)
    for name, w in W.items():
        ex = lambda bs, ft: np.array([sr.predict(dv, gv, w, R, b, finite_table=ft).overlap for b in bs])
        res[name] = dict(
            mean=summ.mean[name],
            std=summ.std[name],
            n=summ.n,
            exact=ex(betas, True),
            ideal=ex(betas, False),
            exact_grid=ex(grid, True),
            ideal_grid=ex(grid, False),
            beta_c=sr.critical_beta(dv, gv, w, R),
            beta_c_ideal=sr.critical_beta(dv, gv, w, R, finite_table=False),
            alpha_over_kappa=sr.alpha(w, R) / sr.kappa(w),
        )
    res["names"] = list(W)
    return res


def experiments_alignment(
    *,
    d: int = 300,
    delta: float = 0.5,
    gamma: float = 0.5,
    betas=(0.125, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0),
    T: int = 16,
    L: int = 4,
    seeds=5,
    names: Sequence[str] = _NAMES,
    data: dict | None = None,
):
    """Alignment ``|u_S^T u|^2`` against ``beta``: simulation vs theory (Theorems 2-4).

    One panel per weighting: simulated mean with error bars (one standard deviation
    over seeds), exact finite-table prediction (solid), idealized prediction
    (dashed), and the two sample thresholds ``beta_c`` (dotted verticals).  Pass
    ``data`` from :func:`experiments_alignment_data` to reuse a computation;
    ``seeds`` may be a count or a list.
    """
    if data is None:
        if not isinstance(seeds, (list, tuple, np.ndarray)):
            seeds = _checks.integer("seeds", seeds)
        data = experiments_alignment_data(
            d=d, delta=delta, gamma=gamma, betas=betas, T=T, L=L, seeds=seeds, names=names
        )
    names = data["names"]
    fig, axes = figure(1, len(names), width=6.4, height=2.6 * len(names) + 0.6, sharey=True)
    axes = np.atleast_1d(axes)
    alt = []
    for i, (ax, name) in enumerate(zip(axes, names)):
        r = data[name]
        alt.append(
            f"{name} (α/κ = {r['alpha_over_kappa']:.2f}): critical β {r['beta_c']:.2f} finite table and "
            f"{r['beta_c_ideal']:.2f} idealized; at β = {fmt(data['betas'][-1])} simulated "
            f"{r['mean'][-1]:.2f}, finite-table {r['exact'][-1]:.2f}, idealized {r['ideal'][-1]:.2f}"
        )
        ax.plot(data["beta_grid"], r["exact_grid"], color=THEORY_COLOR, lw=1.8, label="finite-table theory")
        ax.plot(data["beta_grid"], r["ideal_grid"], "--", color=IDEAL_COLOR, lw=1.5, label="idealized theory")
        ax.errorbar(
            data["betas"],
            r["mean"],
            yerr=r["std"],
            fmt="o",
            ms=5,
            color=WEIGHT_COLORS[name],
            mec="k",
            mew=0.5,
            capsize=3,
            label=f"simulation ({r['n']} seeds)",
        )
        ax.axvline(r["beta_c"], color=THEORY_COLOR, ls=":", lw=1.2)
        if r["beta_c_ideal"] <= data["beta_grid"][-1]:
            ax.axvline(r["beta_c_ideal"], color=IDEAL_COLOR, ls=":", lw=1.2)
        ax.text(
            0.97,
            0.04,
            rf"$\beta_c$ = {r['beta_c']:.2f} (fin. table)"
            "\n"
            rf"$\beta_c$ = {r['beta_c_ideal']:.2f} (ideal.)",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize="x-small",
        )
        ax.set_ylim(-0.02, 1.0)
        finish(
            ax,
            xlabel=r"$\beta = \|\mu\|^2$",
            ylabel=r"$|u_S^\top u|^2$",
            title=rf"{name} ($\alpha/\kappa = {r['alpha_over_kappa']:.2f}$)",
            legend=False,
        )
    legend_below(fig, axes[0], ncols=3, fontsize="x-small")
    fig.suptitle(
        rf"Alignment with the signal: $d = {data['d']}$, $\delta = {data['delta']:.2g}$, "
        rf"$\gamma = {data['gamma']:.2g}$",
        fontsize="medium",
    )
    return set_alt(
        fig,
        f"Squared alignment of the top eigenvector of the centered S with the signal against β "
        f"from {fmt(data['betas'][0])} to {fmt(data['betas'][-1])} (d = {data['d']}, "
        f"δ = {fmt(data['delta'], 2)}, γ = {fmt(data['gamma'], 2)}), one panel per weighting: "
        f"simulated means ({data[names[0]]['n']} seeds) with finite-table and idealized theory curves. "
        + "; ".join(alt)
        + ".",
    )


# --------------------------------------------------------------------------- (c) downstream
def experiments_classification_data(
    *,
    d: int = 300,
    delta: float = 0.5,
    Ns=(25, 50, 100, 200, 400),
    beta: float = 0.5,
    T: int = 16,
    L: int = 4,
    seeds=5,
    ridge: float = 1.0,
    n_test: int = 1000,
    names: Sequence[str] = _NAMES,
) -> dict:
    """Ridge-regression accuracy for the label ``xi_1`` against ``N``.

    Calls :func:`seqrmt.classification_curve`, a paired design: for each seed and each
    ``N`` all weightings see the same table, training and test sequences.  ``ridge``
    is the ridge penalty (written zeta in the book).  Adds ``alpha_over_kappa`` per
    weighting and the sizes used; each weighting's entry also holds the per-seed
    accuracies ``values`` (rows paired across weightings)."""
    d, V, _ = _sizes(d, delta, 1.0)
    W = experiments_weights(T, L, names=names)
    R = sr.prefix_correlation(T, L)
    out = sr.classification_curve(
        d, V, list(Ns), W, R, _checks.nonnegative("beta", beta), ridge=ridge, n_test=n_test, seeds=seeds
    )
    out["alpha_over_kappa"] = {n: sr.alpha(w, R) / sr.kappa(w) for n, w in W.items()}
    out.update(names=list(W), d=d, V=V, beta=beta)
    return out


def experiments_classification(
    *,
    d: int = 300,
    delta: float = 0.5,
    Ns=(25, 50, 100, 200, 400),
    beta: float = 0.5,
    T: int = 16,
    L: int = 4,
    seeds=5,
    ridge: float = 1.0,
    n_test: int = 1000,
    names: Sequence[str] = _NAMES,
    data: dict | None = None,
):
    """Downstream accuracy against the number of training sequences ``N``.

    Ridge regression on the pooled ``c_n`` predicts the sign shared by the first
    ``L`` positions; mean over seeds with error bars (standard error).  The legend
    gives ``alpha/kappa``, which orders the curves.
    """
    if data is None:
        data = experiments_classification_data(
            d=d, delta=delta, Ns=Ns, beta=beta, T=T, L=L, seeds=seeds, ridge=ridge, n_test=n_test, names=names
        )
    fig, ax = figure(width=6.0, height=3.6)
    for name in data["names"]:
        r = data[name]
        ax.errorbar(
            data["N"],
            r["mean"],
            yerr=np.asarray(r["std"]) / np.sqrt(r["n"]),
            fmt="o-",
            color=WEIGHT_COLORS[name],
            mec="k",
            mew=0.5,
            capsize=3,
            label=rf"{name} ($\alpha/\kappa = {data['alpha_over_kappa'][name]:.2f}$)",
        )
    ax.set_xscale("log")
    ax.set_xticks(data["N"], [str(n) for n in data["N"]])
    ax.minorticks_off()
    ax.axhline(0.5, color="0.5", lw=0.8, ls=":")
    finish(
        ax,
        xlabel=r"training sequences $N$",
        ylabel="test accuracy",
        title=rf"Ridge classification of the prefix sign: $d = {data['d']}$, "
        rf"$V = {data['V']}$, $\beta = {data['beta']:g}$",
        legend=False,
    )
    legend_below(fig, ax, ncols=3, fontsize="small")
    return set_alt(
        fig,
        "Test accuracy of ridge classification of the prefix sign against the number of training "
        "sequences N (log scale, N = "
        + ", ".join(str(n) for n in data["N"])
        + f"; d = {data['d']}, V = {data['V']}, β = {fmt(data['beta'])}), one curve per weighting, "
        f"chance level 0.5 dotted: "
        + "; ".join(
            f"{n} (α/κ = {data['alpha_over_kappa'][n]:.2f}) from {data[n]['mean'][0]:.2f} to {data[n]['mean'][-1]:.2f}"
            for n in data["names"]
        )
        + ".",
    )
