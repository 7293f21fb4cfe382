#!/usr/bin/env python
"""Execute the book's notebooks (and the slide decks) into the execution cache, in parallel.

The HTML build, the PDF build (``scripts/build_pdf.sh``) and ``scripts/build_slides.py`` all
take a notebook's outputs from the execution cache ``_build/.jupyter_cache`` when its code and
its dependencies (``seqrmt``, ``requirements.txt``: see ``seqrmt_book/cache.py``) are
unchanged, and execute it otherwise, one notebook at a time.  This script fills the cache
beforehand with several kernels at once, so that the builds that follow execute nothing::

    python scripts/execute_notebooks.py            # every missing or stale entry, 2 kernels
    python scripts/execute_notebooks.py --jobs 1   # one at a time
    python scripts/execute_notebooks.py --book     # the book's notebooks only (no decks)

It executes exactly as the build would (jupyter-cache's ``single_nb_execution``, the
notebook's folder as working directory, the ``execute: timeout`` of ``_config.yml``), and
stores the result with what its execution used, as the build does (the dependency keys of
``seqrmt_book/cache.py``: a notebook is executed again when a module it ran changed).  Each kernel gets one BLAS/OpenMP thread
(``OPENBLAS_NUM_THREADS=1`` and the like in the environment of the kernel process, ``--threads``
to change it): two kernels with threaded BLAS on two cores oversubscribe them (in CI chapter 3
took 229 s beside another kernel against 29 s alone).  A notebook that fails is reported with its
traceback, and the script exits with status 1 (nothing is cached for it).  Each run appends a
line to ``_build/reports/executions.log``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import sys
import time
from pathlib import Path

import nbformat
import yaml

from seqrmt_book import cache as seqrmt_cache  # the dependency keys of the book's notebooks

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "_build" / ".jupyter_cache"


def _config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8")) or {}


def book_notebooks() -> list[Path]:
    """The notebooks listed in ``_toc.yml``, in its order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8")) or {}
    files: list[str] = []

    def visit(node: object) -> None:
        if isinstance(node, list):
            for child in node:
                visit(child)
        elif isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    files.append(node[key])
            for key in ("parts", "chapters", "sections"):
                visit(node.get(key))

    visit(toc)
    out = []
    for name in files:
        path = ROOT / (name if name.endswith(".ipynb") else name + ".ipynb")
        if path.is_file():
            out.append(path)
    return out


def deck_notebooks() -> list[Path]:
    return sorted((ROOT / "slides").glob("[0-9]*.ipynb"))


#: The variables that size the thread pools of OpenBLAS, OpenMP, MKL, BLIS and Accelerate.
THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def _limit_threads(threads: int) -> None:
    """Set the thread-pool sizes in this process's environment, which the kernels it starts
    inherit (a kernel reads them when it loads numpy, so they must be set before the start)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)


def _run(path: str, timeout: int) -> tuple[str, dict, float, str | None, dict[str, str]]:
    """Execute one notebook in a fresh kernel (in a worker process, whose environment the
    kernel inherits: see :func:`_limit_threads`), recording what it uses of the packages."""
    nb = nbformat.read(path, as_version=4)
    _, folders = seqrmt_cache.configured_dependencies(ROOT)
    result, files = seqrmt_cache.execute_recorded(
        nb, str(Path(path).parent), timeout, False, ROOT, folders, meta_override=True
    )
    return path, nbformat.writes(nb), result.time, result.exc_string if result.err else None, files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="kernels at once (default 2)")
    parser.add_argument("--book", action="store_true", help="the book's notebooks only, not the decks")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads of each kernel (default 1)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.threads < 1:
        parser.error("--threads must be at least 1")

    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    timeout = int((_config().get("execute") or {}).get("timeout", 600))
    common, _ = seqrmt_cache.configured_dependencies(ROOT)
    paths = book_notebooks() + ([] if args.book else deck_notebooks())
    CACHE.mkdir(parents=True, exist_ok=True)
    cache = get_cache(str(CACHE))
    _, stale = seqrmt_cache.current_keys(CACHE, [str(p) for p in paths], ROOT, common)
    if stale:
        print(f"dependencies changed: {len(stale)} cache entries dropped", flush=True)
    todo = []
    for p in paths:
        try:
            cache.match_cache_notebook(nbformat.read(p, as_version=4))
        except KeyError:
            todo.append(p)
    # the largest (longest-running) notebooks first
    todo.sort(key=lambda p: -p.stat().st_size)
    print(
        f"{len(paths)} notebooks: {len(paths) - len(todo)} in the cache, {len(todo)} to execute "
        f"with {args.jobs} kernel(s) of {args.threads} BLAS thread(s) each",
        flush=True,
    )
    t0 = time.perf_counter()
    failed, done = [], []
    seqrmt_cache.use_data_cache(CACHE)  # the kernels' slow seqrmt results, for the tests and rebuilds
    seqrmt_cache.check_figures()  # the kernels check every figure they draw, as the build's do
    with cf.ProcessPoolExecutor(max_workers=args.jobs, initializer=_limit_threads, initargs=(args.threads,)) as pool:
        futures = [pool.submit(_run, str(p), timeout) for p in todo]
        for fut in cf.as_completed(futures):
            path, text, seconds, error, files = fut.result()
            name = Path(path).relative_to(ROOT).as_posix()
            if error:
                failed.append(name)
                print(f"{name}: FAILED after {seconds:.1f} s\n{error}", file=sys.stderr, flush=True)
                continue
            record = cache.cache_notebook_bundle(
                CacheBundleIn(nbformat.reads(text, as_version=4), path, data={"execution_seconds": seconds}),
                check_validity=False,
                overwrite=True,
            )
            key = seqrmt_cache.dependency_key(ROOT, common, files)
            seqrmt_cache.record_dependencies(CACHE, path, record.hashkey, key, files)
            done.append(f"{name} ({seconds:.1f} s)")
            print(f"{name}: executed in {seconds:.1f} s", flush=True)
    elapsed = time.perf_counter() - t0
    reports = ROOT / "_build" / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    with open(reports / "executions.log", "a", encoding="utf-8") as log:
        log.write(
            f"{time.strftime('%Y-%m-%d %H:%M:%S')} execute_notebooks (--jobs {args.jobs}): "
            f"{len(paths)} notebooks, {len(done)} executed [{', '.join(done)}], "
            f"{len(paths) - len(todo)} from the cache, {len(failed)} failed in {elapsed:.0f} s\n"
        )
    print(f"done in {elapsed:.0f} s" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
