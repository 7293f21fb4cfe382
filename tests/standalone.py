"""A chapter notebook on its own, as Colab or a reader's Jupyter runs it (shared by the
``test_standalone_*.py`` files, one per worker of ``pytest -n 2``, and by
``test_binder_env.py``).

* :func:`create_readers_env` (behind the session fixture ``readers_env`` of
  ``tests/conftest.py``): one fresh virtual environment per test run with the readers' packages
  only, ``binder/requirements.txt`` without its ``.`` line (NumPy, SciPy, Matplotlib,
  ipywidgets, ipykernel; no ``seqrmt``), and one ``seqrmt`` wheel built by pip from a copy of
  the repository.  With pytest-xdist the workers share both: the first one creates them under
  a file lock, the others wait and reuse them.
* :func:`layered_env`: a small environment of its own for each chapter, layered on the
  readers' one (a virtual environment without packages whose ``.pth`` file adds the readers'
  ``site-packages``), so that each chapter installs ``seqrmt`` itself while the readers'
  packages are installed once.  Its kernel sees no ``PYTHONPATH`` and runs in a folder
  holding the notebook alone.

What the test of a chapter must show, and where each part is shown.  The claim is: *the
chapter's install cell installs seqrmt into an environment that has only the readers'
packages, and the chapter then runs there.*  Split it:

1. the install cell finds no ``seqrmt``, installs it with pip (from the source named by
   ``SEQRMT_INSTALL_SOURCE``: the wheel; on Colab the repository URL), and ``import seqrmt``
   then works in the same kernel, from the chapter's own environment;
2. every module the chapter imports, and every module ``seqrmt`` imports anywhere (at the top
   of a module or inside a function; imports under ``try: ... except ImportError`` are optional
   by construction), exists in that environment;
3. the package installed there is the code that was run elsewhere: the same files, byte for
   byte, as the copy of ``seqrmt/`` the wheel was built from (so the wheel leaves out no
   module and no data file), a copy still equal to the repository's ``seqrmt/``;
4. the chapter's code runs to the end with that ``seqrmt`` and those packages.

Parts 1-3 depend on the readers' environment and run in it, for every chapter, always.
The install cell is the same code in every chapter (checked for each: :func:`install_cell`), so
part 1 runs once per test run, in a kernel of a fresh layer (:func:`installed_layer`, through
:func:`check_environment`), and parts 2 and 3 in one Python process of that layer
(:func:`imports_in_layer`: each chapter's own import statements verbatim, in a folder holding its
notebook alone, then an import of every module of step 2, then a report of the environment, whose
files must be the layer's).
A chapter whose install cell differs is checked in a layer of its own, to the end.  Part 4 is
a computation: given the same code (step 3), the same versions of every distribution the
readers' environment has (NumPy, SciPy, Matplotlib, ... compared one by one with the
development environment) and one BLAS thread in both, it gives the same result
in either environment, and the development environment has already run it: the execution cache
(``_build/.jupyter_cache``, filled by the build) holds an execution of this exact notebook,
without an error output, under the dependency key of the current ``seqrmt`` and
``requirements.txt`` (:func:`dev_execution`; nbval runs it again in the same test run).  So
part 4 is taken from there, and the chapter is executed top to bottom in the readers'
environment (``check_environment(..., full=True)``, the report at its end and the same
assertions) only when that argument does not hold: no valid cache entry (no build yet, or a
changed notebook or ``seqrmt``), ``seqrmt/`` edited since the wheel was built, a distribution
whose version differs between the two environments (then the computation could differ), or
``SEQRMT_STANDALONE=full``.  (Measured: about 25 s a chapter instead of 115-140 s on a loaded
machine with a layer and an install per chapter, a few seconds a chapter with the shared layer;
``benchmarks/README.md``.)  ``tests/test_binder_env.py`` executes a chapter top to bottom in
the readers' packages on every run, so the rendering machinery of that environment (the inline
Matplotlib backend, the widgets) is exercised end to end as well.  What this leaves unchecked
in the fast path is only an environment effect that neither the imports nor the versions show:
a third-party package behaving differently because an optional package of the development
environment is missing, or a chapter reading a file of the repository (which
:func:`repository_files_read` looks for in the chapter's code).
"""

from __future__ import annotations

import ast
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid
import venv
from pathlib import Path

import nbformat

