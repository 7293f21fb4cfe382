"""Generate the students' notebooks and the autograders of the problem sets (otter-grader).

Each master notebook ``problems/masters/<set>.ipynb`` holds the questions, their solutions, their
public checks and their hidden tests (one per graded part) in Otter Assign's notebook format.  This script runs ``otter assign`` on
every master (in this process, one import of Otter for all of them) and writes, for each set,
into ``_build/problems/<set>/`` (never into the source tree)::

    student/<set>.ipynb        the notebook handed out: questions, blank answer cells, public checks
    autograder/<set>.ipynb     the same notebook with the solutions (what full marks look like)
    autograder.zip             the grader: the hidden tests, for ``otter run`` and Gradescope

``released/<set>.ipynb``, the solutions of each set listed (as ``problems/<set>``) in
``seqrmt_released_solutions`` of ``_config.yml``, the release list of the chapters' solutions, and
``_build/problems/manifest.json``: every set with its questions, their points and graded parts, the
variables each question reads and the chapter it builds on.

The Gradescope image installs the packages of ``_build/problems/requirements.txt``, written
here from ``binder/requirements.txt`` (the readers' packages), with ``seqrmt`` taken from the
repository named in ``_config.yml``.

Usage::

    python problems/generate.py                 # every set
    python problems/generate.py ps3_bbp         # one set
    python problems/generate.py --out DIR       # another output folder
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import io
import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
MASTERS = ROOT / "problems" / "masters"
OUT = ROOT / "_build" / "problems"


def masters() -> list[Path]:
    """The master notebooks, in the order of the chapters."""
    return sorted(MASTERS.glob("ps[0-9]_*.ipynb"))


def _raw_config(cell, marker: str) -> dict | None:
    """The YAML of a raw cell that starts with ``# <marker>``, else None."""
    if cell.cell_type != "raw":
        return None
    lines = cell.source.strip().splitlines()
    if not lines or lines[0].strip().upper() != f"# {marker}":
        return None
    return yaml.safe_load("\n".join(lines[1:])) or {}


#: The first and last lines of a test case's configuration in a master (Otter Assign's syntax).
_TEST_CONFIG = re.compile(r'^"""\s*#\s*BEGIN TEST CONFIG\s*\n(.*?)\n"""\s*#\s*END TEST CONFIG\s*\n', re.S)


def _test_case(source: str) -> dict:
    """One test cell of a master: its function's name, parameters and source (without the call that
    ends the cell), and its configuration (``hidden``, ``points``)."""
    match = _TEST_CONFIG.match(source)
    config = (yaml.safe_load(match.group(1)) or {}) if match else {}
    code = source[match.end() :] if match else source
    tree = ast.parse(code)
    func = next((node for node in tree.body if isinstance(node, ast.FunctionDef)), None)
    if func is None:
        raise ValueError(f"a test cell without a test function: {source[:80]!r}")
    lines = code.splitlines()
    return {
        "test": func.name,
        "reads": [a.arg for a in func.args.args],
        "hidden": bool(config.get("hidden", False)),
        "points": config.get("points"),
        "source": "\n".join(lines[func.lineno - 1 : func.end_lineno]),
    }


def _cases(master: Path) -> list[tuple[dict, list[dict]]]:
    """Each question of a master (its ``# BEGIN QUESTION`` config) with its test cases, in order."""
    nb = nbformat.read(master, as_version=4)
    found, in_tests = [], False
    for cell in nb.cells:
        config = _raw_config(cell, "BEGIN QUESTION")
        if config is not None:
            found.append((config, []))
            continue
        if cell.cell_type == "raw" and cell.source.strip().upper() in ("# BEGIN TESTS", "# END TESTS"):
            in_tests = cell.source.strip().upper() == "# BEGIN TESTS"
            continue
        if in_tests and found and cell.cell_type == "code":
            found[-1][1].append(_test_case(cell.source))
    return found


def questions(master: Path) -> list[dict]:
    """The questions of a master: name, points, the variables its tests read, its graded parts (the
    hidden test cases, each with its points) and its number of public checks.

    Raises ``ValueError`` unless every question has public checks (no points) and hidden parts whose
    points add up to the question's."""
    found = []
    for config, cases in _cases(master):
        name, points = str(config["name"]), config.get("points", 1)
        public = [c for c in cases if not c["hidden"]]
        parts = [c for c in cases if c["hidden"]]
        where = f"{master.name} {name}"
        if not public or not parts:
            raise ValueError(f"{where}: a question needs public checks and hidden tests ({len(public)}, {len(parts)})")
        if any(c["points"] not in (0, None) for c in public):
            raise ValueError(f"{where}: a public check gives no points (the hidden tests do)")
        if any(not isinstance(c["points"], (int, float)) or c["points"] <= 0 for c in parts):
            raise ValueError(f"{where}: every hidden test case names its points (points: 1)")
        if abs(sum(c["points"] for c in parts) - points) > 1e-9:
            raise ValueError(f"{where}: its parts give {sum(c['points'] for c in parts)} points, not {points}")
        reads = list(dict.fromkeys(a for c in cases for a in c["reads"]))
        found.append(
            {
                "name": name,
                "points": points,
                "reads": reads,
                "parts": [{"test": c["test"], "points": c["points"], "reads": c["reads"]} for c in parts],
                "public_checks": len(public),
            }
        )
    return found


