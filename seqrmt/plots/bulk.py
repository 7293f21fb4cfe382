"""Figures for the bulk chapter: Marchenko-Pastur and ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1).

Theory-only figures evaluate :mod:`seqrmt.spectrum` on a vectorized grid; simulation
figures draw the model with :func:`seqrmt.simulate` (independent signs ``R = I`` and
``beta = 0`` by default, so that no outlier is present) and compare the eigenvalue
histogram with the density.
"""

from __future__ import annotations

import numpy as np

from .. import _checks
from ..attention import causal_weights, kappa as _kappa, mean_weights
from ..experiments import simulate
from ..model import prefix_correlation, sizes
from ..fixed_T_bulk import fixed_T_bulk_law
from ..spectrum import (
    BulkLaw,
    bulk_critical_points,
    bulk_inverse_map,
    bulk_atom,
    bulk_density,
    bulk_edges,
    mp_density,
    mp_edges,
)
from ._style import IDEAL_COLOR, SIM_COLOR, THEORY_COLOR, WEIGHT_COLORS, figure, legend_right, finish, fmt, set_alt

__all__ = [
    "bulk_mp_figure",
    "bulk_density_figure",
    "bulk_inverse_map_figure",
    "bulk_limits_figure",
    "bulk_simulation_figure",
    "bulk_kappa_figure",
    "bulk_token_count_figure",
    "bulk_weights",
    "bulk_kolmogorov",
    "bulk_pooled_spectrum",
    "bulk_fixed_T_figure",
    "bulk_fixed_T_convergence_figure",
]

_RANDOM_COLOR = "#937860"
_ZERO_TOL = 1e-9


def _ratios_and_lengths(delta, gamma, Ts) -> tuple[float, float, list[int]]:
    """Checked ``delta > 0``, ``gamma > 0`` and a non-empty list of sequence lengths."""
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    Ts = [_checks.integer("Ts", t) for t in Ts]
    if not Ts:
        raise ValueError("Ts must contain at least one sequence length")
    return delta, gamma, Ts


def bulk_weights(name: str, T: int) -> np.ndarray:
    """Pooling weights used in the bulk figures: ``"mean"``, ``"causal"`` (tau = 0) or
    ``"random"`` (a fixed positive vector summing to one, seed 0)."""
    T = _checks.integer("T", T)
    if name == "mean":
        return mean_weights(T)
    if name == "causal":
        return causal_weights(T)
    if name == "random":
        w = np.random.default_rng(0).exponential(size=T)
        return w / w.sum()
    raise ValueError(f"weights must be 'mean', 'causal' or 'random', got {name!r}")


def bulk_kolmogorov(eigenvalues, law) -> float:
    """Kolmogorov distance ``sup |F_emp - F|`` between a spectrum and a law with a ``cdf``
    (delegates to :func:`seqrmt.validation.kolmogorov_distance`)."""
    from ..validation import kolmogorov_distance

    return kolmogorov_distance(eigenvalues, law)


def _hist_continuous(ax, lam: np.ndarray, bins, *, color, label, step=False, scale=1.0):
    """Histogram of the non-zero eigenvalues, normalized by the TOTAL count, so that its
    area is the fraction of non-zero eigenvalues (comparable to the continuous density)."""
    lam = np.asarray(lam) / scale
    tol = _ZERO_TOL * max(abs(lam).max(), 1e-300)
    nz = lam[lam > tol]
    counts, edges = np.histogram(nz, bins=bins)
    height = counts / (lam.size * np.diff(edges))
    if step:
        ax.stairs(height, edges, color=color, lw=1.4, label=label)
    else:
        ax.stairs(height, edges, fill=True, color=color, alpha=0.55, label=label)
    return 1.0 - nz.size / lam.size


def _mark_edges(ax, left, right, color=THEORY_COLOR):
    ax.axvline(left, color=color, ls="--", lw=0.9)
    ax.axvline(right, color=color, ls="--", lw=0.9, label="edges")


def _annotate_atom(ax, atom: float, measured: float | None = None):
    """Mark the atom at 0 (call after the axis limits are set)."""
    if atom <= 0 and not measured:
        return
    text = f"atom at 0: mass {atom:.3f}"
    if measured is not None:
        text += f"\nzero eigenvalues: {measured:.3f}"
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    ax.annotate(
        text,
        xy=(0, y0 + 0.02 * (y1 - y0)),
        xytext=(x0 + 0.1 * (x1 - x0), y0 + 0.45 * (y1 - y0)),
        fontsize="small",
        bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9),
        arrowprops=dict(arrowstyle="->", color=THEORY_COLOR, lw=1),
    )
    ax.plot([0], [y0], marker="^", ms=9, color=THEORY_COLOR, clip_on=False, zorder=5)


