"""The tiers of the tests (``tests/conftest.py``) and the quick tier's promise: it builds nothing.

* Every fixture of ``TIER_FIXTURES`` exists in ``tests/`` (a renamed fixture would silently leave
  its tests in the quick tier), and a test gets the tiers of the fixtures it uses.
* With every source newer than the build, ``pytest --quick`` over the tests of the built site, the
  browser and the live code runs their quick tests, deselects the others and never builds; a test
  whose fixture is missing from the table errors with ``QuickTierError`` when it tries to build the
  site or start a kernel; without ``--quick`` the same stale site is rebuilt incrementally (no
  ``--all``).  The build command is replaced by one that only writes a sentinel file, so that the
  check itself builds nothing even when the guard is broken.
* No test sleeps for a fixed time or reads a clock to assert on elapsed time (``time.monotonic``
  deadlines of waits on a condition excepted).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import site_build

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def _tests_conftest():
    """``tests/conftest.py`` as a module of its own (``conftest`` in ``sys.modules`` may be another)."""
    spec = importlib.util.spec_from_file_location("seqrmt_tests_conftest", TESTS / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tiers = _tests_conftest()


def _fixtures_defined() -> set[str]:
    names = set()
    for path in TESTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any("fixture" in ast.unparse(d) for d in node.decorator_list):
                names.add(node.name)
    return names


def test_every_fixture_of_the_table_exists():
    missing = set(tiers.TIER_FIXTURES) - _fixtures_defined()
    assert not missing, f"TIER_FIXTURES names fixtures that no longer exist: {sorted(missing)}"
    assert set(tiers.TIER_FIXTURES.values()) <= set(tiers.HEAVY_TIERS)


def test_a_test_gets_the_tiers_of_its_fixtures():
    assert tiers.tiers_of(["tmp_path", "built_site", "browser"]) == {"site", "browser"}
    assert tiers.tiers_of(["readers_env"]) == {"venv"}
    assert tiers.tiers_of(["tmp_path", "monkeypatch"]) == set()
    assert all(f"not {t}" in tiers.QUICK_EXPR for t in tiers.HEAVY_TIERS)


def test_heavy_commands_are_recognized():
    assert site_build.heavy_command(site_build.build_command([])) == "a build of the book"
    assert site_build.heavy_command([sys.executable, "-m", "ipykernel_launcher", "-f", "k.json"]) == "a notebook kernel"
    assert site_build.heavy_command(["/usr/bin/chromium", "--headless"]) == "a browser"
    assert site_build.heavy_command([sys.executable, "-m", "ruff", "check", "."]) is None


def test_a_stale_site_is_rebuilt_incrementally():
    assert "--all" not in site_build.build_command(["seqrmt/spikes.py", "book/02_bulk.ipynb"])
    # an extension Sphinx cannot see changing, or SEQRMT_REBUILD=1: every page read again
    assert "--all" in site_build.build_command(["seqrmt_book/reading.py"])
    assert "--all" in site_build.build_command([], everything=True)


#: Loaded with ``-p`` into the pytest run under test: every source is newer than the build, and the
#: build command only records itself in the sentinel file (its text names jupyter_book, so the
#: quick tier's guard on new processes sees it as a build of the book).
PLUGIN = """
import sys

import site_build

SENTINEL = {sentinel!r}


def pytest_configure(config):
    site_build.stale_sources = lambda *args, **kwargs: ["seqrmt/spikes.py"]
    real = site_build.build_command

    def recording(newer, **kwargs):
        code = "import sys; open(sys.argv[1], 'a').write(' '.join(sys.argv[2:]) + chr(10))  # jupyter_book"
        return [sys.executable, "-c", code, SENTINEL, *real(newer, **kwargs)[3:]]

    site_build.build_command = recording
"""

#: Tests whose heavy fixture is missing from TIER_FIXTURES.
FORGOTTEN = """
import pytest
import site_build


@pytest.fixture
def unregistered_site():
    return site_build.ensure_site()


@pytest.fixture
def unregistered_kernel():
    from jupyter_client import KernelManager

    km = KernelManager()
    km.start_kernel()
    try:
        yield km
    finally:
        km.shutdown_kernel(now=True)


def test_forgotten_site(unregistered_site):
    pass


