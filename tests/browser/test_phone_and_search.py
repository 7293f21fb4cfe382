"""Every page on a phone, the search, the indices, the drawer, the colour mode, the Live code
message and the self-checks' answers, in the built site.

Each check runs on the served site, and again with its defect planted (a style added, a
response rewritten in the browser, or the page's markup as it was), which it must report.

* **Display math at 390 px** (chapters 0 and 3) starts at its left edge: at scroll position 0
  the first glyph is in view, and nothing lies left of the box.  Planted: the theme's reversed
  flex row of ``div.math``.
* **Inline math** fits its line at 390 px (chapters 0 and 3) and at 1280 px (chapter 8): no
  formula runs past its block's right edge, none scrolls.  Planted: a long formula kept on one
  line (``span.math.seqrmt-breaks`` back to the theme's one-line box).
* **Figures and tables at 390 px**: every figure's smallest text shows at 9 CSS px or more and
  every cell of a result table is on screen (checked on every page by test_site.py; here chapter
  7, then planted: its figures shown 150 px wide and its tables laid out as tables).
* **Search** for "Stieltjes", "kappa" and "κ" lists a chapter first.  Planted: Sphinx's own
  ``Scorer`` (the book's removed from ``language_data.js``).
* **The General Index** has no entry of the API and no term twice; the API index has the
  API's.  Planted: an API entry and a second spelling added to the page.
* **The contents drawer** at 390 px closes after a tap on one of its entries.  Planted: the
  page's handler disabled.
* **Dark mode**: a first visit with the OS in dark mode opens dark, before the theme's scripts
  run and after, with no console error.  Planted: the page's first-visit mode "light".
* **Live code** without a kernel server on 127.0.0.1: no request fails (the site answers
  ``_seqrmt_live.json`` with no server), and the message shows no backtick.  Planted: the
  settings file missing.
* **Self-checks**: no answer in the page in plain form, and the right option is the middle one
  in at most half of the questions with choices.  Planted: the markup of the questions as it was.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

import site_checks
from seqrmt_book import selfcheck

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def new_page(browser):
    contexts = []

    def make(**kw):
        kw.setdefault("viewport", {"width": 1280, "height": 800})
        ctx = browser.new_context(service_workers="block", **kw)
        contexts.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in contexts:
        ctx.close()


def _open(page, url: str) -> None:
    page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
    site_checks.wait_for_scripts(page, TIMEOUT_MS)


def _plant(page, css: str) -> None:
    page.evaluate(
        "(css) => { const s = document.createElement('style'); s.textContent = css; document.head.appendChild(s); }",
        css,
    )


# ------------------------------------------------------------------ math
#: Every formula laid out (sections leave content-visibility), then: display equations whose
#: first glyph is left of their box at scroll position 0 (or that scroll left of 0), and inline
#: formulas that run past the right edge of their block or scroll.
JS_MATH_EDGES = r"""
async () => {
  const style = document.createElement('style');
  style.textContent = 'main section, main section > * { content-visibility: visible !important; }';
  document.head.appendChild(style);
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const shown = e => e.getClientRects().length > 0 && !e.closest('[hidden], details:not([open])');
  const label = e => ((e.querySelector('mjx-assistive-mml') || e).textContent || '').trim().slice(0, 50);
  const bad = [];
  let display = 0, inline = 0;
  for (const box of document.querySelectorAll('main div.math, main div.amsmath')) {
    const math = box.querySelector('mjx-math');
    if (!math || !shown(box)) continue;
    display++;
    box.scrollLeft = -1000;  // a box that can scroll left of 0 has content there
    const left = box.getBoundingClientRect().left, first = math.getBoundingClientRect().left;
    if (box.scrollLeft < 0 || first < left - 1)
      bad.push(`display "${label(box)}": ${Math.round(left - first)} px of its left side out of view ` +
               `(scrollLeft ${box.scrollLeft})`);
    box.scrollLeft = 0;
  }
  for (const span of document.querySelectorAll('main span.math')) {
    if (!shown(span) || span.closest('div.math, .self-check-result')) continue;
    inline++;
    const block = span.closest('p, li, dd, td, th, div, dt, figcaption');
    const edge = block.getBoundingClientRect().right - parseFloat(getComputedStyle(block).paddingRight);
    if (span.classList.contains('seqrmt-scrolls')) bad.push(`inline "${label(span)}": scrolls sideways`);
    // each part (a long formula is typeset in parts): the right edge of its last glyph (a part
    // that ends with an operator ends with the operator's space; an italic glyph's box may
    // overhang its ink by a pixel)
    for (const part of span.querySelectorAll('mjx-container')) {
      const right = Math.max(...Array.from(part.querySelectorAll('mjx-c')).map(c => c.getBoundingClientRect().right));
      if (right > edge + 2) bad.push(`inline "${label(part)}": ends ${Math.round(right - edge)} px past its line`);
    }
  }
  style.remove();
  return {display, inline, bad};
}
"""


def math_edge_problems(page) -> tuple[int, list[str]]:
    found = page.evaluate(JS_MATH_EDGES)
    return found["display"] + found["inline"], list(found["bad"])


@pytest.mark.parametrize(
    ("page_name", "width"), [("book/00_toolkit", 390), ("book/03_bbp", 390), ("book/08_learned_attention", 1280)]
)
def test_math_starts_at_its_left_edge_and_fits_its_line(new_page, site_url, page_name, width):
    page = new_page(viewport={"width": width, "height": 844})
    _open(page, f"{site_url}/{page_name}.html")
    checked, problems = math_edge_problems(page)
    assert checked > 50, checked
    assert not problems, f"{page_name} at {width} px:\n  " + "\n  ".join(problems)


def test_math_check_catches_a_cut_left_side_and_a_long_formula(new_page, site_url):
    page = new_page(viewport=PHONE)
    _open(page, f"{site_url}/book/00_toolkit.html")
    _plant(page, "main div.math { flex-direction: row-reverse !important; }")
    _, problems = math_edge_problems(page)
    assert any(p.startswith("display") for p in problems), problems
    page = new_page(viewport=PHONE)
    _open(page, f"{site_url}/book/03_bbp.html")
    _plant(page, "main span.math.seqrmt-breaks { display: inline-flex !important; white-space: nowrap !important; }")
    _, problems = math_edge_problems(page)
    assert any(p.startswith("inline") for p in problems), problems


# ------------------------------------------------------------------ figures and tables on a phone
def test_phone_figure_check_catches_shrunk_figures_and_a_wide_table(new_page, site_url):
    """Chapter 7 (inline figures, explorer frames, result tables) at 390 px passes the check that
    every page gets in test_site.py; with its figures shown at 150 px and its tables laid out as
    tables again, the check reports both."""
    page = new_page(viewport=PHONE)
    _open(page, f"{site_url}/book/07_how_exact.html")
    site_checks.lay_out_everything(page)
    site_checks.wait_settled(page, TIMEOUT_MS)  # the explorers render when they come near
    checked, problems = site_checks.phone_figure_problems(page)
    assert checked > 20 and not problems, (checked, problems)
    assert page.locator("main img.seqrmt-frame[data-seqrmt-text-px]").count() > 0
    _plant(page, "main img { max-width: 150px !important; }")
    _plant(
        page,
        "table.seqrmt-table, table.seqrmt-table * { display: revert !important; white-space: nowrap !important; }",
    )
    _, problems = site_checks.phone_figure_problems(page)
    assert any(p.startswith("figure") and "smallest text" in p for p in problems), problems
    assert any(p.startswith("table cell") for p in problems), problems


# ------------------------------------------------------------------ search
#: The address of the first result listed (results are listed best first, once sorted).
JS_FIRST_RESULT = """
() => { const a = document.querySelector('#search-results ul.search > li a');
        return a ? a.getAttribute('href') : ''; }
