"""Sphinx extension: previews of cross-references, typeset, offline and keyboard-reachable.

Registered in ``_config.yml`` under ``sphinx: local_extensions: {seqrmt_previews: site_assets/}``.

After the HTML build, once ``seqrmt_math`` has typeset the math of every page (this
extension's ``build-finished`` handler runs after it), every internal link to a numbered
statement (a sphinx-proof theorem, proposition, lemma, definition, corollary, conjecture,
assumption or remark), an exercise or a numbered equation gets ``data-seqrmt-preview``.
The statement itself, cut from its page's HTML (so its math is typeset already; links,
ids and tab stops removed, so that a preview holds nothing to focus), goes into one small
script per statement, ``_static/seqrmt-previews/<page>_<id>.js`` (shared by every page
that links to it).  ``static/seqrmt/previews.js`` loads that script the first time a
reader hovers over or focuses such a link, and shows the statement in a ``role="tooltip"`` box named by the
link's ``aria-describedby``: it stays while the pointer is over the link or the box,
and Escape dismisses it (WCAG 1.4.13).  Nothing is fetched from another host, and
nothing is loaded before the first hover or focus.

Why not sphinx-tippy (PyPI, 0.4.3): it loads Popper and Tippy from unpkg.com by default (they
would have to be vendored from npm), it collects the tips while pages are rendered, before
this site typesets its math, so a tip would carry raw TeX that only a MathJax in the browser
(``MathJax.typesetPromise``) could typeset, and Escape needs a Tippy plugin.  Its Wikipedia,
DOI and Read the Docs tips fetch from the network at build time (``requests``).
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any

#: Where the previews go, relative to the output folder (one small script per statement).
FOLDER = "_static/seqrmt-previews"
#: sphinx-proof's kinds and sphinx-exercise's exercise: the classes of a previewable box.
KINDS = ("theorem", "proposition", "lemma", "definition", "corollary", "conjecture",
         "assumption", "remark", "exercise")
_LINK = re.compile(r'<a class="reference internal"(?: data-seqrmt-preview="[^"]*")? href="([^"#]*)#([^"]+)"')
_ANY_DIV = re.compile(r"<div\b|</div>")
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.S)
_A_OPEN = re.compile(r"<a\b[^>]*>")
_ATTRS = re.compile(r'\s(?:id|tabindex|aria-labelledby|aria-describedby|for)="[^"]*"')
#: A preview longer than this is cut after its first blocks (a long proof-like remark).
MAX_CHARS = 120_000


def _element(html: str, element_id: str) -> str | None:
    """The ``<div>`` with this id (balanced), if it is a previewable statement or equation."""
    m = re.search(rf'<div class="([^"]*)" id="{re.escape(element_id)}">', html)
    if not m:
        return None
    classes = m.group(1).split()
    is_statement = "admonition" in classes and any(k in classes for k in KINDS)
    is_equation = "math" in classes and element_id.startswith("equation-")
    if not (is_statement or is_equation):
        return None
    depth = 0
    for tag in _ANY_DIV.finditer(html, m.start()):
        depth += 1 if tag.group(0) != "</div>" else -1
        if depth == 0:
            return html[m.start():tag.end()]
    return None


def clean(fragment: str) -> str:
    """A statement as preview content: no links, ids or tab stops (nothing to focus)."""
    fragment = _HEADERLINK.sub("", fragment)
    fragment = _A_OPEN.sub("<span>", fragment).replace("</a>", "</span>")
    fragment = _ATTRS.sub("", fragment)
    fragment = re.sub(r"<(input|button|select|textarea|img)\b[^>]*>", "", fragment)
    return fragment[:MAX_CHARS]


def _pages(outdir: Path) -> list[Path]:
    skip = ("_static", "_sources", "_images", "_downloads", "slides", "_pdf")
    return sorted(p for p in outdir.rglob("*.html") if p.relative_to(outdir).parts[0] not in skip)


def file_name(key: str) -> str:
    """The preview file of a statement (``static/seqrmt/previews.js`` maps keys the same way)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", key) + ".js"


def add_previews(outdir: Path) -> int:
    """Mark the links of every page and write one preview file per statement linked to
    (``_static/seqrmt-previews/<page>_<id>.js``); the number of statements."""
    outdir = Path(outdir)
    pages = {p.relative_to(outdir).as_posix(): p for p in _pages(outdir)}
    texts = {rel: p.read_text(encoding="utf-8") for rel, p in pages.items()}
    found: dict[str, str | None] = {}
    for rel, text in texts.items():
        folder = posixpath.dirname(rel)

        def mark(m: re.Match) -> str:
            target = posixpath.normpath(posixpath.join(folder, m.group(1))) if m.group(1) else rel
            key = f"{target}#{m.group(2)}"
            if key not in found:
                found[key] = _element(texts[target], m.group(2)) if target in texts else None
            if found[key] is None:
                return m.group(0)
            return (f'<a class="reference internal" data-seqrmt-preview="{key}" '
                    f'href="{m.group(1)}#{m.group(2)}"')

        new = _LINK.sub(mark, text)
        if new != text:
            pages[rel].write_text(new, encoding="utf-8")
    folder = outdir / FOLDER
    if folder.is_dir():
        for old in folder.glob("*.js"):
            old.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for key, fragment in found.items():
        if fragment is None:
            continue
        body = json.dumps(clean(fragment), ensure_ascii=False).replace("</", "<\\/")
        (folder / file_name(key)).write_text(
            f"(window.seqrmtPreviews = window.seqrmtPreviews || {{}})[{json.dumps(key)}] = {body};\n",
            encoding="utf-8")
        count += 1
    return count


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    from sphinx.util import logging

    count = add_previews(Path(app.outdir))
    logging.getLogger(__name__).info(f"seqrmt_previews: {count} previewed references")


def setup(app: Any) -> dict[str, Any]:
    app.add_js_file("seqrmt/previews.js", priority=900, defer="defer")
    # After seqrmt_math (priority 500): the previews carry the typeset math.
    app.connect("build-finished", _build_finished, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
