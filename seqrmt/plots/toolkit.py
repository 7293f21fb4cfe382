"""Figures of the Toolkit chapter: Marchenko-Pastur from simulation, reading a density from
the Stieltjes transform, the classic BBP transition of the white spiked covariance, and a
free multiplicative convolution checked against a product of two Wishart matrices.

Formulas come from :mod:`seqrmt.spectrum` and :mod:`seqrmt.toolkit`; every simulation has a
fixed seed.
"""

from __future__ import annotations

import numpy as np

from .. import _checks
from ..spectrum import BulkLaw, bulk_atom, bulk_density, bulk_edges, mp_density, mp_edges, mp_stieltjes
from ..toolkit import (
    bbp_outlier,
    bbp_overlap,
    bbp_threshold,
    empirical_stieltjes,
    semicircle_density,
    spiked_covariance_sample,
    stieltjes_inversion,
    wishart_product_eigenvalues,
)
from ._style import IDEAL_COLOR, SIM_COLOR, THEORY_COLOR, WEIGHT_COLORS, figure, legend_below, finish, fmt, set_alt

__all__ = [
    "toolkit_mp_convergence_figure",
    "toolkit_stieltjes_figure",
    "toolkit_bbp_figure",
    "toolkit_bbp_explorer_figure",
    "toolkit_free_product_figure",
    "toolkit_semicircle_figure",
]

_EPS_COLORS = ["#C6DBEF", "#6BAED6", "#2171B5", "#08306B"]


def _wishart_eigenvalues(d: int, gamma: float, seed) -> np.ndarray:
    """Eigenvalues of ``Y Y^T / N`` (``Y`` is ``d x N`` standard Gaussian, ``N = round(d/gamma)``):
    the white model of :func:`seqrmt.spiked_covariance_sample` with ``theta = 0``."""
    return spiked_covariance_sample(d, gamma, 0.0, seed=seed)[0]


def _hist(ax, lam, bins, *, label, color=SIM_COLOR):
    """Histogram normalized by the total count (area = fraction of non-zero eigenvalues); returns
    the bar heights drawn."""
    lam = np.asarray(lam)
    nz = lam[lam > 1e-9 * max(lam.max(), 1e-300)]
    counts, edges = np.histogram(nz, bins=bins)
    heights = counts / (lam.size * np.diff(edges))
    ax.stairs(heights, edges, fill=True, color=color, alpha=0.55, label=label)
    return heights


def toolkit_mp_convergence_figure(gamma: float = 0.5, ds=(25, 100, 800), *, seed=0):
    """Marchenko-Pastur from simulation: spectra of ``Y Y^T / N`` for growing ``d`` at fixed
    ``gamma = d / N``, against the density of ``MP_gamma``; the panel titles give the
    Kolmogorov distance to the law (:func:`seqrmt.validation.kolmogorov_distance`)."""
    from ..validation import kolmogorov_distance

    gamma = _checks.positive("gamma", gamma)
    ds = [_checks.integer("ds", d, minimum=2) for d in ds]
    if not ds:
        raise ValueError("ds must contain at least one dimension")
    a, b = mp_edges(gamma)
    x = np.linspace(0, 1.1 * b, 500)
    law = BulkLaw(0.0, gamma)
    fig, axes = figure(nrows=len(ds), width=6.4, height=1.9 * len(ds) + 0.5, sharex=True, sharey=True)
    axes = np.atleast_1d(axes)
    kss = []
    for ax, d in zip(axes, ds):
        lam = _wishart_eigenvalues(d, gamma, seed)
        kss.append(kolmogorov_distance(lam, law))
        _hist(ax, lam, np.linspace(0, 1.1 * b, 36 if d >= 400 else 16), label=f"eigenvalues, d={d}")
        ax.plot(x, mp_density(x, gamma), color=THEORY_COLOR, lw=1.5, label=rf"MP$_\gamma$, $\gamma$={gamma:g}")
        ax.set_xlim(0, 1.1 * b)
        finish(
            ax,
            xlabel=r"$\lambda$" if ax is axes[-1] else None,
            ylabel="density",
            title=f"d={d}, N={int(round(d / gamma))}: Kolmogorov distance {kss[-1]:.3f}",
        )
    return set_alt(
        fig,
        f"Histograms of the eigenvalues of white-noise sample covariances with γ = {fmt(gamma)} "
        f"for d = {', '.join(str(d) for d in ds)}, stacked, each under the Marchenko-Pastur density "
        f"between the edges {fmt(a)} and {fmt(b)}. The Kolmogorov distance to the law is "
        f"{', '.join(fmt(k) for k in kss)}: the histogram settles on the curve as d grows.",
    )