"""


def first_results(page, base_url: str, terms=("Stieltjes", "kappa", "κ")) -> dict[str, str]:
    found = {}
    for term in terms:
        page.goto(f"{base_url}/search.html?q={term}", wait_until="load", timeout=TIMEOUT_MS)
        page.wait_for_function(site_checks.JS_SEARCH_DONE, timeout=TIMEOUT_MS)
        found[term] = page.evaluate(JS_FIRST_RESULT) or ""
    return found


def _not_chapters(found: dict[str, str]) -> dict[str, str]:
    return {t: href for t, href in found.items() if not re.match(r"^book/\d\d_", href)}


def test_search_lists_a_chapter_first(new_page, site_url):
    found = first_results(new_page(), site_url)
    assert not _not_chapters(found), f"first results: {found}"


def test_search_check_catches_the_api_first(new_page, site_url):
    page = new_page()

    def handle(route):
        response = route.fetch()
        route.fulfill(response=response, body=response.text().replace("var Scorer", "var SeqrmtScorerOff"))

    page.route("**/_static/language_data.js*", handle)
    assert _not_chapters(first_results(page, site_url, ("Stieltjes",)))


# ------------------------------------------------------------------ the General Index
_ENTRY = re.compile(r'<li><a href="([^"]+)">\s*(?:<strong>)?\s*([^<]+?)\s*</')


def index_problems(text: str) -> list[str]:
    """API entries and terms listed twice (whatever their case) in a General Index page."""
    body = text[text.index('<h1 id="index"') :]
    entries = [(href, html.unescape(name)) for href, name in _ENTRY.findall(body)]
    problems = [f"API entry: {name} ({href})" for href, name in entries if href.startswith("book/api")]
    seen: dict[str, str] = {}
    for _, name in entries:
        if name.casefold() in seen:
            problems.append(f"listed twice: {seen[name.casefold()]!r} and {name!r}")
        seen[name.casefold()] = name
    if len(entries) < 20:
        problems.append(f"only {len(entries)} entries")
    return problems


def test_general_index_is_concepts_each_once(built_site: Path):
    text = (built_site / "genindex.html").read_text(encoding="utf-8")
    assert not index_problems(text), index_problems(text)
    api = (built_site / "api-index.html").read_text(encoding="utf-8")
    assert len([p for p in index_problems(api) if p.startswith("API entry")]) > 100
    for page in ("book/glossary.html", "book/api.html"):
        linked = (built_site / page).read_text(encoding="utf-8")
        assert 'href="../prf-prf.html"' in linked and 'href="../api-index.html"' in linked, page
    results = (built_site / "prf-prf.html").read_text(encoding="utf-8")
    assert "<mjx-container" in results and "\\kappa" not in results and "$\\" not in results


def test_index_check_catches_an_api_entry_and_a_duplicate(built_site: Path):
    text = (built_site / "genindex.html").read_text(encoding="utf-8")
    cut = text.index("<li><a href=", text.index('<h1 id="index"'))
    planted = text[:cut] + '<li><a href="book/api/spectrum.html#x">seqrmt.BulkLaw</a></li>' + text[cut:]
    assert any(p.startswith("API entry") for p in index_problems(planted))
    href, name = _ENTRY.search(text, cut).groups()
    planted = text[:cut] + f'<li><a href="{href}">{name.upper()}</a></li>' + text[cut:]
    assert any(p.startswith("listed twice") for p in index_problems(planted))


# ------------------------------------------------------------------ the contents drawer
def drawer_problems(page) -> list[str]:
    """At a phone's width: open the contents drawer, tap its second entry; it must close."""
    button = page.locator(".secondary-toggle:visible").first
    button.click()
    drawer = "dialog#pst-secondary-sidebar-modal"
    page.wait_for_function(f"() => document.querySelector('{drawer}').open", timeout=10_000)
    links = page.locator(f"{drawer} a[href^='#']")
    if links.count() < 2:
        return [f"the contents drawer has {links.count()} entries"]
    # the tap's click (the page's own handlers have run when it reaches the window), then two frames
    page.evaluate(
        "() => { window.__seqrmtTapped = false; "
        "window.addEventListener('click', () => { window.__seqrmtTapped = true; }, {once: true}); }"
    )
    links.nth(1).tap()
    page.wait_for_function("() => window.__seqrmtTapped", timeout=10_000)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    if page.evaluate(f"() => document.querySelector('{drawer}').open"):
        return ["the contents drawer stays open after a tap on an entry"]
    return []


