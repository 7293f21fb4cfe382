"""Sphinx extension that keeps the seqrmt book self-contained, light and accessible.

Registered in ``_config.yml`` under ``sphinx: local_extensions: {seqrmt_site: site_assets/}``.

While each HTML page is rendered (``html-page-context``) it

* drops duplicated ``<script>`` entries (Jupyter Book 1 registers the
  ``sphinx-thebe`` configuration script twice: ``Identifier 'THEBE_JS_URL' has
  already been declared`` in the console) and, when the thebe launch button is
  disabled, the unused thebe scripts and stylesheet (they point to unpkg.com);
* moves the saved ipywidgets state (up to ~1 MB of base64 PNG frames) out of the
  page's ``<head>`` into ``<page>.widget-state.js`` next to the page, named by
  ``<meta name="seqrmt-widget-state">``; ``static/seqrmt/widgets.js`` loads it, with
  the widget renderer, only when a widget comes near the viewport or on the first focus;
* turns every external script (the theme's and the extensions' small
  scripts) into ``<script type="seqrmt/after-paint" src=...>``, which browsers do not
  fetch; ``static/seqrmt/site.js`` (deferred) loads them in order once the page has
  painted, so that nothing but the HTML and the CSS uses a slow link before the first
  paint.  ``documentation_options.js`` (read by inline scripts) is inlined after the build.
  Not on the search page (:data:`PAGES_NOT_POSTPONED`): the theme's ``search.html`` loads
  ``searchtools.js`` synchronously after them, and it needs ``doctools.js`` to have run;
* adds ``static/seqrmt/site.css`` and ``static/seqrmt/site.js`` to every page.

The page templates in ``_templates/`` (``templates_path``) change what is cheaper to
change there: the theme's navbar without its hidden sidebar toggles (the theme's scripts
bound those instead of the visible ones), and Sphinx's search scripts and ``searchindex.js``
only on the search page (the theme loads them synchronously in every ``<head>`` for its
search-as-you-type field, which is off).

After the build (``build-finished``) it rewrites the written HTML files for what the
templates hard-code:

* the theme's Font Awesome **JavaScript** (1.5 MB, it turns ``<i>`` icons into
  ``<svg>``) is removed: the theme's CSS already contains the Font Awesome web-font
  rules, so the icons still show;
* the theme's own scripts (``bootstrap.js``, ``pydata-sphinx-theme.js``,
  ``sphinx-book-theme.js``) are loaded after the first paint as well, and their
  ``<link rel="preload">`` tags are dropped; ``documentation_options.js`` (a few
  hundred bytes that inline scripts need at once) is inlined: no script request blocks
  the first paint;
* pages that use no sphinx-design component (no ``sd-`` class) do not load its CSS
  (55 KB, render-blocking) and script;
* the Font Awesome icon rules of the theme's CSS (1,900 icons, ~85 KB, render-blocking)
  are cut down to the icons that a page or a script of the site names, and its icon
  fonts (woff2, 300 KB in all) to the glyphs that any stylesheet of the site still names
  (``*.subset.woff``, with fontTools): the remaining icon rules, the theme's icon
  variables (admonition and proof titles) and the other extensions' CSS (sphinx-exercise);
* content images get ``loading="lazy"``, ``decoding="async"`` and their intrinsic
  ``width``/``height`` (no layout shift while they load);
* myst-nb's ``<summary aria-label="Toggle hidden content">`` (hidden code cells)
  loses that label, so its visible text ("Show code cell source") is its name (axe
  ``label-content-name-mismatch``; the theme's search button, flagged the same way
  before, is fixed by dropping the Font Awesome JavaScript that rewrote its icon);
* bibliography lists (sphinxcontrib-bibtex / docutils ``role="list"`` with
  ``role="doc-biblioentry"`` children, axe ``aria-required-children``) get list items;
* the theme's script makes scroll boxes (code, outputs, tables) tab stops by reading the
  size of every one of them at load, in a loop that also writes: with hundreds of
  equations that lays out the whole page several times over (seconds on a phone), and
  it defeats ``content-visibility`` (``static/seqrmt/site.css``).  Its check is routed to
  ``window.seqrmtWatchScrollable`` (``static/seqrmt/site.js``), which does the same once
  each box is laid out (a ``ResizeObserver``); the build fails if the theme's code no
  longer matches.  So that a keyboard user does not depend on that check, every code
  cell, output and table container is a named tab stop in the HTML already
  (:func:`focusable_scroll_boxes`).
"""