def toolkit_stieltjes_figure(gamma: float = 0.5, eps=(0.3, 0.1, 0.03, 0.003), *, d: int = 400, seed=0):
    """Reading a density from the Stieltjes transform: ``-Im G(x + i eps)/pi`` for decreasing
    ``eps`` (:func:`seqrmt.stieltjes_inversion`). Left: ``G`` of ``MP_gamma``
    (:func:`seqrmt.mp_stieltjes`), which converges to the density. Right: the empirical
    ``G_d`` of one simulated spectrum (:func:`seqrmt.empirical_stieltjes`), which is smooth
    for ``eps`` well above the eigenvalue spacing and turns into spikes at the eigenvalues below it."""
    gamma = _checks.positive("gamma", gamma)
    eps = [_checks.positive("eps", e) for e in eps]
    if not eps:
        raise ValueError("eps must contain at least one value")
    d = _checks.integer("d", d, minimum=2)
    a, b = mp_edges(gamma)
    x = np.linspace(-0.1 * b, 1.15 * b, 1500)
    lam = _wishart_eigenvalues(d, gamma, seed)
    f = mp_density(x, gamma)
    fig, (ax1, ax2) = figure(nrows=2, width=6.4, height=5.8, sharex=True, sharey=True)
    colors = (_EPS_COLORS * len(eps))[-len(eps) :] if len(eps) <= 4 else [None] * len(eps)
    for e, col in zip(eps, colors):
        ax1.plot(
            x,
            stieltjes_inversion(lambda z: mp_stieltjes(z, gamma), x, e),
            color=col,
            lw=1.3,
            label=rf"$\epsilon$={e:g}",
        )
        ax2.plot(
            x,
            stieltjes_inversion(lambda z: empirical_stieltjes(z, lam), x, e),
            color=col,
            lw=1.1,
            label=rf"$\epsilon$={e:g}",
        )
    for ax in (ax1, ax2):
        ax.plot(x, f, color=THEORY_COLOR, lw=1.2, ls="--", label="MP density")
        ax.set_xlim(x[0], x[-1])
    ax1.set_ylim(0, 1.25 * f.max())
    inside = (x > a) & (x < b)
    errs = [
        float(np.max(np.abs(stieltjes_inversion(lambda z: mp_stieltjes(z, gamma), x[inside], e) - f[inside])))
        for e in eps
    ]
    finish(ax1, ylabel=r"$-\mathrm{Im}\,G(x+i\epsilon)/\pi$", title=rf"Top: $G$ of MP$_\gamma$, $\gamma$={gamma:g}")
    finish(
        ax2,
        xlabel=r"$x$",
        ylabel=r"$-\mathrm{Im}\,G_d(x+i\epsilon)/\pi$",
        title=f"Bottom: empirical $G_d$ of d={d} eigenvalues (spacing about {(b - a) / d:.3f})",
        legend=False,
    )
    eps_text = ", ".join(fmt(e) for e in eps)
    return set_alt(
        fig,
        f"Density read from the Stieltjes transform at x + iε for ε = {eps_text}, "
        f"γ = {fmt(gamma)}. Top: for the exact Marchenko-Pastur transform the curves sharpen into "
        f"the dashed density as ε decreases (largest error {', '.join(fmt(e) for e in errs)}). "
        f"Bottom: for the transform of {d} simulated eigenvalues the curves with ε above the "
        f"spacing {fmt((b - a) / d)} follow the density, the smallest ε gives a spike at each "
        f"eigenvalue.",
    )


