"""Sphinx's template bridge, told that the book's extensions are part of how a page is written.

Sphinx writes a page again when its source changed or when a template is newer than the written
page (the HTML builder asks the bridge for ``newest_template_mtime``).  The book's extensions
change the written pages too (``doctree-resolved`` handlers, the translator mixin, page-context
hooks, their static files), so this bridge counts them as templates: after an edit of one, every
page is written again, from the pickled doctrees (nothing is read or executed again).  Registered
as ``template_bridge`` in ``_config.yml``; only Sphinx imports this module.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.jinja2glue import BuiltinTemplateLoader

PACKAGE = Path(__file__).resolve().parent


def extension_files() -> list[Path]:
    """The modules of :mod:`seqrmt_book` and their static files."""
    return [*PACKAGE.glob("*.py"), *(p for p in (PACKAGE / "static").rglob("*") if p.is_file())]


class TemplateBridge(BuiltinTemplateLoader):
    """Sphinx's own bridge, whose newest template is also the newest file of :func:`extension_files`."""

    def newest_template_mtime(self) -> float:
        return max([super().newest_template_mtime(), *(p.stat().st_mtime for p in extension_files())])
