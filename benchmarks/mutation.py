#!/usr/bin/env python
"""Mutation testing of seqrmt with Cosmic Ray: how many small bugs do the unit tests catch?

Not a benchmark and not part of the test command (see ``benchmarks/README.md``).  Cosmic Ray
(``pip install cosmic-ray==8.7.0``) makes the mutants and keeps the sessions; this script
chooses a reproducible sample, runs it on a ``concurrent.futures`` executor (the same
``--executor process|dask|serial`` as ``benchmarks/atlas.py``), and writes the report::

    python benchmarks/mutation.py                          # 30 mutants of each module, 2 processes
    python benchmarks/mutation.py --modules spikes model --per-module 50
    python benchmarks/mutation.py --per-module 0           # every mutant (the full population)
    python benchmarks/mutation.py --executor dask --scheduler tcp://host:8786 --per-module 0
    python benchmarks/mutation.py --list                   # the sampled mutants only

For every module (``MODULE_TESTS``) a Cosmic Ray session is initialized in
``_build/mutation/<module>.sqlite`` (``cosmic-ray init`` with the configuration written next
to it, then ``cr-filter-operators`` drops the operators of ``EXCLUDED_OPERATORS``).  The
sample is the ``--per-module`` mutants with the smallest SHA-1 of (module, operator, text of
the mutated line, occurrence of that text), so the same sites are drawn again when unrelated
lines change; every other mutant is marked *skipped* in the session.  Sessions are
incremental: a module whose source is unchanged keeps its session, and only mutants without
a result are run (``--fresh`` starts again).  ``cr-report _build/mutation/<module>.sqlite``
and ``cr-html`` read the sessions as usual.

One unit of work is one mutant: the worker applies it with Cosmic Ray's ``use_mutation`` to
its own copy of the repository (``seqrmt/`` and ``tests/``, shipped with the task, unpacked
once per worker process and thread) and runs the module's unit tests there
(``pytest -x -q``); the mutant is killed when they fail, counted as a timeout (a detection,
as Cosmic Ray counts it) when they run longer than ``--timeout-factor`` times the clean run
plus 30 s, and survives otherwise.  A worker needs nothing of this machine, so a Dask cluster
whose workers have the requirements installed runs the full population as it runs the atlas.

Survivors judged equivalent are listed in ``EQUIVALENT`` (by their key, printed with every
survivor) with the reason; the score is detected / (sampled - equivalent).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import difflib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: module -> the fast unit tests that exercise it (files missing from the repository under
#: test are left out, so older commits can be measured too).
MODULE_TESTS = {
    "spikes": ["tests/test_spikes.py", "tests/test_inputs.py"],
    "spectrum": ["tests/test_spectrum.py", "tests/test_fixed_T_bulk.py", "tests/test_inputs.py"],
    "attention": ["tests/test_attention.py", "tests/test_inputs.py"],
    "model": ["tests/test_model.py", "tests/test_inputs.py"],
    "learning": ["tests/test_learning.py", "tests/test_inputs.py"],
    "toolkit": ["tests/test_toolkit.py", "tests/test_inputs.py"],
}

#: Operators left out of the population (``cr-filter-operators``): replacing an arithmetic
#: operator by a bitwise or shift operator only raises TypeError on floats (trivially killed,
#: it would inflate the score), and so does ``~`` on a float.
EXCLUDED_OPERATORS = [
    r"^core/ReplaceBinaryOperator_.*_(BitOr|BitAnd|BitXor|LShift|RShift)$",
    r"^core/ReplaceUnaryOperator_.*_Invert$",
]

#: Survivors judged equivalent: key (as printed in the report) -> why no test can tell.
EQUIVALENT: dict[str, str] = {
    "spikes.py|NumberReplacer|th = np.where(pop, theta, kappa * (delta + np.sqrt(delta)) * 2 + 1.0)"
    "   # safe dummy|3": "placeholder in entries the enclosing np.where discards",
    "spikes.py|NumberReplacer|sample_overlap=np.where(samp, lam * dphi / np.where(samp, phi, 1.0), 0.0),|1": "placeholder in entries the outer np.where discards",
    "spikes.py|ReplaceBinaryOperator_Mul_Mod|return kappa * float(brentq(f, lo, hi, xtol=1e-14 * hi, "
    "rtol=1e-13))|1": "absolute tolerance 1e-14 instead of 1e-14 hi; brentq stops on rtol = 1e-13 first",
    'spikes.py|ReplaceComparisonOperator_Gt_NotEq|return float(d / g) if g > 0 else float("inf")|0': "critical_gamma never returns a negative value (0, 1/A with A > 0, or inf)",
    "spectrum.py|ReplaceComparisonOperator_GtE_LtE|sq = np.where(np.abs(B + sq) >= np.abs(B - sq), sq, -sq)|0": "the sign that avoids cancellation in the quadratic's roots: the same roots in exact "
    "arithmetic, only their rounding changes",
    "attention.py|ReplaceComparisonOperator_Eq_LtE|if len(idx) == 0:|0": "a length is never negative",
    "attention.py|NumberReplacer|def _simplex_ascent(R: np.ndarray, *, n_random: int = 200, max_iter: int = 5000)"
    " -> np.ndarray:|0": "one random start more among 200; the starts are redundant by design",
    "attention.py|ReplaceComparisonOperator_GtE_Gt|still = np.max(np.abs(Y - X), axis=0) >= 1e-13|0": "a tie of floating-point values in a convergence test",
    "attention.py|ReplaceComparisonOperator_Eq_GtE|if it % 20 == 19:                                "
    "# active-set polish of each support|0": "it % 20 is at most 19, so >= 19 is == 19",
    "attention.py|ReplaceBinaryOperator_Mul_Div|w = np.where(w > 1e-12 * w.max(), w, 0.0)|0": "w.max() of unit weights is in [1/sqrt(T), 1]: the cut-off stays at the 1e-12 level",
    "model.py|ReplaceComparisonOperator_Lt_LtE|if lam[0] < -1e-10 * R.shape[0]:|0": "a tie of floating-point values",
    "model.py|NumberReplacer|g = rng.standard_normal((N, R.shape[0])) @ (U * np.sqrt(np.clip(lam, 0, None))).T|0": "R is square (checked)",
    "model.py|NumberReplacer|g = rng.standard_normal((N, R.shape[0])) @ (U * np.sqrt(np.clip(lam, 0, None))).T|1": "R is square (checked)",
    "model.py|ReplaceComparisonOperator_Eq_GtE|xi[xi == 0] = 1.0|0": "xi = sign(g) is -1, 0 or 1 here: setting the entries >= 0 to 1 only changes the zeros, as before",
    'learning.py|ReplaceComparisonOperator_GtE_Gt|hist["accuracy"].append(float(np.mean(np.where(f >= 0, '
    "1.0, -1.0) == y)))|0": "a score exactly 0 (a tie of floating-point values)",
    "learning.py|NumberReplacer|T = R.shape[0]|2": "R is square (checked)",
    "learning.py|NumberReplacer|for _ in range(4 * T * T):|0": "an iteration cap of the active-set loop, which stops on its own condition first",
    "learning.py|ReplaceComparisonOperator_Gt_GtE|neg = idx[np.argmin(x if denom > 0 else -x)]|0": "a tie of floating-point values (denom exactly 0)",
    "toolkit.py|ReplaceBinaryOperator_Add_FloorDiv|safe = np.where(above, th, 1.0 + np.sqrt(gamma))          "
    "# dummy value below the threshold|0": "placeholder in entries the enclosing np.where discards",
}

PYTEST = ["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header", "-W", "ignore"]


# ------------------------------------------------------------------ sessions and sample
def _cosmic(tool: str, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name(tool)
    cmd = [str(exe)] if exe.exists() else [tool]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, check=True)


def _config(repo: Path, module: str, tests: list[str], timeout: float) -> str:
    return "\n".join(
        [
            "[cosmic-ray]",
            f'module-path = "seqrmt/{module}.py"',
            f"timeout = {timeout:.0f}",
            "excluded-modules = []",
            f'test-command = "{" ".join(["python"] + PYTEST + tests)}"',
            "",
            "[cosmic-ray.distributor]",
            'name = "local"',
            "",
            "[cosmic-ray.filters.operators-filter]",
            "exclude-operators = [" + ", ".join(json.dumps(x) for x in EXCLUDED_OPERATORS) + "]",
            "",
        ]
    )


def left_alone(code: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Spans that are not mutated (as before Cosmic Ray): annotations (not evaluated at run
    time), ``raise`` statements and f-strings (the text of messages), ``__all__``."""
    import ast

    spans = []

    def add(node):
        spans.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)))

    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.returns is not None:
                add(node.returns)
            args = node.args
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if a is not None and a.annotation is not None:
                    add(a.annotation)
        elif isinstance(node, ast.AnnAssign):
            add(node.annotation)
        elif isinstance(node, (ast.Raise, ast.JoinedStr)):
            add(node)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            add(node)
    return spans


