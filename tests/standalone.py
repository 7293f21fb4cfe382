"""A chapter notebook on its own, as Colab or a reader's Jupyter runs it (shared by the
``test_standalone_*.py`` files, one per worker of ``pytest -n 2``).

* :func:`readers_env` (a session fixture): one fresh virtual environment per test run with
  the readers' packages only, ``binder/requirements.txt`` without its ``.`` line (NumPy,
  SciPy, Matplotlib, ipywidgets, ipykernel; no ``seqrmt``).  With pytest-xdist the workers
  share it: the first one creates it under a file lock, the others wait and reuse it.
* :func:`run_standalone` executes one notebook top to bottom in a kernel of its own small
  environment layered on the readers' one (a virtual environment without packages whose
  ``.pth`` file adds the readers' ``site-packages``): its install cell finds no ``seqrmt``
  and installs it with pip into that layer, with its dependencies, from the source named by
  ``SEQRMT_INSTALL_SOURCE`` (the cell's only difference from Colab, where it installs from
  the repository URL): a wheel that pip builds once per run from a copy of the repository
  (building it in every chapter cost about 15 s each).  The layers keep the chapters
  independent (each installs ``seqrmt`` itself) while the readers' packages are installed
  once.  The kernel sees no
  ``PYTHONPATH`` and runs in a folder holding the notebook alone.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import uuid
import venv
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = sorted(p.name for p in BOOK.glob("0[0-9]_*.ipynb"))
READERS = ROOT / "binder" / "requirements.txt"
WORK = ROOT / "_build" / "standalone"
RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
#: Files a pip install of seqrmt needs from the repository.
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE")


def readers_requirements() -> list[str]:
    """binder/requirements.txt without comments and without ``.`` (seqrmt itself)."""
    lines = (line.split("#", 1)[0].strip() for line in READERS.read_text().splitlines())
    return [line for line in lines if line and line != "."]


def _site_packages(env: Path) -> Path:
    out = subprocess.run([str(env / "bin" / "python"), "-c",
                          "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def create_readers_env() -> tuple[Path, Path]:
    """The readers' environment of this test run and the seqrmt wheel built from a copy of
    the repository (both made once per run, under a lock)."""
    WORK.mkdir(parents=True, exist_ok=True)
    env = WORK / "readers"
    wheels = WORK / "wheel"
    stamp = WORK / "readers.run"
    with open(WORK / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if stamp.is_file() and stamp.read_text() == RUN_ID and (env / "bin" / "python").exists():
                return env, next(wheels.glob("seqrmt-*.whl"))
            for old in (env, wheels, WORK / "repository"):
                shutil.rmtree(old, ignore_errors=True)
            stamp.unlink(missing_ok=True)
            built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                                    "--wheel-dir", str(wheels), str(repository_copy(WORK / "repository"))],
                                   capture_output=True, text=True)
            if built.returncode != 0:
                raise RuntimeError(f"building seqrmt from a copy of the repository failed:\n{built.stderr[-3000:]}")
            venv.EnvBuilder(with_pip=True).create(env)
            pip = [str(env / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
            done = subprocess.run(pip + ["install", "--quiet", *readers_requirements()],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"pip install of the readers' packages failed:\n{done.stderr[-3000:]}")
            stamp.write_text(RUN_ID)
            return env, next(wheels.glob("seqrmt-*.whl"))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def repository_copy(dest: Path) -> Path:
    """A copy of what ``pip install <repository>`` reads (the package and its metadata)."""
    shutil.copytree(ROOT / "seqrmt", dest / "seqrmt", ignore=shutil.ignore_patterns("__pycache__"))
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, dest / name)
    return dest


def layered_env(readers: Path, dest: Path) -> Path:
    """A package-less virtual environment that sees the readers' packages (a ``.pth`` file)."""
    venv.EnvBuilder(with_pip=False).create(dest)
    site = _site_packages(dest)
    site.mkdir(parents=True, exist_ok=True)
    (site / "_readers_env.pth").write_text(str(_site_packages(readers)) + "\n")
    return dest


def run_standalone(notebook: Path, readers: Path, wheel: Path, tmp: Path,
                   timeout: int = 900) -> nbformat.NotebookNode:
    """Execute ``notebook`` top to bottom in a fresh layer over ``readers`` (see the module
    docstring), its install cell installing ``wheel``; return the executed notebook, with a
    last cell that reports where ``seqrmt`` came from."""
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    env = layered_env(readers, tmp / "env")
    folder = tmp / "alone"
    folder.mkdir()
    shutil.copy(notebook, folder / notebook.name)
    kernels = tmp / "kernels"
    spec = kernels / "kernels" / "standalone"
    spec.mkdir(parents=True)
    # No PYTHONPATH (the test's own seqrmt must stay invisible), one BLAS thread.
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [str(env / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "readers' environment", "language": "python",
        "env": {"PYTHONPATH": "", "SEQRMT_INSTALL_SOURCE": str(wheel), "PIP_NO_INPUT": "1",
                "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}}))
    nb = nbformat.read(folder / notebook.name, as_version=4)
    probe = "import seqrmt, sys\nprint(sys.prefix)\nprint(seqrmt.__file__)"
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    km = KernelManager(kernel_name="standalone",
                       kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels / "kernels")]))
    NotebookClient(nb, km=km, kernel_name="standalone", timeout=timeout,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return nb


def assert_installed_here(nb: nbformat.NotebookNode, tmp: Path) -> None:
    """The notebook's install cell put seqrmt into the notebook's own layer."""
    prefix, module = nb.cells[-1].outputs[0]["text"].split()
    env = (tmp / "env").resolve()
    assert Path(prefix).resolve() == env, f"the kernel ran in {prefix}, not in {env}"
    assert Path(module).resolve().is_relative_to(env), (
        f"seqrmt was imported from {module}: the install cell did not install it into the fresh environment")


def executes_alone(name: str, readers: tuple[Path, Path], tmp: Path) -> None:
    """The test of one chapter: it runs on its own, and its install cell installed seqrmt."""
    nb = run_standalone(BOOK / name, *readers, tmp)
    assert_installed_here(nb, tmp)

