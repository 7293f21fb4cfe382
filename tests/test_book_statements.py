"""The book's formal statements are labelled, sourced and cross-referenced correctly.

* every ``{prf:...}`` directive except ``proof`` has a ``:label:``, and labels are unique
  across the book (sphinx-proof otherwise numbers unlabelled ones per page and warns about
  duplicate automatic labels);
* every ``{prf:ref}`` names a label that exists;
* every theorem, proposition and conjecture opens with a provenance paragraph saying whether
  the result is stated in the paper's summaries, derived in this book, or a reading of the paper;
* a theorem, proposition or lemma has a proof right after it, unless it is a classical result
  recalled with its reference: a statement that rests on an unproved step is a conjecture;
* a conjecture names, by reference, the assumptions (``{prf:assumption}``) it rests on, and every
  assumption is used by some conjecture;
* a remark titled "Derivation sketch" names, in its first sentence, the step it assumes;
* the labels the "Results at a glance" page is built on exist, and that page marks each result's
  status (proved, claim under assumptions, ...).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"

_OPEN = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{prf:(?P<kind>\w+)\}(?P<title>[^\n]*)\n"
    r"(?P<opts>(?::[\w-]+:[^\n]*\n)*)(?P<body>.*?)^(?P=fence)\s*$",
    re.M | re.S,
)
_REF = re.compile(r"\{prf:ref\}`(?:[^`<]*<)?([\w-]+)>?`")
_PROVENANCE = re.compile(
    r"^\*\*Provenance\.\*\*\s+(Stated in the paper's summaries|Derived in this book"
    r"|This book's reading of the paper|Classical result)"
)

#: The results every reader of the book is told about (the "Results at a glance" page).
KEY_RESULTS = (
    "def-table",
    "def-signs",
    "def-pooling",
    "def-sample-cov",
    "def-regime",
    "rem-bulk-paper",
    "thm-bulk",
    "prop-conditional-gmp",
    "thm-fixed-T-bulk",
    "prop-pooled-decomposition",
    "thm-population",
    "def-large-T",
    "thm-sample",
    "thm-alignment",
    "thm-finite-table-spike",
    "prop-fixed-T-top",
    "prop-mean-outlier",
    "thm-optimal-weights",
    "prop-simplex-weights",
    "prop-prefix-weights",
    "thm-causal-limit",
    "rem-causal-convention",
    "prop-ks-window",
    "asm-token-spectrum",
    "asm-dense-limit",
    "asm-sparse-rank",
    "asm-atom-zeros",
    "asm-large-T-edge",
    "asm-concentration",
    "asm-mean-spike",
)

#: Kinds that state a result and must say where it comes from.
RESULT_KINDS = ("theorem", "proposition", "conjecture")


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
    assert {"theorem", "proposition", "definition", "proof", "remark", "conjecture", "assumption"} <= kinds


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


@pytest.mark.parametrize("kind", RESULT_KINDS)
def test_results_say_where_they_come_from(kind):
    found = False
    for page, k, title, label, body in _directives():
        if k == kind:
            found = True
            first = body.strip().split("\n\n")[0]
            assert _PROVENANCE.match(first), f"{page} {label}: the first paragraph must be the provenance"
    assert found, f"no {{prf:{kind}}} found"


def test_theorems_have_proofs():
    """A theorem, proposition or lemma is followed by its proof (a classical result recalled with its
    reference excepted); what rests on an unproved step is a conjecture."""
    items = list(_directives())
    for i, (page, kind, title, label, body) in enumerate(items):
        if kind not in ("theorem", "proposition", "lemma"):
            continue
        first = body.strip().split("\n\n")[0]
        if first.startswith("**Provenance.** Classical result"):
            continue
        nxt = items[i + 1] if i + 1 < len(items) else None
        assert nxt is not None and nxt[0] == page and nxt[1] == "proof", (
            f"{page} {label}: a {kind} needs a proof right after it (or state it as a conjecture)"
        )


def test_conjectures_name_their_assumptions():
    items = list(_directives())
    assumptions = {label for _, k, _, label, _ in items if k == "assumption"}
    assert assumptions, "the book states its unproved steps as {prf:assumption}"
    used = set()
    for page, kind, title, label, body in items:
        if kind == "conjecture":
            named = set(_REF.findall(body)) & assumptions
            assert named, f"{page} {label}: a conjecture refers to the assumptions it rests on"
            used |= named
    assert not sorted(assumptions - used), f"assumptions no conjecture rests on: {sorted(assumptions - used)}"


def test_results_page_marks_the_status():
    """Every result row of the "Results at a glance" page says whether it is proved, a claim under
    assumptions, a reading or a definition; the conjectures are marked as claims, the proved results
    as proved."""
    page = (BOOK / "results_at_a_glance.md").read_text()
    kinds = {label: k for _, k, _, label, _ in _directives() if label}
    table = page.split("## When each result holds")[0]
    rows = re.split(r"^\* - ", table, flags=re.M)[2:]  # skip the text and the header row
    assert rows
    for row in rows:
        labels = _REF.findall(row.split("\n")[0])
        status = re.search(r"\*\*(proved|claim under assumptions|reading|assumption|definition)\*\*", row)
        assert labels and status, f"row without a status marker: {row[:80]!r}"
        for label in labels:
            if kinds.get(label) == "conjecture":
                assert status.group(1) == "claim under assumptions", label
            elif kinds.get(label) in ("theorem", "proposition", "lemma"):
                assert status.group(1) == "proved", label
            elif kinds.get(label) == "assumption":
                assert status.group(1) == "assumption", label


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
    missing = sorted(
        label
        for p, kind, _, label, _ in _directives()
        if kind in _LISTED_KINDS and p != "results_at_a_glance.md" and label not in listed
    )
    assert not missing, f"results_at_a_glance.md does not list {missing}"
