"""The vocabulary table of the model as a type: :class:`VocabularyTable` (``seqrmt.VocabularyTable``).

A plain container of numpy arrays with no import from :mod:`seqrmt`, so that :mod:`seqrmt.model`
(which draws it, :func:`seqrmt.make_table`) and :mod:`seqrmt._checks` (which checks an argument is
one) both import it at the top, with no import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["VocabularyTable"]


@dataclass(frozen=True)
class VocabularyTable:
    """A fixed two-class vocabulary table ``e_v = s_v mu + z_v``.

    Attributes
    ----------
    E : ndarray, shape (d, V)
        The embeddings, one column per token.
    mu : ndarray, shape (d,)
        The hidden signal direction, ``||mu||^2 = beta``.
    signs : ndarray, shape (V,)
        Class labels ``s_v``: ``+1`` for ``v < V/2``, ``-1`` otherwise.
    beta : float
        Signal strength ``||mu||^2``.
    """

    E: np.ndarray
    mu: np.ndarray
    signs: np.ndarray
    beta: float

    @property
    def d(self) -> int:
        """Embedding dimension."""
        return self.E.shape[0]

    @property
    def V(self) -> int:
        """Vocabulary size."""
        return self.E.shape[1]

    @property
    def Delta(self) -> np.ndarray:
        """Noise of the empirical class-mean difference, ``(1/V) sum_v s_v z_v``."""
        return self.E @ self.signs / self.V - self.mu  # (1/V) sum_v s_v e_v = mu + Delta

    @property
    def spike_norm2(self) -> float:
        """Realized squared norm ``||mu + Delta||^2`` of the signal spike direction.

        ``mu + Delta = (1/V) sum_v s_v e_v`` is the empirical class-mean difference; its squared
        norm tends to ``beta + delta`` (``prop-spike-norm-variance`` gives its fluctuation).
        """
        m = self.E @ self.signs / self.V
        return float(m @ m)

    @property
    def zbar(self) -> np.ndarray:
        """Noise of the vocabulary mean, ``(1/V) sum_v z_v`` (equal to the table mean)."""
        return self.E.mean(axis=1)
