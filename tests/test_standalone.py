"""Each chapter notebook on its own in a fresh readers' environment: its first cell installs
``seqrmt`` there, as on Colab, and the chapter runs there (see ``tests/standalone.py`` for what
runs in that environment and what is taken from the development environment's execution of the
same notebook).  One file, so that one worker makes the readers' environment and the installed
layer while the other runs other tests (two files started side by side left the second worker
waiting about a minute on the lock)."""
from __future__ import annotations

import pytest

import standalone

pytestmark = pytest.mark.venv


@pytest.mark.parametrize("name", standalone.CHAPTERS)
def test_standalone_chapter_installs_seqrmt_and_runs(readers_env, tmp_path, name):
    print(name, standalone.executes_alone(name, readers_env, tmp_path))
