"""What the theme hard-codes and neither a template nor a Sphinx event can change: kept
here, in one module, each with the check that notices when the theme changes.

* **Icons.** pydata-sphinx-theme's stylesheet (``_static/styles/pydata-sphinx-theme.css``,
  render-blocking) carries the Font Awesome rules of 1,900 icons (~85 KB) and names its
  icon fonts (woff2, 300 KB in all).  At the end of the build (``build-finished``) this
  module writes a copy of it, :data:`THEME_CSS`, without the icon rules that no page or
  script of the site names (the stylesheet parsed by tinycss2, every other rule kept as written), and with the fonts cut down to the glyphs any served stylesheet
  still names (``*.subset.woff``, with fontTools): the remaining icon rules, the theme's
  icon variables (admonition and proof titles) and the other extensions' CSS
  (sphinx-exercise).  ``_templates/layout.html`` links that copy instead of the theme's
  file (block ``css``); the theme's own files are not changed.
* **Rules for what the site does not have.** Most of that stylesheet is Bootstrap's and the
  theme's rules for components no page has (311 KB, 46 KB compressed, before every first
  paint).  The copy also drops every selector that needs a class name or an id that no page
  and no script of the site contains as a word (:func:`purge_unmatched_rules`; a class a
  script adds is named in it, so it stays, and the two Bootstrap builds from parts are
  listed, :data:`BUILT_CLASSES`, checked by :func:`scripts_build_only_known_classes`):
  112 KB, 20 KB compressed.
* **Template files among the static ones.** The themes keep Jinja macro files in their static
  folders (:data:`THEME_TEMPLATE_COPIES`), which Sphinx copies into the site as ``.html`` files
  whose links are unrendered ``{{ pathto(...) }}``: removed at the end of the build.
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

import importlib.util
import string
from collections.abc import Iterable
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
#: Jinja macro files the themes keep in their static folders (their templates import them from the
#: theme, not from the site), which Sphinx copies into ``_static/`` with the rest: not pages, and
#: their ``{{ pathto(...) }}`` links lead nowhere.  Removed from the built site.
THEME_TEMPLATE_COPIES = ("_static/webpack-macros.html", "_static/sbt-webpack-macros.html")


def theme_asks_for_scroll_boxes(js: str) -> bool:
    """Whether the theme's script queries exactly :data:`THEME_SCROLL_BOXES` (as a joined list)."""
    listed = "[" + ",".join(f'"{s}"' for s in THEME_SCROLL_BOXES.split(", ")) + '].join(", ")'
    return listed in js


#: The folder of the icon fonts, as the theme's stylesheet names it.
_WEBFONTS = "../vendor/fontawesome/webfonts/"


def _normalized(css: str) -> str:
    """The text as tinycss2 reads it (its positions count in this text)."""
    return css.replace("\0", "\ufffd").replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")


def _offsets(css: str) -> list[int]:
    starts, at = [0], css.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = css.find("\n", at + 1)
    return starts


def _spans(css: str, nodes: list, end: int | None = None) -> list[tuple[Any, int, int]]:
    """Each node of a parsed stylesheet (or of a block ending at ``end``) with its span of the
    source text (from its first character to the next node's), so that a stylesheet can be
    edited rule by rule and written back with every untouched rule as it was."""
    lines = _offsets(css)
    starts = [lines[n.source_line - 1] + n.source_column - 1 for n in nodes] + [len(css) if end is None else end]
    return [(n, starts[i], starts[i + 1]) for i, n in enumerate(nodes)]


def _parse(css: str) -> list[tuple[Any, int, int]]:
    import tinycss2

    return _spans(css, tinycss2.parse_stylesheet(css, skip_comments=False, skip_whitespace=False))


def _significant(tokens: list) -> list:
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


def _icon_rule_names(rule: Any) -> list[str] | None:
    """The icon names of a Font Awesome rule ``.fa-NAME:before,.fa-OTHER::after{content:...}``
    (only a ``content`` declaration), or None for any other rule."""
    import tinycss2

    if rule.type != "qualified-rule":
        return None
    declarations = [d for d in tinycss2.parse_blocks_contents(rule.content, True, True) if d.type != "error"]
    if [d.lower_name for d in declarations] != ["content"]:
        return None
    names, selector = [], []
    for token in _significant(rule.prelude) + [None]:
        if token is not None and not (token.type == "literal" and token.value == ","):
            selector.append(token)
            continue
        kinds = [(t.type, getattr(t, "value", None)) for t in selector]
        if (
            len(selector) in (4, 5)
            and kinds[0] == ("literal", ".")
            and kinds[1][0] == "ident"
            and kinds[1][1].startswith("fa-")
            and all(k == ("literal", ":") for k in kinds[2:-1])
            and kinds[-1] in (("ident", "before"), ("ident", "after"))
        ):
            names.append(kinds[1][1][3:])
        else:
            return None
        selector = []
    return names


