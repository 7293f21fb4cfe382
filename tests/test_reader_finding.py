"""What a reader finds and reads exactly, on a small scratch site built with the book's
extensions, theme and templates (no browser):

* a long inline formula is typeset in parts that a line may wrap between, after a relation or
  an operator of its top level (``seqrmt_book.typeset.line_breaks``);
* the search: the book's scorer is the page's ``Scorer``; a page that uses a Greek letter by
  its TeX name, its word or its symbol carries both as search keywords, so that "κ" and
  "kappa" find the same pages (``seqrmt_book.search``);
* the General Index lists no entry of the API and no term twice ("Bulk" and "bulk"), the API
  index lists the API's entries, and the index of results shows its titles' formulas typeset;
* a self-check's answer is not in the page source in plain form, the salted hashes of the
  page check it as ``selfcheck.js`` does, and the right option is placed by its question;
* ``_seqrmt_live.json`` with no kernel server is in the built site (no 404 on 127.0.0.1).

Each check is also run with its defect planted (the fix undone), and must then fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scratch_sphinx import build_html
from seqrmt_book import STATIC, search, selfcheck, typeset

ROOT = Path(__file__).resolve().parents[1]

CONF = f"""
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx_proof", "seqrmt_book.assets", "seqrmt_book.typeset",
              "seqrmt_book.html", "seqrmt_book.theme", "seqrmt_book.live", "seqrmt_book.reading",
              "seqrmt_book.search"]
html_theme = "sphinx_book_theme"
html_static_path = [{str(STATIC)!r}]
templates_path = [{str(ROOT / "_templates")!r}]
myst_enable_extensions = ["dollarmath", "amsmath"]
numfig = True
nb_execution_mode = "off"
html_theme_options = {{"search_as_you_type": False}}
html_context = {{"default_mode": "auto"}}
"""

INDEX = """# Home

```{toctree}
book/00_chapter
book/glossary
book/api
```
"""

CHAPTER = """# Chapter

```{index} bulk
```

The law $\\kappa(\\mathrm{MP}_\\delta\\boxtimes\\mathrm{MP}_\\gamma)$ of the bulk, with
$W_\\pm = \\tfrac{2}{V}\\sum_{v} (z_v - \\bar z)(z_v - \\bar z)^\\top = \\bar W + \\Delta\\Delta^\\top \\to \\beta + \\delta$
and $x < 1$.

```{prf:proposition} The edge of $\\kappa(\\mathrm{MP}_\\delta)$
:label: prop-edge

Its statement.
```

Links: {ref}`results <prf-prf>`, {ref}`API <seqrmt-apiindex>`.
"""

GLOSSARY = """# Glossary

```{glossary}
Bulk
  The bulk of a spectrum; κ is its scale.
```
"""

API = """# API

```{eval-rst}
.. autofunction:: seqrmt_book.search.greek_keywords
.. autofunction:: seqrmt_book.search.split_index
```
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("finding")
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    (src / "index.md").write_text(INDEX, encoding="utf-8")
    (src / "book").mkdir()
    (src / "book" / "00_chapter.md").write_text(CHAPTER, encoding="utf-8")
    (src / "book" / "glossary.md").write_text(GLOSSARY, encoding="utf-8")
    (src / "book" / "api.md").write_text(API, encoding="utf-8")
    return build_html(src, fresh=True)[1]


