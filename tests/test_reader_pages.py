"""Reader checks of the chapter pages.

* **Reading times** (``seqrmt_book/reading.py``): on a scratch book built here, the
  sentence on a chapter page states the words, display equations and figures counted from
  its doctree (prose written in the test, so the expected counts are known independently),
  and the minutes follow the stated rate; on the built site, every chapter page carries
  exactly one such sentence, its minutes follow its own counts, and its word count agrees
  with the words of the page's prose counted from the HTML.
* **No answer before its question**: the answer of each self-check (the value shown when it
  is answered right, or the text of the right option) does not appear in the page's text
  above the question.
* **Prose written for readers**: the text of the built pages (code cells, their outputs, the
  API pages and the download links left out) names no test file, source path or machine load.

Each check on the built site is also run on a planted defect, and must fail on it.  The built
site is the ``built_site`` fixture of ``tests/conftest.py``: ``_build/html`` (rebuilt incrementally
when older than its sources, as for ``tests/browser``) or ``$SEQRMT_SITE_DIR``; its tests are in the
``site`` tier, which ``--quick`` leaves out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p.stem for p in (ROOT / "book").glob("0[0-9]_*.ipynb"))

from scratch_sphinx import build_html
from seqrmt_book import reading

_SENTENCE = re.compile(
    r"Reading time: about (\d+) minutes: ([\d,]+) words at (\d+(?:\.\d+)?) words a minute "
    r"\(the pace of mathematical prose\), (\d+(?:\.\d+)?) s for each of (\d+) display equations, "
    r"(\d+(?:\.\d+)?) s for each of (\d+) figures"
)


def parse_sentence(text: str) -> dict:
    """The numbers of a reading-time sentence (``ValueError`` if there is none)."""
    m = _SENTENCE.search(" ".join(text.split()))
    if m is None:
        raise ValueError("no reading-time sentence")
    g = m.groups()
    return {
        "minutes": int(g[0]),
        "words": int(g[1].replace(",", "")),
        "wpm": float(g[2]),
        "spe": float(g[3]),
        "equations": int(g[4]),
        "spf": float(g[5]),
        "figures": int(g[6]),
    }


def follows_rate(s: dict) -> bool:
    """Do the minutes follow the stated rate (nearest 5 minutes, at least 5)?"""
    raw = s["words"] / s["wpm"] + (s["equations"] * s["spe"] + s["figures"] * s["spf"]) / 60
    return s["minutes"] == max(5, 5 * round(raw / 5 + 1e-12)) or abs(s["minutes"] - raw) <= 2.5 + 1e-9


# ------------------------------------------------------------------ the rate (unit)
def test_minutes_follow_the_rate():
    c = reading.Counts(words=7100, equations=120, figures=20)
    # 71 + 40 + 10 = 121 minutes -> 120
    assert reading.minutes(c) == 120
    assert reading.minutes(c, words_per_minute=200, seconds_per_equation=0, seconds_per_figure=0) == 35
    assert reading.minutes(reading.Counts(10, 0, 0)) == 5
    with pytest.raises(ValueError, match="words_per_minute"):
        reading.minutes(c, words_per_minute=0)


def test_words_are_tokens_with_a_letter_or_digit():
    assert reading.count_words("The bulk — at β = 0.5 — is wider.") == 7


# ------------------------------------------------------------------ a scratch book
PROSE = [
    "Chapter title for the scratch book",
    "Before you start. This page needs nothing.",
    "A first paragraph of prose with exactly twelve words in it, no more.",
    "A second paragraph names a formula",  # + one inline formula = one word
    "Section heading",
    "A list item with six words",
    "A theorem statement of seven words here",
    "Theorem 1.1 (Scratch result)",  # its heading, written by sphinx-proof
]
HIDDEN = "SOLUTIONWORD appears only in the solution and must never be counted"


def _notebook() -> dict:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    md = lambda text, cid: {"cell_type": "markdown", "id": cid, "metadata": {}, "source": text}  # noqa: E731
    cells = [
        md(
            f"# {PROSE[0]}\n\n**Before you start.** This page needs nothing.\n\n{PROSE[2]}\n\n"
            f"{PROSE[3]} $a+b$.\n\n$$\nx = 1\n$$\n\n$$\ny = 2\n$$\n",
            "a",
        ),
        {
            "cell_type": "code",
            "id": "b",
            "metadata": {},
            "execution_count": 1,
            "source": "print('code words are not prose at all')",
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": "output words neither\n"},
                {"output_type": "display_data", "metadata": {}, "data": {"image/png": png, "text/plain": "<Figure>"}},
            ],
        },
        {
            "cell_type": "code",
            "id": "c",
            "metadata": {},
            "execution_count": 2,
            "source": "explorer",
            "outputs": [
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {
                        "application/vnd.jupyter.widget-view+json": {
                            "model_id": "0" * 32,
                            "version_major": 2,
                            "version_minor": 0,
                        },
                        "text/plain": "Explorer",
                    },
                }
            ],
        },
        md(
            f"## {PROSE[4]}\n\n* {PROSE[5]}\n\n$$\nz = 3\n$$\n\n"
            f"```{{prf:theorem}} Scratch result\n:label: thm-scratch\n{PROSE[6]}\n```\n\n"
            f"```{{exercise}}\n:label: ex-scratch\nDo it.\n```\n\n"
            f"```{{solution}} ex-scratch\n:class: dropdown\n{HIDDEN}\n```\n",
            "d",
        ),
    ]
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    src = tmp_path_factory.mktemp("reading")
    (src / "book").mkdir()
    (src / "book" / "01_scratch.ipynb").write_text(json.dumps(_notebook()), encoding="utf-8")
    (src / "index.md").write_text("# Index\n\n```{toctree}\nbook/01_scratch\n```\n", encoding="utf-8")
    (src / "conf.py").write_text(
        "extensions = ['myst_nb', 'sphinx_proof', 'sphinx_exercise', 'seqrmt_book.reading']\n"
        "nb_execution_mode = 'off'\n"
        "myst_enable_extensions = ['dollarmath']\n"
        "suppress_warnings = ['mystnb.unknown_mime_type']\n",
        encoding="utf-8",
    )
    app, html = build_html(src)
    return app.env.get_doctree("book/01_scratch"), html


def test_the_scratch_page_states_what_its_doctree_holds(scratch):
    from docutils import nodes

    scratch_doctree = scratch[0]
    found = [p for p in scratch_doctree.findall(nodes.paragraph) if reading.CLASS in p["classes"]]
    assert len(found) == 1
    s = parse_sentence(found[0].astext())
    # the prose written above (the inline formula counts one word), and the exercise "Do it."
    # with its title "Exercise" added by sphinx-exercise; no code, output or solution word
    expected = sum(reading.count_words(t) for t in PROSE) + 1 + 2 + 1
    assert s["words"] == pytest.approx(expected, abs=3), s
    assert s["words"] < expected + 9  # the solution (11 words) or code would push it over
    assert s["equations"] == 3 and s["figures"] == 2, s
    assert (s["wpm"], s["spe"], s["spf"]) == (100, 20, 30)
    assert follows_rate(s)
    # right after "Before you start."
    para = found[0]
    previous = para.parent[para.parent.index(para) - 1]
    assert previous.astext().startswith("Before you start.")


def test_solution_words_are_not_counted(scratch):
    scratch_doctree = scratch[0]
    text = "".join(reading._prose(scratch_doctree))
    assert "SOLUTIONWORD" not in text and "print" not in text and "output words" not in text
    assert "twelve words" in text


def test_the_index_of_results_shows_numbers_and_titles(scratch):
    """sphinx-proof's "Proof Index" listed raw labels; the book's lists "Theorem 1.1 (title)"."""
    index = (scratch[1] / "prf-prf.html").read_text(encoding="utf-8")
    from bs4 import BeautifulSoup

    links = [a.get_text(" ", strip=True) for a in BeautifulSoup(index, "html.parser").select("table a")]
    assert any("Scratch result" in t and "Theorem" in t for t in links), links
    assert not any(t == "thm-scratch" for t in links), links
    assert "Index of results" in index


def test_a_wrong_reading_time_is_caught():
    good = {"minutes": 120, "words": 7100, "wpm": 100, "spe": 20, "equations": 120, "spf": 30, "figures": 20}
    assert follows_rate(good)
    assert not follows_rate({**good, "minutes": 40})  # a hand-written guess
    assert not follows_rate({**good, "words": 2000})


# ------------------------------------------------------------------ the built site
def _soup(path: Path):
    from bs4 import BeautifulSoup

    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


#: A typeset formula (they do not nest); most of a chapter's markup is inside them.
_FORMULA = re.compile(r"<mjx-container\b([^>]*)>.*?</mjx-container>", re.S)


def _prose_soup(path: Path):
    """:func:`_soup` with the formulas taken out before parsing, as :func:`article` takes them out
    after it (display math dropped, an inline formula the word "formula"): the same text, parsed
    in less than half the time."""
    from bs4 import BeautifulSoup

    html = _FORMULA.sub(
        lambda m: "" if 'display="true"' in m.group(1) else " formula ", path.read_text(encoding="utf-8")
    )
    return BeautifulSoup(html, "html.parser")


_MATHML = re.compile(r"<mjx-assistive-mml\b.*?</mjx-assistive-mml>", re.S)
_TAG = re.compile(r"<[^>]+>")


def _text_soup(path: Path):
    """:func:`_soup` with each formula taken out before parsing and replaced by the words of its
    hidden MathML (what a screen reader and a search read: ``2.25`` in a formula stays ``2.25``),
    in a span: the page's text as the reader meets it, parsed in a quarter of the time."""
    from bs4 import BeautifulSoup

    def words(m: re.Match) -> str:
        mml = _MATHML.search(m.group(0))
        return f"<span> {' '.join(_TAG.sub(' ', mml.group(0)).split()) if mml else ''} </span>"

    return BeautifulSoup(_FORMULA.sub(words, path.read_text(encoding="utf-8")), "html.parser")