def toolkit_bbp_figure(gamma: float = 0.5, *, d: int = 400, n_seeds: int = 6, n_points: int = 9, seed: int = 0):
    """The classic BBP transition for ``Sigma_theta = I + theta u u^T`` with ``d/N = gamma``.

    Left: top sample eigenvalue against ``theta`` (theory :func:`seqrmt.bbp_outlier`, the bulk
    edge, simulated means with one standard deviation over ``n_seeds`` seeds). Right: the squared
    overlap of the top eigenvector with ``u`` (:func:`seqrmt.bbp_overlap`). The dotted line is
    the threshold ``theta_c = sqrt(gamma)``."""
    gamma = _checks.positive("gamma", gamma)
    d = _checks.integer("d", d, minimum=2)
    n_seeds = _checks.integer("n_seeds", n_seeds, minimum=2)
    n_points = _checks.integer("n_points", n_points, minimum=2)
    seed = _checks.integer("seed", seed, minimum=0)
    tc = bbp_threshold(gamma)
    th = np.linspace(0, 4 * tc, 400)
    ths = np.linspace(0.25 * tc, 4 * tc, n_points)
    sims = [
        [spiked_covariance_sample(d, gamma, t, seed=seed + n_seeds * i + s) for s in range(n_seeds)]
        for i, t in enumerate(ths)
    ]  # independent seeds for every point
    top = np.array([[s[0][0] for s in row] for row in sims])
    ov = np.array([[s[1] for s in row] for row in sims])
    fig, (ax1, ax2) = figure(nrows=2, width=6.4, height=5.8, sharex=True)
    ax1.plot(th, bbp_outlier(th, gamma), color=THEORY_COLOR, lw=1.8, label="theory")
    ax1.axhline(mp_edges(gamma)[1], color=IDEAL_COLOR, ls="--", lw=1, label=r"bulk edge $(1+\sqrt{\gamma})^2$")
    ax2.plot(th, bbp_overlap(th, gamma), color=THEORY_COLOR, lw=1.8, label="theory")
    kw = dict(fmt="o", color=SIM_COLOR, mec="k", mew=0.5, ms=5, capsize=2)
    ax1.errorbar(ths, top.mean(1), top.std(1, ddof=1), label=f"simulation, d={d}", **kw)
    ax2.errorbar(ths, ov.mean(1), ov.std(1, ddof=1), label=f"simulation, d={d}", **kw)
    for ax in (ax1, ax2):
        ax.axvline(tc, color="0.4", ls=":", lw=1)
    ax2.set_ylim(-0.03, 1.0)
    finish(
        ax1,
        ylabel=r"top eigenvalue $\lambda_1$",
        title=rf"Top: outlier location, $\gamma$={gamma:g}, $\theta_c$={tc:.3f}",
    )
    finish(
        ax2,
        xlabel=r"spike strength $\theta$",
        ylabel=r"$(\hat u^\top \mathsf{e})^2$",
        title="Bottom: eigenvector overlap",
    )
    err_top = float(np.max(np.abs(top.mean(1) - bbp_outlier(ths, gamma))))
    err_ov = float(np.max(np.abs(ov.mean(1) - bbp_overlap(ths, gamma))))
    top_max, ov_max = float(bbp_outlier(4 * tc, gamma)), float(bbp_overlap(4 * tc, gamma))
    return set_alt(
        fig,
        f"Classic BBP transition at γ = {fmt(gamma)} against the spike strength θ from 0 to "
        f"{fmt(4 * tc)}, threshold θc = {fmt(tc)} dotted. Top: the top eigenvalue stays at the bulk "
        f"edge {fmt(mp_edges(gamma)[1])} below the threshold and rises along the theory curve to "
        f"{fmt(top_max)} above it. Bottom: the squared eigenvector overlap is 0 "
        f"below the threshold and rises to {fmt(ov_max)}. Simulated means over "
        f"{n_seeds} seeds at d = {d} (dots with error bars) are within {fmt(err_top)} of the "
        f"eigenvalue curve and {fmt(err_ov)} of the overlap curve.",
    )


