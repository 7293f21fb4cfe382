"""Self-check questions, reference previews, editions and keyboard access, in the built site.

* Every chapter has at least three self-check questions (``.self-check``) that work in the
  page without a kernel: answered right, each says so in its live region
  (``role="status"``, ``aria-live="polite"``).
* Every question of chapter 0 is answered right and wrong with the keyboard only (typing
  and Enter; arrow keys on the radio buttons): each misconception gets its own
  explanation, any other number the general one, text that is not a number a request for
  a number, each option of a choice the explanation written for it.
* At a phone's width and in dark mode the questions fit the column, and axe-core (with
  colour contrast) finds nothing serious in them, answered.
* Previews: every link to a numbered statement, exercise or equation carries a preview
  whose script exists; on every chapter, focusing such a link shows the statement typeset
  (``role="tooltip"``, named by the link's ``aria-describedby``) and Escape dismisses it;
  hovering shows it too, and it stays while the pointer is over it.
* Right after load (before any scrolling lays out the page), axe-core finds no scrollable
  region that the keyboard cannot reach (``scrollable-region-focusable``) on any page.
* Every page's footer gives the edition, the version of ``pyproject.toml``, the build date,
  the date the page last changed and keeps the "open an issue" link; the status page lists
  each chapter's execution and the package versions.

Every request to another host is aborted and reported, as in ``test_site.py``.
"""

from __future__ import annotations

import functools
import posixpath
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import site_checks
from test_site import PAGES, TIMEOUT_MS, gate_pages

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = [p for p in PAGES if re.match(r"^book/0[0-9]_", p)]
KEYBOARD_CHAPTER = "book/00_toolkit"

JS_READY = "() => document.documentElement.getAttribute('data-seqrmt-selfcheck') === 'ready'"

JS_QUESTIONS = """
() => Array.from(document.querySelectorAll('.self-check')).map(q => {
  const result = q.querySelector('.self-check-result');
  const fb = Array.from(q.querySelectorAll('.self-check-feedback')).map(f => ({
    key: f.getAttribute('data-for'), value: f.getAttribute('data-value'),
    hidden: f.hidden, text: f.textContent.replace(/\\s+/g, ' ').trim()}));
  const input = q.querySelector('input.self-check-input');
  // the answer is not in the page in plain form: the page's own check finds it
  const options = Array.from(q.querySelectorAll('input[type=radio]')).map(r => r.value);
  const answer = q.getAttribute('data-kind') === 'number' ? String(window.seqrmtSelfCheck.sealed(q).answer)
                 : options.find(v => window.seqrmtSelfCheck.isRight(q, v));
  return {id: q.id, kind: q.getAttribute('data-kind'), answer: answer,
          tolerance: parseFloat(q.getAttribute('data-tolerance')),
          ready: q.getAttribute('data-ready') === 'true',
          live: result ? [result.getAttribute('role'), result.getAttribute('aria-live')] : null,
          labelled: input ? !!document.querySelector(`label[for="${input.id}"]`)
                          : !!q.querySelector('fieldset > legend'),
          options: Array.from(q.querySelectorAll('input[type=radio]')).map(r => r.value),
          unlabelledOptions: Array.from(q.querySelectorAll('input[type=radio]'))
              .filter(r => !document.querySelector(`label[for="${r.id}"]`)).length,
          feedback: fb};
})
"""

JS_RESULT = """
(id) => { const r = document.getElementById(id).querySelector('.self-check-result');
          return {text: r.textContent.replace(/\\s+/g, ' ').trim(),
                  state: document.getElementById(id).getAttribute('data-state')}; }
"""


def _open(browser, site_url: str, page_name: str, problems: list[str], **context_args):
    """A page of the site with every other host blocked; returns (context, page)."""
    context = browser.new_context(service_workers="block", **context_args)

    def route(r) -> None:
        if urlsplit(r.request.url).hostname == "127.0.0.1":
            r.continue_()
        else:
            problems.append(f"request to a non-local resource: {r.request.url}")
            r.abort("blockedbyclient")

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"uncaught exception: {e}"))
    page.goto(f"{site_url}/{page_name}.html", wait_until="load", timeout=TIMEOUT_MS)
    return context, page


def _answer_number(page, qid: str, text: str) -> dict:
    field = page.locator(f"#{qid} input.self-check-input")
    field.scroll_into_view_if_needed()
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(id) => document.getElementById(id).hasAttribute('data-state')", arg=qid, timeout=TIMEOUT_MS
    )
    return page.evaluate(JS_RESULT, qid)


