"""Every environment variable ``SEQRMT_*`` of the repository, declared once: its name, its default,
what it does and who reads it.

The package, the book's extensions, the scripts and the tests read a variable through this registry:
:func:`get` gives its text (surrounding spaces dropped; unset or blank: the default), :func:`flag`
whether it is on (``1``, ``true``, ``yes`` or ``on``, in any case).  A name that is not declared here
is an error (:class:`UnknownSetting`), so a misspelt name cannot silently read the default.  Shell
scripts, workflows and the chapters' install cells (which run before ``seqrmt`` is installed) read
the environment themselves, but only variables declared here (``tests/test_settings.py`` scans the
repository for every ``SEQRMT_*`` name).

``python -m seqrmt.settings`` prints the table of ``CONTRIBUTING.md`` (the test holds the two equal).

The module imports nothing of the package: every layer may read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Setting", "SETTINGS", "UnknownSetting", "setting", "get", "flag", "set_default", "markdown_table"]

#: What :func:`flag` reads as on.
TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Setting:
    """One environment variable: its ``name``, the text read when it is unset or blank (``default``),
    what it does (``meaning``) and the files that read it (``readers``, paths of the repository)."""

    name: str
    default: str
    meaning: str
    readers: tuple[str, ...]


class UnknownSetting(LookupError):
    """A ``SEQRMT_*`` name that is not declared in :data:`SETTINGS`."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


