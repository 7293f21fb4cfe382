"""Every page of the book has a meta description (``<meta name="description">``): notebooks
in their metadata (``myst: html_meta: description``), Markdown pages in their front matter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from book_toc import toc_pages

ROOT = Path(__file__).resolve().parents[1]


def description(page: str) -> str | None:
    nb = ROOT / f"{page}.ipynb"
    if nb.exists():
        meta = json.loads(nb.read_text(encoding="utf-8"))["metadata"]
        return ((meta.get("myst") or {}).get("html_meta") or {}).get("description")
    md = ROOT / f"{page}.md"
    text = md.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return None
    front = yaml.safe_load(text.split("\n---\n", 1)[0][4:]) or {}
    return ((front.get("myst") or {}).get("html_meta") or {}).get("description")


@pytest.mark.parametrize("page", toc_pages())
def test_page_has_a_meta_description(page):
    desc = description(page)
    assert desc, f"{page} has no myst html_meta description (see the book's accessibility notes)"
    assert 50 <= len(desc) <= 200, f"{page}: description of {len(desc)} characters (50-200 wanted)"
    assert "$" not in desc and "{" not in desc


def test_descriptions_are_distinct():
    descs = [description(p) for p in toc_pages()]
    assert len(set(descs)) == len(descs)
