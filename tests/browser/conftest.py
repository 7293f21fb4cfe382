"""Fixtures for the end-to-end test of the built book in headless Chromium.

* ``built_site`` (defined in ``tests/conftest.py``, since the reader checks of ``tests/`` use it
  too): the ``_build/html`` folder, never older than its sources; a stale build is rebuilt
  incrementally, under a file lock shared by the xdist workers (``tests/site_build.py``).
* ``site_url``: ``_build/html`` served by a thread-based ``http.server`` on a free
  port of 127.0.0.1 as a static host serves it (text files gzip-compressed,
  :class:`site_checks.StaticHostHandler`), stopped at the end of the session.
* ``browser``: headless Chromium driven by the Python ``playwright`` package, using
  the system browser (``/usr/bin/chromium``, or ``$SEQRMT_CHROMIUM``).  Never run
  ``playwright install``.

If Chromium or playwright is missing the tests are skipped with the reason, unless
``SEQRMT_REQUIRE_BROWSER=1`` is set (as in ``.ci/run``), in which case they fail.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from seqrmt import settings

import site_checks
from site_build import RUN_ID, build_lock, forced_rebuild, mark_rebuilt

ROOT = Path(__file__).resolve().parents[2]
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
    if settings.flag("SEQRMT_REQUIRE_BROWSER"):
        pytest.fail(f"{reason} (SEQRMT_REQUIRE_BROWSER=1, so this is an error)", pytrace=False)
    pytest.skip(reason)


def chromium_path() -> str | None:
    """The system Chromium, or None."""
    env = settings.get("SEQRMT_CHROMIUM")
    for candidate in (env, "/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    handler = functools.partial(site_checks.StaticHostHandler, directory=str(built_site))
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
        _unavailable(
            "the Python package 'playwright' is not installed (pip install playwright; "
            "do not run 'playwright install', the system chromium is used)"
        )
    exe = chromium_path()
    if exe is None:
        _unavailable("no chromium found at /usr/bin/chromium or $SEQRMT_CHROMIUM (apt-get install -y chromium)")
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


@pytest.fixture(scope="session", autouse=True)
def _slider_latency_of_all_workers() -> Iterator[None]:
    """With xdist, ``_build/artifacts/slider_latency.json`` summarizes the sliders moved by
    every worker of the run, not only by the worker that wrote it last (``test_site.py``
    writes the summary of its own process)."""
    yield
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    module = sys.modules.get("test_site")
    if not worker or module is None:
        return
    folder = SCREENSHOTS.parent
    folder.mkdir(parents=True, exist_ok=True)
    with build_lock("slider-latency"):
        (folder / f"slider_latency.{worker}.json").write_text(
            json.dumps({"run": RUN_ID, "values": list(getattr(module, "SLIDER_LATENCY_MS", []))})
        )
        values: list[float] = []
        for part in folder.glob("slider_latency.*.json"):
            data = json.loads(part.read_text())
            if data.get("run") == RUN_ID:
                values += data["values"]
            else:
                part.unlink()
        if values:
            vals = sorted(values)
            summary = {
                "n": len(vals),
                "median_ms": vals[len(vals) // 2],
                "max_ms": vals[-1],
                "note": "in-page time from keydown to the new frame (performance.now)",
            }
            (folder / "slider_latency.json").write_text(json.dumps(summary, indent=1))


# ------------------------------------------------------------------ the lecture slides
SLIDES_SRC = ROOT / "slides"
SLIDES_OUT = ROOT / "_build" / "html" / "slides"
SLIDES_STAMP = SLIDES_OUT / "build.json"
SLIDE_DECKS = sorted(p.stem for p in SLIDES_SRC.glob("[0-9]*.ipynb"))


def _slide_sources() -> list[Path]:
    files = [ROOT / "scripts" / "build_slides.py"]
    for folder in (
        SLIDES_SRC,
        ROOT / "seqrmt",
        ROOT / "seqrmt_book" / "static" / "seqrmt" / "vendor" / "reveal",
        ROOT / "seqrmt_book" / "static" / "seqrmt" / "vendor" / "mathjax",
    ):
        files += [
            p
            for p in folder.rglob("*")
            if p.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in p.parts)
        ]
    return files


def _slides_stale() -> list[str]:
    if not SLIDES_STAMP.exists() or any(not (SLIDES_OUT / f"{d}.html").exists() for d in SLIDE_DECKS):
        return ["(no build)"]
    built = SLIDES_STAMP.stat().st_mtime
    return [p.relative_to(ROOT).as_posix() for p in _slide_sources() if p.stat().st_mtime > built]


@pytest.fixture(scope="session")
def built_slides() -> Path:
    mode = settings.get("SEQRMT_REBUILD")
    with build_lock("slides-build"):
        newer = _slides_stale()
        if forced_rebuild("slides") or newer:
            if mode == "0":
                pytest.fail(
                    f"_build/html/slides is older than {', '.join(newer[:5])} and SEQRMT_REBUILD=0 "
                    "forbids rebuilding: run `python scripts/build_slides.py` first",
                    pytrace=False,
                )
            proc = subprocess.run(
                [sys.executable, str(ROOT / "scripts" / "build_slides.py")], cwd=ROOT, capture_output=True, text=True
            )
            if proc.returncode != 0:
                pytest.fail(
                    "scripts/build_slides.py failed (exit %d):\n%s\n%s"
                    % (proc.returncode, proc.stdout[-4000:], proc.stderr[-6000:]),
                    pytrace=False,
                )
            mark_rebuilt("slides")
            newer = _slides_stale()
            if newer:
                pytest.fail(f"slides still older than {', '.join(newer[:5])} after the build", pytrace=False)
    return SLIDES_OUT
