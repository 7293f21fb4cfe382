"""Accessibility and speed checks of a built page, shared by ``test_site.py`` and
``benchmarks/site_weight.py`` (plain functions on a Playwright page/context).

* :func:`run_axe` injects axe-core (``vendor/axe.min.js`` next to this file, vendored
  from npm by ``scripts/vendor_assets.sh``; it is never served with the site) and
  returns the critical and serious WCAG 2.0/2.1 A/AA violations.
* :data:`JS_ALT_AUDIT` lists images whose alt text is missing, empty or a file name.
* :data:`JS_MATH_TABSTOPS` counts typeset equations (``mjx-container``) in the tab order.
* :func:`measure_main_thread` loads a page with a cold cache on an emulated slow phone
  link (CDP network and CPU throttling) and returns its first and largest contentful
  paints and its total blocking time (the long tasks of the page's
  main thread after the first paint, until the page has loaded and been quiet for 2 s),
  Lighthouse's main measures of how soon a phone shows and answers a page;
* :class:`StaticHostHandler` serves a built site as a static host does (GitHub Pages,
  Read the Docs, Netlify): text files (HTML, CSS, JavaScript, SVG, JSON) gzip-compressed
  when the browser accepts it;
* :func:`wait_settled` waits (on conditions, never a fixed sleep) until the math fonts
  have loaded, the widgets have rendered and the images have loaded.
"""

from __future__ import annotations

import gzip
import http.server
import io
import math
import os
import re
import time
from pathlib import Path

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING_IMPACTS = ("critical", "serious")


