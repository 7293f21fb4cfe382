"""Figures for the spikes chapter: the two BBP transitions (Theorems 2-4) and what a
finite vocabulary table changes (exact finite-table theory versus the idealized
statement).

All theory comes from :mod:`seqrmt.spikes` (``predict``, ``spike_curve``,
``critical_beta``) and :mod:`seqrmt.spectrum` (``bulk_density``, ``bulk_edges``);
simulations from :func:`seqrmt.simulate`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from .. import _checks
from ..attention import alpha as _alpha
from ..attention import named_weights
from ..attention import kappa as _kappa
from ..experiments import simulate
from ..model import prefix_correlation, sizes
from ..spectrum import bulk_atom, bulk_density, bulk_edges
from ..spikes import critical_beta, population_threshold, predict, sample_threshold, spike_curve
from ._style import (
    IDEAL_COLOR,
    MEAN_SPIKE_COLOR,
    SIM_COLOR,
    THEORY_COLOR,
    figure,
    legend_below,
    legend_right,
    finish,
    fmt,
    set_alt,
)

__all__ = [
    "spikes_spectrum",
    "spikes_centering",
    "spikes_vs_beta",
    "spikes_phase_diagram",
    "spikes_fixed_T",
    "spikes_fixed_T_limit",
    "spikes_fixed_T_vs_T",
]

_WEIGHT_NAMES = ("mean", "causal", "optimal")
_EDGE_COLOR = "#777777"


def _theory(theory: str) -> tuple[bool, bool]:
    if theory not in ("exact", "ideal", "both"):
        raise ValueError(f"theory must be 'exact', 'ideal' or 'both', got {theory!r}")
    return theory in ("exact", "both"), theory in ("ideal", "both")


def _sizes(d, delta, gamma):
    d = _checks.integer("d", d, minimum=2)
    return (d, *sizes(d, delta, gamma))


def _draw_spectrum(ax, sim, exact, ideal, *, bins, show_legend=True):
    """Histogram of the simulated spectrum with the bulk law, its edge and the predicted outliers."""
    p = exact if exact is not None else ideal
    lam = sim.eigenvalues
    d = lam.size
    left, right = bulk_edges(p.delta, p.gamma, p.kappa)
    candidates = [right, lam[0]] + [q for pr in (exact, ideal) if pr is not None for q in pr.outliers]
    xmax = 1.12 * max(candidates)
    # continuous part only (eigenvalues at zero form the atom bulk_atom(delta, gamma))
    atom = bulk_atom(p.delta, p.gamma)
    keep = lam > 1e-9 * max(right, 1e-300) if atom > 0 else np.ones(d, bool)
    edges_h = np.linspace(0.0, xmax, bins + 1)
    ax.hist(
        lam[keep],
        bins=edges_h,
        weights=np.full(keep.sum(), 1.0 / d / (edges_h[1] - edges_h[0])),
        color=SIM_COLOR,
        alpha=0.55,
        label=f"simulated spectrum ($d={d}$)",
    )
    x = np.linspace(0.0, xmax, 600)
    dens = bulk_density(x, p.delta, p.gamma, p.kappa)
    ax.plot(x, dens, color=THEORY_COLOR, lw=1.3, label=r"bulk $\kappa(\mathrm{MP}_\delta\boxtimes\mathrm{MP}_\gamma)$")
    ymax = 1.15 * max(np.max(dens[np.isfinite(dens)]) if np.any(np.isfinite(dens)) else 1.0, 1e-12)
    top = lam[: min(3, d)]
    ax.plot(
        top,
        np.full(top.size, 0.04 * ymax),
        "v",
        color=SIM_COLOR,
        mec="k",
        mew=0.5,
        ms=7,
        label="simulated top eigenvalues",
        zorder=5,
    )
    ax.axvline(right, color=_EDGE_COLOR, ls="-.", lw=1, label="bulk edge")
    if exact is not None:
        if exact.sample_outlier is not None:
            ax.axvline(
                exact.sample_outlier,
                color=THEORY_COLOR,
                lw=1.6,
                label=r"signal outlier, finite table $\theta=\alpha(\beta+\delta)$",
            )
        if exact.mean_outlier is not None:
            ax.axvline(
                exact.mean_outlier,
                color=MEAN_SPIKE_COLOR,
                lw=1.6,
                ls=":",
                label=r"vocabulary-mean outlier $\sigma_w^2\delta$",
            )
    if ideal is not None and ideal.sample_outlier is not None:
        ax.axvline(
            ideal.sample_outlier,
            color=IDEAL_COLOR,
            lw=1.6,
            ls="--",
            label=r"signal outlier, idealized $\theta=\alpha\beta$",
        )
    ax.set_xlim(0.0, xmax)
    ax.set_ylim(0.0, ymax)
    finish(ax, xlabel=r"eigenvalue $\lambda$", ylabel="density", legend=False)
    if show_legend:
        # below the axes, so that it never hides the outliers
        ax.legend(fontsize="x-small", frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)


def _overlap_text(sim, exact, ideal, centered):
    parts = [rf"top eigvec: $|\hat u^\top u|^2$ sim {sim.overlaps[0]:.2f}"]
    if exact is not None:
        parts.append(
            f"finite-table {exact.overlap:.2f}"
            if exact.outliers and exact.sample_outlier == exact.outliers[0]
            else "finite-table 0 (not the signal)"
        )
    if ideal is not None:
        parts.append(f"ideal {ideal.overlap:.2f}")
    txt = ", ".join(parts)
    if not centered:
        txt += rf"; with $\bar z$: {sim.mean_overlaps[0]:.2f}"
    return txt


def _spectrum_alt(sim, exact, ideal) -> str:
    """Key numbers of one spectrum panel: bulk edge, top eigenvalues, predicted outliers."""
    p = exact if exact is not None else ideal
    right = bulk_edges(p.delta, p.gamma, p.kappa)[1]
    lam = sim.eigenvalues
    n_out = int(np.sum(lam > right * 1.02))
    parts = [
        f"bulk up to {fmt(right)}",
        f"top simulated eigenvalue {fmt(lam[0])}"
        + (f" ({n_out} above the bulk edge)" if n_out else " (none clearly above the bulk edge)"),
    ]
    if exact is not None:
        if exact.sample_outlier is not None:
            parts.append(f"finite-table prediction of the signal outlier {fmt(exact.sample_outlier)}")
        else:
            parts.append("finite-table theory predicts no signal outlier")
        if exact.mean_outlier is not None:
            parts.append(f"vocabulary-mean outlier predicted at {fmt(exact.mean_outlier)}")
    if ideal is not None:
        parts.append(
            f"idealized prediction {fmt(ideal.sample_outlier)}"
            if ideal.sample_outlier is not None
            else "idealized theory predicts no outlier"
        )
    parts.append(f"squared alignment of the top eigenvector with the signal {sim.overlaps[0]:.2f}")
    return "; ".join(parts)


def spikes_spectrum(
    *,
    beta: float = 1.0,
    delta: float = 0.5,
    gamma: float = 0.25,
    T: int = 16,
    L: int = 4,
    weights: str = "optimal",
    d: int = 400,
    centered: bool = True,
    theory: str = "both",
    seed: int = 0,
    bins: int = 60,
    realized: bool = False,
):
    """Simulated spectrum of ``S`` for the prefix model with the predicted outliers.

    Draws the histogram of the eigenvalues of one simulated ``S`` (``d`` given,
    ``V = d/delta``, ``N = d/gamma``), the bulk density ``kappa (MP_delta boxtimes MP_gamma)``
    of Theorem 1 and its right edge, the simulated top eigenvalues (triangles) and the
    predicted outliers (Theorems 2-4): the exact finite-table one (spike
    ``theta = alpha (beta + delta)``), the idealized one (``theta = alpha beta``) and, for the
    uncentered ``S``, the vocabulary-mean outlier (spike ``sigma_w^2 delta``).

    Parameters
    ----------
    beta, delta, gamma : float
        ``||mu||^2``, ``d/V`` and ``d/N``.
    T, L : int
        Prefix model: the first ``L`` of ``T`` positions share one sign.
    weights : {"mean", "causal", "optimal"}
        Pooling weights (see :func:`seqrmt.named_weights`).
    d : int
        Dimension of the simulation (``d = 400`` takes well under a second).
    centered : bool
        Centered sample covariance, or the paper's uncentered ``S``.
    theory : {"exact", "ideal", "both"}
        Which prediction of the signal outlier to draw.
    seed : int
        Seed of the table and of the sequences.
    bins : int
        Number of histogram bins.
    realized : bool
        Use the table's realized ``||mu + Delta||^2``, ``||Delta||^2`` and ``||zbar||^2``
        instead of their limits ``beta + delta``, ``delta`` and ``delta`` in the exact
        prediction (removes the order ``d^{-1/2}`` table-to-table fluctuation).
    """
    show_exact, show_ideal = _theory(theory)
    beta = _checks.nonnegative("beta", beta)
    bins = _checks.integer("bins", bins, minimum=2)
    d, V, N = _sizes(d, delta, gamma)
    R = prefix_correlation(T, L)
    w = named_weights(weights, R)
    sim = simulate(d, V, N, w, R, beta, centered=centered, seed=seed, n_vectors=3)
    kw = sim.realized_norms if realized else {}
    exact = predict(delta, gamma, w, R, beta, centered=centered, **kw) if show_exact else None
    ideal = predict(delta, gamma, w, R, beta, centered=centered, finite_table=False) if show_ideal else None
    fig, ax = figure(width=6.8, height=4.6)
    _draw_spectrum(ax, sim, exact, ideal, bins=bins, show_legend=False)
    legend_below(fig, ax, ncols=2, fontsize="x-small")  # below the axes: never over the outliers
    ax.set_title(
        rf"{weights} weights, $\beta={beta:g}$, $\delta={delta:g}$, $\gamma={gamma:g}$, "
        f"{'centered' if centered else 'uncentered'}\n" + _overlap_text(sim, exact, ideal, centered),
        fontsize="small",
    )
    return set_alt(
        fig,
        f"Histogram of the eigenvalues of one simulated {'centered' if centered else 'uncentered'} "
        f"S (d = {d}, prefix model T = {T}, L = {L}) with {weights} weights at β = {fmt(beta)}, "
        f"δ = {fmt(delta)}, γ = {fmt(gamma)}, and the bulk density of the paper's Theorem 1: "
        + _spectrum_alt(sim, exact, ideal)
        + ".",
    )


def spikes_centering(
    *,
    beta: float = 1.0,
    delta: float = 0.5,
    gamma: float = 0.5,
    T: int = 16,
    L: int = 4,
    weights: str = "mean",
    d: int = 400,
    seed: int = 0,
    bins: int = 50,
    realized: bool = True,
):
    """Uncentered versus centered ``S`` on the same data: the vocabulary-mean outlier.

    The pooled vectors carry the vocabulary-mean noise ``sigma_w zbar``; in the
    uncentered ``S`` it is a spike of strength ``sigma_w^2 ||zbar||^2 ~ sigma_w^2 delta``
    that obeys the same two-stage BBP formulas as the signal. Centering removes it.
    Top: uncentered, bottom: centered (same table and sequences). The exact predictions
    use the realized ``||mu + Delta||^2``, ``||Delta||^2`` and ``||zbar||^2`` when
    ``realized`` is true.
    """
    beta = _checks.nonnegative("beta", beta)
    d, V, N = _sizes(d, delta, gamma)
    R = prefix_correlation(T, L)
    w = named_weights(weights, R)
    # panels stacked, so that the figure stays readable on a phone column
    fig, axes = figure(1, 2, width=6.4, height=7.6, sharey=False)
    alt = []
    for ax, centered in zip(axes, (False, True)):
        sim = simulate(d, V, N, w, R, beta, centered=centered, seed=seed, n_vectors=3)
        kw = sim.realized_norms if realized else {}
        exact = predict(delta, gamma, w, R, beta, centered=centered, **kw)
        _draw_spectrum(ax, sim, exact, None, bins=bins, show_legend=not centered)
        ax.set_title(
            ("uncentered $S$" if not centered else "centered $S_c$")
            + "\n"
            + rf"top eigvec: $|\hat u^\top u|^2$={sim.overlaps[0]:.2f}, "
            + rf"$|\hat u^\top \bar z|^2/\|\bar z\|^2$={sim.mean_overlaps[0]:.2f}",
            fontsize="small",
        )
        alt.append(
            f"{'Top, uncentered S' if not centered else 'Bottom, centered S'}: "
            + _spectrum_alt(sim, exact, None)
            + f"; squared alignment of the top eigenvector with the vocabulary mean "
            f"{sim.mean_overlaps[0]:.2f}."
        )
    return set_alt(
        fig,
        f"Eigenvalue histograms of the same simulated data (d = {d}, {weights} weights, "
        f"β = {fmt(beta)}, δ = {fmt(delta)}, γ = {fmt(gamma)}) before and after centering. " + " ".join(alt),
    )


def _curve(theta, beta, delta, gamma, kappa, finite_table):
    c = spike_curve(theta, delta, gamma, kappa)
    shrink = beta / (beta + delta) if finite_table else np.ones_like(beta)
    return c.sample_location, c.overlap * shrink


def spikes_vs_beta(
    *,
    delta: float = 0.5,
    gamma: float = 0.25,
    T: int = 16,
    L: int = 4,
    weights: str = "optimal",
    beta_max: float = 3.0,
    sim_betas=(0.0, 0.5, 1.0, 1.5, 2.0, 3.0),
    seeds=(0, 1, 2),
    d: int = 400,
):
    """Top eigenvalue and top-eigenvector alignment of the centered ``S`` against ``beta``.

    Theory curves (vectorized :func:`seqrmt.spike_curve`): exact finite-table
    (``theta = alpha (beta + delta)``, alignment ``eta_pop eta_s beta/(beta+delta)``) and
    idealized (``theta = alpha beta``, alignment ``eta_pop eta_s``); below the sample
    threshold the top eigenvalue sits at the bulk edge and the alignment is 0.
    Simulation: mean and standard deviation over ``seeds`` at each of ``sim_betas``
    (``seeds=()`` draws theory only). Dotted verticals: critical ``beta`` of both theories.
    """
    beta_max = _checks.positive("beta_max", beta_max)
    d, V, N = _sizes(d, delta, gamma)
    R = prefix_correlation(T, L)
    w = named_weights(weights, R)
    k, a = _kappa(w), _alpha(w, R)
    b = np.linspace(0.0, beta_max, 301)
    loc_e, ov_e = _curve(a * (b + delta), b, delta, gamma, k, True)
    loc_i, ov_i = _curve(a * b, b, delta, gamma, k, False)
    edge = bulk_edges(delta, gamma, k)[1]
    fig, (ax1, ax2) = figure(1, 2, width=6.4, height=7.0)
    ax1.plot(b, loc_e, color=THEORY_COLOR, lw=1.8, label=r"finite table, $\theta=\alpha(\beta+\delta)$")
    ax1.plot(b, loc_i, color=IDEAL_COLOR, lw=1.8, ls="--", label=r"idealized, $\theta=\alpha\beta$")
    ax1.axhline(edge, color=_EDGE_COLOR, ls="-.", lw=1, label="bulk edge")
    ax2.plot(b, ov_e, color=THEORY_COLOR, lw=1.8, label="finite table")
    ax2.plot(b, ov_i, color=IDEAL_COLOR, lw=1.8, ls="--", label="idealized")
    for ft, col in ((True, THEORY_COLOR), (False, IDEAL_COLOR)):
        bc = critical_beta(delta, gamma, w, R, finite_table=ft)
        if 0 < bc < beta_max:
            for ax in (ax1, ax2):
                ax.axvline(bc, color=col, ls=":", lw=1)
    sim_betas = [float(x) for x in sim_betas]
    seeds = list(seeds)
    if seeds and sim_betas:
        top, ov = _simulated_top(d, V, N, w, R, sim_betas, seeds)
        sd = (lambda x: x.std(axis=1, ddof=1)) if len(seeds) > 1 else (lambda x: np.zeros(len(x)))
        lab = f"simulation ($d={d}$, {len(seeds)} seeds)"
        ax1.errorbar(
            sim_betas, top.mean(1), sd(top), fmt="o", color=SIM_COLOR, mec="k", mew=0.5, capsize=3, label=lab, zorder=5
        )
        ax2.errorbar(
            sim_betas, ov.mean(1), sd(ov), fmt="o", color=SIM_COLOR, mec="k", mew=0.5, capsize=3, label=lab, zorder=5
        )
    # a margin on the right: the simulation at beta_max is drawn whole
    ax1.set_xlim(0, 1.03 * beta_max)
    ax2.set_xlim(0, 1.03 * beta_max)
    ax2.set_ylim(-0.02, 1.02)
    finish(
        ax1,
        xlabel=r"signal strength $\beta=\|\mu\|^2$",
        ylabel=r"top eigenvalue $\lambda_1(S_c)$",
        title=f"{weights} weights, prefix $T={T}, L={L}$, $\\delta={delta:g}$, $\\gamma={gamma:g}$",
    )
    finish(
        ax2,
        xlabel=r"signal strength $\beta=\|\mu\|^2$",
        ylabel=r"$|\hat u_1^\top u|^2$",
        title="alignment of the top eigenvector with $u=\\mu/\\|\\mu\\|$",
    )
    crit = {ft: critical_beta(delta, gamma, w, R, finite_table=ft) for ft in (True, False)}
    alt = (
        f"Two panels against the signal strength β from 0 to {fmt(beta_max)}, {weights} weights, "
        f"prefix model T = {T}, L = {L}, δ = {fmt(delta)}, γ = {fmt(gamma)}. Top: top eigenvalue "
        f"of the centered S against the bulk edge {fmt(edge)}; {_onset(crit[True], beta_max, 'finite-table theory')}, "
        f"{_onset(crit[False], beta_max, 'idealized theory')}; at β = {fmt(beta_max)} the predicted top eigenvalue is "
        f"{fmt(loc_e[-1])} (exact) and {fmt(loc_i[-1])} (idealized). Bottom: squared alignment of the "
        f"top eigenvector with the signal, 0 without an outlier, reaching {ov_e[-1]:.2f} (exact) and "
        f"{ov_i[-1]:.2f} (idealized) at β = {fmt(beta_max)}."
    )
    if seeds and sim_betas:
        alt += (
            f" Simulated means (d = {d}, {len(seeds)} seed{'s' if len(seeds) > 1 else ''}) at β = "
            + ", ".join(fmt(x) for x in sim_betas)
            + ": top eigenvalue "
            + ", ".join(fmt(x) for x in top.mean(1))
            + "; alignment "
            + ", ".join(f"{x:.2f}" for x in ov.mean(1))
            + "."
        )
    return set_alt(fig, alt)


def _simulated_top(d, V, N, w, R, sim_betas, seeds) -> tuple[np.ndarray, np.ndarray]:
    """The top eigenvalue and the alignment of its eigenvector, simulated at each of ``sim_betas``
    (rows) with each of ``seeds`` (columns)."""
    top = np.empty((len(sim_betas), len(seeds)))
    ov = np.empty_like(top)
    for i, bb in enumerate(sim_betas):
        for j, s in enumerate(seeds):
            sim = simulate(d, V, N, w, R, _checks.nonnegative("sim_betas", bb), seed=s, n_vectors=1)
            top[i, j], ov[i, j] = sim.eigenvalues[0], sim.overlaps[0]
    return top, ov


def _onset(crit: float, beta_max: float, name: str) -> str:
    """Where a theory's outlier appears, for the alt text: its critical ``beta`` ``crit``."""
    if crit <= 0:
        return f"{name}: an outlier already at β = 0"
    if crit >= beta_max:
        return f"{name}: no outlier up to β = {fmt(beta_max)}"
    return f"{name}: outlier from the critical β = {fmt(crit)}"


