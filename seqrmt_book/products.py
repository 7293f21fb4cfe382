"""Sphinx extension: links to the book's other products, left out (not broken) when absent.

Part of the book's extensions (:mod:`seqrmt_book`, registered in ``_config.yml``).

The website links to files that other commands make: the PDF edition, the lecture slides, the
notebooks zip, the students' notebook of each problem set, the students' edition and the frozen
editions.  ``scripts/publish.py`` makes them all and assembles one site; the README's build
command makes the website only.  A page names a product with the role

.. code-block:: markdown

    {product}`PDF file <pdf>`        {product}`slides of chapter 3 <slides/03_bbp>`

and the link is written only when the product is part of the site being built: its file is in
the build's output folder, or the build declares it (``SEQRMT_PRODUCTS``, see
:func:`declared_products`; ``scripts/publish.py`` declares what it is about to make, and its link
check then proves that each declared file is there).  Otherwise the words stay, without a link,
and the page gets one note saying which products this build left out and how to make them.

A page whose products appeared or went away since it was written is read again
(``env-get-outdated``), so an incremental build never keeps a stale link or a stale note.  In
the PDF a product reference is its words only.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes

#: The environment variable that declares products a build will carry (comma-separated names or
#: families, ``all`` for every one).
ENV = "SEQRMT_PRODUCTS"
#: The page that explains how to publish (the note links to it when the book has it).
TEACH_PAGE = "book/teach"
NOTE_CLASS = "seqrmt-products-note"


@dataclass(frozen=True)
class Product:
    """One product: its path in the assembled site, what it is, and the command that makes it."""

    path: str
    what: str
    command: str


#: The families of products: name -> (path pattern, description, command).  ``{item}`` is a deck
#: of ``slides/`` or a problem set of ``problems/masters/``.
FAMILIES: dict[str, tuple[str, str, str]] = {
    "pdf": ("_pdf/seqrmt-book.pdf", "the PDF edition", "scripts/build_pdf.sh"),
    "slides": ("slides/index.html", "the lecture slides", "python scripts/build_slides.py"),
    "slides/": ("slides/{item}.html", "the lecture slides", "python scripts/build_slides.py"),
    "notebooks": ("_downloads/seqrmt-notebooks.zip", "the notebooks zip", "python scripts/build_downloads.py"),
    "problems/": (
        "_downloads/problems/{item}.ipynb",
        "the problem sets' students' notebooks",
        "python scripts/build_downloads.py",
    ),
    "solutions/": (
        "_downloads/problems/solutions/{item}.ipynb",
        "the released solutions of the problem sets",
        "python scripts/build_downloads.py",
    ),
    "students": ("students/index.html", "the students' edition", "python scripts/publish.py OUT"),
    "editions": ("editions/index.html", "the frozen editions", "python scripts/publish.py OUT"),
}


#: The folders of the other editions that ``scripts/publish.py`` places beside the full edition's
#: pages (the students' edition, the frozen editions): not pages or archive of that edition.
EDITION_FOLDERS = ("students", "editions")


def catalogue(root: Path) -> dict[str, Product]:
    """Every product name of the book in ``root``: the single products of :data:`FAMILIES`, one
    ``slides/<deck>`` per ``slides/*.ipynb`` and one ``problems/<set>`` per
    ``problems/masters/*.ipynb``."""
    root = Path(root)
    items = {
        "slides/": sorted(p.stem for p in (root / "slides").glob("*.ipynb")),
        "problems/": sorted(p.stem for p in (root / "problems" / "masters").glob("*.ipynb")),
    }
    items["solutions/"] = items["problems/"]
    out: dict[str, Product] = {}
    for family, (path, what, command) in FAMILIES.items():
        if family.endswith("/"):
            for item in items[family]:
                out[family + item] = Product(path.format(item=item), what, command)
        else:
            out[family] = Product(path, what, command)
    return out


def family(name: str) -> str:
    """The family of a product name: ``slides/03_bbp`` -> ``slides``, ``pdf`` -> ``pdf``."""
    return name.split("/", 1)[0]


def declared_products(value: str | None = None) -> frozenset[str]:
    """The families a build declares it will carry: ``SEQRMT_PRODUCTS`` (or ``value``), a
    comma-separated list of :data:`FAMILIES` names without their slash, or ``all``.

    Raises
    ------
    ValueError
        A name that is not a family, naming the allowed ones.
    """
    if value is None:
        from seqrmt import settings

        value = settings.get(ENV)
    names = {part.strip() for part in value.split(",") if part.strip()}
    allowed = sorted({family(f) for f in FAMILIES})
    if "all" in names:
        return frozenset(allowed)
    unknown = sorted(names - set(allowed))
    if unknown:
        raise ValueError(f"{ENV} must list some of {', '.join(allowed)} (or 'all'), not {', '.join(unknown)}")
    return frozenset(names)


def presence(products: dict[str, Product], outdir: Path, declared: frozenset[str]) -> dict[str, bool]:
    """For each product, whether the site built into ``outdir`` carries it."""
    return {name: family(name) in declared or (Path(outdir) / p.path).is_file() for name, p in products.items()}


def relative_uri(docname: str, path: str) -> str:
    """The link from page ``docname`` (an HTML page at ``<docname>.html``) to ``path`` of the site."""
    return posixpath.relpath(path, posixpath.dirname(docname) or ".")


PUBLISH = "python scripts/publish.py OUT"


def absent_note(absent: list[Product]) -> list[tuple[str, str]]:
    """The note of a page whose products this build left out, as (kind, text) pieces, ``kind``
    being ``text`` or ``code``: what is missing, that the published site carries it and the
    command that assembles that site, and the command that makes each one alone."""
    whats = list(dict.fromkeys(p.what for p in absent))
    alone = dict.fromkeys((p.command, p.what) for p in absent if p.command != PUBLISH)
    listed = whats[0] if len(whats) == 1 else ", ".join(whats[:-1]) + " and " + whats[-1]
    pieces = [
        ("text", f"Not part of this build of the website: {listed}. The published site carries them: "),
        ("code", PUBLISH),
    ]
    pieces.append(("text", " assembles it in the folder OUT."))
    if alone:
        pieces.append(("text", " Alone: "))
        for i, (command, what) in enumerate(alone):
            pieces += [("text", ", " if i else ""), ("code", command), ("text", f" ({what})")]
        pieces.append(("text", "."))
    return [piece for piece in pieces if piece[1]]


# ---------------------------------------------------------------- Sphinx parts
class product_reference(nodes.Inline, nodes.TextElement):
    """A reference to a product (the role ``{product}``), resolved when the page is written."""


def released_problem_sets(released: list[str]) -> list[str]:
    """The problem sets whose solutions are released: ``problems/<set>`` entries of
    ``seqrmt_released_solutions`` (the list of ``_config.yml`` that also releases chapters)."""
    return [entry.split("/", 1)[1] for entry in released if str(entry).startswith("problems/")]


def _released_solutions_directive():
    from sphinx.util.docutils import SphinxDirective

    class ReleasedSolutions(SphinxDirective):
        """``{released-solutions}``: a list of links to the solutions notebooks of the problem
        sets released so far (``seqrmt_released_solutions``), or a sentence saying there is none."""

        has_content = False

        def run(self) -> list:
            sets = released_problem_sets(getattr(self.config, "seqrmt_released_solutions", []))
            if not sets:
                return [nodes.paragraph("", "No solutions of a problem set are released yet.")]
            items = nodes.bullet_list()
            for name in sets:
                ref = product_reference("", f"{name}: solutions", product=f"solutions/{name}")
                items += nodes.list_item("", nodes.paragraph("", "", ref))
            return [items]

    return ReleasedSolutions


def _product_role(name, rawtext, text, lineno, inliner, options=None, content=None):  # noqa: ARG001
    from sphinx.util.nodes import split_explicit_title

    has_title, title, target = split_explicit_title(nodes.unescape(text))
    node = product_reference(rawtext, title if has_title else target, product=target.strip())
    return [node], []


def _catalogue(app: Any) -> dict[str, Product]:
    if not hasattr(app, "_seqrmt_products"):
        app._seqrmt_products = catalogue(Path(app.confdir))
    return app._seqrmt_products


def _config_inited(app: Any, config: Any) -> None:
    try:
        config.seqrmt_products_declared = sorted(declared_products(config.seqrmt_products))
    except ValueError as error:
        from sphinx.errors import ConfigError

        raise ConfigError(str(error)) from None


def _env_get_outdated(app: Any, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """Record which products this build carries; pages whose products changed are read again."""
    if getattr(app.builder, "format", "") != "html":
        env.seqrmt_product_presence = {}
        return []
    now = presence(_catalogue(app), Path(app.outdir), frozenset(app.config.seqrmt_products_declared))
    before = getattr(env, "seqrmt_product_presence", None) or {}
    env.seqrmt_product_presence = now
    docs = getattr(env, "seqrmt_product_docs", {})
    flipped = {name for name in now if before.get(name) != now[name]}
    return sorted(doc for doc, names in docs.items() if names & flipped and doc not in removed)


def _doctree_read(app: Any, doctree: Any) -> None:
    names = {node["product"] for node in doctree.findall(product_reference)}
    if not hasattr(app.env, "seqrmt_product_docs"):
        app.env.seqrmt_product_docs = {}
    if names:
        app.env.seqrmt_product_docs[app.env.docname] = names
    unknown = sorted(names - set(_catalogue(app)))
    if unknown:
        from sphinx.util import logging

        logging.getLogger(__name__).warning(
            "unknown product %s; known: %s", ", ".join(unknown), ", ".join(sorted(_catalogue(app))), location=doctree
        )


def _env_purge_doc(app: Any, env: Any, docname: str) -> None:
    getattr(env, "seqrmt_product_docs", {}).pop(docname, None)


def _env_merge_info(app: Any, env: Any, docnames: list[str], other: Any) -> None:
    if not hasattr(env, "seqrmt_product_docs"):
        env.seqrmt_product_docs = {}
    env.seqrmt_product_docs.update(getattr(other, "seqrmt_product_docs", {}))


def _resolve(app: Any, doctree: Any, docname: str) -> None:
    """Each product reference becomes a link (product present) or its words (absent, with one
    note per page after the first block that names an absent product)."""
    products = _catalogue(app)
    html = getattr(app.builder, "format", "") == "html"
    present = getattr(app.env, "seqrmt_product_presence", {}) if html else {}
    absent: list[Product] = []
    first_block = None
    for node in list(doctree.findall(product_reference)):
        name = node["product"]
        text = nodes.Text(node.astext())
        if html and present.get(name):
            ref = nodes.reference("", "", text, refuri=relative_uri(docname, products[name].path), internal=False)
            ref["classes"].append("seqrmt-product")
            node.replace_self(ref)
            continue
        if html and name in products:
            absent.append(products[name])
            if first_block is None:
                first_block = node.parent
                while first_block is not None and not isinstance(first_block, (nodes.paragraph, nodes.list_item)):
                    first_block = first_block.parent
        node.replace_self(nodes.inline("", "", text, classes=["seqrmt-product-absent"]))
    if absent and first_block is not None:
        para = nodes.paragraph()
        for kind, text in absent_note(absent):
            para += nodes.literal(text, text) if kind == "code" else nodes.Text(text)
        note = nodes.note("", para, classes=[NOTE_CLASS])
        if TEACH_PAGE in app.env.all_docs and docname != TEACH_PAGE:
            uri = app.builder.get_relative_uri(docname, TEACH_PAGE)
            note[0] += nodes.Text(" How: ")
            note[0] += nodes.reference("", "Teach with this book", refuri=uri, internal=True)
            note[0] += nodes.Text(".")
        block = first_block.parent if isinstance(first_block, nodes.list_item) else first_block
        while isinstance(block.parent, (nodes.bullet_list, nodes.enumerated_list, nodes.list_item)):
            block = block.parent
        block.parent.insert(block.parent.index(block) + 1, note)


def _doctree_resolved(app: Any, doctree: Any, docname: str) -> None:
    _resolve(app, doctree, docname)


def setup(app: Any) -> dict[str, Any]:
    from seqrmt import settings

    app.add_config_value("seqrmt_products", settings.get(ENV), "html", [str])
    app.add_config_value("seqrmt_products_declared", [], "html", [list])
    app.add_node(product_reference)
    app.add_role("product", _product_role)
    app.add_directive("released-solutions", _released_solutions_directive())
    app.connect("config-inited", _config_inited)
    app.connect("env-get-outdated", _env_get_outdated)
    app.connect("doctree-read", _doctree_read)
    app.connect("env-purge-doc", _env_purge_doc)
    app.connect("env-merge-info", _env_merge_info)
    app.connect("doctree-resolved", _doctree_resolved)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