from __future__ import annotations

import posixpath
import re
import struct
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
    context["metatags"] = (context.get("metatags") or "") + (
        f'\n<meta name="seqrmt-widget-state" content="{rel}" />')


#: Pages whose scripts run as Sphinx writes them (nothing postponed): the theme's search
#: page loads ``searchtools.js`` and the index synchronously after the page's scripts, and
#: ``searchtools.js`` needs ``doctools.js`` (``_ready``, ``Documentation``) to have run first.
PAGES_NOT_POSTPONED = ("search",)


def _defer_scripts(app: Any, pagename: str, context: dict) -> None:
    if pagename in PAGES_NOT_POSTPONED:
        return
    out = []
    for asset in context.get("script_files") or []:
        name = _filename(asset)
        attrs = _attributes(asset)
        base = name.split("?")[0]
        if (name and not base.endswith("documentation_options.js")
                and not base.endswith(KEEP_DEFERRED)
                and attrs.get("type") in (None, "text/javascript")):
            # Not fetched by the browser; static/seqrmt/site.js loads these, in order,
            # after the first paint, so that they do not share a slow link with the CSS.
            attrs.pop("defer", None)
            attrs.pop("async", None)
            asset = type(asset)(name, priority=getattr(asset, "priority", 500),
                                **{**attrs, "type": AFTER_PAINT})
        elif name and base.endswith(KEEP_DEFERRED) and "defer" not in attrs:
            asset = _rebuild(asset, defer="defer")
        out.append(asset)
    context["script_files"] = out


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    _clean_assets(app, context)
    _move_widget_state(app, pagename, context)
    _defer_scripts(app, pagename, context)
    _name_nav_toggles(context)


_NAV_TOGGLE_NAME = "Show or hide the sub-pages"
_NAV_SUMMARY = re.compile(r'<summary>(<span class="toctree-toggle" role="presentation">)')


def _name_nav_toggles(context: dict) -> None:
    """The sidebar's expand buttons (``<summary>`` of a section with sub-pages, drawn by the
    theme's ``generate_toctree_html``) get a name a screen reader can say: the theme gives
    them only an icon.  Wraps the context's function, so the template renders named ones."""
    make = context.get("generate_toctree_html")
    if make is None or getattr(make, "seqrmt_named", False):
        return

    def named(*args: Any, **kwargs: Any) -> Any:
        html = make(*args, **kwargs)
        if isinstance(html, str):
            return Markup(_NAV_SUMMARY.sub(f'<summary aria-label="{_NAV_TOGGLE_NAME}">\\1', html))
        # the theme returns its BeautifulSoup (for "sidebar" as for "raw"), which the template renders
        for summary in html.find_all("summary"):
            if not summary.get_text(strip=True) and not summary.get("aria-label"):
                summary["aria-label"] = _NAV_TOGGLE_NAME
        return html

    named.seqrmt_named = True  # type: ignore[attr-defined]
    context["generate_toctree_html"] = named


# ---------------------------------------------------------------- HTML rewriting
_FA_JS = re.compile(r'\s*<script[^>]*src="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*></script>')
_THEME_JS = re.compile(
    r'<script (?:defer )?src="([^"]*_static/scripts/(?:sphinx-book-theme|bootstrap|pydata-sphinx-theme)'
    r'\.js[^"]*)"></script>')
_DESIGN_ASSETS = re.compile(
    r'\s*<(?:link[^>]*href="[^"]*_static/sphinx-design\.min\.css[^"]*"[^>]*/?>|'
    r'script[^>]*src="[^"]*_static/design-tabs\.js[^"]*"[^>]*></script>)')
