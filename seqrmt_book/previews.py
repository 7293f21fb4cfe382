"""Sphinx extension: previews of cross-references, typeset, offline and keyboard-reachable.

Every internal link to a numbered statement (a sphinx-proof theorem, proposition, lemma,
definition, corollary, conjecture, assumption or remark), an exercise or a numbered
equation gets the class ``seqrmt-has-preview``, and the statement itself goes into one small
script, ``_static/seqrmt-previews/<page>_<id>.js``, shared by every page that links to it.
``static/seqrmt/previews.js`` loads that script the first time a reader hovers over or
focuses such a link, and shows the statement in a ``role="tooltip"`` box named by the
link's ``aria-describedby``: it stays while the pointer is over the link or the box, and
Escape dismisses it (WCAG 1.4.13).  Nothing is fetched from another host, and nothing is
loaded before the first hover or focus.

How, with Sphinx's hooks:

* ``doctree-read``: the ids of the statements and numbered equations of each document are
  kept in the environment (:func:`previewable_ids`), so that every page knows the targets
  of all the others before any page is written;
* a post-transform (:class:`MarkPreviewLinks`, HTML only) gives the class to each
  ``reference`` node whose target is one of them;
* ``html-page-context``: each statement of the page, found in the page's doctree by its id,
  is rendered by the builder's own HTML translator (a walk over a copy of the node: the
  page's markup, its math typeset by :mod:`seqrmt_book.typeset` in the
  translator's visitors), then cleaned as a tree (BeautifulSoup, which the theme depends on)
  of links, ids and tab stops, so that a preview holds nothing to focus (:func:`clean`);
* ``build-finished``: one script per statement is written, from the statements of this
  build and those kept from earlier builds (``<doctrees>/seqrmt-previews.json``: an
  incremental build writes only some pages).

Why not sphinx-tippy (PyPI, 0.4.3): it loads Popper and Tippy from unpkg.com by default (they
would have to be vendored from npm), its tips would carry TeX that only a MathJax in the
browser could typeset, and Escape needs a Tippy plugin.  sphinx-hoverxref needs a Read the
Docs server (its tips are fetched from an API) and sphinx-proof/sphinx-exercise have no
previews of their own; hence this module, on Sphinx's renderer.
"""

from __future__ import annotations

import json
import posixpath
import string
from pathlib import Path
from typing import Any

#: Where the previews go, relative to the output folder (one small script per statement).
FOLDER = "_static/seqrmt-previews"
#: The class of a link that has a preview (``static/seqrmt/previews.js`` looks for it).
LINK_CLASS = "seqrmt-has-preview"
#: The statements of every page, kept between builds (in the doctree folder).
RECORD = "seqrmt-previews.json"
#: sphinx-proof's kinds and sphinx-exercise's exercise: the classes of a previewable box.
KINDS = ("theorem", "proposition", "lemma", "definition", "corollary", "conjecture", "assumption", "remark", "exercise")
#: The characters a preview file's name keeps (any other becomes "_").
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
#: What a preview must not carry: attributes that name or focus (ids would be duplicated in the page).
DROPPED_ATTRIBUTES = ("id", "tabindex", "aria-labelledby", "aria-describedby", "for")
#: Elements that can take the focus (or load something) and go with their content.
FOCUSABLE = ("input", "button", "select", "textarea", "img")
#: A preview longer than this is cut after its first blocks (a long proof-like remark).
MAX_CHARS = 120_000


def previewable_ids(doctree: Any) -> list[str]:
    """The ids of a document's statements (sphinx-proof, sphinx-exercise) and numbered equations."""
    from docutils import nodes

    ids = []
    for node in doctree.findall(nodes.Element):
        if not node.get("ids"):
            continue
        module = type(node).__module__
        if module.startswith(("sphinx_proof", "sphinx_exercise")) and any(k in node["classes"] for k in KINDS):
            ids.append(node["ids"][0])
        elif isinstance(node, nodes.math_block):
            ids += [i for i in node["ids"] if i.startswith("equation-")]
    return ids


def render(builder: Any, node: Any, document: Any) -> str:
    """A statement's node as the page shows it: a deep copy, in a document of its own with the
    page's settings, walked by the builder's HTML translator (the node stays in its page).
    (Not ``builder.render_partial``: its publisher runs docutils' writer transforms, which
    turn sphinx-proof's admonition nodes into generic ones.)"""
    from docutils.utils import new_document

    partial = new_document(document.get("source", "<partial node>"), document.settings)
    copy = node.deepcopy()
    partial.append(copy)
    translator = builder.create_translator(partial, builder)
    copy.walkabout(translator)
    return "".join(translator.body)


