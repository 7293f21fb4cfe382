"""The pages of the book, in table-of-contents order (shared by the tests that read _toc.yml):
``seqrmt_book.toc``."""

from __future__ import annotations

from seqrmt_book.toc import ROOT, toc_pages

__all__ = ["ROOT", "toc_pages"]