_PHASE_COLORS = ("#eeeeee", "#f6d7b0", "#c7e6c1")
_PHASE_LABELS = ("no outlier", "population outlier only", "sample outlier")


def spikes_phase_diagram(
    *,
    plane: str = "gamma",
    delta: float = 0.5,
    gamma: float = 0.5,
    T: int = 16,
    L: int = 4,
    weights: str = "mean",
    beta_max: float = 2.0,
    y_max: float | None = None,
    n: int = 200,
    ideal: bool = True,
    point: tuple[float, float] | None = None,
):
    """Phase diagram of the two BBP transitions (Theorems 2-3) for the finite table.

    Colors the ``(beta, gamma)`` plane (``plane="gamma"``, ``delta`` fixed) or the
    ``(beta, delta)`` plane (``plane="delta"``, ``gamma`` fixed) by the exact
    finite-table regime of the signal spike ``theta = alpha (beta + delta)``: no outlier,
    population outlier only (``theta/kappa > delta + sqrt(delta)`` but ``phi' <= 0``:
    too few samples), or sample outlier. Solid black: the exact thresholds; dashed
    violet: the idealized ones (``theta = alpha beta``) when ``ideal``. Computed on an
    ``n x n`` grid by one vectorized :func:`seqrmt.spike_curve` call.

    Parameters
    ----------
    point : (beta, y), optional
        A parameter point to mark with a star.
    """
    if plane not in ("gamma", "delta"):
        raise ValueError(f"plane must be 'gamma' or 'delta', got {plane!r}")
    beta_max = _checks.positive("beta_max", beta_max)
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    n = _checks.integer("n", n, minimum=10)
    if y_max is None:
        y_max = 2.0 if plane == "gamma" else 3.0
    y_max = _checks.positive("y_max", y_max)
    R = prefix_correlation(T, L)
    w = named_weights(weights, R)
    k, a = _kappa(w), _alpha(w, R)
    b = np.linspace(0.0, beta_max, n)
    y = np.linspace(y_max / n, y_max, n)
    B, Y = np.meshgrid(b, y)
    dl, gm = (np.full_like(Y, delta), Y) if plane == "gamma" else (Y, np.full_like(Y, gamma))
    c = spike_curve(a * (B + dl), dl, gm, k)
    region = c.population_exists.astype(int) + c.sample_exists.astype(int)
    fig, ax = figure(width=6.4, height=5.0)
    ax.pcolormesh(
        B, Y, region, cmap=ListedColormap(_PHASE_COLORS), vmin=-0.5, vmax=2.5, shading="auto", rasterized=True
    )
    # threshold lines from the smooth margins theta - theta_c (one root solve per row)
    dls = np.full(n, delta) if plane == "gamma" else y
    gms = y if plane == "gamma" else np.full(n, gamma)
    styles = [(a * (B + dl), THEORY_COLOR, "-", r"finite-table thresholds, $\theta=\alpha(\beta+\delta)$")]
    if ideal:
        styles.append((a * B, IDEAL_COLOR, "--", r"idealized thresholds, $\theta=\alpha\beta$"))
    handles = [Patch(color=col, label=lab) for col, lab in zip(_PHASE_COLORS, _PHASE_LABELS)]
    handles += _threshold_lines(ax, B, Y, styles, dls, gms, k)
    if point is not None:
        ax.plot(*point, "*", color="k", ms=12, zorder=5)
    ax.set_xlim(0, beta_max)
    ax.set_ylim(0, y_max)
    ylab = r"$\gamma = d/N$" if plane == "gamma" else r"$\delta = d/V$"
    fixed = rf"$\delta={delta:g}$" if plane == "gamma" else rf"$\gamma={gamma:g}$"
    finish(
        ax,
        xlabel=r"signal strength $\beta=\|\mu\|^2$",
        ylabel=ylab,
        legend=False,
        title=f"{weights} weights, prefix $T={T}, L={L}$\n{fixed}, "
        rf"$\alpha/\kappa={a / k:.2f}$",
    )
    legend_below(fig, handles=handles, ncols=2, fontsize="x-small")
    ylab_txt = "γ = d/N" if plane == "gamma" else "δ = d/V"
    frac = [float(np.mean(region == r)) for r in (0, 1, 2)]
    alt = (
        f"Phase diagram of the signal spike, {weights} weights, prefix model T = {T}, L = {L}, "
        f"{'δ' if plane == 'gamma' else 'γ'} = {fmt(delta if plane == 'gamma' else gamma)}, "
        f"α/κ = {a / k:.2f}: horizontal axis signal strength β from 0 to {fmt(beta_max)}, vertical "
        f"axis {ylab_txt} from 0 to {fmt(y_max)}. Regions: no outlier ({frac[0]:.0%} of the plane, "
        f"small β), population outlier only ({frac[1]:.0%}), sample outlier ({frac[2]:.0%}, large β). "
        f"The sample outlier appears from {_first_beta(region[0], b, beta_max)} at {ylab_txt.split(' ')[0]} = "
        f"{fmt(y[0], 2)} and from {_first_beta(region[-1], b, beta_max)} at {ylab_txt.split(' ')[0]} = "
        f"{fmt(y[-1], 2)}; solid lines are the "
        "finite-table thresholds" + (", dashed the idealized ones, to their left." if ideal else ".")
    )
    return set_alt(fig, alt)


