"""Sphinx extension: the students' edition, the book without the solutions of its exercises.

``scripts/build_students.sh`` builds it (the website and the PDF) into ``_build/students/``,
beside the full edition, with ``SEQRMT_EDITION=students`` in the environment (the config value
``seqrmt_edition``; ``full`` otherwise).  In that edition

* every solution of an exercise (sphinx-exercise's ``solution`` and gated
  ``solution-start``/``solution-end``, whose code cells go with it) is taken out of each page,
  on the website and in the PDF, but on the pages listed in ``seqrmt_released_solutions``
  (``_config.yml``: the chapters whose deadline has passed, e.g. ``[book/00_toolkit]``).
  sphinx-exercise's own ``hide_solutions`` hides every solution of a build; releasing one
  chapter needs a choice per page, so the nodes are removed here (``doctree-read``, after
  sphinx-exercise has merged the gated solutions);
* the notebooks and Markdown sources that the pages' download button serves
  (``_sources/``) lose the same solutions (:func:`strip_notebook`, :func:`strip_markdown`);
* the footer says "students' edition" (:mod:`seqrmt_book.editions`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

#: The environment variable that chooses the edition (``full`` or ``students``).
ENV = "SEQRMT_EDITION"
EDITIONS = ("full", "students")
_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>solution|solution-start|solution-end)\}.*$")


def edition_from_env() -> str:
    """``SEQRMT_EDITION`` (default ``full``); anything else is a ``ValueError`` naming the choices."""
    from seqrmt import settings

    value = settings.get(ENV)
    if value not in EDITIONS:
        raise ValueError(f"{ENV} must be one of {', '.join(EDITIONS)}, not {value!r}")
    return value


def _strip_lines(lines: list[str], gated: bool) -> tuple[list[str], bool]:
    """The lines without solution blocks; ``gated``: inside a ``solution-start`` block at the
    start (and at the end, the returned flag)."""
    out: list[str] = []
    closing: str | None = None  # inside a {solution} block: its closing fence
    for line in lines:
        text = line.rstrip("\n")
        if closing is not None:
            if text.strip() == closing:
                closing = None
            continue
        m = _FENCE.match(text.strip())
        if m and m.group("name") == "solution-end":
            gated = False
            closing = m.group("fence")  # the directive's own (empty) block
            continue
        if gated:
            continue
        if m and m.group("name") == "solution-start":
            gated, closing = True, m.group("fence")
            continue
        if m and m.group("name") == "solution":
            closing = m.group("fence")
            continue
        out.append(line)
    return out, gated


def strip_markdown(text: str) -> str:
    """A MyST Markdown text without its solution blocks (``{solution}`` and gated ones)."""
    lines, _ = _strip_lines(text.splitlines(keepends=True), False)
    return "".join(lines)


def strip_notebook(nb: dict) -> dict:
    """A notebook (nbformat JSON) without its solutions: ``{solution}`` blocks of its markdown
    cells, and every cell (code cells included) from a ``{solution-start}`` to its
    ``{solution-end}``; a markdown cell left empty is dropped."""
    cells, gated = [], False
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        lines = source if isinstance(source, list) else source.splitlines(keepends=True)
        if cell.get("cell_type") != "markdown":
            if not gated:
                cells.append(cell)
            continue
        was_gated = gated
        kept, gated = _strip_lines(lines, gated)
        if kept == lines and not was_gated:
            cells.append(cell)
        elif "".join(kept).strip():
            cells.append({**cell, "source": kept if isinstance(source, list) else "".join(kept)})
    return {**nb, "cells": cells}


# ---------------------------------------------------------------- Sphinx hooks
def _config_inited(app: Any, config: Any) -> None:
    if config.seqrmt_edition not in EDITIONS:
        from sphinx.errors import ConfigError

        raise ConfigError(f"seqrmt_edition must be one of {', '.join(EDITIONS)}, not {config.seqrmt_edition!r}")


def _students(app: Any) -> bool:
    return app.config.seqrmt_edition == "students"


def _doctree_read(app: Any, doctree: Any) -> None:
    if not _students(app) or app.env.docname in set(app.config.seqrmt_released_solutions):
        return
    from sphinx_exercise.nodes import solution_node

    for node in list(doctree.findall(solution_node)):
        node.parent.remove(node)


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or not _students(app) or getattr(app.builder, "format", "") != "html":
        return
    released = {f"{doc}{suffix}" for doc in app.config.seqrmt_released_solutions for suffix in (".ipynb", ".md")}
    sources = Path(app.outdir) / "_sources"
    for path in sources.rglob("*"):
        rel = path.relative_to(sources).as_posix()
        if not path.is_file() or rel in released:
            continue
        if path.suffix == ".ipynb":
            nb = json.loads(path.read_text(encoding="utf-8"))
            stripped = strip_notebook(nb)
            if stripped != nb:
                path.write_text(json.dumps(stripped, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        elif path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
            stripped_text = strip_markdown(text)
            if stripped_text != text:
                path.write_text(stripped_text, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    app.setup_extension("sphinx_exercise")
    app.add_config_value("seqrmt_edition", edition_from_env(), "env", [str])
    app.add_config_value("seqrmt_released_solutions", [], "env", [list])
    app.connect("config-inited", _config_inited)
    app.connect("doctree-read", _doctree_read, priority=400)
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