#: The variables, in the order of CONTRIBUTING's table: the package, the book's build, the tests.
SETTINGS: tuple[Setting, ...] = (
    Setting(
        "SEQRMT_CACHE_DIR",
        "",
        "a folder where `seqrmt` stores its slow fixed-`T` token spectra and explorer frames for other processes "
        "(the build and the tests use `_build/seqrmt-cache`, readers none; empty: off)",
        ("seqrmt/_cache.py",),
    ),
    Setting(
        "SEQRMT_FIGURE_CHECK",
        "0",
        "`1` runs the readability check on every figure drawn (the build's kernels and the tests set it; "
        "a reader's session does not); `0` switches it off there",
        ("seqrmt/plots/_check.py",),
    ),
    Setting(
        "SEQRMT_NO_BROWSER",
        "0",
        "`1`: `python -m seqrmt.live` opens no browser",
        ("seqrmt/live.py",),
    ),
    Setting(
        "SEQRMT_EDITION",
        "full",
        "`students` builds the students' edition (no solutions; set by `scripts/build_students.sh`), "
        "`full` the full one",
        ("seqrmt_book/students.py",),
    ),
    Setting(
        "SEQRMT_PRODUCTS",
        "",
        "the products a build declares it carries (`pdf,slides,notebooks,problems,students,editions` or `all`): "
        "their links are written before the files exist (`scripts/publish.py` sets it)",
        ("seqrmt_book/products.py", "scripts/build_students.sh"),
    ),
    Setting(
        "SEQRMT_INSTALL_SOURCE",
        "git+https://github.com/seqrmt/seqrmt",
        "where a chapter's install cell takes `seqrmt` from when it is missing (a local copy, say; "
        "`tests/standalone.py` gives the wheel)",
        ("book/*.ipynb",),
    ),
    Setting(
        "SEQRMT_REQUIRE_BROWSER",
        "0",
        "`1`: a missing Chromium or playwright fails the browser tests instead of skipping them (CI)",
        ("tests/browser/conftest.py",),
    ),
    Setting(
        "SEQRMT_REQUIRE_PDF",
        "0",
        "`1`: the PDF checks of `tests/test_pdf.py` and the site's link to the PDF are required (CI)",
        ("tests/test_pdf.py", "tests/browser/test_site.py"),
    ),
    Setting(
        "SEQRMT_REQUIRE_DOWNLOADS",
        "0",
        "`1`: the checks of the notebooks zip and the site archives in `tests/test_downloads.py` are required (CI)",
        ("tests/test_downloads.py",),
    ),
    Setting(
        "SEQRMT_REQUIRE_SITE",
        "0",
        "`1`: the checks of the assembled site `_build/site` in `tests/test_publish.py` are required (CI)",
        ("tests/test_publish.py",),
    ),
    Setting(
        "SEQRMT_REQUIRE_STUDENTS",
        "0",
        "`1`: the checks of the built students' edition in `tests/test_students_edition.py` are required (CI)",
        ("tests/test_students_edition.py",),
    ),
    Setting(
        "SEQRMT_PDF",
        "",
        "the PDF to check (empty: `_build/html/_pdf/seqrmt-book.pdf`, else `_build/latex/seqrmt-book.pdf`)",
        ("tests/test_pdf.py",),
    ),
    Setting(
        "SEQRMT_REBUILD",
        "",
        "`1` rebuilds the site and slides once per test run, `0` makes a stale build a failure "
        "(empty: a stale build is rebuilt)",
        ("tests/site_build.py", "tests/browser/conftest.py"),
    ),
    Setting(
        "SEQRMT_SITE_DIR",
        "",
        "the tests of the built site check this built site as it is (empty: `_build/html`, rebuilt when stale)",
        ("tests/site_build.py",),
    ),
    Setting(
        "SEQRMT_SCREENSHOTS",
        "0",
        "`1`: a full-page screenshot of every page checked, in `_build/artifacts/screenshots/`",
        ("tests/browser/test_site.py",),
    ),
    Setting(
        "SEQRMT_CHROMIUM",
        "",
        "the Chromium executable (empty: `/usr/bin/chromium`)",
        ("tests/browser/conftest.py",),
    ),
    Setting(
        "SEQRMT_STANDALONE",
        "",
        "`full`: the standalone chapters run to the end in the readers' environment",
        ("tests/standalone.py",),
    ),
    Setting(
        "SEQRMT_EXECUTION_CACHE",
        "",
        "the execution cache the standalone tests compare with (empty: `_build/.jupyter_cache`)",
        ("tests/standalone.py",),
    ),
    Setting(
        "SEQRMT_FULL_SWEEP",
        "0",
        "`1`: the full validation sweep of chapter 7 in `tests/test_validation.py` (the weekly workflow)",
        ("tests/test_validation.py",),
    ),
    Setting(
        "SEQRMT_AGREEMENT_D",
        "400",
        "the dimension of the agreement tests (`tests/test_experiments.py`)",
        ("tests/test_experiments.py",),
    ),
    Setting(
        "SEQRMT_AGREEMENT_SEEDS",
        "0,1,2,3",
        "the seeds of the agreement tests, comma-separated (`tests/test_experiments.py`)",
        ("tests/test_experiments.py",),
    ),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def setting(name: str) -> Setting:
    """The declared :class:`Setting` of ``name``; :class:`UnknownSetting` for a name not declared."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise UnknownSetting(
            f"{name!r} is not a setting of seqrmt: declare it in seqrmt/settings.py (SETTINGS) and in the "
            f"table of CONTRIBUTING.md, or use one of {', '.join(sorted(_BY_NAME))}"
        ) from None


def get(name: str) -> str:
    """The text of the environment variable ``name`` without surrounding spaces, or its default when it
    is unset or blank (:class:`UnknownSetting` for a name not declared)."""
    declared = setting(name)
    value = os.environ.get(name, "").strip()
    return value or declared.default


def flag(name: str) -> bool:
    """Whether the variable ``name`` is on: ``1``, ``true``, ``yes`` or ``on`` (any case), its default
    when unset or blank."""
    return get(name).lower() in TRUE


def set_default(name: str, value: str) -> None:
    """Set the variable ``name`` for this process and the ones it starts, unless it is set already
    (``os.environ.setdefault`` of a declared name)."""
    setting(name)
    os.environ.setdefault(name, value)


def markdown_table() -> str:
    """The table of ``CONTRIBUTING.md``: one row per variable (name, default, what it does, read by)."""
    rows = ["| variable | default | effect | read by |", "| --- | --- | --- | --- |"]
    for s in SETTINGS:
        default = f"`{s.default}`" if s.default else "(empty)"
        readers = ", ".join(f"`{r}`" for r in s.readers)
        rows.append(f"| `{s.name}` | {default} | {s.meaning} | {readers} |")
    return "\n".join(rows)


if __name__ == "__main__":  # pragma: no cover - prints the table
    print(markdown_table())