def _inside(pos: tuple[int, int], spans) -> bool:
    return any(start <= tuple(pos) < end for start, end in spans)


def mutant_key(module: str, operator: str, line: str, k: int) -> str:
    return f"{module}.py|{operator.removeprefix('core/')}|{line.strip()}|{k}"


def open_session(repo: Path, work: Path, module: str, tests: list[str], timeout: float, fresh: bool) -> Path:
    """The session of one module, initialized and filtered unless it is current.

    After ``cosmic-ray init`` and ``cr-filter-operators`` the ids of the mutants the filter
    kept (the population) are saved next to the session (``<module>.population.json``).
    """
    from cosmic_ray.work_db import WorkDB, use_db

    source = (repo / "seqrmt" / f"{module}.py").read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    db, cfg, stamp = work / f"{module}.sqlite", work / f"{module}.toml", work / f"{module}.sha256"
    cfg.write_text(_config(repo, module, tests, timeout))
    if fresh or not db.exists() or not stamp.exists() or stamp.read_text() != digest:
        db.unlink(missing_ok=True)
        with contextlib.chdir(repo):
            _cosmic("cosmic-ray", "init", str(cfg), str(db))
            _cosmic("cr-filter-operators", str(db), str(cfg))
        with use_db(str(db), WorkDB.Mode.open) as wdb:
            filtered = {job for job, _ in wdb.results}
            kept = sorted(item.job_id for item in wdb.work_items if item.job_id not in filtered)
        db.with_suffix(".population.json").write_text(json.dumps(kept))
        stamp.write_text(digest)
    return db


