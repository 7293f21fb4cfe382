"""One numbering scheme (``seqrmt_book/numbering.py``): the Toolkit is chapter 0, the
appendix's statements take the letter of their part (A to F), the chapters keep their numbers.

* unit tests of the two renumbering functions;
* a scratch book with the book's layout (an unnumbered Toolkit part, a numbered part, a
  reference part with the appendix), built with Jupyter Book twice (a full build, then an
  incremental one after one page changed): statements, equations, headings and the
  sidebar carry the prefixes, references to them too, and the numbered chapters keep
  theirs (an incremental build once shifted them by one);
* the book itself: the extension is registered, the pages of the map are unnumbered pages
  of ``_toc.yml``, the Toolkit's first theorem is the Marchenko–Pastur law (so it prints
  "Theorem 0.1") and the appendix's lemmas sit in lettered parts; when a fresh build of the
  site exists, its pages are checked too.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

from seqrmt_book import numbering as seqrmt_numbers
from docutils import nodes  # noqa: E402
from sphinx import addnodes  # noqa: E402


def test_renumber_figures_per_type_in_page_order():
    shared = {
        "theorem": {"thm-b": (3,), "thm-a": (2,)},
        "lemma": {"lem-x": (5,), "lem-y": (6,)},
        "displaymath": {"eq-1": (1,)},
    }
    out = seqrmt_numbers.renumber_figures(shared, "A")
    assert out == {
        "theorem": {"thm-a": ("A", 1), "thm-b": ("A", 2)},
        "lemma": {"lem-x": ("A", 1), "lem-y": ("A", 2)},
        "displaymath": {"eq-1": ("A", 1)},
    }
    assert ".".join(map(str, seqrmt_numbers.renumber_figures(shared, 0)["lemma"]["lem-y"])) == "0.2"


def test_renumber_by_parts():
    shared = {"lemma": {"l1": (4,), "l2": (5,), "l3": (6,)}, "displaymath": {"e1": (1,), "e2": (2,)}}
    letters = {"l1": "A", "l2": "D", "l3": "D", "e1": "D", "e2": ""}
    out = seqrmt_numbers.renumber_by_parts(shared, letters)
    assert out == {
        "lemma": {"l1": ("A", 1), "l2": ("D", 1), "l3": ("D", 2)},
        "displaymath": {"e1": ("D", 1), "e2": (1,)},
    }


def test_part_letters_take_the_outermost_lettered_section():
    def section(title, *children, ids=()):
        return nodes.section("", nodes.title("", title), *children, ids=list(ids))

    page = section(
        "Appendix",
        section("A. Transforms", section("A.1 Stieltjes", nodes.paragraph(ids=["lem-a"]))),
        section("D. The sample stage", nodes.paragraph(ids=["lem-d"])),
        ids=["top"],
    )
    letters = seqrmt_numbers.part_letters(page)
    assert letters["lem-a"] == "A" and letters["lem-d"] == "D" and letters["top"] == ""


def _toc(*entries):
    """A local table of contents as Sphinx stores it: the page, then its nested sections."""

    def item(anchor, children=()):
        para = addnodes.compact_paragraph("", "", nodes.reference("", anchor or "title", anchorname=anchor))
        li = nodes.list_item("", para)
        if children:
            li += nodes.bullet_list("", *[item(a, c) for a, c in children])
        return li

    return nodes.bullet_list("", item("", entries))


def test_number_sections_prefixes_every_level_and_the_sidebar():
    toc = _toc(("#a", [("#a1", []), ("#a2", [])]), ("#b", []))
    title = nodes.title("", "Toolkit")
    secnums = seqrmt_numbers.number_sections(toc, 0, title)
    assert secnums == {"": (0,), "#a": (0, 1), "#a1": (0, 1, 1), "#a2": (0, 1, 2), "#b": (0, 2)}
    refs = {r["anchorname"]: r["secnumber"] for r in toc.findall(nodes.reference)}
    assert refs["#a2"] == [0, 1, 2] and refs[""] == [0]  # lists, as Sphinx sets them
    assert title["secnumber"] == [0]


PAGES = {
    "intro.md": "# Intro\n\nSee {prf:ref}`thm-mp`, {prf:ref}`app-lem-2` and {prf:ref}`thm-one`.\n",
    "00_toolkit.md": (
        "# Toolkit\n\n## Marchenko–Pastur\n\n```{prf:theorem} MP\n:label: thm-mp\nx\n```\n\n"
        "```{prf:lemma} L\n:label: tk-lem\nx\n```\n\n## BBP\n\n```{prf:theorem} BBP\n"
        ":label: thm-bbp\nx\n```\n"
    ),
    "01_model.md": "# The model\n\n## S\n\n```{prf:theorem} One\n:label: thm-one\nx\n```\n",
    "02_bulk.md": ("# The bulk\n\n## S\n\n```{prf:lemma} Two\n:label: lem-two\nx\n```\n\nSee {prf:ref}`thm-bbp`.\n"),
    "results.md": "# Results\n\n## Rows\n\ntext\n",
    "appendix_derivations.md": (
        "# Appendix\n\n## A. First\n\n### A.1 Sub\n\n```{prf:lemma} A1\n"
        ":label: app-lem-1\nx\n```\n\n$$ a=b $$ (app-eq)\n\n## B. Second\n\n"
        "```{prf:lemma} B1\n:label: app-lem-2\nx\n```\n\n"
        "```{prf:lemma} B2\n:label: app-lem-3\nx\n```\n\n$$ c=d $$ (app-eq-b)\n\n"
        "See {eq}`app-eq` and {eq}`app-eq-b`.\n"
    ),
}
TOC = """format: jb-book
root: book/intro
parts:
  - caption: Toolkit
    chapters:
      - file: book/00_toolkit
  - caption: The paper
    numbered: true
    chapters:
      - file: book/01_model
      - file: book/02_bulk
  - caption: Reference
    chapters:
      - file: book/results
      - file: book/appendix_derivations
