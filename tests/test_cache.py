"""The optional disk cache of the slow token spectra at fixed T (``seqrmt/_cache.py``)."""

from __future__ import annotations

import pickle

import numpy as np

import seqrmt as sr
from seqrmt import _cache
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

    monkeypatch.setattr(fs, "_spike_block", no_draws)
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
