"""Fixtures for the end-to-end test of the built book in headless Chromium.

* ``built_site``: the ``_build/html`` folder.  The book is built with
  ``jupyter-book build . -n -W --keep-going`` only if ``_build/html`` is missing
  or the environment variable ``SEQRMT_REBUILD=1`` is set; otherwise the existing
  build is reused (run the build yourself, or set ``SEQRMT_REBUILD=1``, after
  editing the book or the package).
* ``site_url``: ``_build/html`` served by a thread-based ``http.server`` on a free
  port of 127.0.0.1, stopped at the end of the session.
* ``browser``: headless Chromium driven by the Python ``playwright`` package, using
  the system browser (``/usr/bin/chromium``, or ``$SEQRMT_CHROMIUM``).  Never run
  ``playwright install``.

If Chromium or playwright is missing the tests are skipped with the reason, unless
``SEQRMT_REQUIRE_BROWSER=1`` is set (as in ``.ci/run``), in which case they fail.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_HTML = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "artifacts" / "screenshots"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("SEQRMT_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (SEQRMT_REQUIRE_BROWSER=1, so this is an error)", pytrace=False)
    pytest.skip(reason)


def chromium_path() -> str | None:
    """The system Chromium, or None."""
    env = os.environ.get("SEQRMT_CHROMIUM")
    for candidate in (env, "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def build_book() -> None:
    """Run ``jupyter-book build . -n -W --keep-going`` from the repository root."""
    cmd = [sys.executable, "-c",
           "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
           "build", ".", "-n", "-W", "--keep-going"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(
            "jupyter-book build failed (exit %d):\n%s\n%s"
            % (proc.returncode, proc.stdout[-6000:], proc.stderr[-6000:]),
            pytrace=False,
        )


@pytest.fixture(scope="session")
def built_site() -> Path:
    rebuild = os.environ.get("SEQRMT_REBUILD") == "1"
    if rebuild or not (BUILD_HTML / "index.html").exists():
        build_book()
    else:
        built = (BUILD_HTML / "index.html").stat().st_mtime
        newer = [p.relative_to(ROOT).as_posix()
                 for pattern in ("book/*.ipynb", "book/*.md", "seqrmt/**/*.py", "_config.yml", "_toc.yml")
                 for p in ROOT.glob(pattern) if p.stat().st_mtime > built]
        if newer:
            warnings.warn(
                f"testing an existing build of _build/html that is older than {len(newer)} source "
                f"file(s) (e.g. {', '.join(newer[:3])}); set SEQRMT_REBUILD=1 to rebuild first",
                stacklevel=1)
    return BUILD_HTML


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="book-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Python package 'playwright' is not installed (pip install playwright; "
                     "do not run 'playwright install', the system chromium is used)")
    exe = chromium_path()
    if exe is None:
        _unavailable("no chromium found at /usr/bin/chromium or $SEQRMT_CHROMIUM "
                     "(apt-get install -y chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
