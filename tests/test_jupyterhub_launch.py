"""The JupyterHub launch button, end to end on 127.0.0.1.

A chapter page built with the book's launch-button settings and a hub address
(``launch_buttons.jupyterhub_url`` in ``_config.yml``) carries sphinx-book-theme's JupyterHub
link, ``<hub>/hub/user-redirect/git-pull?repo=...&urlpath=...&branch=...``.  A hub sends
``/hub/user-redirect/<rest>`` to the student's own server as ``/user/<name>/<rest>``; here a
Jupyter server with nbgitpuller on a free loopback port plays that server.  Following the link
(the hub's redirect done by hand, the repository replaced by a local git remote holding this
checkout's ``HEAD``) must clone the repository into the server's root, redirect to the chapter,
and the server must then serve the chapter's notebook.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml
from scratch_sphinx import build_html

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "book/03_bbp"
TOKEN = "seqrmt-test-token"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _button_url(tmp: Path, hub: str) -> str:
    """The JupyterHub link of the chapter page, built with the book's own repository and
    launch-button settings and ``jupyterhub_url = hub``."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repo, buttons = config["repository"], dict(config["launch_buttons"])
    buttons["jupyterhub_url"] = hub
    src = tmp / "site"
    (src / "book").mkdir(parents=True)
    nb = json.loads((ROOT / f"{CHAPTER}.ipynb").read_text(encoding="utf-8"))
    nb["cells"] = [c for c in nb["cells"] if c["cell_type"] == "markdown"][:2]
    (src / f"{CHAPTER}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (src / "index.md").write_text(f"# Home\n\n```{{toctree}}\n{CHAPTER}\n```\n", encoding="utf-8")
    options = {
        "repository_url": repo["url"],
        "repository_branch": repo["branch"],
        "path_to_docs": repo.get("path_to_book", ""),
        "launch_buttons": buttons,
    }
    (src / "conf.py").write_text(
        'extensions = ["myst_nb"]\nhtml_theme = "sphinx_book_theme"\nnb_execution_mode = "off"\n'
        f"html_theme_options = {options!r}\nsuppress_warnings = ['mystnb.unknown_mime_type']\n",
        encoding="utf-8",
    )
    _, html = build_html(src)
    page = (html / f"{CHAPTER}.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]*/hub/user-redirect/git-pull\?[^"]*)"', page)
    assert links, "no JupyterHub launch button on the chapter page"
    return links[0].replace("&amp;", "&")


def _get(url: str, timeout: float = 30) -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, response.geturl(), response.read().decode("utf-8", errors="replace")


@pytest.fixture
def server(tmp_path: Path):
    """A Jupyter server with nbgitpuller on a free loopback port; its root is empty."""
    pytest.importorskip("nbgitpuller")
    root = tmp_path / "home"
    root.mkdir()
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter_server",
            f"--ServerApp.port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}",
            "--ServerApp.allow_root=True",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.open_browser=False",
            "--ServerApp.port_retries=0",
            "--ServerApp.log_level=DEBUG",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}/"
    # ready when it logs that its extensions started: the server binds its port in the first
    # callback of its event loop and starts the extensions in a later one (jupyter_server's
    # start_ioloop), so that line comes after the port listens.  A server that stops ends the
    # output; pytest-timeout bounds a hang.
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if "nbgitpuller | extension was successfully started" in line:
            break
    else:
        pytest.fail("the Jupyter server stopped:\n" + "".join(seen)[-3000:])
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep draining its output
    assert _get(base + "api/status", timeout=30)[0] == 200
    try:
        yield base, root
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def _local_remote(tmp: Path, branch: str) -> str:
    """A bare git repository holding this checkout's ``HEAD`` as ``branch``: the 'GitHub' of the test."""
    remote = tmp / "remote" / "seqrmt.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    subprocess.run(
        ["git", "-C", str(ROOT), "push", "--quiet", str(remote), f"HEAD:refs/heads/{branch}"],
        check=True,
        capture_output=True,
    )
    return remote.as_uri()


@pytest.mark.build  # a scratch Sphinx site (and a Jupyter server)
def test_the_jupyterhub_button_clones_the_book_and_opens_the_chapter(server, tmp_path: Path) -> None:
    base, root = server
    hub = "https://hub.example.edu"
    link = _button_url(tmp_path, hub)
    prefix = f"{hub}/hub/user-redirect/"
    assert link.startswith(prefix + "git-pull?"), link
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert query["repo"] == config["repository"]["url"] and query["branch"] == config["repository"]["branch"]
    target = query["repo"].rstrip("/").split("/")[-1]
    assert query["urlpath"] == f"lab/tree/{target}/{CHAPTER}.ipynb"

    # the hub's redirect, and the repository as a local remote
    query["repo"] = _local_remote(tmp_path, query["branch"])
    query["targetpath"] = target
    ui = base + "git-pull?" + urllib.parse.urlencode(query)
    status, _, page = _get(ui)
    assert status == 200 and query["urlpath"] in page  # the page that pulls, then opens the chapter

    # what the page's script does: the pull (an event stream), then the chapter
    api = base + "git-pull/api?" + urllib.parse.urlencode({k: query[k] for k in ("repo", "branch", "targetpath")})
    status, _, events = _get(api, timeout=300)
    phases = [json.loads(line[5:]).get("phase") for line in events.splitlines() if line.startswith("data:")]
    assert status == 200 and phases and phases[-1] == "finished", events[-2000:]
    assert (root / target / f"{CHAPTER}.ipynb").is_file()
    status, _, body = _get(base + f"api/contents/{target}/{CHAPTER}.ipynb?content=1")
    notebook = json.loads(body)
    assert status == 200 and notebook["type"] == "notebook"
    committed = json.loads(
        subprocess.run(
            ["git", "-C", str(ROOT), "show", f"HEAD:{CHAPTER}.ipynb"], capture_output=True, text=True, check=True
        ).stdout
    )
    assert notebook["content"]["cells"][0]["source"] == "".join(committed["cells"][0]["source"])
    # a second launch (the student comes back) pulls into the same folder without an error
    status, _, events = _get(api, timeout=300)
    assert '"phase": "finished"' in events.replace("'", '"'), events[-2000:]