def clean(fragment: str) -> str:
    """A statement as preview content: no links, ids or tab stops (nothing to focus).  The
    fragment is parsed into a tree: permalinks and focusable elements go, each other link
    becomes a ``<span>`` of its content, and :data:`DROPPED_ATTRIBUTES` are removed."""
    from bs4 import BeautifulSoup

    tree = BeautifulSoup(fragment, "html.parser")
    for link in tree.find_all("a", class_="headerlink"):
        link.decompose()
    for element in tree.find_all(FOCUSABLE):
        element.decompose()
    for link in tree.find_all("a"):
        link.attrs = {}
        link.name = "span"
    for element in tree.find_all(True):
        for name in DROPPED_ATTRIBUTES:
            element.attrs.pop(name, None)
    return str(tree)[:MAX_CHARS]


def file_name(key: str) -> str:
    """The preview file of a statement ``<page>.html#<id>`` (``previews.js`` maps keys the same way)."""
    return "".join(ch if ch in _NAME_CHARS else "_" for ch in key) + ".js"


def script(key: str, fragment: str) -> str:
    """The preview file's text: it adds the statement to ``window.seqrmtPreviews``."""
    body = json.dumps(clean(fragment), ensure_ascii=False).replace("</", "<\\/")
    return f"(window.seqrmtPreviews = window.seqrmtPreviews || {{}})[{json.dumps(key)}] = {body};\n"


# ---------------------------------------------------------------- Sphinx hooks
def _doctree_read(app: Any, doctree: Any) -> None:
    store = app.env.__dict__.setdefault("seqrmt_previewable", {})
    store[app.env.docname] = previewable_ids(doctree)


def _env_purge_doc(app: Any, env: Any, docname: str) -> None:
    env.__dict__.setdefault("seqrmt_previewable", {}).pop(docname, None)


def _env_merge_info(app: Any, env: Any, docnames: Any, other: Any) -> None:
    store = env.__dict__.setdefault("seqrmt_previewable", {})
    for docname in docnames:
        store[docname] = getattr(other, "seqrmt_previewable", {}).get(docname, [])


def _target_doc(app: Any, docname: str, refuri: str) -> tuple[str, str] | None:
    """``(docname, id)`` of an internal link's ``refuri`` written on page ``docname``."""
    path, _, anchor = refuri.partition("#")
    if not anchor:
        return None
    if not path:
        return docname, anchor
    suffix = app.builder.out_suffix
    if not path.endswith(suffix):
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(docname), path[: -len(suffix)]))
    return target, anchor


def _post_transform_class() -> type:
    from docutils import nodes
    from sphinx.transforms.post_transforms import SphinxPostTransform

    class MarkPreviewLinks(SphinxPostTransform):
        """Give :data:`LINK_CLASS` to each internal link to a statement or numbered equation."""

        default_priority = 900
        formats = ("html",)

        def run(self, **kwargs: Any) -> None:
            store = getattr(self.env, "seqrmt_previewable", {})
            docname = self.env.docname
            for ref in self.document.findall(nodes.reference):
                if not ref.get("internal"):
                    continue
                target = (
                    _target_doc(self.app, docname, ref["refuri"])
                    if ref.get("refuri")
                    else (docname, ref["refid"])
                    if ref.get("refid")
                    else None
                )
                if target and target[1] in store.get(target[0], ()):
                    ref["classes"].append(LINK_CLASS)

    return MarkPreviewLinks


def _record(app: Any) -> Path:
    return Path(app.doctreedir) / RECORD


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    ids = getattr(app.env, "seqrmt_previewable", {}).get(pagename)
    if doctree is None or not ids:
        return
    from docutils import nodes

    wanted, found = set(ids), {}
    # a walk, not document.ids: sphinx-proof replaces its nodes after the ids were registered
    for node in doctree.findall(nodes.Element):
        for i in node.get("ids", ()):
            if i in wanted and i not in found:
                found[i] = render(app.builder, node, doctree)
    app.__dict__.setdefault("_seqrmt_previews", {})[pagename] = found


def _build_finished(app: Any, exception: Exception | None) -> None:
    written = app.__dict__.pop("_seqrmt_previews", {})
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    from sphinx.util import logging

    record = _record(app)
    try:
        pages = json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {}
    except (OSError, ValueError):
        pages = {}
    pages.update(written)
    store = getattr(app.env, "seqrmt_previewable", {})
    pages = {
        doc: {i: f for i, f in frags.items() if i in store.get(doc, ())}
        for doc, frags in pages.items()
        if doc in app.env.all_docs
    }
    folder = Path(app.outdir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {}
    for doc, frags in pages.items():
        page = app.builder.get_target_uri(doc)
        for element_id, fragment in frags.items():
            key = f"{page}#{element_id}"
            wanted[file_name(key)] = script(key, fragment)
    for old in folder.glob("*.js"):
        if old.name not in wanted:
            old.unlink()
    for name, text in wanted.items():
        target = folder / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
    logging.getLogger(__name__).info(f"seqrmt_book.previews: {len(wanted)} previewable statements")


def setup(app: Any) -> dict[str, Any]:
    app.add_js_file("seqrmt/previews.js", priority=900, defer="defer")
    app.add_post_transform(_post_transform_class())
    app.connect("doctree-read", _doctree_read)
    app.connect("env-purge-doc", _env_purge_doc)
    app.connect("env-merge-info", _env_merge_info)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": False, "env_version": 1}