def _threshold_lines(ax, B, Y, styles, dls, gms, k) -> list:
    """The two thresholds (population, sample) of each theory of ``styles`` (``(theta, colour, line
    style, label)``) as contours of ``theta - theta_c`` on the grid ``(B, Y)``; their legend handles."""
    from matplotlib.lines import Line2D

    t_pop = np.array([population_threshold(x, k) for x in dls])[:, None]
    t_smp = np.array([sample_threshold(x, g, k) for x, g in zip(dls, gms)])[:, None]
    handles = []
    for theta, col, ls, lab in styles:
        for thr in (t_pop, t_smp):
            m = theta - thr
            if m.min() < 0 < m.max():
                ax.contour(B, Y, m, levels=[0.0], colors=col, linewidths=1.6, linestyles=ls)
        handles.append(Line2D([], [], color=col, lw=1.6, ls=ls, label=lab))
    return handles


def _first_beta(row: np.ndarray, b: np.ndarray, beta_max: float) -> str:
    """The smallest ``beta`` of a row of the phase grid with a sample outlier, for the alt text."""
    hit = np.nonzero(row == 2)[0]
    return f"β ≈ {fmt(b[hit[0]], 2)}" if hit.size else f"no β up to {fmt(beta_max)}"


def spikes_fixed_T(*, rows=None, Ts=(1, 2), beta_max_ratio: float = 3.2):
    """The signal eigenvalue at fixed ``T``: prediction against simulation as ``beta`` grows.

    One column per ``T`` (mean pooling over independent positions; the settings of
    :func:`seqrmt.validation.load_fixed_T_spike`, whose rows are used when ``rows`` is None):
    top, the top eigenvalue of the centered ``S``; bottom, the squared cosine of its eigenvector
    with ``mu / ||mu||``.  Solid: the fixed-``T`` prediction (:func:`seqrmt.fixed_T_predict`, at
    ``T' = 1`` with the typical token spectrum at the rows' ``d``); dashed: the large-``T``
    formula (:func:`seqrmt.predict`); points: simulated means with two standard errors.
    Hollow points: strengths without a fixed-``T`` signal eigenvalue (below the onset, or a root
    inside a part of the bulk with a density), or with more than ``0.2`` bulk eigenvalues expected
    above it at that ``d`` (the top eigenvalue need not be the signal one).
    """
    from ..validation import load_fixed_T_spike

    if rows is None:
        rows = load_fixed_T_spike()[0]
    rows = list(rows)
    Ts = [_checks.integer("T", T) for T in Ts]
    beta_max_ratio = _checks.positive("beta_max_ratio", beta_max_ratio)
    fig, axes = figure(len(Ts), 2, width=min(7.2, 3.6 * len(Ts)), height=7.0)
    axes = np.asarray(axes).reshape(2, len(Ts))
    alt = [_fixed_T_column(axes[0, j], axes[1, j], T, rows, beta_max_ratio, j == 0) for j, T in enumerate(Ts)]
    handles = {}
    for ax in axes.ravel():  # one legend for all panels, below them
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(
        list(handles.values()), list(handles), loc="outside lower center", ncols=2, fontsize="small", frameon=False
    )
    return set_alt(
        fig,
        f"{2 * len(Ts)} panels: top row the top eigenvalue, bottom row its alignment with μ, "
        f"against β, one column per sequence length, with the fixed-T prediction (solid), the "
        f"large-T formula (dashed) and simulations with two standard errors. " + " ".join(alt),
    )