def bulk_mp_figure(ratio: float = 0.5, d: int = 400, *, seed=0):
    """Marchenko-Pastur law: eigenvalues of ``Y Y^T / N`` for white noise ``Y`` (d x N).

    With ``d/N -> gamma = ratio`` the spectrum converges to ``MP_gamma``: density
    ``sqrt((b - x)(x - a)) / (2 pi gamma x)`` on ``[a, b] = [(1 - sqrt gamma)^2, (1 + sqrt gamma)^2]``
    plus an atom ``1 - 1/gamma`` at zero when ``gamma > 1`` {marchenko1967}.  The legend and the
    alt text use chapter 2's names, ``N`` and ``gamma``.
    """
    c = _checks.positive("ratio", ratio)
    d = _checks.integer("d", d, minimum=2)
    n = max(1, int(round(d / c)))
    X = np.random.default_rng(seed).standard_normal((d, n))
    lam = np.linalg.eigvalsh(X @ X.T / n)
    a, b = mp_edges(c)
    x = np.linspace(0, 1.1 * b, 600)
    fig, ax = figure(width=6.0, height=3.4)
    measured = _hist_continuous(
        ax, lam, np.linspace(0, 1.1 * b, 50), color=SIM_COLOR, label=f"eigenvalues, d={d}, N={n}"
    )
    ax.plot(x, mp_density(x, c), color=THEORY_COLOR, lw=1.6, label=f"MP density, $\\gamma$={c:g}")
    _mark_edges(ax, a, b)
    ax.set_xlim(-0.05 * b, 1.1 * b)
    ax.set_ylim(0, None)
    _annotate_atom(ax, max(0.0, 1 - 1 / c), measured if c > 1 else None)
    finish(ax, xlabel=r"$\lambda$", ylabel="density", title="Marchenko–Pastur: white-noise sample covariance")
    atom_txt = (
        f"; an atom of mass {fmt(1 - 1 / c)} at zero (measured fraction of zero eigenvalues {fmt(measured)})"
        if c > 1
        else ""
    )
    return set_alt(
        fig,
        f"Histogram of the eigenvalues of a {d} by {n} white-noise sample covariance "
        f"(ratio γ = d/N = {fmt(c)}) with the Marchenko-Pastur density: the eigenvalues fill "
        f"the support from {fmt(a)} to {fmt(b)} (dashed edges; simulated range "
        f"{fmt(max(lam.min(), 0))} to {fmt(lam.max())}){atom_txt}.",
    )


