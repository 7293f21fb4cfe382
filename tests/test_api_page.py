"""The API pages document exactly the public names of the package.

The reference is written by hand: an overview, ``book/api.md``, that links one page per module,
``book/api/<module>.md``.  This test keeps the pages in step with the modules' ``__all__``:
every public name appears in an autodoc directive of some page, every directive names something
that exists, every module page is linked from the overview and listed in ``_toc.yml`` under it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "api.md"
API_PAGES = sorted((ROOT / "book" / "api").glob("*.md"))


def _modules(package: str) -> list[str]:
    """The public (not underscore) modules of a package, found on disk."""
    pkg = importlib.import_module(package)
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


#: Every public module of seqrmt, and seqrmt.plots with all its chapter modules.
MODULES = [f"seqrmt.{m}" for m in _modules("seqrmt")]
PLOT_MODULES = ["_style"] + _modules("seqrmt.plots")
_DIRECTIVE = re.compile(r"^\.\. (auto(?:function|class|data)):: (\w+)", re.M)
_CURRENT = re.compile(r"^\.\. currentmodule:: ([\w.]+)", re.M)

# Style constants of seqrmt.plots are public for reuse but not part of the documented API.
_UNDOCUMENTED = {"seqrmt.plots": {"WEIGHT_COLORS", "THEORY_COLOR", "SIM_COLOR", "IDEAL_COLOR", "MEAN_SPIKE_COLOR"}}


def documented() -> dict[str, set[str]]:
    """``{currentmodule: names}`` of the autodoc directives in the API page."""
    text = "\n".join(p.read_text() for p in [API, *API_PAGES])
    out: dict[str, set[str]] = {}
    for block in re.findall(r"```\{eval-rst\}(.*?)```", text, re.S):
        mod = _CURRENT.search(block)
        if mod is None:
            continue
        out.setdefault(mod.group(1), set()).update(n for _, n in _DIRECTIVE.findall(block))
    return out


def _public(module: str) -> set[str]:
    mod = importlib.import_module(module)
    names = set(getattr(mod, "__all__", []))
    if module == "seqrmt.plots":
        for sub in PLOT_MODULES:
            names |= set(importlib.import_module(f"seqrmt.plots.{sub}").__all__)
    return names - _UNDOCUMENTED.get(module, set())


def test_the_known_modules_are_found():
    assert {"seqrmt.model", "seqrmt.spectrum", "seqrmt.plots", "seqrmt.widgets"} <= set(MODULES)
    assert {"bulk", "spikes", "validation"} <= set(PLOT_MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_is_documented(module):
    doc = documented()
    top = doc.get("seqrmt", set())
    have = doc.get(module, set()) | (top if module not in ("seqrmt.plots", "seqrmt.widgets") else set())
    missing = sorted(_public(module) - have)
    assert not missing, f"{module}: public names missing from the API pages: {missing}"


def test_every_documented_name_exists():
    for module, names in documented().items():
        mod = importlib.import_module(module)
        missing = sorted(n for n in names if not hasattr(mod, n))
        assert not missing, f"the API pages document names that {module} does not have: {missing}"


def test_parser_sees_the_page():
    doc = documented()
    assert "predict" in doc.get("seqrmt", set()) and "explore" in doc.get("seqrmt.widgets", set())


def test_one_page_per_module_linked_from_the_overview():
    import yaml

    overview = API.read_text()
    assert "autofunction" not in overview, "the overview lists the module pages, it documents nothing itself"
    linked = set(re.findall(r"\]\(api/(\w+)\.md\)", overview))
    stems = {p.stem for p in API_PAGES}
    assert len(stems) >= 10 and linked == stems, sorted(linked ^ stems)
    # every public module has its page: seqrmt.<m> is documented on book/api/<page>.md
    for module in MODULES:
        pages = [p.stem for p in API_PAGES if f"(`{module}`)" in p.read_text().split("\n# ", 1)[-1].split("\n", 1)[0]]
        assert pages, f"{module} has no page of its own"
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    text = yaml.safe_dump(toc)
    for stem in stems:
        assert f"book/api/{stem}" in text, f"book/api/{stem} is not in _toc.yml"


def test_a_module_page_is_short():
    """No page of the reference is one enormous page: at most ~70 documented names each."""
    for page in API_PAGES:
        n = len(_DIRECTIVE.findall(page.read_text()))
        assert 1 <= n <= 90, (page.name, n)