class StaticHostHandler(http.server.SimpleHTTPRequestHandler):
    """``http.server`` as a static host: gzip for text files when accepted, no logging.

    A chapter's HTML carries its typeset math (about 0.7 MB, 55 KB compressed): every
    host a reader meets compresses it, so first-paint measurements use the same."""

    COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
    compress = True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def send_head(self):  # type: ignore[override]
        path = self.translate_path(self.path)
        ctype = self.guess_type(path)
        if (
            not self.compress
            or "gzip" not in self.headers.get("Accept-Encoding", "")
            or not os.path.isfile(path)
            or not ctype.startswith(self.COMPRESSIBLE)
        ):
            return super().send_head()  # directories (redirect, index), binary files, errors
        with open(path, "rb") as f:
            body = gzip.compress(f.read(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)


#: The slow phone link of the accessibility review: 1.6 Mbit/s down, 750 kbit/s up,
#: 150 ms round trip, CPU slowed 4x (Lighthouse's "slow 4G" mobile profile).
SLOW_PHONE = {"download_bps": 1.6e6, "upload_bps": 7.5e5, "latency_ms": 150, "cpu_slowdown": 4}

JS_AXE_RUN = """
async ([tags, skip, only]) => {
  // label-content-name-mismatch (WCAG 2.5.3) is tagged experimental in axe-core and
  // would be left out by the tag filter: switch it on explicitly.  preload: false: axe
  // would re-fetch every stylesheet for its CSSOM and resolves the theme's nested
  // @import "../basic.css" against the page (a 404 that is not the site's).
  // only: the rules named, and no other (a test of the set-aside itself)
  const res = await axe.run(document, {runOnly: only ? {type: 'rule', values: only} : {type: 'tag', values: tags},
                                       rules: Object.assign({'label-content-name-mismatch': {enabled: true}},
                                         Object.fromEntries(skip.map(r => [r, {enabled: false}]))),
                                       preload: false, resultTypes: ['violations']});
  return res.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: ' +
                                    (n.failureSummary || '').split('\\n').slice(1, 2).join(''))}));
}
"""


#: The boxes that scroll now (content larger than the box, overflow auto or scroll: axe's
#: condition for its scrollable-region rule), read with the inner markup of the formulas left out
#: (60-75 % of a chapter's elements; none of them is a scroll box).
_JS_SCROLL_BOXES = """
  Array.from(document.querySelectorAll('body *:not(mjx-container *)'))
    .filter(e => { const st = getComputedStyle(e); return /(auto|scroll)/.test(st.overflowX + ' ' + st.overflowY); })
    .filter(e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight)
"""
#: Each scroll box that the keyboard cannot reach: neither a tab stop itself nor holding one
#: (what axe's scrollable-region-focusable rule asks), by a CSS selector path.
JS_UNREACHABLE_SCROLL_BOXES = (
    """
() => {
  const stop = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), '
             + 'textarea:not([disabled]), [tabindex]:not([tabindex^="-"]), [contenteditable=""], [contenteditable="true"]';
  const path = (e) => { const out = []; for (; e && e !== document.body; e = e.parentElement) {
    out.unshift(e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.classList[0] ? '.' + e.classList[0] : '')); if (e.id) break; }
    return out.join(' > '); };
  return ("""
    + _JS_SCROLL_BOXES.strip()
    + """)
    .filter(e => !(e.tabIndex >= 0 && e.matches(stop + ', [tabindex]')) && !e.querySelector(stop))
    .map(e => `scroll boxes right after load: ${path(e)} scrolls but is not a tab stop and holds none`);
}
"""
)
#: axe-core's scrollable-region rule alone, on the boxes that scroll now: the same verdicts as on the
#: whole document in about half the time, still 0.5-1 s a chapter (axe reads the whole page first).
JS_AXE_SCROLLABLE = (
    """
async () => {
  const scrolls = """
    + _JS_SCROLL_BOXES.strip()
    + """;
  if (!scrolls.length) return [];
  const res = await axe.run({include: scrolls}, {runOnly: {type: 'rule', values: ['scrollable-region-focusable']},
                                                 preload: false, resultTypes: ['violations']});
  return res.violations.map(v => `scroll boxes right after load (axe): ${v.impact} on ${v.nodes.length} node(s): ` +
    v.nodes.slice(0, 3).map(n => n.target.join(' ')).join('; '));
}
"""
)
#: Code, output and table boxes that the HTML itself leaves without a tab stop or a name.
JS_UNNAMED_BOXES = """() => Array.from(document.querySelectorAll('main pre, .pst-scrollable-table-container'))
  .filter(e => e.tabIndex < 0 && !e.hasAttribute('tabindex') || !e.getAttribute('aria-label')).length"""


def check_scroll_boxes_at_load(page, axe: bool = False) -> list[str]:
    """The scroll boxes right after the load event (a scrollable code, output or table box must be a
    tab stop from the start, not only once the page has been read): each one the keyboard cannot
    reach (:data:`JS_UNREACHABLE_SCROLL_BOXES`), and the boxes the HTML leaves without a tab stop
    and a name (the site's build names them, so no script is needed).  ``axe=True`` runs axe-core's
    scrollable-region rule on them as well (the tests of the site do on a few pages, so that the
    two checks are seen to agree)."""
    problems = list(page.evaluate(JS_UNREACHABLE_SCROLL_BOXES))
    if axe:
        page.add_script_tag(path=str(AXE_JS))
        problems += page.evaluate(JS_AXE_SCROLLABLE)
    unnamed = page.evaluate(JS_UNNAMED_BOXES)
    if unnamed:
        problems.append(f"{unnamed} code, output or table box(es) without tabindex and a name in the HTML")
    return problems


#: Take the inner markup (glyphs and hidden MathML) of every typeset formula after the first
#: ``keep`` out of the page, and put it back.
JS_FORMULAS_ASIDE = """(keep) => { const held = [];
  Array.from(document.querySelectorAll('mjx-container')).slice(keep).forEach(c => {
    const kids = Array.from(c.childNodes); kids.forEach(k => c.removeChild(k)); held.push([c, kids]); });
  window.__seqrmtFormulasAside = held; return held.length; }"""
JS_FORMULAS_BACK = """() => { const held = window.__seqrmtFormulasAside || [];
  for (const [c, kids] of held) kids.forEach(k => c.appendChild(k));
  window.__seqrmtFormulasAside = null; return held.length; }"""


def run_axe(
    page,
    tags: list[str] | None = None,
    skip: list[str] | None = None,
    formulas_kept: int | None = None,
    only: list[str] | None = None,
) -> list[dict]:
    """Critical and serious axe-core violations on the page as it is now (rules in
    ``skip`` switched off).

    ``formulas_kept``: axe's time grows with the number of elements, and most of a chapter's
    (20,000-30,000 of 40,000 on the appendix) are the inner markup of its typeset formulas:
    glyphs under ``aria-hidden`` and the hidden MathML, written by one renderer at build time,
    the same for every formula.  With ``formulas_kept=k`` axe checks every element except the
    inner markup of the formulas after the first ``k`` (taken out of the page for the run and
    put back after it; the containers, with their attributes, stay): 32 s to 4.4 s on the
    appendix.  A defect inside a formula that was set aside is not seen (``test_reader.py``
    plants one); the renderer's markup is checked on the first ``k`` formulas of every page.
    Formulas wider than the column then no longer scroll, so the scroll boxes are checked at the
    load event with every formula (:func:`check_scroll_boxes_at_load`).  ``only``: these rules alone,
    whatever their tags (a check of axe's own use)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    aside = page.evaluate(JS_FORMULAS_ASIDE, formulas_kept) if formulas_kept is not None else 0
    try:
        found = page.evaluate(JS_AXE_RUN, [tags or AXE_TAGS, list(skip or []), list(only) if only else None])
    finally:
        if formulas_kept is not None:
            back = page.evaluate(JS_FORMULAS_BACK)
            assert back == aside, f"{aside} formulas taken out for axe, {back} put back"
    return [v for v in found if v["impact"] in BLOCKING_IMPACTS]


#: Images of the article: how many, and which alt texts are missing, empty on an
#: informative figure, or look like a file name / path / hash.
JS_ALT_AUDIT = r"""
() => {
  const imgs = Array.from(document.querySelectorAll('main img'));
  const bad = [];
  for (const img of imgs) {
    const alt = img.getAttribute('alt');
    const src = (img.getAttribute('src') || '').split(/[?#]/)[0];
    const base = src.split('/').pop();
    const decorative = img.getAttribute('role') === 'presentation' || img.closest('[aria-hidden="true"]');
    let why = null;
    if (alt === null) why = 'no alt attribute';
    else if (alt.trim() === '' && !decorative) why = 'empty alt on a figure';
    else if (/^\S+\.(png|jpe?g|gif|svg|webp)$/i.test(alt.trim()) || (base && alt.includes(base)) ||
             /[0-9a-f]{24,}/i.test(alt) || /^\S*\/\S*$/.test(alt.trim()))
      why = 'alt text is a file name or path';
    if (why) bad.push(why + ': ' + (alt === null ? '(none)' : JSON.stringify(alt.slice(0, 70))) +
                      ' [' + (src.startsWith('data:') ? 'data: URL' : base.slice(0, 40)) + ']');
  }
  return {images: imgs.length, bad: bad.length, examples: bad.slice(0, 5)};
}
"""

#: Typeset equations (``mjx-container``) that are keyboard tab stops.
JS_MATH_TABSTOPS = """
() => Array.from(document.querySelectorAll('mjx-container')).filter(m => m.tabIndex >= 0).length
"""

JS_WIDGETS_SETTLED = """
() => {
  const st = document.documentElement.getAttribute('data-seqrmt-widgets');
  if (st !== null) return st === 'ready' || st === 'error';
  // a page built without the lazy loader: every view tag has a rendered sibling
  const views = Array.from(document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]'));
  if (!document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]')) return true;
  return views.every(v => { const p = v.previousElementSibling;
    return !p || !p.classList.contains('widget-subarea') ? false : p.children.length > 0; });
}
"""


#: Every rendered image has finished loading.  Lazy images inside closed dropdowns
#: (display: none) are never requested by the browser; they do not count.
JS_IMAGES_LOADED = """
() => Array.from(document.images).every(i => i.complete || i.getClientRects().length === 0)
"""


def wait_math(page, timeout_ms: int) -> None:
    """The math is typeset when the site is built; wait until its web fonts have loaded."""
    page.wait_for_function("() => document.fonts && document.fonts.status === 'loaded'", timeout=timeout_ms)


#: Every lazy image of the page requested now, as scrolling it into view would (a change of
#: ``loading`` from ``lazy`` to ``eager`` starts the load), without scrolling one screen at a time.
JS_LOAD_LAZY_IMAGES = """
() => { let n = 0; for (const img of document.images) if (img.loading === 'lazy') { img.loading = 'eager'; n++; }
        return n; }
"""


def scroll_through(page) -> None:
    """Scroll to the bottom one screen at a time (lazy images and widgets start loading)."""
    page.evaluate("""async () => {
      const step = Math.max(200, window.innerHeight * 0.9);
      for (let y = 0; y < document.body.scrollHeight; y += step) {
        window.scrollTo(0, y);
        await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
      }
      window.scrollTo(0, document.body.scrollHeight);
    }""")


def wait_settled(page, timeout_ms: int = 120_000) -> None:
    """Math fonts loaded, widgets rendered, every image loaded (conditions, no sleeps)."""
    wait_math(page, timeout_ms)
    scroll_through(page)
    page.wait_for_function(JS_WIDGETS_SETTLED, timeout=timeout_ms)
    page.wait_for_function(JS_IMAGES_LOADED, timeout=timeout_ms)
    page.evaluate("() => window.scrollTo(0, 0)")


def tab_presses_to_slider(page, limit: int = 400) -> int | None:
    """How many Tab presses from the top of the page focus the first slider handle."""
    if page.locator('.noUi-handle[role="slider"]').count() == 0:
        return None
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement && document.activeElement.blur(); }")
    page.locator("body").focus()
    for n in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate("() => !!(document.activeElement && document.activeElement.matches('.noUi-handle'))"):
            return n
    return None


#: Long tasks, the largest paint and the requests that ended (their count and the last end),
#: recorded from the first script of the page on.
JS_PERF_RECORDER = """
(() => {
  const rec = window.__seqrmtPerf = {tasks: [], lcp: 0, loaded: false, lastTaskEnd: 0, requests: 0, lastRequestEnd: 0};
  try {
    new PerformanceObserver(list => list.getEntries().forEach(e => {
      rec.requests += 1;
      rec.lastRequestEnd = Math.max(rec.lastRequestEnd, e.responseEnd);
    })).observe({type: 'resource', buffered: true});
    new PerformanceObserver(list => list.getEntries().forEach(e => {
      rec.tasks.push([e.startTime, e.duration]);
      rec.lastTaskEnd = Math.max(rec.lastTaskEnd, e.startTime + e.duration);
    })).observe({type: 'longtask', buffered: true});
    new PerformanceObserver(list => list.getEntries().forEach(e => {
      rec.lcp = Math.max(rec.lcp, e.startTime);
    })).observe({type: 'largest-contentful-paint', buffered: true});
  } catch (e) { rec.error = String(e); }
  addEventListener('load', () => { rec.loaded = true; rec.lastTaskEnd = Math.max(rec.lastTaskEnd, performance.now()); });
})();
"""


def measure_main_thread(
    context, url: str, link: dict = SLOW_PHONE, quiet_ms: int = 2_000, timeout_ms: int = 90_000
) -> dict[str, float]:
    """First contentful paint, largest contentful paint and total blocking time (ms) of
    ``url`` loaded with a cold cache on ``link``: CDP ``Network.emulateNetworkConditions``
    and ``Emulation.setCPUThrottlingRate``, the cache disabled (a first visit).

    Total blocking time: the sum over the main thread's long tasks (> 50 ms) that start
    after the first paint of their time beyond 50 ms, counted until the page has loaded
    and has been quiet for ``quiet_ms``: no long task and no request in flight (scripts
    loaded after the first paint count too).  Conditions on the page, not a sleep.

    A page that is not quiet within ``timeout_ms`` (a machine so busy that long tasks never
    stop, or a request that never ends) has no blocking time: ``tbt`` and ``longest`` are
    then ``inf`` and ``quiet`` is 0, so that visit can only fail a budget, never pass it.  A page
    not painted within a further ``timeout_ms`` has every measure ``inf`` for the same reason."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page = context.new_page()
    page.add_init_script(JS_PERF_RECORDER)
    cdp = context.new_cdp_session(page)
    inflight: set[str] = set()
    cdp.on("Network.requestWillBeSent", lambda e: inflight.add(e["requestId"]))
    cdp.on("Network.loadingFinished", lambda e: inflight.discard(e["requestId"]))
    cdp.on("Network.loadingFailed", lambda e: inflight.discard(e["requestId"]))
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": link["latency_ms"],
            "downloadThroughput": link["download_bps"] / 8,
            "uploadThroughput": link["upload_bps"] / 8,
        },
    )
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": link["cpu_slowdown"]})
    # quiet: loaded, and neither a long task nor the end of a request for quiet_ms
    quiet_js = (
        "() => window.__seqrmtPerf && __seqrmtPerf.loaded && performance.now() - "
        f"Math.max(__seqrmtPerf.lastTaskEnd, __seqrmtPerf.lastRequestEnd) > {quiet_ms}"
    )
    deadline = time.monotonic() + timeout_ms / 1000
    quiet = True
    try:
        page.goto(url, wait_until="commit", timeout=timeout_ms)
        while True:
            left_ms = max(1.0, deadline - time.monotonic()) * 1000
            try:
                page.wait_for_function(quiet_js, timeout=left_ms, polling=250)
                if not inflight:
                    break
                # a request still in flight: wait until it (or another) ends, then for quiet again
                ended = page.evaluate("() => __seqrmtPerf.requests")
                page.wait_for_function(f"() => __seqrmtPerf.requests > {ended}", timeout=left_ms, polling=250)
            except PlaywrightTimeoutError:
                quiet = False
                break
        try:
            page.wait_for_function(
                "() => performance.getEntriesByName('first-contentful-paint').length > 0", timeout=timeout_ms
            )
        except PlaywrightTimeoutError:
            # not painted within the time (a machine too busy to render, a stalled request):
            # this visit is not a measurement, and can only fail a budget
            return {"fcp": math.inf, "lcp": math.inf, "tbt": math.inf, "longest": math.inf, "quiet": 0.0}
        rec = page.evaluate("""() => ({
            fcp: performance.getEntriesByName('first-contentful-paint')[0].startTime,
            lcp: __seqrmtPerf.lcp, tasks: __seqrmtPerf.tasks, error: __seqrmtPerf.error || null})""")
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        page.close()
    if rec["error"]:
        raise RuntimeError(f"performance observers unavailable: {rec['error']}")
    after = [d for start, d in rec["tasks"] if start >= rec["fcp"]]
    if not quiet:
        return {
            "fcp": float(rec["fcp"]),
            "lcp": float(max(rec["lcp"], rec["fcp"])),
            "tbt": math.inf,
            "longest": math.inf,
            "quiet": 0.0,
        }
    return {
        "fcp": float(rec["fcp"]),
        "lcp": float(max(rec["lcp"], rec["fcp"])),
        "tbt": float(sum(max(0.0, d - 50.0) for d in after)),
        "longest": float(max(after, default=0.0)),
        "quiet": 1.0,
    }


# ------------------------------------------------------------------ what a reader uses
# The checks below look at the site as a reader uses it: the search page, the sidebar
# buttons, the icons of the page, display math in dark mode.  Each returns a list of
# problems (empty when the page is right), so that the tests of the site and the tests
# that plant a defect (tests/browser/test_reader_checks.py) call the same code.

#: Terms a reader of the book searches for (each is in the text of several pages).
SEARCH_TERMS = ("Stieltjes", "BBP", "kappa", "harmonic")

#: Sphinx's search page has finished: results listed, or its summary says none was found.
JS_SEARCH_DONE = """
() => {
  const out = document.getElementById('search-results');
  if (!out) return false;
  if (out.querySelector('ul.search > li')) return true;
  const summary = out.querySelector('p.search-summary');
  return !!summary && !/\\.\\.\\.\\s*$|^\\s*$/.test(summary.textContent) && typeof Search !== 'undefined'
         && Search._pulse_status === -1;
}
"""

JS_SEARCH_RESULTS = """
() => ({results: document.querySelectorAll('#search-results ul.search > li').length,
        summary: ((document.querySelector('#search-results p.search-summary') || {}).textContent || '').trim()})
"""


#: Run before the page's own scripts: the page's uncaught exceptions and console errors are kept in
#: ``window.__seqrmtErrors``, so that a wait can end on the first of them.
JS_RECORD_ERRORS = """
window.__seqrmtErrors = [];
window.addEventListener('error', e => window.__seqrmtErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', e => window.__seqrmtErrors.push(String(e.reason)));
{ const ce = console.error.bind(console);
  console.error = (...a) => { window.__seqrmtErrors.push(a.map(String).join(' ')); ce(...a); }; }
"""
#: The search has finished (:data:`JS_SEARCH_DONE`) or the page has failed (an error recorded).
JS_SEARCH_DONE_OR_FAILED = f"""
() => (window.__seqrmtErrors || []).length > 0 || ({JS_SEARCH_DONE.strip()})()
"""


def _wait_for_search(page, timeout_ms: int) -> None:
    """Until the search page has listed its results (or has said it found none), or until the page
    reports an error (:data:`JS_RECORD_ERRORS`, set up by :func:`search_problems`): a search broken
    by a script error ends the wait at once, and the caller's check of the results reports it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(JS_SEARCH_DONE_OR_FAILED, timeout=timeout_ms)
    except PlaywrightTimeoutError:
        pass


def search_problems(page, base_url: str, terms=SEARCH_TERMS, timeout_ms: int = 30_000) -> list[str]:
    """Search ``search.html?q=<term>`` for each term: it must list results and log no
    console error or uncaught exception.  ``page`` is a fresh Playwright page."""
    problems: list[str] = []
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e: errors.append(f"uncaught exception: {e}"))
    page.add_init_script(JS_RECORD_ERRORS)
    for term in terms:
        before = len(errors)
        page.goto(f"{base_url}/search.html?q={term}", wait_until="load", timeout=timeout_ms)
        _wait_for_search(page, timeout_ms)
        found = page.evaluate(JS_SEARCH_RESULTS)
        if found["results"] == 0:
            problems.append(f"search for {term!r}: no result listed (summary {found['summary']!r})")
        problems += [f"search for {term!r}: {e}" for e in errors[before:]]
    return problems


#: Whether the page scrolls sideways: null, or its scroll width and the elements of the article
#: that stick out first.
JS_PAGE_OVERFLOW = """
() => {
  const root = document.scrollingElement || document.documentElement;
  const width = root.clientWidth;
  if (root.scrollWidth <= width + 1) return null;
  const culprits = Array.from(document.querySelectorAll('main *'))
    .filter(e => e.getBoundingClientRect().right > width + 1)
    .filter(e => !e.parentElement || e.parentElement.getBoundingClientRect().right <= width + 1)
    .slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
                     ? '.' + e.className.split(' ').slice(0, 2).join('.') : ''));
  return {scrollWidth: root.scrollWidth, width: width, culprits: culprits};
}
"""

#: Where the icon of each visible search form ends and where its field's typed text starts.
JS_SEARCH_ICONS = """
() => Array.from(document.querySelectorAll('form.bd-search')).filter(f => f.getClientRects().length > 0)
  .map(f => { const icon = f.querySelector('.fa-magnifying-glass'), input = f.querySelector('input');
    if (!icon || !input) return null;
    const i = icon.getBoundingClientRect(), r = input.getBoundingClientRect();
    const text = r.left + parseFloat(getComputedStyle(input).paddingLeft) + parseFloat(getComputedStyle(input).borderLeftWidth);
    const sameRow = i.top < r.bottom && i.bottom > r.top;
    return {icon: Math.round(i.right), text: Math.round(text), sameRow: sameRow}; })
  .filter(Boolean)
