"""Generate the students' notebooks and the autograders of the problem sets (otter-grader).

Each master notebook ``problems/masters/<set>.ipynb`` holds the questions, their solutions and
their hidden tests in Otter Assign's notebook format.  This script runs ``otter assign`` on
every master (in this process, one import of Otter for all of them) and writes, for each set,
into ``_build/problems/<set>/`` (never into the source tree)::

    student/<set>.ipynb        the notebook handed out: questions and blank answer cells only
    autograder/<set>.ipynb     the same notebook with the solutions (what full marks look like)
    autograder.zip             the grader: the hidden tests, for ``otter run`` and Gradescope

and ``_build/problems/manifest.json``: every set with its questions, their points, the
variables each question defines and the chapter it builds on.

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


def questions(master: Path) -> list[dict]:
    """The questions of a master: name, points, and the variables its test reads."""
    nb = nbformat.read(master, as_version=4)
    found, current, in_tests = [], None, False
    for cell in nb.cells:
        config = _raw_config(cell, "BEGIN QUESTION")
        if config is not None:
            current = {"name": str(config["name"]), "points": config.get("points", 1), "reads": []}
            found.append(current)
            continue
        if cell.cell_type == "raw" and cell.source.strip().upper() in ("# BEGIN TESTS", "# END TESTS"):
            in_tests = cell.source.strip().upper() == "# BEGIN TESTS"
            continue
        if in_tests and current is not None and cell.cell_type == "code":
            match = re.search(r"^def test_\w+\(([^)]*)\)", cell.source, re.M)
            if match:
                current["reads"] += [a.strip() for a in match.group(1).split(",") if a.strip()]
    return found


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
    nb = nbformat.read(master, as_version=4)
    nb.cells[0].source = nb.cells[0].source.rstrip("\n") + "\nrequirements: requirements.txt\n"
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
    qs = questions(master)
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
    import fcntl

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    key, stamp, manifest = generation_key(), out / ".generated", out / "manifest.json"
    with open(out / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (stamp.is_file() and stamp.read_text() == key and manifest.is_file()):
                stamp.unlink(missing_ok=True)
                generate(out)
                stamp.write_text(key)
            return json.loads(manifest.read_text(encoding="utf-8"))["sets"]
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


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
