"""Fixtures for the end-to-end test of the built book in headless Chromium.

* ``built_site``: the ``_build/html`` folder, never older than its sources.  The
  build time is that of the files Sphinx rewrites on every build (``.buildinfo``,
  ``searchindex.js``); the sources are every file under ``book/``, ``seqrmt/``,
  ``seqrmt_book/`` and ``_templates/`` plus ``_config.yml`` and ``_toc.yml``.  If the build is missing
  or older than any source, or ``SEQRMT_REBUILD=1``, the book is rebuilt with
  ``jupyter-book build . -n -W --keep-going`` (the test fails with the build log if
  that fails, or if the build is still older than the sources afterwards).  With
  ``SEQRMT_REBUILD=0`` a stale build is not rebuilt: the test fails and names the
  newer sources.  An old build is never tested.  ``SEQRMT_SITE_DIR=/path/to/html`` tests
  that folder instead, as it is (no staleness check, no rebuild).  With pytest-xdist
  (``-n 2``) every worker asks for the build: a file lock lets one of them build while the
  others wait and then find the build fresh, and ``SEQRMT_REBUILD=1`` rebuilds once per
  test run, not once per worker.
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

import contextlib
import fcntl
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import site_checks

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
    for candidate in (env, "/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


#: One id for the whole test run, shared by the xdist workers (one id per process without xdist).
RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex


@contextlib.contextmanager
def build_lock(name: str) -> Iterator[None]:
    """Hold ``_build/.<name>.lock``: one test process builds, the others wait for it."""
    lock = ROOT / "_build" / f".{name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def forced_rebuild(name: str) -> bool:
    """``SEQRMT_REBUILD=1`` and no process of this test run has rebuilt ``name`` yet."""
    if os.environ.get("SEQRMT_REBUILD", "") != "1":
        return False
    stamp = ROOT / "_build" / f".{name}.rebuilt"
    return not (stamp.is_file() and stamp.read_text() == RUN_ID)


def mark_rebuilt(name: str) -> None:
    (ROOT / "_build" / f".{name}.rebuilt").write_text(RUN_ID)


def build_book() -> None:
    """Run ``jupyter-book build . --all -n -W --keep-going`` from the repository root.

    ``--all`` re-reads every page (the execution cache, ``seqrmt_book/cache.py``,
    re-executes only the notebooks whose code or dependencies changed), so that nothing
    Sphinx cannot see (an edited extension in ``seqrmt_book/``) leaves an old page in place.
    """
    cmd = [
        sys.executable,
        "-c",
        "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
        "build",
        ".",
        "--all",
        "-n",
        "-W",
        "--keep-going",
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(
            "jupyter-book build failed (exit %d):\n%s\n%s"
            % (proc.returncode, proc.stdout[-6000:], proc.stderr[-6000:]),
            pytrace=False,
        )


#: What the built site is made from: folders searched recursively, and single files.
SOURCE_DIRS = ("book", "seqrmt", "seqrmt_book", "_templates")
SOURCE_FILES = ("_config.yml", "_toc.yml")
#: Files Sphinx rewrites on every HTML build (incremental or not).
BUILD_STAMPS = (".buildinfo", "searchindex.js")


def _sources(root: Path = ROOT) -> list[Path]:
    out = [root / f for f in SOURCE_FILES if (root / f).is_file()]
    for folder in SOURCE_DIRS:
        for p in (root / folder).rglob("*"):
            rel = p.relative_to(root).parts
            if p.is_file() and not any(part.startswith(".") or part in ("__pycache__", "_build") for part in rel):
                out.append(p)
    return out


def build_time(html: Path = BUILD_HTML) -> float | None:
    """Modification time of the last build of ``html`` (None if there is no build)."""
    stamps = [html / name for name in BUILD_STAMPS if (html / name).is_file()]
    if not stamps or not (html / "index.html").is_file():
        return None
    return max(p.stat().st_mtime for p in stamps)


def stale_sources(html: Path = BUILD_HTML, root: Path = ROOT) -> list[str]:
    """Sources modified after the last build, newest first (all of them if there is no build)."""
    built = build_time(html)
    files = sorted(_sources(root), key=lambda p: p.stat().st_mtime, reverse=True)
    return [p.relative_to(root).as_posix() for p in files if built is None or p.stat().st_mtime > built]


@pytest.fixture(scope="session")
def built_site() -> Path:
    other = os.environ.get("SEQRMT_SITE_DIR")
    if other:
        # An explicitly named build (e.g. a scratch build of a few pages): tested as it is.
        html = Path(other)
        if not (html / "index.html").is_file():
            pytest.fail(f"SEQRMT_SITE_DIR={other} has no index.html", pytrace=False)
        return html
    mode = os.environ.get("SEQRMT_REBUILD", "")
    with build_lock("site-build"):
        newer = stale_sources()
        if forced_rebuild("site") or newer:
            if mode == "0":
                pytest.fail(
                    f"_build/html is older than {len(newer)} source file(s) (newest: "
                    f"{', '.join(newer[:5])}) and SEQRMT_REBUILD=0 forbids rebuilding: run "
                    "`jupyter-book build . --all -n -W --keep-going` first",
                    pytrace=False,
                )
            build_book()
            mark_rebuilt("site")
            newer = stale_sources()
        if newer:
            pytest.fail(
                f"_build/html is still older than {len(newer)} source file(s) after the build "
                f"(newest: {', '.join(newer[:5])}): were they edited during the build?",
                pytrace=False,
            )
    return BUILD_HTML


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
    mode = os.environ.get("SEQRMT_REBUILD", "")
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