def _answer_choice(page, qid: str, index: int) -> dict:
    first = page.locator(f"#{qid} input[type=radio]").first
    first.scroll_into_view_if_needed()
    first.focus()
    page.keyboard.press("Space")
    for _ in range(index):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(id) => document.getElementById(id).hasAttribute('data-state')", arg=qid, timeout=TIMEOUT_MS
    )
    return page.evaluate(JS_RESULT, qid)


def _right_answer(page, q: dict) -> dict:
    if q["kind"] == "number":
        return _answer_number(page, q["id"], q["answer"])
    return _answer_choice(page, q["id"], q["options"].index(q["answer"]))


def _check_self_checks(page, problems: list[str]) -> None:
    """At least three self-checks, set up, labelled, with polite live results and hidden
    explanations; each right answer, entered with the keyboard, is marked right."""
    page.wait_for_function(JS_READY, timeout=TIMEOUT_MS)
    questions = page.evaluate(JS_QUESTIONS)
    if len(questions) < 3:
        problems.append(f"{len(questions)} self-check question(s), at least 3 wanted")
    for q in questions:
        where = f"{q['id']} ({q['kind']})"
        if not q["ready"]:
            problems.append(f"{where}: not set up by selfcheck.js")
        if q["live"] != ["status", "polite"]:
            problems.append(f"{where}: result region {q['live']} is not a polite status live region")
        if not q["labelled"] or q["unlabelledOptions"]:
            problems.append(f"{where}: a control without a label")
        if not all(f["hidden"] for f in q["feedback"]):
            problems.append(f"{where}: an explanation is visible before any answer")
        result = _right_answer(page, q)
        if result["state"] != "right" or not result["text"].startswith("Right"):
            problems.append(f"{where}: the right answer {q['answer']!r} gave {result}")


def test_one_chapter_right_and_wrong_with_the_keyboard(browser, site_url) -> None:
    """Every question of one chapter: every wrong answer, then the right one."""
    problems: list[str] = []
    context, page = _open(browser, site_url, KEYBOARD_CHAPTER, problems, viewport={"width": 1280, "height": 900})
    checked = 0
    try:
        page.wait_for_function(JS_READY, timeout=TIMEOUT_MS)
        for q in page.evaluate(JS_QUESTIONS):
            fb = {f["key"]: f for f in q["feedback"]}
            where = q["id"]
            if q["kind"] == "number":
                answer, tol = float(q["answer"]), q["tolerance"]
                for f in q["feedback"]:
                    if f["value"]:
                        r = _answer_number(page, where, repr(float(f["value"])))
                        checked += 1
                        if r["state"] != "wrong" or f["text"] not in r["text"]:
                            problems.append(
                                f"{where}: the misconception {f['key']} = {f['value']} did not get its explanation: {r}"
                            )
                r = _answer_number(page, where, repr(answer + 10 * tol + 1))
                checked += 1
                if r["state"] != "wrong" or "too large" not in r["text"] or fb["otherwise"]["text"] not in r["text"]:
                    problems.append(f"{where}: another wrong number: {r}")
                r = _answer_number(page, where, "twelve")
                checked += 1
                if r["state"] != "invalid" or "enter a number" not in r["text"]:
                    problems.append(f"{where}: text that is not a number: {r}")
                if page.locator(f"#{where} input.self-check-input").get_attribute("aria-invalid") != "true":
                    problems.append(f"{where}: the field is not marked aria-invalid after text")
                r = _answer_number(page, where, f"{answer + tol / 2:.12g}")
                checked += 1
                if (
                    r["state"] != "right"
                    or q["feedback"]
                    and "correct" in fb
                    and fb["correct"]["text"] not in r["text"]
                ):
                    problems.append(f"{where}: an answer within the tolerance: {r}")
            else:
                for i, option in enumerate(q["options"]):
                    r = _answer_choice(page, where, i)
                    checked += 1
                    want = "right" if option == q["answer"] else "wrong"
                    if r["state"] != want or fb[option]["text"] not in r["text"]:
                        problems.append(f"{where}: option {option!r} gave {r} (expected {want} with its explanation)")
    finally:
        context.close()
    assert checked >= 9, f"only {checked} answers checked on {KEYBOARD_CHAPTER}"
    assert not problems, "\n  ".join(problems)


