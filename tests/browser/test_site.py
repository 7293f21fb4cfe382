"""End-to-end check that the built book works offline, in a real browser.

For every page listed in ``_toc.yml`` the built HTML is opened in headless
Chromium (system ``/usr/bin/chromium`` through the Python ``playwright``
package), served from ``_build/html`` on 127.0.0.1.  **Every request to any other
host is aborted and reported**: a CDN request means an asset is not vendored, and
the site would break for an offline reader.  Per page it checks

* no console errors, no uncaught exceptions, no failed requests, no HTTP >= 400;
* every ``<img>`` has loaded (``naturalWidth > 0``) and no cell output shows a
  figure as text (``<Figure size 640x480 with 1 Axes>``);
* pages with math: every math element was typeset when the site was built
  (``mjx-container`` with its hidden MathML, ``mjx-assistive-mml``), no MathJax script is
  loaded, and no raw TeX delimiters (``$$``, ``\\(``, ``\\[``) are left in the visible text;
* pages with widgets: the widgets rendered, sliders are present when the saved
  state has sliders, and every slider of every kernel-free explorer
  (:func:`seqrmt.widgets.explore`) changes the displayed image when moved with the
  keyboard.  **Chapter pages** (``book/0[1-9]*``) must contain at least one such
  explorer;
* notebook pages offer the ``.ipynb`` download and a Binder launch link;
* every internal link points to an existing file (and an existing anchor);
* accessibility (over http): **axe-core** (vendored in ``vendor/axe.min.js``, WCAG 2.0/2.1
  A and AA rules plus ``label-content-name-mismatch``; ``color-contrast``, slow, on the
  pages of ``FULL_AXE_PAGES`` only) reports no critical or serious violation; no image has a missing, empty or file-name alt text; no equation
  is a tab stop (unless it is wide and scrolls); every slider handle has a name, an ``aria-valuetext`` giving the value
  it shows, a 24 px target, a border of >= 3:1 contrast and a visible focus ring; an
  explorer's status region is a polite live region;
* at a phone's width (390 px) the page does not scroll sideways and every display
  equation that does not fit is marked scrollable (a tab stop, class ``seqrmt-scrolls``);
* the widget state is not inline in the page and the lazy widget loader reports
  ``ready``.

Each chapter's first figure is measured in its http check (within the first two screens at
1280x800).  The pages of :data:`GATE_DISK_PAGES` (the introduction, chapter 3 and one page of each
other kind; with ``pytest --every-chapter``, the scheduled workflow's, the pages of
:data:`DISK_PAGES`: every chapter too) are opened again as ``file://`` URLs, for what depends on
how a page is opened (loading: scripts, stylesheets, the widget state, every image file; see
:func:`_check_page_from_disk`); on every page the http check rejects a root-absolute resource
path, the one thing a page of its own could break from disk.  How fast a
page paints on a slow phone link is a measurement, not a check: ``benchmarks/site_weight.py``
(every page, cold cache, 1.6 Mbit/s, 150 ms, CPU slowed 4x) and ``benchmarks/lighthouse.py``,
held to their bars by ``benchmarks/run_all.py``.  A full-page screenshot of each page is saved to
``_build/artifacts/screenshots/<page>.png``.

The book is (re)built first if ``_build/html`` is missing or older than any of its
sources, or if ``SEQRMT_REBUILD=1``; ``SEQRMT_REBUILD=0`` turns a stale build into a
failure instead (see conftest.py).  Every wait is on a condition in the page, with
generous timeouts, never a fixed sleep: the checks hold on a loaded machine.
Run only these tests with ``pytest -m browser tests/browser``.
"""

from __future__ import annotations

import contextlib
import glob
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from seqrmt import settings

import site_checks

#: Time from a key press on an explorer slider to the new frame being shown (ms), over
#: every slider moved in this run; written to _build/artifacts/slider_latency.json.
#: Reported, not asserted (speed is measured, not timed in tests).
SLIDER_LATENCY_MS: list[float] = []


