#!/usr/bin/env python
"""Build the lecture slides: one reveal.js deck per chapter, offline.

Every ``slides/<deck>.ipynb`` is a slides notebook: its cells carry the usual
``slideshow.slide_type`` metadata (``slide``, ``subslide``, ``fragment``, ``-``,
``skip``, ``notes``) and its figures and numbers come from the same ``seqrmt`` /
``seqrmt.plots`` calls as the chapter it summarizes (``tests/test_slide_decks.py`` checks
that each figure call of a deck appears verbatim in its chapter), so slides and book
cannot disagree.

The script executes each deck (nbclient, working directory ``slides/``), or takes its
outputs from the book's execution cache (jupyter-cache in ``_build/.jupyter_cache``, with the
dependency keys of ``seqrmt_book/cache.py``: a deck is executed again when its code,
``requirements.txt`` or a module of ``seqrmt`` that it ran changed, and an edit of its text only
re-renders it), and
writes

* ``_build/html/slides/<deck>.html``: a reveal.js deck; figures are embedded as PNG
  data URIs with their alt text, math is typeset by MathJax 3;
* ``_build/html/slides/index.html``: the list of decks;
* ``_build/html/slides/_vendor/``: reveal.js and MathJax, copied from the vendored
  ``seqrmt_book/static/seqrmt/vendor/`` (npm packages, see ``scripts/vendor_assets.sh``),
  so that the decks load nothing from a CDN and work offline, from ``file://`` too.

Every slide has speaker notes: a markdown cell with ``slide_type: notes`` becomes an
``<aside class="notes">`` of its slide (hidden; ``<deck>.html?notes`` shows them under the
slides, for a teacher preparing the lecture or printing it).

Code cells are hidden on the slides unless tagged ``show-input``; their outputs are
shown (``image/png``, ``text/markdown``, ``text/plain`` and streams; widget views are
never shown).  A figure's alt text is the ``alt`` entry of the output's ``image/png``
metadata, which the display hook of ``seqrmt.plots`` writes from the figure's own
alt text (``set_alt``); a figure without one stops the build.

Why a deck does not take its outputs from its chapter's cells: a cell's output depends on
everything the cells before it did in the kernel, and a deck runs its figure calls after its
own, shorter set-up (other sizes, fewer variables), so a cell that reads the same in the deck
and in the chapter does not in general produce the same output.  jupyter-cache matches whole
notebooks for that reason; a deck is therefore cached as a notebook of its own (executed once,
then reused until its code or its dependencies change).  ``--no-cache`` executes every deck.

Usage::

    python scripts/build_slides.py            # every deck
    python scripts/build_slides.py 03_bbp     # some decks (the index lists all built decks)
    python scripts/build_slides.py --no-cache # execute every deck, whatever the cache holds
"""

from __future__ import annotations

import argparse
import functools
import html
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from nbclient import NotebookClient

from seqrmt_book import cache as seqrmt_cache  # the dependency keys of the book's notebooks

ROOT = Path(__file__).resolve().parents[1]
SLIDES_SRC = ROOT / "slides"
OUT = ROOT / "_build" / "html" / "slides"
VENDOR = ROOT / "seqrmt_book" / "static" / "seqrmt" / "vendor"
#: Deck execution timeout per cell (s); each deck is meant to run in well under 20 s.
TIMEOUT = 300
#: The book's execution cache (myst-nb's default place for it: next to the HTML output).
CACHE = ROOT / "_build" / ".jupyter_cache"

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
                    raise ValueError(
                        f"{deck}: cell {index} shows a figure without alt text "
                        "(give the plot function an alt text with set_alt)"
                    )
                png = _text(data["image/png"]).replace("\n", "")
                size = ""
                if isinstance(meta, dict) and meta.get("seqrmt_width"):
                    # a 2x PNG: show it at its CSS size (scaled down by max-width/height)
                    size = f' width="{int(meta["seqrmt_width"])}" height="{int(meta["seqrmt_height"])}"'
                parts.append(f'<img class="figure" alt="{html.escape(alt)}"{size} src="data:image/png;base64,{png}">')
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
// Speaker notes (<aside class="notes">) stay hidden; deck.html?notes shows them under each slide.
Reveal.initialize({{hash: true, slideNumber: 'c/t', width: 1280, height: 800, margin: 0.04,
                    transition: 'none', center: false,
                    showNotes: /[?&]notes(=|&|$)/.test(window.location.search)}});
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


