"""The "Live code" button of the chapter pages, in headless Chromium, against a kernel.

``python -m seqrmt.live`` serves the built book and starts a Jupyter server (the fixture
``live_server``: one per test run, shared by the pytest-xdist workers, since starting it takes
about 20 s; the first worker that needs it starts it under a file lock, the last one that
leaves stops it, see :func:`shared_live_server`).  Every test opens its page in a browser
context of its own and presses the button, which starts a kernel of its own for that page,
so the tests stay independent.  On every chapter page the test

* checks that loading the page requested nothing of thebe and nothing from another host;
* presses the button with the mouse, waits for the kernel (state ``ready`` of
  ``.seqrmt-livecode``), types code into the first code cell (now an editor) and runs it with
  the cell's run button, then finds the printed number and the figure in that cell's output.

On one chapter the same is done with the keyboard only (Tab to the button, Enter, Tab into
the editor, Shift+Enter).  On one chapter a ``live()`` explorer is run in the kernel and its
slider moved: the figure changes.  Against the static server (no local kernel) the button
asks mybinder.org: a waiting message, then a clear error when Binder cannot be reached
(every non-local request is blocked here).  ``test_download_is_the_standalone_notebook``
checks that the theme's download button serves the chapter's notebook byte for byte, the
file that ``tests/test_standalone_*.py`` runs on its own.

Every request to another host is blocked and reported; waits are on conditions.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from test_site import gate_pages

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted(f"book/{p.stem}" for p in (ROOT / "book").glob("0[0-9]_*.ipynb"))
KERNEL_TIMEOUT_MS = 180_000  # kernel start and the chapter's imports on a loaded machine
RUN_TIMEOUT_MS = 180_000
#: Code typed at the end of the first code cell: a number computed by seqrmt and a figure.
TYPED = (
    "import matplotlib.pyplot as plt",
    "print('live kappa =', sr.kappa(sr.mean_weights(8)))",
    "plt.plot([0, 1], [0, 1]); plt.show()",
)
PRINTED = "live kappa = 0.125"
LIVE_STATE = "() => document.querySelector('.seqrmt-livecode').getAttribute('data-seqrmt-livecode')"


#: Where the workers of one test run find the shared server (one state file per run).
LIVE_DIR = ROOT / "_build" / "live-server"
RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
START_TIMEOUT_S = 120
#: How long to wait on the starting server's process between two reads of its log.
LOG_READ_S = 0.2


def _alive(pid: object) -> bool:
    """Whether ``pid`` runs.  A zombie does not: the server started by the other worker, once
    stopped, stays a zombie until that worker reaps it, and must not be waited for."""
    if not isinstance(pid, int) or pid <= 0:  # never 0 or -1: a whole process group
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc (not Linux): signal 0 is all we know
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _start(built_site: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """Start ``python -m seqrmt.live`` (its own session, output into ``log``); its book URL."""
    cmd = [
        sys.executable,
        "-m",
        "seqrmt.live",
        "--no-browser",
        "--port",
        "0",
        "--book",
        str(built_site),
        "--root",
        str(ROOT),
    ]
    with open(log, "w") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))},
        )
    # Wait for the line "Book: <url>" in its log: between two reads of the log, wait on the process
    # itself (proc.wait returns at once when it exits), never a fixed sleep.
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if line.startswith("Book:"):
                return proc, line.split()[1].rsplit("/", 1)[0]
        try:
            proc.wait(timeout=LOG_READ_S)
            break  # exited without serving the book
        except subprocess.TimeoutExpired:
            pass
    _stop(proc.pid, proc)
    pytest.fail(f"python -m seqrmt.live did not start:\n{log.read_text()[-3000:]}", pytrace=False)


def _stop(pid: int, proc: subprocess.Popen | None) -> None:
    """SIGTERM (seqrmt.live then stops its Jupyter server), SIGKILL after 30 s."""
    if not _alive(pid):
        return
    os.kill(pid, signal.SIGTERM)
    if proc is not None:  # our own child: wait for it (no zombie left)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return
    if not _exited_within(pid, 30):
        os.kill(pid, signal.SIGKILL)


def _exited_within(pid: int, timeout_s: float) -> bool:
    """Wait until the process ``pid`` (not a child of this one) exits, at most ``timeout_s``, on a
    pidfd, which becomes readable when the process exits (a zombie too).  Without pidfds (not Linux)
    there is nothing to wait on: the answer is whether it has exited already."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return not _alive(pid)
    try:
        ready, _, _ = select.select([fd], [], [], timeout_s)
    finally:
        os.close(fd)
    return bool(ready) or not _alive(pid)


