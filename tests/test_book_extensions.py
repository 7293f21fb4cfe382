"""The book's Sphinx extensions (``seqrmt_book``) on a small scratch site built with the
book's theme and templates: what a page gets from each hook.

* math typeset when the page is written (the HTML math renderer), its stylesheet linked,
  no MathJax script, and the stylesheet kept whole by an incremental build;
* previews: links to statements and numbered equations marked, one preview script per
  statement with its typeset math and nothing focusable;
* the markup of images, code blocks, outputs, tables, citations and hidden cells;
* the assets: no Font Awesome JavaScript or script preloads, the theme's scripts after the
  first paint (but on the search page), ``documentation_options.js`` in the page, the
  theme's stylesheet replaced by its cut-down copy and the theme's own file untouched;
  ``site.css`` served with the widths of the text column the figures are checked for.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from scratch_sphinx import build_html
from seqrmt_book import STATIC, bundles, previews, theme, typeset

ROOT = Path(__file__).resolve().parents[1]

CONF = f"""
extensions = ["myst_nb", "sphinx_proof", "sphinx_design", "seqrmt_book.assets", "seqrmt_book.typeset",
              "seqrmt_book.html", "seqrmt_book.theme", "seqrmt_book.previews"]
html_theme = "sphinx_book_theme"
html_static_path = [{str(STATIC)!r}]
templates_path = [{str(ROOT / "_templates")!r}]
myst_enable_extensions = ["dollarmath", "amsmath"]
nb_execution_mode = "off"
numfig = True
html_theme_options = {{"search_as_you_type": False}}
"""

PAGE = """# Page

Inline $\\alpha < 1$ and a numbered equation

$$ S = Z Z^\\top $$ (eq-s)

```{prf:theorem} A theorem
:label: thm-a

Its statement, with $\\beta$.
```

