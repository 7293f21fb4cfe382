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

from . import _checks
from .experiments import Simulation, _eigh_top
from .model import VocabularyTable, _tokens, make_table, sample_signs, sample_tokens

__all__ = ["KINDS", "LOSSES", "LearnedAttention", "learn_attention", "supervised_weights",
           "label_signal", "token_snr", "weight_statistics", "learned_spectrum"]

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
    """Per-sequence weights ``W`` (N, T), read-out projections ``P`` (N, T) and scores ``f``."""
    r, r0, g_or_q = params
    P = (E.T @ r)[tokens]                                  # r^T x_{n,t}
    if kind == "positional":
        W = np.broadcast_to(_softmax(g_or_q), tokens.shape)
    else:
        W = _softmax((E.T @ g_or_q)[tokens] / sqrt_d, axis=1)
    f = np.einsum("nt,nt->n", W, P) + r0
    return W, P, f


def _loss_grad(kind, params, E, tokens, y, ridge, loss_name="logistic", *, grad=True):
    """Loss ``mean_n l(y_n, f_n) + (ridge/2)(||r||^2 [+ ||q||^2])`` and its gradient.

    ``l = log(1 + exp(-y f))`` (logistic) or ``(f - y)^2 / 2`` (squared). With
    ``rho_n = d loss / d f_n`` (``-y_n sigmoid(-y_n f_n) / N`` or ``(f_n - y_n) / N``):

    * ``d/dr = E h + ridge r`` with the token histogram ``h_v = sum_{(n,t): v(n,t)=v} rho_n w^(n)_t``;
    * ``d/dr_0 = sum_n rho_n``;
    * positional: ``d/dw_t = sum_n rho_n P_{n,t}`` and, through the softmax,
      ``d/dg = w * (d/dw - w^T d/dw)``;
    * content: ``d f_n / d g_{n,t} = w^(n)_t (P_{n,t} - sum_s w^(n)_s P_{n,s})``, and
      ``d/dq = E k / sqrt(d) + ridge q`` with ``k_v = sum_{(n,t): v(n,t)=v} rho_n d f_n / d g_{n,t}``.
    """
    r, r0, g_or_q = params
    N = tokens.shape[0]
    V = E.shape[1]
    sqrt_d = np.sqrt(E.shape[0])
    W, P, f = _forward(kind, params, E, tokens, sqrt_d)
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
        d_w = rho @ P
        d_g = w * (d_w - w @ d_w)
    else:
        inner = W * (P - (f - r0)[:, None])
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