def bulk_density_figure(
    delta: float = 0.5,
    gamma: float = 0.5,
    kappa: float = 1.0,
    *,
    show_factors: bool = True,
    xmax: float | None = None,
    ymax: float | None = None,
):
    """Theorem 1: the density of ``kappa (MP_delta boxtimes MP_gamma)``, its edges and atom.

    The density ``-Im G(x + i0)/pi`` comes from the physical root of the cubic
    ``x = kappa (1 + psi)(1 + delta psi)(1 + gamma psi)/psi`` (:func:`seqrmt.bulk_density`),
    the edges from the critical points of that map (:func:`seqrmt.bulk_edges`) and the atom
    ``max(0, 1 - 1/delta, 1 - 1/gamma)`` from the rank (:func:`seqrmt.bulk_atom`).  With
    ``show_factors`` the two Marchenko-Pastur factors ``kappa MP_delta`` and
    ``kappa MP_gamma`` are drawn dashed: the product is wider than either.

    Parameters
    ----------
    delta, gamma : float
        ``d/V > 0`` and ``d/N > 0``.
    kappa : float
        Scale ``||w||^2``.
    show_factors : bool
        Also draw the two MP factors.
    xmax, ymax : float, optional
        Fixed axis limits (the explorer uses the same limits for every frame).
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    kappa = _checks.positive("kappa", kappa)
    left, right = bulk_edges(delta, gamma, kappa)
    atom = bulk_atom(delta, gamma)
    xmax = 1.08 * right if xmax is None else _checks.positive("xmax", xmax)
    x = np.linspace(0, xmax, 1200)[1:]
    rho = bulk_density(x, delta, gamma, kappa)
    fig, ax = figure(width=6.4, height=3.6)
    if show_factors:
        ax.plot(
            x,
            mp_density(x, delta, kappa),
            color=WEIGHT_COLORS["mean"],
            ls=":",
            lw=1.3,
            label=r"$\kappa\,$MP$_\delta$ (vocabulary only)",
        )
        ax.plot(
            x,
            mp_density(x, gamma, kappa),
            color=WEIGHT_COLORS["causal"],
            ls=":",
            lw=1.3,
            label=r"$\kappa\,$MP$_\gamma$ (sample only)",
        )
    ax.fill_between(x, rho, color=THEORY_COLOR, alpha=0.12, lw=0)
    ax.plot(x, rho, color=THEORY_COLOR, lw=1.8, label=r"$\kappa\,(\mathrm{MP}_\delta\boxtimes\mathrm{MP}_\gamma)$")
    _mark_edges(ax, left, right)
    top = ymax if ymax is not None else min(1.15 * float(np.max(rho[np.isfinite(rho)], initial=0.1)), 2.5 / kappa)
    ax.set_ylim(0, top)
    ax.set_xlim(-0.02 * xmax, xmax)
    _annotate_atom(ax, atom)
    finish(
        ax,
        xlabel=r"$\lambda$",
        ylabel="density",
        title=f"$\\delta$={delta:g}, $\\gamma$={gamma:g}, $\\kappa$={kappa:g}: "
        f"edges [{left:.3f}, {right:.3f}], atom {atom:.3f}",
    )
    fin = np.isfinite(rho)
    peak = x[fin][np.argmax(rho[fin])] if fin.any() else float("nan")
    factors = (
        f" It is wider than the two dotted Marchenko-Pastur factors, whose right edges are "
        f"{fmt(mp_edges(delta)[1] * kappa)} (vocabulary, δ) and {fmt(mp_edges(gamma)[1] * kappa)} "
        f"(sample, γ)."
        if show_factors
        else ""
    )
    atom_txt = f" An arrow marks the atom of mass {fmt(atom)} at zero." if atom > 0 else " There is no atom at zero."
    return set_alt(
        fig,
        f"Density of the bulk κ(MP δ ⊠ MP γ) of the paper's Theorem 1 at δ = {fmt(delta)}, "
        f"γ = {fmt(gamma)}, κ = {fmt(kappa)}: supported between the dashed edges "
        f"{fmt(left)} and {fmt(right)}, highest near λ = {fmt(peak, 2)}.{factors}{atom_txt}",
    )


def bulk_inverse_map_figure(delta: float = 0.5, gamma: float = 0.5, kappa: float = 1.0):
    """The inverse map ``x(psi) = kappa (1 + psi)(1 + delta psi)(1 + gamma psi) / psi`` on the real line.

    For ``x`` outside the support the equation ``x(psi) = x`` has a real root on the physical
    branch (thick: ``psi > 0`` right of the support, the negative branch next to ``0`` left
    of it).  The support edges are the values of the map at its critical points (dots),
    roots of ``2 delta gamma psi^3 + (delta + gamma + delta gamma) psi^2 - 1 = 0``; between
    them (shaded band) the physical branch has no real solution, the root is complex and
    ``-Im psi / (pi x)`` is the density.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    kappa = _checks.positive("kappa", kappa)
    left, right = bulk_edges(delta, gamma, kappa)
    psi_r, psi_l = bulk_critical_points(delta, gamma)
    lo = min(-1.5, 1.3 * psi_l, -1.3 / max(delta, gamma, 1.0) - 0.5)
    hi = max(3.0, 2.5 * psi_r)
    psi = np.linspace(lo, hi, 4001)
    psi = psi[np.abs(psi) > 1e-3]
    x = bulk_inverse_map(psi, delta, gamma, kappa)
    fig, ax = figure(width=6.2, height=3.8)
    xl = np.where(psi < 0, x, np.nan)
    xr = np.where(psi > 0, x, np.nan)
    ax.plot(psi, xl, color=IDEAL_COLOR, lw=1)
    ax.plot(psi, xr, color=IDEAL_COLOR, lw=1, label=r"$x(\psi)$, all branches")
    phys_r = (psi > 0) & (psi <= psi_r)
    phys_l = (psi < 0) & (psi >= psi_l)
    ax.plot(psi[phys_r], x[phys_r], color=THEORY_COLOR, lw=2.4, label="physical branch")
    ax.plot(psi[phys_l], x[phys_l], color=THEORY_COLOR, lw=2.4)
    ax.axhspan(left, right, color=SIM_COLOR, alpha=0.25, label="support: complex root")
    ax.plot(
        [psi_r, psi_l],
        [right, bulk_inverse_map(psi_l, delta, gamma, kappa)],
        "o",
        color=THEORY_COLOR,
        label="critical points",
    )
    ax.axvline(0, color="gray", lw=0.6)
    ax.axhline(0, color="gray", lw=0.6)
    ax.set_ylim(-1.2 * right, 2.2 * right)
    ax.set_xlim(lo, hi)
    finish(
        ax,
        xlabel=r"$\psi = xG(x) - 1$",
        ylabel=r"$x$",
        title=f"inverse map, $\\delta$={delta:g}, $\\gamma$={gamma:g}: edges [{left:.3f}, {right:.3f}]",
    )
    return set_alt(
        fig,
        f"The inverse map x(ψ) = κ(1+ψ)(1+δψ)(1+γψ)/ψ at δ = {fmt(delta)}, γ = {fmt(gamma)}, "
        f"κ = {fmt(kappa)}, for ψ from {fmt(lo, 2)} to {fmt(hi, 2)}: thick physical branches "
        f"right of ψ = 0 (up to the critical point ψ = {fmt(psi_r)}) and left of it (down to "
        f"ψ = {fmt(psi_l)}); the shaded band between x = {fmt(left)} and x = {fmt(right)}, the "
        f"support, meets only the other branches; dots at the critical points give the edges.",
    )


