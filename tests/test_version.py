"""The version is written once, in ``pyproject.toml``; the package, the citation file and the change
log give that one."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import seqrmt

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_package_version_is_pyprojects():
    assert seqrmt.__version__ == VERSION


def test_citation_and_changelog_name_it():
    cff = re.search(r'^version:\s*"?([^"\n]+)"?', (ROOT / "CITATION.cff").read_text(), re.M)
    assert cff and cff.group(1) == VERSION
    releases = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases[0] == "Unreleased" and VERSION in releases, releases