"""


def search_icon_problems(page, where: str) -> list[str]:
    """The magnifying glass of every visible search form ends before its field's text starts."""
    return [
        f"{where}: the search icon covers the typed text (icon ends at {f['icon']} px, text starts at {f['text']} px)"
        for f in page.evaluate(JS_SEARCH_ICONS)
        if f["sameRow"] and f["icon"] > f["text"]
    ]


def wait_for_scripts(page, timeout_ms: int = 30_000) -> None:
    """Wait until the scripts a page loads after its first paint (the theme's, Sphinx's, the
    search's; ``static/seqrmt/site.js``) have run: ``<html data-seqrmt-scripts="loaded">``."""
    page.wait_for_function("() => document.documentElement.dataset.seqrmtScripts === 'loaded'", timeout=timeout_ms)


def search_field_problems(
    page, base_url: str, page_name: str, term: str = "Stieltjes", timeout_ms: int = 30_000
) -> list[str]:
    """Search as a reader does: on ``page_name``, press the one search button that is
    visible, type ``term`` into the field it opens (its icon must not cover the typed text)
    and press Enter; the search page must then list results.  ``page`` is a fresh Playwright
    page at the width to check."""
    page.goto(f"{base_url}/{page_name}.html", wait_until="load", timeout=timeout_ms)
    wait_for_scripts(page, timeout_ms)
    buttons = page.locator(".search-button__button:visible")
    if buttons.count() != 1:
        return [f"{page_name}: {buttons.count()} visible search buttons (one expected)"]
    buttons.first.click()
    field = page.locator("#pst-search-dialog input[name=q]")
    try:
        field.wait_for(state="visible", timeout=5_000)
    except Exception:  # playwright's TimeoutError
        return [f"{page_name}: the search button opened no search field"]
    field.fill(term)
    problems = search_icon_problems(page, f"{page_name}, search dialog")
    field.press("Enter")
    page.wait_for_url("**/search.html?q=*", timeout=timeout_ms)
    _wait_for_search(page, timeout_ms)
    found = page.evaluate(JS_SEARCH_RESULTS)
    if not found["results"]:
        problems.append(f"search field, {term!r}: no result listed ({found['summary']!r})")
    return problems + search_icon_problems(page, "search page")