#: The Otter plugin that makes the visible "Public Tests" of a graded submission honest.
PLUGIN = "seqrmt._problem_checks.HonestPublicTests"
#: Cells the generator adds to the notebooks; Otter does not run them when it grades.
CHECK_TAGS = ["otter_ignore", "public-checks"]


def checks_cell(master: Path) -> str:
    """The code of the public-checks cell of a set's notebooks: the master's public test functions,
    registered with :class:`seqrmt._problem_checks.PublicChecks` as ``grader``."""
    points = {str(config["name"]): config.get("points", 1) for config, _ in _cases(master)}
    lines = [
        '# The public checks of this problem set. Run this cell once; below each answer, grader.check("q1")',
        "# runs the checks of that question. They catch what to fix before you submit and reveal no answer;",
        "# the points come from hidden tests when your notebook is graded (the grader runs these checks too).",
        "from seqrmt._problem_checks import PublicChecks",
        "",
        f"grader = PublicChecks(globals(), points={points!r})",
    ]
    for config, cases in _cases(master):
        for case in cases:
            if not case["hidden"]:
                lines += ["", "", f"@grader.case({str(config['name'])!r})", case["source"]]
    return "\n".join(lines) + "\n"


def add_checks(notebook: Path, master: Path) -> None:
    """Insert the public checks into a generated notebook: the checks cell after the set-up cell (the
    first code cell) and ``grader.check("qN")`` after the answer cell of each question."""
    nb = nbformat.read(notebook, as_version=4)
    stem = master.stem.replace("_", "-")
    cells, done = [], False
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type == "code" and not done:
            new = nbformat.v4.new_code_cell(checks_cell(master), metadata={"tags": list(CHECK_TAGS)})
            new.id = f"{stem}-public-checks"
            cells.append(new)
            done = True
            continue
        tests = cell.metadata.get("otter", {}).get("tests") or []
        for question in tests:
            new = nbformat.v4.new_code_cell(f"grader.check({question!r})", metadata={"tags": list(CHECK_TAGS)})
            new.id = f"{stem}-check-{question}"
            cells.append(new)
    nb.cells = cells
    nbformat.write(nb, notebook)


def assignment_name(master: Path) -> str:
    """The ``name`` of the assignment config (the first cell), which must be the file's stem."""
    nb = nbformat.read(master, as_version=4)
    config = _raw_config(nb.cells[0], "ASSIGNMENT CONFIG")
    if config is None:
        raise ValueError(f"{master.name}: the first cell is not the raw # ASSIGNMENT CONFIG cell")
    if config.get("name") != master.stem:
        raise ValueError(f"{master.name}: the assignment is named {config.get('name')!r}, not {master.stem!r}")
    return master.stem


def chapter(master: Path) -> str:
    """The chapter notebook a set builds on: ``ps3_bbp`` builds on ``book/03_bbp.ipynb``."""
    number = master.stem[2]
    hits = sorted((ROOT / "book").glob(f"0{number}_*.ipynb"))
    return hits[0].relative_to(ROOT).as_posix() if hits else ""


