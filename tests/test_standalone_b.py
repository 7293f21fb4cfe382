"""Each chapter notebook on its own in a fresh readers' environment: its first cell installs
``seqrmt`` there, as on Colab, and the chapter runs there (see ``tests/standalone.py`` for what
runs in that environment and what is taken from the development environment's execution of the
same notebook).  The chapters are split over this file and ``test_standalone_a.py`` so that
``pytest -n 2 --dist loadfile`` runs the two halves side by side; the readers' environment and
the wheel are shared (the session fixture ``readers_env`` of ``tests/conftest.py``)."""
from __future__ import annotations

import pytest

import standalone

pytestmark = pytest.mark.venv

CHAPTERS = standalone.CHAPTERS[1::2]


@pytest.mark.parametrize("name", CHAPTERS)
def test_standalone_chapter_installs_seqrmt_and_runs(readers_env, tmp_path, name):
    print(name, standalone.executes_alone(name, readers_env, tmp_path))