from seqrmt import settings

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
    out = subprocess.run(
        [str(env / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
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
            built = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "wheel",
                    "--quiet",
                    "--no-deps",
                    "--wheel-dir",
                    str(wheels),
                    str(repository_copy(WORK / "repository")),
                ],
                capture_output=True,
                text=True,
            )
            if built.returncode != 0:
                raise RuntimeError(f"building seqrmt from a copy of the repository failed:\n{built.stderr[-3000:]}")
            venv.EnvBuilder(with_pip=True).create(env)  # pip: a chapter's install cell runs it
            # uv (scripts/setup_env.sh installs it beside pip) takes the packages from the wheels it
            # fetched for the development environment: 1-2 s where pip fetches them again (8 s); the
            # same versions.  No bytecode at install: it is written on first import instead, by the
            # processes of this environment and its layers (WRITE_BYTECODE).
            uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
            if uv:
                install = [uv, "pip", "install", "--quiet", "--python", str(env / "bin" / "python")]
            else:
                install = [str(env / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "install"]
                install += ["--quiet", "--no-compile"]
            done = subprocess.run(install + readers_requirements(), capture_output=True, text=True)
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


#: The environment variables that let a process of the readers' environment (or of a layer) write the
#: bytecode of what it imports, into that environment under ``_build/``: a shell that sets
#: ``PYTHONDONTWRITEBYTECODE`` would otherwise make every kernel and import check there compile NumPy,
#: SciPy and Matplotlib again (an empty value is unset, for Python).
WRITE_BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}


def layered_env(readers: Path, dest: Path) -> Path:
    """A package-less virtual environment that sees the readers' packages (a ``.pth`` file)."""
    venv.EnvBuilder(with_pip=False).create(dest)
    site = _site_packages(dest)
    site.mkdir(parents=True, exist_ok=True)
    (site / "_readers_env.pth").write_text(str(_site_packages(readers)) + "\n")
    return dest


def _execute(
    nb: nbformat.NotebookNode, readers: Path, wheel: Path, tmp: Path, folder: Path, timeout: int
) -> nbformat.NotebookNode:
    """Execute ``nb`` in a kernel of a fresh layer ``tmp/env`` over ``readers``, in ``folder``."""
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    env = layered_env(readers, tmp / "env")
    kernels = tmp / "kernels"
    spec = kernels / "kernels" / "standalone"
    spec.mkdir(parents=True)
    # No PYTHONPATH (the test's own seqrmt must stay invisible), one BLAS thread.
    spec.joinpath("kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(env / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "readers' environment",
                "language": "python",
                "env": {
                    "PYTHONPATH": "",
                    "SEQRMT_INSTALL_SOURCE": str(wheel),
                    "PIP_NO_INPUT": "1",
                    "OPENBLAS_NUM_THREADS": "1",
                    "OMP_NUM_THREADS": "1",
                    "MKL_NUM_THREADS": "1",
                    **WRITE_BYTECODE,
                },
            }
        )
    )
    km = KernelManager(
        kernel_name="standalone", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels / "kernels")])
    )
    NotebookClient(
        nb, km=km, kernel_name="standalone", timeout=timeout, resources={"metadata": {"path": str(folder)}}
    ).execute()
    return nb


# ------------------------------------------------------------------ the fast path (parts 1-3)
INSTALL_TAG = "seqrmt-install"
#: The execution cache of the build (``SEQRMT_EXECUTION_CACHE`` names another one).
CACHE = Path(settings.get("SEQRMT_EXECUTION_CACHE") or ROOT / "_build" / ".jupyter_cache")
#: Distributions whose versions need not agree: the installers (the install cell runs in the
#: readers' environment anyway) and seqrmt (compared file by file instead).
NOT_COMPARED = {"pip", "setuptools", "wheel", "seqrmt"}


