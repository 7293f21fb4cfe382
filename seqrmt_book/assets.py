"""Sphinx extension: what each page loads, so that only the HTML and the CSS stand before
the first paint, and nothing comes from a CDN.

While each HTML page is rendered (``html-page-context``) it

* drops duplicated ``<script>`` entries (Jupyter Book 1 registers the
  ``sphinx-thebe`` configuration script twice: ``Identifier 'THEBE_JS_URL' has
  already been declared`` in the console) and, when the thebe launch button is
  disabled, the unused thebe scripts and stylesheet (they point to unpkg.com);
* moves the saved ipywidgets state (up to ~1 MB of base64 PNG frames) out of the
  page's ``<head>`` into ``<page>.widget-state.js`` next to the page, named by
  ``<meta name="seqrmt-widget-state">``; ``static/seqrmt/widgets.js`` loads it, with
  the widget renderer, only when a widget comes near the viewport or on the first focus;
* turns every external script (Sphinx's, the theme's and the extensions' small scripts)
  into ``<script type="seqrmt/after-paint" src=...>``, which browsers do not fetch;
  ``static/seqrmt/site.js`` (deferred) loads them in order once the page has painted, so
  that nothing but the HTML and the CSS uses a slow link before the first paint.  The search
  page's own scripts (``searchtools.js``, its language data and the index, 49 KB compressed)
  too (``_templates/search.html``): loaded after the page's, in the page's order, they find
  ``doctools.js`` run before them, and the search runs once the index has come;
* drops sphinx-design's stylesheet (55 KB, render-blocking) and script from pages whose
  doctree has no sphinx-design component (no ``sd-`` class);
* writes ``documentation_options.js`` (a few hundred bytes that inline scripts read at
  once) into the page instead of a render-blocking request: the same template Sphinx
  renders into ``_static/`` (:func:`documentation_options`);
* names the sidebar's expand buttons (:func:`_name_nav_toggles`);
* adds ``static/seqrmt/site.css`` and ``static/seqrmt/site.js`` to every page; ``site.css`` is
  written from the template ``site.css_t`` with the widths of the text column of
  :mod:`seqrmt.columns`, for which the figures are drawn and checked (:func:`column_context`).

The theme's own scripts and stylesheets, which its templates write, are changed in
``_templates/layout.html`` (blocks ``css`` and ``scripts_end``): no Font Awesome
JavaScript (1.5 MB; the icons come from the web fonts of the theme's CSS), no
``<link rel="preload">`` of scripts, ``bootstrap.js`` and ``pydata-sphinx-theme.js``
after the first paint, and the theme's stylesheet as :mod:`seqrmt_book.theme` cuts it down.
"""

from __future__ import annotations

import posixpath
from markupsafe import Markup
from pathlib import Path
from typing import Any

WIDGET_STATE_MIME = "application/vnd.jupyter.widget-state+json"
STATE_SUFFIX = ".widget-state.js"
#: <script type=...> that browsers do not run; static/seqrmt/site.js loads these after the first paint.
AFTER_PAINT = "seqrmt/after-paint"
#: Our own small loaders stay plain deferred scripts (site.js runs the after-paint ones).
KEEP_DEFERRED = ("seqrmt/site.js", "seqrmt/widgets.js")


def _filename(asset: Any) -> str:
    return str(getattr(asset, "filename", asset) or "")


def _attributes(asset: Any) -> dict[str, Any]:
    return dict(getattr(asset, "attributes", {}) or {})


def _is_thebe(asset: Any) -> bool:
    name = _filename(asset)
    body = str(_attributes(asset).get("body", ""))
    return "thebe" in name.rsplit("/", 1)[-1] or "THEBE_JS_URL" in body


def _thebe_enabled(app: Any) -> bool:
    options = getattr(app.config, "html_theme_options", {}) or {}
    launch = options.get("launch_buttons", {}) or {}
    return bool(launch.get("thebe", False))


def _clean_assets(app: Any, context: dict) -> None:
    drop_thebe = not _thebe_enabled(app)
    for key in ("script_files", "css_files"):
        assets = context.get(key)
        if not assets:
            continue
        seen: set[Any] = set()
        kept = []
        for asset in assets:
            ident = (_filename(asset), tuple(sorted((k, str(v)) for k, v in _attributes(asset).items())))
            if ident in seen or (drop_thebe and _is_thebe(asset)):
                continue
            seen.add(ident)
            kept.append(asset)
        context[key] = kept


def _rebuild(asset: Any, **changes: Any) -> Any:
    """A copy of a Sphinx ``_JavaScript`` asset (immutable) with other attributes."""
    attrs = {**_attributes(asset), **changes}
    return type(asset)(_filename(asset) or None, priority=getattr(asset, "priority", 500), **attrs)


