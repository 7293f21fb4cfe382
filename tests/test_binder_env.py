"""The readers' light environment (binder/requirements.txt) runs a chapter.

Binder, or a reader who only wants to run the notebooks, installs
``binder/requirements.txt``: seqrmt and what its chapters import, without the
book's build and test tools.  This test installs it in a fresh virtual
environment and executes a chapter, top to bottom, in a kernel of that environment.

The fresh environment is a layer (``tests/standalone.py``) over the readers' environment of
the test run, which holds every line of ``binder/requirements.txt`` but ``.`` and is shared
with the standalone tests (building it again cost about 45 s): ``pip install -r
binder/requirements.txt`` in the layer finds those packages installed and builds and installs
``seqrmt`` from ``.``, as Binder does from a clone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import standalone

ROOT = Path(__file__).resolve().parents[1]
LIGHT = ROOT / "binder" / "requirements.txt"
CHAPTER = ROOT / "book" / "01_model.ipynb"
#: Distributions a reader does not need to run a chapter.
HEAVY = (
    "jupyter-book",
    "jupyter_book",
    "myst-nb",
    "myst_nb",
    "sphinx",
    "playwright",
    "pytest",
    "hypothesis",
    "nbval",
    "dask",
)


def _requirements() -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in LIGHT.read_text().splitlines())
    return [line for line in lines if line]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def test_light_requirements_are_light():
    names = {_name(r) for r in _requirements()}
    assert names == {"numpy", "scipy", "matplotlib", "ipywidgets", "ipykernel", "."}, names
    assert not names & set(HEAVY)


def test_every_chapter_import_is_available_in_the_light_env():
    """No chapter imports a module that only the build environment has."""
    # the light packages, what they bring (IPython, threadpoolctl) and the standard library (the
    # install cell at the top of each chapter uses importlib, os, subprocess and sys)
    allowed = {"numpy", "scipy", "matplotlib", "ipywidgets", "IPython", "seqrmt", "threadpoolctl"}
    allowed |= set(sys.stdlib_module_names)
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            for mod in re.findall(r"^\s*(?:from|import)\s+([\w]+)", cell.source, re.M):
                assert mod in allowed, f"{path.name} imports {mod!r}, which binder/requirements.txt lacks"


@pytest.mark.venv
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")
def test_a_chapter_runs_in_the_light_env(readers_env, tmp_path):
    from nbclient import NotebookClient

    # Install from a copy of what the package needs, as Binder does from a clone: building
    # seqrmt writes a build/ folder next to its sources, which must not land in this checkout.
    src = tmp_path / "src"
    shutil.copytree(ROOT / "seqrmt", src / "seqrmt", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "binder/requirements.txt"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, src / name)
    env_dir = standalone.layered_env(readers_env[0], tmp_path / "light")
    python = env_dir / "bin" / "python"
    pip = [str(python), "-m", "pip", "--disable-pip-version-check"]
    done = subprocess.run(
        pip + ["install", "--quiet", "--no-compile", "-r", "binder/requirements.txt"],
        cwd=src,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]

    listed = subprocess.run(pip + ["list", "--format=freeze"], capture_output=True, text=True, check=True)
    installed = {line.split("==")[0].lower().replace("_", "-") for line in listed.stdout.split()}
    assert "seqrmt" in installed
    extra = installed & {h.replace("_", "-") for h in HEAVY}
    assert not extra, f"the light environment pulled in {sorted(extra)}"

    # A kernel of the light environment, found through JUPYTER_PATH, that writes the bytecode of what it
    # imports (standalone.WRITE_BYTECODE)
    env_args = [arg for name, value in standalone.WRITE_BYTECODE.items() for arg in ("--env", name, value)]
    subprocess.run(
        [str(python), "-m", "ipykernel", "install", "--prefix", str(env_dir), "--name", "seqrmt-light", *env_args],
        check=True,
        capture_output=True,
    )
    nb = nbformat.read(CHAPTER, as_version=4)
    probe = "import seqrmt, sys\nprint(sys.prefix)\nprint(seqrmt.__file__)"
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(env_dir / "share" / "jupyter")
    try:
        NotebookClient(
            nb, kernel_name="seqrmt-light", timeout=600, resources={"metadata": {"path": str(CHAPTER.parent)}}
        ).execute()
    finally:
        if old is None:
            os.environ.pop("JUPYTER_PATH", None)
        else:
            os.environ["JUPYTER_PATH"] = old
    prefix, module = nb.cells[-1].outputs[0]["text"].split()
    assert Path(prefix).resolve() == env_dir.resolve()
    assert Path(module).resolve().is_relative_to(env_dir.resolve()), "seqrmt must come from the light env"