def learn_attention(R: ArrayLike, beta: float, *, d: int, V: int, N: int,
                    kind: str = "positional", seed=None, label: int = 1, loss: str = "logistic",
                    steps: int = 1000, lr: float = 0.05, ridge: float = 1e-3,
                    record_every: int = 25, table: VocabularyTable | None = None) -> LearnedAttention:
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
    if not isinstance(kind, str):
        raise TypeError(f"kind must be one of {KINDS}, got {kind!r}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    label = _label_position(label, T)
    if not isinstance(loss, str):
        raise TypeError(f"loss must be one of {LOSSES}, got {loss!r}")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
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
            raise ValueError(f"table must have d = {d}, V = {V} and beta = {beta}, "
                             f"got d = {table.d}, V = {table.V}, beta = {table.beta}")
    xi = sample_signs(N, R, seed=rng)
    tokens = sample_tokens(xi, V, seed=rng)
    y = xi[:, label - 1].astype(float)
    E = table.E

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
    if not np.isfinite(value):   # pragma: no cover - guarded by the softplus/softmax forms
        raise FloatingPointError("training diverged (non-finite loss); lower lr")
    history = {k: np.asarray(v) for k, v in hist.items()}
    w = history["weights"][-1]
    return LearnedAttention(
        weights=w / w.sum(), kind=kind,
        scores=params[2].copy() if kind == "positional" else None,
        query=params[2].copy() if kind == "content" else None,
        readout=params[0].copy(), bias=float(params[1]), history=history, table=table,
        tokens=tokens, xi=xi, label=label,
        params=dict(R=R, beta=beta, d=d, V=V, N=N, loss=loss, steps=steps, lr=lr, ridge=ridge))


# --- the supervised optimum --------------------------------------------------------------

def label_signal(w: ArrayLike, R: ArrayLike, label: int = 1, *, beta: float = 0.0) -> float:
    """Squared correlation with the label per unit noise of a pooled score (Chapter 8).

    For the score ``w^T xi`` read along ``mu`` with isotropic token noise of variance
    ``kappa`` relative to the signal ``beta``, the squared correlation with
    ``y = xi_j`` is ``beta (w^T R e_j)^2 / (beta w^T R w + kappa)``; this function
    returns ``(w^T R e_j)^2 / (w^T (beta R + I) w)`` (derived in this book). At
    ``beta = 0`` it is ``(w^T R e_j)^2 / kappa``, the label signal per unit of noise.
    """
    R = _checks.correlation(R)
    w = _checks.weights(w, T=R.shape[0])
    label = _label_position(label, R.shape[0])
    beta = _checks.nonnegative("beta", beta)
    r = R[:, label - 1]
    return float((w @ r) ** 2 / (w @ (beta * R + np.eye(R.shape[0])) @ w))


def supervised_weights(R: ArrayLike, label: int = 1, *, beta: float = 0.0) -> np.ndarray:
    r"""Attention weights that maximize :func:`label_signal` over the simplex (Chapter 8).

    The label ``y = xi_j`` is correlated with position ``t`` through ``R_{tj}``. Over
    the simplex, maximizing ``(w^T r)^2 / (w^T M w)`` with ``r = R e_j`` and
    ``M = beta R + I`` (positive definite) is the convex problem
    ``min w^T M w`` subject to ``w^T r = 1``, ``w >= 0`` (and the same with ``-r``),
    rescaled to sum one (derived in this book). Without the constraint the maximizer is
    ``M^{-1} r``. At ``beta = 0`` (the label signal per unit of token noise) the answer
    is explicit: ``w`` proportional to the positive part of ``R e_j``, by Cauchy-Schwarz
    (``w^T r <= w^T r_+ <= ||w|| ||r_+||`` for ``w >= 0``). Solved exactly by an active
    set: the KKT conditions of the convex problem are checked at the returned point.

    Parameters
    ----------
    R : array_like, shape (T, T)
        Positional sign correlation.
    label : int
        Position ``1 <= label <= T`` whose sign is the label.
    beta : float
        Weight ``>= 0`` of the sign noise of the other positions relative to the token
        noise (``0``: token noise only).

    Returns
    -------
    w : ndarray, shape (T,)
        On the simplex.
    """
    R = _checks.correlation(R)
    T = R.shape[0]
    label = _label_position(label, T)
    beta = _checks.nonnegative("beta", beta)
    r = R[:, label - 1]
    M = beta * R + np.eye(T)
    best, best_val = None, -np.inf
    for sgn in (1.0, -1.0):
        w = _nonneg_min_quadratic(M, sgn * r)
        if w is None:
            continue
        val = (w @ r) ** 2 / (w @ M @ w)
        if val > best_val + 1e-12:
            best, best_val = w, val
    return best / best.sum()


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
        nu = 2.0 / denom                                  # 2 M_JJ w_J = nu r_J
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
    sigma^2 kappa)``, so its squared correlation with the label is
    ``(w^T R e_j)^2 / (w^T (b R + I) w)`` with ``b = m^2/sigma^2``: the ``beta`` of
    :func:`label_signal` and :func:`supervised_weights` that describes this read-out
    (derived in this book).
    """
    if not isinstance(result, LearnedAttention):
        raise TypeError(f"result must be a LearnedAttention (see seqrmt.learn_attention), "
                        f"got {type(result).__name__}")
    p = result.table.E.T @ result.readout
    s = result.table.signs
    m = 0.5 * (p[s > 0].mean() - p[s < 0].mean())
    var = 0.5 * (p[s > 0].var() + p[s < 0].var())
    if var <= 0:
        raise ValueError("the read-out gives every token of a class the same value (sigma^2 = 0)")
    return float(m * m / var)


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
    return {"w_bar": w_bar, "alpha_bar": float(w_bar @ Rhat @ w_bar), "kappa_bar": float(w_bar @ w_bar),
            "signal_mean": float(y.mean()), "signal_variance": float(y.var()),
            "kappa_mean": float(np.mean(np.sum(W * W, axis=1))), "sign_correlation": corr}


# --- spectrum of the learned pooling ------------------------------------------------------

def learned_spectrum(result: LearnedAttention, N: int | None = None, *, same_data: bool = False,
                     seed=None, centered: bool = True, n_vectors: int = 5) -> Simulation:
    """Spectrum of ``S`` pooled with learned attention, on the training table.

    ``same_data=True``: pool the training sequences themselves (the weights were
    learned on them). Otherwise draw ``N`` fresh sequences (same table, same ``R``)
    from ``seed`` and pool them with the learned attention: the fixed weights
    (positional) or the per-sequence content weights. Returns the same
    :class:`seqrmt.Simulation` as :func:`seqrmt.simulate` (eigenvalues of the centered
    or uncentered ``S``, squared cosines of the top eigenvectors with ``mu``); its
    ``params["weights"]`` holds the average weights over the pooled sequences.
    """
    if not isinstance(result, LearnedAttention):
        raise TypeError(f"result must be a LearnedAttention (see seqrmt.learn_attention), "
                        f"got {type(result).__name__}")
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
    return Simulation(eigenvalues=lam, overlaps=overlaps,
                      mean_overlaps=(zbar @ vecs) ** 2 / (zbar @ zbar),
                      delta_norm2=float(Delta @ Delta), zbar_norm2=float(zbar @ zbar),
                      spike_norm2=float((table.mu + Delta) @ (table.mu + Delta)),
                      params=dict(d=table.d, V=table.V, N=n, beta=table.beta, centered=centered,
                                  same_data=same_data, weights=W.mean(axis=0)))
