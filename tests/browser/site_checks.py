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
        if (not self.compress or "gzip" not in self.headers.get("Accept-Encoding", "")
                or not os.path.isfile(path) or not ctype.startswith(self.COMPRESSIBLE)):
            return super().send_head()   # directories (redirect, index), binary files, errors
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
async ([tags, skip]) => {
  // label-content-name-mismatch (WCAG 2.5.3) is tagged experimental in axe-core and
  // would be left out by the tag filter: switch it on explicitly.  preload: false: axe
  // would re-fetch every stylesheet for its CSSOM and resolves the theme's nested
  // @import "../basic.css" against the page (a 404 that is not the site's).
  const res = await axe.run(document, {runOnly: {type: 'tag', values: tags},
                                       rules: Object.assign({'label-content-name-mismatch': {enabled: true}},
                                         Object.fromEntries(skip.map(r => [r, {enabled: false}]))),
                                       preload: false, resultTypes: ['violations']});
  return res.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: ' +
                                    (n.failureSummary || '').split('\\n').slice(1, 2).join(''))}));
}
"""


def run_axe(page, tags: list[str] | None = None, skip: list[str] | None = None) -> list[dict]:
    """Critical and serious axe-core violations on the page as it is now (rules in
    ``skip`` switched off)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    found = page.evaluate(JS_AXE_RUN, [tags or AXE_TAGS, list(skip or [])])
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
    page.wait_for_function("() => document.fonts && document.fonts.status === 'loaded'",
                           timeout=timeout_ms)


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


#: Long tasks and the largest paint, recorded from the first script of the page on.
JS_PERF_RECORDER = """
(() => {
  const rec = window.__seqrmtPerf = {tasks: [], lcp: 0, loaded: false, lastTaskEnd: 0};
  try {
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


def measure_main_thread(context, url: str, link: dict = SLOW_PHONE, quiet_ms: int = 2_000,
                        timeout_ms: int = 90_000) -> dict[str, float]:
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
    last_net = [time.monotonic()]

    def started(e: dict) -> None:
        inflight.add(e["requestId"])
        last_net[0] = time.monotonic()

    def ended(e: dict) -> None:
        inflight.discard(e["requestId"])
        last_net[0] = time.monotonic()

    cdp.on("Network.requestWillBeSent", started)
    cdp.on("Network.loadingFinished", ended)
    cdp.on("Network.loadingFailed", ended)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": link["latency_ms"],
        "downloadThroughput": link["download_bps"] / 8, "uploadThroughput": link["upload_bps"] / 8})
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": link["cpu_slowdown"]})
    quiet_js = (f"() => window.__seqrmtPerf && __seqrmtPerf.loaded && "
                f"performance.now() - __seqrmtPerf.lastTaskEnd > {quiet_ms}")
    deadline = time.monotonic() + timeout_ms / 1000
    quiet = True
    try:
        page.goto(url, wait_until="commit", timeout=timeout_ms)
        while True:
            try:
                page.wait_for_function(quiet_js, timeout=max(1.0, deadline - time.monotonic()) * 1000,
                                       polling=250)
            except PlaywrightTimeoutError:
                quiet = False
                break
            if not inflight and time.monotonic() - last_net[0] > quiet_ms / 1000:
                break
            if time.monotonic() > deadline:
                quiet = False
                break
            page.wait_for_timeout(250)   # let network events arrive, then look again
        try:
            page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length > 0",
                                   timeout=timeout_ms)
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
        return {"fcp": float(rec["fcp"]), "lcp": float(max(rec["lcp"], rec["fcp"])),
                "tbt": math.inf, "longest": math.inf, "quiet": 0.0}
    return {"fcp": float(rec["fcp"]), "lcp": float(max(rec["lcp"], rec["fcp"])),
            "tbt": float(sum(max(0.0, d - 50.0) for d in after)),
            "longest": float(max(after, default=0.0)), "quiet": 1.0}
