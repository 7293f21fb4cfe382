"""Unit tests of the site extensions for readers: self-checks (outside HTML), previews,
editions and build-time tab stops (``seqrmt_book/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from seqrmt_book import editions as seqrmt_editions
from seqrmt_book import previews as seqrmt_previews
from seqrmt_book import assets as seqrmt_site
from seqrmt_book import theme


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


def test_preview_content_is_cleaned_as_a_tree():
    """Links become spans of their content, however their attributes are written; escaped
    markup in the text stays text."""
    fragment = (
        '<div class="exercise admonition" id="ex"><p>A <a href="#y" title="x > y"><em>link</em></a>, '
        "<code>&lt;a href=&quot;#&quot;&gt;</code> and <a class='headerlink' href='#ex'><span>#</span></a></p></div>"
    )
    out = seqrmt_previews.clean(fragment)
    assert out == (
        '<div class="exercise admonition"><p>A <span><em>link</em></span>, '
        '<code>&lt;a href="#"&gt;</code> and </p></div>'
    )


def test_preview_content_has_nothing_to_focus():
    fragment = (
        '<div class="proof theorem admonition" id="thm-a"><p class="admonition-title">Theorem 1'
        '<a class="headerlink" href="#thm-a">#</a></p><p>See <a class="reference internal" '
        'href="#x" tabindex="0">x</a> <input id="c" type="checkbox"></p></div>'
    )
    out = seqrmt_previews.clean(fragment)
    assert "Theorem 1" in out and "<span>x</span>" in out
    assert not any(bad in out for bad in ("<a ", "headerlink", "id=", "tabindex", "<input"))
    script = seqrmt_previews.script("book/p.html#thm-a", fragment + "</script>")
    assert script.startswith('(window.seqrmtPreviews = window.seqrmtPreviews || {})["book/p.html#thm-a"]')
    assert "</script>" not in script


# ------------------------------------------------------------------ icon fonts
def _theme_file(*parts: str) -> Path:
    import pydata_sphinx_theme

    return Path(pydata_sphinx_theme.__file__).parent.joinpath("theme", "pydata_sphinx_theme", *parts)


def test_unused_icon_rules_are_dropped_as_whole_rules():
    """An icon rule goes when none of its icons is used; a rule whose selector only ends in an
    icon (``span i.fa-x:before``) or that sets more than ``content`` stays whole, as written."""
    css = (
        '.fa-bars:before{content:"\\f0c9"}.fa-a:before,.fa-b::after{content:"\\f001"}'
        ".ablog span.prev i.fa-arrow-left:before{content:var(--i)}.spacer{display:none}"
        '.fa-c:before{content:"\\f002";color:red}'
    )
    out = theme.purge_icon_rules(css, {"bars", "b"})
    assert out == (
        '.fa-bars:before{content:"\\f0c9"}.fa-a:before,.fa-b::after{content:"\\f001"}'
        ".ablog span.prev i.fa-arrow-left:before{content:var(--i)}.spacer{display:none}"
        '.fa-c:before{content:"\\f002";color:red}'
    )
    assert theme.purge_icon_rules(css, set()) == (
        ".ablog span.prev i.fa-arrow-left:before{content:var(--i)}.spacer{display:none}"
        '.fa-c:before{content:"\\f002";color:red}'
    )


def test_rules_for_what_the_site_does_not_have_are_dropped():
    """A selector goes when it needs (outside a function) a class or an id no page or script
    names; a rule with none left goes, and so does an emptied ``@media``; the rest as written."""
    css = (
        "/* c */ .a, .b > .c:hover, #x .d { color: red }\n"
        "@media (max-width: 10px) { .b { x: 1 } .a:not(.zz) { y: 2 } }\n"
        "@media print { .b { x: 1 } }\n"
        "p, .b { z: 3 }\n"
        ":is(.b, .a) { w: 4 }\n"
        "@font-face { font-family: q; }\n"
    )
    present = theme.words('<p class="a d" id="x"></p><script>e.classList.add("a-1")</script>')
    assert {"a", "d", "x", "a-1"} <= present and "b" not in present
    assert theme.purge_unmatched_rules(css, present) == (
        "/* c */ .a,#x .d{ color: red }\n"
        "@media (max-width: 10px) {  .a:not(.zz) { y: 2 } }\n"
        "\n"
        "p{ z: 3 }\n"
        ":is(.b, .a) { w: 4 }\n"
        "@font-face { font-family: q; }\n"
    )
    assert theme.purge_unmatched_rules(".b{x:1}", present | {"b"}) == ".b{x:1}"


def test_the_themes_scripts_build_only_the_listed_class_names():
    """Bootstrap's ``bs-NAME-auto`` is the one class name the theme's scripts build from parts
    (:data:`seqrmt_book.theme.BUILT_CLASSES` keeps its rules); another one is noticed."""
    static = _theme_file("static")
    js = "".join((static / name.removeprefix("_static/")).read_text(encoding="utf-8") for name in theme.THEME_SCRIPTS)
    assert theme.scripts_build_only_known_classes(js)
    assert "classList.add(`bs-${this.constructor.NAME}-auto`)" in js
    assert not theme.scripts_build_only_known_classes(js + "e.classList.add(`pst-${x}`)")


def test_icon_names_of_a_page_and_a_script():
    page = '<i class="fa-solid fa-bars"></i><script>x.classList.add("fa-moon")</script><p>fa-</p>'
    assert theme.icon_names_in_page(page) == {"solid", "bars", "moon"}
    assert theme.icon_names('el.className = "fa-sun fa-"') == {"sun"}


def test_icon_codepoints_reads_escapes_and_characters():
    css = (
        '.a:after{content:"\\f303"}' + '.b{--pst-icon-bell:"' + chr(0xF0F3) + '"}'
        '.c:before{content:"\\2014"}.d{content:"\\e0ff "}.e{content:"x"}'
    )
    assert theme.icon_codepoints(css) == {0xF303, 0xF0F3, 0xE0FF}  # not the dash U+2014


def test_served_icon_codepoints_reads_every_stylesheet(tmp_path):
    (tmp_path / "_static" / "x").mkdir(parents=True)
    (tmp_path / "_static" / "exercise.css").write_text('p::after{content:"\\f303"}', encoding="utf-8")
    (tmp_path / "_static" / "x" / "theme.css").write_text("a{--i:'" + chr(0xF0F3) + "'}", encoding="utf-8")
    (tmp_path / "page.html").write_text('<style>p{content:"\\f111"}</style>', encoding="utf-8")
    assert theme.served_icon_codepoints(tmp_path) == {0xF303, 0xF0F3}


def test_icon_font_subset_keeps_the_glyphs_other_stylesheets_name(tmp_path):
    from fontTools.ttLib import TTFont

    webfonts = _theme_file("static", "vendor", "fontawesome")
    ttf = next(webfonts.rglob("fa-solid-900.ttf"))
    folder = tmp_path / "vendor" / "fontawesome" / "webfonts"
    folder.mkdir(parents=True)
    (folder / ttf.name).write_bytes(ttf.read_bytes())
    css = (
        '@font-face{src:url(../vendor/fontawesome/webfonts/fa-solid-900.woff2) format("woff2"),'
        'url(../vendor/fontawesome/webfonts/fa-solid-900.ttf) format("truetype")}'
        '.fa-bars:before{content:"\\f0c9"}'
    )
    out = theme.subset_icon_fonts(css, folder, extra={0xF0F3, 0xF303})
    assert "fa-solid-900.subset.woff" in out
    cmap = TTFont(str(folder / "fa-solid-900.subset.woff")).getBestCmap()
    assert {0xF0C9, 0xF0F3, 0xF303} <= set(cmap)  # named here and elsewhere
    assert 0xF007 not in cmap  # an icon nobody names
    assert theme.subset_icon_fonts(out, folder, extra={0xF0F3}) == out  # idempotent rule


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
    without = re.sub(
        r'  <button class="pst-navbar-icon sidebar-toggle primary-toggle".*?</button>\n', "", theme, flags=re.S
    )
    without = re.sub(
        r"  \{% if not remove_sidebar_secondary and secondary_sidebar_items %\}.*?\{% endif %\}\n",
        "",
        without,
        flags=re.S,
    )
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


def test_header_button_templates_are_the_themes_but_lazy_logos():
    """``_templates/article-header-buttons.html`` and ``seqrmt-buttons.html`` are sphinx-book-theme's
    component and macros with two changes: the macros' import, and ``loading="lazy"`` on the logo
    images of the launch menu (fetched before the first paint otherwise)."""
    import sphinx_book_theme

    theme_dir = Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme"

    def body(path: Path) -> str:
        return _strip_comments(path.read_text(encoding="utf-8")).strip()

    lazy = ' loading="lazy" decoding="async">'
    ours = body(ROOT / "_templates" / "seqrmt-buttons.html")
    assert ours.count(lazy) == 1 and ours.replace(lazy, ">") == body(theme_dir / "macros" / "buttons.html")
    ours = body(ROOT / "_templates" / "article-header-buttons.html")
    theirs = body(theme_dir / "components" / "article-header-buttons.html")
    assert ours == theirs.replace('"../macros/buttons.html"', '"seqrmt-buttons.html"') and ours != theirs


def test_layout_template_copies_the_themes_css_block_but_the_preloads():
    """The ``css`` block is the theme's without ``head_js_preload()`` (Font Awesome's script and
    the script preloads) and with the cut-down stylesheet; ``scripts_end`` the theme's, after
    the first paint but on the search page."""
    import re

    theme_layout = _theme_file("layout.html").read_text(encoding="utf-8")
    ours = (ROOT / "_templates" / "layout.html").read_text(encoding="utf-8")

    def block(text: str, name: str) -> str:
        return re.search(r"\{%%-? block %s %%\}(.*?)\{%%-? endblock %s %%\}" % (name, name), text, re.S).group(1)

    def code(text: str) -> list[str]:
        return [
            line.strip()
            for line in _strip_comments(text).splitlines()
            if line.strip()
            and not line.strip().startswith("<!--")
            and not line.strip().startswith("-->")
            and "this give us a css class" not in line
        ]

    theirs, mine = code(block(theme_layout, "css")), code(block(ours, "css"))
    assert "{{ _webpack.head_js_preload() }}" in theirs and "_webpack.head_js_preload" not in "".join(mine)
    bundled = ("{%- if not seqrmt_theme_bundled %}", "{%- endif %}")  # the theme's files in the bundle
    assert [line for line in theirs if "head_js_preload" not in line and "head_pre_assets" not in line] == [
        line for line in mine if "head_pre_assets" not in line and line not in bundled
    ]
    assert sum(line in bundled for line in mine) == 2
    assert "{{ _webpack.body_post() }}" in block(theme_layout, "scripts_end")
    macros = _theme_file("static", "webpack-macros.html").read_text(encoding="utf-8")
    assert "_static/styles/pydata-sphinx-theme.css" in macros and "<script defer src=" in macros
    assert "fontawesome.js" in macros.split("macro head_js_preload")[1].split("endmacro")[0]


def test_every_pages_scripts_are_postponed_the_search_pages_too():
    class Asset(str):
        filename = property(lambda self: str(self))
        attributes: dict = {}
        priority = 500

        def __new__(cls, name, priority=500, **attrs):
            obj = str.__new__(cls, name)
            obj.attributes = attrs
            return obj

    for pagename in ("search", "book/intro"):
        context = {"script_files": [Asset("_static/doctools.js"), Asset("_static/seqrmt/site.js")]}
        seqrmt_site._defer_scripts(None, pagename, context)
        doctools, site = context["script_files"]
        assert doctools.attributes.get("type") == seqrmt_site.AFTER_PAINT, pagename
        assert site.attributes.get("type") is None


@pytest.mark.parametrize("as_soup", [True, False])
def test_sidebar_expand_buttons_get_a_name(as_soup):
    """The theme's ``generate_toctree_html`` returns a BeautifulSoup for the sidebar (and a string in
    other versions): either way every icon-only ``<summary>`` comes out named, and one with text
    keeps its own."""
    from bs4 import BeautifulSoup

    nav = (
        '<ul><li><details><summary><span class="toctree-toggle" role="presentation">'
        '<i class="fa-solid fa-chevron-down"></i></span></summary><ul></ul></details></li>'
        "<li><details><summary>Has text</summary></details></li></ul>"
    )
    context = {"generate_toctree_html": lambda kind, **kw: BeautifulSoup(nav, "html.parser") if as_soup else nav}
    seqrmt_site._name_nav_toggles(context)
    html = str(context["generate_toctree_html"]("sidebar", startdepth=1))
    summaries = BeautifulSoup(html, "html.parser").find_all("summary")
    assert summaries[0].get("aria-label") == seqrmt_site._NAV_TOGGLE_NAME
    assert summaries[1].get("aria-label") is None and summaries[1].get_text() == "Has text"
    seqrmt_site._name_nav_toggles(context)  # wrapping twice changes nothing
    assert str(context["generate_toctree_html"]("sidebar")).count("aria-label") == 1


def test_search_template_postpones_the_themes_three_search_scripts():
    """``_templates/search.html`` replaces the scripts block of the theme's search page: the theme's
    block is its layout's plus exactly these three plain scripts, which ours writes to be loaded
    after the first paint, in order (``seqrmt/after-paint``)."""
    import re

    block = re.compile(r"\{%-? block scripts -?%\}(.*?)\{%-? endblock scripts %\}", re.S)
    theirs = block.search(_theme_file("search.html").read_text(encoding="utf-8")).group(1)
    ours = block.search((ROOT / "_templates" / "search.html").read_text(encoding="utf-8")).group(1)
    sources = re.findall(r"<script src=\"(\{\{ pathto\([^)]*\) \}\})\"></script>", theirs)
    assert "{{ super() }}" in theirs and len(sources) == theirs.count("<script") == 3, theirs
    assert "{{ super.super() }}" in ours and "super()" not in ours.replace("super.super()", "")
    postponed = r"<script type=\"seqrmt/after-paint\" src=\"(\{\{ pathto\([^)]*\) \}\})\"></script>"
    assert re.findall(postponed, ours) == sources


def test_the_themes_theme_css_only_imports_basic_css():
    """``_templates/layout.html`` links ``basic.css`` where the theme links ``styles/theme.css``: the
    same rules, one request fewer before the first paint, as long as that file only imports it."""
    import tinycss2

    text = _theme_file("static", "styles", "theme.css").read_text(encoding="utf-8")
    rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    assert len(rules) == 1 and rules[0].type == "at-rule" and rules[0].lower_at_keyword == "import"
    (target,) = [t for t in rules[0].prelude if t.type in ("string", "url")]
    assert target.value == "../basic.css"
    ours = (ROOT / "_templates" / "layout.html").read_text(encoding="utf-8")
    assert '| replace("_static/styles/theme.css", "_static/basic.css")' in ours