#: The drawers are the theme's and the same on every page: a chapter with sections, shorter than
#: chapter 3 (a third of its markup), so that the two tests below load it in a second.
DRAWER_PAGE = "book/01_model"


def test_contents_drawer_closes_after_a_tap(new_page, site_url):
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    _open(page, f"{site_url}/{DRAWER_PAGE}.html")
    assert not drawer_problems(page)


def test_drawer_check_catches_a_drawer_that_stays_open(new_page, site_url):
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)

    def handle(route):
        response = route.fetch()
        route.fulfill(response=response, body=response.text().replace("drawer.close()", "void 0"))

    page.route("**/_static/seqrmt/site.js*", handle)
    _open(page, f"{site_url}/{DRAWER_PAGE}.html")
    assert drawer_problems(page)


# ------------------------------------------------------------------ dark mode on a first visit
def first_visit_mode(new_page, url: str, plant: bool = False) -> tuple[str, str, list[str]]:
    """(theme before the theme's scripts, theme after load, console errors) of a first visit
    (empty storage) with the OS in dark mode."""
    page = new_page(color_scheme="dark")
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    if plant:

        def handle(route):
            response = route.fetch()
            body = response.text().replace(
                'localStorage.getItem("mode") || "auto"', 'localStorage.getItem("mode") || "light"'
            )
            route.fulfill(response=response, body=body)

        page.route("**/*.html", handle)
    page.goto(url, wait_until="domcontentloaded", timeout=TIMEOUT_MS)
    early = page.evaluate("() => document.documentElement.dataset.theme")
    site_checks.wait_for_scripts(page, TIMEOUT_MS)  # the theme's script has run
    return early, page.evaluate("() => document.documentElement.dataset.theme"), errors


def test_first_visit_follows_the_os_dark_mode(new_page, site_url):
    early, late, errors = first_visit_mode(new_page, f"{site_url}/book/syllabus.html")
    assert (early, late) == ("dark", "dark") and not errors, (early, late, errors)


