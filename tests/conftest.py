"""Session-wide settings shared by all tests.

Single-threaded BLAS/LAPACK: the test machines have 2 cores and run other jobs; with
threaded OpenBLAS the eigendecompositions of the agreement tests scatter from 0.1 s to
over 1 s each (threads contending with other processes), while single-threaded they are
stable and faster overall (tests/test_experiments.py: 4 s instead of 13-100 s).  The
environment variables are read once, when a BLAS library is loaded, so they are set
before numpy is imported (an explicit setting in the environment wins); ``threadpoolctl``
then enforces one thread on every BLAS/OpenMP pool numpy and scipy actually loaded,
whatever the library (OpenBLAS, MKL, BLIS), for the whole session.

Run in parallel with pytest-xdist: ``pytest -n 2 --dist loadfile`` (the README's test
command).  ``loadfile`` (a documented mode of pytest-xdist) sends every test file to one worker,
which runs its tests in order: all the cells of a notebook (nbval runs them in order in one
kernel), all the tests of a file (its module fixtures, the shared simulations, are computed once;
each worker has its own browser and static server, and the build they check is made once, under a
file lock, see ``tests/site_build.py``).  The files go out longest first
(:func:`pytest_collection_modifyitems`, pytest's own hook, with xdist's documented
``--no-loadscope-reorder`` so that xdist keeps that order): the controller records the duration of
every test of a run in ``_build/reports/test_durations.json`` and hands the record of the last
runs to its workers (xdist's ``pytest_configure_node`` hook), which sort the files by their
recorded time; a file never measured keeps its place behind the measured ones, the notebooks and
the heavy tiers first.  Without xdist nothing is reordered.

Tiers (markers registered in ``pyproject.toml``), given by what a test needs, automatically:

* ``notebooks``: every nbval item (a cell of a notebook, marked here by the file's suffix);
* a test that uses (directly or through another fixture) a fixture of :data:`TIER_FIXTURES` gets
  that fixture's tier: ``site`` (the built book, ``_build/html``, rebuilt when stale, and the
  slides), ``browser`` (headless Chromium, the live-code server), ``venv`` (a virtual environment of
  its own: the readers' environment, the light environment) and ``build`` (Sphinx on a scratch
  book).  A file may also mark itself (``pytestmark = pytest.mark.browser``).

**Registering a fixture**: a new fixture that builds something, starts a browser or a kernel, or
makes an environment goes into :data:`TIER_FIXTURES` with its tier, e.g. ``"published_site":
"site"``; every test that uses it, now or later, is then in that tier (fixture names of the table
are unique in ``tests/``; ``tests/test_tiers.py`` checks that each one exists).  ``--quick`` runs
everything else, the unit tests of the package and the fast checks of the book's sources, in about
a minute (``pytest -n 2 --quick``; the same as ``-m "not notebooks and not venv and not build and
not site and not browser"``, combined with any ``-m``).  It never builds the book or the slides,
never starts a notebook kernel, a live-code server or a browser, however stale the build: under
``--quick`` any attempt raises ``site_build.QuickTierError`` (``tests/site_build.py``), so a
fixture missing from the table fails its test loudly instead of building.

Hypothesis runs reproducibly: the default profile ``ci`` derandomizes the search (the
examples are a fixed function of the test, the same on every machine and every run),
keeps no example database, and on a failure prints the falsifying example together with
the ``@reproduce_failure`` blob.  ``HYPOTHESIS_PROFILE=explore`` gives a random search
instead, with a seed printed on failure (rerun with ``pytest --hypothesis-seed=<seed>``).
"""

import contextlib
import json
import os
import sys
from pathlib import Path

if "numpy" not in sys.modules:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

# seqrmt's slow results (fixed-T token spectra, explorer frames), shared with the build that made them
# and across the workers (seqrmt/_cache.py; keyed by seqrmt's source, so an edit recomputes them;
# the folder of seqrmt_book/cache.py use_data_cache): SEQRMT_CACHE_DIR="" for none.
os.environ.setdefault(
    "SEQRMT_CACHE_DIR",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_build", "seqrmt-cache"),
)