#: Where a panel is and whether a reader sees it: its box, its visibility, and whether the
#: element at the centre of its box (what a click there reaches) belongs to it.
JS_PANEL = """
(sel) => {
  const e = document.querySelector(sel);
  if (!e) return null;
  const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
  const cx = r.x + r.width / 2, cy = r.y + Math.min(r.height, innerHeight) / 2;
  const hit = (r.width > 0 && r.height > 0 && cx >= 0 && cx < innerWidth && cy >= 0 && cy < innerHeight)
              ? document.elementFromPoint(cx, cy) : null;
  const onScreen = r.width >= 100 && r.height >= 100 && r.x >= -1 && r.x + r.width <= innerWidth + 1
                   && r.y < innerHeight && r.bottom > 0;
  return {x: Math.round(r.x), width: Math.round(r.width), height: Math.round(r.height),
          visibility: cs.visibility, display: cs.display, opacity: parseFloat(cs.opacity),
          open: e.open === true, onScreen: onScreen, onTop: !!hit && e.contains(hit),
          links: e.querySelectorAll('a[href]').length};
}
"""

#: The panel a reader sees, and the one that does not show.
JS_PANEL_SHOWN = f"""(sel) => {{ const p = ({JS_PANEL.strip()})(sel);
  return !!p && p.onScreen && p.onTop && p.visibility === 'visible' && p.opacity > 0.9 && p.links > 0; }}"""
