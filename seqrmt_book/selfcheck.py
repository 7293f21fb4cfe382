"""Sphinx extension: self-check questions, checked in the page without a kernel.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

A question is a ``self-check`` directive in a chapter's markdown.  Its correct answer is
never typed: ``:answer:`` names a value that the chapter's code glued (``glue(key, value,
display=False)``, computed by ``seqrmt``), read from the notebook's glue data when the page
is parsed.  Two kinds:

* **a number**, with ``:tolerance:`` (absolute, shown to the reader) and ``:format:`` (how
  the answer is printed).  ``{feedback}`` blocks explain: ``correct`` (shown with the right
  answer), a glue key (the value a misconception gives: a reader whose answer is within the
  tolerance of it reads why it is wrong), ``otherwise`` (any other number);
* **a choice**: ``{choice} <id>`` blocks, whose first paragraph is the option and whose
  other paragraphs say why it is right or wrong; ``:answer:`` names a glued string, the id
  of the right option (computed, e.g. by comparing two thresholds).

Markup (the outer fence has more colons than the inner ones)::

    ::::{self-check}
    :answer: sc00_edge
    :tolerance: 0.005
    :format: .3f

    The question, with math.

    :::{feedback} sc00_edge_nosqrt
    Why this value is what a classic mistake gives.
    :::
    ::::

In HTML a question is ``<div class="self-check">`` with a form (a text field or radio
buttons, a "Check" button), the feedback blocks hidden in the page (their math typeset at
build time with the rest of the page by :mod:`seqrmt_book.typeset`) and a live region
(``role="status"``) into which ``static/seqrmt/selfcheck.js`` copies the verdict and the
feedback.  The answer is not in the page source in plain form: the script checks a reader's
answer against salted hashes (:func:`answer_hashes`), and the options of a choice are shown
with the right one at a place drawn from the question (:func:`placed_choices`; written by
hand, it was the middle one in 10 of 16 questions).  In other formats (the PDF) a question is printed as a boxed question with its
options, and a last section of the chapter, "Answers to the self-checks", gives each answer
with its explanation.  A missing glue key, an answer that is not an option, or a
misconception whose value is within the tolerance of the answer fails the build.

Why not jupyterquiz (PyPI, 2.9.6.4): its questions are a JavaScript output of a code cell
with answers typed in JSON (not glued from ``seqrmt``); its script has no ARIA attribute or
live region, and its answers are clickable ``<div>``s; it typesets math in the browser and
loads MathJax from jsdelivr when the page has none (the site has none: its math is typeset
at build time); and a JavaScript output prints nothing in the PDF.
"""

from __future__ import annotations

import ast
import html
import math
import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

#: Reserved feedback keys (every other key of a numeric question is a glue key).
CORRECT, OTHERWISE = "correct", "otherwise"
COUNTER = "seqrmt_selfcheck_count"


class self_check(nodes.General, nodes.Element):
    """One question (attributes: kind, number, answer, display, tolerance, qid)."""


class selfcheck_form(nodes.General, nodes.Element):
    """The answer controls of a question (HTML only)."""


class selfcheck_option(nodes.General, nodes.Element):
    """One option of a choice (attributes: choice, qid, index)."""


class selfcheck_feedback(nodes.General, nodes.Element):
    """An explanation shown after an answer (attributes: key, value)."""


class selfcheck_choice_raw(nodes.General, nodes.Element):
    """A ``{choice}`` block before its question assembles it (attribute: choice)."""


class selfcheck_feedback_raw(nodes.General, nodes.Element):
    """A ``{feedback}`` block before its question assembles it (attribute: key)."""


