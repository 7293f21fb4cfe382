"""Sphinx extension: the book's edition, version and build date on every page.

Registered in ``_config.yml`` under ``sphinx: local_extensions: {seqrmt_editions: site_assets/}``.

* The footer of every HTML page says which edition this is, the book's version (read from
  ``pyproject.toml``, the one place it is defined) and the date of the build (UTC, or
  ``SOURCE_DATE_EPOCH`` when set, for reproducible builds), with a link to the page that
  lists the editions (``book/changes``).  The date a page last changed comes from git
  (``sphinx-last-updated-by-git``, in the same footer).
* ``seqrmt_edition``, ``seqrmt_version`` and ``seqrmt_build_date`` are in every page's
  template context.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:      # Python 3.10
    import tomli as tomllib      # type: ignore[no-redef]

EDITION = "Third edition"
CHANGES_PAGE = "book/changes"
CLASS = "seqrmt-edition"


def book_version(root: Path) -> str:
    """The ``[project] version`` of ``pyproject.toml`` in ``root``."""
    data = tomllib.loads((Path(root) / "pyproject.toml").read_text(encoding="utf-8"))
    try:
        return str(data["project"]["version"])
    except KeyError:
        raise ValueError(f"{root}/pyproject.toml has no [project] version") from None


def build_date() -> str:
    """Today (UTC) as YYYY-MM-DD, or the date of ``SOURCE_DATE_EPOCH`` when it is set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (_dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc) if epoch
              else _dt.datetime.now(_dt.timezone.utc))
    return moment.strftime("%Y-%m-%d")


def footer_line(version: str, date: str, changes_href: str | None) -> str:
    link = (f' (<a href="{html.escape(changes_href, quote=True)}">what changed</a>)'
            if changes_href else "")
    return (f'<p class="{CLASS}">{EDITION}{link}, version {html.escape(version)}, '
            f'built {html.escape(date)}.</p>')


def _config_inited(app: Any, config: Any) -> None:
    config.seqrmt_version = book_version(Path(app.confdir))
    config.seqrmt_build_date = build_date()


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    version, date = app.config.seqrmt_version, app.config.seqrmt_build_date
    context.update(seqrmt_edition=EDITION, seqrmt_version=version, seqrmt_build_date=date)
    href = None
    if CHANGES_PAGE in app.env.all_docs and "pathto" in context:
        href = context["pathto"](CHANGES_PAGE)
    base = context.get("theme_extra_footer") or ""
    if CLASS not in base:
        context["theme_extra_footer"] = base + footer_line(version, date, href)


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("seqrmt_version", "", "html")
    app.add_config_value("seqrmt_build_date", "", "html")
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
