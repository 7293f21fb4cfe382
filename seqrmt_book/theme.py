"""What the theme hard-codes and neither a template nor a Sphinx event can change: kept
here, in one module, each with the check that notices when the theme changes.

* **Icons.** pydata-sphinx-theme's stylesheet (``_static/styles/pydata-sphinx-theme.css``,
  render-blocking) carries the Font Awesome rules of 1,900 icons (~85 KB) and names its
  icon fonts (woff2, 300 KB in all).  At the end of the build (``build-finished``) this
  module writes a copy of it, :data:`THEME_CSS`, without the icon rules that no page or
  script of the site names, and with the fonts cut down to the glyphs any served stylesheet
  still names (``*.subset.woff``, with fontTools): the remaining icon rules, the theme's
  icon variables (admonition and proof titles) and the other extensions' CSS
  (sphinx-exercise).  ``_templates/layout.html`` links that copy instead of the theme's
  file (block ``css``); the theme's own files are not changed.
* **Scroll-box tab stops.** The theme's script makes code cells, outputs and tables tab
  stops by reading the size of every one of them at load, on every resize and on every
  change of the page, which lays out the whole page each time (seconds on a phone, and
  it defeats ``content-visibility``).  Its script is not changed: ``static/seqrmt/site.js``
  answers the theme's one query (:data:`THEME_SCROLL_BOXES`, the exact selector list) by
  handing the boxes to its own check, which reads each box once it is laid out (a
  ``ResizeObserver``).  :func:`theme_asks_for_scroll_boxes` checks that the installed
  theme still asks exactly that; the build warns (an error under ``-W``) if not.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: The theme's stylesheet as Sphinx copies it, and the copy the pages link (relative to the output folder).
THEME_SOURCE_CSS = "_static/styles/pydata-sphinx-theme.css"
THEME_CSS = "_static/seqrmt/pydata-sphinx-theme.css"
#: The theme's query of scroll boxes (pydata-sphinx-theme 0.15-0.17), answered by static/seqrmt/site.js.
THEME_SCROLL_BOXES = (
    "pre, .nboutput > .output_area, .cell_output > .output, .jp-RenderedHTMLCommon, .pst-scrollable-table-container"
)
THEME_SCRIPT = "_static/scripts/pydata-sphinx-theme.js"


def theme_asks_for_scroll_boxes(js: str) -> bool:
    """Whether the theme's script queries exactly :data:`THEME_SCROLL_BOXES` (as a joined list)."""
    listed = "[" + ",".join(f'"{s}"' for s in THEME_SCROLL_BOXES.split(", ")) + '].join(", ")'
    return listed in js


_FA_RULE = re.compile(r"((?:\.fa-[a-z0-9-]+:{1,2}(?:before|after),?)+)\{content:[^}]*\}")
_FA_NAME = re.compile(r"\.fa-([a-z0-9-]+):")


def purge_icon_rules(css: str, used: set[str]) -> str:
    """Drop the Font Awesome ``.fa-NAME:before{content:...}`` rules of icons not in ``used``."""

    def keep(m: re.Match) -> str:
        return m.group(0) if any(n in used for n in _FA_NAME.findall(m.group(1))) else ""

    return _FA_RULE.sub(keep, css)


_FONT_SRC = re.compile(
    r'src:url\((\.\./vendor/fontawesome/webfonts/(fa-[a-z]+-[0-9]+))\.(?:woff2|subset\.woff)\) format\("woff2?"\),'
    r'url\(\1\.ttf\) format\("truetype"\)'
)
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


def served_icon_codepoints(outdir: Path, skip: tuple[str, ...] = ()) -> set[int]:
    """Private-use code points named by any stylesheet (``.css`` file) of a built site but
    those in ``skip`` (paths relative to ``outdir``): the theme's, the extensions'
    (sphinx-proof, sphinx-exercise, ...) and the vendored ones."""
    codes: set[int] = set()
    skipped = {outdir / s for s in skip}
    for f in outdir.rglob("*.css"):
        if f.is_file() and f not in skipped:
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
        return f'src:url({m.group(1)}.subset.woff) format("woff"),url({m.group(1)}.ttf) format("truetype")'

    return _FONT_SRC.sub(repl, css)


def write_theme_css(outdir: Path) -> bool:
    """Write :data:`THEME_CSS` (see the module docstring) from the theme's stylesheet of a
    built site; False if the site has no such stylesheet."""
    source = outdir / THEME_SOURCE_CSS
    if not source.is_file():
        return False
    used: set[str] = set()
    token = re.compile(r"fa-([a-z0-9-]+)")
    for f in outdir.rglob("*"):
        if f.suffix in (".html", ".js") and f.name != "fontawesome.js" and f.is_file():
            used.update(token.findall(f.read_text(encoding="utf-8", errors="replace")))
    css = purge_icon_rules(source.read_text(encoding="utf-8"), used)
    # every stylesheet served besides this one: the glyphs of the admonition, proof and
    # exercise titles are named in variables and other files
    extra = served_icon_codepoints(outdir, skip=(THEME_SOURCE_CSS, THEME_CSS))
    css = subset_icon_fonts(css, outdir / "_static" / "vendor" / "fontawesome" / "webfonts", extra)
    target = outdir / THEME_CSS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(css, encoding="utf-8")
    return True


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    outdir = Path(app.outdir)
    if not write_theme_css(outdir):
        log.warning(f"seqrmt_book.theme: no {THEME_SOURCE_CSS} in the built site (theme changed?)")
    script = outdir / THEME_SCRIPT
    if not (script.is_file() and theme_asks_for_scroll_boxes(script.read_text(encoding="utf-8"))):
        log.warning(
            "seqrmt_book.theme: the theme's script no longer queries its scroll boxes as "
            "THEME_SCROLL_BOXES says (theme upgraded?): update it here and in static/seqrmt/site.js"
        )


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