def _glued(document: Any, key: str) -> Any:
    """The value the page's code glued under ``key`` (a float or a string)."""
    from myst_nb.core.variables import RetrievalError
    from myst_nb.ext.glue.utils import retrieve_glue_data

    try:
        data = retrieve_glue_data(document, key).data
    except RetrievalError as err:
        raise ValueError(f"self-check: no glued value {key!r} on this page ({err})") from None
    text = data.get("text/plain")
    if text is None:
        raise ValueError(f"self-check: the glued value {key!r} has no text/plain form")
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(
            f"self-check: the glued value {key!r} is {text!r}, not a number or a string (glue float(x) or a str)"
        ) from None


class ChoiceDirective(SphinxDirective):
    """``{choice} <id>``: an option (first paragraph) and why it is right or wrong."""

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = selfcheck_choice_raw(choice=self.arguments[0].strip())
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class FeedbackDirective(SphinxDirective):
    """``{feedback} <correct|otherwise|glue key>``: an explanation of an answer."""

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        node = selfcheck_feedback_raw(key=self.arguments[0].strip())
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


#: A verdict word that opens an explanation ("Right: ...", "No: ..."): the page's verdict line
#: ("Right.", "Right: 0.25.", "Not quite. Try again.") already says it, so it is dropped.
_VERDICT = re.compile(r"^\s*(?:right|correct|yes|no|wrong|not quite)\s*[:.,;!\u2014-]\s*", re.I)


def _without_verdict(blocks: list[nodes.Node]) -> list[nodes.Node]:
    """``blocks`` with a leading verdict word of their first paragraph removed.

    The verdict ("Right." or "Not quite.") is written once, by ``selfcheck.js`` in the page
    and by the answers section in the PDF; an explanation that also opens with "Right:" would
    read "Right. Right: ...".  The next letter is capitalized ("Right: the self score" becomes
    "The self score").  Only the first text of the first paragraph is looked at."""
    if not blocks or not isinstance(blocks[0], nodes.paragraph):
        return blocks
    para = blocks[0]
    first = next(iter(para.findall(nodes.Text)), None)
    if first is None or first.parent is not para:
        return blocks
    text = str(first)
    match = _VERDICT.match(text)
    if match is None:
        return blocks
    rest = text[match.end() :]
    if rest[:1].islower():
        rest = rest[0].upper() + rest[1:]
    if rest:
        para.replace(first, nodes.Text(rest))
    else:
        para.remove(first)
    return blocks


def _tolerance(value: str) -> float:
    tol = float(directives.unchanged_required(value))
    if not (math.isfinite(tol) and tol > 0):
        raise ValueError(f"tolerance must be a positive number, got {value!r}")
    return tol