def bulk_limits_figure(gamma: float = 0.5, deltas=(1.0, 0.3, 0.1, 0.02), kappa: float = 1.0):
    """As ``delta -> 0`` (infinite vocabulary) ``kappa (MP_delta boxtimes MP_gamma) -> kappa MP_gamma``.

    Densities for decreasing ``delta`` at fixed ``gamma`` and the Marchenko-Pastur limit.
    By symmetry of the S-transform in ``(delta, gamma)`` the same happens as ``gamma -> 0``.
    """
    gamma = _checks.positive("gamma", gamma)
    kappa = _checks.positive("kappa", kappa)
    deltas = [_checks.positive("deltas", dl) for dl in deltas]
    if not deltas:
        raise ValueError("deltas must contain at least one value")
    xmax = 1.05 * max(bulk_edges(dl, gamma, kappa)[1] for dl in deltas)
    x = np.linspace(0, xmax, 1000)[1:]
    fig, ax = figure(width=6.0, height=3.4)
    shades = np.linspace(0.35, 0.85, len(deltas))
    import matplotlib

    cmap = matplotlib.colormaps["Blues"]
    for dl, sh in zip(deltas, shades):
        ax.plot(x, bulk_density(x, dl, gamma, kappa), color=cmap(sh), lw=1.5, label=f"$\\delta$={dl:g}")
    mp = mp_density(x, gamma, kappa)
    ax.plot(x, mp, color=THEORY_COLOR, ls="--", lw=1.5, label=r"$\kappa\,$MP$_\gamma$ ($\delta=0$)")
    ax.set_ylim(0, 2.0 * float(mp.max()))
    finish(ax, xlabel=r"$\lambda$", ylabel="density", title=f"back to Marchenko–Pastur, $\\gamma$={gamma:g}")
    rights = ", ".join(f"{fmt(bulk_edges(dl, gamma, kappa)[1])} at δ = {fmt(dl)}" for dl in deltas)
    return set_alt(
        fig,
        f"Bulk densities at γ = {fmt(gamma)}, κ = {fmt(kappa)} for δ = "
        + ", ".join(fmt(dl) for dl in deltas)
        + f", approaching the dashed Marchenko-Pastur density κ MP γ (right edge "
        f"{fmt(mp_edges(gamma)[1] * kappa)}) as δ decreases; right edges {rights}.",
    )


def _simulate_bulk(d, delta, gamma, w, beta, seed):
    V, N = sizes(d, delta, gamma)
    R = prefix_correlation(w.size, 1)  # independent signs: alpha = kappa, no outlier
    sim = simulate(d, V, N, w, R, beta, centered=True, seed=seed, n_vectors=1)
    return sim.eigenvalues, V, N


