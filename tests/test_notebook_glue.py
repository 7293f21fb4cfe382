"""seqrmt.notebook.glue writes exactly what myst_nb.glue writes, without needing MyST-NB."""

from __future__ import annotations

import pytest

from seqrmt.notebook import GLUE_PREFIX, glue


def _captured(fn, *args, **kw):
    """The display messages published by ``fn`` (IPython's display publisher, no kernel)."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    published = []
    old = shell.display_pub.publish
    shell.display_pub.publish = lambda data, metadata=None, **k: published.append((data, metadata))
    try:
        fn(*args, **kw)
    finally:
        shell.display_pub.publish = old
    return published


@pytest.mark.parametrize("display", [True, False])
@pytest.mark.parametrize("value", [1.2345, "text", [1, 2]])
def test_same_output_as_myst_nb(value, display):
    myst_glue = pytest.importorskip("myst_nb").glue
    ours = _captured(glue, "key_1", value, display=display)
    theirs = _captured(myst_glue, "key_1", value, display=display)
    assert ours == theirs
    data, metadata = ours[0]
    assert metadata["scrapbook"]["name"] == "key_1"
    assert all(k.startswith(GLUE_PREFIX) for k in data) is (not display)


@pytest.mark.parametrize("name", ["", "   ", None, 3])
def test_bad_name(name):
    with pytest.raises(ValueError, match="name"):
        glue(name, 1.0)


def test_bad_display():
    with pytest.raises(TypeError, match="display"):
        glue("k", 1.0, display="no")