#: Not prose: code cells and their outputs, display math, scripts, the page's chrome and downloads.
_NOT_PROSE = (
    "div.cell_input",
    "div.cell_output",
    "div.highlight",
    "pre",
    "script",
    "style",
    "div.math",
    "mjx-container[display=true]",
    # a build's note on the products it left out names the commands that make them
    ".seqrmt-products-note",
    "nav",
    "header",
    "footer",
    ".bd-sidebar-primary",
    ".bd-sidebar-secondary",
    ".header-article",
    ".prev-next-area",
    ".dropdown-download-buttons",
    "a.headerlink",
    ".seqrmt-livecode",
    "form",
    "button",
)


def article(soup):
    """The article of a built page, without what is not prose."""
    main = soup.select_one("article.bd-article") or soup.select_one("main") or soup
    # the formulas first (most of a page's elements are inside them): display math is not prose,
    # an inline formula reads as one word (as in seqrmt_reading)
    for el in main.select("mjx-container[display=true]"):
        el.decompose()
    for el in main.select("span.math, mjx-container"):
        if el.parent is not None:
            el.replace_with(" formula ")
    for sel in _NOT_PROSE:
        for el in main.select(sel):
            el.decompose()
    return main


def _built_chapter(site: Path, preferred: str) -> str:
    """``preferred`` if the build has it, else the first chapter it has (a partial build)."""
    if (site / "book" / f"{preferred}.html").is_file():
        return preferred
    have = [s for s in CHAPTERS if (site / "book" / f"{s}.html").is_file()]
    assert have, f"no chapter page in {site}"
    return have[0]