def bulk_simulation_figure(
    delta: float = 0.5,
    gamma: float = 0.5,
    T: int = 8,
    weights: str = "mean",
    *,
    d: int = 400,
    beta: float = 0.0,
    seed=0,
):
    """Eigenvalue histogram of the centered ``S`` against Theorem 1.

    Draws a table and ``N = d/gamma`` sequences of length ``T`` with independent signs
    (``R = I``, so ``alpha = kappa`` and ``beta = 0`` leaves no outlier), pools them with the
    chosen weights and compares the spectrum of the centered ``S`` with the density of
    ``kappa (MP_delta boxtimes MP_gamma)``, ``kappa = ||w||^2``.  The title reports the
    Kolmogorov distance to :class:`seqrmt.BulkLaw`, the atom is annotated with the measured
    fraction of zero eigenvalues.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    w = bulk_weights(weights, T)
    k = _kappa(w)
    lam, V, N = _simulate_bulk(d, delta, gamma, w, beta, seed)
    law = BulkLaw(delta, gamma, k)
    left, right = law.support()
    xmax = 1.1 * max(right, lam.max())
    fig, ax = figure(width=6.4, height=3.6)
    measured = _hist_continuous(
        ax, lam, np.linspace(0, xmax, 60), color=SIM_COLOR, label=f"eigenvalues of $S_c$ (d={d}, V={V}, N={N})"
    )
    x = np.linspace(0, xmax, 1000)[1:]
    ax.plot(x, law.pdf(x), color=THEORY_COLOR, lw=1.7, label="paper's Theorem 1")
    _mark_edges(ax, left, right)
    ax.set_xlim(-0.02 * xmax, xmax)
    top = min(1.25 * float(law.pdf(np.linspace(left, right, 400)[1:-1]).max()), 2.5 / k)
    ax.set_ylim(0, top)
    _annotate_atom(ax, law.atom, measured if (law.atom > 0 or measured > 0) else None)
    ks = bulk_kolmogorov(lam, law)
    finish(
        ax,
        xlabel=r"$\lambda$",
        ylabel="density",
        title=f"$\\delta$={delta:g}, $\\gamma$={gamma:g}, T={T}, {weights} weights ($\\kappa$={k:.3f})\n"
        f"Kolmogorov distance {ks:.3f}",
    )
    atom_txt = (
        f" The atom at zero has predicted mass {fmt(law.atom)}; measured fraction of zero eigenvalues {fmt(measured)}."
        if law.atom > 0
        else ""
    )
    return set_alt(
        fig,
        f"Histogram of the eigenvalues of the centered S (d = {d}, V = {V}, N = {N}, T = {T}, "
        f"{weights} weights, κ = {fmt(k)}, δ = {fmt(delta)}, γ = {fmt(gamma)}) against the "
        f"density of the paper's Theorem 1 between the dashed edges {fmt(left)} and {fmt(right)}: largest "
        f"eigenvalue {fmt(lam.max())}, Kolmogorov distance {ks:.3f}.{atom_txt}",
    )


def bulk_kappa_figure(delta: float = 0.5, gamma: float = 0.5, T: int = 8, *, d: int = 400, seed=0):
    """The weights change only the scale of the bulk.

    Left: spectra of the centered ``S`` for mean, causal and random weights (same table and
    tokens), each with its own ``kappa (MP_delta boxtimes MP_gamma)`` density.  Right: the
    same eigenvalues divided by ``kappa = ||w||^2`` collapse on one unit-scale law.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    names = ("mean", "causal", "random")
    colors = {"mean": WEIGHT_COLORS["mean"], "causal": WEIGHT_COLORS["causal"], "random": _RANDOM_COLOR}
    fig, (ax0, ax1) = figure(2, width=9.0, height=3.6)
    spectra = {n: _simulate_bulk(d, delta, gamma, bulk_weights(n, T), 0.0, seed)[0] for n in names}
    kap = {n: _kappa(bulk_weights(n, T)) for n in names}
    xmax0 = 1.1 * max(s.max() for s in spectra.values())
    x0 = np.linspace(0, xmax0, 800)[1:]
    _, r1 = bulk_edges(delta, gamma)
    x1 = np.linspace(0, 1.1 * r1, 800)[1:]
    for n in names:
        _hist_continuous(
            ax0, spectra[n], np.linspace(0, xmax0, 60), color=colors[n], step=True, label=f"{n}, $\\kappa$={kap[n]:.3f}"
        )
        ax0.plot(x0, bulk_density(x0, delta, gamma, kap[n]), color=colors[n], lw=1, alpha=0.8)
        _hist_continuous(
            ax1, spectra[n], np.linspace(0, 1.1 * r1, 50), color=colors[n], step=True, label=n, scale=kap[n]
        )
    ax1.plot(x1, bulk_density(x1, delta, gamma), color=THEORY_COLOR, lw=1.8, label=r"MP$_\delta\boxtimes$MP$_\gamma$")
    finish(ax0, xlabel=r"$\lambda$", ylabel="density", title="raw spectra: width set by $\\kappa$")
    finish(ax1, xlabel=r"$\lambda/\kappa$", ylabel="density", title="rescaled by $\\kappa=\\|w\\|^2$: one law")
    ax0.set_ylim(0, None)
    ax1.set_ylim(0, None)
    return set_alt(
        fig,
        f"Left: eigenvalue histograms of the centered S (d = {d}, T = {T}, δ = {fmt(delta)}, "
        f"γ = {fmt(gamma)}) for "
        + ", ".join(f"{n} weights (κ = {fmt(kap[n])}, largest eigenvalue {fmt(spectra[n].max())})" for n in names)
        + f", each with its own density: the width scales with κ. Right: the same eigenvalues "
        f"divided by κ fall on one density MP δ ⊠ MP γ with right edge {fmt(r1)}.",
    )


