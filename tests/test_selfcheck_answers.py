"""The self-check questions of the chapters and their answers.

Every chapter has at least three ``{self-check}`` questions.  Their answers are glued by
the chapter's cells tagged ``self-check-answers``, which use nothing but ``seqrmt``, NumPy
and ``glue``; here those cells run on their own, and

* every key a question names (its answer, its misconceptions, the numbers in its text) is
  glued; a numeric answer is a finite number, a choice's answer is one of its options;
* a misconception is further from the answer than the tolerance (a reader could not tell
  them apart otherwise), and every choice has at least one wrong option with its
  explanation;
* the numeric answers agree with closed forms derived independently of ``seqrmt``;
* the answers stored by the last build (``_build/jupyter_execute/book/<chapter>.glue.json``),
  which the site shows, are those the package computes now.
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import seqrmt as sr

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("0[0-9]_*.ipynb"))
EXECUTED = ROOT / "_build" / "jupyter_execute" / "book"
TAG = "self-check-answers"

_DIRECTIVE = re.compile(r"^(:{4,})\{self-check\}[^\n]*\n(.*?)^\1\s*$", re.S | re.M)
_OPTION = re.compile(r"^:(answer|tolerance|format|label):\s*(.*?)\s*$", re.M)
_INNER = re.compile(r"^:{3,}\{(choice|feedback)\}\s+(\S+)\s*$", re.M)
_GLUE_TEXT = re.compile(r"\{glue:text\}`([^`:]+)")


def questions(path: Path) -> list[dict]:
    """The self-check questions of a chapter, as written in its markdown cells."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        for m in _DIRECTIVE.finditer("".join(cell["source"])):
            body = m.group(2)
            opts = dict(_OPTION.findall(body))
            inner = _INNER.findall(body)
            out.append(
                {
                    "options": opts,
                    "choices": [k for kind, k in inner if kind == "choice"],
                    "feedback": [k for kind, k in inner if kind == "feedback"],
                    "glued": _GLUE_TEXT.findall(body),
                }
            )
    return out