def _fixed_T_column(ax1, ax2, T, rows, beta_max_ratio, first: bool) -> str:
    """The column of :func:`spikes_fixed_T` for ``T`` (top ``ax1``, bottom ``ax2``; the y labels on the
    ``first``); returns its sentence of the alt text."""
    from ..fixed_T_spike import fixed_T_spike_model
    from ..attention import mean_weights

    rs = sorted((r for r in rows if r["T"] == T), key=lambda r: r["beta"])
    if not rs:
        raise ValueError(f"no rows for T = {T}")
    delta, gamma, d, bc = rs[0]["delta"], rs[0]["gamma"], int(rs[0]["d"]), rs[0]["beta_c"]
    w, R = mean_weights(T), np.eye(T)
    model = fixed_T_spike_model(delta, gamma, w, R, d=d)
    betas = np.linspace(0.8 * bc, beta_max_ratio * bc, 160)
    loc_f, ov_f = model.curve(betas)
    big = [predict(delta, gamma, w, R, b) for b in betas]
    loc_l = np.array([np.nan if p.sample_outlier is None else p.sample_outlier for p in big])
    ov_l = np.array([p.overlap for p in big])
    ax1.plot(betas, loc_f, color=THEORY_COLOR, lw=1.8, label="fixed $T$")
    ax1.plot(betas, loc_l, color=IDEAL_COLOR, lw=1.6, ls="--", label="large $T$")
    ax2.plot(betas, ov_f, color=THEORY_COLOR, lw=1.8, label="fixed $T$")
    ax2.plot(betas, ov_l, color=IDEAL_COLOR, lw=1.6, ls="--", label="large $T$")
    clear = [r for r in rs if r["bulk_above"] <= 0.2]  # nan (no prediction) is not clear
    crowded = [r for r in rs if not r["bulk_above"] <= 0.2]
    for group, face, lab in (
        (clear, SIM_COLOR, f"simulation ($d={d}$, {int(rs[0]['n'])} tables)"),
        (crowded, "white", "simulation, no clear signal eigenvalue predicted"),
    ):
        for ax, key in ((ax1, "lambda"), (ax2, "overlap")):
            if group:
                ax.errorbar(
                    [r["beta"] for r in group],
                    [r[f"{key}_sim"] for r in group],
                    [2 * r[f"{key}_sem"] for r in group],
                    fmt="o",
                    color=SIM_COLOR,
                    mfc=face,
                    mec="k",
                    mew=0.6,
                    capsize=3,
                    label=lab,
                    zorder=5,
                )
    for ax in (ax1, ax2):
        ax.axvline(bc, color=IDEAL_COLOR, ls=":", lw=1)
        ax.set_xlim(betas[0], betas[-1])
    ax2.set_ylim(-0.02, 1.0)
    finish(
        ax1,
        ylabel=r"top eigenvalue $\lambda_1(S_c)$" if first else None,
        title=f"$T={T}$, $\\delta={delta:g}$, $\\gamma={gamma:g}$",
        legend=False,
    )
    finish(
        ax2,
        xlabel=r"signal strength $\beta=\|\mu\|^2$",
        ylabel=r"$|\hat u_1^\top u|^2$" if first else None,
        legend=False,
    )
    gap_f = max(abs(r["overlap_sim"] - r["overlap_fixed_T"]) for r in clear)
    gap_l = max(abs(r["overlap_sim"] - r["overlap_large_T"]) for r in clear)
    return (
        f"T = {T}: the simulated alignments lie within {fmt(gap_f, 2)} of the fixed-T curve and up to "
        f"{fmt(gap_l, 2)} from the large-T curve, which is higher near the threshold "
        f"(dotted line, β = {fmt(bc)}); at {len(crowded)} of {len(rs)} strengths (hollow points) no "
        "signal eigenvalue is predicted, or bulk eigenvalues are expected above it."
    )


