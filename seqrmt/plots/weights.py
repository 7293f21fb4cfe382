"""Figures for the optimal-weights chapter (Chapter 4).

``theta / kappa = (beta + delta) w^T R w / w^T w``: the pooling weights enter the
spike only through the Rayleigh quotient ``alpha / kappa`` of the positional
correlation ``R``, maximal at the top eigenvector of ``R``
(:func:`seqrmt.optimal_weights`). The figures compare mean, causal
(:func:`seqrmt.causal_weights`) and optimal weights on three families of ``R``, and
(:func:`weights_negative`) the unconstrained and the best attention weights when the
signs anti-correlate.
"""

from __future__ import annotations

import numpy as np

from .. import _checks
from ..attention import alpha as _alpha
from ..attention import named_weights, optimal_weights, snr
from ..attention import kappa as _kappa
from ..experiments import simulate
from ..model import copula_correlation, markov_correlation, prefix_correlation, sizes
from ..spikes import critical_beta, spike_curve
from ._style import SIM_COLOR, THEORY_COLOR, WEIGHT_COLORS, figure, legend_below, finish, fmt, plain_text, set_alt

__all__ = [
    "weights_correlation",
    "weights_family",
    "weights_profiles",
    "weights_markov_profile",
    "weights_rayleigh",
    "weights_alignment",
    "weights_negative",
]

_NAMES = ("mean", "causal", "optimal")


def weights_correlation(
    family: str = "prefix", *, T: int = 16, L: int = 4, rho: float = 0.8, decay: float = 4.0, loading: float = 0.9
) -> np.ndarray:
    """The positional correlation ``R`` of one of the book's three families.

    * ``"prefix"``: the first ``L`` positions share one sign (:func:`seqrmt.prefix_correlation`);
    * ``"markov"``: stationary Markov chain, ``R_ts = rho^|t-s|`` (Kac-Murdock-Szego matrix);
    * ``"factor"``: one-factor Gaussian copula, ``g_t = a_t z + sqrt(1 - a_t^2) e_t`` with
      loadings ``a_t = loading * exp(-(t-1)/decay)`` and ``xi_t = sign(g_t)``, so that
      ``R = (2/pi) arcsin(Sigma)`` with ``Sigma = a a^T + diag(1 - a^2)`` (Sheppard's formula,
      :func:`seqrmt.copula_correlation`). Early positions share the common factor most.
    """
    if family == "prefix":
        return prefix_correlation(T, L)
    if family == "markov":
        return markov_correlation(T, rho)
    if family == "factor":
        T = _checks.integer("T", T)
        decay = _checks.positive("decay", decay)
        loading = _checks.real("loading", loading)
        if not 0.0 <= loading < 1.0:
            raise ValueError(f"loading must lie in [0, 1), got {loading}")
        a = loading * np.exp(-np.arange(T) / decay)
        Sigma = np.outer(a, a)
        np.fill_diagonal(Sigma, 1.0)
        return copula_correlation(Sigma)
    raise ValueError(f"family must be 'prefix', 'markov' or 'factor', got {family!r}")


def weights_family(R, tau: float = 0.0) -> dict:
    """``{"mean": ..., "causal": ..., "optimal": ...}`` attention weight vectors for ``R``.

    ``"optimal"`` is the best attention vector, ``optimal_weights(R, simplex=True)``: the
    top eigenvector of ``R`` scaled to sum one when it has one sign (always when ``R >= 0``
    entrywise), the best point of the simplex otherwise (Markov ``rho < 0``).
    """
    return {
        "mean": named_weights("mean", R, tau=tau),
        "causal": named_weights("causal", R, tau=tau),
        "optimal": optimal_weights(R, simplex=True),
    }


def _family_label(family, T, L, rho, decay):
    if family == "prefix":
        return f"prefix, $T={T}$, $L={L}$"
    if family == "markov":
        return rf"Markov, $T={T}$, $\rho={rho:g}$"
    return rf"factor copula, $T={T}$, decay ${decay:g}$"