# Every figure drawn in a test or a notebook run by nbval is checked for readability, as in the
# build (seqrmt/plots/_check.py; a reader's session does not check): SEQRMT_FIGURE_CHECK=0 for none.
os.environ.setdefault("SEQRMT_FIGURE_CHECK", "1")

from hypothesis import HealthCheck, settings  # noqa: E402  (does not import numpy)
import pytest  # noqa: E402

settings.register_profile(
    "ci", derandomize=True, database=None, print_blob=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "explore",
    derandomize=False,
    database=None,
    print_blob=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


#: The heavy tiers that ``--quick`` leaves out (see the module docstring).
HEAVY_TIERS = ("notebooks", "venv", "build", "site", "browser")
QUICK_EXPR = " and ".join(f"not {tier}" for tier in HEAVY_TIERS)
#: What a fixture needs, as the tier of every test that uses it (directly or through another
#: fixture).  Register a new heavy fixture here (see the module docstring).
TIER_FIXTURES = {
    # the built book, _build/html, rebuilt when older than its sources (tests/site_build.py)
    "built_site": "site",
    # the lecture slides, rebuilt when stale (scripts/build_slides.py)
    "built_slides": "site",
    # headless Chromium (tests/browser/conftest.py)
    "browser": "browser",
    # python -m seqrmt.live: a Jupyter server and a kernel per page (tests/browser/test_live.py)
    "live_server": "browser",
    # the readers' virtual environment and the seqrmt wheel (tests/standalone.py)
    "readers_env": "venv",
    # Sphinx or jupyter-book on a scratch book of the test's own
    "project": "build",  # tests/test_execution_cache.py
    "outside_git": "build",  # tests/test_source_copy_build.py
    "scratch": "build",  # tests/test_numbering.py, tests/test_reader_pages.py
    "site": "build",  # tests/test_book_extensions.py
    "product_site": "build",  # tests/test_publish.py
    # the assembled site, _build/site (scripts/publish.py), made when missing or older than the book
    "published_site": "site",
}


def tiers_of(fixturenames) -> set[str]:
    """The tiers that the fixtures ``fixturenames`` (a test's closure) give a test."""
    return {TIER_FIXTURES[name] for name in fixturenames if name in TIER_FIXTURES}


def pytest_addoption(parser):
    parser.getgroup("seqrmt").addoption(
        "--quick",
        action="store_true",
        default=False,
        help=f'the quick tier: the unit tests and the fast book checks (-m "{QUICK_EXPR}"); builds nothing',
    )
    parser.getgroup("seqrmt").addoption(
        "--every-chapter",
        action="store_true",
        default=False,
        help="run on every chapter the browser checks that the merge gate runs on a few (the live-code check "
        "with the mouse, the file:// check, the reference previews); the scheduled workflow does",
    )


def pytest_report_header(config):
    return f"hypothesis profile: {settings.get_current_profile_name()}"


@pytest.fixture(scope="session", autouse=True)
def _single_threaded_blas():
    """One BLAS thread for every test (unless the environment asked for more)."""
    from threadpoolctl import threadpool_limits

    if os.environ.get("OPENBLAS_NUM_THREADS", "1") != "1":
        yield
        return
    import numpy  # noqa: F401  (loads the BLAS whose pool is limited)
    import scipy.linalg  # noqa: F401

    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session")
def readers_env():
    """The readers' virtual environment and the seqrmt wheel of this test run, made once and
    shared by every test that needs them (``tests/standalone.py``; the workers of xdist share
    them through a file lock): ``(environment folder, wheel path)``."""
    import standalone

    return standalone.create_readers_env()


@pytest.fixture(scope="session")
def built_site():
    """The built book, ``_build/html``, never older than its sources (rebuilt incrementally when
    stale; ``SEQRMT_REBUILD``, ``SEQRMT_SITE_DIR``: ``tests/site_build.py``)."""
    import site_build

    return site_build.ensure_site()


def pytest_configure(config):
    if config.getoption("quick", False):
        if QUICK_EXPR not in (config.option.markexpr or ""):
            user = config.option.markexpr
            config.option.markexpr = f"({user}) and {QUICK_EXPR}" if user else QUICK_EXPR
        import site_build

        site_build.forbid_heavy_work()
    if getattr(config.option, "dist", "no") == "loadfile":
        # xdist's --no-loadscope-reorder: keep the order of the files given by
        # pytest_collection_modifyitems (xdist would sort them by their number of tests)
        config.option.loadscopereorder = False


#: Seconds a test process may take to exit once its tests are done (threads joined, servers stopped).
EXIT_GRACE_S = 180


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """A process that does not exit within :data:`EXIT_GRACE_S` after its last test (a thread or a
    child that never ends) prints the stacks of its threads and exits, so the run never stalls
    after its tests (pytest-timeout covers each test, this the time after them).

    Not in an xdist worker: a worker that has finished waits, idle, until the controller closes it
    after the last worker finishes (more than three minutes when the other worker holds a long file),
    and a watchdog there killed such a worker, which xdist took for a crash and replaced with one the
    run then waited for without end.  The controller ends its workers itself (execnet terminates a
    worker that does not exit in time), and this watchdog guards the controller."""
    import faulthandler

    if hasattr(config, "workerinput"):
        return
    faulthandler.dump_traceback_later(EXIT_GRACE_S, exit=True)


# ------------------------------------------------------------------ parallel runs (xdist)
#: The duration of every test of the last runs (nodeid -> seconds, setup and teardown included),
#: written by the controller at the end of a run, read at the start of the next.
DURATIONS = Path(__file__).resolve().parents[1] / "_build" / "reports" / "test_durations.json"
_durations_seen: dict[str, float] = {}


def _read_durations() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


_DURATIONS_KEY = pytest.StashKey[dict]()


@pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist it is never called
def pytest_configure_node(node):
    """Every worker sorts with the same record, the one the controller read at its start."""
    node.workerinput["seqrmt_durations"] = node.config.stash.setdefault(_DURATIONS_KEY, _read_durations())


def pytest_runtest_logreport(report):
    _durations_seen[report.nodeid] = _durations_seen.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    """The controller (or a run without xdist) adds the durations of this run to the record."""
    if hasattr(session.config, "workerinput") or not _durations_seen:
        return
    record = _read_durations()
    record.update({k: round(v, 3) for k, v in _durations_seen.items()})
    with contextlib.suppress(OSError):
        DURATIONS.parent.mkdir(parents=True, exist_ok=True)
        tmp = DURATIONS.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, sort_keys=True))
        os.replace(tmp, DURATIONS)


