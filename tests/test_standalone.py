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


def test_import_check_catches_a_chapter_import_that_fails(readers_env, tmp_path):
    """The one process that checks every chapter's imports reports the chapter whose import fails,
    and only that one."""
    import nbformat

    planted = tmp_path / "planted.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np\nimport not_a_module_of_the_readers_env")]
    nbformat.write(nb, planted)
    layer, _ = standalone.installed_layer(*readers_env)
    with pytest.raises(AssertionError, match="(?s)planted.ipynb: its imports fail.*not_a_module_of_the_readers_env"):
        standalone.imports_in_layer(planted, layer, tmp_path / "check")
    ok = standalone.imports_in_layer(standalone.BOOK / standalone.CHAPTERS[0], layer, tmp_path / "again")
    assert ok["chapter_error"] is None and not ok["failed"]
