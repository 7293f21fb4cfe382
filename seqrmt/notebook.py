"""Support for running the book's notebooks anywhere.

The chapters paste numbers computed by their own code into the prose with
MyST-NB's *glue* mechanism.  :func:`glue` writes the same notebook output as
``myst_nb.glue`` (a display whose metadata names the key), so the book build
finds it, but it needs only IPython: the chapters also run in a plain Jupyter
kernel (for example on Binder) where Jupyter Book and MyST-NB are not
installed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["glue", "GLUE_PREFIX"]

#: MIME prefix MyST-NB uses for glued values that are not displayed.
GLUE_PREFIX = "application/papermill.record/"


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Store the displayed value of ``variable`` under the key ``name``.

    The book pastes it with ``{glue:text}`name:.3f``` (or ``{glue:figure}``).
    Same output format as ``myst_nb.glue``: the formatted mime bundle, each key
    prefixed with :data:`GLUE_PREFIX` when ``display`` is false, and the
    metadata ``{"scrapbook": {"name": name, "mime_prefix": prefix}}``.

    Parameters
    ----------
    name : str
        Key of the value, unique within the notebook (a Python-identifier-like
        string such as ``"ch3_edge"``).
    variable : object
        The value; a NumPy scalar should be converted with ``float()`` first
        so that format specifications apply to it.
    display : bool, default True
        Also show the value in the notebook.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if not isinstance(display, bool):
        raise TypeError(f"display must be True or False, got {display!r}")
    import IPython
    from IPython.display import display as ipy_display

    mimebundle, metadata = IPython.core.formatters.format_display_data(variable)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    ipy_display({prefix + k: v for k, v in mimebundle.items()}, raw=True, metadata=metadata)
