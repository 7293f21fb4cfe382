"""Unit tests of the site extensions for readers: self-checks (outside HTML), previews,
editions and build-time tab stops (``site_assets/``)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "site_assets"))

import seqrmt_editions  # noqa: E402
import seqrmt_previews  # noqa: E402
import seqrmt_site  # noqa: E402


def test_book_version_is_pyprojects(tmp_path):
    import tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert seqrmt_editions.book_version(ROOT) == pyproject["project"]["version"]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2.3.4"\n')
    assert seqrmt_editions.book_version(tmp_path) == "2.3.4"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(ValueError, match="version"):
        seqrmt_editions.book_version(tmp_path)


def test_build_date_honours_source_date_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert seqrmt_editions.build_date() == "1970-01-01"
    line = seqrmt_editions.footer_line("1.2", "1970-01-01", "changes.html")
    assert 'class="seqrmt-edition"' in line and "version 1.2" in line and 'href="changes.html"' in line


PAGE = ('<html><head></head><body>'
        '<div class="proof theorem admonition" id="thm-a"><p class="admonition-title">Theorem 1</p>'
        '<div class="section"><p>See <a class="reference internal" href="#eq-x">x</a>.</p></div></div>'
        '<div class="math notranslate nohighlight" id="equation-e1"><span class="eqno">(1)'
        '<a class="headerlink" href="#equation-e1">#</a></span><mjx-container>E</mjx-container></div>'
        '<div class="section" id="intro"><p>text</p></div>'
        '<p><a class="reference internal" href="#thm-a">T</a> <a class="reference internal" '
        'href="#equation-e1">(1)</a> <a class="reference internal" href="#intro">I</a></p>'
        '</body></html>')


def test_previews_mark_statement_and_equation_links(tmp_path):
    (tmp_path / "book").mkdir()
    page = tmp_path / "book" / "p.html"
    page.write_text(PAGE)
    assert seqrmt_previews.add_previews(tmp_path) == 2
    text = page.read_text()
    assert 'data-seqrmt-preview="book/p.html#thm-a"' in text
    assert 'data-seqrmt-preview="book/p.html#equation-e1"' in text
    assert 'data-seqrmt-preview="book/p.html#intro"' not in text        # a section: no preview
    theorem = (tmp_path / seqrmt_previews.FOLDER / seqrmt_previews.file_name("book/p.html#thm-a")).read_text()
    assert "Theorem 1" in theorem and "<a " not in theorem and "id=" not in theorem
    eq = (tmp_path / seqrmt_previews.FOLDER / seqrmt_previews.file_name("book/p.html#equation-e1")).read_text()
    assert "(1)" in eq and "headerlink" not in eq
    assert seqrmt_previews.add_previews(tmp_path) == 2                  # idempotent
    assert page.read_text() == text


def test_element_is_balanced():
    html = '<div class="exercise admonition" id="ex"><div><div>a</div></div><p>b</p></div><div>c</div>'
    assert seqrmt_previews._element(html, "ex").endswith("<p>b</p></div>")
    assert seqrmt_previews._element(html, "missing") is None


def test_scroll_boxes_named_tab_stops():
    html = ('<div class="cell_input docutils container"><pre>a</pre></div>'
            '<div class="cell_output docutils container"><pre>b</pre></div>'
            '<div class="pst-scrollable-table-container"><table></table></div>')
    out = seqrmt_site.focusable_scroll_boxes(html)
    assert '<pre tabindex="0" role="group" aria-label="Code">a' in out
    assert '<pre tabindex="0" role="group" aria-label="Output">b' in out
    assert 'class="pst-scrollable-table-container" tabindex="0" role="group" aria-label="Table"' in out
    assert seqrmt_site.focusable_scroll_boxes(out) == out


# ------------------------------------------------------------------ icon fonts
def _theme_file(*parts: str) -> Path:
    import pydata_sphinx_theme
    return Path(pydata_sphinx_theme.__file__).parent.joinpath("theme", "pydata_sphinx_theme", *parts)


def test_icon_codepoints_reads_escapes_and_characters():
    css = ('.a:after{content:"\\f303"}' + '.b{--pst-icon-bell:"' + chr(0xF0F3) + '"}'
           '.c:before{content:"\\2014"}.d{content:"\\e0ff "}.e{content:"x"}')
    assert seqrmt_site.icon_codepoints(css) == {0xF303, 0xF0F3, 0xE0FF}   # not the dash U+2014


def test_served_icon_codepoints_reads_every_stylesheet(tmp_path):
    (tmp_path / "_static" / "x").mkdir(parents=True)
    (tmp_path / "_static" / "exercise.css").write_text('p::after{content:"\\f303"}', encoding="utf-8")
    (tmp_path / "_static" / "x" / "theme.css").write_text("a{--i:'" + chr(0xF0F3) + "'}", encoding="utf-8")
    (tmp_path / "page.html").write_text('<style>p{content:"\\f111"}</style>', encoding="utf-8")
    assert seqrmt_site.served_icon_codepoints(tmp_path) == {0xF303, 0xF0F3}


def test_icon_font_subset_keeps_the_glyphs_other_stylesheets_name(tmp_path):
    from fontTools.ttLib import TTFont

    webfonts = _theme_file("static", "vendor", "fontawesome")
    ttf = next(webfonts.rglob("fa-solid-900.ttf"))
    folder = tmp_path / "vendor" / "fontawesome" / "webfonts"
    folder.mkdir(parents=True)
    (folder / ttf.name).write_bytes(ttf.read_bytes())
    css = ('@font-face{src:url(../vendor/fontawesome/webfonts/fa-solid-900.woff2) format("woff2"),'
           'url(../vendor/fontawesome/webfonts/fa-solid-900.ttf) format("truetype")}'
           '.fa-bars:before{content:"\\f0c9"}')
    out = seqrmt_site.subset_icon_fonts(css, folder, extra={0xF0F3, 0xF303})
    assert "fa-solid-900.subset.woff" in out
    cmap = TTFont(str(folder / "fa-solid-900.subset.woff")).getBestCmap()
    assert {0xF0C9, 0xF0F3, 0xF303} <= set(cmap)                          # named here and elsewhere
    assert 0xF007 not in cmap                                             # an icon nobody names
    assert seqrmt_site.subset_icon_fonts(out, folder, extra={0xF0F3}) == out   # idempotent rule


# ------------------------------------------------------------------ page templates
def _strip_comments(template: str) -> str:
    import re
    return re.sub(r"\{#.*?#\}\n?", "", template, flags=re.S)


def test_navbar_template_is_the_themes_without_its_hidden_sidebar_toggles():
    """_templates/sections/header.html is the theme's file minus its two toggle buttons:
    after a theme upgrade that changes the file, this fails and the copy is redone."""
    import re
    theme = _theme_file("sections", "header.html").read_text(encoding="utf-8")
    ours = (ROOT / "_templates" / "sections" / "header.html").read_text(encoding="utf-8")
    assert "primary-toggle" in theme and "secondary-toggle" in theme
    assert "primary-toggle" not in _strip_comments(ours) and "secondary-toggle" not in _strip_comments(ours)
    without = re.sub(r'  <button class="pst-navbar-icon sidebar-toggle primary-toggle".*?</button>\n', "",
                     theme, flags=re.S)
    without = re.sub(r"  \{% if not remove_sidebar_secondary and secondary_sidebar_items %\}.*?\{% endif %\}\n",
                     "", without, flags=re.S)
    assert _strip_comments(ours) == _strip_comments(without)


def test_layout_template_keeps_the_themes_head_but_the_search_scripts():
    import re
    theme = _theme_file("layout.html").read_text(encoding="utf-8")
    ours = (ROOT / "_templates" / "layout.html").read_text(encoding="utf-8")
    block = re.compile(r"\{%-? block extrahead %\}(.*?)\{%-? endblock extrahead %\}", re.S)
    metas = [line.strip() for line in block.search(theme).group(1).splitlines() if "<meta" in line]
    mine = block.search(ours).group(1)
    assert metas and all(m in mine for m in metas)
    assert "pagename != 'search' and theme_search_as_you_type" in mine
    assert mine.count("<script") == block.search(theme).group(1).count("<script") == 3


def test_search_page_scripts_are_not_postponed():
    class Asset(str):
        filename = property(lambda self: str(self))
        attributes: dict = {}
        priority = 500

        def __new__(cls, name, priority=500, **attrs):
            obj = str.__new__(cls, name)
            obj.attributes = attrs
            return obj

    for pagename, postponed in (("search", False), ("book/intro", True)):
        context = {"script_files": [Asset("_static/doctools.js"), Asset("_static/seqrmt/site.js")]}
        seqrmt_site._defer_scripts(None, pagename, context)
        doctools, site = context["script_files"]
        assert (doctools.attributes.get("type") == seqrmt_site.AFTER_PAINT) is postponed, pagename
        assert site.attributes.get("type") is None


@pytest.mark.parametrize("as_soup", [True, False])
def test_sidebar_expand_buttons_get_a_name(as_soup):
    """The theme's ``generate_toctree_html`` returns a BeautifulSoup for the sidebar (and a string in
    other versions): either way every icon-only ``<summary>`` comes out named, and one with text
    keeps its own."""
    from bs4 import BeautifulSoup

    nav = ('<ul><li><details><summary><span class="toctree-toggle" role="presentation">'
           '<i class="fa-solid fa-chevron-down"></i></span></summary><ul></ul></details></li>'
           '<li><details><summary>Has text</summary></details></li></ul>')
    context = {"generate_toctree_html": lambda kind, **kw: BeautifulSoup(nav, "html.parser") if as_soup else nav}
    seqrmt_site._name_nav_toggles(context)
    html = str(context["generate_toctree_html"]("sidebar", startdepth=1))
    summaries = BeautifulSoup(html, "html.parser").find_all("summary")
    assert summaries[0].get("aria-label") == seqrmt_site._NAV_TOGGLE_NAME
    assert summaries[1].get("aria-label") is None and summaries[1].get_text() == "Has text"
    seqrmt_site._name_nav_toggles(context)          # wrapping twice changes nothing
    assert str(context["generate_toctree_html"]("sidebar")).count("aria-label") == 1