JS_FITS = """
() => ({page: document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth + 1,
        boxes: Array.from(document.querySelectorAll('.self-check'))
          .filter(q => q.scrollWidth > q.clientWidth + 1 || q.getBoundingClientRect().right > innerWidth + 1)
          .map(q => q.id)})
"""

JS_AXE_SELFCHECK = """
async () => {
  const res = await axe.run({include: [['.self-check']]},
      {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
       preload: false, resultTypes: ['violations']});
  return res.violations.filter(v => v.impact === 'critical' || v.impact === 'serious')
    .map(v => `${v.id} on ${v.nodes.length} node(s): ${v.nodes.slice(0, 2).map(n => n.target.join(' ')).join('; ')}`);
}
"""


def test_self_checks_at_phone_width_light_and_dark(browser, site_url) -> None:
    """Answered at 390 px, the questions fit the column; axe finds nothing serious in them in the
    light theme, then in the dark one (the same answered page, its theme and the OS setting
    switched: the layout does not depend on the theme)."""
    problems: list[str] = []
    context, page = _open(
        browser,
        site_url,
        KEYBOARD_CHAPTER,
        problems,
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        color_scheme="light",
    )
    try:
        page.wait_for_function(JS_READY, timeout=TIMEOUT_MS)
        for q in page.evaluate(JS_QUESTIONS):
            _right_answer(page, q)
        fits = page.evaluate(JS_FITS)
        if not fits["page"] or fits["boxes"]:
            problems.append(f"at 390 px the questions do not fit: {fits}")
        page.add_script_tag(path=str(site_checks.AXE_JS))
        for mode in ("light", "dark"):
            page.emulate_media(color_scheme=mode)
            page.evaluate(
                f"() => {{ document.documentElement.dataset.theme = '{mode}'; "
                f"document.documentElement.dataset.mode = '{mode}'; }}"
            )
            problems += [f"axe ({mode}): {v}" for v in page.evaluate(JS_AXE_SELFCHECK)]
    finally:
        context.close()
    assert not problems, "\n  ".join(problems)


# ------------------------------------------------------------------ previews
from seqrmt_book import previews as seqrmt_previews
from seqrmt_book import typeset

_REF = re.compile(r'<a class="(seqrmt-has-preview )?reference internal" href="([^"#]*)#([^"]+)"')


#: The opening tag of a ``<div>`` with an id, as Sphinx writes it (attributes in double quotes).
_DIV = re.compile(r"<div\b([^>]*)>")
_ATTR = re.compile(r'([a-z-]+)="([^"]*)"')


@functools.lru_cache(maxsize=None)
def _div_classes(page: str) -> dict[str, list[str]]:
    """The classes of every ``<div>`` of a page by its id (a scan of the opening tags: the
    pages are Sphinx's output, where the div of a statement, an exercise or an equation carries
    its id and classes in its own tag)."""
    found: dict[str, list[str]] = {}
    for m in _DIV.finditer(page):
        attrs = dict(_ATTR.findall(m.group(1)))
        if "id" in attrs:
            found.setdefault(attrs["id"], attrs.get("class", "").split())
    return found


def _previewable(page: str, element_id: str) -> bool:
    """Whether the element with this id is a statement, an exercise or a numbered equation."""
    classes = _div_classes(page).get(element_id)
    if classes is None:
        return False
    return ("admonition" in classes and any(k in classes for k in seqrmt_previews.KINDS)) or (
        "math" in classes and element_id.startswith("equation-")
    )


def test_every_statement_reference_has_a_preview(built_site) -> None:
    """Links to statements, exercises and numbered equations carry a preview whose script
    exists, with typeset math and nothing focusable; links elsewhere carry none."""
    pages = {
        p.relative_to(built_site).as_posix(): p.read_text(encoding="utf-8") for p in typeset.site_pages(built_site)
    }
    problems, marked = [], 0
    for rel, text in pages.items():
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        for m in _REF.finditer(text):
            target = (f"{folder}/{m.group(2)}" if folder else m.group(2)) if m.group(2) else rel
            target = posixpath.normpath(target)  # "book/api/../02_bulk.html"
            if not _previewable(pages.get(target, ""), m.group(3)):
                if m.group(1):
                    problems.append(f"{rel}: a preview on a link to {target}#{m.group(3)}, not a statement")
                continue
            if not m.group(1):
                problems.append(f"{rel}: no preview on the link to {target}#{m.group(3)}")
                continue
            marked += 1
            key = f"{target}#{m.group(3)}"
            script = built_site / seqrmt_previews.FOLDER / seqrmt_previews.file_name(key)
            if not script.is_file():
                problems.append(f"{rel}: no preview script {script.name}")
                continue
            body = script.read_text(encoding="utf-8")
            if "\\\\(" in body or "$$" in body:
                problems.append(f"{script.name}: raw TeX in the preview")
            if re.search(r"<(a|input|button)\b|tabindex=", body):
                problems.append(f"{script.name}: something focusable in the preview")
    assert marked >= 50, f"only {marked} previewed references in the site"
    assert not problems, f"{len(problems)} problem(s):\n  " + "\n  ".join(problems[:20])


