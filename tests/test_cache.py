"""The optional disk cache of the slow token spectra at fixed T (``seqrmt/_cache.py``)."""

from __future__ import annotations

import pickle

import numpy as np

import seqrmt as sr
from seqrmt import _cache, _fixed_T_draws
import seqrmt.fixed_T_bulk as fb
import seqrmt.fixed_T_spike as fs


def _counting():
    calls = []

    def build():
        calls.append(1)
        return np.arange(3.0) * len(calls)

    return build, calls


def test_off_without_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv(_cache.ENV, raising=False)
    build, calls = _counting()
    _cache.cached("kind", (1, 2.0), build)
    _cache.cached("kind", (1, 2.0), build)
    assert len(calls) == 2 and _cache.entry_path("kind", (1, 2.0)) is None
    monkeypatch.setenv(_cache.ENV, "")
    assert _cache.folder() is None


def test_an_entry_is_computed_once_and_read_back(monkeypatch, tmp_path):
    monkeypatch.setenv(_cache.ENV, str(tmp_path))
    build, calls = _counting()
    first = _cache.cached("kind", (1, 2.0), build)
    again = _cache.cached("kind", (1, 2.0), build)
    other = _cache.cached("kind", (1, 2.5), build)
    assert len(calls) == 2 and np.array_equal(first, again) and not np.array_equal(first, other)
    path = _cache.entry_path("kind", (1, 2.0))
    assert path.is_file() and path.is_relative_to(tmp_path)
    assert not list(tmp_path.rglob("*.tmp")), "a temporary file was left behind"


def test_a_damaged_entry_is_computed_again(monkeypatch, tmp_path):
    monkeypatch.setenv(_cache.ENV, str(tmp_path))
    build, calls = _counting()
    _cache.cached("kind", ("x",), build)
    path = _cache.entry_path("kind", ("x",))
    path.write_bytes(b"not a pickle")
    value = _cache.cached("kind", ("x",), build)
    assert len(calls) == 2 and np.array_equal(value, np.arange(3.0) * 2)
    assert pickle.loads(path.read_bytes()).tolist() == value.tolist()  # and stored again


def test_the_key_holds_the_package_source(monkeypatch, tmp_path):
    monkeypatch.setenv(_cache.ENV, str(tmp_path))
    before = _cache.entry_path("kind", (1,))
    monkeypatch.setattr(_cache, "source_hash", lambda: "an edited seqrmt")
    assert _cache.entry_path("kind", (1,)) != before