def toolkit_bbp_explorer_figure(
    theta: float = 1.0, gamma: float = 0.5, *, d: int = 200, seed: int = 0, xmax: float = 7.0
):
    """One frame of the classic-BBP explorer: the simulated spectrum of the white spiked
    model (``d``, ``N = d/gamma``, one seed) over the ``MP_gamma`` density, with the predicted
    outlier (or the bulk edge, below the threshold) and the simulated top eigenvalue; the title
    compares the predicted and simulated squared overlaps."""
    theta = _checks.nonnegative("theta", theta)
    gamma = _checks.positive("gamma", gamma)
    d = _checks.integer("d", d, minimum=2)
    xmax = _checks.positive("xmax", xmax)
    lam, ov = spiked_covariance_sample(d, gamma, theta, seed=seed)
    a, b = mp_edges(gamma)
    x = np.linspace(0, xmax, 800)
    pred = float(bbp_outlier(theta, gamma))
    pov = float(bbp_overlap(theta, gamma))
    fig, ax = figure(width=6.4, height=4.4)
    heights = _hist(ax, lam, np.linspace(0, xmax, 60), label=f"eigenvalues, d={d}")
    ax.plot(x, mp_density(x, gamma), color=THEORY_COLOR, lw=1.4, label=r"MP$_\gamma$ density")
    ax.axvline(b, color=IDEAL_COLOR, ls="--", lw=1, label="bulk edge")
    above = theta > bbp_threshold(gamma)
    ax.axvline(
        pred,
        color=WEIGHT_COLORS["optimal"],
        lw=2,
        alpha=0.8,
        label="predicted outlier" if above else "no outlier: top eigenvalue at the edge",
    )
    ax.plot([lam[0]], [0.04], "v", color=SIM_COLOR, mec="k", mew=0.5, ms=9, label="simulated top eigenvalue")
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, max(1.2, 1.05 * heights.max()))  # the frames share 1.2 unless a bar is taller (gamma near 1)
    finish(
        ax,
        xlabel=r"$\lambda$",
        ylabel="density",
        title=(
            rf"$\theta$={theta:g}, $\gamma$={gamma:g} ($\theta_c$={bbp_threshold(gamma):.2f})"
            "\n"
            f"overlap theory {pov:.2f}, simulated {ov:.2f}"
        ),
        legend=False,
    )
    legend_below(fig, ax, ncols=2, fontsize="x-small")
    where = (
        f"an outlier predicted at {fmt(pred)}"
        if above
        else f"no outlier predicted (θ below θc = {fmt(bbp_threshold(gamma))}), top eigenvalue at the edge"
    )
    return set_alt(
        fig,
        f"Simulated spectrum of the white spiked covariance with θ = {fmt(theta)}, γ = {fmt(gamma)}, "
        f"d = {d}, over the Marchenko-Pastur density with bulk edge {fmt(b)}: {where}; the simulated "
        f"top eigenvalue is {fmt(lam[0])}. Squared overlap: theory {fmt(pov)}, simulated {fmt(ov)}.",
    )


