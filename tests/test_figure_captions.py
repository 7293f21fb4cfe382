"""Every figure of a chapter is numbered, captioned in typeset math and cited by its number.

A code cell of a chapter notebook that draws a figure (its last statement is a call of a
``seqrmt.plots`` function, of ``live``, or a name bound to one) carries MyST-NB's
``mystnb: figure: {caption, name}`` metadata, which makes the figure a numbered "Fig. n.m"
that ``{numref}`` can cite (``/work``-independent: the notebooks' sources only, no build).
The caption writes its mathematics as math (``$\\rho=0.8$``, not "rho = 0.8"), the prose of
the chapter cites every figure by number, and no prose points at a figure by its position
("the figure below"), which the PDF's page breaks and a phone's layout do not keep.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NOTEBOOKS = sorted(BOOK.glob("0*.ipynb")) + [BOOK / "intro.ipynb"]

#: Functions of ``seqrmt.plots`` that return something other than a figure.
NOT_FIGURES = {"validation_table"}

#: Words of ASCII mathematics that a caption must typeset instead.
GREEK = (
    "alpha beta gamma delta epsilon kappa lambda mu nu rho sigma tau theta xi psi phi chi omega Delta Sigma"
).split()
ASCII_MATH = re.compile(r"\b(" + "|".join(GREEK) + r")\b|[A-Za-z0-9)]\s*(=|<=|>=|\^)\s*[-A-Za-z0-9(]|\b\w+/\w+\b")

#: Prose that points at a figure by its position on the page.
BY_POSITION = re.compile(
    r"\b(figure|figures|histogram|plot|picture)\s+(below|above)\b|\bbelow\s+the\s+figures?\b"
    r"|\bfigure\s+at\s+the\s+top\b",
    re.I,
)


def plot_functions() -> set[str]:
    import seqrmt.plots as srp

    names = set()
    for name in dir(srp):
        obj = getattr(srp, name)
        if name.startswith("_") or not inspect.isfunction(obj) or name in NOT_FIGURES:
            continue
        if inspect.signature(obj).return_annotation is inspect.Signature.empty:
            names.add(name)
    return names


def figure_cells(nb: dict, figures: set[str]) -> list[int]:
    """Indices of the code cells shown on the page whose last statement draws a figure."""
    aliases: set[str] = set()
    bound: set[str] = set()
    found = []

    def draws(value: ast.AST) -> bool:
        if not isinstance(value, ast.Call):
            return False
        f = value.func
        if isinstance(f, ast.Name):
            return f.id == "live"
        return (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id in aliases
            and f.attr in figures
        )

    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(line for line in "".join(cell["source"]).splitlines(True) if not line.lstrip().startswith("%"))
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                aliases.update(a.asname or a.name for a in node.names if a.name == "seqrmt.plots")
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "seqrmt"
                and any(a.name == "plots" for a in node.names)
            ):
                aliases.update(a.asname or a.name for a in node.names if a.name == "plots")
        for node in tree.body:
            if isinstance(node, ast.Assign) and draws(node.value):
                bound.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if "remove-cell" in cell["metadata"].get("tags", []) or not tree.body:
            continue
        last = tree.body[-1]
        if isinstance(last, ast.Expr) and (
            draws(last.value) or (isinstance(last.value, ast.Name) and last.value.id in bound)
        ):
            found.append(i)
    return found


def outside_math(text: str) -> str:
    """The caption without its math (``$...$``) and its roles (``{numref}`...```)."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", text, flags=re.S)
    return re.sub(r"\{[\w:-]+\}`[^`]*`|`[^`]*`", " ", text)


def prose(nb: dict) -> str:
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def caption_problems(nb: dict, figures: set[str]) -> list[str]:
    """What is wrong with the figures of one notebook: missing captions or names, ASCII math,
    figures never cited by number, prose pointing at a position."""
    problems = []
    text = prose(nb)
    for i in figure_cells(nb, figures):
        fig = nb["cells"][i]["metadata"].get("mystnb", {}).get("figure", {})
        caption, name = str(fig.get("caption", "")).strip(), str(fig.get("name", "")).strip()
        if not caption or not name:
            problems.append(f"cell {i}: a figure without a caption and a name (mystnb: figure: caption, name)")
            continue
        if not name.startswith("fig-"):
            problems.append(f"cell {i}: figure name {name!r} does not start with 'fig-'")
        ascii_math = ASCII_MATH.search(outside_math(caption))
        if ascii_math:
            problems.append(f"cell {i} ({name}): caption has ASCII math {ascii_math.group(0)!r}: typeset it as $...$")
        if not re.search(r"\{numref\}`(?:[^`<]*<)?" + re.escape(name) + r">?`", text):
            problems.append(f"cell {i} ({name}): the prose never cites it with {{numref}}")
    for m in BY_POSITION.finditer(text):
        problems.append(f"the prose points at a figure by position: {text[max(0, m.start() - 40) : m.end() + 20]!r}")
    return problems


@pytest.fixture(scope="module")
def figures() -> set[str]:
    return plot_functions()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_numbered_captioned_and_cited(path, figures):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert figure_cells(nb, figures) or path.name.startswith("0"), f"{path.name}: no figure found"
    assert caption_problems(nb, figures) == []


def test_figure_names_unique_across_the_book(figures):
    seen: dict[str, str] = {}
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i in figure_cells(nb, figures):
            name = nb["cells"][i]["metadata"].get("mystnb", {}).get("figure", {}).get("name")
            if name:
                assert name not in seen, f"{name} in {path.name} and {seen[name]}"
                seen[name] = path.name
    assert len(seen) >= 60


def _nb(cells: list[tuple[str, str, dict]]) -> dict:
    return {"cells": [{"cell_type": t, "source": s, "metadata": m} for t, s, m in cells]}


def test_the_check_finds_planted_defects(figures):
    """A figure without a caption, a caption in ASCII, a figure never cited and prose that
    points at a position are each reported; the good notebook is clean."""
    good_meta = {"mystnb": {"figure": {"caption": r"Profiles at $\rho=0.8$.", "name": "fig-x"}}}
    setup = ("code", "import seqrmt.plots as srp\nfig = srp.weights_profiles()", {"tags": ["remove-cell"]})
    good = _nb([setup, ("markdown", "As {numref}`fig-x` shows:", {}), ("code", "fig", good_meta)])
    assert figure_cells(good, figures) == [2]
    assert caption_problems(good, figures) == []
    bare = _nb([setup, ("markdown", "As {numref}`fig-x` shows:", {}), ("code", "srp.weights_profiles()", {})])
    assert "without a caption" in " ".join(caption_problems(bare, figures))
    ascii_meta = {"mystnb": {"figure": {"caption": "Profiles at rho = 0.8, alpha/kappa.", "name": "fig-x"}}}
    ascii_nb = _nb([setup, ("markdown", "As {numref}`fig-x` shows:", {}), ("code", "fig", ascii_meta)])
    assert "ASCII math" in " ".join(caption_problems(ascii_nb, figures))
    uncited = _nb([setup, ("markdown", "The figure below shows it:", {}), ("code", "fig", good_meta)])
    problems = " ".join(caption_problems(uncited, figures))
    assert "never cites" in problems and "by position" in problems
    table = _nb([setup, ("code", "srp.validation_table(rows)", {})])
    assert figure_cells(table, figures) == []
