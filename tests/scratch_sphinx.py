"""A scratch Sphinx site built quietly with the HTML builder (the tests that build a small site
of their own: extensions, the students' edition, the JupyterHub button, reading times)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def build_html(src: Path, *, fresh: bool = True) -> tuple[Any, Path]:
    """Build the site whose ``conf.py`` is in ``src`` into ``src/_build/html`` (doctrees in
    ``src/_build/doctrees``); ``fresh=False`` keeps the environment of an earlier build (an
    incremental build).  Returns the Sphinx application and the HTML folder."""
    from sphinx.application import Sphinx

    out = Path(src) / "_build"
    app = Sphinx(
        str(src), str(src), str(out / "html"), str(out / "doctrees"), "html", status=None, warning=None, freshenv=fresh
    )
    app.build()
    return app, out / "html"
