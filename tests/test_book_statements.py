"""The book's formal statements are labelled, sourced and cross-referenced correctly.

* every ``{prf:...}`` directive except ``proof`` has a ``:label:``, and labels are unique
  across the book (sphinx-proof otherwise numbers unlabelled ones per page and warns about
  duplicate automatic labels);
* every ``{prf:ref}`` names a label that exists;
* every theorem and proposition opens with a provenance paragraph saying whether the
  result is stated in the paper's summaries, derived in this book, or a reading of the paper;
* a remark titled "Derivation sketch" names, in its first sentence, the step it assumes;
* the labels the "Results at a glance" page is built on exist.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"

_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{prf:(?P<kind>\w+)\}(?P<title>[^\n]*)\n"
                   r"(?P<opts>(?::[\w-]+:[^\n]*\n)*)(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S)
_REF = re.compile(r"\{prf:ref\}`(?:[^`<]*<)?([\w-]+)>?`")
_PROVENANCE = re.compile(r"^\*\*Provenance\.\*\*\s+(Stated in the paper's summaries|Derived in this book"
                         r"|This book's reading of the paper|Classical result)")

#: The results every reader of the book is told about (the "Results at a glance" page).
KEY_RESULTS = ("def-table", "def-signs", "def-pooling", "def-sample-cov", "def-regime",
               "thm-bulk", "prop-conditional-gmp", "thm-fixed-T-bulk", "prop-pooled-decomposition",
               "thm-population", "thm-sample", "thm-alignment", "thm-finite-table-spike",
               "prop-mean-outlier", "thm-optimal-weights", "prop-simplex-weights",
               "prop-prefix-weights", "thm-causal-limit", "rem-causal-convention", "prop-ks-window")


def _pages() -> dict[str, str]:
    out = {}
    for p in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(p.read_text())["cells"]
        out[p.name] = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for p in sorted(BOOK.glob("*.md")):
        out[p.name] = p.read_text()
    return out


def _directives():
    for page, text in _pages().items():
        for m in _OPEN.finditer(text):
            label = re.search(r"^:label:\s*(\S+)", m.group("opts"), re.M)
            yield page, m.group("kind"), m.group("title").strip(), label.group(1) if label else None, m.group("body")


def test_the_parser_finds_the_statements():
    kinds = {k for _, k, _, _, _ in _directives()}
    assert {"theorem", "proposition", "definition", "proof", "remark"} <= kinds


def test_every_statement_has_a_unique_label():
    seen: dict[str, str] = {}
    for page, kind, title, label, _ in _directives():
        if kind == "proof":
            continue
        assert label, f"{page}: unlabelled {{prf:{kind}}} {title!r}"
        assert label not in seen, f"label {label!r} defined in {seen[label]} and {page}"
        seen[label] = page


def test_every_reference_resolves():
    labels = {label for *_, label, _ in _directives() if label}
    for page, text in _pages().items():
        missing = sorted(set(_REF.findall(text)) - labels)
        assert not missing, f"{page}: {{prf:ref}} to undefined labels {missing}"


def test_the_key_results_are_stated():
    labels = {label for *_, label, _ in _directives() if label}
    assert not sorted(set(KEY_RESULTS) - labels)


@pytest.mark.parametrize("kind", ["theorem", "proposition"])
def test_results_say_where_they_come_from(kind):
    for page, k, title, label, body in _directives():
        if k == kind:
            first = body.strip().split("\n\n")[0]
            assert _PROVENANCE.match(first), f"{page} {label}: the first paragraph must be the provenance"


def test_derivation_sketches_name_their_assumption():
    for page, kind, title, label, body in _directives():
        if kind == "remark" and title.lower().startswith("derivation sketch"):
            first = re.split(r"(?<=[.:])\s", body.strip(), maxsplit=1)[0].lower()
            assert "assum" in first, f"{page} {label}: a derivation sketch opens by naming the step it assumes"


#: Kinds of formal statement that the "Results at a glance" page must list, every one of them.
_LISTED_KINDS = ("theorem", "proposition", "lemma", "corollary", "conjecture", "assumption")


def test_results_at_a_glance_lists_every_result():
    page = (BOOK / "results_at_a_glance.md").read_text()
    listed = set(_REF.findall(page))
    missing = sorted(label for p, kind, _, label, _ in _directives()
                     if kind in _LISTED_KINDS and p != "results_at_a_glance.md" and label not in listed)
    assert not missing, f"results_at_a_glance.md does not list {missing}"