def test_dark_mode_check_catches_a_light_first_visit(new_page, site_url):
    early, late, _ = first_visit_mode(new_page, f"{site_url}/book/syllabus.html", plant=True)
    assert (early, late) != ("dark", "dark")


# ------------------------------------------------------------------ live code without a server
def live_message_problems(page, url: str) -> list[str]:
    failed: list[str] = []
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    page.route(re.compile(r"^https?://(?!127\.0\.0\.1)"), lambda r: r.abort("blockedbyclient"))
    _open(page, url)
    page.locator(".seqrmt-livecode-button").click()
    page.wait_for_function(
        "() => document.querySelector('.seqrmt-livecode').getAttribute('data-seqrmt-livecode') === 'error'",
        timeout=TIMEOUT_MS,
    )
    status = page.locator(".seqrmt-livecode-status")
    text = status.inner_text()
    problems = [f"request failed: {f}" for f in failed]
    if "`" in text:
        problems.append(f"the message shows backticks: {text!r}")
    if status.locator("code").count() == 0:
        problems.append(f"the command is not shown as code: {text!r}")
    return problems


def test_live_code_without_a_server_says_so_cleanly(new_page, site_url):
    page = new_page()
    problems = live_message_problems(page, f"{site_url}/book/01_model.html")
    assert not problems, problems


def test_live_message_check_catches_a_missing_settings_file(new_page, site_url):
    page = new_page()
    page.route("**/_seqrmt_live.json", lambda r: r.fulfill(status=404, body="not found"))
    assert any("404" in p for p in live_message_problems(page, f"{site_url}/book/01_model.html"))


# ------------------------------------------------------------------ self-checks
_QUESTION = re.compile(r'<div class="self-check" id="([^"]+)" ([^>]*)>(.*?)<div class="self-check-result"', re.S)
_ATTR = re.compile(r'(data-[a-z-]+)="([^"]*)"')
_OPTION = re.compile(r'<input type="radio" id="[^"]+" name="[^"]+" value="([^"]*)"')


def selfcheck_problems(pages: dict[str, str]) -> list[str]:
    """Plain answers in the page source, and the right option's place across the book."""
    problems, places = [], []
    for name, text in pages.items():
        for qid, attrs, body in _QUESTION.findall(text):
            data = dict(_ATTR.findall(attrs))
            answer = data.get("data-answer", "")
            if "data-display" in data or not re.fullmatch(r"[0-9a-f]{8}( [0-9a-f]{8})*", answer):
                problems.append(f"{name}#{qid}: the answer is in the page source ({attrs[:120]})")
                continue
            options = [html.unescape(o) for o in _OPTION.findall(body)]
            if options:
                right = [i for i, o in enumerate(options) if selfcheck.fnv1a(f"{data['data-salt']}:{o}") == answer]
                if len(right) != 1:
                    problems.append(f"{name}#{qid}: {len(right)} options match the answer's hash")
                else:
                    places.append((right[0], len(options)))
    middle = [p for p, n in places if n % 2 and p == n // 2]
    if places and len(middle) * 2 > len(places):
        problems.append(f"the right option is the middle one in {len(middle)} of {len(places)} questions")
    if places and len({p for p, _ in places}) < 2:
        problems.append(f"the right option is always at place {places[0][0] + 1}")
    return problems


def _chapters(built_site: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((built_site / "book").glob("0[0-9]_*.html"))}


def test_self_check_answers_are_not_in_the_page_source(built_site: Path):
    pages = _chapters(built_site)
    assert sum(len(_QUESTION.findall(t)) for t in pages.values()) >= 20
    assert not selfcheck_problems(pages)


def _answer_in_the_middle(text: str) -> str:
    """Every question with an odd number of options answered by its middle option."""

    def move(match):
        attrs, body = match.group(2), match.group(3)
        options = [html.unescape(o) for o in _OPTION.findall(body)]
        if len(options) % 2 == 0:
            return match.group(0)
        salt = dict(_ATTR.findall(attrs))["data-salt"]
        hashed = selfcheck.fnv1a(f"{salt}:{options[len(options) // 2]}")
        return match.group(0).replace(attrs, re.sub(r'data-answer="[^"]*"', f'data-answer="{hashed}"', attrs), 1)

    return _QUESTION.sub(move, text)


def test_self_check_source_check_catches_plain_answers(built_site: Path):
    pages = _chapters(built_site)
    name, text = next(iter(pages.items()))
    plain = re.sub(r'data-answer="[^"]*"', 'data-answer="2.25"', text, count=1)
    assert any("in the page source" in p for p in selfcheck_problems({name: plain}))
    moved = {n: _answer_in_the_middle(t) for n, t in pages.items()}
    assert any("middle one" in p for p in selfcheck_problems(moved)), selfcheck_problems(moved)
