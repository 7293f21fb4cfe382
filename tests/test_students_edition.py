"""The students' edition (``seqrmt_book/students.py``, ``scripts/build_students.sh``): the book
without the solutions of its exercises.

* How solutions are cut from the notebooks and Markdown sources the download button serves.
* On a scratch site built here: no solution on an unreleased page (the page and its source for
  download), the solutions of a released page kept, the footer naming the edition.
* On the built editions (``.ci/run`` builds both; ``SEQRMT_REQUIRE_STUDENTS=1`` makes their
  absence an error): no solution of the full edition, found by a run of its own words, appears
  in the students' website (pages, previews, search index, downloadable sources) or PDF, while
  the same words are in the full edition (so the check could fail).
"""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scratch_sphinx import build_html
from seqrmt import settings
from seqrmt_book import students

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "_build" / "html"
STUDENTS = ROOT / "_build" / "students" / "_build" / "html"
PDF_NAME = "seqrmt-book.pdf"

GATED = {
    "cells": [
        {
            "cell_type": "markdown",
            "id": "m1",
            "metadata": {},
            "source": [
                "```{exercise}\n",
                ":label: ex-a\n",
                "Compute it.\n",
                "```\n",
                "\n",
                "```{solution-start} ex-a\n",
                ":class: dropdown\n",
                "```\n",
                "The worked answer starts.",
            ],
        },
        {
            "cell_type": "code",
            "id": "c1",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": ["answer = 42  # part of the solution"],
        },
        {
            "cell_type": "markdown",
            "id": "m2",
            "metadata": {},
            "source": ["So the answer is 42.\n", "```{solution-end}\n", "```\n", "After the solution."],
        },
        {
            "cell_type": "code",
            "id": "c2",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": ["print('kept')"],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_gated_solutions_leave_the_notebook_with_their_code_cells() -> None:
    out = students.strip_notebook(GATED)
    text = json.dumps(out)
    assert "worked answer" not in text and "answer = 42" not in text and "So the answer" not in text
    assert "Compute it." in text and "After the solution." in text and "print('kept')" in text
    assert [c["id"] for c in out["cells"]] == ["m1", "m2", "c2"]
    assert students.strip_notebook(out) == out  # nothing left to cut


def test_solution_blocks_leave_markdown() -> None:
    text = (
        "Before.\n\n````{solution} ex-a\n:class: dropdown\n\n```python\nx = 1\n```\nWorked.\n````\n\n"
        ":::{solution} ex-b\nAlso worked.\n:::\n\nAfter.\n"
    )
    out = students.strip_markdown(text)
    assert "Worked." not in out and "x = 1" not in out and "Also worked." not in out
    assert out.startswith("Before.") and out.rstrip().endswith("After.")


def test_the_edition_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(students.ENV, raising=False)
    assert students.edition_from_env() == "full"
    monkeypatch.setenv(students.ENV, "students")
    assert students.edition_from_env() == "students"
    monkeypatch.setenv(students.ENV, "teachers")
    with pytest.raises(ValueError, match="SEQRMT_EDITION must be one of full, students"):
        students.edition_from_env()


# ------------------------------------------------------------------ a scratch site
PAGE = """# {title}

```{{exercise}}
:label: {label}

Find the threshold.
```

```{{solution}} {label}
:class: dropdown

The threshold of {title} is found by a worked computation.
```
"""


def _scratch(folder: Path, edition: str) -> Path:
    src = folder / edition
    src.mkdir()
    (src / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1.0"\n', encoding="utf-8")
    (src / "conf.py").write_text(
        'extensions = ["myst_nb", "sphinx_exercise", "seqrmt_book.students", "seqrmt_book.editions"]\n'
        'html_theme = "sphinx_book_theme"\nnb_execution_mode = "off"\n'
        f"seqrmt_edition = {edition!r}\n"
        'seqrmt_released_solutions = ["released"]\nhtml_sourcelink_suffix = ""\n',
        encoding="utf-8",
    )
    (src / "index.md").write_text("# Home\n\n```{toctree}\nheld\nreleased\n```\n", encoding="utf-8")
    (src / "held.md").write_text(PAGE.format(title="Held", label="ex-held"), encoding="utf-8")
    (src / "released.md").write_text(PAGE.format(title="Released", label="ex-rel"), encoding="utf-8")
    return build_html(src)[1]


@pytest.mark.build  # two scratch Sphinx sites
def test_a_scratch_students_edition(tmp_path: Path) -> None:
    site = _scratch(tmp_path, "students")
    held, released = (
        (site / "held.html").read_text(encoding="utf-8"),
        (site / "released.html").read_text(encoding="utf-8"),
    )
    assert "Find the threshold." in held and "worked computation" not in held
    assert "worked computation" in released  # released after its deadline
    assert "worked computation" not in (site / "_sources" / "held.md").read_text(encoding="utf-8")
    assert "worked computation" in (site / "_sources" / "released.md").read_text(encoding="utf-8")
    assert "students&#x27; edition" in held or "students' edition" in held
    full = _scratch(tmp_path, "full")
    assert "worked computation" in (full / "held.html").read_text(encoding="utf-8")
    assert "students" not in (full / "held.html").read_text(encoding="utf-8")


# ------------------------------------------------------------------ the built editions
def _unavailable(reason: str) -> None:
    if settings.flag("SEQRMT_REQUIRE_STUDENTS"):
        pytest.fail(f"{reason} (SEQRMT_REQUIRE_STUDENTS=1, so this is an error)", pytrace=False)
    pytest.skip(reason)


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


_SOLUTION = re.compile(r'<div class="solution[^"]*" id="([^"]+)">')
_SET_ASIDE = re.compile(r'<mjx-container.*?</mjx-container>|<pre\b.*?</pre>|<p class="admonition-title">.*?</p>', re.S)


@functools.lru_cache(maxsize=1)
def _solution_runs() -> dict[str, list[str]]:
    """For every solution of the full edition, up to three runs of 10 of its plain words (no
    math, no code): key ``page#id``.  A solution is found when all its runs are (one run may
    also be said elsewhere, e.g. in a docstring; three are not)."""
    from bs4 import BeautifulSoup

    runs = {}
    for page in sorted((FULL / "book").glob("*.html")):
        # math, code and titles set aside before parsing (a chapter parses four times faster): the
        # words of a solution are the same
        text = _SET_ASIDE.sub(" \u2016 ", page.read_text(encoding="utf-8"))
        tree = BeautifulSoup(text, "html.parser")
        for m in _SOLUTION.finditer(text):
            found = tree.find("div", id=m.group(1))
            box = _SET_ASIDE.sub(" \u2016 ", str(found) if found is not None else "")
            windows = []
            for piece in html.unescape(re.sub(r"<[^>]+>", " ", box)).split("\u2016"):
                words = _words(piece).split()
                windows += [" ".join(words[i : i + 10]) for i in range(0, len(words) - 9, 10)]
            if windows:
                picks = sorted({0, len(windows) // 2, len(windows) - 1})
                runs[f"{page.name}#{m.group(1)}"] = [windows[i] for i in picks]
    return runs


def _site_text(site: Path) -> str:
    """The words of every page, preview, source for download and of the search index of a site."""
    files = [p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts]
    files += [*(site / "_static" / "seqrmt-previews").glob("*.js"), site / "searchindex.js"]
    files += [p for p in (site / "_sources").rglob("*") if p.is_file()]
    parts = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace").replace("\\n", " ")
        parts.append(_words(html.unescape(re.sub(r"<[^>]+>", " ", text))))
    return "\n".join(parts)


def _pdf_text(pdf: Path) -> str:
    out = subprocess.run(["pdftotext", "-q", str(pdf), "-"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return _words(out.stdout.replace("-\n", ""))


def test_no_solution_of_the_full_edition_in_the_students_edition(built_site) -> None:
    # reads both built websites: the site tier (built_site), not the quick one
    if not (FULL / "book" / "03_bbp.html").is_file():
        _unavailable("no build of the full edition (_build/html)")
    if not (STUDENTS / "book" / "03_bbp.html").is_file():
        _unavailable("no students' edition: run scripts/build_students.sh")
    runs = _solution_runs()
    assert len(runs) >= 40, f"only {len(runs)} solutions found in the full edition"
    full = _site_text(FULL)
    missing = [key for key, found in runs.items() if not all(run in full for run in found)]
    assert not missing, f"solutions whose words the check cannot find in the full edition: {missing[:5]}"
    text = _site_text(STUDENTS)
    leaked = {key: found for key, found in runs.items() if all(run in text for run in found)}
    assert not leaked, f"{len(leaked)} solution(s) in the students' website: {list(leaked.items())[:5]}"
    assert "students' edition" in html.unescape((STUDENTS / "book" / "03_bbp.html").read_text(encoding="utf-8"))


@pytest.mark.site  # reads both built PDFs (10 s of pdftotext): not a check of the sources
def test_no_solution_in_the_students_pdf() -> None:
    full_pdf, students_pdf = FULL / "_pdf" / PDF_NAME, STUDENTS / "_pdf" / PDF_NAME
    if shutil.which("pdftotext") is None:
        _unavailable("pdftotext (poppler-utils) is not installed")
    if not (full_pdf.is_file() and students_pdf.is_file()):
        _unavailable("no PDF of both editions: run scripts/build_pdf.sh and scripts/build_students.sh")
    runs = _solution_runs()
    full_text, students_text = _pdf_text(full_pdf), _pdf_text(students_pdf)
    found = [runs_ for runs_ in runs.values() if all(run in full_text for run in runs_)]
    assert len(found) >= 0.6 * len(runs), f"only {len(found)} of {len(runs)} solutions found in the full PDF"
    leaked = [runs_ for runs_ in found if all(run in students_text for run in runs_)]
    assert not leaked, f"{len(leaked)} solution(s) in the students' PDF: {leaked[:5]}"
