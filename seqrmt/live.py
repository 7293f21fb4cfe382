"""Serve the built book with a Jupyter kernel for its "Live code" button.

    python -m seqrmt.live [--book _build/html] [--root .] [--port 8000] [--kernel-port 0]
                          [--no-browser]

One command for offline use and for a course's lab machines. It

* starts a Jupyter server (``jupyter_server``) on 127.0.0.1 with a fresh random token, that
  accepts requests from the book's address only (``allow_origin``), with the repository
  root as its root folder (the kernels of the chapters run in ``book/``);
* serves the built book (``_build/html``) on 127.0.0.1, and at ``/_seqrmt_live.json`` the
  address and token of that Jupyter server: the "Live code" button of a page served from
  here connects to it (a page served from anywhere else asks mybinder.org);
* opens the book in the default browser (unless ``--no-browser``) and runs until Ctrl+C.

It needs ``jupyter_server`` and ``ipykernel`` in the environment whose ``seqrmt`` the kernels
should import (``pip install -r requirements.txt``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import webbrowser
from collections.abc import Iterator
from pathlib import Path

from . import settings

__all__ = ["main", "parse_args", "CONFIG_PATH"]

#: Where the book server answers with the kernel server's address and token.
CONFIG_PATH = "/_seqrmt_live.json"
HOST = "127.0.0.1"


class _BookHandler(http.server.SimpleHTTPRequestHandler):
    """The built book, plus the kernel server's settings at :data:`CONFIG_PATH`."""

    live_config: bytes = b"{}"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def host_allowed(self) -> bool:
        """Whether the request names this server by its loopback address: ``Host`` is
        ``127.0.0.1:PORT`` or ``localhost:PORT`` (a page of another site that rebinds its own name
        to 127.0.0.1 sends its own name, and gets no token)."""
        port = self.server.server_address[1]
        host = (self.headers.get("Host") or "").strip().lower()
        return host in (f"127.0.0.1:{port}", f"localhost:{port}")

    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?", 1)[0] == CONFIG_PATH:
            if not self.host_allowed():
                self.send_error(403, "the kernel settings are served to 127.0.0.1 and localhost only")
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(self.live_config)))
            self.end_headers()
            self.wfile.write(self.live_config)
            return
        super().do_GET()


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is an integer from 0 to 65535, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is an integer from 0 to 65535 (0: any free port), got {value}")
    return value


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Read and check the command line; errors name the option and what it accepts."""
    parser = argparse.ArgumentParser(
        prog="python -m seqrmt.live",
        description="Serve the built book and a Jupyter kernel for its 'Live code' buttons.",
    )
    parser.add_argument(
        "--book", type=Path, default=None, help="folder of the built book (default: <root>/_build/html)"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path.cwd(),
        help="repository root, the kernels' root folder (default: the current folder)",
    )
    parser.add_argument(
        "--port", type=_port, default=8000, help="port of the book on 127.0.0.1 (default 8000; 0: any free port)"
    )
    parser.add_argument(
        "--kernel-port",
        type=_port,
        default=0,
        help="port of the Jupyter server on 127.0.0.1 (default 0: any free port)",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    args = parser.parse_args(argv)
    args.root = args.root.resolve()
    if not args.root.is_dir():
        parser.error(f"--root: {args.root} is not a folder")
    args.book = (args.book or args.root / "_build" / "html").resolve()
    if not (args.book / "index.html").is_file():
        parser.error(
            f"--book: no built book in {args.book} (no index.html); build it first with "
            "`jupyter-book build . -n -W --keep-going` in the repository root, or name "
            "the folder with --book"
        )
    if args.port and args.port == args.kernel_port:
        parser.error(f"--port and --kernel-port must differ (both {args.port})")
    try:
        import jupyter_server  # noqa: F401
    except ImportError:
        parser.error(
            "the Python package jupyter_server is not installed in this environment "
            "(pip install -r requirements.txt, or pip install jupyter_server)"
        )
    return args


def _wait_ready(url: str, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the Jupyter server stopped at start-up (exit {proc.returncode})")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the Jupyter server did not answer within {timeout:.0f} s")


@contextlib.contextmanager
def serve(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """Run the book server and the Jupyter server; yield (book URL, kernel server URL)."""
    handler = functools.partial(_BookHandler, directory=str(args.book))
    try:
        book = http.server.ThreadingHTTPServer((HOST, args.port), handler)
    except OSError as err:
        raise SystemExit(
            f"error: --port {args.port}: cannot serve the book there ({err.strerror}); "
            "choose another port, or 0 for any free port"
        ) from None
    book.daemon_threads = True
    origin = f"http://{HOST}:{book.server_address[1]}"
    kernel_port = args.kernel_port or _free_port()
    token = secrets.token_hex(24)
    kernel_url = f"http://{HOST}:{kernel_port}/"
    _BookHandler.live_config = json.dumps(
        {"baseUrl": kernel_url, "wsUrl": f"ws://{HOST}:{kernel_port}/", "token": token}
    ).encode()
    cmd = [
        sys.executable,
        "-m",
        "jupyter_server",
        "--no-browser",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={kernel_port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={args.root}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.allow_origin={origin}",
        "--ServerApp.allow_credentials=True",
        "--ServerApp.log_level=WARN",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # a container or a lab machine's image often runs as root
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True)
    thread = threading.Thread(target=book.serve_forever, name="seqrmt-book", daemon=True)
    thread.start()
    try:
        _wait_ready(f"{kernel_url}api/status?token={token}", proc)
        yield f"{origin}/index.html", kernel_url
    finally:
        book.shutdown()
        book.server_close()
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with serve(args) as (book_url, kernel_url):
            print(f"Book:    {book_url}", flush=True)
            print(f"Kernels: Jupyter server at {kernel_url} (root {args.root})", flush=True)
            print("Press a chapter's 'Live code' button to run its code here. Stop with Ctrl+C.", flush=True)
            if not args.no_browser and not settings.flag("SEQRMT_NO_BROWSER"):
                webbrowser.open(book_url)
            while not stop.wait(0.5):
                pass
    except KeyboardInterrupt:
        pass
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