def grader_requirements() -> str:
    """The packages the grader needs: the readers' ones, seqrmt from the repository."""
    url = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]
    lines = [
        line.split("#", 1)[0].strip()
        for line in (ROOT / "binder" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    ]
    packages = [line for line in lines if line and line != "."]
    return "\n".join(packages + [f"seqrmt @ git+{url.rstrip('/')}.git"]) + "\n"


def generate_one(master: Path, out: Path, *, quiet: bool = True) -> dict:
    """Run ``otter assign`` on one master into ``out/<set>``; return its manifest entry."""
    from otter.assign import main as otter_assign

    name = assignment_name(master)
    staging = out / "_masters"
    staging.mkdir(parents=True, exist_ok=True)
    # Assign from a copy next to the grader's requirements (the config names them by a path
    # relative to the master), so nothing is written beside the sources.
    (staging / "requirements.txt").write_text(grader_requirements(), encoding="utf-8")
    qs = questions(master)  # checks the parts and the public checks first
    nb = nbformat.read(master, as_version=4)
    config = _raw_config(nb.cells[0], "ASSIGNMENT CONFIG")
    config["requirements"] = "requirements.txt"
    config.setdefault("generate", {})["plugins"] = [PLUGIN]
    nb.cells[0].source = "# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False)
    nbformat.write(nb, staging / master.name)
    dest = out / name
    shutil.rmtree(dest, ignore_errors=True)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext():
        otter_assign(str(staging / master.name), str(dest), no_pdfs=True, no_run_tests=True)
    zips = sorted((dest / "autograder").glob(f"{name}-autograder_*.zip"))
    if len(zips) != 1:
        raise RuntimeError(f"otter assign wrote {len(zips)} autograder zips for {name}")
    shutil.move(zips[0], dest / "autograder.zip")
    for notebook in (dest / "student" / f"{name}.ipynb", dest / "autograder" / f"{name}.ipynb"):
        add_checks(notebook, master)
    return {
        "name": name,
        "master": master.relative_to(ROOT).as_posix(),
        "chapter": chapter(master),
        "student": f"{name}/student/{name}.ipynb",
        "solutions": f"{name}/autograder/{name}.ipynb",
        "autograder": f"{name}/autograder.zip",
        "questions": qs,
        "points": sum(q["points"] for q in qs),
    }


def released_sets(config: Path = ROOT / "_config.yml") -> list[str]:
    """The sets whose solutions are released: ``problems/<set>`` in ``seqrmt_released_solutions`` of
    ``_config.yml``, the release list of the chapters' solutions (``book/<chapter>``)."""
    data = yaml.safe_load(Path(config).read_text(encoding="utf-8")) or {}
    listed = ((data.get("sphinx") or {}).get("config") or {}).get("seqrmt_released_solutions") or []
    sets = [entry.split("/", 1)[1] for entry in listed if str(entry).startswith("problems/")]
    unknown = sorted(set(sets) - {m.stem for m in masters()})
    if unknown:
        raise ValueError(f"seqrmt_released_solutions: no problem set {unknown} (known: {[m.stem for m in masters()]})")
    return sets


def write_released(out: Path, names: list[str]) -> list[Path]:
    """Copy the solutions notebook of each released set among ``names`` to ``out/released/<set>.ipynb``
    (and remove the copies of sets no longer released); the copies written."""
    folder = Path(out) / "released"
    shutil.rmtree(folder, ignore_errors=True)
    written = []
    for name in names:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(out) / name / "autograder" / f"{name}.ipynb", folder / f"{name}.ipynb")
        written.append(folder / f"{name}.ipynb")
    return written


def generate(out: Path = OUT, names: list[str] | None = None, *, quiet: bool = True) -> list[dict]:
    """Generate the sets named (all by default) into ``out``; write and return the manifest."""
    out = Path(out)
    if out.resolve().is_relative_to(MASTERS.parent.resolve()):
        raise ValueError(f"out={out}: the generated notebooks must not go into the source tree")
    chosen = [m for m in masters() if not names or m.stem in names]
    unknown = set(names or ()) - {m.stem for m in chosen}
    if unknown:
        raise ValueError(f"names: no master for {sorted(unknown)} (known: {[m.stem for m in masters()]})")
    out.mkdir(parents=True, exist_ok=True)
    entries = [generate_one(m, out, quiet=quiet) for m in chosen]
    released = set(released_sets())
    write_released(out, [e["name"] for e in entries if e["name"] in released])
    for entry in entries:
        entry["released"] = f"released/{entry['name']}.ipynb" if entry["name"] in released else None
    shutil.rmtree(out / "_masters", ignore_errors=True)
    (out / "manifest.json").write_text(json.dumps({"sets": entries}, indent=1) + "\n", encoding="utf-8")
    return entries


def generation_key() -> str:
    """A hash of what the generated sets depend on: the masters, this script, the readers'
    requirements, ``_config.yml`` (the repository) and the version of Otter."""
    from importlib import metadata

    digest = hashlib.sha256()
    for path in [*masters(), Path(__file__).resolve(), ROOT / "binder" / "requirements.txt", ROOT / "_config.yml"]:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    digest.update(metadata.version("otter-grader").encode())
    return digest.hexdigest()


def generate_if_stale(out: Path = OUT) -> list[dict]:
    """Every set in ``out``, generated again only when :func:`generation_key` changed since the
    last generation (its stamp ``out/.generated``), under a file lock (parallel tests, a script
    and the tests share the folder); the manifest's entries."""
    from filelock import FileLock  # portable (fcntl on Unix, msvcrt on Windows)

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    key, stamp, manifest = generation_key(), out / ".generated", out / "manifest.json"
    with FileLock(out / ".lock"):
        if not (stamp.is_file() and stamp.read_text() == key and manifest.is_file()):
            stamp.unlink(missing_ok=True)
            generate(out)
            stamp.write_text(key)
        return json.loads(manifest.read_text(encoding="utf-8"))["sets"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="the sets to generate (default: all)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder (default: {OUT.relative_to(ROOT)})")
    parser.add_argument("--verbose", action="store_true", help="show Otter's output")
    args = parser.parse_args(argv)
    for entry in generate(args.out, args.names, quiet=not args.verbose):
        print(
            f"{entry['name']}: {len(entry['questions'])} questions, {entry['points']} points -> "
            f"{args.out / entry['name']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