def toolkit_free_product_figure(delta: float = 0.5, gamma: float = 0.5, *, d: int = 500, seed: int = 0):
    """Free multiplicative convolution in practice: the spectrum of ``S_Z S_Y`` for two
    independent white Wishart matrices of ratios ``delta`` and ``gamma``
    (:func:`seqrmt.wishart_product_eigenvalues`) against the density of
    ``MP_delta boxtimes MP_gamma`` (:func:`seqrmt.bulk_density` with ``kappa = 1``), with the
    two factors dotted; the title gives the Kolmogorov distance and the atom at zero."""
    from ..validation import kolmogorov_distance

    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    d = _checks.integer("d", d, minimum=2)
    lam = wishart_product_eigenvalues(d, delta, gamma, seed=seed)
    left, right = bulk_edges(delta, gamma)
    xmax = 1.1 * right
    x = np.linspace(0, xmax, 1200)[1:]
    fig, ax = figure(width=6.4, height=3.5)
    _hist(ax, lam, np.linspace(0, xmax, 50), label=f"eigenvalues of $S_ZS_Y$, d={d}")
    ax.plot(
        x, mp_density(x, delta), color=WEIGHT_COLORS["mean"], ls=":", lw=1.3, label=rf"MP$_\delta$, $\delta$={delta:g}"
    )
    ax.plot(
        x,
        mp_density(x, gamma),
        color=WEIGHT_COLORS["causal"],
        ls=":",
        lw=1.3,
        label=rf"MP$_\gamma$, $\gamma$={gamma:g}",
    )
    f = bulk_density(x, delta, gamma)
    ax.plot(x, f, color=THEORY_COLOR, lw=1.8, label=r"MP$_\delta\boxtimes$MP$_\gamma$")
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, min(1.3 * float(np.max(f)), 2.5))
    ks = kolmogorov_distance(lam, BulkLaw(delta, gamma))
    finish(
        ax,
        xlabel=r"$\lambda$",
        ylabel="density",
        title=f"product of two Wisharts: KS {ks:.3f}, atom {bulk_atom(delta, gamma):.3f}",
    )
    return set_alt(
        fig,
        f"Histogram of the eigenvalues of the product of two independent Wishart matrices with "
        f"δ = {fmt(delta)}, γ = {fmt(gamma)}, d = {d}, following the solid density of "
        f"MP δ ⊠ MP γ on "
        f"[{fmt(left)}, {fmt(right)}], wider than the two dotted Marchenko-Pastur factors; "
        f"Kolmogorov distance {fmt(ks)}, atom at zero {fmt(bulk_atom(delta, gamma))}.",
    )


def toolkit_semicircle_figure(gammas=(0.5, 0.1, 0.01)):
    """The free central limit theorem through the R-transform: the centred and rescaled law
    ``(MP_gamma - 1)/sqrt(gamma)`` has R-transform ``g / (1 - sqrt(gamma) g)``, which tends to
    ``g``, the R-transform of the semicircle law ``sqrt(4 - x^2)/(2 pi)``."""
    gammas = [_checks.positive("gammas", g) for g in gammas]
    if not gammas:
        raise ValueError("gammas must contain at least one ratio")
    x = np.linspace(-3, 3.5, 1400)
    fig, ax = figure(width=6.0, height=3.3)
    top = float(np.max(semicircle_density(x)))
    for g, col in zip(gammas, (_EPS_COLORS * len(gammas))[-len(gammas) :]):
        s = np.sqrt(g)
        y = s * mp_density(1 + s * x, g)
        top = max(top, float(np.nanmax(y)))
        ax.plot(
            x,
            y,
            color=col,
            lw=1.4,
            label=rf"$(\mathrm{{MP}}_\gamma-1)/\sqrt{{\gamma}}$, $\gamma$={g:g}",
        )
    ax.plot(x, semicircle_density(x), color=THEORY_COLOR, lw=1.4, ls="--", label="semicircle")
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(0, 1.08 * top)  # every curve whole, the peak of the largest gamma included
    finish(ax, xlabel=r"$x$", ylabel="density", title="free central limit: MP tends to the semicircle")
    gaps = [
        float(np.max(np.abs(np.sqrt(g) * mp_density(1 + np.sqrt(g) * x, g) - semicircle_density(x)))) for g in gammas
    ]
    return set_alt(
        fig,
        f"Densities of the centred and rescaled Marchenko-Pastur law (MP γ − 1)/√γ for "
        f"γ = {', '.join(fmt(g) for g in gammas)}, approaching the dashed semicircle density on "
        f"[−2, 2] as γ decreases: largest gap {', '.join(fmt(v) for v in gaps)}.",
    )
