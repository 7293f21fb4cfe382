"""Tiny Sphinx extension for the PDF edition (LaTeX builder only).

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).
It does five things.

**Cross-page references to exercises.** sphinx-exercise labels an exercise in LaTeX as
``exercise:<label>`` only, while a ``{ref}`` to it from another page (the syllabus)
points to ``<docname>:<label>``: the link went nowhere and LaTeX reported an undefined
reference.  :class:`ExerciseLabels` adds the ``<docname>:<label>`` label.

**Widgets without a static fallback.** A widget's display bundle is its view plus a
``text/plain`` repr (``IntProgress(value=0, ...)``, ``VBox(children=...)``), which the PDF
would print as code.  :class:`WidgetsWithoutFallback` drops such outputs; widgets that
carry a PDF fallback (an image, ``text/latex`` or ``text/markdown``) keep it.

**Chapter numbers as on the website.** LaTeX numbers every chapter in sequence, so the
unnumbered Toolkit chapter became "Chapter 1", every numbered chapter was one ahead of
its theorems and of the cross-references in the text, and the reference pages were
chapters 10 and up.  :class:`ChapterNumbers` sets the chapter counter before each page
from the website's numbering (``env.toc_secnumbers``): an unnumbered page before the
numbered chapters is chapter 0, and the unnumbered pages after them (the reference
part) become appendices A, B, ...

**Labels and numbers of theorems.** sphinx-proof finds the document of a theorem, in
the LaTeX builder, by walking up to the section whose ``names`` contain the page title
in lower case.  ``names`` keep the title as typed (``paper's``) while the page title has
gone through smart quotes (``paper’s``), so on a page whose title has an apostrophe
every theorem lost its number and its label (``\\label{None:...}``) and every reference
to it printed "??".  :class:`TitleNames` adds the page title, as sphinx-proof compares
it, to the names of the page's top section.

**Text-mode ``text/latex`` outputs.**

myst-nb renders every ``text/latex`` cell output as a display equation (a
``math_block`` with the classes ``output text_latex``).  The explorers of
:mod:`seqrmt.widgets` put a *text-mode* note in that mime type for the PDF (the
interactive version is online), e.g. ``\\begin{center}\\small\\itshape ...\\end{center}``;
inside an ``equation*`` it would not compile.  For the LaTeX builder this extension
turns such an output (one that opens a non-math environment, or switches the font with
``\\small``/``\\itshape``) into raw LaTeX.  Genuine math outputs are left alone, and the
HTML builders never see ``text/latex`` (the widget view comes first there).
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: Environments that are math: an output opening one of these stays a display equation.
MATH_ENVIRONMENTS = {
    "equation",
    "equation*",
    "align",
    "align*",
    "aligned",
    "gather",
    "gather*",
    "multline",
    "multline*",
    "split",
    "array",
    "matrix",
    "pmatrix",
    "bmatrix",
    "cases",
    "eqnarray",
    "eqnarray*",
}
_TEXT_MODE = re.compile(r"^\s*(\\begin\{(?P<env>[^}]+)\}|\\(small|itshape|textit|emph|par)\b)")


def is_text_mode(latex: str) -> bool:
    """True when ``latex`` is a text-mode fragment rather than a formula."""
    m = _TEXT_MODE.match(latex)
    if not m:
        return False
    env = m.group("env")
    return env is None or env not in MATH_ENVIRONMENTS


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: What a widget's bundle may carry for the PDF; with none of these it is dropped.
STATIC_FALLBACKS = {"application/pdf", "image/png", "image/jpeg", "text/latex", "text/markdown"}


class WidgetsWithoutFallback(SphinxPostTransform):
    default_priority = 3  # before myst-nb's SelectMimeType (4)
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        def is_bundle(node: nodes.Node) -> bool:
            return isinstance(node, nodes.container) and node.get("nb_element") == "mime_bundle"

        for bundle in list(self.document.findall(is_bundle)):
            mimes = {child.get("mime_type") for child in bundle.children}
            if WIDGET_VIEW in mimes and not mimes & STATIC_FALLBACKS:
                bundle.parent.remove(bundle)


class ExerciseLabels(SphinxPostTransform):
    default_priority = 7
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        try:
            from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node
        except ImportError:  # pragma: no cover - the book always has sphinx-exercise
            return
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for node in list(self.document.findall(lambda n: isinstance(n, (exercise_node, exercise_enumerable_node)))):
            label = node.get("label")
            docname = registry.get(label, {}).get("docname") if label else None
            if not docname or node.parent is None:
                continue
            ids = dict.fromkeys([label, *node.get("ids", [])])
            latex = "".join(f"\\phantomsection\\label{{\\detokenize{{{docname}:{i}}}}}" for i in ids)
            node.parent.insert(node.parent.index(node), nodes.raw("", latex + "\n", format="latex"))


class TitleNames(SphinxPostTransform):
    default_priority = 5
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        titles = self.env.titles
        for section in self.document.findall(nodes.section):
            docname = section.get("docname")
            if docname not in titles or not section.children:
                continue
            title = titles[docname].astext().lower()
            if section[0].astext().lower() == title and title not in section["names"]:
                section["names"].append(title)


class ChapterNumbers(SphinxPostTransform):
    default_priority = 6
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        numbers = self.env.toc_secnumbers
        seen_numbered = appendix = False
        for start in list(self.document.findall(addnodes.start_of_file)):
            if any(isinstance(p, addnodes.start_of_file) for p in _ancestors(start)):
                continue  # a page included in a chapter is a section, not a chapter
            number = numbers.get(start.get("docname"), {}).get("")
            if number:
                seen_numbered = True
                latex = f"\\setcounter{{chapter}}{{{number[0] - 1}}}"
            elif not seen_numbered:
                latex = "\\setcounter{chapter}{-1}"
            elif not appendix:
                appendix = True
                latex = "\\appendix"
            else:
                continue
            start.insert(0, nodes.raw("", latex + "\n", format="latex"))


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


class TextLatexOutputs(SphinxPostTransform):
    default_priority = 200
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        for node in list(self.document.findall(nodes.math_block)):
            if "text_latex" in node.get("classes", []) and is_text_mode(node.astext()):
                node.replace_self(nodes.raw("", node.astext(), format="latex"))


def setup(app: Any) -> dict[str, Any]:
    app.add_post_transform(WidgetsWithoutFallback)
    app.add_post_transform(TitleNames)
    app.add_post_transform(ExerciseLabels)
    app.add_post_transform(ChapterNumbers)
    app.add_post_transform(TextLatexOutputs)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}
