"""Static checks of the lecture decks (``slides/*.ipynb``), without executing them.

* every numbered chapter listed in ``_toc.yml`` (``book/00_toolkit`` to
  ``book/08_learned_attention``, and any later one) has a deck ``slides/<chapter>.ipynb``;
* every deck has at least 8 slides (as ``scripts/build_slides.py`` cuts them), at least
  two figures, and is stored without outputs;
* **slides and book cannot disagree**: every ``srp.<function>(...)`` call of a deck (a
  figure or the data behind one) appears, with the same arguments, in a code cell of its
  chapter; so a deck shows the chapter's figures, drawn by the same ``seqrmt.plots``
  functions with the same parameters;
* figures get their alt text from the figure itself (``seqrmt.plots.set_alt``), never typed
  in the deck: no cell carries an ``alt`` metadata entry;
* every cell's ``slide_type`` is one that the build script understands;
* every slide has speaker notes (``slide_type: notes`` cells, rendered as reveal.js
  ``<aside class="notes">``);
* the "Exercises to try" slide lists every exercise of its chapter, linked by its label, with
  the book's difficulty stars (a wrong or missing star level is caught).

The decks are executed and rendered by ``scripts/build_slides.py``; the rendered decks
are checked in a browser by ``tests/browser/test_slides.py``.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from pathlib import Path

import pytest
from book_toc import toc_pages

ROOT = Path(__file__).resolve().parents[1]
SLIDES = ROOT / "slides"
#: A numbered chapter of the book (``book/00_toolkit`` ... ``book/08_learned_attention``).
CHAPTER_RE = re.compile(r"^book/(\d\d_\w+)$")


def _build_module():
    spec = importlib.util.spec_from_file_location("build_slides", ROOT / "scripts" / "build_slides.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def toc_chapters() -> list[str]:
    names = []
    for f in toc_pages():
        m = CHAPTER_RE.match(f.removesuffix(".ipynb"))
        if m:
            names.append(m.group(1))
    return names


DECKS = sorted(p.stem for p in SLIDES.glob("[0-9]*.ipynb"))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _src(cell: dict) -> str:
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def _calls(code: str) -> list[str]:
    """Source text of every call ``srp.<name>(...)`` in ``code``, whitespace-normalized."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics: drop those lines
        tree = ast.parse("\n".join(l for l in code.splitlines() if not l.lstrip().startswith(("%", "!"))))
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "srp"
        ):
            out.append(ast.unparse(node))
    return out


def _chapter_calls(chapter: str) -> set[str]:
    calls = set()
    for cell in _cells(ROOT / "book" / f"{chapter}.ipynb"):
        if cell["cell_type"] == "code":
            calls.update(_calls(_src(cell)))
    return calls


def test_every_chapter_has_a_deck():
    chapters = toc_chapters()
    assert chapters, "no chapter book/NN_* found in _toc.yml"
    missing = [c for c in chapters if c not in DECKS]
    assert not missing, f"chapters without a deck slides/<chapter>.ipynb: {missing}"


def test_every_numbered_chapter_is_required():
    """The chapters that must have a deck are every numbered page of the table of contents."""
    numbered = [Path(f).name.removesuffix(".ipynb") for f in toc_pages() if re.match(r"^book/\d", f)]
    assert toc_chapters() == numbered
    assert "08_learned_attention" in toc_chapters()


def test_decks_have_a_chapter():
    orphans = [d for d in DECKS if not (ROOT / "book" / f"{d}.ipynb").exists()]
    assert not orphans, f"decks without a chapter of the same name in book/: {orphans}"


@pytest.mark.parametrize("deck", DECKS)
def test_deck_structure(deck):
    build = _build_module()
    cells = _cells(SLIDES / f"{deck}.ipynb")
    kinds = [build.slide_type(c) for c in cells]  # raises on an unknown slide_type
    shown = [k for k in kinds if k != "skip"]
    n_slides = sum(1 for i, k in enumerate(shown) if i == 0 or k in ("slide", "subslide"))
    assert n_slides >= 8, f"{deck}: {n_slides} slides, at least 8 required"
    for i, c in enumerate(cells):
        if c["cell_type"] == "code":
            assert not c.get("outputs") and c.get("execution_count") is None, f"{deck}: cell {i} is stored with outputs"
        assert c.get("id"), f"{deck}: cell {i} has no id"
        assert "alt" not in c["metadata"], f"{deck}: cell {i} types an alt text (use set_alt in the plot)"