class SelfCheckDirective(SphinxDirective):
    """``{self-check}``: a question checked in the page (see the module docstring)."""

    has_content = True
    option_spec = {
        "answer": directives.unchanged_required,
        "tolerance": _tolerance,
        "format": directives.unchanged,
        "label": directives.unchanged,
    }

    def _fail(self, message: str) -> list[nodes.Node]:
        raise self.error(f"self-check: {message}")

    def run(self) -> list[nodes.Node]:
        if "answer" not in self.options:
            self._fail("the :answer: option (a glue key) is required")
        number = self.env.temp_data.get(COUNTER, 0) + 1
        self.env.temp_data[COUNTER] = number
        qid = self.options.get("label") or f"self-check-{number}"
        body = nodes.Element()
        self.state.nested_parse(self.content, self.content_offset, body)
        question, choices, feedback = [], [], []
        for child in body.children:
            if isinstance(child, selfcheck_choice_raw):
                choices.append(child)
            elif isinstance(child, selfcheck_feedback_raw):
                feedback.append(child)
            else:
                question.append(child)
        if not question:
            self._fail("the question has no text")
        try:
            answer = _glued(self.state.document, self.options["answer"])
        except ValueError as err:
            self._fail(str(err))
        node = self_check(number=number, qid=qid, ids=[qid], classes=["self-check"])
        node += nodes.container("", *question, classes=["self-check-question"])
        form = selfcheck_form(qid=qid)
        if choices:
            node["kind"] = "choice"
            ids = [c["choice"] for c in choices]
            if len(set(ids)) != len(ids) or len(ids) < 2:
                self._fail(f"a choice needs at least two options with distinct ids, got {ids}")
            if not isinstance(answer, str) or answer not in ids:
                self._fail(
                    f"the answer {answer!r} (glued as {self.options['answer']!r}) is not one of the options {ids}"
                )
            node["answer"] = answer
            node["display"] = answer
            choices = placed_choices(choices, answer, f"{self.env.docname}/{qid}")
            for index, raw in enumerate(choices):
                paras = [c for c in raw.children]
                if not paras or not isinstance(paras[0], nodes.paragraph):
                    self._fail(f"option {raw['choice']!r} must start with a paragraph (the option)")
                option = selfcheck_option(choice=raw["choice"], qid=qid, index=index, correct=raw["choice"] == answer)
                option += nodes.inline("", "", *paras[0].children, classes=["self-check-label"])
                form += option
                fb = selfcheck_feedback(key=raw["choice"], value="")
                fb.extend(_without_verdict(paras[1:]))
                feedback.append(fb)
            feedback = [f for f in feedback if isinstance(f, selfcheck_feedback)] + [
                f for f in feedback if isinstance(f, selfcheck_feedback_raw)
            ]
        else:
            node["kind"] = "number"
            if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not math.isfinite(answer):
                self._fail(f"the answer {self.options['answer']!r} is {answer!r}, not a finite number")
            if "tolerance" not in self.options:
                self._fail("a numeric question needs :tolerance:")
            node["answer"] = float(answer)
            node["tolerance"] = float(self.options["tolerance"])
            node["display"] = format(float(answer), self.options.get("format") or ".3g")
            node["tolerance_display"] = format(node["tolerance"], "g")
        node += form
        for raw in feedback:
            if isinstance(raw, selfcheck_feedback):
                node += raw
                continue
            key, value = raw["key"], ""
            if key not in (CORRECT, OTHERWISE):
                if node["kind"] != "number":
                    self._fail(
                        f"feedback {key!r}: a choice takes only 'correct' and 'otherwise' "
                        "(each option carries its own explanation)"
                    )
                try:
                    value = _glued(self.state.document, key)
                except ValueError as err:
                    self._fail(str(err))
                if not isinstance(value, (int, float)) or not math.isfinite(value):
                    self._fail(f"the misconception {key!r} is {value!r}, not a finite number")
                if abs(float(value) - node["answer"]) <= node["tolerance"]:
                    self._fail(
                        f"the misconception {key!r} = {value} is within the tolerance "
                        f"of the answer {node['answer']}: a reader could not tell them apart"
                    )
                value = repr(float(value))
            fb = selfcheck_feedback(key=key, value=value)
            fb.extend(_without_verdict(list(raw.children)))
            node += fb
        node.source, node.line = self.get_source_info()
        return [node]


def placed_choices(choices: list, answer: str, key: str) -> list:
    """The options in the order a reader sees them: the right one at a place drawn from
    ``key`` (the page and the question, so every build puts it at the same place), the others
    in their written order.  Written by hand, the right option was the middle one in 10 of 16
    questions."""
    right = [c for c in choices if c["choice"] == answer]
    others = [c for c in choices if c["choice"] != answer]
    place = int(fnv1a(key), 16) % len(choices)
    return others[:place] + right + others[place:]


# ---------------------------------------------------------------- answers out of the page source
#: Grid steps per tolerance: a number is checked by the hash of its place on a grid this fine.
GRID = 16