@contextlib.contextmanager
def _state_lock() -> Iterator[Path]:
    LIVE_DIR.mkdir(parents=True, exist_ok=True)
    with open(LIVE_DIR / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield LIVE_DIR / f"{RUN_ID}.json"
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def shared_live_server(built_site: Path) -> Iterator[str]:
    """One ``python -m seqrmt.live`` for every worker of this test run; its book's base URL.

    The state file ``_build/live-server/<run id>.json`` holds the server's pid, URL and the
    number of workers using it, under a file lock: the first worker starts the server, the
    others join it, the last one to leave stops it (a worker that joins after that starts a
    new one).  State files of runs whose server is gone are removed.
    """
    proc = None
    with _state_lock() as state:
        for old in LIVE_DIR.glob("*.json"):
            if old != state and not _alive(json.loads(old.read_text()).get("pid")):
                old.unlink()
        data = json.loads(state.read_text()) if state.is_file() else None
        if data is None or not _alive(data["pid"]):
            proc, url = _start(built_site, LIVE_DIR / f"{RUN_ID}.log")
            data = {"pid": proc.pid, "url": url, "users": 0}
        data["users"] += 1
        state.write_text(json.dumps(data))
    try:
        yield data["url"]
    finally:
        with _state_lock() as state:
            now = json.loads(state.read_text()) if state.is_file() else {"pid": data["pid"], "users": 1}
            now["users"] -= 1
            if now["users"] <= 0:
                _stop(now["pid"], proc if proc is not None and proc.pid == now["pid"] else None)
                state.unlink(missing_ok=True)
            else:
                state.write_text(json.dumps(now))


@pytest.fixture(scope="session")
def live_server(built_site: Path) -> Iterator[str]:
    """``python -m seqrmt.live`` on free ports, shared by the workers; the book's base URL."""
    with shared_live_server(built_site) as url:
        yield url


def _open(browser, base_url: str, page_name: str):
    """A page with every non-local request blocked; returns (context, page, requests, external, errors)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    host = urlsplit(base_url).hostname
    requests: list[str] = []
    external: list[str] = []
    errors: list[str] = []

    def route(r) -> None:
        u = urlsplit(r.request.url)
        if u.scheme in ("data", "blob") or u.hostname == host:
            r.continue_()
        else:
            external.append(r.request.url)
            r.abort("blockedbyclient")

    context.route("**/*", route)
    page = context.new_page()
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(f"uncaught exception: {e}"))
    page.goto(f"{base_url}/{page_name}.html", wait_until="load", timeout=60_000)
    return context, page, requests, external, errors


def _wait_state(page, states: tuple[str, ...], timeout: int = KERNEL_TIMEOUT_MS) -> str:
    page.wait_for_function(f"() => {list(states)!r}.includes(({LIVE_STATE})())", timeout=timeout)
    return page.evaluate(LIVE_STATE)


def _status(page) -> str:
    return page.locator(".seqrmt-livecode-status").inner_text()


def _check_output(page, cell_index: int = 0) -> None:
    """The printed number and a loaded figure in the output of the first live cell."""
    out = page.locator("[data-seqrmt-output]:not(.seqrmt-livecode-setup [data-seqrmt-output])").nth(cell_index)
    out.locator(f"text={PRINTED}").wait_for(timeout=RUN_TIMEOUT_MS)
    img = out.locator("img").last
    img.wait_for(timeout=RUN_TIMEOUT_MS)
    assert img.evaluate("i => i.complete && i.naturalWidth > 100"), "the figure did not load"


#: The live cells of the page's code (not the hidden set-up cells).
SHOWN_CELLS = ".thebe-cell:not(.seqrmt-livecode-setup .thebe-cell)"


def _type_into_first_cell(page) -> None:
    page.keyboard.press("Control+End")
    for line in TYPED:
        page.keyboard.press("Enter")
        page.keyboard.type(line)


def _nothing_loaded_before_press(requests: list[str], external: list[str]) -> None:
    assert not external, f"requests to other hosts before the button was pressed: {external[:3]}"
    early = [u for u in requests if "vendor/thebe" in u or "_seqrmt_live" in u]
    assert not early, f"live-code files fetched before the button was pressed: {early[:3]}"


#: The chapters of the live-code check with the mouse in the merge gate: the first, and one whose
#: opening figure hides its code (the first editor is further down) and which has explorers; chapter
#: 3 is such a chapter too, but the cells above its first editor take a minute of kernel time.
#: Every chapter has the same button, scripts and kernel; ``pytest --every-chapter`` (the scheduled
#: workflow) runs the check on each, for a chapter whose own code would not start.  The merge gate
#: runs it on chapter 0, which opens on a figure whose code is hidden; a chapter's explorers in the
#: kernel are :func:`test_live_explorer_works_in_the_kernel`'s.
GATE_CHAPTERS = ("book/00_toolkit",)


def pytest_generate_tests(metafunc) -> None:
    if metafunc.definition.name == "test_live_code_with_the_mouse":
        metafunc.parametrize("page_name", gate_pages(metafunc.config, CHAPTERS, GATE_CHAPTERS))


def test_live_code_with_the_mouse(browser, live_server, page_name) -> None:
    context, page, requests, external, errors = _open(browser, live_server, page_name)
    try:
        page.wait_for_load_state("networkidle", timeout=60_000)
        _nothing_loaded_before_press(requests, external)
        button = page.get_by_role("button", name=re.compile(r"^Live code"))
        assert button.count() == 1, "no single 'Live code' button on the chapter page"
        button.click()
        state = _wait_state(page, ("ready", "error"))
        assert state == "ready", f"{page_name}: live code did not start: {_status(page)}"
        assert "local server" in _status(page)
        # the first cell a reader sees (a chapter's opening figure may hide its code)
        cells = page.locator(SHOWN_CELLS)
        k = next((i for i in range(cells.count()) if cells.nth(i).locator(".CodeMirror").is_visible()), None)
        assert k is not None, f"{page_name}: no live cell with a visible editor"
        page.locator(SHOWN_CELLS).nth(k).locator(".CodeMirror").click()
        _type_into_first_cell(page)
        page.locator(SHOWN_CELLS).nth(k).locator("button.thebe-run-button").click()
        _check_output(page, k)
        assert _wait_state(page, ("ready", "error")) == "ready", _status(page)
        assert not external, f"requests to other hosts: {external[:3]}"
        assert not errors, errors
    finally:
        context.close()


def test_live_code_with_the_keyboard_only(browser, live_server) -> None:
    page_name = "book/01_model" if "book/01_model" in CHAPTERS else CHAPTERS[0]
    context, page, _, external, errors = _open(browser, live_server, page_name)
    try:
        page.locator("body").focus()
        for _ in range(80):
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.matches('.seqrmt-livecode-button')"):
                break
        else:
            pytest.fail("the 'Live code' button is not reached with Tab")
        page.keyboard.press("Enter")
        assert _wait_state(page, ("ready", "error")) == "ready", _status(page)
        for _ in range(80):
            page.keyboard.press("Tab")
            if page.evaluate("() => !!document.activeElement.closest('.thebe-cell .CodeMirror')"):
                break
        else:
            pytest.fail("no code editor is reached with Tab after the button")
        assert page.evaluate(
            "() => document.activeElement.closest('.thebe-cell') === document.querySelector('.thebe-cell')"
        ), "Tab did not reach the first cell first"
        _type_into_first_cell(page)
        page.keyboard.press("Shift+Enter")
        _check_output(page)
        assert not external, f"requests to other hosts: {external[:3]}"
        assert not errors, errors
    finally:
        context.close()


def test_live_explorer_works_in_the_kernel(browser, live_server) -> None:
    """A chapter's live() explorer, run in the kernel, redraws its figure when a control moves
    (the cells above it run first)."""
    page_name = "book/02_bulk"
    if page_name not in CHAPTERS:
        pytest.skip("no chapter 2")
    context, page, _, external, errors = _open(browser, live_server, page_name)
    try:
        page.get_by_role("button", name=re.compile(r"^Live code")).click()
        assert _wait_state(page, ("ready", "error")) == "ready", _status(page)
        cell = page.locator(".thebe-cell", has_text="live(srp.bulk_simulation_figure").first
        cell.scroll_into_view_if_needed()
        cell.locator("button.thebe-run-button").click()
        out = page.locator(".cell", has=cell).locator("[data-seqrmt-output]")
        # the kernel's output (thebe's output area), not the saved one of the page
        select = out.locator(".jp-OutputArea select").filter(has_text="causal").first
        select.wait_for(timeout=RUN_TIMEOUT_MS)
        img = out.locator(".jp-OutputArea img").first
        img.wait_for(timeout=RUN_TIMEOUT_MS)
        assert _wait_state(page, ("ready", "error"), timeout=RUN_TIMEOUT_MS) == "ready", _status(page)
        before = img.get_attribute("src")
        assert select.is_enabled(), "the explorer's control is disabled in the kernel"
        select.select_option(label="causal")
        page.wait_for_function(
            "([el, b]) => { const i = el.querySelector('.jp-OutputArea img'); "
            "return i && i.getAttribute('src') !== b && i.complete && i.naturalWidth > 0; }",
            arg=[out.element_handle(), before],
            timeout=RUN_TIMEOUT_MS,
        )
        assert not external, f"requests to other hosts: {external[:3]}"
        assert not errors, errors
    finally:
        context.close()


def test_live_code_binder_waits_then_says_what_failed(browser, site_url) -> None:
    """A page not served by seqrmt.live asks mybinder.org for a kernel from the repository's
    binder/ folder; it says it is waiting, then (Binder unreachable) says what failed."""
    page_name = CHAPTERS[0]
    context, page, _, external, _ = _open(browser, site_url, page_name)
    held = []
    try:
        # hold the first Binder request open (the page is waiting), abort it afterwards
        context.unroute("**/*")
        context.route("https://mybinder.org/**", lambda r: held.append(r))
        context.route(
            re.compile(r"^(?!https://mybinder\.org/).*"),
            lambda r: (
                r.continue_()
                if urlsplit(r.request.url).hostname == "127.0.0.1"
                else (external.append(r.request.url), r.abort("blockedbyclient"))
            ),
        )
        page.get_by_role("button", name=re.compile(r"^Live code")).click()
        page.wait_for_function(
            "() => document.querySelector('.seqrmt-livecode-status').textContent.includes('mybinder.org')",
            timeout=60_000,
        )
        assert "few minutes" in _status(page), _status(page)
        # a waiter registered now also gets the events queued before it (the sync API delivers them
        # only inside a call), so no request is missed; the route of that request, which fills
        # ``held``, is delivered with the next round trips to the browser
        if not held:
            page.wait_for_event("request", lambda r: r.url.startswith("https://mybinder.org/"), timeout=60_000)
        for _ in range(50):
            if held:
                break
            page.evaluate("0")
        assert held, "no request to mybinder.org"
        assert held[0].request.url.startswith("https://mybinder.org/build/gh/seqrmt/seqrmt/main"), held[0].request.url
        for r in held:
            r.abort("internetdisconnected")
        assert _wait_state(page, ("error", "ready"), timeout=120_000) == "error"
        assert "mybinder.org" in _status(page) and "python -m seqrmt.live" in _status(page), _status(page)
    finally:
        context.close()


@pytest.mark.parametrize("page_name", CHAPTERS)
def test_download_is_the_standalone_notebook(built_site, page_name) -> None:
    """The theme's download button of a chapter serves its notebook unchanged (so it runs on
    its own as tests/test_standalone_*.py run it)."""
    html = (built_site / f"{page_name}.html").read_text(encoding="utf-8")
    links = set(re.findall(r'<a href="([^"]*_sources/[^"]+\.ipynb)"', html))
    assert links, f"{page_name}: no .ipynb download link"
    for href in links:
        served = (built_site / page_name).parent.joinpath(href).resolve()
        assert served.read_bytes() == (ROOT / f"{page_name}.ipynb").read_bytes(), href
