"""Every chapter shows a figure early: its first figure lies within its first two screens.

The measure (:func:`site_checks.first_figure_problem`) runs inside each chapter's http check
(``test_site.py::test_page_works_offline``, on the page that check has open); this file plants a
late figure and requires the measure to catch it.

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

from urllib.parse import urlsplit

import pytest

import site_checks
from test_site import PAGES, TIMEOUT_MS

pytestmark = pytest.mark.browser

CHAPTERS = [p for p in PAGES if site_checks.FIRST_FIGURE_PAGES.match(p)]
VIEWPORT = site_checks.FIRST_FIGURE_VIEWPORT
LIMIT_PX = site_checks.FIRST_FIGURE_LIMIT_PX
first_figure = site_checks.first_figure

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
    context.route(
        "**/*",
        lambda r: r.continue_() if urlsplit(r.request.url).hostname == "127.0.0.1" else r.abort("blockedbyclient"),
    )
    page = context.new_page()
    page.goto(f"{site_url}/{page_name}.html", wait_until="load", timeout=TIMEOUT_MS)
    site_checks.lay_out_everything(page)
    return context, page


def test_a_planted_late_figure_is_caught(browser, site_url, built_site):
    page_name = next(p for p in CHAPTERS if (built_site / f"{p}.html").is_file())
    context, page = _open(browser, site_url, page_name)
    try:
        before = first_figure(page)
        assert before is not None
        assert page.evaluate(JS_PLANT, LIMIT_PX)
        after = first_figure(page)
        assert after is not None and after["top"] >= LIMIT_PX, (before, after)
        assert site_checks.first_figure_problem(page, page_name) is not None
    finally:
        context.close()