def bulk_token_count_figure(delta: float = 0.5, gamma: float = 0.5, Ts=(1, 8), *, d: int = 400, seed=0):
    """At ``T = 1`` the bulk bends away from Theorem 1.

    With one token per sequence, ``c_n`` is a single column of the table and the number of
    times each token is used is a classical (multinomial, nearly Poisson) count; for longer
    sequences Theorem 1 holds.  Top: histograms of ``lambda/kappa`` for each ``T`` in ``Ts``
    (mean pooling, centered ``S``) with the law.  Bottom: the difference between the empirical
    distribution function and :meth:`seqrmt.BulkLaw.cdf`, whose maximum is the Kolmogorov
    distance given in the legend.
    """
    delta, gamma, Ts = _ratios_and_lengths(delta, gamma, Ts)
    law = BulkLaw(delta, gamma)
    _, right = law.support()
    fig, (ax, ax1) = figure(1, 2, width=7.2, height=6.4)
    colors = [WEIGHT_COLORS["causal"], WEIGHT_COLORS["mean"], WEIGHT_COLORS["optimal"], _RANDOM_COLOR]
    xmax = 1.15 * right
    dists = []
    for i, T in enumerate(Ts):
        w = mean_weights(T)
        lam, V, N = _simulate_bulk(d, delta, gamma, w, 0.0, seed)
        x = np.sort(lam / _kappa(w))
        ks = bulk_kolmogorov(x, law)
        dists.append(ks)
        col = colors[i % len(colors)]
        _hist_continuous(ax, x, np.linspace(0, xmax, 50), color=col, step=True, label=f"T={T}")
        emp = np.arange(1, x.size + 1) / x.size
        ax1.plot(x, emp - law.cdf(x), color=col, lw=1.3, label=f"T={T}: distance {ks:.3f}")
    grid = np.linspace(0, xmax, 800)[1:]
    ax.plot(grid, law.pdf(grid), color=THEORY_COLOR, lw=1.8, label="paper's Theorem 1")
    ax.set_ylim(0, None)
    ax1.axhline(0, color=THEORY_COLOR, lw=1)
    ax1.set_xlim(0, xmax)
    finish(
        ax,
        xlabel=r"$\lambda/\kappa$",
        ylabel="density",
        title=f"$\\delta$={delta:g}, $\\gamma$={gamma:g}, d={d}, mean pooling",
        legend=False,
    )
    finish(
        ax1,
        xlabel=r"$\lambda/\kappa$",
        ylabel=r"$F_{\mathrm{emp}} - F$",
        title="distance to the law (Kolmogorov)",
        legend=False,
    )
    legend_right(ax)
    legend_right(ax1)
    return set_alt(
        fig,
        f"Top: histograms of the rescaled eigenvalues λ/κ of the centered S (d = {d}, "
        f"δ = {fmt(delta)}, γ = {fmt(gamma)}, mean pooling) for T = "
        + ", ".join(str(T) for T in Ts)
        + " against the density of the paper's Theorem 1. Bottom: empirical minus theoretical distribution "
        "functions; Kolmogorov distances " + ", ".join(f"{ks:.3f} at T = {T}" for T, ks in zip(Ts, dists)) + ".",
    )


