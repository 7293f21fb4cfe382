"""End-to-end check of the lecture slides (reveal.js decks) in headless Chromium.

The decks are built by ``scripts/build_slides.py`` into ``_build/html/slides/``.  They are
(re)built first if that folder is missing a deck or is older than any of its sources
(``slides/``, ``seqrmt/``, the build script, the vendored reveal.js and MathJax), or if
``SEQRMT_REBUILD=1``; with ``SEQRMT_REBUILD=0`` a stale build is a failure instead.

Every deck is opened **from disk** (``file://``), as an offline reader would, and every
request that is not a local file is aborted and reported (a CDN request means an asset
is not vendored).  Per deck it checks

* no console errors, no uncaught exceptions, no failed or aborted requests;
* reveal.js started and the deck has at least 8 slides (and as many as the build wrote);
* MathJax typeset every formula (each ``.math`` element holds an ``mjx-container``, no
  TeX error and no undefined macro) and no raw TeX delimiters are left in the text;
* at least two figures, every ``<img>`` loaded (``naturalWidth > 0``) with an alt text;
* the keyboard moves to the next slide.

The index page must link to every deck and to the book.  A screenshot of each deck's
first figure slide is saved to ``_build/artifacts/screenshots/slides-<deck>.png``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SLIDES_SRC = ROOT / "slides"
OUT = ROOT / "_build" / "html" / "slides"
TIMEOUT_MS = 60_000
DECKS = sorted(p.stem for p in SLIDES_SRC.glob("[0-9]*.ipynb"))


def _open(browser, url: str):
    """A page on ``url`` that records console errors, exceptions and non-local requests."""
    problems: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()

    def route(r):
        if r.request.url.startswith(("file://", "data:")):
            r.continue_()
        else:
            problems.append(f"request to another host (blocked): {r.request.url}")
            r.abort()

    context.route("**/*", route)
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"uncaught exception: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url} ({r.failure})"))
    page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
    return context, page, problems


@pytest.mark.parametrize("deck", DECKS)
def test_deck_works_offline(browser, built_slides, screenshot_dir, deck) -> None:
    expected = json.loads((built_slides / "build.json").read_text())[deck]["slides"]
    context, page, problems = _open(browser, (built_slides / f"{deck}.html").as_uri())
    try:
        page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=TIMEOUT_MS)
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=TIMEOUT_MS)
        page.evaluate("() => MathJax.startup.promise")
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.math')).every(e => e.querySelector('mjx-container'))",
            timeout=TIMEOUT_MS,
        )
        total = page.evaluate("() => Reveal.getTotalSlides()")
        assert total >= 8, f"{deck}: {total} slides, at least 8 required"
        assert total == expected, f"{deck}: reveal.js shows {total} slides, the build wrote {expected}"

        math = page.evaluate("""() => ({
            n: document.querySelectorAll('.math').length,
            typeset: document.querySelectorAll('.math mjx-container').length,
            // a TeX error is an <merror>; an undefined macro is red text (noundefined extension)
            errors: MathJax.startup.document.getMathItemsWithin(document.body)
                .filter(m => /<merror|mathcolor="red"/.test(MathJax.startup.toMML(m.root))).length,
            text: document.querySelector('.slides').innerText})""")
        assert math["n"] > 0, f"{deck}: no math on the slides"
        assert math["typeset"] >= math["n"], f"{deck}: {math['n'] - math['typeset']} formulas not typeset"
        assert math["errors"] == 0, f"{deck}: {math['errors']} MathJax errors"
        for raw in ("$$", "\\(", "\\[", "\\frac"):
            assert raw not in math["text"], f"{deck}: raw TeX {raw!r} left in the slide text"

        imgs = page.evaluate("""() => Array.from(document.querySelectorAll('.slides img')).map(i => ({
            ok: i.complete && i.naturalWidth > 0, alt: i.getAttribute('alt') || ''}))""")
        assert len(imgs) >= 2, f"{deck}: {len(imgs)} figures, at least 2 required"
        assert all(i["ok"] for i in imgs), f"{deck}: {sum(not i['ok'] for i in imgs)} images did not load"
        assert all(len(i["alt"].split()) >= 5 for i in imgs), f"{deck}: an image without alt text"

        page.locator(".reveal").click(position={"x": 5, "y": 400})
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => Reveal.getIndices().h === 1", timeout=TIMEOUT_MS)

        first_fig = page.evaluate("""() => Array.from(document.querySelectorAll('.slides > section'))
            .findIndex(s => s.querySelector('img'))""")
        page.evaluate(f"() => Reveal.slide({first_fig})")
        # two animation frames: the slide laid out and painted before the screenshot
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        page.screenshot(path=str(screenshot_dir / f"slides-{deck}.png"))
    finally:
        context.close()
    assert not problems, f"{deck}:\n" + "\n".join(problems)


def test_index_lists_every_deck(browser, built_slides) -> None:
    context, page, problems = _open(browser, (built_slides / "index.html").as_uri())
    try:
        hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))")
    finally:
        context.close()
    assert not problems, "\n".join(problems)
    missing = [d for d in DECKS if f"{d}.html" not in hrefs]
    assert not missing, f"index.html does not link to {missing}"
    for h in hrefs:
        assert (built_slides / h).exists() or h.startswith("../"), f"index.html links to a missing {h}"
    assert "../book/intro.html" in hrefs, "index.html does not link back to the book"
