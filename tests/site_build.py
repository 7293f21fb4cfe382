"""The built site the tests check (``_build/html``): when it is stale, how it is rebuilt, and the
guard of the quick tier.

* :func:`stale_sources`: the sources (every file under ``book/``, ``seqrmt/``, ``seqrmt_book/`` and
  ``_templates/``, plus ``_config.yml`` and ``_toc.yml``) modified after the last build, whose time
  is that of the files Sphinx rewrites on every HTML build (``.buildinfo``, ``searchindex.js``).
* :func:`ensure_site`: the body of the ``built_site`` fixture (``tests/conftest.py``).  A missing or
  stale build, or ``SEQRMT_REBUILD=1``, is rebuilt **incrementally** (:func:`build_book`: Sphinx
  re-reads the pages whose sources changed, ``seqrmt_book/cache.py`` those whose code or ``seqrmt``
  changed, and the execution cache re-executes only those); ``SEQRMT_REBUILD=0`` makes a stale build
  a failure that names the newer sources (``SEQRMT_REBUILD=1`` re-reads every page, once per run); ``SEQRMT_SITE_DIR=/path/to/html`` is tested as it is.
  With pytest-xdist every worker asks for the build: a file lock lets one build while the others wait
  and then find it fresh.
* :func:`forbid_heavy_work`: the quick tier's guard.  Under ``--quick`` a build of the book or the
  slides, a notebook kernel, a browser or a live-code server started by a test process raises
  :class:`QuickTierError` (a Python audit hook on every new process, and :func:`build_book` itself),
  so that a test whose fixture is missing from the tier table of ``tests/conftest.py`` fails loudly
  instead of building.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from seqrmt import settings

ROOT = Path(__file__).resolve().parents[1]
BUILD_HTML = ROOT / "_build" / "html"

#: What the built site is made from: folders searched recursively, and single files.
SOURCE_DIRS = ("book", "seqrmt", "seqrmt_book", "_templates")
SOURCE_FILES = ("_config.yml", "_toc.yml")
#: Files Sphinx rewrites on every HTML build (incremental or not).
BUILD_STAMPS = (".buildinfo", "searchindex.js")
#: Sources Sphinx cannot see change: the book's own extensions.  When one of them is newer than the
#: build, the rebuild re-reads every page (``--all``); any other change is rebuilt incrementally.
EXTENSION_SOURCES = "seqrmt_book/"

#: One id for the whole test run, shared by the xdist workers (one id per process without xdist).
RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex


class QuickTierError(RuntimeError):
    """Heavy work (a build, a kernel, a browser) attempted under ``--quick``."""


#: Set by :func:`forbid_heavy_work` (``--quick``).
_QUICK = False
#: What a new process of the quick tier may not be: (text in its command line, what it is).
HEAVY_COMMANDS = (
    ("jupyter_book", "a build of the book"),
    ("jupyter-book", "a build of the book"),
    ("build_slides.py", "a build of the slides"),
    ("ipykernel", "a notebook kernel"),
    ("seqrmt.live", "a live-code server"),
    ("chromium", "a browser"),
    ("chrome", "a browser"),
    ("playwright", "a browser"),
)


def heavy_command(args: object) -> str | None:
    """What heavy work the command line ``args`` starts (an entry of :data:`HEAVY_COMMANDS`), or None."""
    words = [os.fsdecode(a) for a in args] if isinstance(args, (list, tuple)) else [os.fsdecode(args)]
    line = " ".join(words)
    for needle, what in HEAVY_COMMANDS:
        if needle in line:
            return what
    return None


def _quick_audit(event: str, args: tuple) -> None:
    if not _QUICK or event not in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn"):
        return
    what = heavy_command(args[1]) if len(args) > 1 else None
    if what is not None:
        raise QuickTierError(
            f"--quick never starts {what} ({' '.join(map(str, args[1]))[:200]}): a fixture of this test "
            "needs a heavy tier; add it to TIER_FIXTURES in tests/conftest.py"
        )


def forbid_heavy_work() -> None:
    """The quick tier's guard for this process (see the module docstring); cannot be undone."""
    global _QUICK
    if not _QUICK:
        _QUICK = True
        sys.addaudithook(_quick_audit)


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
    if settings.get("SEQRMT_REBUILD") != "1":
        return False
    stamp = ROOT / "_build" / f".{name}.rebuilt"
    return not (stamp.is_file() and stamp.read_text() == RUN_ID)


def mark_rebuilt(name: str) -> None:
    (ROOT / "_build" / f".{name}.rebuilt").write_text(RUN_ID)


def build_command(newer: list[str], *, everything: bool = False) -> list[str]:
    """The build of the book for the stale sources ``newer``: ``jupyter-book build . -n -W --keep-going``,
    incremental (the pages whose sources, code or ``seqrmt`` changed are read and executed again),
    with ``--all`` (every page read again; the execution cache still executes only what changed) when
    an extension of ``seqrmt_book/`` changed, which Sphinx cannot see, or with ``everything``."""
    cmd = [
        sys.executable,
        "-c",
        "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
        "build",
        ".",
    ]
    if everything or any(p.startswith(EXTENSION_SOURCES) and p.endswith(".py") for p in newer):
        cmd.append("--all")
    return cmd + ["-n", "-W", "--keep-going"]


def build_book(newer: list[str] | None = None, *, everything: bool = False) -> None:
    """Build the book for the stale sources ``newer`` (:func:`build_command`); fails the test with the
    build log if the build fails, and raises :class:`QuickTierError` under ``--quick``."""
    if _QUICK:
        raise QuickTierError(
            "--quick never builds the book: a fixture of this test needs the built site; add it to "
            "TIER_FIXTURES in tests/conftest.py"
        )
    proc = subprocess.run(build_command(newer or [], everything=everything), cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(
            "jupyter-book build failed (exit %d):\n%s\n%s"
            % (proc.returncode, proc.stdout[-6000:], proc.stderr[-6000:]),
            pytrace=False,
        )


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


def ensure_site() -> Path:
    """The built site, never older than its sources (see the module docstring)."""
    other = settings.get("SEQRMT_SITE_DIR")
    if other:
        # An explicitly named build (e.g. a scratch build of a few pages): tested as it is.
        html = Path(other)
        if not (html / "index.html").is_file():
            pytest.fail(f"SEQRMT_SITE_DIR={other} has no index.html", pytrace=False)
        return html
    mode = settings.get("SEQRMT_REBUILD")
    with build_lock("site-build"):
        newer = stale_sources()
        forced = forced_rebuild("site")
        if forced or newer:
            if mode == "0":
                pytest.fail(
                    f"_build/html is older than {len(newer)} source file(s) (newest: "
                    f"{', '.join(newer[:5])}) and SEQRMT_REBUILD=0 forbids rebuilding: run "
                    "`jupyter-book build . -n -W --keep-going` first",
                    pytrace=False,
                )
            build_book(newer, everything=forced)
            mark_rebuilt("site")
            newer = stale_sources()
        if newer:
            pytest.fail(
                f"_build/html is still older than {len(newer)} source file(s) after the build "
                f"(newest: {', '.join(newer[:5])}): were they edited during the build?",
                pytrace=False,
            )
    return BUILD_HTML