def answers(path: Path) -> dict:
    """Run the chapter's self-check cells on their own: the values they glue."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    glued: dict = {}

    def glue(name, value, display=True):
        assert name not in glued, f"{path.name}: {name!r} glued twice"
        glued[name] = value

    for cell in cells:
        if cell["cell_type"] == "code" and TAG in cell["metadata"].get("tags", []):
            source = "".join(cell["source"]).replace("from seqrmt.notebook import glue\n", "")
            exec(compile(source, f"{path.name}:self-check", "exec"), {"sr": sr, "np": np, "glue": glue})
    return glued


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_questions_are_complete(path: Path) -> None:
    qs = questions(path)
    assert len(qs) >= 3, f"{path.name}: {len(qs)} self-check question(s), at least 3 wanted"
    glued = answers(path)
    for q in qs:
        key = q["options"].get("answer")
        assert key in glued, f"{path.name}: answer {key!r} is not glued by a {TAG} cell"
        answer = glued[key]
        for name in q["glued"]:
            assert name in glued, f"{path.name}: {key}: the text pastes {name!r}, not glued by a {TAG} cell"
        if q["choices"]:
            assert isinstance(answer, str) and answer in q["choices"], (
                f"{path.name}: {key} = {answer!r} is not one of the options {q['choices']}"
            )
            assert len(q["choices"]) >= 3, f"{path.name}: {key}: fewer than three options"
            assert set(q["feedback"]) <= {"correct", "otherwise"}
        else:
            assert isinstance(answer, float) and math.isfinite(answer), f"{path.name}: {key} = {answer!r}"
            tol = float(q["options"]["tolerance"])
            assert tol > 0
            mistakes = [k for k in q["feedback"] if k not in ("correct", "otherwise")]
            assert mistakes, f"{path.name}: {key}: no misconception explained"
            assert "otherwise" in q["feedback"], f"{path.name}: {key}: no explanation for other answers"
            for k in mistakes:
                assert k in glued, f"{path.name}: misconception {k!r} is not glued"
                assert abs(glued[k] - answer) > tol, (
                    f"{path.name}: misconception {k} = {glued[k]} within {tol} of the answer {answer}"
                )


#: Numeric answers against closed forms written without seqrmt (the parameters are the
#: questions' own).
CLOSED_FORMS = {
    "sc0_edge": (1 + math.sqrt(0.25)) ** 2,
    "sc1_kappa": 8 * (1 / 8) ** 2,
    "sc1_alpha": (4**2 + 8 - 4) / 8**2,
    "sc2_atom": max(0.0, 1 - 1 / 2.0, 1 - 1 / 0.5),
    "sc2_var": 0.25**2 * (0.5 + 0.5),
    "sc3_pop": 0.25 + math.sqrt(0.25),
    "sc4_best": 4.0,
    "sc5_first": (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4,
    "sc7_factor": (1.0 + 0.5) / 1.0,
    "sc8_sup": 4.0,
}


def test_numeric_answers_match_closed_forms() -> None:
    glued = {}
    for path in CHAPTERS:
        glued.update(answers(path))
    for key, value in CLOSED_FORMS.items():
        assert glued[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key


def _stored_glue(executed: Path, keys) -> dict:
    """The values glued under ``keys`` by the last build's execution (myst-nb's
    ``<notebook>.glue.json``; other glued values need not be Python literals)."""
    data = json.loads(executed.with_suffix(".glue.json").read_text(encoding="utf-8"))
    return {
        key: ast.literal_eval(entry["data"]["text/plain"])
        for key, entry in data.items()
        if key in keys and "text/plain" in entry.get("data", {})
    }


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_stored_answers_are_the_package_answers(path: Path) -> None:
    executed = EXECUTED / path.name
    glued = executed.with_suffix(".glue.json")
    if not glued.is_file() or glued.stat().st_mtime < path.stat().st_mtime:
        pytest.skip(f"no executed copy of {path.name} newer than the notebook (build the book first)")
    expected = answers(path)
    stored = _stored_glue(executed, set(expected))
    for key, value in expected.items():
        assert key in stored, f"{path.name}: {key!r} missing from the last build"
        if isinstance(value, str):
            assert stored[key] == value, key
        else:
            assert stored[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


def test_an_explanation_does_not_repeat_the_verdict():
    """The page writes the verdict ("Right." / "Not quite."); an explanation that opens with
    "Right:" or "No:" loses that word, so that no answer reads "Right. Right: ..."."""
    from docutils import nodes

    from seqrmt_book.selfcheck import _without_verdict

    def para(*parts):
        p = nodes.paragraph()
        for part in parts:
            p += nodes.Text(part) if isinstance(part, str) else part
        return p

    out = _without_verdict([para("Right: the self score dominates.")])
    assert out[0].astext() == "The self score dominates."
    out = _without_verdict([para("No: that is the population threshold.")])
    assert out[0].astext() == "That is the population threshold."
    glued = nodes.inline("", "0.412")
    out = _without_verdict([para("Right: ", glued, " against 0.5.")])
    assert out[0].astext() == "0.412 against 0.5."
    # words that only start like a verdict are kept
    for text in ("Rightly so, the bulk is wider.", "Nothing separates.", "Notice the edge."):
        assert _without_verdict([para(text)])[0].astext() == text
    # every option explanation of every chapter opens with a verdict word that gets dropped
    for path in CHAPTERS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for m in re.finditer(r"^:{3,}\{choice\}[^\n]*\n(.*?)\n:{3,}\s*$", "".join(cell["source"]), re.S | re.M):
                parts = m.group(1).strip().split("\n\n", 1)
                if len(parts) < 2:
                    continue
                first = parts[1].split("{", 1)[0].split("$", 1)[0]
                kept = _without_verdict([para(first)])[0].astext() if first.strip() else ""
                assert not re.match(r"(?i)(right|no|not quite)\b", kept.strip()), (path.name, first)


_FEEDBACK_BLOCK = re.compile(r"^:{3,}\{feedback\}[^\n]*\n.*?^:{3,}\s*$", re.S | re.M)
_CHOICE_BLOCK = re.compile(r"^:{3,}\{choice\}[^\n]*\n(.*?)^:{3,}\s*$", re.S | re.M)


def _visible(body: str) -> str:
    """What a reader sees of a question before answering it: its text and the first
    paragraph of each choice (the feedback and the explanations stay hidden)."""
    body = _FEEDBACK_BLOCK.sub("", body)
    return _CHOICE_BLOCK.sub(lambda m: m.group(1).strip().split("\n\n")[0], body)


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_answer_shows_before_its_question_is_answered(path: Path) -> None:
    """A question's answer is not pasted in the page above it, nor in the visible text of
    any question of the chapter (the questions of a chapter stand one below the other)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    found = list(_DIRECTIVE.finditer(text))
    shown = {m.start(): set(_GLUE_TEXT.findall(_visible(m.group(2)))) for m in found}
    for m in found:
        key = dict(_OPTION.findall(m.group(2)))["answer"]
        assert key not in _GLUE_TEXT.findall(text[: m.start()]), (
            f"{path.name}: the answer {key!r} is pasted above its question"
        )
        for start, keys in shown.items():
            assert key not in keys, f"{path.name}: the answer {key!r} shows in the text of a question"