def test_an_unwritable_folder_still_gives_the_value(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(_cache.ENV, str(blocker / "below"))
    build, calls = _counting()
    assert _cache.cached("kind", (1,), build).tolist() == [0.0, 1.0, 2.0] and len(calls) == 1


def test_a_model_at_fixed_T_is_read_from_another_process_entry(monkeypatch, tmp_path):
    """A second process (here: the in-memory caches emptied) gets the same model from the disk,
    without drawing anything, and the same predictions; so does the bulk law."""
    monkeypatch.setenv(_cache.ENV, str(tmp_path))
    monkeypatch.setattr(fs, "_SPIKE_CACHE", {})
    monkeypatch.setattr(fb, "_H_CACHE", {})
    monkeypatch.setattr(fb, "_LAW_CACHE", {})
    w, R = sr.mean_weights(2), sr.markov_correlation(2, 0.5)
    first = sr.fixed_T_predict(0.5, 0.5, w, R, 2.0)
    law = sr.fixed_T_bulk_law(0.5, 0.5, w).mean()
    monkeypatch.setattr(fs, "_SPIKE_CACHE", {})
    monkeypatch.setattr(fb, "_H_CACHE", {})
    monkeypatch.setattr(fb, "_LAW_CACHE", {})

    def no_draws(*args, **kwargs):
        raise AssertionError("drew tokens although the model was on disk")

    monkeypatch.setattr(_fixed_T_draws, "_spike_block", no_draws)
    monkeypatch.setattr(fb, "_token_block", no_draws)
    again = sr.fixed_T_predict(0.5, 0.5, w, R, 2.0)
    assert (again.sample_outlier, again.overlap) == (first.sample_outlier, first.overlap)
    assert sr.fixed_T_bulk_law(0.5, 0.5, w).mean() == law
    # d left at its default is the same model (one entry, not two)
    assert sr.fixed_T_spike_model(0.5, 0.5, w, R, d=None) is sr.fixed_T_spike_model(0.5, 0.5, w, R)
    assert len(list((tmp_path / "fixed_T_spike").glob("*.pickle"))) == 1


def test_options_key_drops_defaults():
    assert _cache.options_key({"d": None, "seed": 3}) == (("seed", 3),)
    assert _cache.options_key({}) == ()


def test_an_entry_depends_on_the_modules_its_function_may_run():
    """The token spectra depend on what ``fixed_T_spike`` imports, lazily too, not on ``learning``."""
    files = {p.relative_to(_cache.ROOT).as_posix() for p in _cache.dependencies({"seqrmt.fixed_T_spike"})}
    assert {"fixed_T_spike.py", "spikes.py", "attention.py", "fixed_T_bulk.py", "_fixed_T_draws.py"} <= files
    # it reads the package's data tables (through seqrmt/_data.py)
    assert {"_data.py", "data/atlas.csv"} <= files
    assert "learning.py" not in files and "plots/spikes.py" not in files and "__init__.py" not in files
    bulk = {p.relative_to(_cache.ROOT).as_posix() for p in _cache.dependencies({"seqrmt.fixed_T_bulk"})}
    assert "fixed_T_spike.py" not in bulk and "spectrum.py" in bulk
    # ``import seqrmt as sr`` then ``sr.alpha``...: the modules that define them, not all of seqrmt
    frames = {p.relative_to(_cache.ROOT).as_posix() for p in _cache.dependencies({"seqrmt.plots.attention"})}
    assert {"attention.py", "model.py", "spikes.py"} <= frames and "learning.py" not in frames


def test_the_draws_of_a_fixed_T_model_are_kept_through_an_edit_of_the_spike_formulas(monkeypatch, tmp_path):
    """The draws (most of a model's seconds) are stored from ``_fixed_T_draws``: their entry depends on
    the model's sampling, not on ``spikes.py`` or ``fixed_T_spike.py``, whose edits keep it; the model
    built again reads its draws back."""
    files = {p.relative_to(_cache.ROOT).as_posix() for p in _cache.dependencies({"seqrmt._fixed_T_draws"})}
    assert {"_fixed_T_draws.py", "model.py", "_numerics.py"} <= files
    assert not files & {"spikes.py", "fixed_T_spike.py", "attention.py", "learning.py"}
    monkeypatch.setenv(_cache.ENV, str(tmp_path))
    calls = []
    draw = _fixed_T_draws._token_samples
    monkeypatch.setattr(_fixed_T_draws, "_token_samples", lambda *a: calls.append(1) or draw(*a))
    args = (200, 100, 2.0, np.array([0.5, 0.5]), np.eye(2), 0.5, 3, 100, 2)
    first, again = _fixed_T_draws.token_samples(*args), _fixed_T_draws.token_samples(*args)
    assert len(calls) == 1 and np.array_equal(first.t, again.t) and np.array_equal(first.r, again.r)
    other = _fixed_T_draws.token_samples(*args[:6], 4, *args[7:])  # another seed: drawn
    assert len(calls) == 2 and not np.array_equal(first.t, other.t)
    assert len(list((tmp_path / "fixed_T_token_samples").glob("*.pickle"))) == 2


def _scratch_package(root):
    pkg = root / "pkg"
    (pkg / "sub").mkdir(parents=True)
    sources = {
        "__init__.py": "from .a import *\nfrom .c import h\n",
        "a.py": "from . import b\n\n__all__ = ['f']\n\n\ndef f():\n    from .sub.d import k\n    return b.g() + k()\n",
        "b.py": "def g():\n    return 1\n",
        "c.py": "import pkg as p\n\n\ndef h():\n    return p.f() + 2\n",
        "e.py": "import pkg\n\n\ndef e(m=pkg):\n    return m\n",
        "sub/__init__.py": "",
        "sub/d.py": "from ..b import g\n\n\ndef k():\n    return g()\n",
    }
    for name, text in sources.items():
        (pkg / name).write_text(text)
    return pkg


def test_the_import_graph_resolves_relative_lazy_and_package_imports(tmp_path):
    pkg = _scratch_package(tmp_path)
    graph = {name: deps for name, (deps, _) in _cache.import_graph(pkg, "pkg").items()}
    assert graph["pkg.a"] == {"pkg.b", "pkg.sub.d"}  # ``from . import b`` is b, not the package
    assert graph["pkg.sub.d"] == {"pkg.b"} and graph["pkg"] == {"pkg.a", "pkg.c"}
    # ``p.f`` of ``import pkg as p`` is the f of pkg.a (``from .a import *`` in pkg/__init__.py); a bare
    # use of the package depends on all of it
    assert graph["pkg.c"] == {"pkg.a"} and graph["pkg.e"] == {"pkg"}

    def names(module):
        return {p.relative_to(pkg).as_posix() for p in _cache.dependencies({module}, pkg, "pkg")}

    assert names("pkg.a") == {"a.py", "b.py", "sub/d.py"}
    assert names("pkg.c") == {"a.py", "b.py", "c.py", "sub/d.py"}
    assert names("pkg.e") == {"__init__.py", "a.py", "b.py", "c.py", "e.py", "sub/d.py"}

    def key(module):
        _cache.dependency_hash.cache_clear()
        return _cache.dependency_hash(frozenset({module}), pkg, "pkg")

    before = key("pkg.a"), key("pkg.b")
    (pkg / "c.py").write_text((pkg / "c.py").read_text() + "# edited\n")
    assert (key("pkg.a"), key("pkg.b")) == before  # an edit a computation cannot run keeps its entries
    (pkg / "sub" / "d.py").write_text((pkg / "sub" / "d.py").read_text().replace("g()", "g() + 1"))
    assert key("pkg.a") != before[0] and key("pkg.b") == before[1]
    _cache.import_graph.cache_clear()
    _cache.dependency_hash.cache_clear()
    _cache._dependencies.cache_clear()


def test_a_key_holds_the_source_of_its_callers_modules(monkeypatch, tmp_path):
    """Asked for from a module of the package, an entry is keyed by that module's dependencies (and
    those of a module its key names); from outside, by the whole package."""
    monkeypatch.setenv(_cache.ENV, str(tmp_path))
    seen = []
    monkeypatch.setattr(_cache, "dependency_hash", lambda modules: seen.append(set(modules)) or "deps")
    monkeypatch.setattr(_cache, "source_hash", lambda: "whole")
    ask = {"__name__": "seqrmt.fixed_T_bulk", "_cache": _cache}
    exec("def ask(key):\n    return _cache.entry_path('kind', key)", ask)
    inside = ask["ask"]((1,))
    assert seen == [{"seqrmt.fixed_T_bulk"}]
    ask["ask"](("seqrmt.plots.spikes", "fig"))
    assert seen[-1] == {"seqrmt.fixed_T_bulk", "seqrmt.plots.spikes"}
    assert _cache.entry_path("kind", (1,)) != inside  # from here: the whole package
    monkeypatch.setattr(_cache, "dependency_hash", lambda modules: "other deps")
    assert ask["ask"]((1,)) != inside