JS_TIP = """
() => { const t = document.getElementById('seqrmt-preview');
        if (!t) return null;
        return {visible: !t.hidden && t.getBoundingClientRect().height > 0, role: t.getAttribute('role'),
                math: t.querySelectorAll('mjx-container').length,
                mathml: t.querySelectorAll('mjx-assistive-mml').length,
                text: t.textContent.slice(0, 200),
                rawTex: /\\\\\\(|\\\\\\[|\\$\\$/.test(t.textContent.replace(/<[^>]*>/g, '')),
                right: t.getBoundingClientRect().right, width: document.documentElement.clientWidth}; }
"""


#: Up to two previewed links of the article that a reader sees (not in a closed solution,
#: a hidden explanation or a collapsed cell), marked data-test-preview.
JS_PICK_LINKS = """
() => {
  const shown = Array.from(document.querySelectorAll('main article a.seqrmt-has-preview'))
    .filter(a => !a.closest('[hidden], details:not([open]), .toggle-hidden, .self-check-feedback'))
    .filter(a => getComputedStyle(a).visibility !== 'hidden');
  shown.slice(0, 2).forEach((a, i) => a.setAttribute('data-test-preview', String(i)));
  return Math.min(shown.length, 2);
}
"""


def _check_previews(page, problems: list[str]) -> None:
    """The previews of statement references: with the keyboard (focus shows a typeset tooltip that
    describes the link, Escape dismisses it) and with the pointer (hover shows it, it stays while
    the pointer is over it, leaving hides it)."""
    page.wait_for_function("() => window.seqrmtWatchScrollable !== undefined", timeout=TIMEOUT_MS)
    n_links = page.evaluate(JS_PICK_LINKS)
    links = page.locator("main a[data-test-preview]")
    if n_links == 0:
        problems.append("no previewed reference on the page")
    else:
        # keyboard: focus shows the preview, typeset, described by it; Escape dismisses it
        link = links.first
        link.scroll_into_view_if_needed()
        page.keyboard.press("Shift+Tab")
        link.focus()
        page.wait_for_function(
            "() => { const t = document.getElementById('seqrmt-preview'); return t && !t.hidden; }", timeout=TIMEOUT_MS
        )
        tip = page.evaluate(JS_TIP)
        if tip["role"] != "tooltip" or not tip["visible"]:
            problems.append(f"focus: the preview is not a visible tooltip: {tip}")
        if link.get_attribute("aria-describedby") != "seqrmt-preview":
            problems.append("focus: the link is not described by the preview")
        key = link.evaluate(
            "(a) => { const root = new URL(document.documentElement.getAttribute("
            "'data-content_root') || './', location.href); const u = new URL("
            "a.getAttribute('href'), location.href); return decodeURIComponent("
            "u.pathname.slice(root.pathname.length)) + u.hash; }"
        )
        wants_math = "equation-" in key or page.evaluate(
            "(k) => /mjx-container/.test((window.seqrmtPreviews || {})[k] || '')", key
        )
        if wants_math and (not tip["math"] or tip["math"] != tip["mathml"]):
            problems.append(f"focus: the preview's math is not typeset with its MathML: {tip}")
        if tip["rawTex"]:
            problems.append(f"focus: raw TeX in the preview: {tip['text']!r}")
        if tip["right"] > tip["width"] + 1:
            problems.append(f"the preview overflows the window: {tip}")
        page.keyboard.press("Escape")
        if page.evaluate(JS_TIP)["visible"]:
            problems.append("Escape did not dismiss the preview")
        if link.get_attribute("aria-describedby"):
            problems.append("the link is still described by a dismissed preview")
        # pointer: hover shows it, it stays while the pointer is over it, leaving hides it
        other = links.nth(min(1, links.count() - 1))
        other.scroll_into_view_if_needed()
        other.hover()
        page.wait_for_function(
            "() => { const t = document.getElementById('seqrmt-preview'); return t && !t.hidden; }", timeout=TIMEOUT_MS
        )
        # the page's timers on a clock the test moves: past the hide delay at once, no waiting
        page.clock.install()
        page.locator("#seqrmt-preview").hover()
        page.clock.run_for(400)  # longer than the hide delay (250 ms): it must still be there
        if not page.evaluate(JS_TIP)["visible"]:
            problems.append("the preview disappeared while the pointer was over it")
        page.mouse.move(2, 2)
        page.wait_for_function("() => document.getElementById('seqrmt-preview').hidden", timeout=TIMEOUT_MS)