def spikes_fixed_T_limit(*, Ts=(1, 2, 4, 8, 16), delta: float = 0.5, gamma: float = 0.5, ratio_max: float = 3.0):
    """The fixed-``T`` alignment tends to the large-``T`` one as ``T`` grows.

    Mean pooling over ``T`` independent positions, so that ``theta / theta_c`` at a given
    ``beta / beta_c`` is the same for every ``T`` and the large-``T`` alignment
    (:func:`seqrmt.predict`) is one curve; one solid curve per ``T`` for the fixed-``T``
    alignment (:func:`seqrmt.fixed_T_predict`), against ``beta / beta_c``.
    """
    from ..fixed_T_spike import fixed_T_spike_model
    from ..attention import mean_weights
    from matplotlib import colormaps

    Ts = [_checks.integer("T", T) for T in Ts]
    if not Ts:
        raise ValueError("Ts must not be empty")
    ratio_max = _checks.positive("ratio_max", ratio_max)
    if ratio_max <= 1:
        raise ValueError(f"ratio_max must be > 1, got {ratio_max}")
    ratios = np.linspace(0.9, ratio_max, 120)
    fig, ax = figure(1, 1, width=6.4, height=3.8)
    cmap = colormaps["viridis"]
    gaps = []
    for i, T in enumerate(Ts):
        w, R = mean_weights(T), np.eye(T)
        bc = critical_beta(delta, gamma, w, R)
        _, ov = fixed_T_spike_model(delta, gamma, w, R).curve(ratios * bc)
        ov_l = np.array([predict(delta, gamma, w, R, r * bc).overlap for r in ratios])
        has = ov > 0  # where a fixed-T signal eigenvalue is predicted
        gaps.append(float(np.max(np.abs(ov - ov_l)[has])) if has.any() else float("nan"))
        ax.plot(ratios, ov, color=cmap(i / max(1, len(Ts) - 1) * 0.9), lw=1.6, label=f"fixed $T={T}$")
    ax.plot(ratios, ov_l, color="k", lw=1.4, ls="--", label="large $T$ (every $T$)")
    ax.set_xlim(ratios[0], ratios[-1])
    ax.set_ylim(-0.02, 0.8)
    finish(
        ax,
        xlabel=r"$\beta/\beta_c$ (large-$T$ sample threshold $\beta_c$)",
        ylabel=r"$|\hat u^\top u|^2$ predicted",
        title=f"mean pooling, independent positions, $\\delta={delta:g}$, $\\gamma={gamma:g}$",
        legend=False,
    )
    legend_right(ax)  # off the curves (the dips of T = 1 reach every height)
    return set_alt(
        fig,
        "Predicted alignment of the signal eigenvector with μ against β over the large-T threshold, "
        "one solid curve per sequence length T = "
        + ", ".join(map(str, Ts))
        + ", and the large-T curve (dashed, the same for every T). The largest gap between a "
        "fixed-T curve and the large-T curve, where the fixed-T one predicts a signal eigenvalue, is "
        + ", ".join(f"{fmt(g, 2)} at T = {T}" for T, g in zip(Ts, gaps))
        + ": the fixed-T curves approach the large-T one as T grows.",
    )


