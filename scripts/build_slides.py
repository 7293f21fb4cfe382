#!/usr/bin/env python
"""Build the lecture slides: one reveal.js deck per chapter, offline.

Every ``slides/<deck>.ipynb`` is a slides notebook: its cells carry the usual
``slideshow.slide_type`` metadata (``slide``, ``subslide``, ``fragment``, ``-``,
``skip``, ``notes``) and its figures and numbers come from the same ``seqrmt`` /
``seqrmt.plots`` calls as the chapter it summarizes (``tests/test_slide_decks.py`` checks
that each figure call of a deck appears verbatim in its chapter), so slides and book
cannot disagree.

The script executes each deck (nbclient, working directory ``slides/``) and writes

* ``_build/html/slides/<deck>.html``: a reveal.js deck; figures are embedded as PNG
  data URIs with their alt text, math is typeset by MathJax 3;
* ``_build/html/slides/index.html``: the list of decks;
* ``_build/html/slides/_vendor/``: reveal.js and MathJax, copied from the vendored
  ``site_assets/static/seqrmt/vendor/`` (npm packages, see ``scripts/vendor_assets.sh``),
  so that the decks load nothing from a CDN and work offline, from ``file://`` too.

Code cells are hidden on the slides unless tagged ``show-input``; their outputs are
shown (``image/png``, ``text/markdown``, ``text/plain`` and streams; widget views are
never shown).  A figure's alt text is the ``alt`` entry of the output's ``image/png``
metadata, which the display hook of ``seqrmt.plots`` writes from the figure's own
alt text (``set_alt``); a figure without one stops the build.

Usage::

    python scripts/build_slides.py            # every deck
    python scripts/build_slides.py 03_bbp     # some decks (the index lists all built decks)
"""
from __future__ import annotations

import argparse
import base64
import html
import json
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
SLIDES_SRC = ROOT / "slides"
OUT = ROOT / "_build" / "html" / "slides"
VENDOR = ROOT / "site_assets" / "static" / "seqrmt" / "vendor"
#: Deck execution timeout per cell (s); each deck is meant to run in well under 20 s.
TIMEOUT = 300

SLIDE_TYPES = {"slide", "subslide", "fragment", "-", "skip", "notes"}


# ------------------------------------------------------------------ markdown
def _math_renderer(self, tokens, idx, options, env):  # noqa: ARG001
    tok = tokens[idx]
    content = html.escape(tok.content.strip(), quote=False)
    if tok.type == "math_inline":
        return f'<span class="math">\\({content}\\)</span>'
    return f'<div class="math">\\[{content}\\]</div>\n'


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    md.use(dollarmath_plugin, double_inline=True)
    for rule in ("math_inline", "math_block", "math_inline_double", "math_block_label"):
        md.add_render_rule(rule, _math_renderer)
    return md


MD = _markdown()


def render_markdown(text: str) -> str:
    return MD.render(text)


# ------------------------------------------------------------------ cells -> slides
def slide_type(cell) -> str:
    kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type", "-")
    if kind not in SLIDE_TYPES:
        raise ValueError(f"unknown slide_type {kind!r}")
    return kind


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def render_outputs(cell, deck: str, index: int) -> str:
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            if out.get("name") == "stderr":
                continue
            parts.append(f'<pre class="output">{html.escape(_text(out["text"]))}</pre>')
        elif kind in ("display_data", "execute_result"):
            data = out.get("data", {})
            if "image/png" in data:
                meta = out.get("metadata", {}).get("image/png", {})
                alt = meta.get("alt") if isinstance(meta, dict) else None
                if not alt:
                    raise ValueError(f"{deck}: cell {index} shows a figure without alt text "
                                     "(give the plot function an alt text with set_alt)")
                png = _text(data["image/png"]).replace("\n", "")
                size = ""
                if isinstance(meta, dict) and meta.get("seqrmt_width"):
                    # a 2x PNG: show it at its CSS size (scaled down by max-width/height)
                    size = f' width="{int(meta["seqrmt_width"])}" height="{int(meta["seqrmt_height"])}"'
                parts.append(f'<img class="figure" alt="{html.escape(alt)}"{size} '
                             f'src="data:image/png;base64,{png}">')
            elif "text/markdown" in data:
                parts.append(f'<div class="output-md">{render_markdown(_text(data["text/markdown"]))}</div>')
            elif "application/vnd.jupyter.widget-view+json" in data:
                continue
            elif "text/plain" in data:
                parts.append(f'<pre class="output">{html.escape(_text(data["text/plain"]))}</pre>')
        elif kind == "error":
            raise RuntimeError(f"{deck}: cell {index} raised {out.get('ename')}: {out.get('evalue')}")
    return "\n".join(parts)


def render_cell(cell, deck: str, index: int) -> str:
    if cell["cell_type"] == "markdown":
        return render_markdown(_text(cell["source"]))
    if cell["cell_type"] != "code":
        return ""
    body = ""
    if "show-input" in cell.get("metadata", {}).get("tags", []):
        body += f'<pre class="code"><code>{html.escape(_text(cell["source"]))}</code></pre>\n'
    return body + render_outputs(cell, deck, index)


def deck_slides(nb, deck: str) -> list[str]:
    """The ``<section>`` of every slide of an executed notebook."""
    slides: list[list[str]] = []
    for i, cell in enumerate(nb.cells):
        kind = slide_type(cell)
        if kind == "skip":
            continue
        content = render_cell(cell, deck, i)
        if kind in ("slide", "subslide") or not slides:
            slides.append([])
        if kind == "notes":
            content = f'<aside class="notes">{content}</aside>'
        elif kind == "fragment":
            content = f'<div class="fragment">{content}</div>'
        if content.strip():
            slides[-1].append(content)
    return ["<section>\n" + "\n".join(s) + "\n</section>" for s in slides if s]


