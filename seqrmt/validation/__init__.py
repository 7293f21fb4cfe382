"""How exact is the theory?  Theory against simulation across the parameter space.

This package runs the comparisons of the chapter "How exact is the theory?":

* :func:`atlas` -- a grid of settings (``delta``, ``gamma``, positional correlation
  ``R``, pooling weights, signal strength ``beta`` placed below / between / above the
  two transitions, centered and uncentered ``S``), each simulated over several seeds,
  returning one row per (setting, quantity) with the exact finite-table prediction,
  the idealized prediction (``finite_table=False``), the prediction with the realized
  table norms ``||mu + Delta||^2, ||Delta||^2, ||zbar||^2``, the empirical mean and spread, a tolerance
  and a verdict (:func:`judge`: ``"agree"`` / ``"explained"`` / ``"disagree"``);
* :func:`finite_size` -- the same comparison at growing ``d`` for a few representative
  settings, with :func:`scaling_rates` fitting the log-log slope of the error and of
  the seed-to-seed spread;
* :func:`bulk_vs_T` -- the Kolmogorov distance between the empirical bulk and
  ``kappa (MP_delta boxtimes MP_gamma)`` as the sequence length ``T`` varies (``T = 1``
  is the case where token counts are classical rather than free Poisson);
* :func:`to_csv` / :func:`read_csv` (``csv`` module only) and :func:`load_atlas` /
  :func:`load_finite_size` / :func:`load_finite_size_large` / :func:`load_cost` for the
  precomputed tables shipped in ``seqrmt/data``; :func:`cost_exponent` and
  :func:`atlas_hours` read the measured cost of one simulation against ``d``.

Scaling out.  :func:`atlas`, :func:`finite_size`, :func:`bulk_vs_T` and
:func:`spikes_vs_T` take ``executor=`` (any :class:`concurrent.futures.Executor`;
default: run in this process) and ``progress=`` (a ``tqdm`` bar).  The unit of work is
one simulation (one seed of one setting) with single-threaded BLAS, and the results are
reassembled in seed order, so the rows are bitwise identical whatever the executor::

    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(8) as ex:
        rows = atlas(1600, 6, executor=ex, progress=True)

    from dask.distributed import Client          # pip install seqrmt[cluster]
    with Client("tcp://scheduler:8786") as client:
        rows = atlas(3200, 6, executor=client.get_executor(), progress=True)

Executors that run units in threads of one process (``ThreadPoolExecutor``, a Dask
worker with several threads) are not recommended: the BLAS thread limit is set per
process, so concurrent units would interfere; use one thread per worker process.
A simulation never forms the ``d x N`` pooled matrix (the sequences are pooled
2048 at a time into ``S``), so it holds the table noise ``Z^T``
(``V x d``), ``S`` and the copy of ``S`` that LAPACK factorizes.

Quantities compared (``quantity`` column of :func:`atlas`):

``lambda_1``, ``lambda_2``
    The two largest eigenvalues; predicted by the sorted list of predicted outliers
    completed by the bulk edge.
``lambda_signal``, ``overlap_signal``
    The signal eigenvalue and the squared cosine of its eigenvector with
    ``u = mu / ||mu||``.  When a signal outlier is predicted, the empirical signal
    eigenvector is the one, among the top few, best aligned with the spike direction
    ``mu + Delta`` (the direction the theory says the outlier follows); otherwise it is
    the largest eigenvalue not attributed to the vocabulary mean, compared with the bulk
    edge (and an overlap of 0).  ``overlap_signal`` is omitted at ``beta = 0``.
``lambda_mean``, ``overlap_mean``
    Uncentered ``S`` only: the vocabulary-mean outlier (strength ``sigma_w^2 delta``)
    and the squared cosine of its eigenvector with ``zbar``.  When both the signal
    and the mean outliers are predicted, the two overlaps are measured on the
    two-dimensional outlier eigenspace (sum of the squared cosines with its two
    eigenvectors): the theory predicts this projection, and it is insensitive to the
    rotation of the two eigenvectors inside their span when the two spikes are close.
``ks_bulk``
    Kolmogorov distance between :class:`seqrmt.BulkLaw` and the empirical spectrum
    with the predicted outliers removed (prediction 0).

Verdicts (:func:`judge`).  Agreement rule: ``|predicted - mean| <= tol`` with
``tol = max(t * sem, absolute tolerance)``, ``t`` a Student quantile (see
:class:`Tolerance`), applied to the limit prediction (``status_limit``) and to a
finite-size corrected prediction computed from the theory without fitting
(``status_corrected`` against ``predicted_corrected``):

* an eigenvalue predicted *inside* the bulk (at the edge in the limit) is compared
  with its classical location, the quantile ``1 - (j - 1/2)/d`` of the bulk law for
  the ``j``-th largest bulk eigenvalue (``predicted_finite_d``);
* an outlier or an overlap is compared with the prediction that uses the realized
  ``||mu + Delta||^2``, ``||Delta||^2`` and ``||zbar||^2`` of each drawn table, averaged
  over the tables (``predicted_realized``; see :func:`seqrmt.predict`, ``spike_norm2``).

A row agrees when both do.  Otherwise it is ``"explained"`` only if one quantitative
criterion accepts it (the corrected prediction agrees; the transition window of
:func:`transition_window`; an unresolved pair of outliers whose sum agrees; the
fixed-``T`` bulk law for ``ks_bulk``), and ``"disagree"`` if none does; ``reason``
names the criterion and ``note`` records its numbers.

Simulation shortcut (exact, not an approximation): with ``mu = sqrt(beta) e_1`` the
table is ``E = Z + mu s^T``, so the pooled matrix is ``C_beta = C_0 + sqrt(beta) e_1 y^T``
with ``y_n = w^T xi_n``, and ``S_beta`` is a rank-two update of ``S_0``.  One table, one
set of sequences and one pooling per weight vector therefore serve every ``beta`` and
both centerings; the draws are those of :func:`seqrmt.simulate` with the same seed.

Layout: one module per concern, every public name importable from here (``import
seqrmt.validation as sv``): ``settings`` (the grid, its correlations and strengths),
``tolerance`` (the agreement rule), ``verdicts`` (:func:`judge` and its criteria), ``measure``
(one simulation and what is measured on it), ``executors``, ``grid`` (:func:`atlas`),
``scaling`` (:func:`finite_size`, :func:`bulk_vs_T`, :func:`spikes_vs_T`), ``tables`` (CSV and
the shipped tables), ``cost`` and ``fixed_T`` (:func:`fixed_T_spike_check`).
"""

