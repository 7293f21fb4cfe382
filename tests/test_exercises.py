"""Every chapter's exercises follow the book's format (sphinx-exercise).

For every chapter notebook ``book/0*.ipynb`` listed in ``_toc.yml``:

* at least five ``exercise`` directives, each titled with its difficulty (★, ★★ or ★★★ and a
  space), at least one titled ``... (proof)`` and one ``... (computation)``;
* every exercise label is ``ch<k>-ex-<n>`` (``k`` the chapter number) and unique in the book;
* every exercise is followed by its solution (same label) before the next exercise;
* the solution of a ``(computation)`` exercise contains a code cell that asserts its answer
  (so running the notebook checks it) and that code cell is not removed from the page;
* no old-style exercises (``**Exercise 3 ...**`` or ``:::{admonition} Solution``) are left;
* no ``{ref}``/``{numref}`` points to an exercise label on another page (it prints "??" in
  the PDF).

Both directive forms are understood: the plain one (``{exercise}`` / ``{solution}``) and the
gated one (``{exercise-start}`` ... ``{exercise-end}``, ``{solution-start}`` ... ``{solution-end}``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"

_DIRECTIVE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<kind>exercise|exercise-start|exercise-end|solution|solution-start|solution-end)\}"
    r"[ \t]*(?P<arg>[^\n]*)\n(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
    re.M,
)
_TITLE = re.compile(r"^(★{1,3}) (?!★)\S")
#: A reference that prints the exercise's number: {numref} always, {ref} without its own text.
_NUMBERED_REF = re.compile(r"\{numref\}`(?:[^`<]*<)?([^`<>]+?)>?`|\{ref\}`([^`<>]+)`")


def chapter_notebooks() -> list[Path]:
    """Chapter notebooks (``book/0*.ipynb``) in the order of ``_toc.yml``."""
    toc = (ROOT / "_toc.yml").read_text()
    files = re.findall(r"^\s*-?\s*file:\s*(\S+)\s*$", toc, re.M)
    out = []
    for f in files:
        p = ROOT / (f if f.endswith(".ipynb") else f + ".ipynb")
        if re.fullmatch(r"0\d_.*\.ipynb", p.name) and p.exists():
            out.append(p)
    return out


@dataclass
class Exercise:
    label: str | None
    title: str
    cell: int
    solution_kind: str | None = None
    solution_label: str | None = None
    solution_code: list[str] = field(default_factory=list)
    solution_closed: bool = False
    solution_code_tags: list[list[str]] = field(default_factory=list)


def _label(opts: str) -> str | None:
    m = re.search(r"^[ \t]*:label:[ \t]*(\S+)", opts, re.M)
    return m.group(1) if m else None


def parse(path: Path) -> tuple[list[Exercise], list[str]]:
    """The exercises of a notebook, with their solutions, and a list of format errors."""
    cells = json.loads(path.read_text())["cells"]
    exercises: list[Exercise] = []
    errors: list[str] = []
    current: Exercise | None = None  # the last exercise seen
    open_solution: Exercise | None = None  # inside solution-start ... solution-end
    open_exercise = False  # inside exercise-start ... exercise-end
    for i, c in enumerate(cells):
        src = "".join(c["source"])
        if c["cell_type"] == "code":
            if open_solution is not None:
                open_solution.solution_code.append(src)
                open_solution.solution_code_tags.append(list(c.get("metadata", {}).get("tags", [])))
            continue
        if c["cell_type"] != "markdown":
            continue
        for m in _DIRECTIVE.finditer(src):
            kind, arg, opts = m.group("kind"), m.group("arg").strip(), m.group("opts")
            if kind in ("exercise", "exercise-start"):
                if open_solution is not None:
                    errors.append(f"cell {i}: exercise inside the open solution of {open_solution.label}")
                    open_solution = None
                if current is not None and current.solution_kind is None:
                    errors.append(f"exercise {current.label}: no solution before the next exercise")
                current = Exercise(_label(opts), arg, i)
                exercises.append(current)
                open_exercise = kind == "exercise-start"
            elif kind == "exercise-end":
                if not open_exercise:
                    errors.append(f"cell {i}: exercise-end without exercise-start")
                open_exercise = False
            elif kind in ("solution", "solution-start"):
                if current is None or current.solution_kind is not None:
                    errors.append(f"cell {i}: solution {arg} does not follow an exercise")
                    continue
                current.solution_kind = kind
                current.solution_label = arg
                if kind == "solution-start":
                    open_solution = current
                else:
                    current.solution_closed = True
            elif kind == "solution-end":
                if open_solution is None:
                    errors.append(f"cell {i}: solution-end without solution-start")
                else:
                    open_solution.solution_closed = True
                    open_solution = None
    if open_solution is not None:
        errors.append(f"solution of {open_solution.label} is never closed (solution-end)")
    if current is not None and current.solution_kind is None:
        errors.append(f"exercise {current.label}: no solution")
    return exercises, errors


def _chapter_number(path: Path) -> int:
    return int(path.name[:2])


def _markdown(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


NOTEBOOKS = chapter_notebooks()
IDS = [p.name for p in NOTEBOOKS]


def test_the_toc_lists_chapters():
    assert len(NOTEBOOKS) >= 7, [p.name for p in NOTEBOOKS]


def test_the_parser_reads_both_forms():
    """The parser on a tiny synthetic notebook: plain and gated forms, and the errors it must catch."""

    def md(s):
        return {"cell_type": "markdown", "source": s, "metadata": {}}

    def code(s):
        return {"cell_type": "code", "source": s, "metadata": {}, "outputs": []}

    cells = [
        md("```{exercise} ★ A\n:label: ch9-ex-1\nText\n```\n\n```{solution} ch9-ex-1\n:class: dropdown\nWhy.\n```"),
        md("```{exercise-start} ★★ B (computation)\n:label: ch9-ex-2\n```\nText\n```{exercise-end}\n```"),
        md("```{solution-start} ch9-ex-2\n:class: dropdown\n```\nReason."),
        code("assert 1 + 1 == 2"),
        md("```{solution-end}\n```"),
        md("```{exercise} ★★★ C (proof)\n:label: ch9-ex-3\nText\n```"),
    ]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "09_x.ipynb"
        p.write_text(json.dumps({"cells": cells}))
        ex, errors = parse(p)
    assert [e.label for e in ex] == ["ch9-ex-1", "ch9-ex-2", "ch9-ex-3"]
    assert [e.title for e in ex] == ["★ A", "★★ B (computation)", "★★★ C (proof)"]
    assert ex[1].solution_code == ["assert 1 + 1 == 2"] and ex[1].solution_closed
    assert errors == ["exercise ch9-ex-3: no solution"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_exercises_are_well_formed(path):
    exercises, errors = parse(path)
    assert not errors, errors
    k = _chapter_number(path)
    assert len(exercises) >= 5, f"{path.name}: only {len(exercises)} exercises"
    for e in exercises:
        assert _TITLE.match(e.title), f"{path.name}: title {e.title!r} must start with ★, ★★ or ★★★ and a space"
        assert e.label is not None, f"{path.name}: exercise {e.title!r} has no :label:"
        assert re.fullmatch(rf"ch{k}-ex-\d+", e.label), f"{path.name}: label {e.label!r} is not ch{k}-ex-<n>"
        assert e.solution_label == e.label, f"{path.name}: solution {e.solution_label!r} follows exercise {e.label!r}"
        assert e.solution_closed
    titles = [e.title for e in exercises]
    assert any(t.endswith("(proof)") for t in titles), f"{path.name}: no (proof) exercise"
    assert any(t.endswith("(computation)") for t in titles), f"{path.name}: no (computation) exercise"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_computations_are_checked(path):
    """A computation's solution runs code that asserts its answer, visibly (not a removed cell)."""
    for e in parse(path)[0]:
        if not e.title.endswith("(computation)"):
            continue
        assert e.solution_kind == "solution-start", f"{e.label}: a computation needs the gated solution form"
        asserting = [
            tags for src, tags in zip(e.solution_code, e.solution_code_tags) if re.search(r"^\s*assert\b", src, re.M)
        ]
        assert asserting, f"{e.label}: no code cell with an assert in the solution"
        assert all("remove-cell" not in t and "remove-input" not in t for t in asserting), (
            f"{e.label}: the checking cell must stay on the page"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_old_style_exercises(path):
    text = _markdown(path)
    assert not re.search(r"\*\*Exercise\s*\d", text), f"{path.name}: old bold exercise left"
    assert not re.search(r"^\*\*\d+\.\*\*", text, re.M), f"{path.name}: old numbered exercise left"
    assert "admonition} Solution" not in text, f"{path.name}: old admonition solution left"


def test_exercise_labels_are_unique_book_wide():
    seen: dict[str, str] = {}
    for p in NOTEBOOKS:
        for e in parse(p)[0]:
            assert e.label not in seen, f"{e.label} in {p.name} and {seen[e.label]}"
            seen[e.label] = p.name
    assert seen


def test_no_numbered_reference_to_an_exercise_of_another_page():
    """In the PDF a numbered reference to another page's exercise prints "Exercise ??";
    a reference with its own text (``{ref}`the hard edge <ch2-ex-4>```) prints the text."""
    owner = {e.label: p.name for p in NOTEBOOKS for e in parse(p)[0]}
    pages = sorted(BOOK.glob("*.ipynb")) + sorted(BOOK.glob("*.md"))
    bad = []
    for p in pages:
        for groups in _NUMBERED_REF.findall(_markdown(p)):
            label = "".join(groups).strip()
            if label in owner and owner[label] != p.name:
                bad.append(f"{p.name} refers to {label} of {owner[label]}")
    assert not bad, bad


@pytest.mark.parametrize(
    "path",
    [p for p in NOTEBOOKS if 1 <= _chapter_number(p) <= 7],
    ids=[p.name for p in NOTEBOOKS if 1 <= _chapter_number(p) <= 7],
)
def test_before_you_start(path):
    """Chapters 1-7 open (after the learning goals) with what they assume; the reading time is
    computed from the page when it is built (``seqrmt_book/reading.py``), never typed."""
    cells = json.loads(path.read_text())["cells"]
    md = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    # the note on where the chapter runs (Live code, Binder, Colab) comes right after the title
    md = [m for m in md if not m.startswith("**Run this chapter.**")]
    assert md[0].startswith("# ") and "Learning goals" in md[0]
    byst = md[1]
    assert byst.startswith("**Before you start.**"), f"{path.name}: second markdown cell is not 'Before you start'"
    typed = [m for m in md if re.search(r"reading time", m, re.I)]
    assert not typed, f"{path.name}: a hand-written reading time: {typed[0][:200]!r}"
    links = re.findall(r"\]\(0\d_\w+\.ipynb\)|\{prf:ref\}`|\{ref\}`", byst)
    assert links, f"{path.name}: 'Before you start' links to nothing"


def _stars_by_label() -> dict[str, str]:
    """``{label: stars}`` of every exercise of the chapters, from its title."""
    out = {}
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for title, label in re.findall(
                r"^`{3,}\{exercise(?:-start)?\}\s*(.*?)\s*\n:label:\s*(\S+)", "".join(cell["source"]), re.M
            ):
                out[label] = re.match(r"(★*)", title).group(1)
    return out


def syllabus_star_mismatches(text: str, stars: dict[str, str]) -> list[str]:
    bad = []
    for label, given in re.findall(r"\{ref\}`[^`<]*<([\w-]+)>`\s*\((★+)", text):
        if stars.get(label) != given:
            bad.append(f"{label}: {given} on the course page, {stars.get(label)!r} in the chapter")
    return bad


def test_course_page_stars_agree_with_the_chapters():
    text = (Path(__file__).resolve().parents[1] / "book" / "syllabus.md").read_text()
    stars = _stars_by_label()
    assert len(re.findall(r"\{ref\}`[^`<]*<[\w-]+>`\s*\(★", text)) >= 10
    assert not syllabus_star_mismatches(text, stars)
    # a planted mismatch is caught
    planted = re.sub(r"(<ch3-ex-5>`\s*\()★+", r"\1★★", text)
    assert planted != text and syllabus_star_mismatches(planted, stars)


def course_page_plan_problems(text: str, problem_labels: set[str]) -> list[str]:
    """What is wrong with the time plans and problem sets of the course page's lectures."""
    bad = []
    lectures = re.split(r"^\*\*Lecture (\d)\.", text, flags=re.M)[1:]
    for number, body in zip(lectures[::2], lectures[1::2]):
        body = body.split("\n\n", 1)[0]
        plan = re.search(r"^\*Time \((\d+) min\):\*(.*?)(?=^\*)", body, re.M | re.S)
        if not plan:
            bad.append(f"lecture {number}: no *Time (90 min):* line")
        else:
            minutes = sum(int(m) for m in re.findall(r"\((\d+)\)", plan.group(2)))
            if minutes != int(plan.group(1)):
                bad.append(f"lecture {number}: the parts sum to {minutes} min, not {plan.group(1)}")
        sets = re.findall(r"\{ref\}`(ps\d_\w+) <(ps\d-[\w-]+)>`", body)
        if not sets:
            bad.append(f"lecture {number}: no problem set")
        for name, label in sets:
            if label not in problem_labels or label != name.replace("_", "-"):
                bad.append(f"lecture {number}: {name} <{label}> is not a section of book/problem_sets.md")
    if len(lectures) // 2 != 6:
        bad.append(f"{len(lectures) // 2} lectures, 6 expected")
    return bad


def test_course_page_lectures_have_a_time_plan_and_problem_sets():
    text = (BOOK / "syllabus.md").read_text(encoding="utf-8")
    labels = set(
        re.findall(r"^\((ps\d-[\w-]+)\)=\n## Problem set", (BOOK / "problem_sets.md").read_text(encoding="utf-8"), re.M)
    )
    masters = {p.stem for p in (ROOT / "problems" / "masters").glob("ps*.ipynb")}
    assert labels == {m.replace("_", "-") for m in masters}, "a problem set without its label"
    assert not course_page_plan_problems(text, labels)
    assert {m for m in masters if f"<{m.replace('_', '-')}>`" not in text} == set(), (
        "a problem set that no lecture sets"
    )
    # a wrong sum and an unknown set are caught
    planted = re.sub(
        r"(\*Time \(90 min\):\* the Marchenko-Pastur law from simulation to formula )\(25\)", r"\g<1>(35)", text
    )
    assert planted != text and any("sum to" in m for m in course_page_plan_problems(planted, labels))
    planted = text.replace("<ps3-bbp>", "<ps3-nothing>")
    assert planted != text and any("ps3_bbp" in m for m in course_page_plan_problems(planted, labels))
