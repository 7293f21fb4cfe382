"""The book's Sphinx extensions: one module per feature, its assets beside it.

``_config.yml`` registers the package (``sphinx: extra_extensions: [seqrmt_book]``); its
:func:`setup` sets up every module below, in this order, and adds ``static/`` to
``html_static_path``.  The package is installed with ``seqrmt`` (``pip install -e .``) but
``seqrmt`` never imports it; the modules import Sphinx only inside their hooks, so that
scripts and tests can import them cheaply.

=======================  ===================================================================
module                   what it does
=======================  ===================================================================
``cache``                what each notebook's cached execution depends on; a report of what
                         each build executed (also used by ``scripts/execute_notebooks.py``)
``assets``               what each page loads: nothing from a CDN, scripts after the first
                         paint, the widget state out of the page (sets up ``bundles``: the
                         page's stylesheets in one file)
``typeset``              math typeset at build time by MathJax in Node.js (an HTML math
                         renderer)
``html``                 images, scroll boxes, bibliography and hidden-cell markup (a
                         translator mixin and node visitors)
``theme``                what the theme hard-codes: its icon stylesheet, its scroll-box check
``figures``              alt text and CSS size of code-drawn figures (a MyST-NB render
                         plugin, registered as an entry point; not a Sphinx extension)
``live``                 the "Live code" button of the chapter pages
``latex``                the PDF edition: chapter numbers, labels, widget outputs
``selfcheck``            self-check questions checked in the page without a kernel
``students``             the students' edition: no solutions (pages, PDF, downloaded notebooks)
``editions``             edition, version and build date in every footer
``previews``             previews of references to statements, exercises and equations
``numbering``            one numbering scheme on the website and in the PDF
``reading``              the reading time of every chapter page; the index of results
``search``               the search page's ranking, Greek letters by name and symbol, the
                         General Index of concepts and the API's own index
``products``             links to the PDF, slides, downloads and editions, left out when a
                         build did not make them
``repository``           the repository the site names: the workflow's own in a fork
``toc``                  the pages of ``_toc.yml`` in order, for the tests and scripts (not an
                         extension)
``bridge``               Sphinx's template bridge, for which these modules count as templates:
                         an edit of one writes every page again (``template_bridge``)
=======================  ===================================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: The static files of the extensions (copied into ``_static/``; everything under ``seqrmt/``).
STATIC = Path(__file__).resolve().parent / "static"
#: The Sphinx extensions of the package, in the order they are set up.
EXTENSIONS = (
    "cache",
    "assets",
    "typeset",
    "html",
    "theme",
    "live",
    "latex",
    "selfcheck",
    "students",
    "editions",
    "previews",
    "numbering",
    "reading",
    "search",
    "products",
    "repository",
)


def _static_path(app: Any, config: Any) -> None:
    if str(STATIC) not in map(str, config.html_static_path):
        config.html_static_path.append(str(STATIC))


def setup(app: Any) -> dict[str, Any]:
    for name in EXTENSIONS:
        app.setup_extension(f"{__name__}.{name}")
    app.connect("config-inited", _static_path)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": False}