JS_PANEL_GONE = f"""(sel) => {{ const p = ({JS_PANEL.strip()})(sel);
  return !p || p.display === 'none' || p.visibility === 'hidden' || p.width < 2 || p.opacity < 0.1
         || p.x + p.width <= 0 || !p.onTop; }}"""

#: (button, panel) pairs: the theme's sidebar buttons and what they open.  At a phone's
#: width the sidebars are <dialog>s that the buttons open; from 992 px on, the primary
#: sidebar is in the page and its button collapses it.
PHONE_PANELS = (
    (".primary-toggle", "#pst-primary-sidebar-modal", "site navigation (☰)"),
    (".secondary-toggle", "#pst-secondary-sidebar-modal", "contents of the page"),
)
WIDE_PANEL = (".primary-toggle", "#pst-primary-sidebar", "primary sidebar")


def _visible_button(page, selector: str):
    """The button a reader sees (the page may have hidden ones with the same class)."""
    buttons = page.locator(f"{selector}:visible")
    return buttons.first if buttons.count() else None


def sidebar_toggle_problems(page, timeout_ms: int = 5_000) -> list[str]:
    """Press the sidebar buttons a reader sees, as a reader does (a real click).

    At a phone's width (< 992 px) the menu (☰) and the contents buttons must open their
    panels (on screen, visible, on top, with links) and Escape must close them; at a wide
    width the menu button must collapse the primary sidebar and a second press bring it back.
    """
    problems: list[str] = []
    width = page.viewport_size["width"]

    def wait(js: str, sel: str) -> bool:
        try:
            page.wait_for_function(js, arg=sel, timeout=timeout_ms)
            return True
        except Exception:
            return False

    if width < 992:
        for button_sel, panel, name in PHONE_PANELS:
            button = _visible_button(page, button_sel)
            if button is None:
                problems.append(f"at {width} px no visible button opens the {name} ({button_sel})")
                continue
            button.click()
            if not wait(JS_PANEL_SHOWN, panel):
                problems.append(
                    f"at {width} px the {name} button does not open its panel: {page.evaluate(JS_PANEL, panel)}"
                )
                continue
            page.keyboard.press("Escape")
            if not wait(JS_PANEL_GONE, panel):
                problems.append(f"at {width} px Escape does not close the {name}: {page.evaluate(JS_PANEL, panel)}")
    else:
        button_sel, panel, name = WIDE_PANEL
        button = _visible_button(page, button_sel)
        if button is None:
            return [f"at {width} px no visible button toggles the {name} ({button_sel})"]
        if not wait(JS_PANEL_SHOWN, panel):
            return [f"at {width} px the {name} is not shown at first: {page.evaluate(JS_PANEL, panel)}"]
        button.click()
        if not wait(JS_PANEL_GONE, panel):
            problems.append(f"at {width} px the {name} button does not collapse it: {page.evaluate(JS_PANEL, panel)}")
        else:
            button.click()
            if not wait(JS_PANEL_SHOWN, panel):
                problems.append(
                    f"at {width} px a second press does not bring the {name} back: {page.evaluate(JS_PANEL, panel)}"
                )
    return problems