def deck_title(nb, deck: str) -> str:
    for cell in nb.cells:
        if cell["cell_type"] == "markdown":
            m = re.search(r"^#\s+(.+)$", _text(cell["source"]), re.M)
            if m:
                return m.group(1).strip()
    return deck


STYLE = """
.reveal { font-size: 30px; }
.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }
.reveal h1 { font-size: 1.9em; } .reveal h2 { font-size: 1.35em; } .reveal h3 { font-size: 1.1em; }
.reveal .slides section { text-align: left; }
.reveal .slides section h1, .reveal .slides section h2 { text-align: left; }
.reveal img.figure { display: block; margin: 0.3em auto; max-width: 100%; max-height: 560px;
  width: auto; height: auto; object-fit: contain; border: 0; box-shadow: none; }
.reveal pre.output, .reveal pre.code { font-size: 0.55em; width: 100%; box-shadow: none;
  background: #f6f6f6; padding: 0.4em; white-space: pre-wrap; }
.reveal ul, .reveal ol { display: block; margin-left: 1em; }
.reveal table { font-size: 0.8em; margin: 0.4em 0; }
.reveal .small { font-size: 0.75em; }
.reveal a { color: #1d5fa8; }
.reveal .slide-number { font-size: 16px; }
"""

MATHJAX_CONFIG = r"""
window.MathJax = {
  tex: {inlineMath: [['\\(', '\\)']], displayMath: [['\\[', '\\]']], processEscapes: true},
  options: {menuOptions: {settings: {inTabOrder: false}}},
  chtml: {fontURL: '_vendor/mathjax/output/chtml/fonts/woff-v2'}
};
"""

DECK_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} (slides)</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="_vendor/reveal/reveal.css">
<link rel="stylesheet" href="_vendor/reveal/theme/white.css">
<style>{style}</style>
<script>{mathjax_config}</script>
<script defer src="_vendor/mathjax/tex-mml-chtml.js"></script>
</head>
<body>
<div class="reveal"><div class="slides">
{slides}
</div></div>
<script src="_vendor/reveal/reveal.js"></script>
<script>
Reveal.initialize({{hash: true, slideNumber: 'c/t', width: 1280, height: 800, margin: 0.04,
                    transition: 'none', center: false}});
</script>
</body>
</html>
"""

INDEX_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lecture slides: How does attention help?</title>
<link rel="icon" href="data:,">
<style>
body {{ font-family: sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em; line-height: 1.5; }}
a {{ color: #1d5fa8; }}
</style>
</head>
<body>
<main>
<h1>Lecture slides</h1>
<p>One reveal.js deck per chapter of the book <a href="../book/intro.html">How does attention help?
A random-matrix textbook</a>. Every figure and number is computed by the same <code>seqrmt</code>
functions as the chapter. Navigate with the arrow keys; press <kbd>Esc</kbd> for an overview.</p>
<ul>
{items}
</ul>
</main>
</body>
</html>
"""


def copy_vendor() -> None:
    dest = OUT / "_vendor"
    for name in ("reveal", "mathjax"):
        target = dest / name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(VENDOR / name, target)


def build_deck(path: Path) -> tuple[str, int, float]:
    deck = path.stem
    t0 = time.perf_counter()
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - t0
    title = deck_title(nb, deck)
    slides = deck_slides(nb, deck)
    page = DECK_TEMPLATE.format(title=html.escape(title), style=STYLE,
                                mathjax_config=MATHJAX_CONFIG, slides="\n".join(slides))
    (OUT / f"{deck}.html").write_text(page, encoding="utf-8")
    return title, len(slides), seconds


def write_index() -> None:
    items = []
    for page in sorted(OUT.glob("[0-9]*.html")):
        m = re.search(r"<title>(.*) \(slides\)</title>", page.read_text(encoding="utf-8"))
        title = m.group(1) if m else page.stem
        items.append(f'<li><a href="{page.name}">{title}</a></li>')
    (OUT / "index.html").write_text(INDEX_TEMPLATE.format(items="\n".join(items)), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("decks", nargs="*", help="deck names (default: every slides/*.ipynb)")
    args = parser.parse_args(argv)
    paths = sorted(SLIDES_SRC.glob("[0-9]*.ipynb"))
    if args.decks:
        wanted = {Path(d).stem for d in args.decks}
        paths = [p for p in paths if p.stem in wanted]
        missing = wanted - {p.stem for p in paths}
        if missing:
            parser.error(f"no such deck: {', '.join(sorted(missing))}")
    OUT.mkdir(parents=True, exist_ok=True)
    copy_vendor()
    stamp = OUT / "build.json"
    summary = json.loads(stamp.read_text(encoding="utf-8")) if stamp.exists() and args.decks else {}
    failed = []
    for path in paths:
        try:
            title, n, seconds = build_deck(path)
        except Exception as err:  # report every failing deck, then fail
            failed.append(path.stem)
            summary.pop(path.stem, None)
            print(f"{path.stem}: FAILED\n{err}", file=sys.stderr, flush=True)
            continue
        summary[path.stem] = {"title": title, "slides": n, "seconds": round(seconds, 1)}
        print(f"{path.stem}: {n} slides, executed in {seconds:.1f} s", flush=True)
    write_index()
    if failed:
        print(f"failed decks: {', '.join(failed)}", file=sys.stderr)
        return 1
    stamp.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
