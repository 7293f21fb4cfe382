"""Mutation testing of the core modules: how many small bugs do the unit tests catch?

Not part of the test command.  For each module of ``MODULE_TESTS`` the script lists every
site where one of the operators below applies, keeps a reproducible sample of them (the
``--per-module`` mutants with the smallest SHA-1 of ``(module, operator, stripped source
line, occurrence)``, so the same sites are drawn again when unrelated code changes), and
for each mutant runs the module's fast unit tests (``pytest -x -q``) in a private copy of
the repository.  A mutant is *killed* when the tests fail, *timeout* when they run longer
than ``--timeout-factor`` times the clean run (a hang is a detection too), *survived*
otherwise.  The report (stdout and ``benchmarks/results/mutation_<label>.txt``) gives the
counts per module, the score ``(killed + timeout) / mutants`` and the source lines of every
survivor with their mutation, to be judged equivalent or not by hand.

Operators (on the AST; the mutated node's source segment is replaced in the file text):

* ``binop``: ``+ <-> -``, ``* <-> /``, ``** -> *``, ``// -> /``, ``% -> //``, ``@ -> *``
  (also in augmented assignments);
* ``compare-boundary``: ``< <-> <=``, ``> <-> >=``; ``compare-negate``: ``<`` -> ``>=``,
  ``>`` -> ``<=``, ``<=`` -> ``>``, ``>=`` -> ``<``, ``== <-> !=``, ``is <-> is not``,
  ``in <-> not in``;
* ``boolop``: ``and <-> or``; ``not``: ``not x -> x``; ``neg``: ``-x -> x``;
* ``const``: a number ``n -> n + 1``, ``True <-> False``;
* ``return``: ``return <expr> -> return None``.

Docstrings, strings, type annotations, ``__all__`` and the arguments of ``raise`` are not
mutated.

Usage (from the repository root, with the project's environment)::

    python benchmarks/mutation.py --jobs 2                 # default sample, label = commit id
    python benchmarks/mutation.py --repo /tmp/old --label before
    python benchmarks/mutation.py --list                   # print the sampled mutants only
    python benchmarks/mutation.py --per-module 0           # every mutant (slow: hours)
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

#: module -> the fast unit tests that exercise it (run with ``-x -q``; files missing from
#: the repository under test are left out, so older commits can be measured too).
MODULE_TESTS = {
    "spikes": ["tests/test_spikes.py", "tests/test_inputs.py"],
    "spectrum": ["tests/test_spectrum.py", "tests/test_fixed_T_bulk.py", "tests/test_inputs.py"],
    "attention": ["tests/test_attention.py", "tests/test_inputs.py"],
    "model": ["tests/test_model.py", "tests/test_inputs.py"],
}

BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
         ast.Pow: ast.Mult, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.MatMult: ast.Mult}
CMP_BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
CMP_NEGATE = {ast.Lt: ast.GtE, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.GtE: ast.Lt,
              ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
              ast.In: ast.NotIn, ast.NotIn: ast.In}
SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
          ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.Lt: "<", ast.LtE: "<=",
          ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is",
          ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.And: "and", ast.Or: "or"}


@dataclass
class Mutant:
    module: str
    operator: str
    lineno: int
    col: int
    end_lineno: int
    end_col: int
    replacement: str
    original: str
    key: str = ""
    status: str = ""
    seconds: float = 0.0
    detail: str = ""

    @property
    def name(self) -> str:
        return f"{self.module}.py:{self.lineno}:{self.col} {self.operator}"


def _skip_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes that are not mutated: docstrings, annotations, __all__, raise, f-strings."""
    skip: set[int] = set()

    def mark(node):
        for sub in ast.walk(node):
            skip.add(id(sub))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                mark(body[0])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.returns is not None:
                mark(node.returns)
            for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
                if a.annotation is not None:
                    mark(a.annotation)
        if isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        if isinstance(node, (ast.Raise, ast.JoinedStr, ast.ImportFrom, ast.Import)):
            mark(node)
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                mark(node)
    return skip


def _segment(node: ast.AST) -> tuple[int, int, int, int]:
    return node.lineno, node.col_offset, node.end_lineno, node.end_col_offset