def _code(cell) -> str:
    """A code cell's source without IPython magics and shell escapes (plain Python)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in cell.source.splitlines())


def _optional(node: ast.AST, parents: dict) -> bool:
    """Whether an import sits in a ``try`` that catches ImportError (an optional import) or
    under ``if TYPE_CHECKING``."""
    child, node = node, parents.get(node)
    while node is not None:
        if isinstance(node, ast.Try) and child in node.body:
            for handler in node.handlers:
                names = {
                    n.id if isinstance(n, ast.Name) else getattr(n, "attr", "")
                    for n in (handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type])
                    if n is not None
                }
                if handler.type is None or names & {"ImportError", "ModuleNotFoundError", "Exception"}:
                    return True
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
        child, node = node, parents.get(node)
    return False


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    return [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and not _optional(n, parents)]


def chapter_import_statements(nb: nbformat.NotebookNode) -> list[str]:
    """Every import statement of the chapter's code (any cell but the install cell, at any
    depth), verbatim and in order, without repeats."""
    out: list[str] = []
    for cell in nb.cells:
        if cell.cell_type != "code" or INSTALL_TAG in cell.metadata.get("tags", []):
            continue
        for node in sorted(_imports(ast.parse(_code(cell))), key=lambda n: (n.lineno, n.col_offset)):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            text = ast.unparse(node)
            if text not in out and not text.startswith("from __future__"):
                out.append(text)
    return out


def package_modules(folder: Path = ROOT / "seqrmt") -> list[str]:
    """Every module of the package and every module it imports anywhere (not optionally)."""
    names: set[str] = set()
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder.parent).with_suffix("")
        parts = list(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        names.add(".".join(parts))
        package = parts if rel.name == "__init__" else parts[:-1]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif node.level:
                base = package[: len(package) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module != "__future__":
                names.add(node.module)
    return sorted(names)


def repository_files_read(nb: nbformat.NotebookNode, folder: Path = BOOK) -> list[str]:
    """String constants of the chapter's code that name a file or folder next to it or in the
    repository (a chapter run on its own has only itself in its folder)."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(_code(cell))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.strip()
                if not text or text.startswith(("/", "~")) or "\n" in text or len(text) > 200:
                    continue
                try:
                    target = (folder / text).resolve()
                    hit = target.exists() and target.is_relative_to(ROOT) and target not in (folder.resolve(), ROOT)
                except (OSError, ValueError):
                    hit = False
                if hit:
                    found.append(text)
    return found


def _installed_versions() -> dict[str, str]:
    from importlib import metadata

    return {
        d.metadata["Name"].lower().replace("_", "-"): d.version for d in metadata.distributions() if d.metadata["Name"]
    }


def dev_execution(notebook: Path) -> str | None:
    """Where the development environment ran this exact notebook to the end, or None.

    The execution cache must hold an entry for the notebook's current code, recorded under the
    dependency key of what it used of the current ``seqrmt`` and ``requirements.txt`` (installed
    versions included, ``seqrmt_book/cache.py``), whose every code cell was executed and has no
    error output.
    """
    if not (CACHE / "global.db").is_file():
        return None
    from seqrmt_book import cache as seqrmt_cache
    from jupyter_cache import get_cache

    cache = get_cache(str(CACHE))
    nb = nbformat.read(notebook, as_version=4)
    try:
        record = cache.match_cache_notebook(nb)
    except KeyError:
        return None
    common, _ = seqrmt_cache.configured_dependencies(ROOT)
    key = seqrmt_cache.valid_key(CACHE, record.uri, ROOT, common, record.hashkey)
    if key is None:
        return None
    cached = cache.get_cache_bundle(record.pk).nb
    code = [c for c in cached.cells if c.cell_type == "code" and c.source.strip()]
    if any(c.get("execution_count") is None for c in code) or any(
        o.get("output_type") == "error" for c in code for o in c.get("outputs", [])
    ):
        return None
    return f"execution cache entry {record.pk} ({record.uri}, key {key})"


REPORT = """import hashlib, importlib, json, sys
from importlib import metadata
from pathlib import Path
failed = {}
for _name in %(modules)r:
    try:
        importlib.import_module(_name)
    except Exception as _err:
        failed[_name] = f"{type(_err).__name__}: {_err}"
import seqrmt
_pkg = Path(seqrmt.__file__).parent
print(json.dumps({
    "prefix": sys.prefix, "module": seqrmt.__file__, "failed": failed,
    "versions": {d.metadata["Name"].lower().replace("_", "-"): d.version
                 for d in metadata.distributions() if d.metadata["Name"]},
    "files": {p.relative_to(_pkg).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
              for p in _pkg.rglob("*") if p.is_file() and "__pycache__" not in p.parts
              and p.suffix not in (".pyc", ".pyo")}}))
"""