_DESIGN_CLASS = re.compile(r'class="(?:[^"]*\s)?sd-')
_PRELOAD_JS = re.compile(r'\s*<link rel="preload" as="script" href="[^"]*"\s*/?>')
_DOC_OPTIONS = re.compile(r'<script src="[^"]*_static/documentation_options\.js[^"]*"></script>')
_IMG = re.compile(r"<img\b[^>]*>")
_SRC = re.compile(r'\bsrc="([^"]+)"')
_CSS_WIDTH = re.compile(r'style="[^"]*\bwidth:\s*([0-9.]+)px')
_SUMMARY_LABEL = re.compile(r'(<summary\b[^>]*?)\s+aria-label="Toggle hidden content"')


def _png_size(path: Path) -> tuple[int, int] | None:
    try:
        with path.open("rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) == 24 and head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        return struct.unpack(">II", head[16:24])
    return None


def _fix_img(tag: str, page: Path) -> str:
    m = _SRC.search(tag)
    if not m or m.group(1).startswith(("data:", "http:", "https:")):
        return tag
    extra = []
    if "loading=" not in tag:
        extra.append('loading="lazy"')
    if "decoding=" not in tag:
        extra.append('decoding="async"')
    if "width=" not in tag and "height=" not in tag:
        size = _png_size((page.parent / m.group(1).split("?")[0]).resolve())
        if size:
            w, h = size
            css = _CSS_WIDTH.search(tag)  # a PNG drawn at 2x and shown at its CSS width
            if css:
                w, h = int(round(float(css.group(1)))), int(round(float(css.group(1)) * h / w))
            extra.append(f'width="{w}" height="{h}"')
    if not extra:
        return tag
    end = -2 if tag.endswith("/>") else -1
    return tag[:end].rstrip() + " " + " ".join(extra) + (" />" if end == -2 else ">")


def _fix_citation_lists(html: str) -> str:
    """docutils writes ``<div role="list" class="citation-list">`` whose children are
    ``<div class="citation" role="doc-biblioentry">``: a list without list items.
    Give each entry the listitem role (doc-biblioentry is deprecated in DPUB-ARIA 1.1)."""
    if 'class="citation-list"' not in html:
        return html
    return re.sub(r'(<div\b[^>]*class="citation"[^>]*\brole=")doc-biblioentry(")', r"\1listitem\2", html)


def rewrite_html(html: str, page: Path, *, doc_options: str | None = None) -> str:
    """Apply the post-build rewrites (see the module docstring) to one page."""
    html = _FA_JS.sub("", html)
    html = _THEME_JS.sub(rf'<script type="{AFTER_PAINT}" src="\1"></script>', html)
    html = _PRELOAD_JS.sub("", html)
    if not _DESIGN_CLASS.search(html):
        # sphinx-design (cards, tabs, grids; 55 KB of render-blocking CSS) unused on this page
        html = _DESIGN_ASSETS.sub("", html)
    if doc_options is not None:
        html = _DOC_OPTIONS.sub(lambda m: f"<script>{doc_options}</script>", html, count=1)
    html = _IMG.sub(lambda m: _fix_img(m.group(0), page), html)
    # myst-nb names every "Show code cell ..." summary "Toggle hidden content", so its
    # visible text is not its name (axe label-content-name-mismatch, WCAG 2.5.3).
    html = _SUMMARY_LABEL.sub(r"\1", html)
    html = _fix_citation_lists(html)
    html = focusable_scroll_boxes(html)
    return html


_SCROLL_BOX = re.compile(r'class="cell_(input|output)\b|<pre>|<div class="pst-scrollable-table-container">')


def focusable_scroll_boxes(html: str) -> str:
    """Code cells, outputs and wide tables as tab stops with a name, in the HTML itself.

    The theme makes a box that scrolls sideways a tab stop only once it is laid out
    (``static/seqrmt/site.js``, which also takes the stop away from a box that does not
    scroll); a keyboard user, or axe-core run right after load
    (``scrollable-region-focusable``), must not depend on that.  Every ``<pre>`` (named
    "Code" or "Output" after the cell part it is in) and every table container ("Table")
    gets ``tabindex="0"``, ``role="group"`` and an ``aria-label``."""
    part = ["Code"]

    def repl(m: re.Match) -> str:
        if m.group(1):
            part[0] = "Code" if m.group(1) == "input" else "Output"
            return m.group(0)
        if m.group(0) == "<pre>":
            return f'<pre tabindex="0" role="group" aria-label="{part[0]}">'
        return ('<div class="pst-scrollable-table-container" tabindex="0" role="group" '
                'aria-label="Table">')
    return _SCROLL_BOX.sub(repl, html)


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    postprocess_site(Path(app.outdir))


def postprocess_site(outdir: Path) -> None:
    """Apply the post-build rewrites to every page of a built site (idempotent)."""
    opts_file = outdir / "_static" / "documentation_options.js"
    doc_options = opts_file.read_text(encoding="utf-8").strip() if opts_file.is_file() else None
    if doc_options is not None and "</" in doc_options:
        doc_options = None
    for page in outdir.rglob("*.html"):
        rel = page.relative_to(outdir).parts
        if rel[0] in ("_static", "_sources", "_images", "_downloads"):
            continue
        text = page.read_text(encoding="utf-8")
        new = rewrite_html(text, page, doc_options=doc_options)
        if new != text:
            page.write_text(new, encoding="utf-8")
    _purge_theme_icons(outdir)
    _patch_theme_script(outdir)


_FA_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+:{1,2}(?:before|after),?)+)\{content:[^}]*\}')
_FA_NAME = re.compile(r"\.fa-([a-z0-9-]+):")