from __future__ import annotations

from .._numerics import blas_threads
from .cost import atlas_hours, cost_exponent
from .fixed_T import fixed_T_spike_check
from .grid import atlas
from .measure import kolmogorov_distance
from .scaling import (
    FINITE_SIZE_SETTINGS,
    bulk_vs_T,
    finite_size,
    fit_rate,
    fixed_T_bulk_above,
    scaling_rates,
    spikes_vs_T,
)
from .settings import ATLAS_GRID, ATLAS_QUANTITIES, atlas_betas, atlas_correlation
from .tables import (
    load_atlas,
    load_cost,
    load_finite_size,
    load_finite_size_large,
    load_fixed_T_spike,
    read_csv,
    to_csv,
)
from .tolerance import Tolerance
from .verdicts import (
    PAIR_SDS,
    REASONS,
    TW1_QUANTILES,
    disagreements,
    edge_scale,
    judge,
    law_distance,
    rejudge_shipped,
    transition_window,
)

__all__ = [
    "ATLAS_GRID",
    "Tolerance",
    "atlas_correlation",
    "atlas_betas",
    "kolmogorov_distance",
    "atlas",
    "judge",
    "rejudge_shipped",
    "edge_scale",
    "transition_window",
    "law_distance",
    "TW1_QUANTILES",
    "PAIR_SDS",
    "REASONS",
    "disagreements",
    "FINITE_SIZE_SETTINGS",
    "finite_size",
    "bulk_vs_T",
    "spikes_vs_T",
    "fixed_T_bulk_above",
    "fixed_T_spike_check",
    "load_fixed_T_spike",
    "scaling_rates",
    "fit_rate",
    "to_csv",
    "read_csv",
    "load_atlas",
    "load_finite_size",
    "load_finite_size_large",
    "load_cost",
    "cost_exponent",
    "atlas_hours",
    "ATLAS_QUANTITIES",
    "blas_threads",
]

# autodoc reads the comment of a constant in the module that names it: the documented constants,
# defined in their modules, have their comments here too (the API page documents them as sv.<name>).
#: The grid of the full atlas (324 cells).
ATLAS_GRID: dict[str, tuple]
#: Quantities compared in each cell (``lambda_mean``/``overlap_mean`` only when uncentered).
ATLAS_QUANTITIES: tuple[str, ...]
#: Quantiles 0.01 and 0.99 of the Tracy-Widom law of the largest eigenvalue of a real
#: (GOE / real Wishart) ensemble, TW_1 (Johnstone 2001, Table 1).
TW1_QUANTILES: tuple[float, float]
#: Number of standard deviations of the table-to-table fluctuation of the two spike
#: strengths within which two predicted outliers count as unresolved (a pair).
PAIR_SDS: float
#: The reasons a row that misses the limit prediction may be accepted (``reason`` column).
REASONS: tuple[str, ...]
#: Representative settings for the finite-size study: name -> (delta, gamma, R, weights,
#: centered, beta rule) where the rule is ``("regime", name)`` (from :func:`atlas_betas`)
#: or ``("factor", f)`` (``beta = f * beta_c_sample``).
FINITE_SIZE_SETTINGS: dict[str, tuple]
