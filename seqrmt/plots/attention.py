"""Figures for the causal-attention chapter (Section 5 of the paper).

Parameter-free causal self-attention: query ``t`` scores key ``s <= t`` by
``(tau/d) <x_t, x_s>``, takes a softmax over the keys it sees, and the pooled vector
is the mean over queries of the attention outputs.  As ``d -> infinity`` the cross
scores vanish and the self score tends to ``tau``, so the effective pooling weights
become the deterministic :func:`seqrmt.causal_weights`.  The functions below draw
that convergence, its spectral consequence and the ``alpha/kappa`` comparison with
mean pooling.  Data helpers (``attention_*_data``, ``attention_weight_samples``)
return the numbers behind the figures so that a notebook can check them.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator
from scipy import linalg

import seqrmt as sr

from .. import _checks

from ._style import (
    IDEAL_COLOR,
    SIM_COLOR,
    THEORY_COLOR,
    WEIGHT_COLORS,
    figure,
    legend_below,
    finish,
    fmt,
    plain_text,
    set_alt,
)

__all__ = [
    "attention_suffix_correlation",
    "attention_weight_samples",
    "attention_convergence_data",
    "attention_spectrum_data",
    "attention_profiles",
    "attention_convergence",
    "attention_spectrum",
    "attention_tau_profiles",
    "attention_snr_tau",
    "attention_explorer",
]


# --------------------------------------------------------------------------- helpers


def _prefix_or(R, T, L):
    if R is None:
        T = _checks.integer("T", T)
        L = _checks.integer("L", L)
        if L > T:
            raise ValueError(f"L must satisfy 1 <= L <= T = {T}, got {L}")
        return sr.prefix_correlation(T, L)
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] != R.shape[1]:
        raise ValueError(f"R must be a square T x T matrix, got shape {R.shape}")
    return R


def attention_suffix_correlation(T: int = 16, L: int = 4) -> np.ndarray:
    """The prefix correlation with positions reversed: the LAST ``L`` positions share a sign.

    ``R_suffix = P R_prefix P^T`` with ``P`` the reversal permutation, built from
    :func:`seqrmt.prefix_correlation`.
    """
    R = _prefix_or(None, T, L)
    P = np.eye(R.shape[0])[::-1]
    return P @ R @ P.T


# --------------------------------------------------------------------------- data
def attention_weight_samples(
    d: int = 256,
    *,
    T: int = 16,
    L: int = 4,
    tau: float = 1.0,
    n_sequences: int = 200,
    beta: float = 1.0,
    delta: float = 0.5,
    R=None,
    strict: bool = False,
    seed=0,
):
    """Per-sequence effective weights of finite-``d`` causal attention.

    Draws a table (``V = d / delta``), ``n_sequences`` sign sequences with correlation
    ``R`` (prefix ``(T, L)`` by default), embeds the tokens with :func:`seqrmt.embed`
    and runs :func:`seqrmt.causal_attention`; the effective weights
    ``w_s = mean_t a_ts`` satisfy ``c = sum_s w_s x_s``.

    Returns
    -------
    W : ndarray, shape (n_sequences, T)
        Effective weights, one row per sequence.
    w_limit : ndarray, shape (T,)
        The deterministic limit :func:`seqrmt.causal_weights`.
    """
    d = _checks.integer("d", d)
    n_sequences = _checks.integer("n_sequences", n_sequences)
    tau = _checks.real("tau", tau)
    delta = _checks.positive("delta", delta)
    beta = _checks.nonnegative("beta", beta)
    R = _prefix_or(R, T, L)
    V = sr.sizes(d, delta, 1.0)[0]
    rng = np.random.default_rng(seed)
    table = sr.make_table(d, V, beta, seed=rng)
    xi = sr.sample_signs(n_sequences, R, seed=rng)
    X = sr.embed(table, sr.sample_tokens(xi, V, seed=rng))
    _, W = sr.causal_attention(X, tau, strict=strict, return_weights=True)
    return W, sr.causal_weights(R.shape[0], tau, strict=strict)


def attention_convergence_data(
    ds=(16, 32, 64, 128, 256, 512, 1024),
    *,
    T: int = 16,
    L: int = 4,
    tau: float = 1.0,
    n_sequences: int = 200,
    beta: float = 1.0,
    delta: float = 0.5,
    seed=0,
) -> dict:
    """Distance between finite-``d`` effective weights and their limit, against ``d``.

    For each ``d`` the error of sequence ``n`` is the relative distance
    ``||w^(n) - w(tau)|| / ||w(tau)||`` (``w^(n)`` the effective weights of sequence ``n``);
    ``error`` is its mean over sequences and
    ``sem`` the standard error of that mean.  ``rate`` and ``intercept`` are the
    least-squares fit ``log error = intercept + rate log d`` (expected ``rate = -1/2``:
    the cross scores ``(tau/d) <x_t, x_s>`` are of order ``tau / sqrt(d)``).

    Returns
    -------
    dict with keys ``d``, ``error``, ``sem``, ``rate``, ``intercept``, ``tau``.
    """
    ds = np.asarray(ds, dtype=int)
    if ds.ndim != 1 or ds.size < 2 or np.any(ds < 1):
        raise ValueError(f"ds must list at least two dimensions >= 1, got {ds!r}")
    tau = _checks.real("tau", tau)
    if tau == 0:
        raise ValueError(
            "tau must be non-zero: at tau = 0 every score vanishes and the "
            "weights equal their limit exactly for every d"
        )
    err, sem = [], []
    for i, d in enumerate(ds):
        W, w = attention_weight_samples(
            int(d), T=T, L=L, tau=tau, n_sequences=n_sequences, beta=beta, delta=delta, seed=[int(seed), i]
        )
        e = np.linalg.norm(W - w, axis=1) / np.linalg.norm(w)
        err.append(e.mean())
        sem.append(e.std(ddof=1) / np.sqrt(e.size) if e.size > 1 else 0.0)
    err, sem = np.array(err), np.array(sem)
    rate, intercept = np.polyfit(np.log(ds), np.log(err), 1)
    return dict(d=ds, error=err, sem=sem, rate=float(rate), intercept=float(intercept), tau=tau)


def attention_spectrum_data(
    d: int = 400,
    *,
    delta: float = 0.5,
    gamma: float = 0.5,
    beta: float = 1.0,
    tau: float = 1.0,
    T: int = 16,
    L: int = 4,
    R=None,
    strict: bool = False,
    full: bool = True,
    seed=0,
) -> dict:
    """Spectrum of the centered ``S`` built from real finite-``d`` causal attention pooling.

    Draws a table (``V = d/delta``) and ``N = d/gamma`` sequences, pools them with
    :func:`seqrmt.causal_attention` (data-dependent softmax weights), and for
    comparison with the fixed limit weights :func:`seqrmt.causal_weights` on the
    same tokens.

    Returns
    -------
    dict
        ``eigenvalues`` (descending; only the top one unless ``full``), ``outlier`` (top eigenvalue), ``overlap``
        (its squared cosine with ``mu/||mu||``), ``fixed_outlier`` and
        ``fixed_overlap`` (same tokens, fixed limit weights), ``prediction``
        (:func:`seqrmt.predict` with the limit ``||Delta||^2 -> delta``),
        ``prediction_realized`` (with this table's ``||mu + Delta||^2`` and ``||Delta||^2``),
        ``prediction_ideal`` (idealized statement), ``w`` (limit weights), ``R``,
        ``delta``, ``gamma``.
    """
    d = _checks.integer("d", d)
    delta = _checks.positive("delta", delta)
    gamma = _checks.positive("gamma", gamma)
    beta = _checks.positive("beta", beta)
    tau = _checks.real("tau", tau)
    R = _prefix_or(R, T, L)
    V, N = sr.sizes(d, delta, gamma)
    rng = np.random.default_rng(seed)
    table = sr.make_table(d, V, beta, seed=rng)
    xi = sr.sample_signs(N, R, seed=rng)
    tokens = sr.sample_tokens(xi, V, seed=rng)
    C = sr.causal_attention(sr.embed(table, tokens), tau, strict=strict)
    w = sr.causal_weights(R.shape[0], tau, strict=strict)
    u = table.mu / np.linalg.norm(table.mu)

    def top(Cmat, everything):
        S = sr.sample_matrix(Cmat)
        top_val, vec = linalg.eigh(S, subset_by_index=(d - 1, d - 1), check_finite=False)
        lam = linalg.eigh(S, eigvals_only=True, driver="ev", check_finite=False)[::-1] if everything else top_val
        return lam, float((vec[:, 0] @ u) ** 2)

    lam, ov = top(C, full)
    lam_f, ov_f = top(sr.pool(table, tokens, w), False)
    dv, gv = d / V, d / N
    Delta = table.Delta
    Dn = float(Delta @ Delta)
    Sn = table.spike_norm2
    return dict(
        eigenvalues=lam,
        outlier=float(lam[0]),
        overlap=ov,
        fixed_outlier=float(lam_f[0]),
        fixed_overlap=ov_f,
        prediction=sr.predict(dv, gv, w, R, beta),
        prediction_realized=sr.predict(dv, gv, w, R, beta, spike_norm2=Sn, delta_norm2=Dn),
        prediction_ideal=sr.predict(dv, gv, w, R, beta, finite_table=False),
        w=w,
        R=R,
        delta=dv,
        gamma=gv,
    )


# --------------------------------------------------------------------------- figures
def attention_profiles(
    *,
    ds=(16, 64, 256, 1024),
    T: int = 16,
    L: int = 4,
    tau: float = 1.0,
    n_show: int = 20,
    beta: float = 1.0,
    delta: float = 0.5,
    seed=0,
):
    """Per-sequence effective weights of finite-``d`` causal attention vs their limit.

    One panel per ``d``: the effective weights ``w_s = mean_t a_ts`` of ``n_show``
    sequences (thin lines) and the deterministic limit
    ``w_s(tau) = (1/T)[e^tau/(e^tau + s - 1) + sum_{t>s} 1/(e^tau + t - 1)]``
    (:func:`seqrmt.causal_weights`, thick line).
    """
    ds = [int(_checks.integer("ds", x)) for x in np.atleast_1d(ds)]
    if not ds or len(ds) > 6:
        raise ValueError(f"ds must list 1 to 6 dimensions, got {ds!r}")
    n_show = _checks.integer("n_show", n_show)
    ncols = min(len(ds), 2) if len(ds) == 4 else len(ds)
    nrows = int(np.ceil(len(ds) / ncols))
    fig, axes = figure(ncols, nrows, width=6.8, height=2.4 * nrows + 0.4, sharex=True, sharey=True)
    axes = np.atleast_1d(axes).ravel()
    s = np.arange(1, T + 1)
    spreads = []
    for i, (ax, d) in enumerate(zip(axes, ds)):
        W, w = attention_weight_samples(
            d, T=T, L=L, tau=tau, n_sequences=n_show, beta=beta, delta=delta, seed=[int(seed), i]
        )
        for k, row in enumerate(W):
            ax.plot(
                s,
                row,
                color=SIM_COLOR,
                lw=0.8,
                alpha=0.55,
                label=f"finite $d$ ({n_show} sequences)" if k == 0 else None,
            )
        ax.plot(s, w, color=WEIGHT_COLORS["causal"], lw=2.2, label=r"limit $w_s(\tau)$")
        spreads.append(float(np.mean(np.linalg.norm(W - w, axis=1)) / np.linalg.norm(w)))
        finish(
            ax,
            xlabel=r"position $s$" if i >= len(ds) - ncols else None,
            ylabel=r"weight $w_s$" if i % ncols == 0 else None,
            title=rf"$d = {d}$",
            legend=(i == 0),
        )
    for ax in axes[len(ds) :]:
        ax.set_visible(False)
    axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(rf"Effective causal-attention weights, $T = {T}$, $\tau = {tau:g}$", fontsize="medium")
    w_lim = sr.causal_weights(T, tau)
    return set_alt(
        fig,
        f"Effective weights of finite-d causal attention for {n_show} sequences (thin lines) "
        f"and their limit w(τ) (thick line, from {fmt(w_lim[0], 2)} at s = 1 down to "
        f"{fmt(w_lim[-1], 2)} at s = {T}), T = {T}, τ = {fmt(tau)}, one panel per d: the "
        f"lines tighten around the limit as d grows; mean relative distance "
        + ", ".join(f"{sp:.2f} at d = {d}" for d, sp in zip(ds, spreads))
        + ".",
    )


def attention_convergence(
    *,
    ds=(16, 32, 64, 128, 256, 512, 1024),
    T: int = 16,
    L: int = 4,
    tau: float = 1.0,
    n_sequences: int = 200,
    beta: float = 1.0,
    delta: float = 0.5,
    seed=0,
    data: dict | None = None,
):
    """Mean relative error ``||w^(n) - w(tau)|| / ||w(tau)||`` against ``d`` (log-log).

    Points: simulation (error bars: standard error over sequences). Line: the fitted
    power law ``C d^{rate}`` from :func:`attention_convergence_data`; dashed: a
    ``d^{-1/2}`` reference through the first point.  Pass ``data`` to reuse a
    precomputed result.
    """
    if data is None:
        data = attention_convergence_data(
            ds, T=T, L=L, tau=tau, n_sequences=n_sequences, beta=beta, delta=delta, seed=seed
        )
    d, e = data["d"], data["error"]
    fig, ax = figure(width=5.6, height=3.6)
    ax.errorbar(d, e, yerr=data["sem"], fmt="o", color=SIM_COLOR, mec="k", mew=0.5, label="simulation")
    grid = np.geomspace(d.min(), d.max(), 50)
    ax.plot(
        grid,
        np.exp(data["intercept"]) * grid ** data["rate"],
        color=THEORY_COLOR,
        label=rf"fit $\propto d^{{{data['rate']:.2f}}}$",
    )
    ax.plot(grid, e[0] * (grid / d[0]) ** -0.5, "--", color=IDEAL_COLOR, label=r"reference $d^{-1/2}$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    finish(
        ax,
        xlabel=r"dimension $d$",
        ylabel=r"mean $\|w^{(n)} - w(\tau)\| \,/\, \|w(\tau)\|$",
        title=rf"Convergence to the deterministic weights ($\tau = {data['tau']:g}$)",
    )
    return set_alt(
        fig,
        f"Log-log plot of the mean relative error between finite-d attention weights and their "
        f"limit (τ = {fmt(data['tau'])}) against the dimension d from {fmt(d.min())} to "
        f"{fmt(d.max())}: it falls from {fmt(e[0], 2)} to {fmt(e[-1], 2)}; fitted power law "
        f"d^{data['rate']:.2f}, drawn with a dashed d^-1/2 reference.",
    )


def attention_spectrum(
    *,
    d: int = 400,
    delta: float = 0.5,
    gamma: float = 0.5,
    beta: float = 1.0,
    tau: float = 1.0,
    T: int = 16,
    L: int = 4,
    seed=0,
    data: dict | None = None,
):
    """Spectrum of ``S`` from real causal-attention pooling against the theory.

    Histogram: eigenvalues of the centered ``S`` when every sequence is pooled by
    finite-``d`` softmax attention.  Curve: the bulk density
    ``kappa (MP_delta boxtimes MP_gamma)`` (Theorem 1) with ``kappa = ||w(tau)||^2``.
    Vertical lines: the outlier predicted by :func:`seqrmt.predict` with the limit
    weights :func:`seqrmt.causal_weights` (finite-table theory, solid; idealized
    ``theta = alpha beta``, dashed).
    """
    if data is None:
        data = attention_spectrum_data(d, delta=delta, gamma=gamma, beta=beta, tau=tau, T=T, L=L, seed=seed)
    lam = data["eigenvalues"]
    p, pi = data["prediction"], data["prediction_ideal"]
    fig, ax = figure(width=6.4, height=3.6)
    hi = 1.15 * max(lam[0], p.sample_outlier or 0, pi.sample_outlier or 0, p.bulk_edge)
    bins = np.linspace(0, hi, 70)
    counts, _, _ = ax.hist(
        lam,
        bins=bins,
        density=True,
        color=SIM_COLOR,
        alpha=0.8,
        label=rf"eigenvalues of $S$, attention pooling ($d = {lam.size}$)",
    )
    x = np.linspace(0, hi, 600)
    ax.plot(
        x,
        sr.bulk_density(x, data["delta"], data["gamma"], p.kappa),
        color=THEORY_COLOR,
        lw=1.6,
        label=r"bulk $\kappa\,(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)$",
    )
    if p.sample_outlier is not None:
        ax.axvline(
            p.sample_outlier, color=WEIGHT_COLORS["causal"], lw=2, label=rf"predicted outlier {p.sample_outlier:.3f}"
        )
    if pi.sample_outlier is not None:
        ax.axvline(
            pi.sample_outlier,
            color=IDEAL_COLOR,
            ls="--",
            lw=1.5,
            label=rf"idealized ($\theta = \alpha\beta$) {pi.sample_outlier:.3f}",
        )
    ax.plot([lam[0]], [0], marker="v", ms=10, color="k", clip_on=False, zorder=5, label=rf"top eigenvalue {lam[0]:.3f}")
    ax.set_xlim(0, hi)
    ax.set_ylim(0, 1.08 * np.max(counts))  # every bar whole
    finish(
        ax,
        xlabel=r"$\lambda$",
        ylabel="density",
        legend=False,
        title=rf"Real causal attention ($\tau = {tau:g}$), $\delta = {data['delta']:.2g}$, "
        rf"$\gamma = {data['gamma']:.2g}$, $\beta = {beta:g}$",
    )
    legend_below(fig, ax, ncols=2, fontsize="x-small")
    pred = (
        f"predicted outlier {fmt(p.sample_outlier)} (idealized "
        f"{fmt(pi.sample_outlier) if pi.sample_outlier is not None else 'none'})"
        if p.sample_outlier is not None
        else "no predicted outlier"
    )
    return set_alt(
        fig,
        f"Histogram of the eigenvalues of S when every sequence is pooled by real causal "
        f"attention (d = {lam.size}, τ = {fmt(tau)}, δ = {fmt(data['delta'], 2)}, "
        f"γ = {fmt(data['gamma'], 2)}, β = {fmt(beta)}) with the bulk density of the paper's Theorem 1 "
        f"(right edge {fmt(p.bulk_edge)}): top eigenvalue {fmt(lam[0])}, {pred}.",
    )


def attention_tau_profiles(*, T: int = 16, taus=(-6.0, -2.0, 0.0, 2.0, 6.0), show_strict: bool = True):
    """Limit weights ``w_s(tau)`` for several ``tau`` (theory only).

    Large ``tau``: each query attends to itself, ``w -> 1/T`` (mean pooling).  Very
    negative ``tau``: each query ``t >= 2`` avoids itself and spreads over ``s < t``;
    the profile tends to ``((T-1) w^{strict} + e_1) / T``.  The strictly causal
    ``w^{strict}_s = (H_{T-1} - H_{s-1}) / (T - 1)`` is drawn for reference.
    """
    T = _checks.integer("T", T, minimum=2)
    taus = [_checks.real("taus", t) for t in np.atleast_1d(taus)]
    fig, ax = figure(width=6.0, height=3.6)
    s = np.arange(1, T + 1)
    cmap = __import__("matplotlib").colormaps["viridis"]
    for k, tau in enumerate(taus):
        ax.plot(
            s,
            sr.causal_weights(T, tau),
            marker="o",
            ms=3,
            color=cmap(k / max(1, len(taus) - 1)),
            label=rf"$\tau = {tau:g}$",
        )
    if show_strict:
        ax.plot(s, sr.causal_weights(T, strict=True), "k:", lw=1.5, label=r"strictly causal ($s < t$)")
    ax.axhline(1 / T, color=WEIGHT_COLORS["mean"], ls="--", lw=1, label=r"mean $1/T$")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    finish(
        ax,
        xlabel=r"position $s$",
        ylabel=r"limit weight $w_s(\tau)$",
        title=rf"Deterministic causal weights, $T = {T}$",
    )
    firsts = ", ".join(f"{fmt(sr.causal_weights(T, t)[0], 2)} at τ = {fmt(t)}" for t in taus)
    return set_alt(
        fig,
        f"Limit causal-attention weights w(τ) against the position s for T = {T} and τ = "
        + ", ".join(fmt(t) for t in taus)
        + f", with the dashed mean level 1/T = {fmt(1 / T)}"
        + (" and the dotted strictly causal profile" if show_strict else "")
        + f"; they flatten towards 1/T as τ grows; weight of the first position {firsts}.",
    )


def _snr_curves(T, L, rho, taus):
    Rs = {
        "prefix": sr.prefix_correlation(T, L),
        "suffix": attention_suffix_correlation(T, L),
        rf"Markov $\rho={rho:g}$": sr.markov_correlation(T, rho),
    }
    W = [sr.causal_weights(T, t) for t in taus]
    out = {}
    for name, R in Rs.items():
        causal = np.array([sr.alpha(w, R) / sr.kappa(w) for w in W])
        m = sr.mean_weights(T)
        o = sr.optimal_weights(R)
        out[name] = (causal, sr.alpha(m, R) / sr.kappa(m), sr.alpha(o, R) / sr.kappa(o))
    return out


_STYLES = ["-", "--", ":"]


def attention_snr_tau(
    *,
    T: int = 16,
    L: int = 4,
    rho: float = 0.5,
    tau_range=(-8.0, 8.0),
    n_tau: int = 81,
    tau_mark: float | None = None,
    ax=None,
):
    """``alpha/kappa`` of causal attention against ``tau`` for three correlations (theory only).

    Curves: ``w^T R w / w^T w`` with ``w = w(tau)`` for a prefix block (first ``L``
    positions), a suffix block (last ``L`` positions) and a Markov chain
    ``R_ts = rho^|t-s|``.  Horizontal lines: mean pooling (blue) for each ``R``.
    ``tau -> +infinity`` recovers mean pooling, so every curve ends on its mean line.
    """
    T = _checks.integer("T", T, minimum=2)
    L = _checks.integer("L", L)
    if L > T:
        raise ValueError(f"L must satisfy 1 <= L <= T = {T}, got {L}")
    rho = _checks.real("rho", rho)
    if not -1 <= rho <= 1:
        raise ValueError(f"rho must lie in [-1, 1], got {rho}")
    lo, hi = (_checks.real("tau_range", t) for t in tau_range)
    if not lo < hi:
        raise ValueError(f"tau_range must be (low, high) with low < high, got {tau_range!r}")
    taus = np.linspace(lo, hi, _checks.integer("n_tau", n_tau, minimum=2))
    curves = _snr_curves(T, L, rho, taus)
    own = ax is None
    if own:
        fig, ax = figure(width=6.0, height=3.6)
    for (name, (c, m, _)), ls in zip(curves.items(), _STYLES):
        ax.plot(taus, c, ls, color=WEIGHT_COLORS["causal"], lw=2, label=f"causal, {name}")
        if name == "suffix":  # mean pooling is blind to the order of positions
            continue
        ax.axhline(
            m,
            ls=ls,
            color=WEIGHT_COLORS["mean"],
            lw=1,
            alpha=0.9,
            label="mean, prefix and suffix" if name == "prefix" else f"mean, {name}",
        )
    if tau_mark is not None:
        ax.axvline(_checks.real("tau_mark", tau_mark), color="0.4", lw=1)
    finish(
        ax,
        xlabel=r"$\tau$",
        ylabel=r"$\alpha/\kappa = w^\top R w / w^\top w$",
        title=rf"Causal vs mean pooling, $T = {T}$, $L = {L}$",
    )
    ax.legend(fontsize="x-small", frameon=False, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    if own:
        set_alt(ax.figure, _snr_alt(curves, taus, T, L))
    return ax.figure if own else ax


def _snr_alt(curves, taus, T, L) -> str:
    parts = []
    for name, (c, m, o) in curves.items():
        k = int(np.argmax(c))
        parts.append(
            f"{plain_text(name)}: causal from {c[0]:.2f} at τ = {fmt(taus[0])} to {c[-1]:.2f} at "
            f"τ = {fmt(taus[-1])}, highest {c[k]:.2f} at τ = {fmt(taus[k], 2)}, mean pooling {m:.2f}"
        )
    return (
        f"The Rayleigh quotient α/κ of causal attention against τ from {fmt(taus[0])} to {fmt(taus[-1])}, "
        f"T = {T}, L = {L}, for three correlations, with mean pooling as horizontal lines; " + "; ".join(parts) + "."
    )


def attention_explorer(
    *, tau: float = 0.0, T: int = 16, L: int = 4, d: int = 256, n_show: int = 6, rho: float = 0.5, seed=0
):
    """Key figure of the chapter: weight profile and ``alpha/kappa`` at a given ``tau``.

    Top: the limit weights ``w_s(tau)`` (:func:`seqrmt.causal_weights`), the effective
    weights of ``n_show`` sequences under real attention at dimension ``d``, and mean
    pooling ``1/T``.  Bottom: :func:`attention_snr_tau` with the current ``tau`` marked;
    the legend of the top panel lists ``alpha/kappa`` of causal vs mean for the
    prefix and suffix blocks at this ``tau``.
    """
    tau = _checks.real("tau", tau)
    T = _checks.integer("T", T, minimum=2)
    # panels stacked, so that the figure stays readable on a phone column
    fig, (a1, a2) = figure(1, 2, width=6.4, height=7.6)
    s = np.arange(1, T + 1)
    W, w = attention_weight_samples(d, T=T, L=L, tau=tau, n_sequences=n_show, seed=seed)
    for k, row in enumerate(W):
        a1.plot(s, row, color=SIM_COLOR, lw=0.8, alpha=0.7, label=rf"real attention, $d = {d}$" if k == 0 else None)
    a1.plot(s, w, "o-", ms=3, color=WEIGHT_COLORS["causal"], lw=2, label=r"limit $w_s(\tau)$")
    a1.axhline(1 / T, color=WEIGHT_COLORS["mean"], ls="--", lw=1.2, label=r"mean $1/T$")
    Rp, Rs = sr.prefix_correlation(T, L), attention_suffix_correlation(T, L)
    m = sr.mean_weights(T)
    txt = (
        rf"$\alpha/\kappa$ prefix: causal {sr.alpha(w, Rp) / sr.kappa(w):.2f}, "
        rf"mean {sr.alpha(m, Rp) / sr.kappa(m):.2f}"
        "\n"
        rf"$\alpha/\kappa$ suffix: causal {sr.alpha(w, Rs) / sr.kappa(w):.2f}, "
        rf"mean {sr.alpha(m, Rs) / sr.kappa(m):.2f}"
    )
    a1.text(
        0.98,
        0.97,
        txt,
        transform=a1.transAxes,
        ha="right",
        va="top",
        fontsize="x-small",
        bbox=dict(boxstyle="round", fc="white", ec="0.8"),
    )
    a1.xaxis.set_major_locator(MaxNLocator(integer=True))
    a1.set_ylim(0, max(0.45, 1.1 * float(np.max(W)), 1.1 * float(w.max())))
    finish(a1, xlabel=r"position $s$", ylabel=r"weight $w_s$", title=rf"Weights at $\tau = {tau:g}$, $T = {T}$")
    a1.legend(fontsize="x-small", frameon=False, loc="center right")
    attention_snr_tau(T=T, L=L, rho=rho, tau_mark=tau, ax=a2)
    return set_alt(
        fig,
        f"Top: attention weights at τ = {fmt(tau)}, T = {T}: limit w(τ) from {fmt(w[0], 2)} at "
        f"s = 1 to {fmt(w[-1], 2)} at s = {T}, {n_show} sequences of real attention at d = {d} "
        f"around it, and the mean level 1/T; α/κ prefix: causal "
        f"{sr.alpha(w, Rp) / sr.kappa(w):.2f}, mean {sr.alpha(m, Rp) / sr.kappa(m):.2f}; suffix: "
        f"causal {sr.alpha(w, Rs) / sr.kappa(w):.2f}, mean {sr.alpha(m, Rs) / sr.kappa(m):.2f}. "
        f"Bottom, with τ = {fmt(tau)} marked: "
        + _snr_alt(_snr_curves(T, L, rho, np.linspace(-8.0, 8.0, 81)), np.linspace(-8.0, 8.0, 81), T, L),
    )