def test_forgotten_kernel(unregistered_kernel):
    pass
"""


def _pytest(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    sentinel = tmp_path / "builds.txt"
    (tmp_path / "stale_plugin.py").write_text(PLUGIN.format(sentinel=str(sentinel)))
    env = {k: v for k, v in os.environ.items() if k not in ("SEQRMT_SITE_DIR", "SEQRMT_REBUILD")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(TESTS), env.get("PYTHONPATH", "")])
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_TESTRUNUID", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "stale_plugin", "-p", "no:xdist", "-q", "-rfE", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc, sentinel.read_text() if sentinel.is_file() else ""


def test_the_quick_tier_builds_nothing_however_stale(tmp_path):
    forgotten = tmp_path / "forgotten" / "test_forgotten.py"
    forgotten.parent.mkdir()
    forgotten.write_text(FORGOTTEN)
    proc, builds = _pytest(
        tmp_path,
        "--quick",
        "tests/test_reader_pages.py",
        "tests/browser/test_site.py",
        "tests/browser/test_live.py",
        "tests/browser/test_slides.py",
        str(forgotten),
    )
    out = proc.stdout + proc.stderr
    assert builds == "", f"the quick tier started a build: {builds}\n{out[-3000:]}"
    # the reader-page unit tests ran, every test of the built site or a browser was deselected
    assert " passed" in out and " deselected" in out, out[-3000:]
    summary = out.strip().splitlines()[-1]
    assert "2 errors" in summary, out[-3000:]
    assert out.count("QuickTierError") >= 2, out[-3000:]
    assert "never builds the book" in out and "never starts a notebook kernel" in out, out[-3000:]


def test_without_quick_a_stale_site_is_rebuilt_incrementally(tmp_path):
    """The same stale site in the ``site`` tier: one build, incremental.  (The recording build
    leaves the site stale, so the fixture then fails, as it must after a build that did nothing.)"""
    proc, builds = _pytest(
        tmp_path, "-m", "site", "tests/test_reader_pages.py::test_a_planted_wrong_reading_time_is_caught"
    )
    out = proc.stdout + proc.stderr
    assert builds.splitlines() == ["build . -n -W --keep-going"], (builds, out[-3000:])
    assert "still older than" in out, out[-3000:]


#: What a test may not call: a fixed sleep, and the clocks an assertion on elapsed time would read.
#: ``time.monotonic`` stays allowed: it bounds waits on a condition (a deadline), never a result.
CLOCK_CALLS = {
    ("time", "sleep"),
    ("time", "time"),
    ("time", "perf_counter"),
    ("time", "process_time"),
    (None, "wait_for_timeout"),
}


#: A timer with a delay in the JavaScript a test runs in the page (a string of the test).
JS_TIMER = re.compile(r"setTimeout\([^;]*?,\s*[1-9]")


def clock_calls(source: str) -> list[str]:
    """The calls of :data:`CLOCK_CALLS` in ``source``, and the JavaScript timers with a delay in its
    strings (:data:`JS_TIMER`), as ``line: name``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and JS_TIMER.search(node.value):
            found.append(f"{node.lineno}: setTimeout in JavaScript")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else None
            if (owner, node.func.attr) in CLOCK_CALLS or (None, node.func.attr) in CLOCK_CALLS:
                found.append(f"{node.lineno}: {owner or '...'}.{node.func.attr}")
    return found


def test_no_test_sleeps_or_reads_the_clock():
    """The test command holds on a busy machine: no fixed sleep, no assertion on elapsed time (speed
    budgets are bars of ``benchmarks/``; a hang is pytest-timeout's)."""
    found = {
        path.relative_to(ROOT).as_posix(): calls
        for path in sorted(TESTS.rglob("*.py"))
        if "vendor" not in path.parts and (calls := clock_calls(path.read_text(encoding="utf-8")))
    }
    assert not found, found
    planted = "import time\nt0 = time.perf_counter()\ntime.sleep(1)\npage.wait_for_timeout(500)\n"
    planted += "JS = '() => new Promise(r => set" + "Timeout(r, 50))'\n"  # split: this file is scanned too
    assert clock_calls(planted) == [
        "2: time.perf_counter",
        "3: time.sleep",
        "4: page.wait_for_timeout",
        "5: setTimeout in JavaScript",
    ]
