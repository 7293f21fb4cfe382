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
command).  ``loadfile`` sends every test file to one worker, which runs its tests in order:
all the cells of a notebook (nbval runs them in order in one kernel), all the tests of a file
(its module fixtures, the shared simulations, are computed once).  Two refinements here: the
browser checks of the site and the slides are spread over the workers one test at a time
(:func:`pytest_xdist_make_scheduler`; each worker has its own browser and static server, and
the build they check is made once, under a file lock, see ``tests/browser/conftest.py``), and
the units go out longest first (:func:`pytest_collection_modifyitems`): the notebooks (largest
first), the files of :data:`SLOW_FILES`, the browser checks, then the other files.  Without
xdist nothing changes.  (``--dist loadgroup`` cannot be used: pytest 9 ignores the group that
xdist 3.8 writes into the test ids.)

Tiers (markers registered in ``pyproject.toml``): ``notebooks``, every nbval item (a cell of a
notebook, marked here by the file's suffix), ``venv``, the tests that build a virtual
environment of their own (the chapters run in the readers' environment, the light
environment), ``build``, the tests that run Sphinx on a scratch book (marked here by the
fixture that builds it, :data:`BUILD_FIXTURES`), and ``browser``, the end-to-end checks in
Chromium.  ``--quick`` runs everything else, the unit tests of the package and the fast checks
of the book's sources, in about a minute (``pytest -n 2 --quick``; the same as
``-m "not notebooks and not venv and not build and not browser"``, combined with any ``-m``).

Hypothesis runs reproducibly: the default profile ``ci`` derandomizes the search (the
examples are a fixed function of the test, the same on every machine and every run),
keeps no example database, and on a failure prints the falsifying example together with
the ``@reproduce_failure`` blob.  ``HYPOTHESIS_PROFILE=explore`` gives a random search
instead, with a seed printed on failure (rerun with ``pytest --hypothesis-seed=<seed>``).
"""

import os
import sys

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
HEAVY_TIERS = ("notebooks", "venv", "build", "browser")
QUICK_EXPR = " and ".join(f"not {tier}" for tier in HEAVY_TIERS)
#: Fixtures that build a scratch book with Sphinx: a test that uses one is marked ``build``.
BUILD_FIXTURES = ("project", "outside_git")


def pytest_addoption(parser):
    parser.getgroup("seqrmt").addoption(
        "--quick",
        action="store_true",
        default=False,
        help=f'the quick tier: the unit tests and the fast book checks (-m "{QUICK_EXPR}")',
    )


def pytest_report_header(config):
    return f"hypothesis profile: {settings._current_profile}"


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


# ------------------------------------------------------------------ parallel runs (xdist)
#: Test files whose tests take the longest (measured with ``--durations``); sent out right
#: after the notebooks so that no long unit is left for the end of the run.
#: The two files that use the readers' environment (made once, under a lock) are far apart, so
#: that the second does not wait for the first to make it.
SLOW_FILES = (
    "tests/test_standalone.py",
    "tests/test_execution_cache.py",
    "tests/test_validation.py",
    "tests/test_experiments.py",
    "tests/test_learning.py",
    "tests/test_executor.py",
    "tests/test_problem_sets.py",
    "tests/test_binder_env.py",
)
#: Tests spread over the workers one by one (each worker has its own browser and server).
SPREAD_DIRS = ("tests/browser/",)


def pytest_configure(config):
    if config.getoption("quick", False) and QUICK_EXPR not in (config.option.markexpr or ""):
        user = config.option.markexpr
        config.option.markexpr = f"({user}) and {QUICK_EXPR}" if user else QUICK_EXPR
    if getattr(config.option, "dist", "no") == "loadfile":
        # keep the order of the units given below (xdist would sort them by their number of tests)
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


@pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist it is never called
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, except that the browser checks are spread one test at a time."""
    if getattr(config.option, "dist", "no") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BookScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(SPREAD_DIRS):
                return nodeid
            return super()._split_scope(nodeid)

    return BookScheduling(config, log)


def _order(item, root) -> tuple:
    path = item.path
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    if path.suffix == ".ipynb":
        return (0, -path.stat().st_size, rel)
    if rel in SLOW_FILES:
        return (1, SLOW_FILES.index(rel), rel)
    if rel.startswith(SPREAD_DIRS):
        return (2, 0, "")
    return (3, 0, "")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """The tier markers, then, on an xdist worker, the longest units first (see the module
    docstring).

    A stable sort: the tests of one file keep their order (a notebook's cells stay in order).
    Every worker collects and sorts the same way, as xdist requires.
    """
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebooks)
        elif any(name in BUILD_FIXTURES for name in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.build)
    if not hasattr(config, "workerinput"):
        return
    root = config.rootpath
    keyed = sorted(enumerate(items), key=lambda t: (_order(t[1], root), t[0]))
    items[:] = [item for _, item in keyed]