#: Every private-use glyph (icon font) that CSS ``content`` puts on the page (::before and
#: ::after of every element outside the math, hidden ones included: the theme switch shows
#: one of three icons), drawn on a canvas in the font the page gives it, next to an
#: unassigned code point (U+10FFFD) in the same font: a glyph that the served font lacks
#: falls back to the same "missing glyph" box as the unassigned one.  Returns the glyphs
#: drawn identically to it (or not at all), with an example of where each is used.
JS_MISSING_GLYPHS = r"""
async () => {
  const pua = c => (c >= 0xe000 && c <= 0xf8ff) || c >= 0xf0000;
  const used = new Map();
  const where = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\s+/).slice(0, 3).join('.') : '');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT,
    {acceptNode: n => n.tagName === 'MJX-CONTAINER' || n.tagName === 'SCRIPT' ? NodeFilter.FILTER_REJECT
                                                                             : NodeFilter.FILTER_ACCEPT});
  let elements = 0;
  for (let el = walker.nextNode(); el; el = walker.nextNode()) {
    elements++;
    for (const pseudo of ['::before', '::after']) {
      const cs = getComputedStyle(el, pseudo);
      const content = cs.content;
      if (!content || content === 'none' || content === 'normal') continue;
      for (const ch of content) {
        const c = ch.codePointAt(0);
        if (!pua(c)) continue;
        const font = `${cs.fontStyle} ${cs.fontWeight} 40px ${cs.fontFamily}`;
        const key = font + '|' + c;
        if (!used.has(key)) used.set(key, {font: font, code: c, example: where(el) + pseudo});
      }
    }
  }
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (font, text) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = font;
    ctx.fillStyle = '#000';
    ctx.textBaseline = 'middle';
    ctx.fillText(text, 8, 32);
    return ctx.getImageData(0, 0, 64, 64).data;
  };
  const missing = [];
  const unassigned = String.fromCodePoint(0x10fffd);
  for (const g of used.values()) {
    const ch = String.fromCodePoint(g.code);
    try { await document.fonts.load(g.font, ch); await document.fonts.load(g.font, unassigned); } catch (e) {}
    const a = draw(g.font, ch), b = draw(g.font, unassigned);
    let same = true, ink = 0;
    for (let i = 3; i < a.length; i += 4) { if (a[i] !== b[i]) same = false; if (a[i] > 0) ink++; }
    if (same || ink === 0)
      missing.push(`U+${g.code.toString(16).toUpperCase()} in ${g.font.replace(' 40px', '')} (e.g. ${g.example})`);
  }
  return {elements: elements, glyphs: used.size, missing: missing};
}
"""


def missing_glyph_problems(page) -> tuple[int, list[str]]:
    """(number of distinct icon glyphs on the page, the ones the served fonts lack)."""
    found = page.evaluate(JS_MISSING_GLYPHS)
    return found["glyphs"], [f"icon glyph missing from the served font: {m}" for m in found["missing"]]


#: Display equations inside boxes (theorems, proofs, definitions, exercises, admonitions),
#: shown (not in a closed dropdown), with their box and a point of the box's own
#: background just left of the equation (its padding).
JS_BOXED_MATH = """
(limit) => {
  const out = [];
  const boxes = Array.from(document.querySelectorAll('main .admonition div.math, main .admonition div.amsmath'));
  for (const m of boxes) {
    if (out.length >= limit) break;
    if (m.getClientRects().length) out.push(m);
  }
  out.forEach((m, i) => m.setAttribute('data-seqrmt-band-check', String(i)));
  return out.length;
}
"""

JS_MATH_GEOMETRY = """
(i) => {
  const m = document.querySelector(`[data-seqrmt-band-check="${i}"]`);
  m.scrollIntoView({block: 'center'});
  m.scrollLeft = 0;
  const r = m.getBoundingClientRect(), b = m.closest('.admonition').getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height, boxLeft: b.x,
          scrolls: m.scrollWidth > m.clientWidth + 1,
          box: m.closest('.admonition').className, id: m.id || ''};
}
"""


def _band_width(
    pixels, width: int, height: int, background: tuple[int, int, int], columns, tolerance: int = 10, cover: float = 0.85
) -> int:
    """How many consecutive columns (in the order of ``columns``) are a band: at least
    ``cover`` of their pixels differ from ``background`` by more than ``tolerance``."""
    band = 0
    for x in columns:
        off = sum(1 for y in range(height) if max(abs(c - b) for c, b in zip(pixels[x, y][:3], background)) > tolerance)
        if off < cover * height:
            break
        band += 1
    return band