#: The chapters whose first previewed reference the merge gate opens with the keyboard and the
#: pointer (``pytest --every-chapter``, the scheduled workflow, opens one on every chapter): the
#: previews are one script on every page, and what a chapter's own previews hold (a typeset
#: statement, an equation) is checked for every reference without a browser
#: (:func:`test_every_statement_reference_has_a_preview`).  The three open references within their
#: page and to another page, to theorems and to a definition.
GATE_PREVIEW_CHAPTERS = ("book/00_toolkit", "book/03_bbp", "book/07_how_exact")


@pytest.mark.parametrize("page_name", CHAPTERS)
def test_self_checks_and_previews(browser, site_url, page_name, request) -> None:
    """Each chapter's self-checks work (:func:`_check_self_checks`), and its previews
    (:func:`_check_previews`) on the chapters of :data:`GATE_PREVIEW_CHAPTERS` (every chapter with
    ``--every-chapter``), on one visit of the page."""
    problems: list[str] = []
    context, page = _open(browser, site_url, page_name, problems, viewport={"width": 1280, "height": 900})
    try:
        if page_name in gate_pages(request.config, CHAPTERS, GATE_PREVIEW_CHAPTERS):
            _check_previews(page, problems)
        _check_self_checks(page, problems)
    finally:
        context.close()
    assert not problems, f"{page_name}:\n  " + "\n  ".join(problems)


# ------------------------------------------------------------------ editions and status
def test_footer_edition_version_and_dates(built_site) -> None:
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    problems = []
    for page_name in PAGES:
        text = (built_site / f"{page_name}.html").read_text(encoding="utf-8")
        m = re.search(r'<p class="seqrmt-edition">(.*?)</p>', text, re.S)
        if not m:
            problems.append(f"{page_name}: no edition line in the footer")
            continue
        line = re.sub(r"<[^>]+>", "", m.group(1))
        if f"version {version}," not in line or not re.search(r"built \d{4}-\d{2}-\d{2}", line):
            problems.append(f"{page_name}: footer {line!r} lacks version {version} or the build date")
        if "changes.html" not in m.group(1) and page_name != "book/changes":
            problems.append(f"{page_name}: the footer does not link the editions page")
        if not re.search(r"Last updated on\s*\d{4}-\d{2}-\d{2}", re.sub(r"<[^>]+>", " ", text)):
            problems.append(f"{page_name}: no 'Last updated on <date>'")
        if "btn-source-issues-button" not in text:
            problems.append(f"{page_name}: no 'open an issue' link")
    assert not problems, "\n  ".join(problems)


def test_editions_and_status_pages(built_site) -> None:
    from importlib import metadata

    changes = re.sub(r"<[^>]+>", " ", (built_site / "book" / "changes.html").read_text(encoding="utf-8"))
    for title in ("Third edition", "Second edition", "First edition"):
        assert title in changes, f"the editions page lacks {title!r}"
    status = (built_site / "book" / "status.html").read_text(encoding="utf-8")
    plain = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", status))
    for chapter in CHAPTERS:
        name = chapter.split("/")[-1]
        assert re.search(rf"{re.escape(name)}\S* \S+ \S+ (cache|auto|force) [0-9.]+ ✅", plain), (
            f"the status page has no successful execution row for {name}"
        )
    for pkg in ("numpy", "scipy", "jupyter-book"):
        assert f"{pkg} {metadata.version(pkg)}" in plain, f"the status page lacks {pkg}'s version"