def _move_widget_state(app: Any, pagename: str, context: dict) -> None:
    scripts = context.get("script_files") or []
    states = [a for a in scripts if _attributes(a).get("type") == WIDGET_STATE_MIME]
    if not states:
        return
    context["script_files"] = [a for a in scripts if a not in states]
    body = str(_attributes(states[-1]).get("body", "")).strip() or "{}"
    target = Path(app.outdir) / (pagename + STATE_SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    # The body is JSON with "</" already escaped by myst-nb: a valid JS expression.
    target.write_text(f"window.seqrmtWidgetState = {body};\n", encoding="utf-8")
    rel = posixpath.relpath(pagename + STATE_SUFFIX, posixpath.dirname(pagename) or ".")
    context["metatags"] = (context.get("metatags") or "") + (f'\n<meta name="seqrmt-widget-state" content="{rel}" />')


def _defer_scripts(app: Any, pagename: str, context: dict) -> None:
    out = []
    for asset in context.get("script_files") or []:
        name = _filename(asset)
        attrs = _attributes(asset)
        base = name.split("?")[0]
        if (
            name
            and not base.endswith("documentation_options.js")
            and not base.endswith(KEEP_DEFERRED)
            and attrs.get("type") in (None, "text/javascript")
        ):
            # Not fetched by the browser; static/seqrmt/site.js loads these, in order,
            # after the first paint, so that they do not share a slow link with the CSS.
            attrs.pop("defer", None)
            attrs.pop("async", None)
            asset = type(asset)(name, priority=getattr(asset, "priority", 500), **{**attrs, "type": AFTER_PAINT})
        elif name and base.endswith(KEEP_DEFERRED) and "defer" not in attrs:
            asset = _rebuild(asset, defer="defer")
        out.append(asset)
    context["script_files"] = out


def documentation_options(builder: Any) -> str:
    """``documentation_options.js`` as Sphinx writes it into ``_static/`` (the basic theme's
    ``documentation_options.js.jinja``, rendered with the builder's global context)."""
    import sphinx

    template = Path(sphinx.__file__).parent / "themes" / "basic" / "static" / "documentation_options.js.jinja"
    return builder.templates.render_string(template.read_text(encoding="utf-8"), dict(builder.globalcontext)).strip()


def _inline_documentation_options(app: Any, pagename: str, context: dict) -> None:
    """The ``documentation_options.js`` script of the page, with its text in the page."""
    scripts = context.get("script_files") or []
    for i, asset in enumerate(scripts):
        if _filename(asset).split("?")[0].endswith("documentation_options.js"):
            text = app.__dict__.get("_seqrmt_doc_options")
            if text is None:
                text = app._seqrmt_doc_options = documentation_options(app.builder)
            if "</" in text:
                return
            attrs = {k: v for k, v in _attributes(asset).items() if k not in ("src", "defer", "async")}
            scripts[i] = type(asset)(None, priority=getattr(asset, "priority", 200), body=text, **attrs)
            return


#: The prefix of the classes of sphinx-design's components (cards, tabs, grids).
DESIGN_CLASS_PREFIX = "sd-"
#: sphinx-design's assets: 55 KB of render-blocking CSS and a script.
DESIGN_ASSETS = ("sphinx-design.min.css", "design-tabs.js")


def uses_design(doctree: Any) -> bool:
    """Whether a page's doctree has a sphinx-design component (a node with an ``sd-`` class)."""
    from docutils import nodes

    if doctree is None:
        return False
    return any(
        c.startswith(DESIGN_CLASS_PREFIX) for node in doctree.findall(nodes.Element) for c in node.get("classes", ())
    )


def _drop_unused_design(context: dict, doctree: Any) -> None:
    """sphinx-design's stylesheet and script only on pages whose doctree uses a component."""
    if uses_design(doctree):
        return
    for key in ("script_files", "css_files"):
        assets = context.get(key) or []
        context[key] = [a for a in assets if not _filename(a).split("?")[0].endswith(DESIGN_ASSETS)]


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    _clean_assets(app, context)
    _drop_unused_design(context, doctree)
    _move_widget_state(app, pagename, context)
    _defer_scripts(app, pagename, context)
    _inline_documentation_options(app, pagename, context)
    _name_nav_toggles(context)


_NAV_TOGGLE_NAME = "Show or hide the sub-pages"


def _name_nav_toggles(context: dict) -> None:
    """The sidebar's expand buttons (``<summary>`` of a section with sub-pages, drawn by the
    theme's ``generate_toctree_html``) get a name a screen reader can say: the theme gives
    them only an icon.  Wraps the context's function, so the template renders named ones: the
    theme builds the navigation as a BeautifulSoup tree, whose ``<summary>`` elements get the
    attribute (a theme version that returns a string has it parsed into such a tree first)."""
    make = context.get("generate_toctree_html")
    if make is None or getattr(make, "seqrmt_named", False):
        return

    def named(*args: Any, **kwargs: Any) -> Any:
        html = make(*args, **kwargs)
        tree = html
        if isinstance(html, str):
            from bs4 import BeautifulSoup

            tree = BeautifulSoup(html, "html.parser")
        for summary in tree.find_all("summary"):
            if not summary.get_text(strip=True) and not summary.get("aria-label"):
                summary["aria-label"] = _NAV_TOGGLE_NAME
        return Markup(str(tree)) if isinstance(html, str) else tree

    named.seqrmt_named = True  # type: ignore[attr-defined]
    context["generate_toctree_html"] = named


#: The name under which the stylesheet's template reads the column widths.
COLUMNS_CONTEXT = "seqrmt_columns"


def column_context() -> dict[str, Any]:
    """What the template ``static/seqrmt/site.css_t`` is rendered with: the widths of the text column
    (:func:`seqrmt.columns.css_values`), under :data:`COLUMNS_CONTEXT`."""
    from seqrmt import columns

    return {COLUMNS_CONTEXT: columns.css_values()}


def _config_inited(app: Any, config: Any) -> None:
    config.html_context = {**config.html_context, **column_context()}


def setup(app: Any) -> dict[str, Any]:
    app.setup_extension("seqrmt_book.bundles")  # the page's stylesheets in one file
    app.connect("config-inited", _config_inited)
    # Run after the other extensions (myst-nb adds the widget scripts at priority 500).
    app.connect("html-page-context", _page_context, priority=900)
    app.add_css_file("seqrmt/site.css", priority=900)
    app.add_js_file("seqrmt/site.js", priority=900, defer="defer")
    return {"version": "3.0", "parallel_read_safe": True, "parallel_write_safe": True}
