"""The hidden set-up code of the Live code button (seqrmt_book/live.py) and the
command line of ``python -m seqrmt.live``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

from seqrmt_book import live as seqrmt_live

from seqrmt import live  # noqa: E402


def _nb(*cells: tuple[str, list[str]]) -> dict:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title")]
    for source, tags in cells:
        cell = nbformat.v4.new_code_cell(source)
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    return json.loads(nbformat.writes(nb))


def test_names_bound_and_read():
    bound, read = seqrmt_live.names(
        "%matplotlib inline\nimport numpy as np\nx = f(y)\nfor k in z: pass\ng = lambda a: a + w"
    )
    assert {"np", "x", "k", "g", "a"} <= bound
    assert {"f", "y", "z", "w"} <= read
    assert seqrmt_live.names("def (:") == (set(), set())


def test_setup_cells_are_the_hidden_cells_that_shown_cells_need():
    nb = _nb(
        ("import os", ["remove-cell", seqrmt_live.INSTALL_TAG]),  # install cell: never
        ("import numpy as np", []),  # shown 0
        ("table = np.arange(3)\nglue('k', 1.0)", ["remove-cell"]),  # set-up: table is read below
        ("assert table.sum() == 3", ["remove-cell"]),  # check cell: binds nothing
        ("glue('n', float(table[0]))", ["remove-cell"]),  # glue cell: binds nothing
        ("r = 2", ["remove-cell"]),  # r is rebound before it is read
        ("print(table)", ["hide-input"]),  # shown 1 (input behind a toggle)
        ("r = 3\nprint(r, os)", []),  # shown 2
        ("", []),
    )  # empty: not in the page
    data = seqrmt_live.live_data(nb)
    assert data["shown"] == 3
    assert [(s["before"], s["provides"]) for s in data["setup"]] == [(1, ["table"])]
    assert data["setup"][0]["source"].startswith("table = np.arange(3)")


def _uses_seqrmt(cells) -> bool:
    """Whether a notebook's code imports seqrmt (the build status page, for one, does not)."""
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return re.search(r"^\s*(?:import|from)\s+seqrmt\b", code, re.M) is not None


def test_every_chapter_has_its_install_cell_first():
    """Every notebook whose code uses seqrmt opens with the cell that installs it."""
    checked = 0
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        if not _uses_seqrmt(cells[1:]):
            continue
        checked += 1
        first = cells[0]
        assert first["cell_type"] == "code", path.name
        assert {"remove-cell", seqrmt_live.INSTALL_TAG} <= set(first["metadata"].get("tags", [])), path.name
        assert 'find_spec("seqrmt") is None' in "".join(first["source"]), path.name
    assert checked >= 11  # the nine chapters, the intro and the appendix


def test_live_command_line_checks_its_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit):
        live.parse_args(["--port", "70000", "--book", str(tmp_path)])
    assert "--port" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        live.parse_args(["--port", "x"])
    assert "integer from 0 to 65535" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        live.parse_args(["--book", str(tmp_path)])
    assert "no built book" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        live.parse_args(["--root", str(tmp_path / "missing")])
    assert "--root" in capsys.readouterr().err
    (tmp_path / "index.html").write_text("<html></html>")
    with pytest.raises(SystemExit):
        live.parse_args(["--book", str(tmp_path), "--port", "9000", "--kernel-port", "9000"])
    assert "must differ" in capsys.readouterr().err
    args = live.parse_args(["--book", str(tmp_path), "--port", "0", "--no-browser"])
    assert args.book == tmp_path.resolve() and args.port == 0 and args.no_browser


def test_live_token_is_served_to_the_loopback_host_only(tmp_path):
    """The kernel settings (with the token) answer a request for ``127.0.0.1:PORT`` or
    ``localhost:PORT`` only: a DNS-rebinding page sends its own name as ``Host`` and gets 403."""
    import functools
    import http.client
    import http.server
    import threading

    (tmp_path / "index.html").write_text("<html></html>")
    handler = functools.partial(live._BookHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer((live.HOST, 0), handler)
    live._BookHandler.live_config = b'{"token": "secret"}'
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]

    def get(path: str, host: str) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(live.HOST, port, timeout=30)
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host)
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, body

    try:
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
            assert get(live.CONFIG_PATH, host) == (200, b'{"token": "secret"}'), host
        for host in (f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}", ""):
            status, body = get(live.CONFIG_PATH, host)
            assert status == 403 and b"secret" not in body, host
        assert get("/index.html", f"evil.example:{port}")[0] == 200  # the book itself is public
    finally:
        server.shutdown()
        server.server_close()
        live._BookHandler.live_config = b"{}"
