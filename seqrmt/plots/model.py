"""Figures for the model chapter (Section 2 of the paper).

The vocabulary table ``e_v = s_v mu + z_v``, the sign sequences with positional
correlation ``R``, and the pooled vectors ``c_n = sum_t w_t e_{v(n,t)}``.  Every figure
draws REAL samples from :mod:`seqrmt.model`; none re-implements a formula.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from .. import _checks
from ..attention import alpha as _alpha, kappa as _kappa, mean_weights, optimal_weights, sigma_w as _sigma_w
from ..model import (
    copula_correlation,
    copula_signs,
    make_table,
    markov_correlation,
    pool,
    prefix_correlation,
    sample_signs,
    sample_tokens,
)
from ._style import IDEAL_COLOR, SIM_COLOR, THEORY_COLOR, WEIGHT_COLORS, figure, legend_below, finish, fmt, set_alt

__all__ = [
    "model_table_figure",
    "model_signs_figure",
    "model_sheppard_figure",
    "model_pooled_figure",
    "model_decomposition_figure",
]

_SIGN_COLORS = {1: "#4C72B0", -1: "#DD8452"}


def _sign_cmap():
    from matplotlib.colors import ListedColormap

    return ListedColormap([_SIGN_COLORS[-1], _SIGN_COLORS[1]])


def _random_direction(d: int, avoid: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """A random unit vector, orthogonalized against ``avoid`` (if given)."""
    r = rng.standard_normal(d)
    if avoid is not None and np.linalg.norm(avoid) > 0:
        a = avoid / np.linalg.norm(avoid)
        r -= (r @ a) * a
    return r / np.linalg.norm(r)


def model_table_figure(d: int = 300, V: int = 400, beta: float = 4.0, *, seed=0):
    """The vocabulary table ``e_v = s_v mu + z_v`` seen along ``u = mu/||mu||``.

    Left: every token ``e_v`` projected on ``u`` and on a random direction orthogonal to
    ``mu``, colored by its class ``s_v``.  Along ``u`` the two classes sit at
    ``+-sqrt(beta)`` with unit Gaussian spread; along any other direction they overlap.
    Right: histogram of ``u^T e_v`` per class with the two means ``+-sqrt(beta)``.

    Parameters
    ----------
    d, V : int
        Embedding dimension and (even) vocabulary size.
    beta : float
        Signal strength ``||mu||^2 > 0``.
    seed : int
        Seed of the table.
    """
    d = _checks.integer("d", d, minimum=2)
    V = _checks.integer("V", V, minimum=2, even=True)
    beta = _checks.positive("beta", beta)
    rng = np.random.default_rng(seed)
    table = make_table(d, V, beta, seed=rng)
    u = table.mu / np.linalg.norm(table.mu)
    r = _random_direction(d, u, rng)
    pu, pr = u @ table.E, r @ table.E
    fig, (ax0, ax1) = figure(2, width=7.2, height=3.9)
    for s, name in ((1, "$s_v=+1$"), (-1, "$s_v=-1$")):
        m = table.signs == s
        ax0.scatter(pu[m], pr[m], s=8, alpha=0.6, color=_SIGN_COLORS[s], label=name)
        ax1.hist(pu[m], bins=30, density=True, alpha=0.55, color=_SIGN_COLORS[s], label=name)
    for s in (1, -1):
        ax1.axvline(
            s * np.sqrt(beta),
            color=THEORY_COLOR,
            ls="--",
            lw=1,
            label=r"class means $\pm\sqrt{\beta}$" if s == 1 else None,
        )
    finish(
        ax0,
        xlabel=r"$u^\top e_v$  (signal direction)",
        ylabel=r"$r^\top e_v$  (random direction)",
        title=f"table, d={d}, V={V}, $\\beta$={beta:g}",
        legend=False,
    )
    finish(ax1, xlabel=r"$u^\top e_v$", ylabel="density", title="projection on $u=\\mu/\\|\\mu\\|$", legend=False)
    legend_below(fig, ax1, ncols=3)
    means = {s_: float(pu[table.signs == s_].mean()) for s_ in (1, -1)}
    return set_alt(
        fig,
        f"Vocabulary table with d = {d}, V = {V}, β = {fmt(beta)}. Left: scatter of the {V} "
        f"tokens projected on the signal direction u (horizontal) and on a random direction "
        f"(vertical), coloured by class: two clouds separated along u only. Right: histograms "
        f"of the projection on u per class, centred at {means[1]:.2f} and {means[-1]:.2f} "
        f"(dashed lines at ±√β = ±{np.sqrt(beta):.2f}) with spread about 1.",
    )


def _row_panel(ax, xi: np.ndarray, R: np.ndarray, row: int, color: str, label: str, legend: bool = True):
    """Empirical ``mean_n xi_{n,row} xi_{n,s}`` with 3-standard-error bars against ``R[row, s]``."""
    N, T = xi.shape
    emp = xi[:, row] @ xi / N
    se = np.sqrt(np.clip(1 - R[row] ** 2, 0, None) / N)
    s = np.arange(1, T + 1)
    ax.plot(s, R[row], color=THEORY_COLOR, lw=1.5, label=f"target $R_{{{row + 1},s}}$")
    ax.errorbar(
        s,
        emp,
        yerr=3 * se,
        fmt="o",
        ms=3.5,
        color=color,
        ecolor=color,
        elinewidth=1,
        capsize=2,
        label=f"empirical ($\\pm 3$ s.e.), N={N}",
    )
    ax.set_ylim(-1.08, 1.12)
    finish(ax, xlabel="position $s$", ylabel=f"corr$(\\xi_{{{row + 1}}}, \\xi_s)$", title=label, legend=legend)


def model_signs_figure(L: int = 4, rho: float = 0.8, *, T: int = 24, N: int = 4000, n_show: int = 40, seed=0):
    """Sampled sign sequences for the prefix and the stationary Markov correlations.

    Top row, prefix model ``R_ts = 1`` for ``t, s <= L`` (and ``t = s``), ``0`` otherwise:
    an image of ``n_show`` sampled sequences ``xi_n`` (rows) and the empirical correlation
    of position 1 with every position ``s`` (``N`` sequences, error bars of 3 standard
    errors ``3 sqrt((1 - R^2)/N)``) against the target.  Bottom row, the same for the
    Markov chain ``R_ts = rho^|t-s|``.

    Parameters
    ----------
    L : int
        Prefix length, ``1 <= L <= T``.
    rho : float
        Markov correlation in ``[-1, 1]``.
    T, N, n_show : int
        Sequence length, number of sequences for the correlation, rows shown.
    seed : int
        Seed of the signs.
    """
    T = _checks.integer("T", T, minimum=2)
    N = _checks.integer("N", N, minimum=2)
    n_show = _checks.integer("n_show", n_show)
    if n_show > N:
        raise ValueError(f"n_show must be <= N = {N}, got {n_show}")
    Rp = prefix_correlation(T, L)
    Rm = markov_correlation(T, rho)
    rng = np.random.default_rng(seed)
    xp = sample_signs(N, Rp, seed=rng)
    xm = sample_signs(N, Rm, seed=rng)
    fig, axes = figure(2, 2, width=7.2, height=6.2, gridspec_kw={"width_ratios": [1, 1.25]})
    cmap = _sign_cmap()
    c1p = xp[:, 0] @ xp / N
    c1m = xm[:, 0] @ xm / N
    for k, (xi, R, name, color) in enumerate(
        (
            (xp, Rp, f"prefix, L={L}", WEIGHT_COLORS["mean"]),
            (xm, Rm, f"Markov, $\\rho$={rho:g}", WEIGHT_COLORS["causal"]),
        )
    ):
        ax = axes[k, 0]
        ax.imshow(
            xi[:n_show],
            cmap=cmap,
            vmin=-1,
            vmax=1,
            aspect="auto",
            interpolation="nearest",
            extent=(0.5, T + 0.5, n_show + 0.5, 0.5),
        )
        ax.set_xlabel("position $t$")
        ax.set_ylabel("sequence $n$")
        ax.set_title(f"{name}: signs", fontsize="medium")
        _row_panel(axes[k, 1], xi, R, 0, color, "correlation with $t=1$", legend=False)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    legend_below(
        fig,
        handles=[
            Patch(color=_SIGN_COLORS[1], label="sign $+1$"),
            Patch(color=_SIGN_COLORS[-1], label="sign $-1$"),
            Line2D([], [], color=THEORY_COLOR, lw=1.5, label="target $R_{1,s}$"),
            Line2D([], [], color="0.45", marker="o", ls="none", ms=4, label=f"empirical ($\\pm 3$ s.e.), N={N}"),
        ],
    )
    return set_alt(
        fig,
        f"Sampled sign sequences of length T = {T}. Top row, prefix model with L = {L}: an image of "
        f"{n_show} sequences (blue +1, orange -1) whose first {L} positions share one sign, and "
        f"the correlation of position 1 with each position from {N} sequences: about 1 up to "
        f"position {L} and about 0 after (measured {c1p[min(L, T) - 1]:.2f} at position {min(L, T)}, "
        f"{c1p[-1]:.2f} at position {T}). Bottom row, Markov chain with ρ = {fmt(rho)}: the "
        f"correlation decays like ρ^(s-1), measured {c1m[1]:.2f} at position 2 (target "
        f"{fmt(Rm[0, 1], 2)}) and {c1m[min(4, T - 1)]:.2f} at position {min(5, T)} (target "
        f"{fmt(Rm[0, min(4, T - 1)], 2)}).",
    )


def model_sheppard_figure(*, N: int = 20000, n_points: int = 13, seed=0):
    """Sheppard's arcsine law: the sign correlation of a Gaussian pair.

    If ``(g_1, g_2)`` is a centered Gaussian pair with unit variances and correlation
    ``sigma``, then ``corr(sign g_1, sign g_2) = (2/pi) arcsin(sigma)``
    (:func:`seqrmt.copula_correlation`).  The curve is drawn with the identity
    ``r = sigma`` for comparison and with simulated sign correlations (``N`` pairs per
    point, 3-standard-error bars) obtained through :func:`seqrmt.copula_signs`.
    """
    N = _checks.integer("N", N, minimum=2)
    n_points = _checks.integer("n_points", n_points, minimum=2)
    grid = np.linspace(-1, 1, 201)
    curve = np.array([copula_correlation([[1, s], [s, 1]])[0, 1] for s in grid])
    sig = np.linspace(-0.95, 0.95, n_points)
    rng = np.random.default_rng(seed)
    emp, target = [], []
    for s in sig:
        R = copula_correlation([[1, s], [s, 1]])
        xi = copula_signs(N, R, seed=rng)
        emp.append(np.mean(xi[:, 0] * xi[:, 1]))
        target.append(R[0, 1])
    emp, target = np.array(emp), np.array(target)
    se = np.sqrt((1 - target**2) / N)
    fig, ax = figure(width=5.4, height=4.6)
    ax.plot(grid, grid, color=IDEAL_COLOR, ls=":", lw=1.2, label=r"$r=\sigma$ (no distortion)")
    ax.plot(grid, curve, color=THEORY_COLOR, lw=1.5, label=r"$r=\frac{2}{\pi}\arcsin\sigma$")
    ax.errorbar(
        sig, emp, yerr=3 * se, fmt="o", ms=4, color=SIM_COLOR, capsize=2, label=f"sampled signs ($\\pm 3$ s.e.), N={N}"
    )
    ax.set_aspect("equal")
    finish(
        ax,
        xlabel=r"Gaussian correlation $\sigma$",
        ylabel=r"sign correlation $r$",
        title="Sheppard's arcsine law",
        legend=False,
    )
    legend_below(fig, ax, ncols=1)
    mid = int(np.argmin(np.abs(sig - 0.5)))
    return set_alt(
        fig,
        f"Sheppard's arcsine law: sign correlation r against the Gaussian correlation σ from -1 "
        f"to 1. The curve r = (2/π) arcsin σ lies below the dotted diagonal r = σ for positive σ "
        f"and above it for negative σ, meeting it at -1, 0 and 1; at σ = {fmt(sig[mid], 2)} it "
        f"gives {target[mid]:.3f}, and the {n_points} simulated points ({N} pairs each) follow "
        f"it (largest deviation {np.max(np.abs(emp - target)):.3f}).",
    )


def _pooled(d, V, N, T, L, beta, weights, seed):
    R = prefix_correlation(T, L)
    rng = np.random.default_rng(seed)
    table = make_table(d, V, beta, seed=rng)
    xi = sample_signs(N, R, seed=rng)
    tokens = sample_tokens(xi, V, seed=rng)
    out = {}
    for name, w in weights.items():
        out[name] = (w, pool(table, tokens, w))
    return table, xi, R, out


def model_pooled_figure(
    d: int = 400, V: int = 800, N: int = 600, T: int = 16, L: int = 4, beta: float = 1.0, *, seed=0
):
    """Pooled vectors ``c_n = sum_t w_t e_{v(n,t)}`` in two dimensions, for two poolings.

    Prefix model (the label ``y_n = xi_{n,1}`` is the sign shared by the first ``L``
    positions).  Each panel projects the centered ``c_n`` on ``u = mu/||mu||`` (x-axis)
    and on a random direction orthogonal to ``mu`` (y-axis), colored by ``y_n``.  Left: mean
    pooling ``w_t = 1/T``; right: the optimal weights (uniform on the prefix, the top
    eigenvector of ``R``).  The title gives ``alpha/kappa = w^T R w / ||w||^2``: the larger it
    is, the more the classes separate relative to the noise.
    """
    d = _checks.integer("d", d, minimum=2)
    beta = _checks.positive("beta", beta)
    R = prefix_correlation(T, L)
    weights = {"mean": mean_weights(T), "optimal": optimal_weights(R)}
    table, xi, R, pooled = _pooled(d, V, N, T, L, beta, weights, seed)
    u = table.mu / np.linalg.norm(table.mu)
    r = _random_direction(d, u, np.random.default_rng(12345))
    fig, axes = figure(2, width=8.8, height=3.8, sharex=False, sharey=False)
    y = xi[:, 0]
    alt = []
    for ax, (name, (w, C)) in zip(axes, pooled.items()):
        Cc = C - C.mean(axis=1, keepdims=True)
        pu, pr = u @ Cc, r @ Cc
        for s, lab in ((1, "$y_n=+1$"), (-1, "$y_n=-1$")):
            m = y == s
            ax.scatter(pu[m], pr[m], s=7, alpha=0.55, color=_SIGN_COLORS[s], label=lab)
        lim = 1.05 * max(np.abs(pu).max(), np.abs(pr).max())
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.set_aspect("equal")
        ratio = _alpha(w, R) / _kappa(w)
        finish(
            ax,
            xlabel=r"$u^\top (c_n - \bar c)$",
            ylabel=r"$r^\top (c_n - \bar c)$",
            title=f"{name} pooling: $\\alpha/\\kappa$ = {ratio:.2f}",
        )
        gap = float(pu[y == 1].mean() - pu[y == -1].mean())
        spread = float(np.sqrt(0.5 * (pu[y == 1].var() + pu[y == -1].var())))
        alt.append(
            f"{name} pooling (α/κ = {ratio:.2f}): class means {gap:.2f} apart along u, within-class spread {spread:.2f}"
        )
    fig.suptitle(f"pooled vectors, prefix model T={T}, L={L}, d={d}, V={V}, $\\beta$={beta:g}", fontsize="medium")
    return set_alt(
        fig,
        f"Pooled vectors of {N} sequences (prefix model T = {T}, L = {L}, d = {d}, V = {V}, "
        f"β = {fmt(beta)}) projected on the signal direction u (horizontal) and a random "
        f"direction (vertical), coloured by the label. Left: "
        + alt[0]
        + ". Right: "
        + alt[1]
        + ": the classes separate more with the larger α/κ.",
    )


def model_decomposition_figure(
    d: int = 400, V: int = 400, N: int = 1500, T: int = 8, L: int = 4, beta: float = 0.0, *, seed=0
):
    """The decomposition ``c_n = (w^T xi_n)(mu + Delta) + sigma_w zbar + eps_n``.

    Mean pooling on a prefix model.  Left: the projection of ``c_n - sigma_w zbar`` on the
    spike direction ``u_tilde = (mu + Delta)/||mu + Delta||`` against the scalar ``w^T xi_n``;
    the line has slope ``||mu + Delta||`` and the vertical spread is the noise ``eps_n``
    (variance close to ``kappa``).  Right: the same against a random direction orthogonal to
    ``u_tilde``,
    where only noise is left.  With the default ``beta = 0`` there is no signal at all, yet
    the class-mean noise ``Delta`` (``||Delta||^2 ~ d/V``) produces a genuine linear trend.
    """
    d = _checks.integer("d", d, minimum=2)
    beta = _checks.nonnegative("beta", beta)
    w = mean_weights(T)
    table, xi, R, pooled = _pooled(d, V, N, T, L, beta, {"mean": w}, seed)
    C = pooled["mean"][1]
    md = table.mu + table.Delta
    a = md / np.linalg.norm(md)
    r = _random_direction(d, a, np.random.default_rng(12345))
    s = xi @ w
    X = C - _sigma_w(w) * table.zbar[:, None]
    fig, axes = figure(2, width=8.8, height=3.5, sharey=True)
    grid = np.linspace(s.min(), s.max(), 2)
    slopes = []
    for ax, (q, name) in zip(
        axes, ((a, r"$q=\tilde u=(\mu+\Delta)/\|\mu+\Delta\|$"), (r, r"$q=r$, random, $r \perp \tilde u$"))
    ):
        jitter = np.random.default_rng(1).uniform(-0.15, 0.15, size=N) / T
        ax.scatter(s + jitter, q @ X, s=5, alpha=0.35, color=SIM_COLOR, label="sequences")
        slope = float(q @ md)
        slopes.append(slope)
        ax.plot(grid, slope * grid, color=THEORY_COLOR, lw=1.5, label=r"line of slope $q^\top(\mu+\Delta)$")
        ax.xaxis.set_major_locator(MaxNLocator(5))
        finish(
            ax,
            xlabel=r"$w^\top \xi_n$ (jittered)",
            ylabel=r"$q^\top(c_n - \sigma_w \bar z)$",
            title=f"{name}\nslope {slope:.2f}",
            legend=False,
        )
    # one legend for both panels, under them: inside an axes it covered the scatter
    legend_below(fig, axes[0], ncols=2)
    fig.suptitle(
        f"$\\beta$={beta:g}, d={d}, V={V}: $\\|\\Delta\\|^2$={table.Delta @ table.Delta:.2f}, "
        f"$\\kappa$={_kappa(w):.3f}, $\\alpha$={_alpha(w, R):.3f}",
        fontsize="medium",
    )
    return set_alt(
        fig,
        f"Mean pooling, prefix model T = {T}, L = {L}, β = {fmt(beta)}, d = {d}, V = {V}, "
        f"‖Δ‖² = {table.Delta @ table.Delta:.2f}: scatter of {N} sequences, the projection of "
        f"each pooled vector minus the vocabulary-mean term against the pooled sign wᵀξ. Left, along the spike direction "
        f"(μ+Δ)/‖μ+Δ‖: a linear trend of slope {slopes[0]:.2f} plus noise. Right, along a "
        f"random orthogonal direction: slope {fmt(slopes[1], 2)}, noise only.",
    )
