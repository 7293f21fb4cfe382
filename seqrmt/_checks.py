"""Argument validation shared by the public functions of :mod:`seqrmt`.

Every check raises :class:`TypeError` for a wrong type and :class:`ValueError`
for a value out of range, and the message names the parameter and the allowed
range, so that bad input never turns into a silent NaN.
"""

from __future__ import annotations

import numbers
from typing import Any

from numpy.typing import ArrayLike

import numpy as np

from ._table import VocabularyTable

__all__ = [
    "real",
    "positive",
    "nonnegative",
    "integer",
    "weights",
    "correlation",
    "seed",
    "flag",
    "real_array",
    "complex_array",
    "table",
]


def real(name: str, value: Any) -> float:
    """Return ``value`` as a finite float, or raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        else:
            raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value}")
    return value


def positive(name: str, value: Any) -> float:
    """A finite real number ``> 0``."""
    value = real(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


def nonnegative(name: str, value: Any) -> float:
    """A finite real number ``>= 0``."""
    value = real(name, value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def integer(name: str, value: Any, minimum: int = 1, even: bool = False) -> int:
    """An integer ``>= minimum`` (optionally even)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    if even and value % 2:
        raise ValueError(f"{name} must be an even integer (two balanced classes), got {value}")
    return value


def weights(w: Any, T: int | None = None, name: str = "w") -> np.ndarray:
    """A finite, non-zero real weight vector of length ``T`` (when given)."""
    raw = np.asarray(w)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a 1-d array of real numbers, got dtype {raw.dtype}")
    arr = raw.astype(float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    if not np.any(arr != 0):
        raise ValueError(f"{name} must not be all zeros (kappa = ||w||^2 must be > 0)")
    if T is not None and arr.size != T:
        raise ValueError(f"{name} must have length T = {T} (the length of R), got {arr.size}")
    return arr


def correlation(R: Any, name: str = "R", tol: float = 1e-8) -> np.ndarray:
    """A symmetric positive semi-definite matrix with unit diagonal."""
    raw = np.asarray(R)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a square array of real numbers, got dtype {raw.dtype}")
    arr = raw.astype(float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 1:
        raise ValueError(f"{name} must be a square T x T matrix with T >= 1, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    if not np.allclose(arr, arr.T, atol=tol):
        raise ValueError(f"{name} must be symmetric")
    if not np.allclose(np.diag(arr), 1.0, atol=tol):
        raise ValueError(f"{name} must have unit diagonal (E[xi_t^2] = 1)")
    if np.any(np.abs(arr) > 1 + tol):
        raise ValueError(f"{name} entries must lie in [-1, 1]")
    lam_min = np.linalg.eigvalsh((arr + arr.T) / 2)[0]
    if lam_min < -1e-8 * arr.shape[0]:
        raise ValueError(f"{name} must be positive semi-definite, smallest eigenvalue {lam_min:.3g} < 0")
    return (arr + arr.T) / 2


def seed(value: Any) -> np.random.Generator:
    """A numpy Generator from ``None``, an int or a Generator."""
    if isinstance(value, np.random.Generator):
        return value
    if value is None or (
        isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool) and value >= 0
    ):
        return np.random.default_rng(value)
    raise TypeError(f"seed must be None, a non-negative int or a numpy Generator, got {value!r}")


def flag(name: str, value: Any) -> bool:
    """A genuine bool (so that ``centered="False"`` is not silently true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def one_of(name: str, value: Any, options: tuple[str, ...]) -> str:
    """One of the strings ``options`` (``TypeError`` for a non-string, ``ValueError`` for another string)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {options}, got {value!r}")
    if value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def table(value: Any, name: str = "table"):
    """A :class:`seqrmt.VocabularyTable`."""
    if not isinstance(value, VocabularyTable):
        raise TypeError(f"{name} must be a VocabularyTable (see seqrmt.make_table), got {type(value).__name__}")
    return value


def real_array(name: str, x: ArrayLike, allow_inf: bool = True) -> np.ndarray:
    """``x`` as a float array; TypeError for non-numeric input, ValueError for NaN."""
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise TypeError(f"{name} must be an array of real numbers") from exc
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must contain only finite numbers")
    return arr


def complex_array(name: str, z: ArrayLike) -> np.ndarray:
    """``z`` as a finite complex array; TypeError for non-numeric input, ValueError for NaN/inf."""
    try:
        arr = np.asarray(z)
    except Exception as exc:  # pragma: no cover
        raise TypeError(f"{name} must be an array of complex numbers") from exc
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iufc":
        raise TypeError(f"{name} must be an array of real or complex numbers, got dtype {arr.dtype}")
    arr = arr.astype(complex)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return arr