def check_environment(notebook: Path, readers: Path, wheel: Path, tmp: Path, full: bool = False) -> dict:
    """Run, in a fresh layer over ``readers``, the chapter's install cell, its import statements
    and an import of :func:`package_modules` (parts 1-3 of the module docstring), or with
    ``full`` every cell of the chapter, top to bottom (part 4 too); then a report of the
    environment, returned: prefix, seqrmt's file, failed imports, versions, installed files."""
    source = nbformat.read(notebook, as_version=4)
    install = install_cell(notebook)
    report = nbformat.v4.new_code_cell(REPORT % {"modules": package_modules(WORK / "repository" / "seqrmt")})
    if full:
        nb = source
        nb.cells.append(report)
    else:
        nb = nbformat.v4.new_notebook(metadata=source.metadata)
        nb.cells = [
            nbformat.v4.new_code_cell(install),
            nbformat.v4.new_code_cell("\n".join(chapter_import_statements(source))),
            report,
        ]
    folder = tmp / "alone"
    folder.mkdir(parents=True)
    shutil.copy(notebook, folder / notebook.name)
    executed = _execute(nb, readers, wheel, tmp, folder, timeout=900 if full else 600)
    text = "".join(o.get("text", "") for o in executed.cells[-1].outputs if o.get("output_type") == "stream")
    return json.loads(text.strip().splitlines()[-1])


