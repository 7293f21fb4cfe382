"""Accessibility and speed checks of a built page, shared by ``test_site.py`` and
``benchmarks/site_weight.py`` (plain functions on a Playwright page/context).

* :func:`run_axe` injects axe-core (``vendor/axe.min.js`` next to this file, vendored
  from npm by ``scripts/vendor_assets.sh``; it is never served with the site) and
  returns the critical and serious WCAG 2.0/2.1 A/AA violations.
* :data:`JS_ALT_AUDIT` lists images whose alt text is missing, empty or a file name.
* :data:`JS_MATH_TABSTOPS` counts MathJax equations in the tab order.
* :func:`measure_fcp` loads a page with a cold cache on an emulated slow phone link
  (CDP network and CPU throttling) and returns its first contentful paint (ms).
* :func:`wait_settled` waits (on conditions, never a fixed sleep) until MathJax has
  typeset the page, the widgets have rendered and the images have loaded.
"""

from __future__ import annotations

from pathlib import Path

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING_IMPACTS = ("critical", "serious")

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

#: MathJax equations that are keyboard tab stops.
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
    """Wait until MathJax 3 has finished its first typesetting pass (if the page has math)."""
    if not page.evaluate("() => document.querySelectorAll('.math, .amsmath').length > 0"):
        return
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                           timeout=timeout_ms)
    page.evaluate("() => MathJax.startup.promise.then(() => true)")


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
    """Math typeset, widgets rendered, every image loaded (conditions, no sleeps)."""
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


def measure_fcp(context, url: str, link: dict = SLOW_PHONE, timeout_ms: int = 180_000) -> float:
    """First contentful paint (ms) of ``url`` loaded with a cold cache on ``link``.

    The throttling is set with CDP before navigation: ``Network.emulateNetworkConditions``
    and ``Emulation.setCPUThrottlingRate``; the cache is disabled (a first visit)."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": link["latency_ms"],
        "downloadThroughput": link["download_bps"] / 8, "uploadThroughput": link["upload_bps"] / 8})
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": link["cpu_slowdown"]})
    try:
        page.goto(url, wait_until="commit", timeout=timeout_ms)
        page.wait_for_function(
            "() => performance.getEntriesByName('first-contentful-paint').length > 0",
            timeout=timeout_ms, polling=200)
        return float(page.evaluate(
            "() => performance.getEntriesByName('first-contentful-paint')[0].startTime"))
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        page.close()