"""
CONFIG = """title: scratch
only_build_toc_files: true
exclude_patterns: [_build]
execute:
  execute_notebooks: "off"
parse:
  myst_enable_extensions: [dollarmath, amsmath]
sphinx:
  extra_extensions: [sphinx_proof, seqrmt_book.numbering]
"""


def _text(path: Path) -> str:
    s = path.read_text(encoding="utf-8")
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s)))


def _build(book: Path) -> None:
    jb = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book")
    if jb is None:
        pytest.skip("jupyter-book is not installed")
    out = subprocess.run(
        [jb, "build", str(book), "-n", "-W", "--keep-going"], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    book = tmp_path_factory.mktemp("numbers")
    (book / "book").mkdir()
    for name, text in PAGES.items():
        (book / "book" / name).write_text(text, encoding="utf-8")
    (book / "_toc.yml").write_text(TOC)
    (book / "_config.yml").write_text(CONFIG)
    _build(book)
    return book


def _check(book: Path) -> None:
    site = book / "_build" / "html" / "book"
    toolkit, appendix = _text(site / "00_toolkit.html"), _text(site / "appendix_derivations.html")
    assert "Theorem 0.1 (MP)" in toolkit and "Lemma 0.1 (L)" in toolkit and "Theorem 0.2 (BBP)" in toolkit
    assert "0.1. Marchenko–Pastur" in toolkit and "0.2. BBP" in toolkit
    # the appendix's lemmas take the letter of their part (not 2, 3, 4: the counter the
    # unnumbered pages share), and so do its equations; its headings keep their own letters
    assert "Lemma A.1 (A1)" in appendix and "Lemma B.1 (B1)" in appendix and "Lemma B.2 (B2)" in appendix
    assert "(A.1)" in appendix and "(B.1)" in appendix
    assert " A. First" in appendix and "A.1 Sub" in appendix and not re.search(r"[0-9A-Z]\.[0-9]\. A\. First", appendix)
    # references from other pages, and the numbered chapters unchanged
    assert "Theorem 0.1" in _text(site / "intro.html") and "Lemma B.1" in _text(site / "intro.html")
    assert "Theorem 1.1" in _text(site / "intro.html")
    bulk = _text(site / "02_bulk.html")
    assert "Lemma 2.1 (Two)" in bulk and "Theorem 0.2" in bulk and "2.1. S" in bulk
    assert "Theorem 1.1 (One)" in _text(site / "01_model.html")
    # the sidebar: 0. Toolkit, 1. The model, 2. The bulk; the reference pages unnumbered
    sidebar = _text(site / "02_bulk.html")
    for entry in ("0. Toolkit", "1. The model", "2. The bulk"):
        assert entry in sidebar, entry
    assert not re.search(r"[0-9A-Z]\. (Results|Appendix)", sidebar)


def test_scratch_book_numbers(scratch):
    _check(scratch)


def test_incremental_build_keeps_the_numbers(scratch):
    page = scratch / "book" / "02_bulk.md"
    page.write_text(page.read_text() + "\nMore text.\n", encoding="utf-8")
    _build(scratch)
    _check(scratch)


def test_the_book_uses_the_scheme():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert "seqrmt_book" in config["sphinx"]["extra_extensions"]
    from seqrmt_book import EXTENSIONS

    assert "numbering" in EXTENSIONS
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    unnumbered = {c["file"] for part in toc["parts"] if not part.get("numbered") for c in part["chapters"]}
    for page in seqrmt_numbers.DEFAULT_PREFIXES:
        assert page in unnumbered, page

    def statements(page: str) -> list[tuple[str, str]]:
        nb = json.loads((ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        return re.findall(r"\{prf:(\w+)\}[^\n]*\n:label: ([\w-]+)", text)

    toolkit = statements("book/00_toolkit")
    assert [label for kind, label in toolkit if kind == "theorem"][0] == "thm-mp"  # Theorem 0.1
    assert [kind for kind, _ in statements("book/appendix_derivations")].count("lemma") >= 2
    nb = json.loads((ROOT / "book/appendix_derivations.ipynb").read_text(encoding="utf-8"))
    headings = re.findall(
        r"^## (.*)$", "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"), re.M
    )
    lettered = [h[0] for h in headings if seqrmt_numbers.PART_TITLE.match(h)]
    assert len(lettered) >= 2 and lettered == [chr(ord("A") + k) for k in range(len(lettered))], headings


def test_built_site_if_fresh():
    site = ROOT / "_build" / "html" / "book"
    page = site / "00_toolkit.html"
    if not page.is_file():
        pytest.skip("no build of the site")
    sources = [
        ROOT / "_config.yml",
        ROOT / "_toc.yml",
        ROOT / "seqrmt_book" / "numbering.py",
        ROOT / "book" / "00_toolkit.ipynb",
        ROOT / "book" / "appendix_derivations.ipynb",
    ]
    if page.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        pytest.skip("the build of the site is older than its sources")
    raw = page.read_text(encoding="utf-8")
    block = raw[raw.index('id="thm-mp"') :][:600]
    assert "Theorem 0.1" in html.unescape(re.sub(r"<[^>]+>", " ", block))
    appendix = _text(site / "appendix_derivations.html")
    assert re.search(r"Lemma A\.1", appendix) and not re.search(r"Lemma [0-9]+ ", appendix)
