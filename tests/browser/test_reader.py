"""The built site as a reader uses it: search, the sidebar buttons, the icons, dark mode.

Each check (in ``site_checks.py``) runs on the served site, and again on the same site with
a defect planted (the response of one file rewritten in the browser, or a style added),
which it must report: a check that cannot fail is not a check.

* **Search**: ``search.html?q=<term>`` lists results for "Stieltjes", "BBP", "kappa" and
  "harmonic" and logs no console error.  Planted: ``searchtools.js`` run before
  ``doctools.js`` (it then throws ``_ready is not defined``).  The search field's
  magnifying glass leaves the typed text clear.  Planted: the theme's absolute placement of
  the icon over the field.
* **Sidebar buttons**: at 390 px the visible menu (☰) and contents buttons open their
  panels (visible, on screen, on top, with links) and Escape closes them; at 1280 px the
  menu button collapses the sidebar and brings it back.  Planted: the theme's hidden
  navbar toggles put back before the visible ones (the theme's scripts bind the first).
* **Icons**: every private-use glyph that CSS ``content`` puts on a page (theorem,
  exercise and admonition titles, navbar and theme-switch icons) is drawn by the served
  font, not as a missing-glyph box; and the served font files cover every icon code point
  the served stylesheets name (fontTools, no browser).  Planted: the solid icon font served
  without U+F0F3 (the theorem boxes' bell).
* **Dark mode**: display equations in theorem, proof and exercise boxes show the box's
  background at both ends (no band wider than 3 px).  Planted: the old scroll-shadow
  covers drawn in the page's background colour.
* **Phone width**: every formula of chapter 3 at 390 px, display or inline (the long ones
  in its proofs), lies inside its box, or scrolls inside it: nothing is cut off at the
  right edge.  Planted: the theme's clipping of inline formulas (``span.math``, overflow
  hidden) and display equations that do not scroll in a box that clips.  The General Index
  does not scroll sideways at 390 px.  Planted: Sphinx's table of index columns.
"""

from __future__ import annotations

import re

import pytest

import site_checks

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
#: A chapter with theorems, proofs, exercises and admonitions (the heaviest page).
CHAPTER = "book/03_bbp"
#: A lighter chapter with theorem boxes (for the planted missing glyph).
LIGHT_CHAPTER = "book/01_model"
#: A light page with a table of contents of its own (for the sidebar buttons).
LIGHT_PAGE = "book/syllabus"


@pytest.fixture
def new_page(browser):
    """A fresh page (its own context) at a given width: ``new_page(width)``."""
    contexts = []

    def make(width: int = 1280, height: int = 900):
        ctx = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
        contexts.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture(scope="module")