def install_cell(notebook: Path) -> str:
    """The source of the chapter's install cell (its first code cell, tagged ``seqrmt-install``)."""
    cells = [c for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"]
    assert cells and INSTALL_TAG in cells[0].metadata.get("tags", []), (
        f"{notebook.name}: its first code cell is not the install cell"
    )
    return cells[0].source


def installed_layer(readers: Path, wheel: Path) -> tuple[Path, dict]:
    """One layer over ``readers`` in which the install cell of the first chapter has run, in a
    kernel, once per test run (under the lock of :func:`create_readers_env`): the layer and the
    report of its environment (parts 1 and 3 of the module docstring, for every chapter whose
    install cell is the same code)."""
    work = WORK / "installed"
    stamp = WORK / "installed.run"
    with open(WORK / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if stamp.is_file() and stamp.read_text() == RUN_ID and (work / "report.json").is_file():
                return work / "env", json.loads((work / "report.json").read_text())
            shutil.rmtree(work, ignore_errors=True)
            stamp.unlink(missing_ok=True)
            report = check_environment(BOOK / CHAPTERS[0], readers, wheel, work)
            assert_environment(report, work)
            (work / "report.json").write_text(json.dumps(report))
            stamp.write_text(RUN_ID)
            return work / "env", report
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


#: Each chapter's import statements, in its own folder (holding its notebook alone) and namespace.
CHAPTER_IMPORTS = """import json as _json, os as _os, traceback as _traceback
_chapter_errors = {}
for _name, _folder, _code in %(chapters)r:
    _os.chdir(_folder)
    try:
        exec(compile(_code, "<imports of " + _name + ">", "exec"), {"__name__": "__main__"})
    except BaseException:
        _chapter_errors[_name] = _traceback.format_exc()
print(_json.dumps(_chapter_errors))
"""
#: The reports of :func:`imports_in_layer`, by layer: one process checks every chapter.
_IMPORT_REPORTS: dict[str, dict[str, dict]] = {}


def imports_in_layer(notebook: Path, env: Path, tmp: Path) -> dict:
    """The chapter's own import statements, then an import of every module of ``seqrmt``, in a
    Python process of the layer ``env`` (no ``PYTHONPATH``, one BLAS thread), run in a folder
    holding the notebook alone; the report of :data:`REPORT`.

    One process does it for every chapter (and ``notebook``), once per layer (a notebook that is
    not a chapter gets a process of its own): each chapter's imports run in its own folder, holding
    its notebook alone, and in a namespace of its own; an import that fails is that chapter's failure.  (A module a chapter imports comes from the
    installed packages, not from its folder, so the order of the chapters changes nothing; nine
    processes cost about 20 s more.)"""
    key = str(env)
    if notebook.name not in _IMPORT_REPORTS.get(key, {}):
        chapters = []
        todo = [notebook] if key in _IMPORT_REPORTS else [BOOK / name for name in CHAPTERS] + [notebook]
        for path in dict.fromkeys(todo):
            folder = tmp / "alone" / path.stem
            folder.mkdir(parents=True)
            shutil.copy(path, folder / path.name)
            source = nbformat.read(path, as_version=4)
            chapters.append((path.name, str(folder), "\n".join(chapter_import_statements(source))))
        code = CHAPTER_IMPORTS % {"chapters": chapters} + REPORT % {
            "modules": package_modules(WORK / "repository" / "seqrmt")
        }
        env_vars = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env_vars.update(
            PYTHONPATH="", MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1"
        )
        env_vars.update(WRITE_BYTECODE)
        done = subprocess.run(
            [str(env / "bin" / "python"), "-c", code],
            cwd=tmp / "alone",
            env=env_vars,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, "the import check failed in the readers' environment:\n" + done.stderr[-3000:]
        lines = done.stdout.strip().splitlines()
        errors, report = json.loads(lines[-2]), json.loads(lines[-1])
        _IMPORT_REPORTS.setdefault(key, {}).update(
            {name: dict(report, chapter_error=errors.get(name)) for name, _, _ in chapters}
        )
    report = _IMPORT_REPORTS[key][notebook.name]
    assert report["chapter_error"] is None, (
        f"{notebook.name}: its imports fail in the readers' environment:\n{report['chapter_error'][-3000:]}"
    )
    return report


def _package_hashes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and p.suffix not in (".pyc", ".pyo")
        and not any(part.startswith(".") for part in p.parts)
    }


def assert_environment(report: dict, tmp: Path) -> None:
    """The install cell put seqrmt into the chapter's own layer, every module imports there,
    and the installed package is the copy of ``seqrmt/`` the wheel was built from, file for file
    (so no module or data file is left out of the wheel)."""
    env = (tmp / "env").resolve()
    assert Path(report["prefix"]).resolve() == env, f"the kernel ran in {report['prefix']}, not in {env}"
    assert Path(report["module"]).resolve().is_relative_to(env), (
        f"seqrmt was imported from {report['module']}: the install cell did not install it into the fresh environment"
    )
    assert not report["failed"], f"modules missing in the readers' environment: {report['failed']}"
    source = _package_hashes(WORK / "repository" / "seqrmt")
    installed = report["files"]
    assert set(installed) == set(source), (
        f"the installed seqrmt differs from the repository's: missing {sorted(set(source) - set(installed))}, "
        f"extra {sorted(set(installed) - set(source))}"
    )
    changed = sorted(name for name in source if source[name] != installed[name])
    assert not changed, f"installed files differ from the repository's: {changed}"


def source_changes() -> list[str]:
    """Files of the repository's ``seqrmt/`` edited since the wheel was built from its copy
    (the execution cache then describes other code than the wheel's)."""
    here, built = _package_hashes(ROOT / "seqrmt"), _package_hashes(WORK / "repository" / "seqrmt")
    return sorted(name for name in set(here) | set(built) if here.get(name) != built.get(name))


def version_differences(report: dict) -> list[str]:
    """Distributions of the readers' environment whose version differs in this environment."""
    here = _installed_versions()
    return [
        f"{name} {version} (here {here.get(name, 'absent')})"
        for name, version in sorted(report["versions"].items())
        if name not in NOT_COMPARED and here.get(name) != version
    ]


def executes_alone(name: str, readers: tuple[Path, Path], tmp: Path) -> str:
    """The test of one chapter (see the module docstring); returns what it executed."""
    notebook = BOOK / name
    named = repository_files_read(nbformat.read(notebook, as_version=4))
    assert not named, f"{name} names files of the repository, which a chapter run on its own lacks: {named}"
    reasons = []
    if settings.get("SEQRMT_STANDALONE") == "full":
        reasons.append("SEQRMT_STANDALONE=full")
    evidence = dev_execution(notebook)
    if evidence is None:
        reasons.append("no execution of this notebook and this seqrmt in the execution cache")
    edited = source_changes()
    if edited:
        reasons.append(f"seqrmt edited since its wheel was built: {', '.join(edited)}")
    if not reasons and install_cell(notebook) != install_cell(BOOK / CHAPTERS[0]):
        reasons.append(f"its install cell is not the one of {CHAPTERS[0]}")
    if not reasons:
        # parts 1 and 3: the install cell, the same code in every chapter, ran once in a kernel of
        # a fresh layer (installed_layer); part 2: this chapter's imports in that layer
        layer, installed = installed_layer(*readers)
        report = imports_in_layer(notebook, layer, tmp / "check")
        assert Path(report["module"]).resolve() == Path(installed["module"]).resolve(), report["module"]
        assert not report["failed"], f"modules missing in the readers' environment: {report['failed']}"
        assert report["files"] == installed["files"]
        differences = version_differences(report)
        if not differences:
            return f"install cell run once in {layer}; imports checked; the run to the end is {evidence}"
        reasons.append(f"versions differ from the development environment: {', '.join(differences)}")
    report = check_environment(notebook, *readers, tmp / "full", full=True)
    assert_environment(report, tmp / "full")
    return f"executed top to bottom in the readers' environment ({'; '.join(reasons)})"
