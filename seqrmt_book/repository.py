"""Sphinx extension: the repository the site names is the one it is built from.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

The sources name one repository, ``repository: url:`` in ``_config.yml`` (with the copies that
``scripts/set_repository_url.py`` keeps in step: the README's badge, ``CITATION.cff``, the
citation on the introduction and the install cell of each chapter).  A fork published by a
GitHub workflow must name itself without an edit, so in a workflow (``GITHUB_REPOSITORY`` is
set, as GitHub sets it in every job) the site names ``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY``
instead, everywhere the sources' URL appears:

* the theme's repository and issues buttons and every launch link (Binder, Colab, JupyterHub
  through nbgitpuller), which the theme makes from ``html_theme_options["repository_url"]``;
* the text and links of the pages (the citation of the introduction), replaced in the doctree
  when the page is written;
* the notebooks and sources that the download button serves (``_sources/``), whose install cell
  then installs the fork's ``seqrmt``.

Outside a workflow the one setting is ``repository: url:`` in ``_config.yml``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from docutils import nodes

_SLUG = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")


def repository_url(configured: str, environ: dict[str, str] | None = None) -> str:
    """The repository the site names: the workflow's (``GITHUB_SERVER_URL``/``GITHUB_REPOSITORY``)
    when ``GITHUB_REPOSITORY`` is set, else ``configured``.

    Raises
    ------
    ValueError
        ``GITHUB_REPOSITORY`` that is not ``owner/name``.
    """
    env = os.environ if environ is None else environ
    slug = (env.get("GITHUB_REPOSITORY") or "").strip()
    if not slug:
        return configured.rstrip("/")
    if not _SLUG.match(slug):
        raise ValueError(f"GITHUB_REPOSITORY must be owner/name, not {slug!r}")
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").strip().rstrip("/")
    return f"{server}/{slug}"


def replacements(upstream: str, effective: str) -> list[tuple[str, str]]:
    """The (old, new) strings that turn the sources' repository into the site's: the URL itself,
    and its ``owner/name`` where Binder and Colab write it after ``/gh/`` and ``/github/``."""
    if not upstream or upstream == effective:
        return []
    pairs = [(upstream, effective)]
    old, new = _slug_of(upstream), _slug_of(effective)
    if old and new:
        pairs += [(f"/gh/{old}/", f"/gh/{new}/"), (f"/github/{old}/", f"/github/{new}/")]
    return pairs


def _slug_of(url: str) -> str:
    parts = url.rstrip("/").split("/")
    return "/".join(parts[-2:]) if len(parts) >= 2 else ""


def rewrite(text: str, pairs: list[tuple[str, str]]) -> str:
    for old, new in pairs:
        text = text.replace(old, new)
    return text


# ---------------------------------------------------------------- Sphinx hooks
def _config_inited(app: Any, config: Any) -> None:
    options = dict(config.html_theme_options or {})
    upstream = str(options.get("repository_url") or "").rstrip("/")
    try:
        effective = repository_url(upstream)
    except ValueError as error:
        from sphinx.errors import ConfigError

        raise ConfigError(str(error)) from None
    config.seqrmt_repository_upstream = upstream
    config.seqrmt_repository_url = effective
    if effective and effective != upstream:
        options["repository_url"] = effective
        config.html_theme_options = options


def _pairs(app: Any) -> list[tuple[str, str]]:
    return replacements(app.config.seqrmt_repository_upstream, app.config.seqrmt_repository_url)


def _doctree_resolved(app: Any, doctree: Any, docname: str) -> None:
    pairs = _pairs(app)
    if not pairs:
        return
    for node in list(doctree.findall(nodes.Text)):
        new = rewrite(str(node), pairs)
        if new != str(node):
            node.parent.replace(node, nodes.Text(new))
    for node in doctree.findall(nodes.reference):
        if "refuri" in node:
            node["refuri"] = rewrite(node["refuri"], pairs)
    for node in doctree.findall(nodes.raw):
        new = rewrite(node.astext(), pairs)
        if new != node.astext():
            node.replace_self(nodes.raw("", new, format=node.get("format", "html")))


def _build_finished(app: Any, exception: Exception | None) -> None:
    pairs = _pairs(app)
    if exception is not None or not pairs or getattr(app.builder, "format", "") != "html":
        return
    sources = Path(app.outdir) / "_sources"
    for path in sources.rglob("*") if sources.is_dir() else ():
        if path.is_file() and path.suffix in (".ipynb", ".md", ".txt"):
            text = path.read_text(encoding="utf-8")
            new = rewrite(text, pairs)
            if new != text:
                path.write_text(new, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("seqrmt_repository_upstream", "", "html", [str])
    app.add_config_value("seqrmt_repository_url", "", "html", [str])
    app.connect("config-inited", _config_inited)
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