def chapter(browser, site_url):
    """:data:`CHAPTER` loaded once (per test process) at 1280 px in light mode; each test
    that changes it (width, dark mode, a planted style) puts it back (:func:`_changed`)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = ctx.new_page()
    _open(page, f"{site_url}/{CHAPTER}.html")
    yield page
    ctx.close()


class _changed:
    """``with _changed(page, width=390, dark=True, style=css):`` the shared chapter page
    changed for one test, then put back as it was."""

    def __init__(self, page, width: int | None = None, dark: bool = False, style: str | None = None):
        self.page, self.width, self.dark, self.style = page, width, dark, style

    def __enter__(self):
        if self.width:
            self.page.set_viewport_size({"width": self.width, "height": 844})
            self.page.wait_for_function(f"() => window.innerWidth === {self.width}")
        if self.dark:
            self.page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
        if self.style:
            self.page.evaluate(
                """(css) => { const s = document.createElement('style');
                s.id = 'seqrmt-planted'; s.textContent = css; document.head.appendChild(s); }""",
                self.style,
            )
        self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return self.page

    def __exit__(self, *exc):
        self.page.evaluate("""() => { const s = document.getElementById('seqrmt-planted'); if (s) s.remove();
            document.documentElement.dataset.theme = 'light'; window.scrollTo(0, 0); }""")
        if self.width:
            self.page.set_viewport_size({"width": 1280, "height": 900})
        return False


def _open(page, url: str) -> None:
    page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
    # the theme's scripts are loaded after the first paint (static/seqrmt/site.js)
    site_checks.wait_for_scripts(page, TIMEOUT_MS)


def _rewrite(page, pattern: str, change) -> None:
    """Serve the responses whose URL matches ``pattern`` with ``change(text)`` as the body."""

    def handle(route):
        response = route.fetch()
        route.fulfill(response=response, body=change(response.text()))

    page.route(pattern, handle)


# ------------------------------------------------------------------ search
def test_search_lists_results(new_page, site_url):
    problems = site_checks.search_problems(new_page(), site_url)
    assert not problems, "\n".join(problems)


def test_search_check_catches_a_broken_search(new_page, site_url):
    page = new_page()
    _rewrite(
        page,
        "**/search.html*",
        # planted: searchtools.js as a plain script instead of postponed with the page's scripts: it
        # runs while the page is parsed, always before doctools.js, which it needs (a deferred one
        # raced the scripts loaded after the first paint)
        lambda html: re.sub(r'<script [^>]*src="(_static/searchtools\.js[^"]*)"', r'<script src="\1"', html),
    )
    problems = site_checks.search_problems(page, site_url, terms=("Stieltjes",))
    assert any("no result" in p for p in problems), problems
    assert any("_ready" in p for p in problems), problems


@pytest.mark.parametrize("width", [390, 1280])
def test_search_field_finds_a_term(new_page, site_url, width):
    """The visible search button (one per page), its field, Enter: results listed."""
    problems = site_checks.search_field_problems(new_page(width), site_url, LIGHT_PAGE)
    assert not problems, "\n".join(problems)


def test_search_field_check_catches_a_second_button(new_page, site_url):
    page = new_page(1280)
    # planted: the theme's sidebar search field back beside the header's
    _rewrite(
        page,
        f"**/{LIGHT_PAGE}.html",
        lambda html: html.replace(
            '<nav class="bd-links bd-docs-nav',
            '<button class="btn search-button-field search-button__button">Search</button>'
            '<nav class="bd-links bd-docs-nav',
            1,
        ),
    )
    problems = site_checks.search_field_problems(page, site_url, LIGHT_PAGE)
    assert any("2 visible search buttons" in p for p in problems), problems


def test_search_icon_check_catches_an_icon_over_the_text(new_page, site_url):
    page = new_page(390)
    # planted: the theme's own placement of the icon, over the field's padding
    # (site.css is served inside the page's stylesheet bundle, seqrmt_book/bundles.py)
    _rewrite(
        page, "**/_static/seqrmt/bundles/*.css*", lambda css: css.replace("position: static;", "position: absolute;")
    )
    problems = site_checks.search_field_problems(page, site_url, LIGHT_PAGE)
    assert any("search dialog: the search icon covers the typed text" in p for p in problems), problems


def test_general_index_fits_a_phone(new_page, site_url):
    """The General Index and the API index at 390 px: their columns follow each other, nothing
    runs off the screen (planted on the API index, whose long names need the room)."""
    page = new_page(390, 844)
    for name, least in (("genindex", 50), ("api-index", 100)):
        _open(page, f"{site_url}/{name}.html")
        assert page.locator("table.genindextable td a").count() > least, f"{name} lists too few entries"
        wide = page.evaluate(site_checks.JS_PAGE_OVERFLOW)
        assert wide is None, f"{name} scrolls sideways at 390 px: {wide}"
    # planted: Sphinx's table of columns, as the theme leaves it
    page.add_style_tag(
        content="table.genindextable{display:table!important;overflow-wrap:normal!important}"
        "table.genindextable>tbody{display:table-row-group!important}"
        "table.genindextable>tbody>tr{display:table-row!important}"
        "table.genindextable>tbody>tr>td{display:table-cell!important;width:33%!important}"
    )
    wide = page.evaluate(site_checks.JS_PAGE_OVERFLOW)
    assert wide and wide["scrollWidth"] > 390, wide


# ------------------------------------------------------------------ axe with formulas set aside
def test_axe_with_formulas_set_aside_reports_what_the_full_run_reports(new_page, site_url):
    """A planted image without alt text in the text is reported with and without the inner markup
    of the formulas after the first 40; one planted in the last formula only by the full run (what
    the set-aside gives up: the renderer's markup is checked on the first 40 formulas of a page and
    on every formula of the pages of FULL_FORMULA_PAGES); and the page is as it was afterwards."""
    page = new_page(1280)
    _open(page, f"{site_url}/book/notation.html")
    count = "() => [document.querySelectorAll('*').length, document.querySelectorAll('mjx-container').length]"
    assert page.evaluate(count)[1] > 41
    plant = """(where) => { const img = document.createElement('img'); img.src = 'x.png';
        const f = document.querySelectorAll('main mjx-container');
        (where === 'text' ? document.querySelector('main p') : f[f.length - 1]).appendChild(img); }"""
    page.evaluate(plant, "text")

    def image_alt(**kw) -> int:
        # the rule alone: what the set-aside changes is which elements axe sees, for every rule alike
        return {v["id"]: v["nodes"] for v in site_checks.run_axe(page, only=["image-alt"], **kw)}.get("image-alt", 0)

    assert image_alt() == image_alt(formulas_kept=40) == 1
    page.evaluate(plant, "last formula")
    before = page.evaluate(count)
    assert image_alt() == 2 and image_alt(formulas_kept=40) == 1
    assert page.evaluate(count) == before


# ------------------------------------------------------------------ sidebar buttons
@pytest.mark.parametrize("width", [390, 1280])
def test_sidebar_buttons_open_their_panels(new_page, site_url, width):
    page = new_page(width)
    _open(page, f"{site_url}/{LIGHT_PAGE}.html")
    problems = site_checks.sidebar_toggle_problems(page)
    assert not problems, "\n".join(problems)


#: The theme's navbar toggles (hidden by the book theme), put back first in the navbar.
HIDDEN_TOGGLES = (
    '<button class="pst-navbar-icon sidebar-toggle primary-toggle" aria-label="Site navigation">'
    '<span class="fa-solid fa-bars"></span></button>'
    '<button class="pst-navbar-icon sidebar-toggle secondary-toggle" aria-label="On this page">'
    '<span class="fa-solid fa-outdent"></span></button>'
)


@pytest.mark.parametrize("width", [390, 1280])
def test_sidebar_check_catches_a_dead_button(new_page, site_url, width):
    page = new_page(width)
    _rewrite(
        page,
        f"**/{LIGHT_PAGE}.html",
        lambda html: html.replace(
            '<div class="bd-header__inner bd-page-width">',
            '<div class="bd-header__inner bd-page-width">' + HIDDEN_TOGGLES,
            1,
        ),
    )
    _open(page, f"{site_url}/{LIGHT_PAGE}.html")
    assert page.locator(".primary-toggle").count() == 2  # the defect is planted
    # the planted buttons have no handler at all: half a second shows that they open nothing
    problems = site_checks.sidebar_toggle_problems(page, timeout_ms=500)
    assert problems and all("does not" in p for p in problems), problems
    if width < 992:
        assert len(problems) == 2, problems  # menu and contents


# ------------------------------------------------------------------ icons
def test_every_icon_glyph_is_in_the_served_font(chapter):
    glyphs, problems = site_checks.missing_glyph_problems(chapter)
    assert glyphs >= 10, f"only {glyphs} icon glyphs found on {CHAPTER} (theorem, exercise, navbar icons)"
    assert not problems, "\n".join(problems)


def test_glyph_check_catches_a_missing_glyph(new_page, site_url, built_site, tmp_path):
    from fontTools import subset
    from fontTools.ttLib import TTFont

    served = built_site / "_static" / "vendor" / "fontawesome" / "webfonts" / "fa-solid-900.subset.woff"
    font = TTFont(str(served))
    keep = sorted(set(font.getBestCmap()) - {0xF0F3})
    font.close()
    options = subset.Options()
    options.flavor = "woff"
    options.notdef_outline = True
    cut = subset.load_font(str(served), options)
    sub = subset.Subsetter(options)
    sub.populate(unicodes=keep)
    sub.subset(cut)
    planted = tmp_path / "without-bell.woff"
    subset.save_font(cut, str(planted), options)
    page = new_page()
    page.route(
        "**/fa-solid-900.subset.woff*",
        lambda route: route.fulfill(path=str(planted), headers={"Content-Type": "font/woff"}),
    )
    _open(page, f"{site_url}/{LIGHT_CHAPTER}.html")
    glyphs, problems = site_checks.missing_glyph_problems(page)
    assert any("U+F0F3" in p for p in problems), problems


def test_served_fonts_cover_every_icon_the_stylesheets_name(built_site):
    """fontTools on the served files: each Font Awesome font of the site has every glyph of
    its full font that any served stylesheet names."""
    from fontTools.ttLib import TTFont

    from seqrmt_book import theme

    named = theme.served_icon_codepoints(built_site, skip=(theme.THEME_SOURCE_CSS,))
    assert {0xF0F3, 0xF303} <= named, sorted(map(hex, named))  # proofs' bell, exercises' pencil
    webfonts = built_site / "_static" / "vendor" / "fontawesome" / "webfonts"
    theme_css = (built_site / theme.THEME_CSS).read_text(encoding="utf-8")
    served = re.findall(r"url\(\.\./vendor/fontawesome/webfonts/([a-z0-9.-]+)\) format", theme_css)
    assert served, "no Font Awesome @font-face in the theme's CSS"
    missing = []
    for first in dict.fromkeys(s for s in served if not s.endswith(".ttf")):
        full = TTFont(str(webfonts / (first.split(".")[0] + ".ttf"))).getBestCmap()
        have = TTFont(str(webfonts / first)).getBestCmap()
        lost = sorted(c for c in named if c in full and c not in have)
        missing += [f"{first}: U+{c:04X}" for c in lost]
    assert not missing, f"icons named by the served CSS but cut from the served fonts: {missing}"


# ------------------------------------------------------------------ dark mode
OLD_COVERS = """main div.math, main div.amsmath { background:
  linear-gradient(to right, var(--pst-color-background, #fff) 30%, rgba(255, 255, 255, 0)) left center / 2em 100% no-repeat local,
  linear-gradient(to left, var(--pst-color-background, #fff) 30%, rgba(255, 255, 255, 0)) right center / 2em 100% no-repeat local
  !important; }"""


def test_dark_mode_equations_in_boxes_have_no_bands(chapter):
    with _changed(chapter, dark=True) as page:
        checked, problems = site_checks.math_band_problems(page)
    assert checked >= 5, f"only {checked} display equations in boxes on {CHAPTER}"
    assert not problems, "\n".join(problems)


def test_band_check_catches_dark_bands(chapter):
    with _changed(chapter, dark=True, style=OLD_COVERS) as page:
        checked, problems = site_checks.math_band_problems(page, limit=4)
    assert checked and len(problems) >= checked, problems  # both ends of every equation


# ------------------------------------------------------------------ phone width
def test_math_is_not_cut_off_at_phone_width(chapter):
    with _changed(chapter, width=390) as page:
        checked, problems = site_checks.clipped_math_problems(page)
    assert checked >= 100, f"only {checked} formulas on {CHAPTER}"
    assert not problems, "\n".join(problems)


#: The theme's own rule for inline formulas (max-width 100%, overflow hidden: a long one
#: is cut at the column's edge; a long one typeset in parts back in the theme's one-line box),
#: and display equations that do not scroll in a box that clips.
CLIPPING = """main span.math { overflow: hidden !important; }
main span.math.seqrmt-breaks { display: inline-flex !important; white-space: nowrap !important;
  max-width: 100% !important; }
main .admonition, main div.proof { overflow: hidden !important; }
main .admonition div.math, main .admonition div.amsmath,
main div.proof div.math, main div.proof div.amsmath { overflow: visible !important; max-width: none !important; }"""


def test_clipping_check_catches_cut_off_math(chapter):
    with _changed(chapter, width=390, style=CLIPPING) as page:
        checked, problems = site_checks.clipped_math_problems(page)
    assert any("inline formula" in p and "span.math" in p for p in problems), problems
    assert any("display formula" in p and (".admonition" in p or "div.proof" in p) for p in problems), problems


# ------------------------------------------------------------------ explorer sliders at phone width
#: The page whose explorer has two sliders with long names (the first explorer a reader meets).
EXPLORER_PAGE = "book/intro"


@pytest.fixture(scope="module")
def explorer_page(browser, site_url):
    """:data:`EXPLORER_PAGE` at 390 px with its widgets rendered (loaded once per test process)."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
    page = ctx.new_page()
    _open(page, f"{site_url}/{EXPLORER_PAGE}.html")
    site_checks.wait_settled(page)
    yield page
    ctx.close()


def test_explorer_sliders_do_not_overlap_at_phone_width(explorer_page):
    checked, problems = site_checks.slider_overlap_problems(explorer_page)
    assert checked >= 2, f"only {checked} sliders rendered on {EXPLORER_PAGE}"
    assert not problems, "\n".join(problems)


#: The widgets' own fixed one-line height, which made a wrapped name overlap the next slider.
ONE_LINE_SLIDERS = ":root .widget-slider, :root .jupyter-widget-slider { height: 32px !important; }"


def test_slider_check_catches_overlapping_sliders(explorer_page):
    with _changed(explorer_page, style=ONE_LINE_SLIDERS) as page:
        checked, problems = site_checks.slider_overlap_problems(page)
    assert checked >= 2 and problems, problems