def purge_icon_rules(css: str, used: set[str]) -> str:
    """Drop the Font Awesome ``.fa-NAME:before{content:...}`` rules of icons not in ``used``."""
    def keep(m: re.Match) -> str:
        return m.group(0) if any(n in used for n in _FA_NAME.findall(m.group(1))) else ""
    return _FA_RULE.sub(keep, css)


_FONT_SRC = re.compile(
    r'src:url\((\.\./vendor/fontawesome/webfonts/(fa-[a-z]+-[0-9]+))\.(?:woff2|subset\.woff)\) format\("woff2?"\),'
    r'url\(\1\.ttf\) format\("truetype"\)')
#: A CSS escape (``\f0f3``, up to six hex digits, as CSS reads it).
_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})")


def _private_use(code: int) -> bool:
    return 0xE000 <= code <= 0xF8FF or 0xF0000 <= code <= 0x10FFFD


def icon_codepoints(css: str) -> set[int]:
    """The private-use code points (icon-font glyphs) a stylesheet names anywhere: as CSS
    escapes (``content: "\\f303"`` in sphinx-exercise's CSS) or as the characters themselves
    (the theme writes ``--pst-icon-bell`` as the character U+F0F3 itself: the icon of
    sphinx-proof's boxes)."""
    codes = {int(h, 16) for h in _CSS_ESCAPE.findall(css)}
    codes |= {ord(ch) for ch in css if _private_use(ord(ch))}
    return {c for c in codes if _private_use(c)}


def served_icon_codepoints(outdir: Path) -> set[int]:
    """Private-use code points named by any stylesheet (``.css`` file) of a built site:
    the theme's, the extensions' (sphinx-proof, sphinx-exercise, ...) and the vendored ones."""
    codes: set[int] = set()
    for f in outdir.rglob("*.css"):
        if f.is_file():
            codes |= icon_codepoints(f.read_text(encoding="utf-8", errors="replace"))
    return codes