def _chapter_html(site: Path, stem: str) -> Path:
    path = site / "book" / f"{stem}.html"
    assert path.is_file(), f"{path} missing from the build"
    return path


def reading_time_problems(soup) -> list[str]:
    """What is wrong with the reading time of a built chapter page (empty if nothing)."""
    paras = soup.select("p.seqrmt-reading-time")
    if len(paras) != 1:
        return [f"{len(paras)} reading-time sentences"]
    s = parse_sentence(paras[0].get_text(" "))
    problems = []
    if not follows_rate(s):
        problems.append(f"{s['minutes']} minutes do not follow the stated rate: {s}")
    body = article(soup)
    for el in body.select(".solution, .self-check-feedback, .self-check-result, p.seqrmt-reading-time"):
        el.decompose()
    words = reading.count_words(body.get_text(" "))
    if not 0.8 * words <= s["words"] <= 1.2 * words:
        problems.append(f"states {s['words']} words, the page's prose has about {words}")
    if re.search(r"Estimated reading time", soup.get_text(" ")):
        problems.append("a hand-written reading time is still in the page")
    return problems


@pytest.mark.parametrize("stem", CHAPTERS)
def test_reading_time_follows_the_rate(built_site, stem):
    soup = _prose_soup(_chapter_html(built_site, stem))
    assert not reading_time_problems(soup), (stem, reading_time_problems(soup))


def test_a_planted_wrong_reading_time_is_caught(built_site):
    soup = _soup(_chapter_html(built_site, _built_chapter(built_site, CHAPTERS[1])))
    para = soup.select_one("p.seqrmt-reading-time")
    assert para is not None
    text = para.get_text(" ")
    wrong = parse_sentence(text)["minutes"] + 20  # off by far more than the rounding
    para.string = re.sub(r"about \d+ minutes", f"about {wrong} minutes", text)
    assert reading_time_problems(soup)


