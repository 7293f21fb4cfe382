"""One numbering scheme for the whole book: the Toolkit is chapter 0, the appendix's parts are
lettered.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

**Why.** The chapters 1 to 8 sit in numbered parts of ``_toc.yml``, so Sphinx numbers their
sections (``2.3``) and their statements, figures and equations with the chapter as prefix
("Theorem 4.1", "(3.2)").  The Toolkit and the appendix sit in unnumbered parts: Sphinx gives
them no section numbers and numbers their statements with one counter shared by every
unnumbered page ("Theorem 1" in the Toolkit, "Lemma 5" in the appendix, continuing the
Toolkit's lemmas).  Renumbering the parts would renumber chapters 1 to 8, which the book and
the slides cite by number.

**The scheme.** The Toolkit is chapter 0: "Theorem 0.1", sections "0.1", "0.2", ...  The
appendix is already divided into lettered parts, headed "A. Transforms and the bulk law",
"B. ...", ... "F. ...", with subsections "A.1", ..., "D.2", and the book cites them so
("appendix D.2"); its statements and equations take the letter of their part, as the
chapters' take their chapter number: "Lemma A.1" is the first lemma of part A, "(D.3)" the
third numbered equation of part D.  Its headings keep their letters, and get no second number.

**What it does.** After Sphinx's ``TocTreeCollector`` has numbered everything (in the
``env-get-updated`` event, at a later priority), for each page of :data:`DEFAULT_PREFIXES`
(or the ``seqrmt_number_prefixes`` setting):

* every numbered object of the page (``env.toc_fignumbers``: theorems and the other
  sphinx-proof types, exercises, figures, numbered equations) is renumbered in its own
  sequence per type, in page order, with the page's prefix ("Theorem 0.1"), or, for a page
  mapped to :data:`PARTS`, with the letter of its lettered part and a sequence per part
  ("Lemma D.2").  Both the HTML and the LaTeX writers of sphinx-proof, sphinx-exercise and
  ``{numref}``/``{eq}`` read these numbers, so the website and the PDF print the same ones;
* in the HTML builders, the headings of a page with a prefix get section numbers with it
  (``env.toc_secnumbers``: "0 Toolkit", "0.3 The classic BBP transition"), and so do its
  entries in the sidebar and in the previous/next links (the ``secnumber`` of the references
  of ``env.tocs`` and of the page title, as Sphinx sets them for numbered pages).

**PDF.** :mod:`seqrmt_book.latex` already makes the Toolkit LaTeX's chapter 0 and the pages after
chapter 8 appendices A, B, ...  :class:`AppendixLetters` (LaTeX builder only, after it) prints
those pages as unnumbered chapters, as on the website (the appendix's parts carry their
letters in their headings), and restarts LaTeX's equation and figure counters at each
lettered part with its letter, so that "(D.3)" in the PDF is "(D.3)" on the website.  And
:func:`latex_numfig_depth` undoes the section-level numbering of statements that
sphinx-jupyterbook-latex asks for ("Theorem 3.2.1" where the website says "Theorem 3.4").
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: Numbering by the letter of the page's lettered parts ("## D. The sample stage").
PARTS = "parts"

#: Page -> number prefix: a chapter number, a letter, or :data:`PARTS`.
DEFAULT_PREFIXES: dict[str, int | str] = {
    "book/00_toolkit": 0,
    "book/appendix_derivations": PARTS,
}

#: The heading of a lettered part: one capital letter, a full stop, a space.
PART_TITLE = re.compile(r"^([A-Z])\.\s")

#: After Sphinx's TocTreeCollector (priority 500) and sphinx-multitoc-numbering.
PRIORITY = 900


def _prefixes(app: Any) -> dict[str, int | str]:
    value = getattr(app.config, "seqrmt_number_prefixes", None) or DEFAULT_PREFIXES
    if not isinstance(value, dict):
        raise TypeError("seqrmt_number_prefixes must map page names to a number or a letter")
    return dict(value)


def renumber_figures(fignumbers: dict[str, dict[str, tuple]], prefix: int | str) -> dict:
    """Number each type's objects ``(prefix, 1), (prefix, 2), ...`` in their page order.

    ``fignumbers`` is one page's entry of ``env.toc_fignumbers`` (``{type: {id: number}}``);
    the numbers Sphinx gave an unnumbered page are one-element tuples of a counter shared
    with the other unnumbered pages, increasing in page order.
    """
    out: dict[str, dict[str, tuple]] = {}
    for figtype, ids in fignumbers.items():
        ordered = sorted(ids.items(), key=lambda item: tuple(item[1]))
        out[figtype] = {target: (prefix, k) for k, (target, _) in enumerate(ordered, start=1)}
    return out


def part_letters(doctree: nodes.Node) -> dict[str, str]:
    """The letter of the lettered part (a section headed "X. ...") around every id of a page."""
    out: dict[str, str] = {}

    def walk(node: nodes.Node, letter: str | None) -> None:
        if isinstance(node, nodes.section) and node.children and isinstance(node[0], nodes.title):
            m = PART_TITLE.match(node[0].astext())
            if m and letter is None:
                letter = m.group(1)
        if isinstance(node, nodes.Element):
            for i in node.get("ids", []):
                out.setdefault(i, letter or "")
            for child in node.children:
                walk(child, letter)

    walk(doctree, None)
    return out


def renumber_by_parts(fignumbers: dict[str, dict[str, tuple]], letters: dict[str, str]) -> dict:
    """Number each type's objects ``(letter, 1), (letter, 2), ...`` within each lettered part.

    Objects before the first part (no letter) keep a plain sequence ``(1,), (2,), ...``.
    """
    out: dict[str, dict[str, tuple]] = {}
    for figtype, ids in fignumbers.items():
        counts: dict[str, int] = {}
        out[figtype] = {}
        for target, _ in sorted(ids.items(), key=lambda item: tuple(item[1])):
            letter = letters.get(target, "")
            counts[letter] = counts.get(letter, 0) + 1
            out[figtype][target] = (letter, counts[letter]) if letter else (counts[letter],)
    return out


def number_sections(toc: nodes.Node, prefix: int | str, title: nodes.Node | None = None) -> dict:
    """Section numbers of one page from its local table of contents (``env.tocs[page]``).

    Follows Sphinx's ``TocTreeCollector.assign_section_numbers`` (the page title is the
    first entry, its sections the nested ones), with the page's number replaced by
    ``prefix``: ``{"": (prefix,), "#sec": (prefix, 1), "#sub": (prefix, 1, 1), ...}``.  The
    ``secnumber`` of each reference (the sidebar) and of ``title`` (previous/next links)
    is set as well.
    """
    secnums: dict[str, tuple] = {}
    numstack = [0]

    def walk(node: nodes.Node, titlenode: nodes.Node | None) -> None:
        for sub in node.children:
            if isinstance(sub, nodes.bullet_list):
                numstack.append(0)
                walk(sub, titlenode)
                numstack.pop()
                titlenode = None
            elif isinstance(sub, (nodes.list_item, addnodes.only)):
                walk(sub, titlenode)
                titlenode = None
            elif isinstance(sub, addnodes.compact_paragraph):
                if "skip_section_number" in sub:
                    continue
                numstack[-1] += 1
                number = (prefix, *numstack[1:])
                reference = sub[0]
                secnums[reference["anchorname"]] = number
                reference["secnumber"] = list(number)  # a list, as Sphinx sets it
                if titlenode is not None:
                    titlenode["secnumber"] = list(number)
                    titlenode = None

    walk(toc, title)
    return secnums


def clear_prefixes(app: Any, env: Any) -> list[str]:
    """``env-get-updated`` handler run *before* the TocTreeCollector: remove the numbers set by
    the previous build.

    The page titles and local tables of contents of pages that were not read again keep
    the ``secnumber`` :func:`apply_prefixes` gave them; sphinx-external-toc's collector
    would count such a page as a numbered chapter and shift the chapters after it.
    """
    for docname in _prefixes(app):
        title = env.titles.get(docname)
        if title is not None:
            title.attributes.pop("secnumber", None)
        toc = env.tocs.get(docname)
        if toc is not None:
            for reference in toc.findall(nodes.reference):
                reference.attributes.pop("secnumber", None)
    return []


def apply_prefixes(app: Any, env: Any) -> list[str]:
    """``env-get-updated`` handler: prefix the numbers of the pages of the map."""
    changed = []
    html = getattr(app.builder, "format", "") == "html"
    for docname, prefix in _prefixes(app).items():
        if docname not in env.tocs:
            continue
        if docname in env.toc_secnumbers and env.toc_secnumbers[docname].get(""):
            continue  # already numbered by a numbered part: leave it alone
        fig = env.toc_fignumbers.get(docname)
        if prefix == PARTS:
            if fig:
                letters = part_letters(env.get_doctree(docname))
                env.toc_fignumbers[docname] = renumber_by_parts(fig, letters)
            changed.append(docname)
            continue
        if fig:
            env.toc_fignumbers[docname] = renumber_figures(fig, prefix)
        if html:
            env.toc_secnumbers[docname] = number_sections(env.tocs[docname], prefix, env.titles.get(docname))
        changed.append(docname)
    return changed


class AppendixLetters(SphinxPostTransform):
    """PDF: the pages after chapter 8 are unnumbered chapters; a lettered part restarts LaTeX's
    equation and figure counters with its letter."""

    default_priority = 8  # after seqrmt_book.latex.ChapterNumbers (6)
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        prefixes = _prefixes(self.app)
        numbers = self.env.toc_secnumbers
        seen_numbered = False
        for start in list(self.document.findall(addnodes.start_of_file)):
            if any(isinstance(p, addnodes.start_of_file) for p in _ancestors(start)):
                continue
            docname = start.get("docname")
            if numbers.get(docname, {}).get(""):
                seen_numbered = True
                continue
            if not seen_numbered:
                continue  # the root page and the Toolkit (chapter 0)
            # after what seqrmt_book.latex put there (\appendix, chapter counter)
            at = 0
            while at < len(start.children) and isinstance(start[at], nodes.raw):
                at += 1
            start.insert(at, nodes.raw("", "\\setcounter{secnumdepth}{-1}\n", format="latex"))
            if prefixes.get(docname) == PARTS:
                self._letter_parts(start)

    @staticmethod
    def _letter_parts(start: nodes.Node) -> None:
        for section in list(start.findall(nodes.section)):
            if not section.children or not isinstance(section[0], nodes.title):
                continue
            m = PART_TITLE.match(section[0].astext())
            if not m or any(
                isinstance(p, nodes.section)
                and p is not section
                and p.children
                and isinstance(p[0], nodes.title)
                and PART_TITLE.match(p[0].astext())
                for p in _ancestors(section)
            ):
                continue
            x = m.group(1)
            latex = "".join(
                f"\\setcounter{{{c}}}{{0}}\\renewcommand{{\\the{c}}}{{{x}.\\arabic{{{c}}}}}"
                for c in ("equation", "figure", "table")
            )
            section.insert(1, nodes.raw("", latex + "\n", format="latex"))


def _ancestors(node: nodes.Node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def latex_numfig_depth(app: Any) -> None:
    """``builder-inited``, LaTeX only: number statements per chapter, as on the website.

    sphinx-jupyterbook-latex sets ``numfig_secnum_depth = 2`` when the book has parts, so
    the numbers of the statements (``env.toc_fignumbers``, which sphinx-proof prints) took
    the section too: the PDF said "Theorem 3.2.1" where the website says "Theorem 3.4".
    Depth 1 is used while the numbers are assigned; :func:`latex_restore_depth` then gives
    the writer depth 2, with which (parts being LaTeX's top level) LaTeX numbers figures and
    equations per chapter ("Figure 4.1", as on the website) instead of through the book.
    """
    if getattr(app.builder, "format", "") == "latex" and app.config.numfig_secnum_depth > 1:
        app.env.seqrmt_latex_numfig_depth = app.config.numfig_secnum_depth
        app.config.numfig_secnum_depth = 1


def latex_restore_depth(app: Any, env: Any) -> None:
    """``env-check-consistency`` (after the numbers are assigned, before the pages are
    written): the LaTeX writer's own figure and equation counters reset per chapter."""
    depth = getattr(app.env, "seqrmt_latex_numfig_depth", None)
    if depth:
        app.config.numfig_secnum_depth = depth


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("seqrmt_number_prefixes", None, "env")
    app.connect("builder-inited", latex_numfig_depth, priority=PRIORITY)  # after jblatex (500)
    app.connect("env-check-consistency", latex_restore_depth)
    app.connect("env-get-updated", clear_prefixes, priority=100)
    app.connect("env-get-updated", apply_prefixes, priority=PRIORITY)
    app.add_post_transform(AppendixLetters)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}