def enumerate_mutants(module: str, source: str) -> list[Mutant]:
    """Every mutant of ``source`` (see the module docstring for the operators)."""
    tree = ast.parse(source)
    skip = _skip_nodes(tree)
    lines = source.splitlines()
    out: list[Mutant] = []

    def add(node, operator, new_node_src):
        ln, c, eln, ec = _segment(node)
        orig = ast.get_source_segment(source, node) or ""
        out.append(Mutant(module, operator, ln, c, eln, ec, new_node_src, orig))

    def expr(node):   # parenthesized source of a mutated expression
        return "(" + ast.unparse(node) + ")"

    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in BINOP:
            new = ast.BinOp(left=node.left, op=BINOP[type(node.op)](), right=node.right)
            add(node, f"binop {SYMBOL[type(node.op)]} -> {SYMBOL[type(new.op)]}", expr(new))
        elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP:
            new = ast.AugAssign(target=node.target, op=BINOP[type(node.op)](), value=node.value)
            add(node, f"binop {SYMBOL[type(node.op)]}= -> {SYMBOL[type(new.op)]}=", ast.unparse(new))
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                for table, label in ((CMP_BOUNDARY, "compare-boundary"), (CMP_NEGATE, "compare-negate")):
                    if type(op) in table:
                        ops = list(node.ops)
                        ops[i] = table[type(op)]()
                        new = ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
                        add(node, f"{label} {SYMBOL[type(op)]} -> {SYMBOL[type(ops[i])]}", expr(new))
        elif isinstance(node, ast.BoolOp):
            new = ast.BoolOp(op=ast.Or() if isinstance(node.op, ast.And) else ast.And(), values=node.values)
            add(node, f"boolop {SYMBOL[type(node.op)]} -> {SYMBOL[type(new.op)]}", expr(new))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            add(node, "not x -> x" if isinstance(node.op, ast.Not) else "neg -x -> x", expr(node.operand))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            if isinstance(node.value, bool):
                add(node, f"const {node.value} -> {not node.value}", repr(not node.value))
            else:
                add(node, f"const {node.value!r} -> {node.value + 1!r}", repr(node.value + 1))
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            add(node, "return -> return None", "return None")
    # stable keys: module, operator, stripped text of the first line, occurrence index
    seen: dict[tuple, int] = {}
    for m in sorted(out, key=lambda m: (m.lineno, m.col, m.operator)):
        base = (m.module, m.operator, lines[m.lineno - 1].strip(), m.original)
        k = seen.get(base, 0)
        seen[base] = k + 1
        m.key = hashlib.sha1(repr(base + (k,)).encode()).hexdigest()
    return sorted(out, key=lambda m: (m.lineno, m.col, m.operator))


def apply(source: str, m: Mutant) -> str:
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln.encode()))
    data = source.encode()
    start = offsets[m.lineno - 1] + m.col
    end = offsets[m.end_lineno - 1] + m.end_col
    return (data[:start] + m.replacement.encode() + data[end:]).decode()


def diff_lines(source: str, m: Mutant) -> str:
    old = source.splitlines()[m.lineno - 1:m.end_lineno]
    new_src = apply(source, m).splitlines()
    span = m.end_lineno - m.lineno + 1 + (len(new_src) - len(source.splitlines()))
    new = new_src[m.lineno - 1:m.lineno - 1 + span]
    return "\n".join([f"    - {ln.strip()}" for ln in old] + [f"    + {ln.strip()}" for ln in new])


def _copy_repo(repo: Path, dest: Path) -> None:
    for name in ("seqrmt", "tests"):
        shutil.copytree(repo / name, dest / name, ignore=shutil.ignore_patterns("__pycache__", "browser"))
    for name in ("pyproject.toml", "setup.cfg", "conftest.py"):
        if (repo / name).exists():
            shutil.copy2(repo / name, dest / name)


def _env(copy: Path) -> dict:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    return env


def run_tests(copy: Path, tests: list[str], timeout: float | None) -> tuple[str, float, str]:
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
           "--no-header", "-W", "ignore", *tests]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=copy, env=_env(copy), capture_output=True, text=True,
                              timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, ""
    dt = time.perf_counter() - t0
    tail = [ln for ln in proc.stdout.splitlines() if ln.startswith("FAILED") or ln.startswith("ERROR")]
    return ("survived" if proc.returncode == 0 else "killed"), dt, (tail[0] if tail else proc.stdout[-200:])


