"""Sphinx extension: a reading time, computed from the page, on every chapter page.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

A reading time typed by hand is a guess, and guesses for mathematical prose come out two or
three times too low.  This extension counts, on the doctree of each chapter page as it is
read (``doctree-read``, so the count is that of the page the reader gets, glued numbers
included, and it is pickled with the page for incremental builds):

* the **words of prose** the reader is meant to read in order: paragraphs, titles, lists,
  tables, admonitions, theorems and proofs, exercise statements, self-check questions; an
  inline formula counts as one word; not counted are code cells and their outputs,
  display equations (counted apart), exercise solutions (read after trying the exercise)
  and the explanations of the self-checks (hidden until the reader answers);
* the **display equations** (``math_block`` nodes);
* the **figures and explorers**: images (markdown or ``{glue:figure}``) and the code cell
  outputs that carry an image or a widget view, each output counted once;

equations and figures of solutions and self-check explanations are left out too.

The time is ``words / words_per_minute + equations * seconds_per_equation / 60 +
figures * seconds_per_figure / 60``, rounded to the nearest 5 minutes (at least 5), at the
rates of the config values below: 100 words a minute is the pace of careful reading of
mathematical prose (about half that of ordinary non-fiction), and a display equation or a
figure takes a reader about 20 or 30 seconds.  The sentence states the rates and the counts,
so a reader can judge it.

It is inserted as ``<p class="seqrmt-reading-time">`` right after the paragraph that opens
with "Before you start." (or, without one, after the page title), in every format.

**The index of results.**  sphinx-proof's domain index (``prf-prf.html``, "Proof Index") lists
the raw labels of the statements (``thm-bulk``, ``def-large-T``).  The extension replaces it by
an index a reader can use: the statements grouped by kind (theorems, conjectures, definitions,
...), each as its number and title ("Theorem 2.1 (The bulk law)", its formulas typeset on the
website), with the page it is on, in the order of the book.  The titles are collected from the doctrees (``env.seqrmt_statements``).

Config values: ``seqrmt_reading_pages`` (a regular expression matched against the docname;
default the numbered chapters ``book/NN_...``), ``seqrmt_reading_words_per_minute`` (100),
``seqrmt_reading_seconds_per_equation`` (20), ``seqrmt_reading_seconds_per_figure`` (30).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterator

from docutils import nodes

CLASS = "seqrmt-reading-time"
_WORD = re.compile(r"[^\W_]", re.UNICODE)

#: Mime types of an output that a reader looks at as a figure.
FIGURE_MIME = (
    "image/png",
    "image/jpeg",
    "image/svg+xml",
    "image/gif",
    "image/webp",
    "application/vnd.jupyter.widget-view+json",
)


@dataclass(frozen=True)
class Counts:
    """What a page asks a reader to read."""

    words: int
    equations: int
    figures: int


def minutes(
    counts: Counts,
    words_per_minute: float = 100.0,
    seconds_per_equation: float = 20.0,
    seconds_per_figure: float = 30.0,
) -> int:
    """The reading time in minutes, rounded to the nearest 5 (at least 5).

    ``words / words_per_minute + (equations * seconds_per_equation + figures *
    seconds_per_figure) / 60``.
    """
    if not words_per_minute > 0:
        raise ValueError(f"words_per_minute must be positive, got {words_per_minute!r}")
    if seconds_per_equation < 0 or seconds_per_figure < 0:
        raise ValueError("seconds_per_equation and seconds_per_figure must be nonnegative")
    raw = (
        counts.words / words_per_minute
        + (counts.equations * seconds_per_equation + counts.figures * seconds_per_figure) / 60
    )
    return max(5, 5 * int(math.floor(raw / 5 + 0.5)))


def _is_solution(node: nodes.Node) -> bool:
    return type(node).__name__.startswith("solution") or "solution" in node.get("classes", [])


def _is_selfcheck_feedback(node: nodes.Node) -> bool:
    return type(node).__name__.startswith("selfcheck_feedback")


def _skipped(node: nodes.Node) -> bool:
    """Nodes whose text is not counted as prose (code, outputs, solutions, ...)."""
    if isinstance(
        node,
        (
            nodes.literal_block,
            nodes.math_block,
            nodes.raw,
            nodes.comment,
            nodes.image,
            nodes.substitution_definition,
            nodes.target,
            nodes.system_message,
        ),
    ):
        return True
    if isinstance(node, nodes.Element):
        if node.get("nb_element", "").startswith("cell_code") or node.get("nb_element") == "mime_bundle":
            return True
        if _is_solution(node) or _is_selfcheck_feedback(node):
            return True
        if CLASS in node.get("classes", []):
            return True
    return False


def _prose(node: nodes.Node) -> Iterator[str]:
    """The text of the prose under ``node``; an inline formula gives one word."""
    if _skipped(node):
        return
    if isinstance(node, nodes.math):
        yield " formula "
        return
    if isinstance(node, nodes.Text):
        yield str(node)
        return
    for child in node.children:
        yield from _prose(child)
    if isinstance(node, (nodes.TextElement, nodes.Structural)):
        yield " "


def count_words(text: str) -> int:
    """Whitespace-separated tokens that contain a letter or a digit."""
    return sum(1 for token in text.split() if _WORD.search(token))


def _read(doctree: nodes.Node) -> Iterator[nodes.Element]:
    """The elements a reader reads in order: all but solutions and self-check explanations."""
    stack = [doctree]
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Element):
            if node is not doctree and (_is_solution(node) or _is_selfcheck_feedback(node)):
                continue
            yield node
            stack.extend(reversed(node.children))


def _figures(doctree: nodes.Node) -> int:
    found = 0
    for node in _read(doctree):
        if node.get("nb_element") == "mime_bundle":
            if any(c.get("mime_type") in FIGURE_MIME for c in node.children):
                found += 1
        elif isinstance(node, nodes.image):
            if not any(a.get("nb_element") == "mime_bundle" for a in _ancestors(node)):
                found += 1
    return found


def _ancestors(node: nodes.Node) -> Iterator[nodes.Node]:
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def count(doctree: nodes.Node) -> Counts:
    """Words of prose, display equations and figures of a page (see the module docstring)."""
    words = count_words("".join(_prose(doctree)))
    equations = sum(1 for node in _read(doctree) if isinstance(node, nodes.math_block))
    return Counts(words=words, equations=equations, figures=_figures(doctree))


def sentence(counts: Counts, wpm: float, spe: float, spf: float) -> nodes.paragraph:
    """The reading-time paragraph: the time, the rates and the counts."""
    total = minutes(counts, wpm, spe, spf)
    para = nodes.paragraph(classes=[CLASS])
    para += nodes.strong("", "Reading time:")
    para += nodes.Text(
        f" about {total} minutes: {counts.words:,} words at {wpm:g} words a minute (the pace of "
        f"mathematical prose), {spe:g} s for each of {counts.equations} display equations, {spf:g} s "
        f"for each of {counts.figures} figures; code, solutions and self-check explanations not counted."
    )
    return para


def _anchor(doctree: nodes.document) -> tuple[nodes.Element, int] | None:
    """Where the sentence goes: after "Before you start." or after the page title."""
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return None
    for para in section.findall(nodes.paragraph):
        if para.astext().startswith("Before you start.") and isinstance(para.parent, nodes.Element):
            return para.parent, para.parent.index(para) + 1
    titles = [i for i, c in enumerate(section.children) if isinstance(c, nodes.title)]
    return section, (titles[0] + 1 if titles else 0)


def _doctree_read(app: Any, doctree: nodes.document) -> None:
    docname = app.env.docname
    if not re.search(app.config.seqrmt_reading_pages, docname):
        return
    for old in list(doctree.findall(lambda n: isinstance(n, nodes.paragraph) and CLASS in n.get("classes", []))):
        old.parent.remove(old)
    where = _anchor(doctree)
    if where is None:
        return
    counts = count(doctree)
    parent, index = where
    parent.insert(
        index,
        sentence(
            counts,
            float(app.config.seqrmt_reading_words_per_minute),
            float(app.config.seqrmt_reading_seconds_per_equation),
            float(app.config.seqrmt_reading_seconds_per_figure),
        ),
    )


# ---------------------------------------------------------------- the index of results
def _collect_statements(app: Any, doctree: nodes.document) -> None:
    """Number-free facts of every labelled sphinx-proof statement of the page."""
    found = getattr(app.env, "seqrmt_statements", None)
    if found is None:
        found = app.env.seqrmt_statements = {}
    for node in doctree.findall(nodes.Element):
        if "countertype" not in node.attributes or "label" not in node.attributes or not node["ids"]:
            continue
        title = str(node.get("title", "")).strip()
        if title.startswith("(") and title.endswith(")"):
            title = title[1:-1].strip()
        found[node["label"]] = {
            "docname": app.env.docname,
            "countertype": node["countertype"],
            "realtype": node.get("realtype", node["countertype"]),
            "id": node["ids"][0],
            "title": title,
        }


def _purge_statements(app: Any, env: Any, docname: str) -> None:
    found = getattr(env, "seqrmt_statements", {})
    for label in [k for k, v in found.items() if v["docname"] == docname]:
        del found[label]


def _merge_statements(app: Any, env: Any, docnames: Any, other: Any) -> None:
    if not hasattr(env, "seqrmt_statements"):
        env.seqrmt_statements = {}
    env.seqrmt_statements.update(getattr(other, "seqrmt_statements", {}))


#: Headings of the index, in this order (sphinx-proof's types; any other kind goes last).
KINDS = (
    "theorem",
    "proposition",
    "lemma",
    "corollary",
    "conjecture",
    "assumption",
    "definition",
    "axiom",
    "criterion",
    "algorithm",
    "example",
    "remark",
    "observation",
    "property",
    "notation",
)


_INLINE_TEX = re.compile(r"(\$[^$]+\$)")


def typeset_title(app: Any, text: str) -> Any:
    """A statement's title for an HTML page: its ``$...$`` typeset (:mod:`seqrmt_book.typeset`),
    the rest escaped, as markup that Jinja's ``|e`` keeps (the index's template escapes names)."""
    from markupsafe import Markup, escape

    from seqrmt_book import typeset

    out = Markup("")
    for part in _INLINE_TEX.split(text):
        if len(part) > 2 and part.startswith("$") and part.endswith("$"):
            formula = typeset.Formula(part[1:-1], False)
            markup = typeset._build(app).markup("prf-prf", formula, "the index of results")
            out += Markup(f'<span class="math notranslate nohighlight">{markup}</span>')
        else:
            out += escape(part)
    return out


def statement_entries(env: Any, app: Any = None) -> list[tuple[str, list[tuple]]]:
    """The index of results: ``[(heading, [IndexEntry fields]), ...]``, in the book's order.
    With ``app`` (an HTML build) the titles' formulas are typeset (:func:`typeset_title`); else
    they stay TeX."""
    from sphinx.locale import _ as translate

    order = {doc: i for i, doc in enumerate(_toc_order(env))}
    groups: dict[str, list[tuple]] = {}
    for label, info in getattr(env, "seqrmt_statements", {}).items():
        kind = info["realtype"]
        number = env.toc_fignumbers.get(info["docname"], {}).get(info["countertype"], {}).get(info["id"])
        name = translate(kind.capitalize())
        if number:
            name += " " + ".".join(str(n) for n in number)
        if info["title"]:
            name = typeset_title(app, f"{name} ({info['title']})") if app is not None else f"{name} ({info['title']})"
        page = env.titles.get(info["docname"])
        extra = page.astext() if page is not None else ""
        key = (order.get(info["docname"], len(order)), tuple(number or (10**6,)), label)
        groups.setdefault(kind, []).append((key, (name, 0, info["docname"], info["id"], extra, "", "")))
    ranked = sorted(groups, key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k))
    return [
        (translate(k.capitalize()) + ("s" if not k.endswith("s") else ""), [entry for _, entry in sorted(groups[k])])
        for k in ranked
    ]


def _toc_order(env: Any) -> list[str]:
    """The documents in the order of the table of contents, from the root."""
    seen: list[str] = []

    def walk(doc: str) -> None:
        if doc in seen:
            return
        seen.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(env.config.root_doc)
    return seen


def _replace_proof_index(app: Any) -> None:
    """sphinx-proof's index of raw labels becomes the index of results (numbers and titles)."""
    try:
        from sphinx_proof.domain import ProofDomain, ProofIndex
    except ImportError:  # the book without sphinx-proof: nothing to replace
        return

    class ResultsIndex(ProofIndex):
        localname = "Index of results"
        shortname = "Results"

        def generate(self, docnames: Any = None) -> tuple[list, bool]:
            env = self.domain.env
            html = getattr(getattr(env.app, "builder", None), "format", "") == "html"
            return statement_entries(env, env.app if html else None), False

    ProofDomain.indices = [ResultsIndex]
    # a Domain copies its class's indices when it is made: replace the copy too
    domain = app.env.domains.get("prf") if app.env is not None else None
    if domain is not None:
        domain.indices = [ResultsIndex]


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("seqrmt_reading_pages", r"^book/\d\d_", "env")
    app.add_config_value("seqrmt_reading_words_per_minute", 100, "env")
    app.add_config_value("seqrmt_reading_seconds_per_equation", 20, "env")
    app.add_config_value("seqrmt_reading_seconds_per_figure", 30, "env")
    # Before the PDF moves the self-check answers to the end of the chapter, and before the
    # collectors read the page.
    app.connect("doctree-read", _doctree_read, priority=50)
    app.connect("doctree-read", _collect_statements)
    app.connect("env-purge-doc", _purge_statements)
    app.connect("env-merge-info", _merge_statements)
    app.connect("builder-inited", _replace_proof_index)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