def weights_profiles(
    *, family: str = "prefix", T: int = 16, L: int = 4, rho: float = 0.8, decay: float = 4.0, tau: float = 0.0
):
    """Weight profiles of mean, causal and optimal pooling and their ``alpha / kappa``.

    Left: ``w_t`` against the position ``t`` (each vector scaled to sum to one, as
    attention weights). Right: the Rayleigh quotient ``alpha/kappa = w^T R w / w^T w``
    of each, which multiplies ``beta + delta`` in the spike strength ``theta / kappa``;
    the dashed line is its maximum ``lambda_max(R)`` over all real weights, reached by the
    optimal weights when the top eigenvector of ``R`` has one sign (see :func:`weights_negative`
    for the other case).
    """
    R = weights_correlation(family, T=T, L=L, rho=rho, decay=decay)
    ws = weights_family(R, tau)
    T = R.shape[0]
    t = np.arange(1, T + 1)
    fig, (ax1, ax2) = figure(2, 1, width=7.2, height=4.2, gridspec_kw={"width_ratios": [1.6, 1]})
    ratios = []
    for name in _NAMES:
        w = ws[name]
        s = w.sum()
        wp = w / s if abs(s) > 1e-12 else w
        ax1.plot(t, wp, "o-", color=WEIGHT_COLORS[name], ms=4, lw=1.5, label=name)
        ratios.append(_alpha(w, R) / _kappa(w))
    top = float(np.linalg.eigvalsh(R)[-1])
    bars = ax2.bar(_NAMES, ratios, color=[WEIGHT_COLORS[n] for n in _NAMES])
    for bar, r in zip(bars, ratios):
        ax2.text(bar.get_x() + bar.get_width() / 2, r, f"{r:.2f}", ha="center", va="bottom", fontsize="small")
    ax2.axhline(top, color=THEORY_COLOR, ls="--", lw=1, label=r"$\lambda_{\max}(R)$")
    ax2.set_ylim(0, 1.3 * top)
    ax1.set_ylim(bottom=min(0.0, ax1.get_ylim()[0]))
    finish(
        ax1,
        xlabel="position $t$",
        ylabel=r"weight $w_t$ (sum 1)",
        title=_family_label(family, T, L, rho, decay),
        legend=False,
    )
    finish(ax2, ylabel=r"$\alpha/\kappa = w^\top R w / w^\top w$", title="Rayleigh quotient", legend=False)
    ax2.set_xticks(range(len(_NAMES)))
    ax2.set_xticklabels([n.replace(" ", "\n") for n in _NAMES], fontsize="small")
    legend_below(fig, ncols=len(_NAMES) + 1)
    desc = []
    for name in _NAMES:
        w = ws[name]
        wp = w / w.sum() if abs(w.sum()) > 1e-12 else w
        shape = (
            "flat at " + fmt(wp[0])
            if np.ptp(wp) < 1e-9
            else f"from {fmt(wp[0], 2)} at t = 1 to {fmt(wp[-1], 2)} at t = {T}, largest {fmt(wp.max(), 2)}"
        )
        nz = int(np.sum(np.abs(wp) > 1e-9))
        if nz < T:
            shape += f", nonzero on {nz} positions"
        desc.append(f"{name} weights {shape}")
    return set_alt(
        fig,
        f"Weight profiles for the {plain_text(_family_label(family, T, L, rho, decay))} model. "
        f"Left: weights against the position t (each summing to one): "
        + "; ".join(desc)
        + ". Right: bars of the Rayleigh quotient α/κ: "
        + ", ".join(f"{n} {r:.2f}" for n, r in zip(_NAMES, ratios))
        + f"; dashed line at its maximum λ max(R) = {top:.2f}.",
    )