def purge_icon_rules(css: str, used: set[str]) -> str:
    """Drop the Font Awesome ``.fa-NAME:before{content:...}`` rules of icons not in ``used``
    (the stylesheet parsed by tinycss2; every other rule is kept as written)."""
    css = _normalized(css)
    kept = []
    for node, start, end in _parse(css):
        names = _icon_rule_names(node)
        if names is None or any(n in used for n in names):
            kept.append(css[start:end])
    return "".join(kept)


#: Class names the theme's scripts build from parts, not named whole in any file: Bootstrap's
#: tooltips and popovers (``classList.add(`bs-${this.constructor.NAME}-auto`)``).
BUILT_CLASSES = frozenset({"bs-tooltip-auto", "bs-popover-auto"})
_BUILT = "classList.add(`bs-${this.constructor.NAME}-auto`)"
#: The theme's scripts, read for :func:`scripts_build_only_known_classes`.
THEME_SCRIPTS = ("_static/scripts/bootstrap.js", THEME_SCRIPT)


def scripts_build_only_known_classes(js: str) -> bool:
    """Whether every class name a script builds from parts (a template literal given to
    ``classList.add``/``toggle`` or to ``className``) is one of :data:`BUILT_CLASSES`."""
    built = sum(js.count(call) for call in ("classList.add(`", "classList.toggle(`", "className=`", "className = `"))
    return built == js.count(_BUILT)


def words(text: str) -> set[str]:
    """Every maximal run of ``[A-Za-z0-9_-]`` in ``text``: the class names and ids a page or a
    script could give an element, and more (a superset is safe for :func:`purge_unmatched_rules`)."""
    import re

    return set(re.findall(r"[A-Za-z0-9_-]+", text))


def _required_names(selector: list) -> set[str]:
    """The class names and ids a compound selector (its tokens) needs on some element: those
    outside any function (``:not(.x)``, ``:is(.a, .b)`` need nothing for sure)."""
    needed: set[str] = set()
    for i, token in enumerate(selector):
        if token.type == "hash" and token.is_identifier:
            needed.add(token.value)
        elif (
            token.type == "literal" and token.value == "." and i + 1 < len(selector) and selector[i + 1].type == "ident"
        ):
            needed.add(selector[i + 1].value)
    return needed


def _kept_selectors(prelude: list, present: set[str]) -> str | None:
    """The selectors of a rule's list that can match an element of the site (each of their
    class names and ids is among ``present``), joined as written; None for none, the rule's
    text unchanged (``""``) when all can."""
    import tinycss2

    groups: list[list] = [[]]
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            groups.append([])
        else:
            groups[-1].append(token)
    kept = [g for g in groups if _required_names(_significant(g)) <= present]
    if len(kept) == len(groups):
        return ""
    return ",".join(tinycss2.serialize(g).strip() for g in kept) if kept else None


def _purged(css: str, nodes: list, present: set[str]) -> str:
    """The nodes of ``css`` (with their spans) without the selectors that match nothing; a
    ``@media`` or ``@supports`` block purged inside, and dropped when no rule is left in it."""
    import tinycss2

    out = []
    for node, start, end in nodes:
        text = css[start:end]
        if node.type == "qualified-rule":
            selectors = _kept_selectors(node.prelude, present)
            if selectors is None:
                continue
            if selectors:
                text = selectors + text[text.index("{") :]
        elif node.type == "at-rule" and node.content is not None and node.lower_at_keyword in ("media", "supports"):
            close = css.rindex("}", start, end)
            inner = tinycss2.parse_rule_list(node.content, skip_comments=False, skip_whitespace=False)
            body = _purged(css, _spans(css, inner, close), present)
            if "{" not in body:
                continue
            text = css[start : css.index("{", start) + 1] + body + css[close:end]
        out.append(text)
    return "".join(out)


def purge_unmatched_rules(css: str, present: set[str]) -> str:
    """Drop from ``css`` every selector that needs a class name or an id (outside a function)
    that is not in ``present`` (the words of every page and script of the site, :func:`words`);
    a rule left with no selector goes, and so does an emptied ``@media`` block.  What is kept is
    written as it was (the stylesheet parsed by tinycss2)."""
    css = _normalized(css)
    return _purged(css, _parse(css), present)


def _private_use(code: int) -> bool:
    return 0xE000 <= code <= 0xF8FF or 0xF0000 <= code <= 0x10FFFD


