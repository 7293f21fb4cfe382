"""Learned attention (Chapter 8 of the book, beyond the paper).

The paper fixes the pooling weights and asks which are best (Theorem 5: the top
eigenvector of ``R``). This module trains them instead, on labelled sequences drawn
from the book's model, together with a linear read-out:

* ``kind="positional"``: ``w = softmax(g)`` with ``T`` learnable position scores
  ``g_t``; the pooled vector is ``c_n = sum_t w_t x_{n,t}``;
* ``kind="content"``: scores ``g_{n,t} = q^T x_{n,t} / sqrt(d)`` with a learnable query
  ``q`` in ``R^d``, ``w^(n) = softmax_t(g_{n,.})``, ``c_n = sum_t w^(n)_t x_{n,t}``:
  the weights now depend on the tokens.

The read-out is ``f_n = r^T c_n + r_0`` and the loss the logistic loss of the label
``y_n = xi_{n,j}``, the sign at a chosen position ``j`` (the shared sign of the prefix
for ``j <= L`` in the prefix model), plus a small ridge penalty. Gradients are written
by hand (derived in Chapter 8) and the training is full-batch Adam, deterministic.

Everything runs on token indices: with ``x_{n,t} = e_{v(n,t)}`` every projection
``r^T x_{n,t}`` is a look-up in ``E^T r`` (``V`` numbers), and every gradient in ``R^d``
is ``E`` times a token histogram, so one step costs ``O(N T + d V)``, not ``O(N T d)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from scipy.optimize import linprog, minimize, nnls

from . import _checks
from ._numerics import _eigh_top, _tokens
from .experiments import Simulation
from .model import VocabularyTable, make_table, pool, sample_signs, sample_tokens

__all__ = [
    "KINDS",
    "LOSSES",
    "LearnedAttention",
    "learn_attention",
    "supervised_weights",
    "label_signal",
    "token_snr",
    "class_separable",
    "readout_objective",
    "readout_margin",
    "readout_support_fraction",
    "interpolation_margin",
    "weight_statistics",
    "learned_spectrum",
]

#: The two kinds of learnable attention of :func:`learn_attention`.
KINDS = ("positional", "content")

#: The losses of :func:`learn_attention`.
LOSSES = ("logistic", "squared")


def _softmax(g: np.ndarray, axis: int = -1) -> np.ndarray:
    g = g - g.max(axis=axis, keepdims=True)
    e = np.exp(g)
    return e / e.sum(axis=axis, keepdims=True)


def _softplus(x: np.ndarray) -> np.ndarray:
    """``log(1 + e^x)`` without overflow."""
    return np.logaddexp(0.0, x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _label_position(label, T: int) -> int:
    label = _checks.integer("label", label)
    if label > T:
        raise ValueError(f"label must be a position 1 <= label <= T = {T}, got {label}")
    return label


# --- the objective and its gradient ---------------------------------------------------


def _forward(kind, params, E, tokens, sqrt_d):
    """Per-sequence weights ``W`` (N, T), read-out values ``vals[n, t] = r^T x_{n,t}`` (N, T) and scores ``f``."""
    r, r0, g_or_q = params
    vals = (E.T @ r)[tokens]  # r^T x_{n,t}
    if kind == "positional":
        W = np.broadcast_to(_softmax(g_or_q), tokens.shape)
    else:
        W = _softmax((E.T @ g_or_q)[tokens] / sqrt_d, axis=1)
    f = np.einsum("nt,nt->n", W, vals) + r0
    return W, vals, f


def _loss_grad(kind, params, E, tokens, y, ridge, loss_name="logistic", *, grad=True):
    """Loss ``mean_n l(y_n, f_n) + (ridge/2)(||r||^2 [+ ||q||^2])`` and its gradient.

    ``l = log(1 + exp(-y f))`` (logistic) or ``(f - y)^2 / 2`` (squared). With
    ``rho_n = d loss / d f_n`` (``-y_n sigmoid(-y_n f_n) / N`` or ``(f_n - y_n) / N``):

    * ``d/dr = E h + ridge r`` with the token histogram ``h_v = sum_{(n,t): v(n,t)=v} rho_n w^(n)_t``;
    * ``d/dr_0 = sum_n rho_n``;
    * positional: ``d/dw_t = sum_n rho_n r^T x_{n,t}`` and, through the softmax,
      ``d/dg = w * (d/dw - w^T d/dw)`` (Proposition ``prop-ch8-gradients``);
    * content: ``d f_n / d g_{n,t} = w^(n)_t (r^T x_{n,t} - sum_s w^(n)_s r^T x_{n,s})``, and
      ``d/dq = E k / sqrt(d) + ridge q`` with ``k_v = sum_{(n,t): v(n,t)=v} rho_n d f_n / d g_{n,t}``.
    """
    r, r0, g_or_q = params
    N = tokens.shape[0]
    V = E.shape[1]
    sqrt_d = np.sqrt(E.shape[0])
    W, vals, f = _forward(kind, params, E, tokens, sqrt_d)
    if loss_name == "logistic":
        m = -y * f
        loss = float(np.mean(_softplus(m)) + 0.5 * ridge * (r @ r))
    else:
        loss = float(0.5 * np.mean((f - y) ** 2) + 0.5 * ridge * (r @ r))
    if kind == "content":
        loss += 0.5 * ridge * float(g_or_q @ g_or_q)
    if not grad:
        return loss, None, f
    rho = -y * _sigmoid(m) / N if loss_name == "logistic" else (f - y) / N
    flat = tokens.ravel()
    h = np.bincount(flat, weights=(rho[:, None] * W).ravel(), minlength=V)
    d_r = E @ h + ridge * r
    d_r0 = float(rho.sum())
    if kind == "positional":
        w = W[0]
        d_w = rho @ vals
        d_g = w * (d_w - w @ d_w)
    else:
        inner = W * (vals - (f - r0)[:, None])
        k = np.bincount(flat, weights=(rho[:, None] * inner).ravel(), minlength=V)
        d_g = E @ k / sqrt_d + ridge * g_or_q
    return loss, (d_r, d_r0, d_g), f


# --- result ----------------------------------------------------------------------------


@dataclass(frozen=True)
class LearnedAttention:
    """Result of :func:`learn_attention`.

    Attributes
    ----------
    weights : ndarray, shape (T,)
        Average pooling weights over the training sequences, a point of the simplex
        (for ``kind="positional"`` the learned ``softmax(g)`` itself).
    kind : str
        ``"positional"`` or ``"content"``.
    scores : ndarray, shape (T,) or None
        Learned position scores ``g`` (positional kind).
    query : ndarray, shape (d,) or None
        Learned query ``q`` (content kind).
    readout : ndarray, shape (d,)
        Read-out vector ``r``.
    bias : float
        Read-out bias ``r_0``.
    history : dict
        ``"step"``, ``"loss"``, ``"accuracy"`` (training accuracy of ``sign(f)``) and
        ``"weights"`` (average weights, shape ``(n_records, T)``), recorded every
        ``record_every`` steps and at the last step.
    table : VocabularyTable
        The vocabulary table of the training data.
    tokens : ndarray, shape (N, T)
        Training token indices.
    xi : ndarray, shape (N, T)
        Training sign sequences; the labels are ``xi[:, label - 1]``.
    label : int
        Position (1-based) whose sign is the label.
    params : dict
        ``R``, ``beta``, ``d``, ``V``, ``N`` and the training settings.
    """

    weights: np.ndarray
    kind: str
    scores: np.ndarray | None
    query: np.ndarray | None
    readout: np.ndarray
    bias: float
    history: dict
    table: VocabularyTable
    tokens: np.ndarray
    xi: np.ndarray
    label: int
    params: dict = field(default_factory=dict)

    @property
    def labels(self) -> np.ndarray:
        """Training labels ``y_n = xi_{n, label}``."""
        return self.xi[:, self.label - 1]

    def sequence_weights(self, tokens: ArrayLike) -> np.ndarray:
        """Pooling weights of each sequence, shape ``(N, T)`` (rows on the simplex).

        Positional kind: every row is :attr:`weights`. Content kind:
        ``softmax_t(q^T e_{v(n,t)} / sqrt(d))``.
        """
        tokens = _tokens(tokens, self.table.V)
        if tokens.shape[1] != self.weights.size:
            raise ValueError(f"tokens must have T = {self.weights.size} columns, got {tokens.shape[1]}")
        if self.kind == "positional":
            return np.tile(self.weights, (tokens.shape[0], 1))
        return _softmax((self.table.E.T @ self.query)[tokens] / np.sqrt(self.table.d), axis=1)

    def pool(self, tokens: ArrayLike) -> np.ndarray:
        """Pooled representations ``c_n = sum_t w^(n)_t e_{v(n,t)}``, columns of a ``d x N`` array."""
        tokens = _tokens(tokens, self.table.V)
        W = self.sequence_weights(tokens)
        return np.einsum("nt,ntd->dn", W, self.table.E.T[tokens])

    def decision(self, tokens: ArrayLike) -> np.ndarray:
        """Read-out scores ``f_n = r^T c_n + r_0``; the predicted label is their sign."""
        tokens = _tokens(tokens, self.table.V)
        W = self.sequence_weights(tokens)
        return np.einsum("nt,nt->n", W, (self.table.E.T @ self.readout)[tokens]) + self.bias

    def accuracy(self, tokens: ArrayLike, labels: ArrayLike) -> float:
        """Fraction of sequences whose label ``+-1`` equals ``sign(f_n)``."""
        labels = _checks.real_array("labels", labels, allow_inf=False)
        f = self.decision(tokens)
        if labels.shape != f.shape:
            raise ValueError(f"labels must have shape {f.shape}, got {labels.shape}")
        return float(np.mean(np.where(f >= 0, 1.0, -1.0) == labels))


# --- training --------------------------------------------------------------------------


def learn_attention(
    R: ArrayLike,
    beta: float,
    *,
    d: int,
    V: int,
    N: int,
    kind: str = "positional",
    seed=None,
    label: int = 1,
    loss: str = "logistic",
    steps: int = 1000,
    lr: float = 0.05,
    ridge: float = 1e-3,
    record_every: int = 25,
    table: VocabularyTable | None = None,
) -> LearnedAttention:
    r"""Train attention pooling and a linear read-out on labelled sequences (Chapter 8).

    Data: a table ``e_v = s_v mu + z_v`` (:func:`seqrmt.make_table`, unless ``table`` is
    given), ``N`` sign sequences with correlation ``R`` (:func:`seqrmt.sample_signs`) and
    their tokens (:func:`seqrmt.sample_tokens`); the label of sequence ``n`` is
    ``y_n = xi_{n, label}``. Model: weights ``w = softmax(g)`` (positional) or
    ``w^(n) = softmax_t(q^T x_{n,t} / sqrt(d))`` (content), pooled ``c_n``, read-out
    ``f_n = r^T c_n + r_0``. Objective (derived in this book, Chapter 8):

    ``L = (1/N) sum_n log(1 + exp(-y_n f_n)) + (ridge/2) (||r||^2 [+ ||q||^2])``,

    minimized by ``steps`` full-batch Adam steps (step size ``lr``, moments 0.9 and
    0.999) from ``g = 0`` (mean pooling) or ``q = 0``, and ``r = 0``, ``r_0 = 0``.
    The gradients are exact and hand-written (see the module source); deterministic
    for a fixed ``seed``.

    Parameters
    ----------
    R : array_like, shape (T, T)
        Positional sign correlation.
    beta : float
        Signal strength ``||mu||^2 >= 0``.
    d, V, N : int
        Dimension, vocabulary size (even) and number of labelled training sequences.
    kind : {"positional", "content"}
        What the scores depend on: the position only, or the token (a learned query).
    seed : None, int or numpy.random.Generator
        Fixes the table (when drawn here) and the training sequences.
    label : int
        Position ``1 <= label <= T`` whose sign is the label (default the first).
    steps : int
        Number of Adam steps (the default trains to convergence at ``T = 16``,
        ``d = 200``, ``V = 400``, ``N = 4000`` in a few seconds).
    lr : float
        Adam step size ``> 0``.
    ridge : float
        Ridge penalty ``>= 0`` on the read-out (and on the query).
    record_every : int
        Record the history every this many steps.
    table : VocabularyTable, optional
        Use this table instead of drawing one; its ``d``, ``V`` and ``beta`` must match.

    Returns
    -------
    LearnedAttention
        ``.weights`` (average weights over the training sequences, on the simplex),
        ``.history``, ``.query`` (content kind), the training data and methods to pool
        new sequences.

    Raises
    ------
    ValueError
        For an unknown ``kind``, a ``label`` outside ``1..T``, non-positive sizes, steps
        or step size, a negative ``ridge``, or a ``table`` that does not match ``d``,
        ``V`` and ``beta``.
    TypeError
        For arguments of the wrong type.
    """
    R = _checks.correlation(R)
    T = R.shape[0]
    beta = _checks.nonnegative("beta", beta)
    d = _checks.integer("d", d)
    V = _checks.integer("V", V, minimum=2, even=True)
    N = _checks.integer("N", N, minimum=2)
    kind = _checks.one_of("kind", kind, KINDS)
    label = _label_position(label, T)
    loss = _checks.one_of("loss", loss, LOSSES)
    steps = _checks.integer("steps", steps)
    lr = _checks.positive("lr", lr)
    ridge = _checks.nonnegative("ridge", ridge)
    record_every = _checks.integer("record_every", record_every)
    rng = _checks.seed(seed)
    if table is None:
        table = make_table(d, V, beta, seed=rng)
    else:
        table = _checks.table(table)
        if (table.d, table.V) != (d, V) or not np.isclose(table.beta, beta):
            raise ValueError(
                f"table must have d = {d}, V = {V} and beta = {beta}, "
                f"got d = {table.d}, V = {table.V}, beta = {table.beta}"
            )
    xi = sample_signs(N, R, seed=rng)
    tokens = sample_tokens(xi, V, seed=rng)
    y = xi[:, label - 1].astype(float)
    params, history = _adam_train(kind, table.E, tokens, y, T, d, loss, steps, lr, ridge, record_every)
    w = history["weights"][-1]
    return LearnedAttention(
        weights=w / w.sum(),
        kind=kind,
        scores=params[2].copy() if kind == "positional" else None,
        query=params[2].copy() if kind == "content" else None,
        readout=params[0].copy(),
        bias=float(params[1]),
        history=history,
        table=table,
        tokens=tokens,
        xi=xi,
        label=label,
        params=dict(R=R, beta=beta, d=d, V=V, N=N, loss=loss, steps=steps, lr=lr, ridge=ridge),
    )


def _adam_train(
    kind: str,
    E: np.ndarray,
    tokens: np.ndarray,
    y: np.ndarray,
    T: int,
    d: int,
    loss: str,
    steps: int,
    lr: float,
    ridge: float,
    record_every: int,
) -> tuple[list, dict[str, np.ndarray]]:
    """The full-batch Adam steps of :func:`learn_attention` from checked arguments: the trained
    ``[readout, bias, scores or query]`` and the history (every ``record_every`` steps and the last)."""
    params = [np.zeros(d), 0.0, np.zeros(T) if kind == "positional" else np.zeros(d)]
    m1 = [np.zeros_like(np.asarray(p, dtype=float)) for p in params]
    m2 = [np.zeros_like(np.asarray(p, dtype=float)) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    hist = {"step": [], "loss": [], "accuracy": [], "weights": []}

    def record(step, loss, f):
        W, _, _ = _forward(kind, params, E, tokens, np.sqrt(d))
        hist["step"].append(step)
        hist["loss"].append(loss)
        hist["accuracy"].append(float(np.mean(np.where(f >= 0, 1.0, -1.0) == y)))
        hist["weights"].append(W.mean(axis=0).copy())

    for step in range(steps):
        value, grads, f = _loss_grad(kind, params, E, tokens, y, ridge, loss)
        if step % record_every == 0:
            record(step, value, f)
        for i, gr in enumerate(grads):
            m1[i] = b1 * m1[i] + (1 - b1) * gr
            m2[i] = b2 * m2[i] + (1 - b2) * np.square(gr)
            upd = lr * (m1[i] / (1 - b1 ** (step + 1))) / (np.sqrt(m2[i] / (1 - b2 ** (step + 1))) + eps)
            params[i] = params[i] - upd
        params[1] = float(params[1])
    value, _, f = _loss_grad(kind, params, E, tokens, y, ridge, loss, grad=False)
    record(steps, value, f)
    if not np.isfinite(value):  # pragma: no cover - guarded by the softplus/softmax forms
        raise FloatingPointError("training diverged (non-finite loss); lower lr")
    return params, {k: np.asarray(v) for k, v in hist.items()}


# --- the supervised optimum --------------------------------------------------------------


def label_signal(w: ArrayLike, R: ArrayLike, label: int = 1, *, beta: float = 0.0) -> float:
    """Squared correlation with the label per unit of ``beta`` of a pooled score (Chapter 8).

    A read-out gives the token at position ``t`` the value ``sqrt(beta) xi_t`` plus a noise
    of variance 1, in units of its within-class standard deviation (the noises of the
    ``T`` tokens are independent given the signs), so the pooled score has squared
    correlation ``beta Lambda(w)`` with the label ``y = xi_j``, where (derived in this book)

    ``Lambda(w) = (w^T R e_j)^2 / (w^T Sigma_tok w)``, ``Sigma_tok = beta R + I``;

    ``Sigma_tok`` is the covariance of the standardized token values. This function
    returns ``Lambda(w)``. At ``beta = 0`` it is ``(w^T R e_j)^2 / ||w||^2``, the label
    signal per unit of token noise.

    Raises
    ------
    ValueError
        For a ``label`` outside ``1..T``, a negative ``beta`` or a ``w`` that does not
        match ``R``.
    """
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    label = _label_position(label, R.shape[0])
    beta = _checks.nonnegative("beta", beta)
    r = R[:, label - 1]
    return float((w @ r) ** 2 / (w @ (beta * R + np.eye(R.shape[0])) @ w))


def supervised_weights(R: ArrayLike, label: int = 1, *, beta: float = 0.0) -> np.ndarray:
    r"""Attention weights that maximize :func:`label_signal` over the simplex (Chapter 8).

    With ``Sigma_tok = beta R + I`` (``j = label``), ``Lambda(w) = (w^T R e_j)^2 /
    (w^T Sigma_tok w)`` is a squared correlation, so a maximizer may read the label with
    either sign. For each sign ``+-`` such that ``+-R e_j`` has a positive entry, the
    branch ``min w^T Sigma_tok w`` subject to ``+-w^T R e_j = 1``, ``w >= 0`` is a strictly
    convex quadratic program with a unique solution ``w^+-``, and ``1 / (w^+-)^T Sigma_tok
    w^+-`` is the largest ``Lambda`` on that branch; the maximizers of ``Lambda`` on the
    simplex are the ``w^+- / sum(w^+-)`` of the better branches (Proposition
    ``prop-ch8-supervised``, derived in this book). The branch ``+`` always exists
    (``(R e_j)_j = 1``); the branch ``-`` exists when column ``j`` of ``R`` has a negative
    entry. Each branch is solved exactly by an active set whose KKT conditions are checked
    at the returned point; on a tie the branch ``+`` is returned.

    * ``beta = 0``: ``w^+-`` is proportional to the positive part of ``+-R e_j``, so the
      maximizer is proportional to the positive part ``(R e_j)_+`` or to the negative part
      ``(R e_j)_- = (-R e_j)_+``, whichever has the larger norm, and ``max Lambda`` is the
      larger of their squared norms.
    * ``beta = numpy.inf``: the limit as ``beta -> infinity``. For each sign the set
      ``F_+- = {w >= 0 : R w = +-R e_j}`` is closed and convex; let ``w^+-_inf`` be its point
      of least norm. The limit is ``w^+-_inf / sum(w^+-_inf)`` for the sign with the smaller
      norm (``+`` on a tie, where both are limit points). For positive-definite ``R`` this
      is ``e_j``; for singular ``R`` it need not be (prefix model: uniform on the prefix).
      Computed exactly as a least-distance program (Lawson-Hanson, through
      :func:`scipy.optimize.nnls`).

    Parameters
    ----------
    R : array_like, shape (T, T)
        Positional sign correlation.
    label : int
        Position ``1 <= label <= T`` whose sign is the label.
    beta : float
        Weight ``>= 0`` of the sign noise of the other positions relative to the token
        noise (``0``: token noise only; ``numpy.inf``: the limit of noiseless tokens).

    Returns
    -------
    w : ndarray, shape (T,)
        On the simplex.

    Raises
    ------
    ValueError
        For a ``label`` outside ``1..T`` or a negative ``beta``.
    """
    R = _checks.correlation(R)
    T = R.shape[0]
    label = _label_position(label, T)
    if isinstance(beta, (float, np.floating)) and np.isposinf(beta):
        return _supervised_limit(R, label)
    beta = _checks.nonnegative("beta", beta)
    r = R[:, label - 1]
    M = beta * R + np.eye(T)
    best, best_val = None, -np.inf
    for sgn in (1.0, -1.0):
        w = _nonneg_min_quadratic(M, sgn * r)
        if w is None:
            continue
        val = (w @ r) ** 2 / (w @ M @ w)
        if val > best_val * (1 + 1e-12) + 1e-300:
            best, best_val = w, val
    return best / best.sum()


def _supervised_limit(R: np.ndarray, label: int) -> np.ndarray:
    """The ``beta -> infinity`` limit of :func:`supervised_weights` (Proposition ``prop-ch8-supervised``).

    ``F_s = {v >= 0 : R v = s R e_j}`` for ``s = +-1``. With ``P_R`` the orthogonal projector on
    the range of ``R`` and ``K`` an orthonormal basis of its kernel, ``R v = s R e_j`` means
    ``v = s P_R e_j + K x`` and ``||v||^2 = ||P_R e_j||^2 + ||x||^2``; so the least-norm element
    of ``F_s`` comes from the least-distance program ``min ||x||`` subject to
    ``K x >= -s P_R e_j``, solved by the
    Lawson-Hanson reduction to non-negative least squares.
    """
    T = R.shape[0]
    lam, Q = np.linalg.eigh(R)
    kernel = lam <= 1e-10 * T
    K = Q[:, kernel]
    e = np.zeros(T)
    e[label - 1] = 1.0
    Pe = e - K @ (K.T @ e)
    best, best_norm = None, np.inf
    for sgn in (1.0, -1.0):
        h = -sgn * Pe
        v = sgn * Pe
        if K.shape[1]:
            x = _least_distance(K, h)
            if x is None:
                continue
            v = v + K @ x
        elif np.any(h > 1e-12):
            continue  # no kernel: v = s e_j must be >= 0
        v = np.maximum(v, 0.0)
        norm2 = float(v @ v)
        if norm2 < best_norm * (1 - 1e-9):
            best, best_norm = v, norm2
    return best / best.sum()


def _least_distance(G: np.ndarray, h: np.ndarray) -> np.ndarray | None:
    """``argmin ||x||`` subject to ``G x >= h`` (Lawson-Hanson LDP via NNLS); ``None`` if infeasible.

    With ``E = [G^T; h^T]`` and ``f = (0, ..., 0, 1)``, let ``u >= 0`` minimize ``||E u - f||``
    and ``rho = E u - f``; the constraints are infeasible iff ``rho = 0``, and otherwise
    ``x = -rho_{1..n} / rho_{n+1}`` (Lawson and Hanson, *Solving Least Squares Problems*, ch. 23).
    """
    m, n = G.shape
    Em = np.vstack([G.T, h[None, :]])  # (n + 1) x m
    f = np.zeros(n + 1)
    f[-1] = 1.0
    u, _ = nnls(Em, f, maxiter=50 * max(m, n + 1))
    res = Em @ u - f
    if abs(res[-1]) < 1e-12:
        return None
    return -res[:n] / res[-1]


def _nonneg_min_quadratic(M: np.ndarray, r: np.ndarray) -> np.ndarray | None:
    """``argmin w^T M w`` s.t. ``r^T w = 1``, ``w >= 0`` (``M`` positive definite), by active set.

    On a support ``J`` the minimizer is ``M_JJ^{-1} r_J / (r_J^T M_JJ^{-1} r_J)``; KKT: it is
    ``>= 0`` and the multiplier ``2 M w - nu r`` is ``>= 0`` off ``J``. Start from the
    positions with ``r_t > 0``, drop the most negative entry until feasible, then add
    the most violating position; the objective decreases strictly, so it terminates.
    Returns ``None`` when ``r`` has no positive entry (infeasible).
    """
    T = r.size
    if not np.any(r > 0):
        return None
    J = set(np.flatnonzero(r > 0))
    for _ in range(4 * T * T):
        idx = np.array(sorted(J))
        x = np.linalg.solve(M[np.ix_(idx, idx)], r[idx])
        denom = float(r[idx] @ x)
        if denom <= 0 or np.any(x < -1e-13 * np.abs(x).max()):
            neg = idx[np.argmin(x if denom > 0 else -x)]
            J.discard(neg)
            if not J:
                return None
            continue
        w = np.zeros(T)
        w[idx] = np.maximum(x / denom, 0.0)
        nu = 2.0 / denom  # 2 M_JJ w_J = nu r_J
        grad = 2.0 * M @ w - nu * r
        off = np.setdiff1d(np.arange(T), idx)
        if off.size == 0 or grad[off].min() >= -1e-10 * max(1.0, np.abs(grad).max()):
            return w
        J.add(int(off[np.argmin(grad[off])]))
    return None  # pragma: no cover


def token_snr(result: LearnedAttention) -> float:
    """Signal-to-noise ratio of the learned read-out on single tokens (Chapter 8).

    The read-out gives token ``v`` the value ``p_v = r^T e_v``. Over the vocabulary,
    ``p_v = p_0 + s_v m + (noise)`` with ``m`` half the difference of the two class means
    of ``p`` and ``sigma^2`` the average within-class variance; returns ``m^2 / sigma^2``.
    The pooled score is then ``f_n = r_0 + p_0 + m w^T xi_n + (noise of variance
    sigma^2 kappa)``, the noise of the ``T`` tokens being independent given the signs, so
    its squared correlation with the label ``xi_j`` is ``b Lambda(w)`` with
    ``b = m^2/sigma^2`` and ``Lambda(w) = (w^T R e_j)^2 / (w^T (b R + I) w)``: ``b`` is the
    ``beta`` of :func:`label_signal` and :func:`supervised_weights` that describes this
    read-out (derived in this book).
    """
    _check_result(result)
    p = result.table.E.T @ result.readout
    s = result.table.signs
    m = 0.5 * (p[s > 0].mean() - p[s < 0].mean())
    var = 0.5 * (p[s > 0].var() + p[s < 0].var())
    if var <= 0:
        raise ValueError("the read-out gives every token of a class the same value (sigma^2 = 0)")
    return float(m * m / var)


# --- separability, margins and the objective at fixed weights ----------------------------


def class_separable(table: VocabularyTable) -> bool:
    """Whether the token embeddings are linearly separable by class (Chapter 8).

    Feasibility of the linear program: is there a read-out ``r`` in ``R^d`` and ``r_0``
    with ``s_v (r^T e_v + r_0) >= 1`` for every token ``v``? Solved by
    :func:`scipy.optimize.linprog` (HiGHS) with a zero objective. When it holds, every
    pooled vector whose weights sit on positions that carry the label's sign (in the
    prefix model with the label ``xi_1``: any ``w`` on the first ``L`` positions, a single
    position included) is a convex combination of tokens of the class ``y_n``, so the
    same read-out fits every training label, at every ``N`` (Chapter 8).

    Raises
    ------
    TypeError
        If ``table`` is not a :class:`seqrmt.VocabularyTable`.
    RuntimeError
        If the solver ends without deciding feasibility.
    """
    table = _checks.table(table)
    s = table.signs.astype(float)
    A = -s[:, None] * np.hstack([table.E.T, np.ones((table.V, 1))])
    out = linprog(
        np.zeros(table.d + 1), A_ub=A, b_ub=-np.ones(table.V), bounds=[(None, None)] * (table.d + 1), method="highs"
    )
    if out.status == 0:
        return True
    if out.status == 2:
        return False
    raise RuntimeError(f"linprog did not decide separability: {out.message}")  # pragma: no cover


def _check_result(result) -> None:
    if not isinstance(result, LearnedAttention):
        raise TypeError(f"result must be a LearnedAttention (see seqrmt.learn_attention), got {type(result).__name__}")


def _fixed_weights(result, w) -> np.ndarray:
    _check_result(result)
    if result.kind != "positional":
        raise ValueError(f"result must be of kind 'positional', got {result.kind!r}")
    w = _checks.weights(w, T=result.weights.size)
    if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError("w must be a point of the simplex (w >= 0, sum 1)")
    return w


def readout_objective(result: LearnedAttention, w: ArrayLike, *, ridge: float | None = None) -> float:
    """Training objective at fixed positional weights, minimized over the read-out (Chapter 8).

    ``L*(w) = min over (r, r_0) of L(w, r, r_0)``, with ``L`` the objective of
    :func:`learn_attention` (the loss and, unless ``ridge`` is given, the ridge of
    ``result.params``) on the training data of ``result``. For ``ridge > 0`` the problem
    is strictly convex in ``(r, r_0)``; it is solved by L-BFGS from ``r = 0``, ``r_0 = 0``
    to a gradient below ``1e-7``. Comparing ``L*`` at two weight vectors says which of
    them the training objective prefers, whatever path the optimizer of
    :func:`learn_attention` takes.

    Parameters
    ----------
    result : LearnedAttention
        A positional-attention run; its table, training tokens, labels, loss and ridge
        are used.
    w : array_like, shape (T,)
        Fixed pooling weights, a point of the simplex.
    ridge : float, optional
        Ridge penalty ``>= 0`` on the read-out; default the one ``result`` was trained with.

    Raises
    ------
    TypeError
        If ``result`` is not a :class:`LearnedAttention`.
    ValueError
        For content attention, weights off the simplex, a negative ``ridge``, or the
        logistic loss with ``ridge = 0`` (separable data then have no minimizing read-out).
    RuntimeError
        If the minimization does not reach the gradient tolerance.
    """
    w = _fixed_weights(result, w)
    ridge = result.params["ridge"] if ridge is None else _checks.nonnegative("ridge", ridge)
    loss = result.params["loss"]
    if ridge <= 0 and loss == "logistic":
        raise ValueError("ridge must be > 0 for the logistic loss (no minimizing read-out otherwise)")
    E, tokens, y = result.table.E, result.tokens, result.labels.astype(float)
    d = E.shape[0]
    with np.errstate(divide="ignore"):
        g = np.log(w)  # softmax(g) = w, zero weights at -inf

    def fun(x):
        value, grads, _ = _loss_grad("positional", [x[:d], x[d], g], E, tokens, y, ridge, loss)
        return value, np.append(grads[0], grads[1])

    out = minimize(
        fun, np.zeros(d + 1), jac=True, method="L-BFGS-B", options=dict(maxiter=20000, gtol=1e-10, ftol=1e-15)
    )
    if np.abs(out.jac).max() > 1e-7:
        raise RuntimeError(f"the read-out fit did not converge (gradient {np.abs(out.jac).max():.2e})")
    return float(out.fun)


def readout_margin(result: LearnedAttention, w: ArrayLike) -> float:
    """Hard margin of the pooled training vectors at fixed weights (Chapter 8).

    ``max over (r, r_0), r != 0, of min_n y_n (r^T c_n + r_0) / ||r||`` with
    ``c_n = sum_t w_t x_{n,t}`` the training sequences of ``result`` pooled with ``w``
    and ``y_n`` their labels: the distance from the separating hyperplane to the closest
    training point. It is what the logistic loss with a small ridge maximizes
    (the regularization path tends to the maximum-margin read-out as the ridge goes to
    zero). Computed as the least-distance program ``min ||(r, r_0 / b)||`` subject to
    ``y_n (r^T c_n + r_0) >= 1``, with the bias scaled by ``b = 100 max_n ||c_n||`` so
    that its cost is negligible, by the Lawson-Hanson reduction to non-negative least
    squares; the returned number is the margin achieved by the read-out found. Returns
    ``0.0`` when the pooled vectors are not linearly separable.

    Raises
    ------
    TypeError, ValueError
        As :func:`readout_objective`.
    """
    margins = _max_margin_distances(result, w)[0]
    return 0.0 if margins is None else float(margins.min())


def _max_margin_distances(result: LearnedAttention, w: ArrayLike) -> tuple[np.ndarray | None, np.ndarray]:
    """Signed distances ``y_n (r^T c_n + r_0) / ||r||`` of the pooled training vectors to the
    maximum-margin hyperplane of :func:`readout_margin` (``None`` if not separable), and the
    pooled vectors ``C`` (``d x N``)."""
    w = _fixed_weights(result, w)
    C = pool(result.table, result.tokens, w)
    y = result.labels.astype(float)
    b = 100.0 * float(np.sqrt((C * C).sum(axis=0)).max())
    G = y[:, None] * np.vstack([C, np.full(C.shape[1], b)]).T
    x = _least_distance(G, np.ones(y.size))
    if x is None:
        return None, C
    r, r0 = x[:-1], b * x[-1]
    return y * (r @ C + r0) / np.linalg.norm(r), C


def readout_support_fraction(result: LearnedAttention, w: ArrayLike, rtol: float = 1e-6) -> float:
    """Fraction of the distinct pooled training vectors that are support vectors (Chapter 8).

    The support vectors of the maximum-margin read-out of :func:`readout_margin` are the
    training points at the margin: ``y_n (r^T c_n + r_0) / ||r||`` within a relative
    ``rtol`` of its minimum.  Sequences pooled to the same vector (one position, a repeated
    token) count once.  ``1`` is *support-vector proliferation*, the premise of
    :func:`interpolation_margin`.  Returns ``0.0`` when the pooled vectors are not linearly
    separable.

    Raises
    ------
    TypeError, ValueError
        As :func:`readout_objective`; ``rtol`` must lie in ``(0, 1)``.
    """
    rtol = _checks.positive("rtol", rtol)
    if rtol >= 1:
        raise ValueError(f"rtol must lie in (0, 1), got {rtol}")
    margins, C = _max_margin_distances(result, w)
    if margins is None:
        return 0.0
    _, first = np.unique(np.round(C.T, 12), axis=0, return_index=True)
    on = margins[first] <= margins.min() * (1.0 + rtol)
    return float(on.mean())


def interpolation_margin(beta: float, kappa: float, d: int, N: int) -> float:
    """Heuristic hard margin of ``N < d`` pooled vectors ``y_n mu + eps_n`` (Chapter 8).

    The margin of the least-norm interpolant ``r = C (C^T C)^{-1} y`` (``y_n r^T c_n = 1``
    for every ``n``, no bias) is ``(y^T (C^T C)^{-1} y)^{-1/2}``.  With ``||mu||^2 = beta``,
    pooled noise ``eps_n`` i.i.d. ``N(0, kappa I_d)``, ``N < d`` and the cross terms
    ``mu^T eps_n`` neglected, ``C^T C = beta y y^T + Xi`` with ``Xi`` Wishart,
    ``y^T Xi^{-1} y ~ N / (kappa (d - N))``, and the Sherman-Morrison formula gives (derived
    in this book, a heuristic)

    ``margin^2 = beta + kappa (d - N) / N``:

    the noise adds ``kappa (d - N) / N``, which grows with the noise energy ``kappa`` of a
    pooled vector and vanishes at ``N = d``.

    What it approximates, and when.  The interpolant is feasible for the maximum-margin
    problem, so its margin is a *lower bound* on the hard margin of :func:`readout_margin`,
    with equality when every training point is a support vector (support-vector
    proliferation).  For isotropic Gaussian noise that is known to hold with high
    probability only when ``d`` is large against ``N log N`` (Hsu, Muthukumar and Xu 2021;
    Ardeshir, Sanford and Hsu 2021 locate a sharp threshold of that order).  In Chapter 8's
    setting (``d = 200``, ``N >= 50``, so ``N log N >= 196``) it does not hold exactly: part of
    the training vectors lie beyond the margin (:func:`readout_support_fraction` measures
    the fraction on it).  Three further simplifications: the
    read-out of :func:`readout_margin` has a bias ``r_0``, dropped here; the pooled noise of
    the model has covariance ``kappa W`` given the table (``W`` the within-class covariance
    of the vocabulary, of spectrum ``MP_delta``), not ``kappa I_d``, and is a mixture of
    finitely many table columns (one position pools the tokens themselves, repeated
    tokens included); and the cross terms ``mu^T eps_n`` are neglected.  So the formula is
    a heuristic for the order of magnitude and the dependence on ``kappa``, ``d`` and
    ``N``, not a limit theorem.

    Raises
    ------
    ValueError
        For ``beta < 0``, ``kappa <= 0`` or ``N >= d`` (sizes must be positive integers).
    """
    beta = _checks.nonnegative("beta", beta)
    kappa = _checks.positive("kappa", kappa)
    d = _checks.integer("d", d)
    N = _checks.integer("N", N)
    if N >= d:
        raise ValueError(f"N must be < d = {d} (the noise of N >= d vectors cannot be interpolated), got {N}")
    return float(np.sqrt(beta + kappa * (d - N) / N))


def weight_statistics(W: ArrayLike, xi: ArrayLike) -> dict:
    """What fixed-weight theory needs from per-sequence weights ``W`` (Chapter 8).

    For pooled signal coefficients ``y_n = sum_t W[n, t] xi[n, t]``, returns

    * ``"w_bar"``: average weights ``(1/N) sum_n w^(n)``;
    * ``"alpha_bar"``, ``"kappa_bar"``: ``alpha`` and ``kappa`` of ``w_bar`` (the fixed-weight
      theory evaluated at the average weights; ``alpha_bar`` uses the empirical
      ``xi^T xi / N`` in place of ``R``);
    * ``"signal_mean"``: the mean of ``y_n`` (0 when the weights do not depend on the signs);
    * ``"signal_variance"``: the variance of ``y_n`` (equals ``alpha`` for fixed weights);
    * ``"kappa_mean"``: ``(1/N) sum_n ||w^(n)||^2``;
    * ``"sign_correlation"``: the correlation over sequences of ``W[n, t]`` with ``xi[n, t]``,
      averaged over the positions ``t`` (a position whose weight does not vary counts 0).
    """
    W = _checks.real_array("W", W, allow_inf=False)
    xi = _checks.real_array("xi", xi, allow_inf=False)
    if W.ndim != 2 or W.shape != xi.shape:
        raise ValueError(f"W and xi must be (N, T) arrays of the same shape, got {W.shape} and {xi.shape}")
    y = np.einsum("nt,nt->n", W, xi)
    w_bar = W.mean(axis=0)
    Rhat = xi.T @ xi / xi.shape[0]
    Wc, Xc = W - W.mean(axis=0), xi - xi.mean(axis=0)
    sw, sx = np.sqrt(np.mean(Wc**2, axis=0)), np.sqrt(np.mean(Xc**2, axis=0))
    ok = (sw > 1e-12 * max(1.0, float(np.abs(W).max()))) & (sx > 0)
    corr = float(np.mean(np.where(ok, np.mean(Wc * Xc, axis=0) / np.where(ok, sw * sx, 1.0), 0.0)))
    return {
        "w_bar": w_bar,
        "alpha_bar": float(w_bar @ Rhat @ w_bar),
        "kappa_bar": float(w_bar @ w_bar),
        "signal_mean": float(y.mean()),
        "signal_variance": float(y.var()),
        "kappa_mean": float(np.mean(np.sum(W * W, axis=1))),
        "sign_correlation": corr,
    }


# --- spectrum of the learned pooling ------------------------------------------------------


def learned_spectrum(
    result: LearnedAttention,
    N: int | None = None,
    *,
    same_data: bool = False,
    seed=None,
    centered: bool = True,
    n_vectors: int = 5,
) -> Simulation:
    """Spectrum of ``S`` pooled with learned attention, on the training table.

    ``same_data=True``: pool the training sequences themselves (the weights were
    learned on them). Otherwise draw ``N`` fresh sequences (same table, same ``R``)
    from ``seed`` and pool them with the learned attention: the fixed weights
    (positional) or the per-sequence content weights. Returns the same
    :class:`seqrmt.Simulation` as :func:`seqrmt.simulate` (eigenvalues of the centered
    or uncentered ``S``, squared cosines of the top eigenvectors with ``mu``); its
    ``params["weights"]`` holds the average weights over the pooled sequences.
    """
    _check_result(result)
    same_data = _checks.flag("same_data", same_data)
    centered = _checks.flag("centered", centered)
    n_vectors = _checks.integer("n_vectors", n_vectors)
    table = result.table
    if same_data:
        if N is not None:
            raise ValueError("N must be None with same_data=True (the training set is pooled)")
        tokens = result.tokens
    else:
        if N is None:
            raise ValueError("N (number of fresh sequences) is required unless same_data=True")
        N = _checks.integer("N", N, minimum=2)
        rng = _checks.seed(seed)
        xi = sample_signs(N, result.params["R"], seed=rng)
        tokens = sample_tokens(xi, table.V, seed=rng)
    W = result.sequence_weights(tokens)
    C = np.einsum("nt,ntd->dn", W, table.E.T[tokens])
    n = C.shape[1]
    if centered:
        C = C - C.mean(axis=1, keepdims=True)
    lam, vecs = _eigh_top(C @ C.T / n, min(n_vectors, table.d))
    u = table.mu / np.linalg.norm(table.mu) if table.beta > 0 else None
    zbar, Delta = table.zbar, table.Delta
    overlaps = (u @ vecs) ** 2 if u is not None else np.zeros(vecs.shape[1])
    return Simulation(
        eigenvalues=lam,
        overlaps=overlaps,
        mean_overlaps=(zbar @ vecs) ** 2 / (zbar @ zbar),
        delta_norm2=float(Delta @ Delta),
        zbar_norm2=float(zbar @ zbar),
        spike_norm2=table.spike_norm2,
        params=dict(
            d=table.d, V=table.V, N=n, beta=table.beta, centered=centered, same_data=same_data, weights=W.mean(axis=0)
        ),
    )