def _read(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------- inline math that wraps
def test_a_long_inline_formula_breaks_after_its_top_level_operators() -> None:
    tex = r"\|\mu+\Delta\|^2 = \beta + 2\mu^\top(\Delta + x) + \|\Delta\|^2 \to \beta + \delta"
    parts = typeset.line_breaks(tex)
    assert parts == [
        r"\|\mu+\Delta\|^2 ={}",
        r"\beta +{}",
        r"2\mu^\top(\Delta + x) +{}",
        r"\|\Delta\|^2 \to{}",
        r"\beta +{}",
        r"\delta",
    ]
    assert typeset.line_breaks("x = 1") == ["x = 1"]  # short: one piece
    # no cut in a script, a group, brackets, at a sign that opens a term or at the end
    tex = r"-\frac{a+b}{c-d} + \sum_{i=1}^{n} (x_i - y_i) \le -\left(u + v\right)^{2}"
    assert typeset.line_breaks(tex) == [
        r"-\frac{a+b}{c-d} +{}",
        r"\sum_{i=1}^{n} (x_i - y_i) \le{}",
        r"-\left(u + v\right)^{2}",
    ]
    # a part still long is cut again one bracket deep, and after a comma there
    tex = r"\lambda_2(S) \ge \min\{x^\top S x:\ x = a_1 x_1 + a_2 x_2,\ \|x\|=1\}"
    assert typeset.line_breaks(tex) == [r"\lambda_2(S) \ge{}", r"\min\{x^\top S x:\ x ={}", r"a_1 x_1 +{}", r"a_2 x_2,{}",
                                        r"\ \|x\|={}", r"1\}"]  # fmt: skip


def test_a_long_inline_formula_is_typeset_in_parts(site: Path) -> None:
    page = _read(site, "book/00_chapter.html")
    spans = re.findall(r'<span class="math notranslate nohighlight( seqrmt-breaks)?">(.*?)</span>(?=[^<]|<)', page)
    broken = [s for s in re.findall(r'<span class="math notranslate nohighlight seqrmt-breaks">', page)]
    assert len(broken) == 1  # the W formula; the kappa law (no operator at its top level) and "x < 1" stay whole
    assert spans
    css = _read(site, "_static/seqrmt/site.css")
    assert re.search(r"span\.math\.seqrmt-breaks[^{]*\{[^}]*display: inline;[^}]*white-space: normal;", css, re.S)


# ---------------------------------------------------------------- search
def test_greek_letters_by_name_and_by_symbol() -> None:
    assert search.greek_keywords(r"\kappa(\mathrm{MP}_\delta) and \varepsilon") == [
        "delta",
        "δ",
        "epsilon",
        "ε",
        "kappa",
        "κ",
    ]
    assert search.greek_keywords("the scale κ") == ["kappa", "κ"]
    assert search.greek_keywords("alphabet, etanol, pivot") == []  # words, not letters


def test_search_index_finds_greek_letters_both_ways_and_uses_the_scorer(site: Path) -> None:
    index = _read(site, "searchindex.js")
    data = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    docs = data["docnames"]

    def pages(word: str) -> set[str]:  # in the text or in a title (Sphinx keeps a word in one of them)
        found = set()
        for kind in ("terms", "titleterms"):
            where = data[kind].get(word, [])
            found |= {docs[i] for i in ([where] if isinstance(where, int) else where)}
        return found

    assert pages("κ") == pages("kappa") >= {"book/00_chapter", "book/glossary"}
    language = _read(site, "_static/language_data.js")
    assert "var Scorer" in language and "book\\/api" in language  # the book's scorer


# ---------------------------------------------------------------- the indices
def _index_entries(page: str) -> list[str]:
    return re.findall(r"<li><a href=\"([^\"]+)\">\s*(?:<strong>)?\s*([^<]+?)\s*<", page)


def test_general_index_has_concepts_only_and_each_once(site: Path) -> None:
    entries = _index_entries(_read(site, "genindex.html"))
    names = [name.strip() for _, name in entries]
    assert "bulk" in names or "Bulk" in names
    assert len({n.casefold() for n in names}) == len(names), names
    assert not [href for href, _ in entries if href.startswith("book/api")], entries
    api = _index_entries(_read(site, "api-index.html"))
    assert api and all(href.startswith("book/api") for href, _ in api), api
    assert "<title>API index" in _read(site, "api-index.html")
    assert 'href="api-index.html"' in _read(site, "genindex.html")


def test_split_index_catches_a_duplicate_and_an_api_entry() -> None:
    links = [(False, "book/00_chapter.html#index-0")]
    genindex = [
        ("B", [("Bulk", (links, [], None)), ("bulk", ([(False, "book/glossary.html#term-Bulk")], [], None))]),
        ("G", [("greek_keywords() (in module seqrmt_book.search)", ([(False, "book/api.html#x")], [], None))]),
    ]
    kept = search.split_index(genindex, lambda uri: not uri.startswith("book/api"))
    assert kept == [("B", [("bulk", (links + [(False, "book/glossary.html#term-Bulk")], [], None))])]
    # planted: no filter and no merging (Sphinx's own index) has both defects
    assert len([n for _, e in genindex for n, _ in e]) == 3


def test_results_index_is_linked_and_typeset(site: Path) -> None:
    results = _read(site, "prf-prf.html")
    assert "$" not in re.sub(r"<script.*?</script>", "", results, flags=re.S)
    from bs4 import BeautifulSoup

    from seqrmt_book import bundles, typeset

    assert "<mjx-container" in results
    assert typeset.CSS_PATH in bundles.page_stylesheets(site, "prf-prf.html", BeautifulSoup(results, "html.parser"))
    chapter = _read(site, "book/00_chapter.html")
    assert 'href="../prf-prf.html"' in chapter and 'href="../api-index.html"' in chapter


# ---------------------------------------------------------------- self-checks
def test_self_check_answers_are_hashed_and_checked() -> None:
    salt = selfcheck.fnv1a("book/00/self-check-1")
    assert selfcheck.fnv1a("") == "811c9dc5" and selfcheck.fnv1a("a") == "e40c292c"  # FNV-1a 32-bit
    step, hashes = selfcheck.answer_hashes(2.25, 0.01, salt)

    def right(x: float) -> bool:  # what selfcheck.js does
        return selfcheck.fnv1a(f"{salt}:{round(x / step)}") in hashes

    assert right(2.25) and right(2.255) and right(2.2451) and not right(2.2601) and not right(2.239)
    assert "2.25" not in " ".join(hashes)
    sealed = selfcheck.seal({"answer": 2.25, "display": "2.25"}, salt)
    assert "2.25" not in sealed and selfcheck.unseal(sealed, salt) == {"answer": 2.25, "display": "2.25"}


def test_the_right_option_is_not_always_in_the_middle() -> None:
    places = []
    for n in range(16):
        options = [{"choice": c} for c in ("a", "b", "c")]
        placed = selfcheck.placed_choices(options, "b", f"book/0{n % 9}/self-check-{n}")
        assert sorted(o["choice"] for o in placed) == ["a", "b", "c"]
        assert [o["choice"] for o in placed if o["choice"] != "b"] == ["a", "c"]  # the others keep their order
        places.append([o["choice"] for o in placed].index("b"))
    assert places.count(1) <= 8 and len(set(places)) == 3, places


# ---------------------------------------------------------------- live code, dark mode
def test_live_settings_file_without_a_server(site: Path) -> None:
    assert json.loads(_read(site, "_seqrmt_live.json")) == {}


def test_first_visit_follows_the_os_colour_setting(site: Path) -> None:
    page = _read(site, "book/glossary.html")
    assert 'localStorage.getItem("mode") || "auto"' in page
    assert 'matchMedia("(prefers-color-scheme: dark)")' in page
