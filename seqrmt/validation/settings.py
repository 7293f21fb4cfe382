"""The settings of the chapter-7 sweeps: the atlas grid, its positional correlations and
its three signal strengths around the two transitions."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import _checks
from ..model import copula_correlation, markov_correlation, prefix_correlation
from ..spikes import critical_beta

__all__ = ["ATLAS_GRID", "ATLAS_QUANTITIES", "atlas_correlation", "atlas_betas"]

#: The grid of the full atlas (324 cells).
ATLAS_GRID: dict[str, tuple] = {
    "delta": (0.25, 0.5, 1.5),
    "gamma": (0.25, 1.5),
    "R": ("prefix", "markov", "copula"),
    "weights": ("mean", "causal", "optimal"),
    "regime": ("low", "mid", "high"),
    "centered": (True, False),
}

#: Quantities compared in each cell (``lambda_mean``/``overlap_mean`` only when uncentered).
ATLAS_QUANTITIES: tuple[str, ...] = (
    "lambda_1",
    "lambda_2",
    "lambda_signal",
    "overlap_signal",
    "lambda_mean",
    "overlap_mean",
    "ks_bulk",
)

_T = 16


def atlas_correlation(name: str, T: int = _T) -> np.ndarray:
    """The positional correlations of the atlas.

    ``"prefix"``: first ``L = T/4`` positions share one sign (``L = 4`` at ``T = 16``);
    ``"markov"``: ``R_ts = 0.8^|t-s|``; ``"copula"``: the sign correlation
    ``(2/pi) arcsin(Sigma)`` of a Gaussian vector with squared-exponential covariance
    ``Sigma_ts = exp(-(t - s)^2 / (2 l^2))``, ``l = 2`` (Sheppard's formula);
    ``"independent"``: ``R = I``.
    """
    T = _checks.integer("T", T)
    if name == "prefix":
        return prefix_correlation(T, max(1, T // 4))
    if name == "markov":
        return markov_correlation(T, 0.8)
    if name == "copula":
        t = np.arange(T, dtype=float)
        Sigma = np.exp(-((t[:, None] - t[None, :]) ** 2) / (2 * 2.0**2))
        return copula_correlation(Sigma)
    if name == "independent":
        return np.eye(T)
    raise ValueError(f"R must be 'prefix', 'markov', 'copula' or 'independent', got {name!r}")


def atlas_betas(delta: float, gamma: float, w: ArrayLike, R: ArrayLike) -> dict:
    """Three signal strengths around the two transitions, and how they were chosen.

    With ``b_pop`` and ``b_samp`` the finite-table critical betas
    (:func:`seqrmt.critical_beta`, population and sample stage):

    * ``b_pop > 0``: ``low = b_pop / 2`` (no outlier at all), ``mid = (b_pop + b_samp) / 2``
      (population outlier only), ``high = 2 b_samp`` (sample outlier);
    * ``b_pop = 0 < b_samp`` (the class-mean noise alone makes a population outlier):
      ``low = 0``, ``mid = b_samp / 2``, ``high = 2 b_samp``;
    * ``b_samp = 0`` (the outlier exists at every ``beta``): the idealized sample
      threshold ``b_ideal`` replaces it: ``low = 0``, ``mid = b_ideal / 2``,
      ``high = 2 b_ideal``.  The idealized theory predicts no outlier at ``low`` and
      ``mid``; the exact one predicts an outlier everywhere.

    Returns a dict with ``betas`` (``{"low": .., "mid": .., "high": ..}``), ``rule`` and
    the four critical betas.
    """
    bp = critical_beta(delta, gamma, w, R, stage="population")
    bs = critical_beta(delta, gamma, w, R, stage="sample")
    bpi = critical_beta(delta, gamma, w, R, stage="population", finite_table=False)
    bsi = critical_beta(delta, gamma, w, R, stage="sample", finite_table=False)
    if bs == 0.0:
        rule = "always"
        betas = {"low": 0.0, "mid": 0.5 * bsi, "high": 2.0 * bsi}
    elif bp == 0.0:
        rule = "noise-population"
        betas = {"low": 0.0, "mid": 0.5 * bs, "high": 2.0 * bs}
    else:
        rule = "standard"
        betas = {"low": 0.5 * bp, "mid": 0.5 * (bp + bs), "high": 2.0 * bs}
    return dict(betas=betas, rule=rule, beta_c_pop=bp, beta_c_sample=bs, beta_c_pop_ideal=bpi, beta_c_sample_ideal=bsi)
