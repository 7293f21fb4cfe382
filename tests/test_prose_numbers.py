"""Numbers in the book's prose come from its code.

A decimal with two or more digits after the point, typed in a chapter's prose, is a
computed result unless the chapter's own code contains the same number (a parameter
such as ``gamma = 0.25``).  Computed results are pasted with myst-nb's ``glue``
(``{glue:text}`key:.3f```), so prose cannot drift from what the code prints.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))

_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d{2,}(?![\w.])")
_GLUE = re.compile(r"\{glue:[a-z]*\}`[^`]*`")
_SKIP = re.compile(r"https?://\S+|arXiv:\s*\S+|\{cite[a-z:]*\}`[^`]*`|\]\([^)]*\)")


def _decimals(text: str) -> set[str]:
    return set(_DECIMAL.findall(text))


def prose_numbers_not_in_code(path: Path) -> list[str]:
    """Typed decimals (>= 2 decimals) of the prose that the notebook's code does not contain."""
    cells = json.loads(path.read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    in_code = {float(s) for s in _decimals(code)}
    bad = []
    for c in cells:
        if c["cell_type"] != "markdown":
            continue
        text = _SKIP.sub(" ", _GLUE.sub(" ", "".join(c["source"])))
        bad += [s for s in sorted(_decimals(text)) if float(s) not in in_code]
    return bad


def test_scanner_flags_a_typed_result(tmp_path):
    nb = {
        "cells": [
            {"cell_type": "code", "source": ["gamma = 0.25\n"]},
            {
                "cell_type": "markdown",
                "source": [
                    "At $\\gamma = 0.25$ the outlier is at 1.85, see {glue:text}`top:.3f` and arXiv:2605.06826."
                ],
            },
        ]
    }
    p = tmp_path / "x.ipynb"
    p.write_text(json.dumps(nb))
    assert prose_numbers_not_in_code(p) == ["1.85"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_prose_decimals_are_glued_or_parameters(path):
    bad = prose_numbers_not_in_code(path)
    assert not bad, (
        f"{path.name}: typed decimals not produced by glue and absent from the code: {bad}; "
        "glue them ({glue:text}`key:.3f`) or compute them in the chapter"
    )