@pytest.mark.parametrize("deck", DECKS)
def test_deck_figures_are_the_chapters(deck):
    chapter = _chapter_calls(deck)
    figures = 0
    for i, cell in enumerate(_cells(SLIDES / f"{deck}.ipynb")):
        if cell["cell_type"] != "code":
            continue
        calls = _calls(_src(cell))
        for call in calls:
            assert call in chapter, (
                f"{deck}: cell {i} calls {call}, which book/{deck}.ipynb never calls with these "
                "arguments: a deck must show the chapter's own figures"
            )
        # the last expression of the cell is what the cell displays
        body = ast.parse(_src(cell)).body
        shows_figure = (
            body
            and isinstance(body[-1], ast.Expr)
            and isinstance(body[-1].value, ast.Call)
            and _calls(ast.unparse(body[-1].value))[:1] == [ast.unparse(body[-1].value)]
        )
        if shows_figure:
            figures += 1
    assert figures >= 2, f"{deck}: {figures} figures, at least 2 required"


# ------------------------------------------------------------------ speaker notes, difficulty
_EXERCISE = re.compile(r"^`{3,}\{exercise(?:-start)?\}\s*(.*?)\s*\n:label:\s*(\S+)", re.M)
_STARS = re.compile(r"^(★+)")
_DECK_EXERCISE = re.compile(r"\[(★+)[^\]]*\]\(\.\./book/(0\d_\w+)\.html#([\w-]+)\)")


def book_exercises(chapter: str) -> dict[str, str]:
    """``{label: stars}`` of the exercises of a chapter, read from its titles."""
    out = {}
    for cell in _cells(ROOT / "book" / f"{chapter}.ipynb"):
        if cell["cell_type"] == "markdown":
            for title, label in _EXERCISE.findall(_src(cell)):
                m = _STARS.match(title)
                out[label] = m.group(1) if m else ""
    return out


def star_mismatches(deck_text: str, chapter: str) -> list[str]:
    """Exercises whose stars on the deck differ from the book's, or that the deck leaves out."""
    book = book_exercises(chapter)
    listed = {}
    bad = []
    for stars, page, label in _DECK_EXERCISE.findall(deck_text):
        if page != chapter or label not in book:
            bad.append(f"{label}: not an exercise of {chapter}")
            continue
        listed[label] = stars
        if stars != book[label]:
            bad.append(f"{label}: {stars} on the slide, {book[label]} in the book")
    bad += [f"{label}: missing from the deck" for label in book if label not in listed]
    return bad


@pytest.mark.parametrize("deck", DECKS)
def test_exercise_stars_agree_with_the_book(deck):
    text = "\n".join(_src(c) for c in _cells(SLIDES / f"{deck}.ipynb") if c["cell_type"] == "markdown")
    assert book_exercises(deck), f"book/{deck}.ipynb has no exercise"
    assert not star_mismatches(text, deck)


def test_a_wrong_star_level_is_caught():
    deck = "03_bbp"
    text = "\n".join(_src(c) for c in _cells(SLIDES / f"{deck}.ipynb") if c["cell_type"] == "markdown")
    label, stars = next((k, v) for k, v in book_exercises(deck).items() if len(v) == 3)
    planted = re.sub(r"\[★+ ([^\]]*\]\(\.\./book/03_bbp\.html#" + re.escape(label) + r"\))", r"[★★ \1", text)
    assert planted != text
    assert any(label in m for m in star_mismatches(planted, deck))
    dropped = re.sub(r"^\* \[[^\n]*#" + re.escape(label) + r"\)\n", "", text, flags=re.M)
    assert any("missing" in m for m in star_mismatches(dropped, deck))


@pytest.mark.parametrize("deck", DECKS)
def test_every_slide_has_speaker_notes(deck):
    build = _build_module()
    cells = _cells(SLIDES / f"{deck}.ipynb")
    slides, current = [], None
    for c in cells:
        kind = build.slide_type(c)
        if kind == "skip":
            continue
        if kind in ("slide", "subslide") or current is None:
            current = {"notes": ""}
            slides.append(current)
        if kind == "notes":
            current["notes"] += _src(c)
    empty = [i + 1 for i, s in enumerate(slides) if len(s["notes"].split()) < 5]
    assert not empty, f"{deck}: slides without speaker notes: {empty}"


def test_notes_are_rendered_as_reveal_asides():
    build = _build_module()
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("## A slide", metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_markdown_cell("Say this out loud.", metadata={"slideshow": {"slide_type": "notes"}}),
        nbformat.v4.new_markdown_cell("## Next", metadata={"slideshow": {"slide_type": "slide"}}),
    ]
    sections = build.deck_slides(nb, "scratch")
    assert len(sections) == 2
    assert re.search(r'<aside class="notes">\s*<p>Say this out loud\.</p>\s*</aside>', sections[0])
    assert "aside" not in sections[1]