#: A file never measured: the notebooks, then the heavy tiers, then the others.
_UNMEASURED_RANK = {"notebooks": 0, "venv": 1, "site": 2, "browser": 2, "build": 3}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """The tier markers, then, on an xdist worker, the longest files first (see the module
    docstring).

    A stable sort: the tests of one file keep their order (a notebook's cells stay in order).
    Every worker collects and sorts the same way, with the same record, as xdist requires.
    """
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebooks)
        for tier in sorted(tiers_of(getattr(item, "fixturenames", ()))):
            item.add_marker(getattr(pytest.mark, tier))
    if not hasattr(config, "workerinput"):
        return
    record = config.workerinput.get("seqrmt_durations") or {}
    per_file: dict[str, float] = {}
    rank: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        per_file[path] = per_file.get(path, 0.0) + record.get(item.nodeid, 0.0)
        tiers = [_UNMEASURED_RANK[m.name] for m in item.iter_markers() if m.name in _UNMEASURED_RANK]
        rank[path] = min([rank.get(path, 4), *tiers])
    keyed = sorted(
        enumerate(items),
        key=lambda t: (-per_file[t[1].nodeid.split("::", 1)[0]], rank[t[1].nodeid.split("::", 1)[0]], t[0]),
    )
    items[:] = [item for _, item in keyed]