@pytest.fixture(scope="module", autouse=True)
def _report_slider_latency(screenshot_dir):
    yield
    if SLIDER_LATENCY_MS:
        vals = sorted(SLIDER_LATENCY_MS)
        summary = {
            "n": len(vals),
            "median_ms": vals[len(vals) // 2],
            "max_ms": vals[-1],
            "note": "in-page time from keydown to the new frame (performance.now)",
        }
        (screenshot_dir.parent / "slider_latency.json").write_text(json.dumps(summary, indent=1))


pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

CHAPTER_RE = re.compile(r"^book/0[1-9]")
EXPLORE_CLASS = "seqrmt-explore"  # seqrmt.widgets.EXPLORE_CLASS (not imported: no ipywidgets needed here)
TIMEOUT_MS = 60_000  # generous: the machine running the tests may be loaded


# ------------------------------------------------------------------ the pages
def _strip_ext(path: str) -> str:
    for ext in (".ipynb", ".md", ".rst"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def toc_pages(root: Path = ROOT) -> list[str]:
    """Documents listed in ``_toc.yml`` (root first), without extensions."""
    toc_file = root / "_toc.yml"
    if not toc_file.exists():
        return []
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8")) or {}
    pages: list[str] = []

    def visit(node: object) -> None:
        if isinstance(node, list):
            for child in node:
                visit(child)
        elif isinstance(node, dict):
            if isinstance(node.get("file"), str):
                pages.append(_strip_ext(node["file"]))
            if isinstance(node.get("glob"), str):
                matches = sorted(glob.glob(str(root / node["glob"])))
                pages.extend(
                    _strip_ext(Path(m).relative_to(root).as_posix())
                    for m in matches
                    if m.endswith((".ipynb", ".md", ".rst"))
                )
            for key in ("parts", "chapters", "sections", "subtrees", "entries"):
                if key in node:
                    visit(node[key])

    if isinstance(toc.get("root"), str):
        pages.append(_strip_ext(toc["root"]))
    visit(toc)
    return list(dict.fromkeys(pages))


PAGES = toc_pages()


def _source_of(page: str) -> Path | None:
    for ext in (".ipynb", ".md", ".rst"):
        if (ROOT / (page + ext)).exists():
            return ROOT / (page + ext)
    return None


def test_toc_lists_pages() -> None:
    assert PAGES, "_toc.yml lists no pages"
    missing = [p for p in PAGES if _source_of(p) is None]
    assert not missing, f"_toc.yml lists pages without a source file: {missing}"


# ------------------------------------------------------------------ JS helpers
#: The page's widgets have been loaded by static/seqrmt/widgets.js (lazy loader): it sets
#: <html data-seqrmt-widgets="waiting|loading|ready|error">.  Pages without widgets have
#: no such attribute.
JS_WIDGETS_DONE = """
() => { const st = document.documentElement.getAttribute('data-seqrmt-widgets');
        return st === null || st === 'ready' || st === 'error'; }
"""

JS_WIDGET_INFO = """
() => {
  const status = document.documentElement.getAttribute('data-seqrmt-widgets');
  const views = Array.from(document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]'));
  const inlineState = document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]');
  const meta = document.querySelector('meta[name="seqrmt-widget-state"]');
  if (!views.length && !meta && !inlineState) return {hasState: false, sliderModels: 0, views: 0, rendered: 0};
  const state = (window.seqrmtWidgetState || {}).state || {};
  const names = Object.values(state).map(m => m.model_name || '');
  const known = views.filter(v => JSON.parse(v.textContent).model_id in state);
  const rendered = known.filter(v => {
      const p = v.previousElementSibling;
      return p && p.classList.contains('widget-subarea') && p.children.length > 0; }).length;
  return {hasState: true, status: status, inlineState: !!inlineState, meta: !!meta,
          sliderModels: names.filter(n => /SliderModel$/.test(n)).length,
          views: known.length, viewTags: views.length, rendered: rendered,
          sliders: document.querySelectorAll('.widget-slider, .widget-hslider').length};
}
"""

JS_RAW_TEX = r"""
() => {
  const main = document.querySelector('main') || document.body;
  const clone = main.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, textarea, mjx-container, mjx-assistive-mml, .MathJax')
       .forEach(e => e.remove());
  const text = clone.textContent;
  const hits = [];
  for (const pat of ['$$', '\\(', '\\[', '\\begin{']) {
    const i = text.indexOf(pat);
    if (i >= 0) hits.push(JSON.stringify(text.slice(Math.max(0, i - 40), i + 60)));
  }
  return hits;
}
"""

JS_MATH_INFO = """
() => {
  const maths = Array.from(document.querySelectorAll('main .math, main .amsmath'));
  const untypeset = maths.filter(m => !m.querySelector('mjx-container'))
                         .map(m => m.textContent.slice(0, 80));
  const containers = Array.from(document.querySelectorAll('mjx-container'));
  return {count: maths.length, mjx: containers.length, untypeset: untypeset,
          noMathML: containers.filter(c => !c.querySelector('mjx-assistive-mml > math')).length,
          mathjaxScripts: Array.from(document.scripts).map(s => s.src || s.getAttribute('src') || '')
            .filter(src => /mathjax/i.test(src)).concat(window.MathJax ? ['window.MathJax'] : [])};
}
"""

JS_FIGURE_REPRS = r"""
() => Array.from(document.querySelectorAll('main .cell_output, main .output'))
  .map(o => o.textContent.match(/<(Figure|matplotlib\.figure\.Figure)[^>]*>/))
  .filter(m => m).map(m => m[0])
"""

JS_BROKEN_IMAGES = """
() => Array.from(document.images)
  .filter(img => img.getClientRects().length > 0)   // lazy images in closed dropdowns never load
  .filter(img => !(img.complete && img.naturalWidth > 0))
  .map(img => (img.currentSrc || img.src || '(no src)').slice(0, 120))
"""

JS_VISIBLE_IMG_SRC = """
(box) => {
  const imgs = Array.from(box.querySelectorAll('img')).filter(
      img => img.offsetParent !== null && img.getBoundingClientRect().width > 0);
  return imgs.map(img => img.src).join(' ');
}
"""


# In-page latency of a slider move: keydown (capture phase) to the first DOM change
# after which the visible frame differs. Measured with performance.now() in the page.
JS_ARM_LATENCY = f"""
([box, before]) => {{
  const visible = {JS_VISIBLE_IMG_SRC.strip()};
  const lat = window.__seqrmtLatency = {{}};
  document.addEventListener('keydown', () => {{ lat.key = performance.now(); }},
                            {{capture: true, once: true}});
  const obs = new MutationObserver(() => {{
    if (lat.key !== undefined && visible(box) !== before) {{
      lat.frame = performance.now();
      obs.disconnect();
    }}
  }});
  obs.observe(box, {{attributes: true, childList: true, subtree: true}});
}}
"""


def _wait_visible_frame(page, box, not_equal: str | None = None) -> str:
    """Wait until ``box`` shows a loaded image (different from ``not_equal`` if given);
    return its source, or '' on timeout.  A condition, not a sleep: under load the
    explorer's script may render its first frame well after the page's load event."""
    cond = (
        f"([box, before]) => {{ const v = ({JS_VISIBLE_IMG_SRC})(box); "
        "return v !== '' && v !== before && Array.from(box.querySelectorAll('img'))"
        ".every(i => i.offsetParent === null || (i.complete && i.naturalWidth > 0)); }"
    )
    try:
        page.wait_for_function(cond, arg=[box.element_handle(), not_equal], timeout=TIMEOUT_MS)
    except Exception:
        return ""
    return box.evaluate(JS_VISIBLE_IMG_SRC)


def _check_explorers(page, problems: list[str], *, first_only: bool = False) -> int:
    """Move every slider of every kernel-free explorer; return how many fully work.
    ``first_only``: the first slider of the first explorer (the loading path, not the behaviour)."""
    working = 0
    boxes = page.locator(f".{EXPLORE_CLASS}")
    for b in range(min(boxes.count(), 1) if first_only else boxes.count()):
        box = boxes.nth(b)
        box.scroll_into_view_if_needed()
        try:
            box.locator(".noUi-handle").first.wait_for(state="attached", timeout=TIMEOUT_MS)
        except Exception:
            pass
        handles = box.locator(".noUi-handle")
        n = handles.count()
        if n == 0:
            problems.append(f"explorer #{b}: no slider handle (.noUi-handle) rendered")
            continue
        ok = True
        for s in range(1 if first_only else n):
            handle = handles.nth(s)
            before = _wait_visible_frame(page, box)
            if not before:
                problems.append(f"explorer #{b}: no visible image (waited {TIMEOUT_MS // 1000} s)")
                ok = False
                break
            now = handle.get_attribute("aria-valuenow")
            top = handle.get_attribute("aria-valuemax")
            key = "ArrowLeft" if (now is not None and now == top) else "ArrowRight"
            handle.focus()
            box.evaluate(
                JS_ARM_LATENCY.replace("([box, before])", "(box)").replace(
                    "visible(box) !== before", f"visible(box) !== {json.dumps(before)}"
                )
            )
            handle.press(key)
            after = _wait_visible_frame(page, box, not_equal=before)
            if after:
                lat = page.evaluate("() => window.__seqrmtLatency")
                if lat and "frame" in lat and "key" in lat:
                    SLIDER_LATENCY_MS.append(lat["frame"] - lat["key"])
            else:
                problems.append(
                    f"explorer #{b}, slider #{s}: pressing {key} did not change the "
                    f"image (waited {TIMEOUT_MS // 1000} s)"
                )
                ok = False
                continue
            # move it back (for the screenshot) and let that frame settle before the next
            # slider reads its "before" frame.  Best effort, not a check: the keyboard step
            # of the slider may not land exactly on the first value again.
            handle.press("ArrowLeft" if key == "ArrowRight" else "ArrowRight")
            try:
                page.wait_for_function(
                    f"([box, after]) => {{ const v = ({JS_VISIBLE_IMG_SRC})(box); return v !== '' && v !== after; }}",
                    arg=[box.element_handle(), after],
                    timeout=5_000,
                )
            except Exception:
                pass
        working += ok
    return working


def _check_links(page, site_url: str, built_site: Path, problems: list[str]) -> None:
    hrefs: list[str] = page.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    origin = urlsplit(site_url)
    cache: dict[Path, str] = {}
    for href in sorted(set(hrefs)):
        u = urlsplit(href)
        if u.scheme not in ("http", "https") or u.netloc != origin.netloc:
            continue  # external links are links, not loads; mailto:, javascript: ...
        path = unquote(u.path).lstrip("/")
        target = built_site / path
        if path == "" or path.endswith("/"):
            target = target / "index.html"
        if not target.is_file():
            if path.startswith("_pdf/") and not settings.flag("SEQRMT_REQUIRE_PDF"):
                continue  # the PDF is built only where TeX is installed (scripts/build_pdf.sh)
            problems.append(f"broken internal link: {href}")
            continue
        if u.fragment and target.suffix == ".html":
            text = cache.setdefault(target, target.read_text(encoding="utf-8", errors="replace"))
            frag = unquote(u.fragment)
            if f'id="{frag}"' not in text and f'name="{frag}"' not in text:
                problems.append(f"internal link to a missing anchor: {href}")


# ------------------------------------------------------------------ accessibility
#: Slider handles: accessible name, aria-valuetext equal to the shown value, target size,
#: border contrast against the page (WCAG 1.4.11) and a visible keyboard focus.
JS_SLIDER_A11Y = r"""
() => {
  const lum = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const [r, g, b] = m[1].split(',').slice(0, 3).map(x => parseFloat(x) / 255)
      .map(v => v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  const name = (h) => {
    const ids = (h.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const t = ids.map(id => { const e = document.getElementById(id); return e ? e.textContent : ''; }).join(' ');
    return (t || h.getAttribute('aria-label') || '').trim(); };
  const out = [];
  const handles = Array.from(document.querySelectorAll('.noUi-handle[role="slider"]'))
    .filter(h => h.getClientRects().length > 0);
  // an explorer announces the figure it shows: its status region is a live region
  document.querySelectorAll('.seqrmt-explore').forEach((ex, i) => {
    const st = ex.querySelector('.seqrmt-explore-status');
    if (st && st.getAttribute('aria-live') !== 'polite')
      out.push(`explorer #${i}: its status region (.seqrmt-explore-status) is not aria-live="polite"`);
  });
  handles.forEach((h, i) => {
    const box = h.closest('.widget-slider, .jupyter-widget-slider, .widget-hslider');
    const readout = box && box.querySelector('.widget-readout');
    const shown = readout ? readout.textContent.trim() : null;
    const label = name(h);
    const where = `slider #${i} (${label || 'unnamed'})`;
    if (!label) out.push(`${where}: no accessible name (aria-labelledby/aria-label)`);
    const vt = h.getAttribute('aria-valuetext') || '';
    // "<short name> = <shown value>" (e.g. "β = 0.5") or the shown value itself
    if (shown !== null && vt !== shown && !vt.endsWith(' = ' + shown))
      out.push(`${where}: aria-valuetext ${JSON.stringify(vt)} does not give the shown value ${JSON.stringify(shown)}`);
    if (h.getAttribute('aria-disabled') === 'true') return;  // live() controls on the static site
    const r = h.getBoundingClientRect();
    if (r.width < 24 || r.height < 24)
      out.push(`${where}: target ${r.width.toFixed(0)}x${r.height.toFixed(0)} px (WCAG 2.5.8 asks 24x24)`);
    const cs = getComputedStyle(h);
    const border = lum(cs.borderTopColor), page = lum('rgb(255, 255, 255)');
    if (border === null || parseFloat(cs.borderTopWidth) < 1 || ratio(border, page) < 3)
      out.push(`${where}: handle border ${cs.borderTopWidth} ${cs.borderTopColor} has contrast < 3:1 with the page`);
  });
  return {count: handles.length, problems: out};
}
"""

JS_FOCUS_RING = """
(h) => { const cs = getComputedStyle(h);
         return {visible: h.matches(':focus-visible'), style: cs.outlineStyle,
                 width: parseFloat(cs.outlineWidth) || 0}; }
"""


#: axe's color-contrast rule takes 10-70 s per page on a loaded 2-core machine (it
#: samples the background of every text element).  It runs on the pages below (the
#: intro, with the navigation every page shares, and a chapter with every kind of block:
#: proofs, exercises, dropdowns, self-checks, explorers, code cells; chapter 3, the
#: longest, has the same blocks and took 4 s more); on the other pages every other rule
#: runs.  benchmarks/site_weight.py (the scheduled workflow) runs all rules on every page.
FULL_AXE_PAGES = ("book/intro", "book/04_optimal_weights")
#: axe checks the inner markup of this many formulas of a page (of every formula on the pages of
#: FULL_FORMULA_PAGES); the others' is the same renderer's (site_checks.run_axe).
FORMULAS_CHECKED = 40
FULL_FORMULA_PAGES = ("book/intro",)


def _check_accessibility(page, problems: list[str], page_name: str = "") -> None:
    """axe-core (WCAG 2.0/2.1 A and AA: critical and serious impacts), alt texts,
    equations out of the tab order, and the slider handles."""
    skip = [] if page_name in FULL_AXE_PAGES else ["color-contrast"]
    kept = None if page_name in FULL_FORMULA_PAGES else FORMULAS_CHECKED
    for v in site_checks.run_axe(page, skip=skip, formulas_kept=kept):
        problems.append(
            f"axe {v['impact']} '{v['id']}' on {v['nodes']} node(s): {v['help']}; e.g. {'; '.join(v['targets'][:2])}"
        )
    alt = page.evaluate(site_checks.JS_ALT_AUDIT)
    for ex in alt["examples"]:
        problems.append(f"image alt text ({alt['bad']} bad of {alt['images']}): {ex}")
    tabstops = page.evaluate(site_checks.JS_MATH_TABSTOPS)
    if tabstops:
        problems.append(
            f"{tabstops} MathJax equation(s) are tab stops (options.menuOptions.settings.inTabOrder must be false)"
        )
    sliders = page.evaluate(JS_SLIDER_A11Y)
    problems.extend(sliders["problems"])
    if sliders["count"] and page.locator('.noUi-handle[role="slider"]:not([aria-disabled="true"])').count():
        handle = page.locator('.noUi-handle[role="slider"]:not([aria-disabled="true"])').first
        handle.scroll_into_view_if_needed()
        page.keyboard.press("Shift+Tab")  # a keyboard move, so that focus is "visible"
        handle.focus()
        ring = handle.evaluate(JS_FOCUS_RING)
        if ring["visible"] and (ring["style"] == "none" or ring["width"] < 2):
            problems.append(f"focused slider handle shows no focus ring (outline {ring})")


def _check_phone_width(page, problems: list[str]) -> None:
    """At a phone's width (390 CSS px) the page does not scroll sideways, every figure shows its
    smallest text at 9 CSS px or more and every result table fits the screen
    (:func:`site_checks.phone_figure_problems`), and every display equation that does not fit
    scrolls on its own, as a tab stop with a cue."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function("() => window.innerWidth === 390", timeout=TIMEOUT_MS)
    # Sections far from the viewport are not laid out (content-visibility): lay every section
    # out, so that each equation is laid out at this width and checked (as scrolling to it would).
    site_checks.lay_out_everything(page)
    problems.extend(f"at 390 px: {p}" for p in site_checks.phone_figure_problems(page)[1])
    wide = page.evaluate(site_checks.JS_PAGE_OVERFLOW)
    if wide:
        problems.append(f"at 390 px the page scrolls sideways ({wide['scrollWidth']} px wide): {wide['culprits']}")
    if page.evaluate("() => document.querySelectorAll('main div.math, main div.amsmath').length > 0"):
        try:
            page.wait_for_function(site_checks.JS_EQUATIONS_MARKED, timeout=TIMEOUT_MS)
        except Exception:
            problems.append(
                "at 390 px a wide equation is not marked scrollable (class seqrmt-scrolls, "
                "tabindex=0), or a narrow one still is"
            )


# ------------------------------------------------------------------ the tests
def _open_watched(browser, viewport: dict, local, problems: list[str], external: list[str]):
    """A new context and page whose requests to anything ``local(url)`` rejects are aborted and
    listed in ``external``, and whose console errors, uncaught exceptions and failed local
    requests go into ``problems``: ``(context, page)``."""
    context = browser.new_context(viewport=viewport, service_workers="block")

    def route(r) -> None:
        if local(r.request.url):
            r.continue_()
        else:
            external.append(r.request.url)
            r.abort("blockedbyclient")

    context.route("**/*", route)
    page = context.new_page()
    page.on(
        "console",
        lambda m: (
            m.type == "error" and problems.append(f"console error: {m.text} ({(m.location or {}).get('url', '')})")
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"uncaught exception: {e}"))
    page.on("requestfailed", lambda r: local(r.url) and problems.append(f"request failed: {r.url} ({r.failure})"))
    return context, page


def _check_page(browser, base_url: str, built_site: Path, page_name: str, screenshot: Path | None) -> None:
    """Open one page from ``base_url`` (http://127.0.0.1:port) and check it."""
    html = built_site / (page_name + ".html")
    assert html.is_file(), (
        f"{html.relative_to(ROOT)} is missing: the build is stale. Rebuild with "
        "`jupyter-book build . -n -W --keep-going` or run pytest with SEQRMT_REBUILD=1"
    )

    problems: list[str] = []
    external: list[str] = []
    context, page = _open_watched(
        browser, {"width": 1280, "height": 900}, lambda url: urlsplit(url).hostname == "127.0.0.1", problems, external
    )
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
    try:
        page.goto(f"{base_url}/{page_name}.html", wait_until="load", timeout=TIMEOUT_MS)
        # at the load event, before anything scrolls: every scroll box reachable by keyboard
        problems += site_checks.check_scroll_boxes_at_load(page, axe=page_name in FULL_AXE_PAGES)

        # what would break the page opened from disk (file://): a root-absolute path to a resource
        for url in page.evaluate(JS_ROOT_ABSOLUTE):
            problems.append(f"a root-absolute path, which a page opened from disk cannot load: {url}")

        # Math: typeset when the site was built (seqrmt_book/typeset.py), none in the browser
        info = page.evaluate(JS_MATH_INFO)
        if info["count"] and info["mjx"] == 0:
            problems.append("page has math but no mjx-container (the math was not typeset at build time)")
        for t in info["untypeset"][:5]:
            problems.append(f"math not typeset: {t!r}")
        if info["noMathML"]:
            problems.append(
                f"{info['noMathML']} typeset formula(s) without the hidden MathML "
                "that screen readers read (mjx-assistive-mml)"
            )
        for src in info["mathjaxScripts"]:
            problems.append(f"the page loads MathJax ({src}); the math should be typeset at build time")
        for hit in page.evaluate(JS_RAW_TEX):
            problems.append(f"raw TeX in the visible text: {hit}")

        # Widgets
        widgets = page.evaluate(JS_WIDGET_INFO)
        n_explorers = 0
        if widgets["hasState"]:
            # The loader starts when a widget nears the viewport or on the first focus:
            # scroll to the first widget and wait for its "ready"/"error" flag.
            page.evaluate("""() => { const v = document.querySelector(
                'script[type="application/vnd.jupyter.widget-view+json"]');
                if (v && v.parentElement) v.parentElement.scrollIntoView(); }""")
            try:
                page.wait_for_function(JS_WIDGETS_DONE, timeout=TIMEOUT_MS)
            except Exception:
                problems.append(
                    f"widgets not loaded after {TIMEOUT_MS // 1000} s (data-seqrmt-widgets={widgets.get('status')!r})"
                )
            widgets = page.evaluate(JS_WIDGET_INFO)
            if widgets["inlineState"]:
                problems.append(
                    "the widget state is inline in the page (it should be in <page>.widget-state.js, loaded lazily)"
                )
            if widgets["status"] != "ready":
                problems.append(
                    f"widget loader status {widgets['status']!r} (expected 'ready'; "
                    "is static/seqrmt/widgets.js or the state file missing?)"
                )
            if widgets["rendered"] < widgets["views"] or widgets["views"] < widgets["viewTags"]:
                problems.append(
                    f"only {widgets['rendered']} of {widgets['viewTags']} widgets rendered "
                    "(is the widget JavaScript loaded?)"
                )
            if widgets["sliderModels"] and not widgets["sliders"]:
                problems.append(f"the widget state has {widgets['sliderModels']} sliders but none is displayed")
            n_explorers = _check_explorers(page, problems)
        if CHAPTER_RE.match(page_name) and n_explorers == 0:
            problems.append(
                "chapter page without a working kernel-free explorer "
                "(seqrmt.widgets.explore): no slider changes a figure"
            )

        # Images: every lazy image asked for now (as if scrolled to), then all must have loaded
        page.evaluate(site_checks.JS_LOAD_LAZY_IMAGES)
        try:
            page.wait_for_function(site_checks.JS_IMAGES_LOADED, timeout=TIMEOUT_MS)
        except Exception:
            pass
        for src in page.evaluate(JS_BROKEN_IMAGES):
            problems.append(f"image not loaded (naturalWidth 0): {src}")
        for text in page.evaluate(JS_FIGURE_REPRS):
            problems.append(
                f"a figure shows as text, not as an image: {text!r} "
                "(a Figure that the notebook displayed without a PNG)"
            )
        page.evaluate("() => window.scrollTo(0, 0)")

        # Notebook pages: download and launch buttons
        source = _source_of(page_name)
        if source is not None and source.suffix == ".ipynb":
            if page.locator('a[href$=".ipynb"]').count() == 0:
                problems.append("no .ipynb download link on a notebook page")
            if page.locator('a[href*="mybinder.org"]').count() == 0:
                problems.append("no Binder launch link on a notebook page")
        _check_links(page, base_url, built_site, problems)
        site_checks.wait_for_scripts(page, TIMEOUT_MS)
        _check_accessibility(page, problems, page_name)
        if site_checks.FIRST_FIGURE_PAGES.match(page_name):
            # a chapter shows a figure within its first two screens (test_reading.py plants a late one)
            page.set_viewport_size(site_checks.FIRST_FIGURE_VIEWPORT)
            site_checks.lay_out_everything(page)
            late = site_checks.first_figure_problem(page, page_name)
            if late:
                problems.append(late)

        if screenshot is not None:
            page.screenshot(path=str(screenshot), full_page=True)
        _check_phone_width(page, problems)
    finally:
        context.close()

    for url in dict.fromkeys(external):
        problems.insert(0, f"request to a non-local resource (not vendored?): {url}")
    unique = list(dict.fromkeys(problems))
    assert not unique, f"{page_name} ({base_url.split(':')[0]}): {len(unique)} problem(s):\n  " + "\n  ".join(unique)


#: Full-page screenshots of every page (1-7 s each on a long page, for a human to look at; no
#: check reads them) only when asked for: ``SEQRMT_SCREENSHOTS=1``.
TAKE_SCREENSHOTS = settings.flag("SEQRMT_SCREENSHOTS")


def _screenshot_name(page_name: str) -> str:
    return page_name.replace("/", "__").removeprefix("book__") + ".png"


@pytest.mark.parametrize("page_name", PAGES)
def test_page_works_offline(browser, site_url, built_site, built_slides, screenshot_dir, page_name) -> None:
    """The page served over http://127.0.0.1 with every other host blocked."""
    _check_page(
        browser,
        site_url,
        built_site,
        page_name,
        screenshot_dir / _screenshot_name(page_name) if TAKE_SCREENSHOTS else None,
    )


#: Every image, stylesheet and script of the page, by the URL the browser resolved (lazy images too,
#: before they are requested).
#: Resources named by a root-absolute path ("/_static/..."): they load over http but not from disk.
JS_ROOT_ABSOLUTE = """
() => Array.from(document.querySelectorAll('img[src], script[src], link[href], source[src], iframe[src]'))
  .map(e => e.getAttribute('src') || e.getAttribute('href'))
  .filter(u => u && u.startsWith('/'))
"""
JS_RESOURCE_URLS = """
() => [...Array.from(document.images).map(i => i.src),
       ...Array.from(document.querySelectorAll('link[rel~="stylesheet"][href], link[rel~="preload"][href]')).map(l => l.href),
       ...Array.from(document.querySelectorAll('script[src]')).map(e => e.src)]
  .filter(u => u && !u.startsWith('data:'))
"""
#: Images the browser fetched and could not decode.
JS_BROKEN_LOADED_IMAGES = """
() => Array.from(document.images).filter(img => img.complete && img.src && img.naturalWidth === 0)
  .map(img => (img.currentSrc || img.src).slice(0, 120))
"""


def _check_page_from_disk(browser, built_site: Path, page_name: str, plant: str | None = None) -> None:
    """Open one page as a ``file://`` URL and check what depends on how it is opened.

    The checks over http (:func:`_check_page`) hold for what does not: the same HTML, scripts and
    widget state give the same math, the same explorers and the same layout.  What a ``file://``
    page can break is loading: a script or a stylesheet the browser refuses or cannot find, a
    ``fetch`` that ``file://`` forbids, an absolute or wrong path to an image.  So here: no console
    error, uncaught exception or failed request; the math is typeset; the widget loader reports
    ``ready`` and renders every view, and the first slider of the first explorer changes its frame;
    every image, stylesheet and script the page names is a file of the site (checked on disk, the
    lazy images included, so nothing needs to scroll into view) and no fetched image fails to
    decode; no figure shows as text.
    ``plant``: JavaScript run right after the load (a planted defect, for the tests of this check)."""
    html = built_site / (page_name + ".html")
    assert html.is_file(), f"{html.relative_to(ROOT)} is missing: the build is stale"
    problems: list[str] = []
    external: list[str] = []
    context, page = _open_watched(
        browser, site_checks.FIRST_FIGURE_VIEWPORT, lambda url: urlsplit(url).scheme == "file", problems, external
    )
    try:
        page.goto(html.as_uri(), wait_until="load", timeout=TIMEOUT_MS)
        if plant:
            page.evaluate(plant)
        info = page.evaluate(JS_MATH_INFO)
        if info["count"] and info["mjx"] == 0:
            problems.append("page has math but no mjx-container")
        for t in info["untypeset"][:5]:
            problems.append(f"math not typeset: {t!r}")
        widgets = page.evaluate(JS_WIDGET_INFO)
        n_explorers = 0
        if widgets["hasState"]:
            page.evaluate("""() => { const v = document.querySelector(
                'script[type="application/vnd.jupyter.widget-view+json"]');
                if (v && v.parentElement) v.parentElement.scrollIntoView(); }""")
            try:
                page.wait_for_function(JS_WIDGETS_DONE, timeout=TIMEOUT_MS)
            except Exception:
                problems.append(f"widgets not loaded after {TIMEOUT_MS // 1000} s")
            widgets = page.evaluate(JS_WIDGET_INFO)
            if widgets["status"] != "ready":
                problems.append(f"widget loader status {widgets['status']!r} (expected 'ready')")
            if widgets["rendered"] < widgets["views"] or widgets["views"] < widgets["viewTags"]:
                problems.append(f"only {widgets['rendered']} of {widgets['viewTags']} widgets rendered")
            n_explorers = _check_explorers(page, problems, first_only=True)
        if CHAPTER_RE.match(page_name) and n_explorers == 0:
            problems.append("chapter page without a working kernel-free explorer")
        site = built_site.resolve()
        for url in dict.fromkeys(page.evaluate(JS_RESOURCE_URLS)):
            parts = urlsplit(url)
            if parts.scheme != "file":
                problems.append(f"a resource that is not a file of the site: {url[:120]}")
                continue
            target = Path(unquote(parts.path))
            if not target.is_file():
                problems.append(f"missing file: {url[:120]}")
            elif not target.resolve().is_relative_to(site):
                problems.append(f"a file outside the site: {url[:120]}")
        for src in page.evaluate(JS_BROKEN_LOADED_IMAGES):
            problems.append(f"image not decoded (naturalWidth 0): {src}")
        for text in page.evaluate(JS_FIGURE_REPRS):
            problems.append(f"a figure shows as text, not as an image: {text!r}")
    finally:
        context.close()
    for url in dict.fromkeys(external):
        problems.insert(0, f"request to a non-local resource (not vendored?): {url}")
    unique = list(dict.fromkeys(problems))
    assert not unique, f"{page_name} (file): {len(unique)} problem(s):\n  " + "\n  ".join(unique)


#: The pages opened from disk by ``pytest --every-chapter`` (the scheduled workflow): every page
#: with explorers or a Live code button (the introduction and the chapters) and one page of each
#: other kind (a notebook without explorers, a Markdown page, an API page, the bibliography).  The
#: rest are the same templates, scripts and stylesheets; what only a page of its own could break
#: from disk, a root-absolute path to a resource, the http check rejects on every page
#: (JS_ROOT_ABSOLUTE), and every file a page names is on disk (the link check of ``publish.py``).
DISK_PAGES = [p for p in PAGES if p == "book/intro" or re.match(r"^book/0[0-9]_", p)] + [
    p
    for p in ("book/appendix_derivations", "book/status", "book/glossary", "book/api/spectrum", "book/references")
    if p in PAGES
]
#: The merge gate's: the introduction, chapter 3 (the most explorers and figures) and one page of
#: each other kind.  The chapters differ from chapter 3 in their content, not in what opening a
#: page from disk changes (the widget loader, the scripts, the stylesheets, the paths), and what
#: their content could break is checked over http on every page, where each chapter's first figure
#: is measured too (:func:`_check_page`).
GATE_DISK_PAGES = ("book/intro", "book/03_bbp", "book/appendix_derivations", "book/glossary", "book/api/spectrum")


def gate_pages(config, pages: list[str], gate: tuple[str, ...]) -> list[str]:
    """The pages a check that the merge gate runs on a few pages runs on: all of ``pages`` with
    ``pytest --every-chapter`` (the scheduled workflow), else those of ``gate`` (the first page if
    none of ``gate`` is among them)."""
    if config.getoption("--every-chapter"):
        return list(pages)
    return [p for p in pages if p in gate] or list(pages[:1])


def pytest_generate_tests(metafunc) -> None:
    if metafunc.definition.name == "test_page_works_from_disk":
        metafunc.parametrize("page_name", gate_pages(metafunc.config, DISK_PAGES, GATE_DISK_PAGES))


def test_page_works_from_disk(browser, built_site, page_name) -> None:
    """The same page opened as a file:// URL (a reader who downloaded the site): what depends on
    the URL's scheme (:func:`_check_page_from_disk`)."""
    _check_page_from_disk(browser, built_site, page_name)


@contextlib.contextmanager
def _plain_page(browser, site_url: str, built_site: Path):
    """A short page of the site (the glossary), loaded over http, for the planted-defect tests."""
    page_name = "book/glossary" if (built_site / "book/glossary.html").is_file() else PAGES[0]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    try:
        page = context.new_page()
        page.goto(f"{site_url}/{page_name}.html", wait_until="load", timeout=TIMEOUT_MS)
        yield page
    finally:
        context.close()


def test_scroll_box_check_catches_a_box_without_a_tab_stop(browser, site_url, built_site) -> None:
    """A scroll box planted before the load event ends, with no tab stop inside, is reported by the
    at-load check, by its own test and by axe's scrollable-region rule; the page as built is not."""
    with _plain_page(browser, site_url, built_site) as page:
        assert site_checks.check_scroll_boxes_at_load(page, axe=True) == []
        page.evaluate("""() => { const box = document.createElement('div');
          box.id = 'planted-box'; box.style.cssText = 'overflow:auto;width:120px;height:40px';
          box.textContent = 'planted text that is far too long for this small box. '.repeat(20);
          document.querySelector('main').prepend(box); }""")
        found = site_checks.check_scroll_boxes_at_load(page, axe=True)
        assert len(found) == 2 and all("#planted-box" in f for f in found), found  # ours and axe's


def test_root_absolute_check_catches_a_planted_path(browser, site_url, built_site) -> None:
    """An image named by a root-absolute path (it loads over http, not from disk) is reported."""
    with _plain_page(browser, site_url, built_site) as page:
        assert page.evaluate(JS_ROOT_ABSOLUTE) == []
        page.evaluate("""() => { const img = document.createElement('img');
          img.setAttribute('src', '/_static/planted.png'); document.querySelector('main').append(img); }""")
        assert page.evaluate(JS_ROOT_ABSOLUTE) == ["/_static/planted.png"]


def test_disk_check_catches_a_missing_lazy_image(browser, built_site) -> None:
    """An image far down the page that is never scrolled to, whose file is missing, is caught."""
    plant = """() => { const img = document.createElement('img'); img.loading = 'lazy';
      img.src = '_images/planted-missing-figure.png'; img.alt = 'planted';
      document.querySelector('main').appendChild(img); }"""
    page_name = "book/glossary" if (built_site / "book/glossary.html").is_file() else PAGES[0]
    with pytest.raises(AssertionError, match="missing file: .*planted-missing-figure.png"):
        _check_page_from_disk(browser, built_site, page_name, plant=plant)


# ------------------------------------------------------------------ widget descriptions
#: The widget renderer (scripts/vendor_assets.sh); window.seqrmtWidgets.sanitize is the
#: sanitize-html stand-in on DOMPurify (seqrmt_book/src/sanitize-html.js).
WIDGETS_JS = ROOT / "seqrmt_book" / "static" / "seqrmt" / "vendor" / "widgets" / "seqrmt-widgets.js"
#: The allow-list @jupyter-widgets/base-manager cleans a description that allows HTML with.
DESCRIPTION_OPTIONS = {
    "allowedTags": ["a", "abbr", "b", "code", "em", "i", "img", "li", "ol", "span", "strong", "ul"],
    "allowedAttributes": {"*": ["aria-*", "class", "style", "title"], "a": ["href"], "img": ["src"]},
}
SANITIZED = [
    ('<b onclick="x()">bold</b><script>alert(1)</script>', "<b>bold</b>"),  # handlers, scripts
    ("<div><p>text</p></div>", "text"),  # a tag not allowed: its text kept
    ("<style>b{}</style><iframe src='x'></iframe><em>e</em>", "<em>e</em>"),  # dropped with content
    ("<svg><script>alert(1)</script></svg>z", "z"),
    ('<a href="javascript:alert(1)" title="t">x</a>', '<a title="t">x</a>'),  # unsafe URL
    ('<a href="https://example.org/" target="_blank">x</a>', '<a href="https://example.org/">x</a>'),
    ('<a src="x.png" href="rel/page.html">r</a>', '<a href="rel/page.html">r</a>'),  # src: img only
    ('<img src="data:image/png;base64,AAAA" alt="a">', '<img src="data:image/png;base64,AAAA">'),
    ('<img src="data:text/html;base64,AAAA">', "<img>"),  # data: images only
    ('<span aria-label="l" data-x="1" id="i" class="c">s</span>', '<span aria-label="l" class="c">s</span>'),
]


def test_widget_descriptions_are_sanitized_by_the_allow_list(browser) -> None:
    """Descriptions that allow HTML keep the allowed tags and attributes, lose scripts,
    handlers, unsafe URLs and other attributes, and keep the text of dropped tags."""
    page = browser.new_page()
    try:
        page.set_content("<!DOCTYPE html><html><head></head><body></body></html>")
        page.add_script_tag(path=str(WIDGETS_JS))
        out = page.evaluate(
            "([cases, options]) => cases.map((html) => window.seqrmtWidgets.sanitize(html, options))",
            [[html for html, _ in SANITIZED], DESCRIPTION_OPTIONS],
        )
    finally:
        page.close()
    assert list(zip([html for html, _ in SANITIZED], out)) == SANITIZED
