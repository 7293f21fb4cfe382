"""Sphinx extension: a "Live code" button on every chapter page (thebe, vendored).

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

On every notebook page with code (``.ipynb`` source, at least one code cell shown in the
page) it writes, while the page is rendered (``html-page-context``):

* a ``<button>`` "Live code: edit and run this page's code" with a polite status region,
  right after the page title;
* a ``<script type="application/json" id="seqrmt-livecode-data">`` with what the button needs:
  the hidden set-up code of the chapter (below), where each piece runs, the number of code
  cells shown in the page (a check), the kernel's working folder, and the Binder
  repository (from ``repository:`` and ``launch_buttons:`` of ``_config.yml``);
* ``static/seqrmt/live.js`` and ``live.css`` (a few KB).  ``live.js`` fetches the vendored
  thebe (``static/seqrmt/vendor/thebe/``, 3.4 MB) only when the button is pressed: a page
  whose button is not pressed makes no request for it and nothing external.

**The set-up code** is what the code cells shown in the page need and cannot see: a code
cell removed from the page (tag ``remove-cell``) is set-up code when it binds a name
(assignment, import, ``def``, ``for`` target, ...) that a later code cell *shown in the
page* reads before binding it itself.  The other removed cells are left out: the
quantitative check cells (assertions on what the page shows), the ``glue`` cells (numbers
for the prose) and the install cell (``seqrmt-install`` tag: the kernel already has
``seqrmt``).  Cells tagged ``hide-input`` are in the page (their source behind "Show code
cell source"), so they become live cells like the others.  In the kernel, a set-up cell
runs in its place in the chapter's order: before the first shown cell that follows it.
``live.js`` runs, before the cell the reader runs, every earlier cell of the page (shown
or set-up) that has not run yet, so that a reader can edit any cell and run it.
"""

from __future__ import annotations

import ast
import html
import json
import re
from pathlib import Path
from typing import Any

#: Tag of the install cell at the top of each chapter (never set-up code).
INSTALL_TAG = "seqrmt-install"
DATA_ID = "seqrmt-livecode-data"
BUTTON_TEXT = "Live code: edit and run this page's code"


def _tags(cell: dict) -> set[str]:
    return set((cell.get("metadata") or {}).get("tags") or [])


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _python(source: str) -> str:
    """The source with IPython magics and shell lines replaced by ``pass`` (for ``ast``)."""
    return "\n".join(re.sub(r"^(\s*)[%!].*$", r"\1pass", line) for line in source.splitlines())


def names(source: str) -> tuple[set[str], set[str]]:
    """(names bound at the top level of a cell, names read before being bound in it).

    An approximation that errs on the side of keeping a cell: any name read anywhere in
    the cell (functions included) counts as read.  A cell that does not parse binds and
    reads nothing."""
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return set(), set()
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else read).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    bound.add(alias.asname or alias.name.split(".")[0])
    return bound, read


def _shown(cell: dict) -> bool:
    tags = _tags(cell)
    return (
        cell.get("cell_type") == "code" and _source(cell).strip() != "" and not tags & {"remove-cell", "remove-input"}
    )


def live_data(nb: dict) -> dict[str, Any]:
    """The set-up code of a notebook (see the module docstring) and where each piece runs.

    Returns ``{"shown": n, "setup": [{"before": k, "source": ...}, ...]}``: ``n`` code cells
    are shown in the page; a set-up cell with ``before = k`` runs before the shown cell of
    index ``k`` (``k = n``: after the last one)."""
    cells = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    setup: list[dict[str, Any]] = []
    shown = 0
    for i, cell in enumerate(cells):
        if _shown(cell):
            shown += 1
            continue
        tags = _tags(cell)
        if "remove-cell" not in tags or INSTALL_TAG in tags:
            continue
        bound, _ = names(_source(cell))
        needed = set()
        pending = set(bound)
        for later in cells[i + 1 :]:
            if not pending:
                break
            later_bound, later_read = names(_source(later))
            if _shown(later):
                # a name the later cell binds itself (a loop or comprehension variable,
                # an assignment) is taken to be bound before it is read
                needed |= pending & (later_read - later_bound)
            pending -= later_bound
        if needed:
            setup.append({"before": shown, "source": _source(cell), "provides": sorted(needed)})
    return {"shown": shown, "setup": setup}


def _binder(app: Any) -> dict[str, str] | None:
    options = getattr(app.config, "html_theme_options", {}) or {}
    launch = options.get("launch_buttons", {}) or {}
    url = str(options.get("repository_url", "") or "")
    m = re.match(r"https://github\.com/([\w.-]+/[\w.-]+?)/?$", url)
    hub = str(launch.get("binderhub_url", "") or "")
    if not m or not hub:
        return None
    return {
        "binderUrl": hub.rstrip("/"),
        "repo": m.group(1),
        "ref": str(options.get("repository_branch", "") or "main"),
        "repoProvider": "github",
    }


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if doctree is None or "body" not in context:
        return
    source = Path(app.env.doc2path(pagename))
    if source.suffix != ".ipynb" or not source.is_file():
        return
    nb = json.loads(source.read_text(encoding="utf-8"))
    data = live_data(nb)
    if data["shown"] == 0:
        return
    root = Path(app.srcdir)
    data["path"] = source.parent.relative_to(root).as_posix() if source.parent != root else ""
    data["binder"] = _binder(app)
    data["page"] = pagename
    body = context["body"]
    widget = (
        '<div class="seqrmt-livecode" data-seqrmt-livecode="off">'
        f'<button type="button" class="seqrmt-livecode-button">{html.escape(BUTTON_TEXT)}</button>'
        '<span class="seqrmt-livecode-status" role="status" aria-live="polite"></span></div>'
    )
    end_h1 = body.find("</h1>")
    body = body[: end_h1 + 5] + widget + body[end_h1 + 5 :] if end_h1 >= 0 else widget + body
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    body += f'\n<script type="application/json" id="{DATA_ID}">{payload}</script>\n'
    context["body"] = body
    app.add_css_file("seqrmt/live.css", priority=800)
    app.add_js_file("seqrmt/live.js", priority=800, defer="defer")


#: The kernel settings ``live.js`` asks for on 127.0.0.1 and localhost (``python -m seqrmt.live``
#: answers this address itself, before its files).
NO_SERVER_FILE = "_seqrmt_live.json"


def _no_server_file(app: Any, exception: Exception | None) -> None:
    """``_seqrmt_live.json`` with no kernel server in it (``{}``) at the site's root: a build
    served on 127.0.0.1 by any other static server answers ``live.js``'s question with "no local
    server" instead of a 404 in the console (``python -m seqrmt.live`` serves its own)."""
    if exception is None and app.builder.format == "html":
        (Path(app.outdir) / NO_SERVER_FILE).write_text("{}\n", encoding="utf-8")


def setup(app: Any) -> dict[str, Any]:
    # before seqrmt_book.assets (900), which defers the page's scripts
    app.connect("html-page-context", _page_context, priority=800)
    app.connect("build-finished", _no_server_file)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