def sample(repo: Path, db: Path, module: str, per_module: int) -> tuple[list[tuple[str, object]], int]:
    """(key, work item) of the sample and the size of the population.

    Every mutant of the population outside the sample that has no result is marked skipped
    in the session, so that ``cr-report`` shows the sample.
    """
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    lines = (repo / "seqrmt" / f"{module}.py").read_text().splitlines()
    population = set(json.loads(db.with_suffix(".population.json").read_text()))
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        have = dict(wdb.results)
        items = sorted(
            wdb.work_items,
            key=lambda it: (it.mutations[0].start_pos, it.mutations[0].operator_name, it.mutations[0].occurrence),
        )
        seen: dict[tuple, int] = {}
        keyed = []
        for item in items:
            spec = item.mutations[0]
            line = lines[spec.start_pos[0] - 1]
            base = (spec.operator_name, line.strip())
            k = seen.get(base, 0)
            seen[base] = k + 1
            key = mutant_key(module, spec.operator_name, line, k)
            if item.job_id in population:
                keyed.append((hashlib.sha1(key.encode()).hexdigest(), key, item))
        keyed.sort(key=lambda t: t[0])
        # only mutants that compile (Cosmic Ray also reads the "*" that separates keyword-only
        # parameters as a multiplication); the others are recorded as no-test
        import cosmic_ray.plugins
        from cosmic_ray.mutating import mutate_code

        code = (repo / "seqrmt" / f"{module}.py").read_text()
        spans = left_alone(code)
        alone = [t[2].job_id for t in keyed if _inside(t[2].mutations[0].start_pos, spans)]
        if alone:
            wdb.set_multiple_results(alone, WorkResult(worker_outcome=WorkerOutcome.NO_TEST, output="left alone"))
        keyed = [t for t in keyed if t[2].job_id not in set(alone)]
        chosen, invalid = [], []
        for entry in keyed:
            if per_module and len(chosen) >= per_module:
                break
            spec = entry[2].mutations[0]
            mutated = mutate_code(code, cosmic_ray.plugins.get_operator(spec.operator_name)(), spec.occurrence)
            try:
                compile(mutated, spec.module_path.name, "exec")
            except (SyntaxError, TypeError):
                invalid.append(entry[2].job_id)
                continue
            chosen.append(entry)
        if invalid:
            wdb.set_multiple_results(invalid, WorkResult(worker_outcome=WorkerOutcome.NO_TEST, output="invalid"))
        chosen_ids = {t[2].job_id for t in chosen} | set(invalid)
        rest = [t[2].job_id for t in keyed if t[2].job_id not in chosen_ids and t[2].job_id not in have]
        if rest:
            wdb.set_multiple_results(rest, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    return [(key, item) for _, key, item in sorted(chosen, key=lambda t: t[2].mutations[0].start_pos)], len(
        keyed
    ) - len(invalid)


# ------------------------------------------------------------------ one mutant, anywhere
def bundle(repo: Path) -> bytes:
    """``seqrmt/``, ``tests/`` (without the browser checks) and ``pyproject.toml`` as a tar.gz."""
    buf = io.BytesIO()
    skip = re.compile(r"(^|/)(__pycache__|browser|\.[^/]+)(/|$)")
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in ("seqrmt", "tests", "pyproject.toml"):
            tar.add(repo / name, arcname=name, filter=lambda ti: None if skip.search(ti.name) else ti)
    return buf.getvalue()


_COPIES: dict[tuple, Path] = {}
_LOCK = threading.Lock()


def _copy(payload: bytes) -> Path:
    key = (os.getpid(), threading.get_ident(), hashlib.sha1(payload).hexdigest())
    with _LOCK:
        if key not in _COPIES:
            dest = Path(tempfile.mkdtemp(prefix="seqrmt-mutant-"))
            with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
                tar.extractall(dest, filter="data")
            _COPIES[key] = dest
    return _COPIES[key]


def run_tests(copy: Path, tests: list[str], timeout: float | None) -> tuple[str, float, str]:
    env = dict(
        os.environ,
        PYTHONPATH=str(copy),
        PYTHONDONTWRITEBYTECODE="1",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        MPLBACKEND="Agg",
    )
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, *PYTEST, *tests],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, ""
    tail = [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    return (
        ("survived" if proc.returncode == 0 else "killed"),
        time.perf_counter() - t0,
        (tail[0] if tail else proc.stdout[-300:]),
    )


def run_mutant(
    payload: bytes, module_path: str, operator: str, occurrence: int, tests: list[str], timeout: float | None
) -> dict:
    """Apply one mutant to this worker's copy, run the tests, put the module back."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import use_mutation

    copy = _copy(payload)
    target = copy / module_path
    op = cosmic_ray.plugins.get_operator(operator)()
    with use_mutation(target, op, occurrence) as (original, mutated):
        if mutated is None:
            return {"status": "no-test", "seconds": 0.0, "detail": "", "diff": ""}
        try:  # e.g. the "*" that separates keyword-only parameters, read as a multiplication
            compile(mutated, module_path, "exec")
        except SyntaxError as err:
            return {"status": "invalid", "seconds": 0.0, "detail": str(err), "diff": ""}
        status, seconds, detail = run_tests(copy, tests, timeout)
    diff = "\n".join(
        difflib.unified_diff(original.splitlines(), mutated.splitlines(), module_path, module_path, n=0, lineterm="")
    )
    return {"status": status, "seconds": seconds, "detail": detail, "diff": diff}


def run_clean(payload: bytes, tests: list[str]) -> tuple[str, float, str]:
    return run_tests(_copy(payload), tests, None)


@contextlib.contextmanager
def make_executor(kind: str, jobs: int, scheduler: str | None = None):
    """A concurrent.futures executor: 'serial', 'process' or 'dask'.

    The executors of benchmarks/atlas.py, except that 'serial' is a one-thread pool here
    (the mutants are always submitted to an executor).
    """
    if kind == "serial":
        with cf.ThreadPoolExecutor(1) as ex:
            yield ex
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from atlas import make_executor as atlas_executor

    with atlas_executor(kind, jobs, scheduler) as ex:
        yield ex


# ------------------------------------------------------------------ main
def _record(db: Path, job_id: str, res: dict) -> None:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    if res["status"] in ("no-test", "invalid"):
        result = WorkResult(worker_outcome=WorkerOutcome.NO_TEST, output=res["detail"])
    else:
        outcome = TestOutcome.SURVIVED if res["status"] == "survived" else TestOutcome.KILLED
        result = WorkResult(
            worker_outcome=WorkerOutcome.NORMAL,
            test_outcome=outcome,
            diff=res["diff"],
            output=("timeout" if res["status"] == "timeout" else res["detail"]),
        )
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        wdb.set_result(job_id, result)


def _status(result) -> str:
    if result is None:
        return "pending"
    if result.worker_outcome != "normal":
        return getattr(result.worker_outcome, "value", str(result.worker_outcome))
    if result.test_outcome == "killed":
        return "timeout" if result.output == "timeout" else "killed"
    return getattr(result.test_outcome, "value", str(result.test_outcome))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repo", type=Path, default=ROOT, help="repository to mutate (default: this one)")
    p.add_argument("--modules", nargs="*", default=list(MODULE_TESTS), choices=list(MODULE_TESTS))
    p.add_argument("--per-module", type=int, default=30, help="mutants sampled per module; 0 = all")
    p.add_argument("--executor", choices=("process", "dask", "serial"), default="process")
    p.add_argument("--jobs", type=int, default=2, help="workers of the process pool / local Dask cluster")
    p.add_argument("--scheduler", default=None, help="address of a running Dask scheduler")
    p.add_argument(
        "--timeout-factor", type=float, default=4.0, help="timeout = factor x clean run time (+30 s) per mutant"
    )
    p.add_argument("--work", type=Path, default=None, help="session folder (default: <repo>/_build/mutation)")
    p.add_argument("--fresh", action="store_true", help="initialize the sessions again (drop all results)")
    p.add_argument("--label", default=None, help="report name (default: the repo's commit id)")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results", help="report folder")
    p.add_argument("--list", action="store_true", help="only list the sampled mutants")
    p.add_argument(
        "--report", action="store_true", help="only write the report from the sessions (no clean runs, no mutant run)"
    )
    args = p.parse_args(argv)
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        print("Cosmic Ray is not installed: pip install cosmic-ray==8.7.0", file=sys.stderr)
        return 2
    repo = args.repo.resolve()
    work = (args.work or repo / "_build" / "mutation").resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        commit = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "seqrmt", "tests"], capture_output=True, text=True
        ).stdout.strip()
        commit += " (with uncommitted changes)" if dirty else ""
    except (subprocess.CalledProcessError, FileNotFoundError):
        commit = "unknown"
    label = args.label or commit.split()[0]
    tests_for = {m: [t for t in MODULE_TESTS[m] if (repo / t).is_file()] for m in args.modules}
    payload = bundle(repo)
    started = time.perf_counter()

    with make_executor(args.executor, args.jobs, args.scheduler) as ex:
        clean: dict[str, float] = {}
        if not (args.list or args.report):
            for mod, (status, dt, detail) in zip(
                args.modules, ex.map(run_clean, [payload] * len(args.modules), [tests_for[m] for m in args.modules])
            ):
                if status != "survived":
                    print(f"clean run of {tests_for[mod]} fails: {detail}")
                    return 2
                clean[mod] = dt
                print(f"clean run for {mod}.py ({' '.join(tests_for[mod])}): {dt:.1f} s", flush=True)
        sessions, samples, population = {}, {}, {}
        for mod in args.modules:
            timeout = args.timeout_factor * clean.get(mod, 60.0) + 30
            sessions[mod] = open_session(repo, work, mod, tests_for[mod], timeout, args.fresh)
            samples[mod], population[mod] = sample(repo, sessions[mod], mod, args.per_module)
        head = [
            f"Mutation run (Cosmic Ray) on {repo} at commit {commit}",
            f"started {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, executor={args.executor}, "
            f"jobs={args.jobs}",
            "population (mutants after the operator filter) / sampled: "
            + ", ".join(f"{m}.py {population[m]}/{len(samples[m])}" for m in args.modules),
        ]
        print("\n".join(head), flush=True)
        if args.list:
            for mod in args.modules:
                for key, item in samples[mod]:
                    print(key)
            return 0

        from cosmic_ray.work_db import WorkDB, use_db

        results: dict[str, object] = {}
        todo = []
        for mod in args.modules:
            with use_db(str(sessions[mod]), WorkDB.Mode.open) as wdb:
                have = dict(wdb.results)
            for key, item in samples[mod]:
                if item.job_id in have and have[item.job_id].worker_outcome != "skipped":
                    results[item.job_id] = have[item.job_id]
                else:  # no result yet, or skipped by a smaller sample before
                    todo.append((mod, key, item))
        print(
            f"{len(todo)} mutants to run ({sum(len(s) for s in samples.values()) - len(todo)} have a result "
            "in their session)",
            flush=True,
        )
        if args.report:
            todo = []
        futures = {}
        for mod, key, item in todo:
            spec = item.mutations[0]
            timeout = args.timeout_factor * clean[mod] + 30
            fut = ex.submit(
                run_mutant, payload, str(spec.module_path), spec.operator_name, spec.occurrence, tests_for[mod], timeout
            )
            futures[fut] = (mod, key, item)
        for n, fut in enumerate(cf.as_completed(futures), 1):
            mod, key, item = futures[fut]
            res = fut.result()
            _record(sessions[mod], item.job_id, res)
            print(f"[{n}/{len(todo)}] {res['status']:8s} {res['seconds']:6.1f}s {key}", flush=True)

    lines = head + [
        f"elapsed {time.perf_counter() - started:.0f} s",
        "",
        f"{'module':12s} {'sampled':>7s} {'killed':>7s} {'timeout':>7s} {'survived':>8s} "
        f"{'equiv.':>6s} {'score':>7s} {'raw':>6s}",
    ]
    survivors = []
    tot = dict.fromkeys(("n", "k", "t", "s", "e"), 0)
    for mod in args.modules:
        with use_db(str(sessions[mod]), WorkDB.Mode.open) as wdb:
            have = dict(wdb.results)
        counts = dict.fromkeys(("killed", "timeout", "survived", "no-test"), 0)  # no-test: not a valid mutant
        equivalent = 0
        for key, item in samples[mod]:
            st = _status(have.get(item.job_id))
            counts[st] = counts.get(st, 0) + 1
            if st == "survived":
                equivalent += key in EQUIVALENT
                survivors.append((key, have[item.job_id].diff))
        n = len(samples[mod]) - counts.get("no-test", 0)
        det = counts["killed"] + counts["timeout"]
        for k, v in zip("nktse", (n, counts["killed"], counts["timeout"], counts["survived"], equivalent)):
            tot[k] += v
        lines.append(
            f"{mod + '.py':12s} {n:7d} {counts['killed']:7d} {counts['timeout']:7d} "
            f"{counts['survived']:8d} {equivalent:6d} {det}/{n - equivalent:<5d} {det / max(1, n):6.1%}"
        )
    det = tot["k"] + tot["t"]
    lines.append(
        f"{'total':12s} {tot['n']:7d} {tot['k']:7d} {tot['t']:7d} {tot['s']:8d} {tot['e']:6d} "
        f"{det}/{tot['n'] - tot['e']:<5d} {det / max(1, tot['n']):6.1%}"
    )
    lines.append(f"score (detected / non-equivalent): {det / max(1, tot['n'] - tot['e']):.1%}")
    lines += ["", "Survivors (key, then the diff; equivalent ones with the reason):"]
    for key, diff in survivors:
        lines.append(f"  {key}" + (f"   [equivalent: {EQUIVALENT[key]}]" if key in EQUIVALENT else ""))
        lines += [
            f"    {ln}"
            for ln in (diff or "").splitlines()
            if ln.startswith(("-", "+")) and not ln.startswith(("---", "+++"))
        ]
    report = "\n".join(lines)
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"mutation_{label}.txt"
    path.write_text(report + "\n")
    print(f"\nreport written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
