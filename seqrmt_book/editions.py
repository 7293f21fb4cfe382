"""Sphinx extension: the book's edition, version and build date on every page.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

* The footer of every HTML page says which edition this is, the book's version (read from
  ``pyproject.toml``, the one place it is defined) and the date of the build (UTC, or
  ``SOURCE_DATE_EPOCH`` when set, for reproducible builds), with a link to the page that
  lists the editions (``book/changes``).  The date a page last changed comes from git
  (``sphinx-last-updated-by-git``, in the same footer).
* A copy of the source that is not a git checkout (a ZIP download, ``git archive``) builds
  as well, with no "last updated" dates: git is not asked (no "Error getting data from Git"
  warning, fatal under ``-W``), and no page loses its ``sourcename``, which
  ``sphinx-last-updated-by-git`` deletes when git has no date for a page and which the
  theme's launch buttons read (:func:`keep_source_names`).
* ``seqrmt_edition``, ``seqrmt_version`` and ``seqrmt_build_date`` are in every page's
  template context.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
import subprocess
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

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
    moment = _dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc) if epoch else _dt.datetime.now(_dt.timezone.utc)
    return moment.strftime("%Y-%m-%d")


def edition_name(edition: str = "full") -> str:
    """The edition as the footer names it: ``"Third edition"``, or with ``", students' edition"``
    for the book without solutions (:mod:`seqrmt_book.students`)."""
    return EDITION + (", students' edition" if edition == "students" else "")


def footer_line(version: str, date: str, changes_href: str | None, edition: str = "full") -> str:
    link = f' (<a href="{html.escape(changes_href, quote=True)}">what changed</a>)' if changes_href else ""
    name = html.escape(edition_name(edition), quote=False)
    return f'<p class="{CLASS}">{name}{link}, version {html.escape(version)}, built {html.escape(date)}.</p>'


def in_git_work_tree(path: Path) -> bool:
    """Whether ``path`` lies in a git work tree (and git can be run)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree"], cwd=path, capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and out.stdout.strip() == "true"


def keep_source_names(last_updated: dict[str, Any]) -> None:
    """Mark every page's source link as shown in ``env.git_last_updated``.

    ``sphinx-last-updated-by-git`` stores ``(timestamp, show_sourcelink)`` per page, or
    ``None`` when git gave nothing; for ``None`` or ``show_sourcelink=False`` it deletes
    ``context["sourcename"]``, which the theme's launch and download buttons need."""
    for docname, data in last_updated.items():
        if data is None or not data[1]:
            last_updated[docname] = (data[0] if data else None, True)


def _config_inited(app: Any, config: Any) -> None:
    config.seqrmt_version = book_version(Path(app.confdir))
    config.seqrmt_build_date = build_date()
    if "git_exclude_patterns" in config and not in_git_work_tree(Path(app.srcdir)):
        from sphinx.util import logging

        logging.getLogger(__name__).info(
            "seqrmt_book.editions: %s is not a git checkout; pages show no 'last updated' date", app.srcdir
        )
        config.git_exclude_patterns = ["**"]


def _env_updated(app: Any, env: Any) -> None:
    keep_source_names(getattr(env, "git_last_updated", {}))


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    version, date = app.config.seqrmt_version, app.config.seqrmt_build_date
    edition = getattr(app.config, "seqrmt_edition", "full")
    context.update(seqrmt_edition=edition_name(edition), seqrmt_version=version, seqrmt_build_date=date)
    href = None
    if CHANGES_PAGE in app.env.all_docs and "pathto" in context:
        href = context["pathto"](CHANGES_PAGE)
    base = context.get("theme_extra_footer") or ""
    if CLASS not in base:
        context["theme_extra_footer"] = base + footer_line(version, date, href, edition)


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("seqrmt_version", "", "html")
    app.add_config_value("seqrmt_build_date", "", "html")
    app.connect("config-inited", _config_inited)
    # After sphinx-last-updated-by-git's own env-updated handler (priority 500).
    app.connect("env-updated", _env_updated, priority=900)
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