def bulk_pooled_spectrum(
    delta: float = 1.5, gamma: float = 1.5, T: int = 2, weights: str = "mean", *, d: int = 1000, seeds=(0, 1, 2)
) -> np.ndarray:
    """Eigenvalues of the centered ``S`` for several independent tables, pooled.

    One draw per seed of :func:`seqrmt.simulate` (``d``, ``V, N = sizes(d, delta, gamma)``,
    independent signs, ``beta = 0``); the spectra are concatenated, so that the empirical
    distribution has ``d * len(seeds)`` eigenvalues.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    d = _checks.integer("d", d, minimum=2)
    w = bulk_weights(weights, T)
    seeds = [_checks.integer("seeds", s, minimum=0) for s in seeds]
    if not seeds:
        raise ValueError("seeds must contain at least one seed")
    return np.concatenate([_simulate_bulk(d, delta, gamma, w, 0.0, s)[0] for s in seeds])


def bulk_fixed_T_figure(
    delta: float = 1.5,
    gamma: float = 1.5,
    T: int = 2,
    weights: str = "mean",
    *,
    d: int = 1000,
    seeds=(0, 1, 2),
    eigenvalues=None,
):
    """The fixed-``T`` law and Theorem 1 against a simulated spectrum at small ``T``.

    Top: histogram of the nonzero eigenvalues of the centered ``S`` (three tables pooled by
    default, :func:`bulk_pooled_spectrum`; area = fraction of nonzero eigenvalues), the density
    of Theorem 1 (:class:`seqrmt.BulkLaw`, dashed) and that of the fixed-``T`` law
    (:func:`seqrmt.fixed_T_bulk_law`); the two atoms at ``0`` and the measured fraction of zero
    eigenvalues are annotated.  Bottom: ``F_emp - F`` for both laws, whose largest absolute
    value is the Kolmogorov distance given in the legend.  ``eigenvalues`` may be passed to
    reuse a pooled spectrum.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    w = bulk_weights(weights, T)
    k = _kappa(w)
    lam = (
        bulk_pooled_spectrum(delta, gamma, T, weights, d=d, seeds=seeds)
        if eigenvalues is None
        else _checks.real_array("eigenvalues", eigenvalues, allow_inf=False).ravel()
    )
    thm1 = BulkLaw(delta, gamma, k)
    fixed = fixed_T_bulk_law(delta, gamma, w)
    ks1, ksT = bulk_kolmogorov(lam, thm1), bulk_kolmogorov(lam, fixed)
    xmax = 1.05 * max(float(fixed.ppf(0.999)), thm1.support()[1])
    fig, (ax, ax1) = figure(1, 2, width=7.2, height=6.8)
    measured = _hist_continuous(
        ax, lam, np.linspace(0, xmax, 70), color=SIM_COLOR, label=f"eigenvalues of $S_c$\n({lam.size} pooled)"
    )
    x = np.linspace(0, xmax, 800)[1:]
    ax.plot(x, thm1.pdf(x), color=IDEAL_COLOR, ls="--", lw=1.6, label="paper's Theorem 1\n(large T)")
    ax.plot(x, fixed.pdf(x), color=THEORY_COLOR, lw=1.7, label="fixed-T law")
    ax.set_xlim(-0.02 * xmax, xmax)
    inner = np.linspace(0.1 * xmax, xmax, 300)
    ax.set_ylim(
        0,
        max(
            1.3 * float(max(fixed.pdf(inner).max(), thm1.pdf(inner).max())),
            1.05 * float(max(ax.patches[0].get_data()[0].max(), 0.0)),
        ),
    )
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    ax.annotate(
        f"atom at 0\npaper's Thm 1: {thm1.atom:.3f}\nfixed T: {fixed.atom:.3f}\nsimulated: {measured:.3f}",
        xy=(0, y0 + 0.02 * (y1 - y0)),
        xytext=(x0 + 0.5 * (x1 - x0), y0 + 0.35 * (y1 - y0)),
        fontsize="small",
        bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9),
        arrowprops=dict(arrowstyle="->", color=THEORY_COLOR, lw=1),
    )
    ax.plot([0], [y0], marker="^", ms=9, color=THEORY_COLOR, clip_on=False, zorder=5)
    srt = np.sort(np.where(lam < _ZERO_TOL * lam.max(), 0.0, lam))
    emp = np.searchsorted(srt, srt, side="right") / srt.size  # right-continuous, ties counted
    ax1.plot(srt, emp - thm1.cdf(srt), color=IDEAL_COLOR, ls="--", lw=1.4, label=f"paper's Thm 1:\ndistance {ks1:.3f}")
    ax1.plot(srt, emp - fixed.cdf(srt), color=THEORY_COLOR, lw=1.4, label=f"fixed-T law:\ndistance {ksT:.3f}")
    ax1.axhline(0, color="gray", lw=0.7)
    ax1.set_xlim(-0.02 * xmax, xmax)
    finish(
        ax,
        xlabel=r"$\lambda$",
        ylabel="density",
        title=f"$\\delta$={delta:g}, $\\gamma$={gamma:g}, T={T}, {weights} weights, d={d}",
        legend=False,
    )
    finish(
        ax1,
        xlabel=r"$\lambda$",
        ylabel=r"$F_{\mathrm{emp}} - F$",
        title="distance of the spectrum to each law",
        legend=False,
    )
    legend_right(ax)
    legend_right(ax1)
    return set_alt(
        fig,
        f"Top: histogram of {lam.size} pooled eigenvalues of the centered S (δ = {fmt(delta)}, "
        f"γ = {fmt(gamma)}, T = {T}, {weights} weights, d = {d}) with the fixed-T density "
        f"(solid) and the density of the paper's Theorem 1 (dashed); atom at zero {fmt(thm1.atom)} for "
        f"the paper's Theorem 1, {fmt(fixed.atom)} for the fixed-T law, {fmt(measured)} simulated. "
        f"Bottom: empirical minus theoretical distribution functions; Kolmogorov distance "
        f"{ks1:.3f} to the paper's Theorem 1 and {ksT:.3f} to the fixed-T law.",
    )