def _token_texts(nodes: list) -> Any:
    """The values of every token of parsed CSS (strings and names with their escapes read), nested blocks included."""
    for node in nodes or ():
        value = getattr(node, "value", None)
        if isinstance(value, str):
            yield value
        for part in ("prelude", "content", "arguments"):
            inner = getattr(node, part, None)
            if isinstance(inner, list):
                yield from _token_texts(inner)


def icon_codepoints(css: str) -> set[int]:
    """The private-use code points (icon-font glyphs) a stylesheet names anywhere: as CSS
    escapes (``content: "\\f303"`` in sphinx-exercise's CSS) or as the characters themselves
    (the theme writes ``--pst-icon-bell`` as the character U+F0F3 itself: the icon of
    sphinx-proof's boxes).  The stylesheet is read by tinycss2, which reads the escapes."""
    import tinycss2

    nodes = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    return {ord(ch) for text in _token_texts(nodes) for ch in text if _private_use(ord(ch))}


def served_icon_codepoints(outdir: Path, skip: tuple[str, ...] = ()) -> set[int]:
    """Private-use code points named by any stylesheet (``.css`` file) of a built site but
    those in ``skip`` (paths relative to ``outdir``) and those of the other editions placed beside
    its pages (their own sites, with their own fonts): the theme's, the extensions'
    (sphinx-proof, sphinx-exercise, ...) and the vendored ones.  The pages' bundles
    (:mod:`seqrmt_book.bundles`) are copies of these files, the skipped ones among them: not read."""
    from .bundles import BUNDLE_DIR
    from .products import EDITION_FOLDERS  # the other editions beside the pages: sites of their own

    codes: set[int] = set()
    skipped = {outdir / s for s in skip}
    for f in outdir.rglob("*.css"):
        rel = f.relative_to(outdir)
        if rel.parts[0] in EDITION_FOLDERS or rel.as_posix().startswith(BUNDLE_DIR + "/"):
            continue
        if f.is_file() and f not in skipped:
            codes |= icon_codepoints(f.read_text(encoding="utf-8", errors="replace"))
    return codes


def write_font_subset(source: Path, out: Path, codes: Iterable[int]) -> int:
    """Write to ``out`` a WOFF file of the font ``source`` (TrueType, OpenType or WOFF) holding only
    the glyphs of the code points ``codes`` (and what they need: ligatures, composites, ``.notdef``),
    made with fontTools' subsetter (fontTools is a dependency of matplotlib), hinting kept (the
    glyphs are drawn pixel for pixel as from the whole font).  Returns the size of the file
    written, in bytes."""
    from fontTools import subset

    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]  # FontForge's timestamps, which the subsetter does not know
    font = subset.load_font(str(source), options)
    try:
        sub = subset.Subsetter(options)
        sub.populate(unicodes=sorted(set(codes)))
        sub.subset(font)
        subset.save_font(font, str(out), options)
    finally:
        font.close()
    return out.stat().st_size


def subset_icon_fonts(css: str, webfonts: Path, extra: set[int] | frozenset[int] = frozenset()) -> str:
    """Cut the Font Awesome fonts (woff2, 25-160 KB each) down to the icons that ``css``
    (the theme's stylesheet, its unused icon rules removed) and ``extra`` (the code points
    the site's other stylesheets name: :func:`served_icon_codepoints`) use, as WOFF files
    made with fontTools (a dependency of matplotlib), and point the ``@font-face`` rules of
    ``css`` at them.  Without fontTools the CSS is returned unchanged."""
    if importlib.util.find_spec("fontTools") is None:
        return css
    codes = icon_codepoints(css) | set(extra)
    codes |= {ord(ch) for ch in "0123456789"}

    def make_subset(stem: str) -> bool:
        ttf = webfonts / f"{stem}.ttf"
        if not ttf.is_file():
            return False
        write_font_subset(ttf, webfonts / f"{stem}.subset.woff", codes)
        return True

    css = _normalized(css)
    parts = []
    for node, start, end in _parse(css):
        text = css[start:end]
        src = (
            _font_src(css, node, start, end)
            if node.type == "at-rule" and node.lower_at_keyword == "font-face"
            else None
        )
        if src is not None and make_subset(src[2]):
            url = _WEBFONTS + src[2]
            text = (
                css[start : src[0]]
                + f'src:url({url}.subset.woff) format("woff"),url({url}.ttf) format("truetype")'
                + css[src[1] : end]
            )
        parts.append(text)
    return "".join(parts)


