"""The pages of the book, in table-of-contents order (shared by the tests that read _toc.yml)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_pages(toc_file: Path = ROOT / "_toc.yml") -> list[str]:
    """Every page of ``_toc.yml`` (the root first), as written there (``book/01_model``)."""
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8"))
    pages = [str(toc["root"])]

    def walk(node) -> None:
        if isinstance(node, dict):
            if "file" in node:
                pages.append(str(node["file"]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk({k: v for k, v in toc.items() if k != "root"})
    return pages
