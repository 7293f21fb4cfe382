"""Every chapter shows a figure early: its first figure lies within its first two screens.

A reader who opens a chapter at 1280×800 should meet what the chapter shows (an image or an
explorer) within the first two screens, 1,600 CSS pixels from the top of the page.  The
position is measured in the laid-out page with the sections' ``content-visibility`` turned off
(``site.css`` lets the browser skip the layout of far sections, whose placeholder heights
would otherwise misplace what follows them), once the fonts and images have settled.

A figure is a content image of the article (an ``<img>`` at least 100 px wide, the code
cells' figures and the markdown images) or a widget output (the explorers, rendered or still
waiting for their renderer).  A late figure is planted in one chapter (a two-screen block
inserted at the top of its article) and must be caught.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from test_site import PAGES, TIMEOUT_MS

pytestmark = pytest.mark.browser

CHAPTERS = [p for p in PAGES if re.match(r"^book/0[0-9]_", p)]
VIEWPORT = {"width": 1280, "height": 800}
#: The first two screens of a page at 1280×800.
LIMIT_PX = 2 * VIEWPORT["height"]

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

JS_PLANT = """
(limit) => {
  // a two-screen block of text at the top of the article pushes every figure down
  const main = document.querySelector('article.bd-article') || document.body;
  const spacer = document.createElement('div');
  spacer.style.height = limit + 'px';
  spacer.textContent = 'planted text that pushes the figures down';
  main.insertBefore(spacer, main.firstChild);
  return true;
}
"""


def _open(browser, site_url: str, page_name: str):
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.route("**/*", lambda r: r.continue_() if urlsplit(r.request.url).hostname == "127.0.0.1"
                  else r.abort("blockedbyclient"))
    page = context.new_page()
    page.goto(f"{site_url}/{page_name}.html", wait_until="load", timeout=TIMEOUT_MS)
    page.add_style_tag(content="* { content-visibility: visible !important; }")
    page.evaluate("() => document.fonts ? document.fonts.ready : null")
    page.evaluate("() => window.scrollTo(0, 0)")
    return context, page


def first_figure(page) -> dict | None:
    """The first figure of the page: ``{kind, what, top}`` (top in CSS px from the page top)."""
    return page.evaluate(JS_FIRST_FIGURE)


@pytest.mark.parametrize("page_name", CHAPTERS)
def test_first_figure_within_two_screens(browser, site_url, page_name):
    context, page = _open(browser, site_url, page_name)
    try:
        fig = first_figure(page)
        assert fig is not None, f"{page_name}: no figure or explorer at all"
        assert fig["top"] < LIMIT_PX, (
            f"{page_name}: the first figure ({fig['kind']}: {fig['what']}) starts at {fig['top']:.0f} px, "
            f"below the first two screens ({LIMIT_PX} px at 1280×800)")
    finally:
        context.close()


def test_a_planted_late_figure_is_caught(browser, site_url, built_site):
    page_name = next(p for p in CHAPTERS if (built_site / f"{p}.html").is_file())
    context, page = _open(browser, site_url, page_name)
    try:
        before = first_figure(page)
        assert before is not None
        assert page.evaluate(JS_PLANT, LIMIT_PX)
        after = first_figure(page)
        assert after is not None and after["top"] >= LIMIT_PX, (before, after)
    finally:
        context.close()