def bulk_fixed_T_convergence_figure(
    delta: float = 1.5, gamma: float = 1.5, Ts=(1, 2, 4, 8, 16, 64), weights: str = "mean"
):
    """The fixed-``T`` law tends to Theorem 1 as ``T`` grows.

    Top: ``F_T - F`` against ``lambda / kappa``, where ``F_T`` is the distribution function of
    the fixed-``T`` law (:func:`seqrmt.fixed_T_bulk_law`) rescaled by ``kappa`` and ``F`` that of
    Theorem 1 (:class:`seqrmt.BulkLaw`), one curve per ``T`` in ``Ts``.  Bottom: the
    Kolmogorov distance ``sup |F_T - F|`` and the excess of the atom ``atom_T - atom``
    against ``T`` (log scales; the distance levels off at the numerical accuracy of the
    fixed-``T`` law, about ``1e-3`` when ``delta = gamma`` puts a hard edge at ``0``).
    """
    delta, gamma, Ts = _ratios_and_lengths(delta, gamma, Ts)
    thm1 = BulkLaw(delta, gamma)
    xmax = 1.05 * thm1.support()[1]
    x = np.union1d(np.linspace(0.0, xmax, 1500), np.geomspace(1e-6, 0.05, 200) * xmax)
    import matplotlib

    cmap = matplotlib.colormaps["Blues"]
    shades = np.linspace(0.35, 0.95, len(Ts))
    fig, (ax0, ax1) = figure(1, 2, width=7.2, height=6.6)
    dist, excess = [], []
    for T, sh in zip(Ts, shades):
        w = bulk_weights(weights, T)
        law = fixed_T_bulk_law(delta, gamma, w)
        diff = law.cdf(x * _kappa(w)) - thm1.cdf(x)
        dist.append(float(np.max(np.abs(diff))))
        excess.append(law.atom - thm1.atom)
        ax0.plot(x, diff, color=cmap(sh), lw=1.4, label=f"T={T}")
    ax0.axhline(0, color="gray", lw=0.7)
    ax1.plot(Ts, dist, "o-", color=THEORY_COLOR, label=r"$\sup_x|F_T(x)-F(x)|$")
    pos = [(t, e) for t, e in zip(Ts, excess) if e > 1e-12]
    if pos:
        ax1.plot(*zip(*pos), "s--", color=SIM_COLOR, label=r"atom$_T$ $-$ atom")
    ax1.set_xscale("log", base=2)
    ax1.set_yscale("log")
    finish(
        ax0,
        xlabel=r"$\lambda/\kappa$",
        ylabel=r"$F_T - F$ (paper's Thm 1)",
        title=f"$\\delta$={delta:g}, $\\gamma$={gamma:g}, {weights} weights",
        legend=False,
    )
    finish(
        ax1,
        xlabel="sequence length T",
        ylabel="distance to paper's Thm 1",
        title="convergence as T grows",
        legend=False,
    )
    legend_right(ax0)
    legend_right(ax1)
    return set_alt(
        fig,
        f"Top: difference between the distribution functions of the fixed-T law and of "
        f"the paper's Theorem 1 against λ/κ (δ = {fmt(delta)}, γ = {fmt(gamma)}, {weights} weights) for "
        f"T = " + ", ".join(str(T) for T in Ts) + ". Bottom, on log scales: the largest "
        "difference against T, "
        + ", ".join(f"{fmt(dv, 2)} at T = {T}" for T, dv in zip(Ts, dist))
        + "; and the excess atom at zero, "
        + ", ".join(f"{fmt(e, 2)} at T = {T}" for T, e in zip(Ts, excess))
        + ".",
    )
