"""The back-of-book index: concept entries (``{index}`` directives where a concept is developed,
and the glossary's terms), the General Index page of the site and the index of the PDF."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Concepts the index must list, each developed in a chapter.
CONCEPTS = (
    "BBP transition",
    "Rayleigh quotient",
    "Stieltjes transform",
    "S-transform",
    "free multiplicative convolution",
    "causal attention",
    "fixed-T bulk",
    "finite-size scaling",
)


def _index_entries() -> list[str]:
    entries = []
    for nb in sorted((ROOT / "book").glob("*.ipynb")):
        text = "\n".join(
            "".join(c["source"])
            for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "markdown"
        )
        for line in re.findall(r"^```\{index\} (.+)$", text, re.M):
            entries += [e.strip() for e in line.split(",") if e.strip()]
    return entries


def test_the_chapters_index_their_concepts() -> None:
    entries = _index_entries()
    assert len(entries) >= 40, f"only {len(entries)} index entries in the chapters"
    for concept in CONCEPTS:
        assert any(e.split(";")[0].strip() == concept for e in entries), concept


def test_the_site_has_a_general_index_of_the_concepts() -> None:
    genindex = ROOT / "_build" / "html" / "genindex.html"
    if not genindex.is_file():
        pytest.skip("no build of the site")
    text = genindex.read_text(encoding="utf-8")
    for concept in CONCEPTS:
        assert re.search(rf">\s*{re.escape(concept)}", text), f"{concept} is not in the General Index"
    assert re.search(r'href="book/0[0-9]_[a-z_]+\.html#index-\d+"', text)  # entries point into chapters
    glossary = (ROOT / "_build" / "html" / "book" / "glossary.html").read_text(encoding="utf-8")
    assert 'href="../genindex.html"' in glossary  # a reader finds it


def test_the_pdf_has_the_index() -> None:
    ind = ROOT / "_build" / "pdf" / "_build" / "latex" / "seqrmt-book.ind"
    if not ind.is_file():
        pytest.skip("no PDF build (scripts/build_pdf.sh)")
    text = ind.read_text(encoding="utf-8", errors="replace")
    for concept in ("BBP transition", "Rayleigh quotient", "Stieltjes transform"):
        assert concept in text, f"{concept} is not in the PDF's index"
