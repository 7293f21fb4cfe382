"""The weekly check of the external links (``scripts/check_external_links.sh``, Sphinx's
linkcheck builder), on a scratch book whose links point at a server on 127.0.0.1: a link that
answers passes, a link that answers 404 fails the command and is named in its output."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.build


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path):
    root = tmp_path / "www"
    root.mkdir()
    (root / "there.html").write_text("<html><body>here</body></html>", encoding="utf-8")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _book(folder: Path, link: str) -> Path:
    folder.mkdir()
    (folder / "_config.yml").write_text('title: scratch\nexecute:\n  execute_notebooks: "off"\n', encoding="utf-8")
    (folder / "_toc.yml").write_text("format: jb-book\nroot: intro\n", encoding="utf-8")
    (folder / "intro.md").write_text(f"# Intro\n\nSee [this page]({link}).\n", encoding="utf-8")
    return folder


def _check(book: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [str(ROOT / "scripts" / "check_external_links.sh"), str(book)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_working_link_passes(tmp_path: Path, server: str) -> None:
    run = _check(_book(tmp_path / "good", f"{server}/there.html"))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "0 broken" in run.stdout


def test_a_broken_link_fails_and_is_named(tmp_path: Path, server: str) -> None:
    run = _check(_book(tmp_path / "bad", f"{server}/gone.html"))
    assert run.returncode != 0
    assert "gone.html" in run.stdout and "1 broken" in run.stdout, run.stdout[-3000:]