def spikes_fixed_T_vs_T(*, rows=None, Ts=(1, 2, 4, 8, 16, 32, 64), settings=None):
    """The fixed-``T`` prediction against the large-``T`` one as ``T`` grows, with simulations.

    Top, the signal eigenvalue relative to the large-``T`` location (:func:`seqrmt.predict`,
    ``finite_table=True``), in percent; bottom, the difference of the squared cosines with
    ``mu / ||mu||``.  One solid curve per correlation (``settings``: ``(label, R(T), weights(T),
    delta, gamma, beta, T_min)``; default Markov ``rho = 0.8`` and the prefix model ``L = T/4``,
    mean weights) for the fixed-``T`` prediction (:func:`seqrmt.fixed_T_predict`); the zero line is
    the large-``T`` formula.  Points: the stored simulations of
    :func:`seqrmt.load_fixed_T_spike_correlated` (``rows``), each against the large-``T``
    prediction of its own setting, with two standard errors (so settings with other weights or
    ratios share the axes).
    """
    from ..fixed_T_spike import load_fixed_T_spike_correlated

    if rows is None:
        rows = load_fixed_T_spike_correlated()[0]
    rows = [r for r in rows if r["kind"] == "spike"]
    Ts = sorted({_checks.integer("T", T) for T in Ts})
    if not Ts:
        raise ValueError("Ts must not be empty")
    if settings is None:
        settings = _correlated_settings()
    fig, (ax1, ax2) = figure(1, 2, width=7.2, height=6.6)
    colors = [THEORY_COLOR, MEAN_SPIKE_COLOR, "#2ca02c", "#9467bd"]
    alt = []
    for k, (label, R_of, w_of, delta, gamma, beta, tmin) in enumerate(settings):
        ts, loc, ov = _fixed_against_large_T([T for T in Ts if T >= tmin], R_of, w_of, delta, gamma, beta)
        col = colors[k % len(colors)]
        ax1.plot(ts, loc, "-", marker="s", ms=4, color=col, lw=1.6, label=f"fixed $T$: {label}")
        ax2.plot(ts, ov, "-", marker="s", ms=4, color=col, lw=1.6, label=f"fixed $T$: {label}")
        if ts:
            alt.append(
                f"{label}: from {fmt(loc[0], 2)} % and {fmt(ov[0], 2)} at T = {ts[0]} to {fmt(loc[-1], 2)} % "
                f"and {fmt(ov[-1], 2)} at T = {ts[-1]}."
            )
    sim_t, sim_l, sim_le, sim_o, sim_oe = _simulated_against_large_T(rows)
    if rows:
        lab = f"simulation ($d={int(rows[0]['d'])}$, {int(rows[0]['n'])} tables, 2 s.e.)"
        ax1.errorbar(sim_t, sim_l, sim_le, fmt="o", color=SIM_COLOR, mec="k", mew=0.6, capsize=3, label=lab, zorder=5)
        ax2.errorbar(sim_t, sim_o, sim_oe, fmt="o", color=SIM_COLOR, mec="k", mew=0.6, capsize=3, label=lab, zorder=5)
    for ax in (ax1, ax2):
        ax.axhline(0.0, color="k", ls="--", lw=1.2, label="large-$T$ formula")
        ax.set_xscale("log", base=2)
        ax.set_xticks(Ts, [str(T) for T in Ts])
        ax.minorticks_off()
    finish(ax1, xlabel="sequence length $T$", ylabel=r"eigenvalue vs large $T$ (%)", legend=False)
    finish(ax2, xlabel="sequence length $T$", ylabel=r"alignment minus large $T$", legend=False)
    handles = {}
    for h, lab in zip(*ax1.get_legend_handles_labels()):
        handles.setdefault(lab, h)
    fig.legend(
        list(handles.values()), list(handles), loc="outside lower center", ncols=1, fontsize="small", frameon=False
    )
    return set_alt(
        fig,
        "Two panels, one above the other, against the sequence length T (log scale): top, the fixed-T signal eigenvalue "
        "relative to the large-T formula in percent; bottom, the fixed-T squared cosine with μ minus "
        "the large-T one; the dashed zero line is the large-T formula and the points are stored "
        "simulations with two standard errors. "
        + " ".join(alt)
        + (
            f" The simulated points lie between {fmt(min(sim_l), 2)} % and {fmt(max(sim_l), 2)} % in "
            f"location and between {fmt(min(sim_o), 2)} and {fmt(max(sim_o), 2)} in alignment."
            if rows
            else ""
        ),
    )


