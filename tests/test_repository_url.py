"""The public repository URL is defined once (``_config.yml``) and repeated consistently."""
from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("set_repository_url", ROOT / "scripts" / "set_repository_url.py")
seturl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seturl)


def _urls(text: str) -> set[str]:
    """Every GitHub repository named in a text, as https://github.com/<owner>/<name>."""
    found = set(re.findall(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:[/)\"'\s]|$)", text))
    found |= set(re.findall(r"mybinder\.org/v2/gh/([\w.-]+/[\w.-]+)/", text))
    return {f"https://github.com/{slug}" for slug in found}


def test_readme_and_citation_use_the_configured_url():
    url = seturl.current()
    for name in ("README.md", "CITATION.cff"):
        urls = _urls((ROOT / name).read_text())
        assert urls == {url}, f"{name} names {sorted(urls)}, _config.yml says {url}"


def test_the_script_rewrites_every_copy(tmp_path, monkeypatch):
    for name in ("_config.yml", "README.md", "CITATION.cff"):
        shutil.copy(ROOT / name, tmp_path / name)
    monkeypatch.setattr(seturl, "ROOT", tmp_path)
    assert seturl.main(["https://github.com/someone/book"]) == 0
    assert seturl.current() == "https://github.com/someone/book"
    for name in ("README.md", "CITATION.cff"):
        assert _urls((tmp_path / name).read_text()) == {"https://github.com/someone/book"}
    assert seturl.main(["not a url"]) == 2