def math_band_problems(page, max_band_px: int = 3, limit: int = 12) -> tuple[int, list[str]]:
    """Display equations inside boxes must show the box's own background at both ends: a
    band (full-height columns of another colour) wider than ``max_band_px`` at the left
    or right edge of an equation is a problem.  The box's colour is read from the
    screenshot just left of the equation, inside the box.  An equation that scrolls is
    checked at its left end only (scrolled to the start, where no shadow is due).
    Returns (equations checked, problems)."""
    import io as _io

    from PIL import Image

    n = page.evaluate(JS_BOXED_MATH, limit)
    problems: list[str] = []
    for i in range(n):
        page.evaluate(JS_MATH_GEOMETRY, i)  # scrolls it into view; read it once painted
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        g = page.evaluate(JS_MATH_GEOMETRY, i)
        left = max(g["boxLeft"] + 1, g["x"] - 6)
        if g["width"] < 20 or g["height"] < 8 or g["x"] - left < 2:
            continue
        x0, y0 = int(left), int(g["y"]) + 1
        w, h = int(g["x"] + g["width"]) - x0, int(g["height"]) - 2
        shot = Image.open(_io.BytesIO(page.screenshot(clip={"x": x0, "y": y0, "width": w, "height": h}))).convert("RGB")
        px = shot.load()
        sw, sh = shot.size
        background = px[1, sh // 2]
        start = int(g["x"]) - x0 + 1
        bands = {"left": _band_width(px, sw, sh, background, range(start, sw))}
        if not g["scrolls"]:
            bands["right"] = _band_width(px, sw, sh, background, range(sw - 2, start, -1))
        for side, band in bands.items():
            if band > max_band_px:
                problems.append(
                    f"display equation #{i} {g['id']!r} in a {g['box']!r} box: a {band} px band "
                    f"at its {side} edge (box background rgb{background})"
                )
    return n, problems


#: Formulas (display and inline) of the article, most of them in boxes (theorems, proofs,
#: exercises, admonitions, which clip their overflow), and whether a reader can see each whole: walking up from the formula, an ancestor that
#: scrolls sideways (overflow auto/scroll: div.math, or a long inline formula's span.math)
#: makes what it holds reachable, and from there its own box is what must be seen; an
#: ancestor that clips (overflow hidden/clip: the theme's span.math and .admonition) must
#: contain what must be seen, and so must the viewport.  Every section is laid out for the
#: check (content-visibility switched off while it runs: :data:`JS_LAY_OUT_SECTIONS`), and the
#: check waits until the page's script has marked every wide display equation scrollable
#: (:data:`JS_EQUATIONS_MARKED`), as it does when a reader scrolls to a section.
JS_CLIPPED_MATH = r"""
() => {
  const vw = document.documentElement.clientWidth;
  const formulas = Array.from(document.querySelectorAll('main article mjx-container'))
    .filter(m => m.getClientRects().length && getComputedStyle(m).visibility === 'visible');
  const bad = [];
  const px = r => `${Math.round(r.left)}-${Math.round(r.right)} px`;
  const name = e => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className
                    ? '.' + e.className.trim().split(/\s+/).slice(0, 2).join('.') : '');
  const overflow = new Map();
  const ox = e => { if (!overflow.has(e)) overflow.set(e, getComputedStyle(e).overflowX); return overflow.get(e); };
  formulas.forEach((m, i) => {
    const inline = m.getAttribute('display') !== 'true';
    const box = m.closest('.admonition');
    const label = `${inline ? 'inline' : 'display'} formula #${i}` + (box ? ` in ${name(box)}` : '');
    let seen = (m.querySelector('mjx-math') || m).getBoundingClientRect(), what = 'the formula';
    for (let e = m.parentElement; e && e !== document.body; e = e.parentElement) {
      const o = ox(e);
      if (o === 'visible') continue;
      const r = e.getBoundingClientRect();
      if (seen.right > r.right + 1 || seen.left < r.left - 1) {
        if (o === 'auto' || o === 'scroll') { seen = r; what = `its scroll box ${name(e)}`; continue; }
        bad.push(`${label}: ${what} (${px(seen)}) is cut off by ${name(e)} (${px(r)}, overflow ${o})`);
        return;
      }
    }
    if (seen.right > vw + 1 || seen.left < -1)
      bad.push(`${label}: ${what} (${px(seen)}) goes past the ${vw} px viewport`);
  });
  return {checked: formulas.length, bad: bad};
}
"""
#: Every section laid out (a style of its own, taken out by :func:`clipped_math_problems`), then
#: two frames for the page's ResizeObserver to see the new layout.
JS_LAY_OUT_SECTIONS = r"""
async () => {
  const style = document.createElement('style');
  style.id = 'seqrmt-test-sections-laid-out';
  style.textContent = 'main section, main section > * { content-visibility: visible !important; }';
  document.head.appendChild(style);
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}
"""
#: Every display equation is marked scrollable by the page's script (``site.js``: class
#: ``seqrmt-scrolls``, a tab stop) exactly when it is wider than its box.
JS_EQUATIONS_MARKED = """
() => Array.from(document.querySelectorAll('main div.math, main div.amsmath'))
  .every(b => (b.scrollWidth > b.clientWidth + 1) === b.classList.contains('seqrmt-scrolls'))
"""


def clipped_math_problems(page, timeout_ms: int = 60_000) -> tuple[int, list[str]]:
    """Formulas that a reader cannot see whole (see :data:`JS_CLIPPED_MATH`):
    (formulas checked, problems).  The page is left as it was found (the sections' layout style
    is taken out)."""
    page.evaluate(JS_LAY_OUT_SECTIONS)
    try:
        page.wait_for_function(JS_EQUATIONS_MARKED, timeout=timeout_ms)
        unmarked = []
    except Exception:
        unmarked = ["a wide display equation is not marked scrollable (class seqrmt-scrolls), or a narrow one still is"]
    try:
        found = page.evaluate(JS_CLIPPED_MATH)
    finally:
        page.evaluate("() => document.getElementById('seqrmt-test-sections-laid-out').remove()")
    return found["checked"], unmarked + [f"cut off: {b}" for b in found["bad"]]


# ------------------------------------------------------------------ explorer controls
JS_SLIDER_OVERLAPS = r"""
() => {
  const box = e => e.getBoundingClientRect();
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
                          * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const sliders = Array.from(document.querySelectorAll('.widget-slider, .jupyter-widget-slider'))
    .filter(s => s.getClientRects().length);
  const bad = [];
  const parts = [];
  sliders.forEach((s, i) => {
    const name = (s.querySelector('.widget-label') || {}).textContent || `slider ${i + 1}`;
    const own = [['name', s.querySelector('.widget-label')],
                 ['track', s.querySelector('.slider-container, .noUi-target')],
                 ['value', s.querySelector('.widget-readout')]]
      .filter(([, e]) => e && e.getClientRects().length && box(e).width > 0 && (e.textContent.trim() || e.matches('.slider-container, .noUi-target')));
    for (let a = 0; a < own.length; a++)
      for (let b = a + 1; b < own.length; b++)
        if (overlap(box(own[a][1]), box(own[b][1])) > 4)
          bad.push(`"${name.trim()}": its ${own[a][0]} overlaps its ${own[b][0]}`);
    own.forEach(([what, e]) => parts.push([name.trim(), what, box(e)]));
  });
  for (let a = 0; a < parts.length; a++)
    for (let b = a + 1; b < parts.length; b++)
      if (parts[a][0] !== parts[b][0] && overlap(parts[a][2], parts[b][2]) > 4)
        bad.push(`the ${parts[a][1]} of "${parts[a][0]}" overlaps the ${parts[b][1]} of "${parts[b][0]}"`);
  return {checked: sliders.length, bad};
}
"""


def slider_overlap_problems(page) -> tuple[int, list[str]]:
    """Explorer sliders whose name, track or value overlap each other or another slider's
    (the rendered widgets, as shown): (sliders checked, problems)."""
    found = page.evaluate(JS_SLIDER_OVERLAPS)
    return found["checked"], list(found["bad"])


# ------------------------------------------------------------------ the first figure of a chapter
#: A chapter's first figure lies within its first two screens at 1280x800 (tests/browser/test_reading.py).
#: The pages held to it: the chapters.
FIRST_FIGURE_PAGES = re.compile(r"^book/0[0-9]_")
FIRST_FIGURE_VIEWPORT = {"width": 1280, "height": 800}
#: The first two screens of a page at 1280×800.
FIRST_FIGURE_LIMIT_PX = 2 * FIRST_FIGURE_VIEWPORT["height"]

JS_FIRST_FIGURE = """
() => {
  const main = document.querySelector('article.bd-article') || document.querySelector('main')
               || document.body;
  const found = [];
  for (const img of main.querySelectorAll('img')) {
    const r = img.getBoundingClientRect();
    const w = Math.max(r.width, img.width || 0, parseFloat(img.getAttribute('width') || '0'));
    if (w >= 100) found.push({el: img, kind: 'img', what: img.getAttribute('alt') || img.src});
  }
  const widgets = main.querySelectorAll(
      'script[type="application/vnd.jupyter.widget-view+json"], .jupyter-widgets, .widget-subarea');
  for (const w of widgets) {
    let el = w;
    while (el && el.getBoundingClientRect().height === 0 && el !== main) el = el.parentElement;
    if (el && el !== main) found.push({el: el, kind: 'widget', what: 'explorer'});
  }
  if (!found.length) return null;
  const tops = found.map(f => ({kind: f.kind, what: String(f.what).slice(0, 80),
                                top: f.el.getBoundingClientRect().top + window.scrollY}));
  tops.sort((a, b) => a.top - b.top);
  return tops[0];
}
"""

#: The sections' ``content-visibility`` off: far sections are laid out at their real height.
ALL_LAID_OUT_CSS = "* { content-visibility: visible !important; }"


def lay_out_everything(page) -> None:
    """Turn ``content-visibility`` off (far sections otherwise keep placeholder heights that misplace
    what follows them), wait for the fonts and go to the top."""
    page.add_style_tag(content=ALL_LAID_OUT_CSS)
    page.evaluate("() => document.fonts ? document.fonts.ready : null")
    page.evaluate("() => window.scrollTo(0, 0)")


def first_figure(page) -> dict | None:
    """The first figure of the page: ``{kind, what, top}`` (top in CSS px from the page top)."""
    return page.evaluate(JS_FIRST_FIGURE)


def first_figure_problem(page, page_name: str) -> str | None:
    """Why the page's first figure is not within its first two screens (``None`` if it is); the page
    is laid out at 1280x800 with every section laid out (:func:`lay_out_everything`)."""
    fig = first_figure(page)
    if fig is None:
        return f"{page_name}: no figure or explorer at all"
    if fig["top"] >= FIRST_FIGURE_LIMIT_PX:
        return (
            f"{page_name}: the first figure ({fig['kind']}: {fig['what']}) starts at {fig['top']:.0f} px, "
            f"below the first two screens ({FIRST_FIGURE_LIMIT_PX} px at 1280×800)"
        )
    return None


# ------------------------------------------------------------------ figures and tables on a phone
#: Smallest figure text on the page, in CSS px (seqrmt.plots.MIN_TEXT_PX).
MIN_FIGURE_TEXT_PX = 9.0
#: Every figure of the book's code as shown: its smallest text as a fraction of its width (an inline
#: PNG carries it as the class seqrmt-textw-<n>, n / 100000; an explorer frame as its
#: data-seqrmt-text-px over its width attribute) times the width it is shown at; a figure in a cell
#: output without that information; and the cells of the result tables (seqrmt-table) that end
#: right of the screen.
JS_PHONE_FIGURES = r"""
(minPx) => {
  const shown = e => e.getClientRects().length > 0 && !e.closest('[hidden], details:not([open])');
  const textRatio = img => {
    if (img.dataset.seqrmtTextPx) return parseFloat(img.dataset.seqrmtTextPx) / parseFloat(img.getAttribute('width'));
    const c = Array.from(img.classList).find(c => /^seqrmt-textw-\d+$/.test(c));
    return c ? parseInt(c.slice('seqrmt-textw-'.length), 10) / 100000 : null;
  };
  const name = img => (img.getAttribute('alt') || img.getAttribute('src') || '').slice(0, 60);
  const bad = [];
  let figures = 0, cells = 0;
  for (const img of document.querySelectorAll('main img')) {
    if (!shown(img)) continue;
    const ratio = textRatio(img);
    if (ratio === null || !isFinite(ratio)) {
      if (img.closest('.cell_output') && !img.closest('.seqrmt-live-controls'))
        bad.push(`figure "${name(img)}": no text size (seqrmt-textw-* class or data-seqrmt-text-px)`);
      continue;
    }
    figures++;
    const width = img.getBoundingClientRect().width, shownPx = ratio * width;
    if (!(shownPx >= minPx - 0.01))
      bad.push(`figure "${name(img)}": smallest text ${shownPx.toFixed(1)} CSS px ` +
               `(${(100 * ratio).toFixed(2)} % of its width, shown ${Math.round(width)} px wide)`);
  }
  const right = document.documentElement.clientWidth;
  for (const td of document.querySelectorAll('main table.seqrmt-table td')) {
    if (!shown(td)) continue;
    cells++;
    const box = td.getBoundingClientRect();
    if (box.right > right + 1) {
      bad.push(`table cell "${(td.dataset.label || '')}: ${td.textContent.trim().slice(0, 30)}" ends ` +
               `${Math.round(box.right - right)} px right of the screen`);
      break;
    }
  }
  return {figures, cells, bad};
}
"""


def phone_figure_problems(page) -> tuple[int, list[str]]:
    """At the page's current width (a phone's): figures whose smallest text shows below
    :data:`MIN_FIGURE_TEXT_PX`, figures of a cell output without their text size, and result-table
    cells off the screen: ``(figures and cells checked, problems)``.  Lay the page out first
    (:func:`lay_out_everything`)."""
    found = page.evaluate(JS_PHONE_FIGURES, MIN_FIGURE_TEXT_PX)
    return found["figures"] + found["cells"], list(found["bad"])
