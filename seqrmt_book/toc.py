"""The pages of the book, in the order of its table of contents (``_toc.yml``): shared by the tests
and the scripts that read it (``tests/book_toc.py``, ``scripts/build_downloads.py``)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_pages(toc_file: Path = ROOT / "_toc.yml") -> list[str]:
    """Every page of ``_toc.yml`` (the root first), as written there (``book/01_model``)."""
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8"))
    pages = [str(toc["root"])]

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                pages.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk({k: v for k, v in toc.items() if k != "root"})
    return pages