def subset_icon_fonts(css: str, webfonts: Path, extra: set[int] | frozenset[int] = frozenset()) -> str:
    """Cut the Font Awesome fonts (woff2, 25-160 KB each) down to the icons that ``css``
    (the theme's stylesheet, its unused icon rules removed) and ``extra`` (the code points
    the site's other stylesheets name: :func:`served_icon_codepoints`) use, as WOFF files
    made with fontTools (a dependency of matplotlib), and point the ``@font-face`` rules of
    ``css`` at them.  Without fontTools the CSS is returned unchanged."""
    try:
        from fontTools import subset
    except ImportError:
        return css
    codes = icon_codepoints(css) | set(extra)
    codes |= {ord(ch) for ch in "0123456789"}

    def repl(m: re.Match) -> str:
        stem = m.group(2)
        ttf = webfonts / f"{stem}.ttf"
        if not ttf.is_file():
            return m.group(0)
        out = webfonts / f"{stem}.subset.woff"
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = ["*"]
        options.notdef_outline = True
        font = subset.load_font(str(ttf), options)
        sub = subset.Subsetter(options)
        sub.populate(unicodes=codes)
        sub.subset(font)
        subset.save_font(font, str(out), options)
        font.close()
        return (f'src:url({m.group(1)}.subset.woff) format("woff"),'
                f'url({m.group(1)}.ttf) format("truetype")')
    return _FONT_SRC.sub(repl, css)


def _purge_theme_icons(outdir: Path) -> None:
    css_file = outdir / "_static" / "styles" / "pydata-sphinx-theme.css"
    if not css_file.is_file():
        return
    used: set[str] = set()
    token = re.compile(r"fa-([a-z0-9-]+)")
    for f in outdir.rglob("*"):
        if f.suffix in (".html", ".js") and f.name != "fontawesome.js" and f.is_file():
            used.update(token.findall(f.read_text(encoding="utf-8", errors="replace")))
    css = css_file.read_text(encoding="utf-8")
    new = purge_icon_rules(css, used)
    if new != css:
        css_file.write_text(new, encoding="utf-8")
    # every stylesheet served, this one without the purged rules: the glyphs of the
    # admonition, proof and exercise titles are named in variables and other files
    extra = served_icon_codepoints(outdir)
    final = subset_icon_fonts(new, outdir / "_static" / "vendor" / "fontawesome" / "webfonts", extra)
    if final != new:
        css_file.write_text(final, encoding="utf-8")


#: The theme's scroll-box check (pydata-sphinx-theme 0.15-0.17, minified).
_THEME_TABSTOP = "e.tabIndex=e.scrollWidth>e.clientWidth||e.scrollHeight>e.clientHeight?0:-1"
_LAZY_TABSTOP = f"(window.seqrmtWatchScrollable?window.seqrmtWatchScrollable(e):{_THEME_TABSTOP})"


def lazy_theme_tabstops(js: str) -> str | None:
    """The theme script with its scroll-box check routed to ``seqrmtWatchScrollable``
    (unchanged if already done); ``None`` if the theme's code is not recognised."""
    if "seqrmtWatchScrollable" in js:
        return js
    if js.count(_THEME_TABSTOP) != 1:
        return None
    return js.replace(_THEME_TABSTOP, _LAZY_TABSTOP)


def _patch_theme_script(outdir: Path) -> None:
    js_file = outdir / "_static" / "scripts" / "pydata-sphinx-theme.js"
    if not js_file.is_file():
        return
    js = js_file.read_text(encoding="utf-8")
    new = lazy_theme_tabstops(js)
    if new is None:
        from sphinx.util import logging
        logging.getLogger(__name__).warning(
            "seqrmt_site: the theme's scroll-box tab-stop code was not found in "
            "pydata-sphinx-theme.js (theme upgraded?): update _THEME_TABSTOP")
        return
    if new != js:
        js_file.write_text(new, encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    # Run after the other extensions (myst-nb adds the widget scripts at priority 500).
    app.connect("html-page-context", _page_context, priority=900)
    app.connect("build-finished", _build_finished)
    app.add_css_file("seqrmt/site.css", priority=900)
    app.add_js_file("seqrmt/site.js", priority=900, defer="defer")
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