def weights_markov_profile(*, T: int = 16, rhos=(0.3, 0.6, 0.9, 0.99)):
    """Optimal weights of the Markov model: the top eigenvector of ``R_ts = rho^|t-s|``.

    ``R^{-1}`` is tridiagonal with constant interior rows, so the eigenvector obeys a
    constant-coefficient three-term recurrence and is exactly a sampled cosine arch
    ``cos(omega (t - (T+1)/2))``. Points: eigenvector (scaled to maximum one); lines:
    that cosine, with ``omega`` read off the recurrence ``u_{t-1} + u_{t+1} = 2 cos(omega) u_t``.
    """
    T = _checks.integer("T", T, minimum=3)
    rhos = [float(r) for r in rhos]
    if not rhos:
        raise ValueError("rhos must contain at least one correlation")
    fig, ax = figure(width=6.4, height=3.6)
    t = np.arange(1, T + 1)
    tt = np.linspace(1, T, 300)
    cmap = __import__("matplotlib").colormaps["viridis"]
    for i, r in enumerate(rhos):
        if not 0.0 < r < 1.0:
            raise ValueError(f"rhos must lie in (0, 1), got {r}")
        u = optimal_weights(markov_correlation(T, r))
        u = u / u.max()
        omega = np.arccos(np.clip((u[0] + u[2]) / (2 * u[1]), -1, 1))
        col = cmap(i / max(1, len(rhos) - 1) * 0.85)
        amp = u[T // 2] / np.cos(omega * (T // 2 + 1 - (T + 1) / 2))
        ax.plot(tt, amp * np.cos(omega * (tt - (T + 1) / 2)), color=col, lw=1)
        ax.plot(t, u, "o", color=col, ms=4, label=rf"$\rho={r:g}$, $\omega={omega:.3f}$")
    ax.set_ylim(0, 1.08)
    ends = []
    for r in rhos:
        u = optimal_weights(markov_correlation(T, r))
        ends.append(f"ρ = {fmt(r)}: {fmt(u[0] / u.max(), 2)}")
    set_alt(
        fig,
        f"Top eigenvectors of the Markov correlation ρ^|t-s| for T = {T}, scaled to maximum one, "
        f"as points against the position t, with fitted cosine arches as lines: symmetric arches "
        f"about the middle position, flatter for larger ρ; value at the first position " + ", ".join(ends) + ".",
    )
    finish(
        ax,
        xlabel="position $t$",
        ylabel=r"optimal $w_t$ / max",
        title=r"Markov model: top eigenvector of $\rho^{|t-s|}$ (points) and cosine arch (lines)",
    )
    return fig


def weights_rayleigh(
    *,
    family: str = "prefix",
    T: int = 16,
    L: int = 4,
    rho: float = 0.8,
    decay: float = 4.0,
    n_random: int = 3000,
    seed: int = 0,
):
    """The Rayleigh quotient ``alpha/kappa`` of random weights never exceeds ``lambda_max(R)``.

    Histogram of ``w^T R w / w^T w`` for ``n_random`` random attention weights
    (uniform on the simplex, i.e. Dirichlet(1, ..., 1)), with the values of mean,
    causal and optimal weights and the eigenvalue range ``[lambda_min(R), lambda_max(R)]``.
    """
    n_random = _checks.integer("n_random", n_random, minimum=10)
    R = weights_correlation(family, T=T, L=L, rho=rho, decay=decay)
    rng = _checks.seed(seed)
    W = rng.dirichlet(np.ones(R.shape[0]), size=n_random)
    q = np.einsum("nt,ts,ns->n", W, R, W) / np.einsum("nt,nt->n", W, W)
    lam = np.linalg.eigvalsh(R)
    fig, ax = figure(width=6.4, height=4.4)
    ax.hist(q, bins=50, color="#bbbbbb", density=True, label="random attention weights")
    for name, w in weights_family(R).items():
        ax.axvline(_alpha(w, R) / _kappa(w), color=WEIGHT_COLORS[name], lw=2, label=name)
    ax.axvspan(lam[0], lam[-1], color=THEORY_COLOR, alpha=0.06, label=r"$[\lambda_{\min}(R), \lambda_{\max}(R)]$")
    pad = 0.06 * max(lam[-1] - lam[0], 1e-3)
    ax.set_xlim(lam[0] - pad, lam[-1] + pad)
    finish(
        ax,
        xlabel=r"$\alpha/\kappa = w^\top R w / w^\top w$",
        ylabel="density",
        title=_family_label(family, R.shape[0], L, rho, decay),
        legend=False,
    )
    legend_below(fig, ax, ncols=3)
    marks = ", ".join(f"{name} at {_alpha(w, R) / _kappa(w):.2f}" for name, w in weights_family(R).items())
    return set_alt(
        fig,
        f"Histogram of the Rayleigh quotient α/κ of {n_random} random attention weights "
        f"({plain_text(_family_label(family, R.shape[0], L, rho, decay))}): middle half between "
        f"{fmt(np.quantile(q, 0.25))} and {fmt(np.quantile(q, 0.75))}, largest {fmt(q.max())}; "
        f"vertical lines for {marks}; shaded eigenvalue range of R from {fmt(lam[0])} "
        f"to {fmt(lam[-1])}.",
    )


def weights_alignment(
    *,
    family: str = "prefix",
    T: int = 16,
    L: int = 4,
    rho: float = 0.8,
    decay: float = 4.0,
    delta: float = 0.5,
    gamma: float = 0.5,
    beta_max: float = 2.0,
    sim_betas=(0.25, 0.5, 1.0, 2.0),
    seeds=(0, 1, 2),
    d: int = 300,
):
    """Alignment ``|u_S^T u|^2`` of the top eigenvector of the centered ``S`` for mean,
    causal and optimal weights, as ``beta`` varies (Chapters 3 and 4).

    Lines: exact finite-table theory ``eta_pop eta_s beta / (beta + delta)`` with
    ``theta = alpha (beta + delta)`` (vectorized :func:`seqrmt.spike_curve`). Triangles on
    the axis: each weighting's critical ``beta`` (sample transition). Points: simulations
    (mean and standard deviation over ``seeds``, the same tables for all weightings);
    ``seeds=()`` draws theory only.
    """
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    beta_max = _checks.positive("beta_max", beta_max)
    d = _checks.integer("d", d, minimum=2)
    R = weights_correlation(family, T=T, L=L, rho=rho, decay=decay)
    ws = weights_family(R)
    V, N = sizes(d, delta, gamma)
    b = np.linspace(0.0, beta_max, 301)
    seeds = list(seeds)
    sim_betas = [_checks.nonnegative("sim_betas", x) for x in sim_betas]
    fig, ax = figure(width=6.6, height=3.8)
    alt = []
    for name in _NAMES:
        w = ws[name]
        k, a = _kappa(w), _alpha(w, R)
        c = spike_curve(a * (b + delta), delta, gamma, k)
        col = WEIGHT_COLORS[name]
        ax.plot(b, c.overlap * b / (b + delta), color=col, lw=1.8, label=rf"{name} ($\alpha/\kappa={a / k:.2f}$)")
        bc = critical_beta(delta, gamma, w, R)
        if bc < beta_max:
            ax.plot([bc], [-0.015], "^", color=col, ms=8, clip_on=False)
        if seeds and sim_betas:
            ov = np.array(
                [[simulate(d, V, N, w, R, bb, seed=s, n_vectors=1).overlaps[0] for s in seeds] for bb in sim_betas]
            )
            sd = ov.std(axis=1, ddof=1) if len(seeds) > 1 else np.zeros(len(sim_betas))
            ax.errorbar(sim_betas, ov.mean(1), sd, fmt="o", color=col, mec="k", mew=0.5, capsize=3, zorder=5)
        txt = (
            f"{name} (α/κ = {a / k:.2f}): critical β {fmt(bc) if bc < beta_max else 'beyond ' + fmt(beta_max)}, "
            f"alignment {c.overlap[-1] * b[-1] / (b[-1] + delta):.2f} at β = {fmt(beta_max)}"
        )
        if seeds and sim_betas:
            txt += f" (simulated {ov.mean(1)[-1]:.2f} at β = {fmt(sim_betas[-1])})"
        alt.append(txt)
    if seeds and sim_betas:
        ax.plot([], [], "o", color=SIM_COLOR, mec="k", mew=0.5, label=f"simulation ($d={d}$, {len(seeds)} seeds)")
    ax.set_xlim(0, beta_max)
    ax.set_ylim(-0.03, 1.0)
    finish(
        ax,
        xlabel=r"signal strength $\beta=\|\mu\|^2$",
        ylabel=r"$|\hat u_1^\top u|^2$",
        title=_family_label(family, R.shape[0], L, rho, decay) + rf", $\delta={delta:g}$, $\gamma={gamma:g}$",
    )
    sim_txt = (
        f" Points: simulations (d = {d}, {len(seeds)} seeds) at β = " + ", ".join(fmt(x) for x in sim_betas) + "."
        if seeds and sim_betas
        else ""
    )
    return set_alt(
        fig,
        f"Squared alignment of the top eigenvector of the centered S with the signal against "
        f"β from 0 to {fmt(beta_max)} ({plain_text(_family_label(family, R.shape[0], L, rho, decay))}, "
        f"δ = {fmt(delta)}, γ = {fmt(gamma)}), theory lines for mean, causal and optimal "
        f"weights, zero up to each critical β (triangles): " + "; ".join(alt) + "." + sim_txt,
    )


_NEG_COLOR = "#8172B3"  # the unconstrained (sign-alternating) optimum


_NEGATIVE_COLORS = {
    "unconstrained": _NEG_COLOR,
    "simplex": WEIGHT_COLORS["optimal"],
    "mean": WEIGHT_COLORS["mean"],
    "causal": WEIGHT_COLORS["causal"],
}
_NEGATIVE_LABELS = {
    "unconstrained": "top eigenvector (any real $w$)",
    "simplex": r"best attention weights ($w\geq 0$, $\sum w_t=1$)",
    "mean": "mean",
    "causal": "causal",
}


def _four_weights(R) -> dict[str, np.ndarray]:
    """The four weights of :func:`weights_negative` for ``R``: the unconstrained and the simplex optima,
    mean and causal pooling."""
    return {
        "unconstrained": optimal_weights(R, normalize="unit"),
        "simplex": optimal_weights(R, simplex=True),
        "mean": named_weights("mean", R),
        "causal": named_weights("causal", R),
    }


def _snr_curves(T: int, rhos) -> dict[str, list[float]]:
    """``alpha/kappa`` of each of the four weights against the Markov parameter, at each of ``rhos``."""
    curves: dict[str, list[float]] = {name: [] for name in _NEGATIVE_LABELS}
    for r in rhos:
        Rr = markov_correlation(T, float(r))
        for name, w in _four_weights(Rr).items():
            curves[name].append(snr(w, Rr))  # alpha/kappa
    return curves


def weights_negative(*, T: int = 16, rho: float = -0.5, rhos=None):
    """Optimal weights when the signs anti-correlate (Markov ``rho < 0``).

    Left: at ``rho``, the unconstrained optimum (top eigenvector of ``R``, any real
    weights; :func:`seqrmt.optimal_weights` with ``normalize="unit"``), the best attention
    weights (``simplex=True``), mean and causal pooling, each scaled to unit norm (only the
    direction matters for ``alpha/kappa``). Right: ``alpha/kappa = w^T R w / w^T w``
    against ``rho`` for the four: ``lambda_max(R)``, the simplex optimum, mean and causal.
    For ``rho >= 0`` the two optima coincide (Perron-Frobenius); for ``rho < 0`` they split.
    """
    T = _checks.integer("T", T, minimum=2)
    rho = _checks.real("rho", rho)
    if not -1.0 < rho < 1.0:
        raise ValueError(f"rho must lie in (-1, 1), got {rho}")
    rhos = np.round(np.linspace(-0.9, 0.9, 13), 10) if rhos is None else np.asarray(rhos, float)
    if rhos.ndim != 1 or rhos.size < 2 or not np.all((rhos > -1) & (rhos < 1)):
        raise ValueError("rhos must be a 1-d sequence of at least two values in (-1, 1)")
    rhos = np.sort(rhos)
    colors, labels = _NEGATIVE_COLORS, _NEGATIVE_LABELS
    R = markov_correlation(T, rho)
    ws = _four_weights(R)
    t = np.arange(1, T + 1)
    # panels stacked: the figure stays readable on a phone column
    fig, (ax1, ax2) = figure(1, 2, width=6.4, height=8.0)
    for name, w in ws.items():
        ax1.plot(
            t,
            w / np.linalg.norm(w),
            "o-",
            color=colors[name],
            ms=4,
            lw=1.3,
            label=rf"{labels[name]}: $\alpha/\kappa={snr(w, R):.2f}$",
        )
    ax1.axhline(0, color="k", lw=0.6)
    finish(
        ax1,
        xlabel="position $t$",
        ylabel=r"$w_t/\|w\|$",
        title=rf"Markov, $T={T}$, $\rho={rho:g}$: weights at unit norm",
    )
    ax1.legend(fontsize="x-small", frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
    curves = _snr_curves(T, rhos)
    for name, c in curves.items():
        ax2.plot(rhos, c, "o-" if name == "simplex" else "-", color=colors[name], ms=3, lw=1.5, label=labels[name])
    ax2.axvline(rho, color="k", ls=":", lw=1)
    ax2.set_yscale("log")
    # one legend (left panel) names the four colours of both panels
    finish(
        ax2,
        xlabel=r"Markov parameter $\rho$",
        ylabel=r"$\alpha/\kappa$ (log scale)",
        title=r"Rayleigh quotient against $\rho$",
        legend=False,
    )
    u = ws["unconstrained"]
    sx = ws["simplex"]
    split = [
        float(r)
        for r in rhos
        if abs(curves["unconstrained"][list(rhos).index(r)] - curves["simplex"][list(rhos).index(r)]) > 1e-6
    ]
    return set_alt(
        fig,
        f"Markov signs with ρ = {fmt(rho)}, T = {T}. Top: weights at unit norm against the "
        f"position: the top eigenvector of R "
        f"{'alternates in sign' if np.any(u > 1e-9) and np.any(u < -1e-9) else 'has one sign'}, "
        f"the best attention weights are nonzero on {int(np.sum(sx > 1e-9))} of {T} positions, "
        f"mean weights are flat and causal weights decrease; α/κ = "
        + ", ".join(f"{n} {snr(w, R):.2f}" for n, w in ws.items())
        + f". Bottom: α/κ against ρ from {fmt(rhos[0])} to {fmt(rhos[-1])} on a log scale; the "
        "top-eigenvector and best-attention curves "
        + (f"split for ρ ≤ {fmt(max(split))}" if split else "coincide")
        + f"; at ρ = {fmt(rhos[0])}: "
        + ", ".join(f"{n} {c[0]:.2f}" for n, c in curves.items())
        + ".",
    )
