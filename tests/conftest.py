"""Session-wide settings shared by all tests.

Single-threaded BLAS/LAPACK: the test machines have 2 cores and run other jobs; with
threaded OpenBLAS the eigendecompositions of the agreement tests scatter from 0.1 s to
over 1 s each (threads contending with other processes), while single-threaded they are
stable and faster overall (tests/test_experiments.py: 4 s instead of 13-100 s).  The
environment variables are read once, when a BLAS library is loaded, so they are set
before numpy is imported (an explicit setting in the environment wins); ``threadpoolctl``
then enforces one thread on every BLAS/OpenMP pool numpy and scipy actually loaded,
whatever the library (OpenBLAS, MKL, BLIS), for the whole session.

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

from hypothesis import HealthCheck, settings  # noqa: E402  (does not import numpy)
import pytest  # noqa: E402

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False, database=None, print_blob=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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