@functools.cache
def _dependencies() -> tuple[str, list[Path]]:
    """The common hash and the package folders of the decks' keys, computed once per run."""
    return seqrmt_cache.configured_dependencies(ROOT)


def dependency_key(path: Path) -> str | None:
    """The key of the deck's recorded execution if what it used is unchanged, else ``None`` (its
    cache entries are then dropped), with the book's settings (``_config.yml``)."""
    keys, _ = seqrmt_cache.current_keys(CACHE, [str(path)], ROOT, _dependencies()[0])
    return keys[str(path)]


def execute(path: Path, use_cache: bool = True) -> tuple[nbformat.NotebookNode, str]:
    """The executed deck and where its outputs come from (``executed`` or ``cache``)."""
    nb = nbformat.read(path, as_version=4)
    if use_cache:
        from jupyter_cache import get_cache
        from jupyter_cache.base import CacheBundleIn

        dependency_key(path)  # drops the entries of the deck made with other dependencies
        cache = get_cache(str(CACHE))
        try:
            cache.match_cache_notebook(nb)
        except KeyError:
            pass
        else:
            return cache.merge_match_into_notebook(nb)[1], "cache"
    t0 = time.perf_counter()
    common, folders = _dependencies()
    with tempfile.TemporaryDirectory(prefix="seqrmt-record-") as tmp:  # what the deck uses
        record = Path(tmp) / "record.json"
        NotebookClient(
            nb,
            timeout=TIMEOUT,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            extra_arguments=seqrmt_cache.kernel_arguments(record, folders),
        ).execute()
        files = seqrmt_cache.read_record(record, ROOT, folders)
    if use_cache:
        entry = cache.cache_notebook_bundle(
            CacheBundleIn(nb, str(path), data={"execution_seconds": time.perf_counter() - t0}),
            check_validity=False,
            overwrite=True,
        )
        key = seqrmt_cache.dependency_key(ROOT, common, files)
        seqrmt_cache.record_dependencies(CACHE, str(path), entry.hashkey, key, files)
    return nb, "executed"


def build_deck(path: Path, use_cache: bool = True) -> tuple[str, int, float, str]:
    deck = path.stem
    t0 = time.perf_counter()
    nb, source = execute(path, use_cache)
    seconds = time.perf_counter() - t0
    title = deck_title(nb, deck)
    slides = deck_slides(nb, deck)
    page = DECK_TEMPLATE.format(
        title=html.escape(title), style=STYLE, mathjax_config=MATHJAX_CONFIG, slides="\n".join(slides)
    )
    (OUT / f"{deck}.html").write_text(page, encoding="utf-8")
    return title, len(slides), seconds, source


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
    parser.add_argument(
        "--no-cache", action="store_true", help="execute every deck (neither read nor write the execution cache)"
    )
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
            title, n, seconds, source = build_deck(path, use_cache=not args.no_cache)
        except Exception as err:  # report every failing deck, then fail
            failed.append(path.stem)
            summary.pop(path.stem, None)
            print(f"{path.stem}: FAILED\n{err}", file=sys.stderr, flush=True)
            continue
        summary[path.stem] = {"title": title, "slides": n, "seconds": round(seconds, 1), "outputs": source}
        how = f"executed in {seconds:.1f} s" if source == "executed" else "outputs from the cache"
        print(f"{path.stem}: {n} slides, {how}", flush=True)
    write_index()
    if failed:
        print(f"failed decks: {', '.join(failed)}", file=sys.stderr)
        return 1
    stamp.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    done = {p.stem: summary[p.stem] for p in paths if p.stem in summary}
    runs = [f"{d} ({v['seconds']} s)" for d, v in done.items() if v["outputs"] == "executed"]
    cached = [d for d, v in done.items() if v["outputs"] == "cache"]
    reports = ROOT / "_build" / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    with open(reports / "executions.log", "a", encoding="utf-8") as log:
        log.write(
            f"{time.strftime('%Y-%m-%d %H:%M:%S')} slides: {len(paths)} decks, {len(runs)} executed "
            f"[{', '.join(runs)}], {len(cached)} from the cache [{', '.join(cached)}]\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