def _correlated_settings() -> list[tuple]:
    """The default settings of :func:`spikes_fixed_T_vs_T`: ``(label, R(T), weights(T), delta, gamma, beta,
    T_min)`` for Markov ``rho = 0.8`` and the prefix model ``L = T/4``, mean weights."""
    from ..attention import mean_weights
    from ..model import markov_correlation

    return [
        (
            r"Markov $\rho=0.8$, $\delta=\gamma=0.5$, $\beta=1$",
            lambda T: markov_correlation(T, 0.8),
            mean_weights,
            0.5,
            0.5,
            1.0,
            1,
        ),
        (
            r"prefix $L=T/4$, $\delta=1$, $\gamma=0.5$, $\beta=2$",
            lambda T: prefix_correlation(T, T // 4),
            mean_weights,
            1.0,
            0.5,
            2.0,
            4,
        ),
    ]


def _fixed_against_large_T(Ts, R_of, w_of, delta, gamma, beta) -> tuple[list, list, list]:
    """For each ``T`` of ``Ts`` with a signal eigenvalue in both predictions: the fixed-``T`` one relative
    to the large-``T`` one, in percent, and the difference of their squared cosines."""
    from ..fixed_T_spike import fixed_T_predict

    ts, loc, ov = [], [], []
    for T in Ts:
        R, w = R_of(T), w_of(T)
        pf, pl = fixed_T_predict(delta, gamma, w, R, beta), predict(delta, gamma, w, R, beta)
        if pf.sample_outlier is None or pl.sample_outlier is None:
            continue
        ts.append(T)
        loc.append(100.0 * (pf.sample_outlier / pl.sample_outlier - 1.0))
        ov.append(pf.overlap - pl.overlap)
    return ts, loc, ov


def _simulated_against_large_T(rows) -> tuple[list, list, list, list, list]:
    """The stored simulations, each against the large-``T`` prediction of its own setting: ``T``, the
    eigenvalue relative to it (percent) with two standard errors, the squared cosine minus it with two
    standard errors."""
    from ..fixed_T_spike import fixed_T_setting

    sim_t, sim_l, sim_le, sim_o, sim_oe = [], [], [], [], []
    for r in rows:
        w, R = fixed_T_setting(r)
        pl = predict(r["delta"], r["gamma"], w, R, r["beta"])
        sim_t.append(int(r["T"]))
        sim_l.append(100.0 * (r["lambda_sim"] / pl.sample_outlier - 1.0))
        sim_le.append(200.0 * r["lambda_sem"] / pl.sample_outlier)
        sim_o.append(r["overlap_sim"] - pl.overlap)
        sim_oe.append(2.0 * r["overlap_sem"])
    return sim_t, sim_l, sim_le, sim_o, sim_oe