def fnv1a(text: str) -> str:
    """The 32-bit FNV-1a hash of ``text`` (UTF-8), as 8 hex digits (``selfcheck.js`` has the same)."""
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def answer_hashes(answer: float, tolerance: float, salt: str) -> tuple[float, list[str]]:
    """``(step, hashes)``: a reader's number ``x`` is right when the hash of ``salt:k``, with
    ``k = round(x / step)``, is one of ``hashes``, the places ``k`` with ``|k step - answer| <=
    tolerance - step / 2`` (every ``x`` within ``tolerance - step`` of the answer is right, none
    further than ``tolerance``)."""
    step = tolerance / GRID
    lo = math.ceil((answer - tolerance + step / 2) / step)
    hi = math.floor((answer + tolerance - step / 2) / step)
    return step, [fnv1a(f"{salt}:{k}") for k in range(lo, hi + 1)]


def _keystream(salt: str, n: int) -> bytes:
    words = (int(fnv1a(f"{salt}#{i}"), 16) for i in range((n + 3) // 4))
    return b"".join(w.to_bytes(4, "little") for w in words)[:n]


def seal(payload: Any, salt: str) -> str:
    """``payload`` as JSON, XOR-ed with a key stream drawn from ``salt`` and base64-encoded:
    what the page's script needs of a numeric answer (its printed form, and whether a wrong
    number is too large or too small), not readable in the page source."""
    import base64
    import json

    data = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(bytes(a ^ b for a, b in zip(data, _keystream(salt, len(data))))).decode("ascii")


def unseal(sealed: str, salt: str) -> Any:
    """The inverse of :func:`seal` (for the tests)."""
    import base64
    import json

    data = base64.b64decode(sealed)
    return json.loads(bytes(a ^ b for a, b in zip(data, _keystream(salt, len(data)))).decode("utf-8"))


# ---------------------------------------------------------------- HTML
def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def visit_self_check_html(self: Any, node: self_check) -> None:
    """The question's box.  Its answer is not in the page in plain form: ``data-answer`` is
    the salted hash of the right option's id, or of the grid places of the right numbers
    (:func:`answer_hashes`); a number's printed answer and its side are sealed (:func:`seal`)."""
    salt = fnv1a(f"{self.builder.current_docname}/{node['qid']}")
    data = {"data-kind": node["kind"], "data-salt": salt}
    if node["kind"] == "number":
        step, hashes = answer_hashes(node["answer"], node["tolerance"], salt)
        data["data-answer"] = " ".join(hashes)
        data["data-step"] = repr(step)
        data["data-tolerance"] = repr(node["tolerance"])
        data["data-sealed"] = seal({"answer": node["answer"], "display": node["display"]}, salt)
    else:
        data["data-answer"] = fnv1a(f"{salt}:{node['answer']}")
    attrs = " ".join(f'{k}="{_attr(v)}"' for k, v in data.items())
    qid = node["qid"]
    self.body.append(
        f'<div class="self-check" id="{_attr(qid)}" {attrs} role="group" '
        f'aria-labelledby="{_attr(qid)}-title">'
        f'<p class="self-check-title" id="{_attr(qid)}-title">Self-check {node["number"]}</p>'
    )


def depart_self_check_html(self: Any, node: self_check) -> None:
    self.body.append(
        f'<div class="self-check-result" id="{_attr(node["qid"])}-result" '
        'role="status" aria-live="polite" aria-atomic="true"></div></div>\n'
    )


def visit_selfcheck_form_html(self: Any, node: selfcheck_form) -> None:
    parent = node.parent
    qid = _attr(node["qid"])
    self.body.append(f'<form class="self-check-form" novalidate data-for="{qid}">')
    if parent["kind"] == "number":
        self.body.append(
            f'<label for="{qid}-input">Your answer (a number; within '
            f"{_attr(parent['tolerance_display'])} counts as right)</label>"
            f'<span class="self-check-row"><input id="{qid}-input" class="self-check-input" '
            'type="text" inputmode="decimal" autocomplete="off" spellcheck="false" '
            f'aria-describedby="{qid}-result">'
            '<button type="submit" class="self-check-button">Check</button></span>'
        )
    else:
        self.body.append('<fieldset class="self-check-options"><legend>Choose one answer</legend>')


def depart_selfcheck_form_html(self: Any, node: selfcheck_form) -> None:
    if node.parent["kind"] == "choice":
        self.body.append('</fieldset><button type="submit" class="self-check-button">Check</button>')
    self.body.append("</form>")


def visit_selfcheck_option_html(self: Any, node: selfcheck_option) -> None:
    oid = f"{_attr(node['qid'])}-option-{node['index']}"
    self.body.append(
        f'<div class="self-check-option"><input type="radio" id="{oid}" '
        f'name="{_attr(node["qid"])}-choice" value="{_attr(node["choice"])}">'
        f'<label for="{oid}">'
    )


def depart_selfcheck_option_html(self: Any, node: selfcheck_option) -> None:
    self.body.append("</label></div>")


def visit_selfcheck_feedback_html(self: Any, node: selfcheck_feedback) -> None:
    value = f' data-value="{_attr(node["value"])}"' if node.get("value") else ""
    self.body.append(f'<div class="self-check-feedback" data-for="{_attr(node["key"])}"{value} hidden>')


def depart_selfcheck_feedback_html(self: Any, node: selfcheck_feedback) -> None:
    self.body.append("</div>")


def _skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


# ---------------------------------------------------------------- other formats (the PDF)
def _letter(i: int) -> str:
    return "abcdefghij"[i]


def _static_question(node: self_check) -> tuple[nodes.Node, list[nodes.Node]]:
    """A question as plain docutils nodes, and its answer paragraphs."""
    number, kind = node["number"], node["kind"]
    box = nodes.admonition("", classes=["self-check"])
    box += nodes.title("", f"Self-check {number}")
    question = next(c for c in node.children if isinstance(c, nodes.container))
    box.extend(c.deepcopy() for c in question.children)
    feedback = {c["key"]: c for c in node.children if isinstance(c, selfcheck_feedback)}
    answer: list[nodes.Node] = []
    head = nodes.paragraph()
    head += nodes.strong("", f"Self-check {number}. ")
    if kind == "choice":
        form = next(c for c in node.children if isinstance(c, selfcheck_form))
        options = [c for c in form.children if isinstance(c, selfcheck_option)]
        items = nodes.enumerated_list(enumtype="loweralpha", prefix="(", suffix=")")
        right = 0
        for i, opt in enumerate(options):
            items += nodes.list_item("", nodes.paragraph("", "", *[c.deepcopy() for c in opt[0].children]))
            if opt["correct"]:
                right = i
        box += items
        head += nodes.Text(f"Answer ({_letter(right)}). ")
        answer.append(head)
        fb = feedback.get(options[right]["choice"])
        if fb is not None:
            answer.extend(c.deepcopy() for c in fb.children)
    else:
        box += nodes.paragraph("", f"Answer with a number (within {node['tolerance_display']}).")
        head += nodes.Text(f"Answer: {node['display']}. ")
        answer.append(head)
    if CORRECT in feedback:
        answer.extend(c.deepcopy() for c in feedback[CORRECT].children)
    return box, answer


def _static_doctree(app: Any, doctree: nodes.document) -> None:
    """Outside HTML: questions as boxes, their answers in a last section of the chapter.

    Done when the page is read, so it is in the doctrees that builder pickles: the PDF
    is built in a folder of its own (``scripts/build_pdf.sh``), never sharing its doctrees
    with the HTML build.  (On the resolved tree the LaTeX builder assembles for the whole
    book, sphinx-jupyterbook-latex has moved the chapters' sections out of their
    ``start_of_file`` nodes, so the end of a chapter can no longer be found there.)"""
    if getattr(app.builder, "format", "") == "html":
        return
    found = list(doctree.findall(self_check))
    if not found:
        return
    answers: list[nodes.Node] = []
    for node in found:
        box, answer = _static_question(node)
        box["ids"] = list(node["ids"])
        node.replace_self(box)
        answers.extend(answer)
    docname = app.env.docname
    section = nodes.section(
        ids=[f"self-check-answers-{docname.replace('/', '-')}"], names=[f"answers to the self-checks ({docname})"]
    )
    section += nodes.title("", "Answers to the self-checks")
    section.extend(answers)
    top = next((s for s in doctree.children if isinstance(s, nodes.section)), None)
    (top if top is not None else doctree).append(section)


#: Classes of what the browser may leave unlaid-out far from the viewport (``site.css_t``, "long
#: pages"): a second-level section without a question, and each block of one with a question but
#: the blocks that hold it (a subsection that holds it: each of its blocks but those, and so on).
FAR_SECTION = "seqrmt-far-section"
FAR_BLOCK = "seqrmt-far-block"
#: Nodes whose HTML is their children's alone (sphinx-proof's proof): the class goes to those.
NO_ELEMENT = ("proof_node",)


def _has_question(node: nodes.Node) -> bool:
    return next(iter(node.findall(self_check)), None) is not None


def mark_far_blocks(doctree: nodes.document) -> None:
    """Class the second-level sections of an HTML page (and, in those with a question, each
    block without one, down through the subsections that hold it) :data:`FAR_SECTION` and
    :data:`FAR_BLOCK`.

    Decided here, once, rather than by ``:has(.self-check)`` in the stylesheet: a browser
    re-evaluates such a selector on every change inside the page, and while a reader types
    into a live-code editor every key cost a style pass over the whole chapter (120 ms a key
    on chapter 7, 12 ms with the classes)."""

    def far(block: nodes.Element) -> None:
        if type(block).__name__ in NO_ELEMENT:
            for child in block.children:
                if isinstance(child, nodes.Element):
                    far(child)
        else:
            block["classes"].append(FAR_BLOCK)

    def blocks(section: nodes.section) -> None:
        for block in section.children:
            if not isinstance(block, nodes.Element):
                continue
            if not _has_question(block):
                far(block)
            elif isinstance(block, nodes.section):  # a subsection with the question: its blocks
                blocks(block)

    for top in doctree.children:
        if not isinstance(top, nodes.section):
            continue
        for section in top.children:
            if not isinstance(section, nodes.section):
                continue
            if not _has_question(section):
                section["classes"].append(FAR_SECTION)
            else:
                blocks(section)


def _mark_far_blocks(app: Any, doctree: nodes.document, docname: str) -> None:
    if getattr(app.builder, "format", "") == "html":
        mark_far_blocks(doctree)


def _page_assets(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """The script and the stylesheet on the pages that have questions only."""
    if doctree is not None and next(iter(doctree.findall(self_check)), None) is not None:
        app.add_css_file("seqrmt/selfcheck.css", priority=900)
        app.add_js_file("seqrmt/selfcheck.js", priority=900, defer="defer")


def setup(app: Any) -> dict[str, Any]:
    skip = (_skip, None)
    app.add_node(self_check, html=(visit_self_check_html, depart_self_check_html), latex=skip, text=skip)
    app.add_node(selfcheck_form, html=(visit_selfcheck_form_html, depart_selfcheck_form_html), latex=skip, text=skip)
    app.add_node(
        selfcheck_option, html=(visit_selfcheck_option_html, depart_selfcheck_option_html), latex=skip, text=skip
    )
    app.add_node(
        selfcheck_feedback, html=(visit_selfcheck_feedback_html, depart_selfcheck_feedback_html), latex=skip, text=skip
    )
    app.add_directive("self-check", SelfCheckDirective)
    app.add_directive("choice", ChoiceDirective)
    app.add_directive("feedback", FeedbackDirective)
    # Before the collectors (table of contents, sections) read the doctree.
    app.connect("doctree-read", _static_doctree, priority=100)
    app.connect("doctree-resolved", _mark_far_blocks)
    app.connect("html-page-context", _page_assets)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
