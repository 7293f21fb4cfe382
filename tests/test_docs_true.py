"""The maintainers' documents say true things: every file, folder, script option and environment
variable that ``README.md``, ``CONTRIBUTING.md`` and ``ARCHITECTURE.md`` name exists.

* A path in a code span (``scripts/publish.py``, ``tests/test_cache.py``, ``seqrmt/plots/``,
  ``publish.yml``) must be a file or folder of the repository (``git ls-files``), written whole or
  as the end of one (``plots/_style`` for ``seqrmt/plots/_style.py``); a glob must match one.  The
  names of what the builds write (:data:`BUILT`) and of other hosts' folders (:data:`ELSEWHERE`) are
  the exceptions, listed here.
* An option written after a script (``python scripts/publish.py _build/site --no-pdf``) must be
  one the script defines.
* Every ``SEQRMT_*`` variable the documents name is read by the code, and every one the code reads
  is declared in ``seqrmt/settings.py`` (whose table CONTRIBUTING shows: ``tests/test_settings.py``).
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "CONTRIBUTING.md", "ARCHITECTURE.md")
EXTENSIONS = (".py", ".sh", ".md", ".yml", ".yaml", ".toml", ".json", ".txt", ".cff", ".ipynb", ".cjs", ".js", ".css")
EXTENSIONS += (".html", ".cfg", ".sty", ".zip", ".pdf")
#: Names of what the builds write (a built site's folders and files), not files of the repository.
BUILT = {"_pdf/", "_sources/", "_downloads/", "students/", "editions/", "README.txt", "math.css", "site.css"}
BUILT |= {"documentation_options.js", "seqrmt-dependencies.json"}
#: Names that are not files of the repository: other hosts' folders (GitLab Pages' public/), the
#: virtual environment the set-up makes, a program.
ELSEWHERE = {"public/", ".venv/bin/activate", "Node.js"}
#: Where the code reads environment variables.
CODE = ("seqrmt", "seqrmt_book", "tests", "scripts", "benchmarks", "problems", ".ci", ".github")


@lru_cache(maxsize=1)
def _tracked() -> tuple[list[str], set[str]]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    files = [f for f in files if (ROOT / f).exists()]
    folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    return files, folders


def exists(name: str) -> bool:
    """Whether ``name`` is a tracked file or folder, whole or as the end of one (``.py`` optional)."""
    files, folders = _tracked()
    name = name.rstrip("/")
    every = [*files, *folders]
    if "*" in name:
        return any(fnmatch.fnmatch(c, name) or fnmatch.fnmatch(c, f"*/{name}") for c in every)
    return any(c == name or c.endswith("/" + name) or c in (name + ".py",) or c.endswith(f"/{name}.py") for c in every)


def _spans(doc: str, text: str | None = None) -> list[str]:
    text = (ROOT / doc).read_text(encoding="utf-8") if text is None else text
    text = re.sub(
        r"^```.*?^```",
        lambda m: "\n".join(f"`{line}`" for line in m.group(0).splitlines()[1:-1]),
        text,
        flags=re.M | re.S,
    )
    return re.findall(r"`([^`\n]+)`", text)


def named_paths(doc: str) -> list[str]:
    """The tokens of the code spans of ``doc`` that name a file or folder of the repository."""
    out = []
    for span in _spans(doc):
        for token in span.split():
            token = token.strip("(),;:'\"")
            if not token or token.startswith(("http", "_build", "OUT", "-", "$", "~", "/", "..", "git+")):
                continue
            if (
                "<" in token
                or "{" in token
                or "=" in token
                or "NN" in token
                or token.startswith(".")
                and token.count(".") == 1
                and "/" not in token
            ):
                continue
            if re.fullmatch(r"[\w.\-/*]+", token) and ("/" in token or token.endswith(EXTENSIONS)):
                out.append(token)
    return out


@pytest.mark.parametrize("doc", DOCS)
def test_every_named_file_exists(doc: str) -> None:
    missing = sorted({p for p in named_paths(doc) if p not in BUILT | ELSEWHERE and not exists(p)})
    assert not missing, f"{doc} names files that do not exist: {missing}"


def test_the_path_check_catches_a_missing_file() -> None:
    assert exists("scripts/publish.py") and exists("publish.yml") and exists("plots/_style") and exists("seqrmt/plots/")
    assert exists("tests/test_*.py")
    assert not exists("tests/test_standalone_*.py") and not exists("scripts/publish_site.py")


def _script_options(doc: str, text: str | None = None) -> list[tuple[str, str]]:
    pairs = []
    for span in _spans(doc, text):
        words = span.split()
        for i, word in enumerate(words):
            if re.fullmatch(r"(scripts|problems|benchmarks)/[\w/]+\.(py|sh)", word):
                for option in words[i + 1 :]:
                    if option in ("&&", "|", ";", ">"):
                        break
                    if re.fullmatch(r"--[a-z][\w-]*", option):
                        pairs.append((word, option))
    return pairs


@pytest.mark.parametrize("doc", DOCS)
def test_every_named_option_is_defined(doc: str) -> None:
    unknown = [
        f"{script} {option}" for script, option in _script_options(doc) if option not in (ROOT / script).read_text()
    ]
    assert not unknown, f"{doc} names options the scripts do not define: {unknown}"


def test_the_option_check_catches_an_unknown_option() -> None:
    text = "Run `python scripts/publish.py _build/site --no-pdf` or `python scripts/publish.py OUT --no-such`."
    pairs = _script_options("", text)
    assert pairs == [("scripts/publish.py", "--no-pdf"), ("scripts/publish.py", "--no-such")]
    assert "--no-such" not in (ROOT / "scripts" / "publish.py").read_text()


def _variables_read() -> set[str]:
    found = set()
    for folder in CODE:
        for path in (ROOT / folder).rglob("*"):
            if (
                path.is_file()
                and path.suffix in (".py", ".sh", ".yml", ".cjs", ".js", "")
                and "vendor" not in path.parts
            ):
                found |= set(
                    re.findall(r"SEQRMT_[A-Z][A-Z_]*[A-Z]", path.read_text(encoding="utf-8", errors="replace"))
                )
    return found


def test_every_environment_variable_is_read_and_documented() -> None:
    from seqrmt import settings

    read = _variables_read()
    named = {
        v for doc in DOCS for v in re.findall(r"SEQRMT_[A-Z][A-Z_]*[A-Z]", (ROOT / doc).read_text(encoding="utf-8"))
    }
    declared = {s.name for s in settings.SETTINGS}
    assert len(read) >= 15, read
    assert not named - read, f"named in the documents, read by no code: {sorted(named - read)}"
    assert not named - declared, f"named in the documents, not in seqrmt/settings.py: {sorted(named - declared)}"
    # every variable of the code is declared, and CONTRIBUTING's table is the registry's: tests/test_settings.py