def _font_src(css: str, rule: Any, start: int, end: int) -> tuple[int, int, str] | None:
    """Where the ``src`` declaration of an ``@font-face`` rule is in ``css`` (start, end) and
    the Font Awesome font it names (``fa-solid-900``), if it names its woff2 (or its subset)
    and then its ttf in the theme's font folder; else None."""
    if not rule.content:
        return None
    lines = _offsets(css)
    tokens = [t for t in rule.content if t.type != "comment"]
    segments, current = [], []
    for token in tokens + [None]:
        if token is None or (token.type == "literal" and token.value == ";"):
            segments.append((current, token))
            current = []
        else:
            current.append(token)
    for segment, stop in segments:
        words = _significant(segment)
        if not (words and words[0].type == "ident" and words[0].lower_value == "src"):
            continue
        urls = [t.value for t in words if t.type == "url"]
        stems = [u[len(_WEBFONTS) :] for u in urls if u.startswith(_WEBFONTS)]
        if len(stems) != 2 or len(urls) != 2:
            return None
        font, fallback = stems
        for suffix in (".woff2", ".subset.woff"):
            if font.endswith(suffix) and fallback == font.removesuffix(suffix) + ".ttf":
                stem = fallback.removesuffix(".ttf")
                break
        else:
            return None
        if not (stem.startswith("fa-") and stem.rsplit("-", 1)[-1].isdigit()):
            return None
        begin = lines[words[0].source_line - 1] + words[0].source_column - 1
        if stop is not None:
            finish = lines[stop.source_line - 1] + stop.source_column - 1
        else:  # the last declaration: up to the closing brace (and the spaces before it)
            finish = css.rindex("}", start, end)
            while css[finish - 1].isspace():
                finish -= 1
        return begin, finish, stem
    return None


#: The characters of an icon's name after ``fa-``.
_NAME_CHARS = frozenset(string.ascii_lowercase + string.digits + "-")


def icon_names(text: str) -> set[str]:
    """The icon names (``NAME`` of ``fa-NAME``) a text (a script, an attribute's value) names."""
    names, at = set(), text.find("fa-")
    while at != -1:
        end = at + 3
        while end < len(text) and text[end] in _NAME_CHARS:
            end += 1
        if end > at + 3:
            names.add(text[at + 3 : end])
        at = text.find("fa-", end if end > at + 3 else at + 3)
    return names


def icon_names_in_page(html: str) -> set[str]:
    """The icon names an HTML page names: in its elements' attributes (``class="fa-solid
    fa-bars"``), its scripts and its text (the page parsed by Python's HTML parser)."""
    from html.parser import HTMLParser

    class Names(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.names: set[str] = set()

        def handle_starttag(self, tag: str, attrs: list) -> None:
            for _, value in attrs:
                if value:
                    self.names |= icon_names(value)

        handle_startendtag = handle_starttag

        def handle_data(self, data: str) -> None:
            self.names |= icon_names(data)

    parser = Names()
    parser.feed(html)
    parser.close()
    return parser.names


def write_theme_css(outdir: Path) -> bool:
    """Write :data:`THEME_CSS` (see the module docstring) from the theme's stylesheet of a
    built site; False if the site has no such stylesheet."""
    source = outdir / THEME_SOURCE_CSS
    if not source.is_file():
        return False
    from .products import EDITION_FOLDERS  # the other editions beside the pages: sites of their own

    used: set[str] = set()
    present: set[str] = set()
    for f in outdir.rglob("*"):
        if f.relative_to(outdir).parts[0] in EDITION_FOLDERS:
            continue
        if f.suffix in (".html", ".js") and f.name != "fontawesome.js" and f.is_file():
            text = f.read_text(encoding="utf-8", errors="replace")
            used |= icon_names_in_page(text) if f.suffix == ".html" else icon_names(text)
            present |= words(text)
    css = purge_icon_rules(source.read_text(encoding="utf-8"), used)
    css = purge_unmatched_rules(css, present | BUILT_CLASSES)
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
    for name in THEME_TEMPLATE_COPIES:
        (outdir / name).unlink(missing_ok=True)
    if not write_theme_css(outdir):
        log.warning(f"seqrmt_book.theme: no {THEME_SOURCE_CSS} in the built site (theme changed?)")
    scripts = "".join(
        (outdir / name).read_text(encoding="utf-8") for name in THEME_SCRIPTS if (outdir / name).is_file()
    )
    if not scripts_build_only_known_classes(scripts):
        log.warning(
            "seqrmt_book.theme: the theme's scripts build a class name from parts that BUILT_CLASSES "
            "does not list (theme upgraded?): its rules would be dropped from the theme's stylesheet"
        )
    script = outdir / THEME_SCRIPT
    if not (script.is_file() and theme_asks_for_scroll_boxes(script.read_text(encoding="utf-8"))):
        log.warning(
            "seqrmt_book.theme: the theme's script no longer queries its scroll boxes as "
            "THEME_SCROLL_BOXES says (theme upgraded?): update it here and in static/seqrmt/site.js"
        )


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