See {prf:ref}`thm-a`, {eq}`eq-s` and [the intro](#intro); the citation [CIT1]_ is on its own page.

(intro)=
## Intro

```python
print("hi")
```

| a | b |
|---|---|
| 1 | 2 |

```{image} fig.png
:alt: a figure
:width: 20px
```

```{image} fig.png
:alt: the same figure again
:width: 20px
```

```{image} wide.png
:alt: a figure drawn at twice its size
:width: 800px
```

:::{dropdown} Folded
```{image} fig.png
:alt: a folded figure
:width: 20px
```
:::
"""

OTHER = """# Other

Only here: $\\aleph$.  See {prf:ref}`thm-a`.

```{card} A card
Its text.
```
"""

CITATIONS = """Citations
=========

See [CIT1]_.

.. [CIT1] A cited work.
.. [CIT2] Another one.
"""

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "a1", "metadata": {}, "source": ["# Notebook"]},
        {
            "cell_type": "code",
            "id": "a2",
            "execution_count": 1,
            "metadata": {"tags": ["hide-input"]},
            "source": ["print('out')"],
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["out\n"]}],
        },
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff" * (3 * width) for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _build(src: Path, *, fresh: bool) -> Path:
    return build_html(src, fresh=fresh)[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("extensions")
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    (src / "index.md").write_text("# Home\n\n```{toctree}\npage\nother\ncitations\nnotebook\n```\n", encoding="utf-8")
    (src / "page.md").write_text(PAGE.replace("[CIT1]_", "{ref}`citations`"), encoding="utf-8")
    (src / "other.md").write_text(OTHER, encoding="utf-8")
    (src / "citations.rst").write_text(CITATIONS, encoding="utf-8")
    (src / "notebook.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    (src / "fig.png").write_bytes(_png(40, 10))
    (src / "wide.png").write_bytes(_png(1600, 400))
    return _build(src, fresh=True)


def _stylesheets(site: Path, page: str) -> list[str]:
    """The stylesheets the page loads, bundles replaced by their files (paths under the site's root)."""
    from bs4 import BeautifulSoup

    return bundles.page_stylesheets(site, page, BeautifulSoup(_read(site, page), "html.parser"))


def _read(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


def test_math_is_typeset_as_the_page_is_written(site: Path) -> None:
    page = _read(site, "page.html")
    assert page.count("<mjx-container") == page.count("<mjx-assistive-mml") == 3
    assert "\\(" not in page and "\\[" not in page
    assert not re.search(r"<script[^>]*mathjax|MathJax\s*=", page, flags=re.I)  # no MathJax in the browser
    assert '<span class="eqno">(1)<a class="headerlink" href="#equation-eq-s"' in page
    # "with $\\beta$." : the formula and its full stop on one line; a formula before a word is not wrapped
    assert page.count('<span class="seqrmt-nobr"><span class="math notranslate nohighlight">') == 1
    assert re.search(
        r'<span class="seqrmt-nobr"><span class="math[^"]*">.*?</mjx-container></span>\.</span>', page, re.S
    )
    assert typeset.CSS_PATH in _stylesheets(site, "page.html")
    assert typeset.CSS_PATH not in _stylesheets(site, "citations.html")  # no math: no stylesheet
    assert typeset.check_site(site) == (2, 4)  # page.html 3, other.html 1
    css = _read(site, typeset.CSS_PATH)
    assert "mjx-c1D6FC" in css and "mjx-c2135" in css  # alpha (page), aleph (other)


def test_an_incremental_build_keeps_the_stylesheet_whole(site: Path) -> None:
    src = site.parents[1]
    (src / "page.md").write_text(PAGE.replace("[CIT1]_", "{ref}`citations`") + "\nMore: $\\gamma$.\n", encoding="utf-8")
    again = _build(src, fresh=False)
    css = _read(again, typeset.CSS_PATH)
    assert "mjx-c1D6FE" in css  # gamma, new on page.md
    assert "mjx-c2135" in css  # aleph of other.md, not rewritten
    assert (again / previews.FOLDER / previews.file_name("page.html#thm-a")).is_file()
    # other.md loses its only formula: its page no longer links the stylesheet, which loses the aleph
    (src / "other.md").write_text(OTHER.replace("Only here: $\\aleph$.", "No math now."), encoding="utf-8")
    third = _build(src, fresh=False)
    assert typeset.CSS_PATH not in _stylesheets(third, "other.html")
    assert "mjx-c2135" not in _read(third, typeset.CSS_PATH) and "mjx-c1D6FE" in _read(third, typeset.CSS_PATH)


def test_links_to_statements_and_equations_have_previews(site: Path) -> None:
    page, other = _read(site, "page.html"), _read(site, "other.html")
    links = re.findall(r'<a class="([^"]*)" href="([^"]*)"', page + other)
    marked = {href for classes, href in links if previews.LINK_CLASS in classes.split()}
    assert marked == {"#thm-a", "#equation-eq-s", "page.html#thm-a"}
    assert any(href == "#intro" for _, href in links)  # a section: no preview
    theorem = _read(site, previews.FOLDER + "/" + previews.file_name("page.html#thm-a"))
    assert "A theorem" in theorem and "<mjx-container" in theorem
    assert "<a " not in theorem and "id=" not in theorem and "tabindex" not in theorem
    equation = _read(site, previews.FOLDER + "/" + previews.file_name("page.html#equation-eq-s"))
    assert "(1)" in equation and "headerlink" not in equation


def test_markup_of_images_code_tables_citations_and_hidden_cells(site: Path) -> None:
    page = _read(site, "page.html")
    first, second, wide, folded = re.findall(r"<img [^>]*>", page)
    # each one when it comes near, the first too (the first paint does not wait for it)
    for img in (first, second, wide, folded):
        assert 'loading="lazy"' in img and 'decoding="async"' in img and "fetchpriority" not in img
    assert "a folded figure" in folded
    assert 'width="20" height="5"' in first and 'width="20" height="5"' in second  # CSS width, aspect kept
    # drawn at twice its size: a phone takes the copy 720 px wide (as wide as the narrow screen's column)
    assert "srcset" not in first and 'width="800" height="200"' in wide
    assert 'srcset="_images/wide.w720.png 720w, _images/wide.png 1600w"' in wide
    assert 'sizes="(max-width: 768px) min(calc(100vw - 32px), 800px), 800px"' in wide
    from PIL import Image

    with Image.open(site / "_images" / "wide.w720.png") as copy:
        assert copy.size == (720, 180)
    assert '<pre tabindex="0" role="group" aria-label="Code">' in page
    assert '<div class="pst-scrollable-table-container" tabindex="0" role="group" aria-label="Table">' in page
    citations = _read(site, "citations.html")
    assert 'role="doc-biblioentry"' not in citations
    assert citations.count('role="listitem"') == 2 and 'role="list" class="citation-list"' in citations
    notebook = _read(site, "notebook.html")
    assert '<pre tabindex="0" role="group" aria-label="Output">' in notebook
    assert "<summary>" in notebook and "Toggle hidden content" not in notebook


def test_assets_of_a_page_and_of_the_search_page(site: Path) -> None:
    page, search = _read(site, "page.html"), _read(site, "search.html")
    for html in (page, search):
        assert "fontawesome.js" not in html
        assert 'rel="preload" as="script"' not in html
        assert "_static/styles/pydata-sphinx-theme.css" not in html
    for name in ("page.html", "search.html"):  # the cut-down theme stylesheet, inside the bundle
        assert "_static/seqrmt/pydata-sphinx-theme.css" in _stylesheets(site, name), name
    assert re.search(r'<script type="seqrmt/after-paint" src="[^"]*scripts/bootstrap\.js', page)
    assert re.search(r'<script type="seqrmt/after-paint" src="[^"]*scripts/bootstrap\.js', search)
    assert "sphinx-design" not in page and "design-tabs" not in page  # no component on the page
    assert not any("sphinx-design" in css for css in _stylesheets(site, "page.html"))
    assert "_static/sphinx-design.min.css" in _stylesheets(site, "other.html")  # a card: its stylesheet stays
    options = _read(site, "_static/documentation_options.js").strip()
    assert f"<script>{options}</script>" in page
    assert "documentation_options.js" not in page


def test_the_served_stylesheet_sets_the_column_the_figures_are_checked_for(site: Path) -> None:
    from test_columns import assert_agrees_with_the_check

    css = _read(site, "_static/seqrmt/site.css")
    assert not (site / "_static" / "seqrmt" / "site.css_t").exists()
    assert_agrees_with_the_check(css)
    assert _stylesheets(site, "page.html")[-1] == "_static/seqrmt/site.css"  # last: it wins


def test_a_pages_stylesheets_come_in_one_bundle(site: Path) -> None:
    """The page links one bundle for its local stylesheets (the theme's own first), the bundle holds
    them in order with their url()s rewritten, and the same files give the same bundle."""
    from bs4 import BeautifulSoup

    tree = BeautifulSoup(_read(site, "page.html"), "html.parser")
    links = [link["href"] for link in tree.find_all("link", rel="stylesheet")]
    bundles_linked = [h for h in links if bundles.BUNDLE_DIR in h]
    assert links == bundles_linked and len(links) == 1, links  # the theme's own inside it too
    files = bundles.bundle_files(site, bundles_linked[0])
    assert tuple(files[:2]) == bundles.THEME_FILES and files[2] == "_static/pygments.css", files
    assert typeset.CSS_PATH in files
    bundle = _read(site, bundles_linked[0].split("?")[0])
    for name in files:  # each file in order, whole
        assert f"/* {name} */" in bundle
    assert bundle.index("/* _static/pygments.css */") < bundle.index("/* _static/seqrmt/site.css */")
    # every file a url() of the bundle names (the math fonts of math.css among them) is found from
    # the bundle's folder
    relative = [u for u in re.findall(r'url\("?([^")]+)"?\)', bundle) if not u.startswith(("data:", "http"))]
    assert relative
    for url in relative:
        assert (site / bundles.BUNDLE_DIR / url.split("?")[0].split("#")[0]).resolve().is_file(), url


def test_bundled_urls_are_rewritten_for_the_bundles_folder() -> None:
    css = '@font-face{src:url("../fonts/a.woff2?v=1#x") format("woff2"), url(b.ttf)} .x{background:url(data:,y)}'
    out = bundles.rebase_urls(css, "_static/styles/theme.css", "_static/seqrmt/bundles/abc.css")
    assert 'url("../../fonts/a.woff2?v=1#x")' in out and "url(../../styles/b.ttf)" in out
    assert "url(data:,y)" in out
    with pytest.raises(ValueError, match="@import"):
        bundles.rebase_urls('@import "x.css";', "_static/a.css", "_static/seqrmt/bundles/b.css")


def test_the_themes_files_are_not_changed(site: Path) -> None:
    import pydata_sphinx_theme

    static = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
    for rel in ("styles/pydata-sphinx-theme.css", "scripts/pydata-sphinx-theme.js"):
        assert (site / "_static" / rel).read_bytes() == (static / rel).read_bytes(), rel
    cut = _read(site, theme.THEME_CSS)
    assert len(cut) < 0.8 * len(_read(site, theme.THEME_SOURCE_CSS))
    assert theme.theme_asks_for_scroll_boxes(_read(site, theme.THEME_SCRIPT))


def test_the_themes_template_files_are_not_in_the_site(site: Path) -> None:
    """The themes' Jinja macro files, which Sphinx copies with their static files, are removed:
    their links are unrendered templates."""
    import pydata_sphinx_theme
    import sphinx_book_theme

    shipped = [
        Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / "webpack-macros.html",
        Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme" / "static" / "sbt-webpack-macros.html",
    ]
    assert all(p.is_file() for p in shipped)  # the themes still ship them: the removal is needed
    assert {f"_static/{p.name}" for p in shipped} == set(theme.THEME_TEMPLATE_COPIES)
    assert not [name for name in theme.THEME_TEMPLATE_COPIES if (site / name).exists()]
    assert not list((site / "_static").glob("*.html"))


def test_site_js_answers_the_themes_query() -> None:
    site_js = (STATIC / "seqrmt" / "site.js").read_text(encoding="utf-8")
    joined = re.search(r'var THEME_SCROLL_BOXES = "([^"]*)" \+\s*"([^"]*)";', site_js)
    assert joined and joined.group(1) + joined.group(2) == theme.THEME_SCROLL_BOXES
    assert not theme.theme_asks_for_scroll_boxes("function I(){}")  # a changed theme: noticed


def test_the_renderer_plugin_is_registered() -> None:
    from myst_nb.core.render import load_renderer

    from seqrmt_book.figures import FigureRenderer

    assert load_renderer("seqrmt") is FigureRenderer


def test_far_blocks_are_classed_by_the_build_not_by_has() -> None:
    """The sections (and blocks) the browser may leave unlaid-out are classed in the doctree:
    a section without a question whole, in one with a question each block but its own.  The
    site's stylesheets put ``:has()`` on no container of the text (a browser re-evaluates it on
    every key typed into a live cell below it; only the index's ``code.xref``, which holds none)."""
    from docutils import nodes
    from docutils.utils import new_document
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    from seqrmt_book import selfcheck

    doc = new_document("page", get_default_settings(Parser))
    top = nodes.section("", nodes.title("", "Chapter"))
    plain = nodes.section("", nodes.title("", "A"), nodes.paragraph("", "text"))
    asking = nodes.section("", nodes.title("", "B"), nodes.paragraph("", "before"))
    holder = nodes.container("")
    holder += selfcheck.self_check("")
    asking += holder
    asking += nodes.paragraph("", "after")
    deeper = nodes.section("", nodes.title("", "C"), nodes.paragraph("", "long text"))
    from sphinx_proof.nodes import proof_node

    proof = proof_node("", nodes.admonition("", nodes.paragraph("", "Proof.")))
    sub = nodes.section("", nodes.title("", "C.1"), proof, selfcheck.self_check(""))
    deeper += [sub, nodes.section("", nodes.title("", "C.2"))]
    top += [nodes.paragraph("", "intro"), plain, asking, deeper]
    doc += top
    selfcheck.mark_far_blocks(doc)
    assert selfcheck.FAR_SECTION in plain["classes"] and selfcheck.FAR_SECTION not in asking["classes"]
    assert [selfcheck.FAR_BLOCK in b["classes"] for b in asking.children] == [True, True, False, True]
    # a question in a subsection: the blocks around it skipped, down to the question's own
    assert [selfcheck.FAR_BLOCK in b["classes"] for b in deeper.children] == [True, True, False, True]
    assert [selfcheck.FAR_BLOCK in b["classes"] for b in sub.children] == [True, False, False]
    assert selfcheck.FAR_BLOCK in proof.children[0]["classes"]  # the proof's own element (none of its own)
    assert not top["classes"] and not top.children[0]["classes"]
    for name in ("site.css_t", "live.css", "selfcheck.css"):
        css = (STATIC / "seqrmt" / name).read_text(encoding="utf-8")
        rules = css.split(":has(")[:-1]
        assert all(r.rstrip().endswith("code.xref") for r in rules), name
    site_css = (STATIC / "seqrmt" / "site.css_t").read_text(encoding="utf-8")
    assert f".{selfcheck.FAR_SECTION}" in site_css and f".{selfcheck.FAR_BLOCK}" in site_css


def test_an_edit_of_the_extensions_writes_every_page_again() -> None:
    """Sphinx writes every page again when a template is newer than the pages; the book's template
    bridge counts its extensions' modules and static files as templates."""
    import os

    import yaml
    from sphinx.jinja2glue import BuiltinTemplateLoader

    from seqrmt_book import bridge

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["sphinx"]["config"]["template_bridge"] == "seqrmt_book.bridge.TemplateBridge"
    names = {p.relative_to(bridge.PACKAGE).as_posix() for p in bridge.extension_files()}
    assert {"selfcheck.py", "html.py", "static/seqrmt/site.css_t", "static/seqrmt/site.js"} <= names

    class Theirs(BuiltinTemplateLoader):
        def newest_template_mtime(self) -> float:
            return 1.0

    class Ours(bridge.TemplateBridge, Theirs):
        pass

    newest = max(os.stat(p).st_mtime for p in bridge.extension_files())
    assert Ours().newest_template_mtime() == newest > 1.0
