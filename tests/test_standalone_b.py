"""Each chapter notebook runs on its own in a fresh readers' environment, installing
``seqrmt`` through its first cell, as on Colab (see ``tests/standalone.py``).  The chapters
are split over this file and ``test_standalone_a.py`` so that ``pytest -n 2 --dist
loadfile`` runs the two halves side by side; the readers' environment is shared."""
from __future__ import annotations

import pytest

import standalone

CHAPTERS = standalone.CHAPTERS[1::2]


@pytest.fixture(scope="session")
def readers_env():
    return standalone.create_readers_env()


@pytest.mark.parametrize("name", CHAPTERS)
def test_standalone_chapter_installs_seqrmt_and_runs(readers_env, tmp_path, name):
    standalone.executes_alone(name, readers_env, tmp_path)