def main(argv=None) -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repo", type=Path, default=here.parent, help="repository to mutate (default: this one)")
    p.add_argument("--modules", nargs="*", default=list(MODULE_TESTS), choices=list(MODULE_TESTS))
    p.add_argument("--per-module", type=int, default=50,
                   help="mutants sampled per module (smallest SHA-1 keys); 0 = all")
    p.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    p.add_argument("--timeout-factor", type=float, default=4.0,
                   help="timeout = factor x clean run time (+30 s) per mutant")
    p.add_argument("--label", default=None, help="report name (default: the repo's commit id)")
    p.add_argument("--out", type=Path, default=here / "results", help="report folder")
    p.add_argument("--list", action="store_true", help="only list the sampled mutants")
    args = p.parse_args(argv)
    repo = args.repo.resolve()
    try:
        commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "seqrmt", "tests"],
                               capture_output=True, text=True).stdout.strip()
        commit += " (with uncommitted changes)" if dirty else ""
    except (subprocess.CalledProcessError, FileNotFoundError):
        commit = "unknown"
    label = args.label or commit.split()[0]
    tests_for = {mod: [t for t in MODULE_TESTS[mod] if (repo / t).is_file()] for mod in args.modules}

    sources, population, sample = {}, {}, []
    for mod in args.modules:
        src = (repo / "seqrmt" / f"{mod}.py").read_text()
        sources[mod] = src
        muts = enumerate_mutants(mod, src)
        population[mod] = len(muts)
        chosen = sorted(muts, key=lambda m: m.key)
        if args.per_module:
            chosen = chosen[:args.per_module]
        sample += sorted(chosen, key=lambda m: (m.lineno, m.col))
    head = [f"Mutation run on {repo} at commit {commit}",
            f"started {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, jobs={args.jobs}",
            "population (all mutants) / sampled: " + ", ".join(
                f"{m}.py {population[m]}/{sum(x.module == m for x in sample)}" for m in args.modules)]
    print("\n".join(head), flush=True)
    if args.list:
        for m in sample:
            print(m.name)
            print(diff_lines(sources[m.module], m))
        return 0

    with tempfile.TemporaryDirectory(prefix="seqrmt-mutation-") as tmp:
        copies: list[Path] = []
        for j in range(max(1, args.jobs)):
            c = Path(tmp) / f"w{j}"
            c.mkdir()
            _copy_repo(repo, c)
            copies.append(c)
        # clean runs: the tests must pass unmutated; their time sets the timeouts
        clean: dict[str, float] = {}
        for mod in args.modules:
            status, dt, detail = run_tests(copies[0], tests_for[mod], None)
            if status != "survived":
                print(f"clean run of {tests_for[mod]} fails: {detail}")
                return 2
            clean[mod] = dt
            print(f"clean run for {mod}.py ({' '.join(tests_for[mod])}): {dt:.1f} s", flush=True)
        free = list(copies)
        lock = threading.Lock()

        def one(m: Mutant) -> Mutant:
            with lock:
                c = free.pop()
            target = c / "seqrmt" / f"{m.module}.py"
            try:
                target.write_text(apply(sources[m.module], m))
                try:
                    compile(target.read_text(), str(target), "exec")
                except SyntaxError as e:   # should not happen; reported, not counted as killed
                    m.status, m.detail = "invalid", str(e)
                    return m
                m.status, m.seconds, m.detail = run_tests(
                    c, tests_for[m.module], args.timeout_factor * clean[m.module] + 30)
            finally:
                target.write_text(sources[m.module])
                with lock:
                    free.append(c)
            return m

        done = 0
        with cf.ThreadPoolExecutor(max_workers=len(copies)) as ex:
            for m in ex.map(one, sample):
                done += 1
                print(f"[{done}/{len(sample)}] {m.status:8s} {m.seconds:6.1f}s {m.name}", flush=True)

    lines = head + ["", f"{'module':12s} {'mutants':>7s} {'killed':>7s} {'timeout':>7s} {'survived':>8s} {'score':>6s}"]
    tot = {"n": 0, "k": 0, "t": 0, "s": 0}
    for mod in args.modules:
        ms = [m for m in sample if m.module == mod and m.status != "invalid"]
        k = sum(m.status == "killed" for m in ms)
        t = sum(m.status == "timeout" for m in ms)
        s = sum(m.status == "survived" for m in ms)
        for key, v in zip("nkts", (len(ms), k, t, s)):
            tot[key] += v
        lines.append(f"{mod + '.py':12s} {len(ms):7d} {k:7d} {t:7d} {s:8d} {(k + t) / max(1, len(ms)):6.1%}")
    lines.append(f"{'total':12s} {tot['n']:7d} {tot['k']:7d} {tot['t']:7d} {tot['s']:8d} "
                 f"{(tot['k'] + tot['t']) / max(1, tot['n']):6.1%}")
    invalid = [m for m in sample if m.status == "invalid"]
    if invalid:
        lines.append(f"invalid mutants (not counted): {len(invalid)}")
    lines += ["", "Survivors (judge each: equivalent, or a missing test):"]
    for m in sample:
        if m.status == "survived":
            lines += [f"  {m.name}", diff_lines(sources[m.module], m)]
    report = "\n".join(lines)
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"mutation_{label}.txt"
    path.write_text(report + "\n")
    print(f"\nreport written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
