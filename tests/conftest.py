"""Session-wide settings shared by all tests.

Single-threaded BLAS/LAPACK: the test machines have 2 cores and run other jobs; with
threaded OpenBLAS the eigendecompositions of the agreement tests scatter from 0.1 s to
over 1 s each (threads contending with other processes), while single-threaded they are
stable and faster overall (tests/test_experiments.py: 4 s instead of 13-100 s).  This
must run before numpy is imported, hence here and not in a fixture; an explicit
setting in the environment wins.
"""
import os
import sys

if "numpy" not in sys.modules:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