# ------------------------------------------------------------------ answers after questions
def answer_texts(box) -> list[str]:
    """What gives a self-check's answer away: the value shown when it is answered right (when
    it has at least three digits: a "4" is everywhere), and the text of the right option."""
    from seqrmt_book import selfcheck

    # the page holds the answer sealed and hashed (seqrmt_book/selfcheck.py), not in plain form
    salt = box.get("data-salt", "")
    if box.get("data-kind") == "number":
        shown = selfcheck.unseal(box.get("data-sealed", ""), salt)["display"]
        return [shown] if len(re.sub(r"\D", "", shown)) >= 3 else []
    out = []
    for opt in box.select(".self-check-option"):
        radio = opt.select_one("input")
        if radio is not None and selfcheck.fnv1a(f"{salt}:{radio.get('value')}") == box.get("data-answer"):
            label = " ".join(opt.get_text(" ").split())
            if len(label) >= 12:  # a short option ("yes", "0.5") says nothing by itself
                out.append(label)
    return out


_HIDDEN = ("script", "style")


def _text_before(main, box) -> str:
    """The page's text above ``box`` (the article only; hidden explanations left out)."""
    from bs4 import NavigableString

    parts = []
    for el in main.descendants:
        if el is box:
            break
        if isinstance(el, NavigableString):
            if any(
                p.name in _HIDDEN
                or "self-check-feedback" in (p.get("class") or [])
                or "self-check-result" in (p.get("class") or [])
                for p in el.parents
            ):
                continue
            parts.append(str(el))
    return " ".join(" ".join(parts).split())


def leaks(soup) -> list[str]:
    """Self-checks whose answer appears in the page's text above the question."""
    main = soup.select_one("article.bd-article") or soup.select_one("main") or soup
    found = []
    for box in main.select("div.self-check"):
        text = _text_before(main, box)
        for answer in answer_texts(box):
            if re.fullmatch(r"[-+\d.eE]+", answer):
                hit = re.search(r"(?<![\d.])" + re.escape(answer) + r"(?![\d])", text)
            else:
                hit = answer in text
            if hit:
                found.append(f"{box.get('id')}: {answer!r} appears above the question")
    return found


@pytest.mark.parametrize("stem", CHAPTERS)
def test_no_self_check_answer_before_its_question(built_site, stem):
    soup = _text_soup(_chapter_html(built_site, stem))
    assert soup.select("div.self-check"), f"{stem} has no self-check"
    assert not leaks(soup)


def test_a_planted_leak_is_caught(built_site):
    soup = _soup(_chapter_html(built_site, _built_chapter(built_site, "06_experiments")))
    box = next(b for b in soup.select("div.self-check") if answer_texts(b))
    answer = answer_texts(box)[0]
    planted = soup.new_tag("p")
    planted.string = f"The figure shows {answer} here."
    box.insert_before(planted)
    assert any(box.get("id") in leak for leak in leaks(soup))


# ------------------------------------------------------------------ prose for readers
_DEVELOPER = re.compile(
    r"tests/[\w/]*\w+\.py|seqrmt/[\w/]+\.\w+|seqrmt_book/|benchmarks/\w+\.py|scripts/\w+\.py"
    r"|load average|\b\d+\s*(?:CPU\s*)?cores?\b|\bnproc\b|\bCPU[- ]time\b",
    re.I,
)
#: Pages written for programmers: the API reference, the page on how the book is built, and the
#: lecturers' page on publishing a fork, whose commands are its subject.
_DEVELOPER_PAGES = ("api", "status", "teach")


def developer_text(soup) -> list[str]:
    body = article(soup)
    text = " ".join(body.get_text(" ").split())
    return sorted({m.group(0) for m in _DEVELOPER.finditer(text)})


def _reader_pages(site: Path) -> list[Path]:
    pages = sorted((site / "book").glob("*.html"))
    return [
        p
        for p in pages
        if not any(p.stem == d or p.stem.startswith(d + "_") or p.parent.name == d for d in _DEVELOPER_PAGES)
    ]


def test_prose_names_no_file_or_machine(built_site):
    bad = {}
    for page in _reader_pages(built_site):
        found = developer_text(_prose_soup(page))
        if found:
            bad[page.name] = found
    assert not bad, bad


def test_formulas_out_before_parsing_leave_the_same_prose(built_site):
    page = _chapter_html(built_site, _built_chapter(built_site, "07_how_exact"))
    text = [" ".join(article(soup).get_text(" ").split()) for soup in (_soup(page), _prose_soup(page))]
    assert text[0] == text[1] and "formula" in text[0]


def test_a_planted_path_is_caught(built_site):
    soup = _soup(_chapter_html(built_site, _built_chapter(built_site, "07_how_exact")))
    para = soup.select_one("article.bd-article p") or soup.select_one("p")
    para.append(" (checked by tests/test_validation.py on 108 cores)")
    assert developer_text(soup)
