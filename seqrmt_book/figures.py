"""The notebook output renderer of the book: alt text and CSS size of code-drawn figures.

The figures of the book are drawn by :mod:`seqrmt.plots`, which writes an alt text for
every figure from the plotted data (:func:`seqrmt.plots.alt_text`).  The notebook's
display hook stores it in the output metadata of the PNG::

    {"image/png": {"alt": "...", "seqrmt_width": 640, "seqrmt_height": 360, "seqrmt_text_px": 16.0}}

MyST-NB 1.4 reads only ``width``/``height`` from output metadata.  :class:`FigureRenderer`
is a MyST-NB render plugin (entry point ``myst_nb.renderers: seqrmt`` in
``pyproject.toml``, chosen by ``nb_render_plugin: seqrmt`` in ``_config.yml``): its
``render_image`` is MyST-NB's, and then

* ``alt`` from the output metadata becomes the ``alt`` of the image (it takes precedence
  over a cell-level ``mystnb: image: alt:``, so the text always comes from the code that
  drew the figure), and
* ``seqrmt_width`` (the CSS size of a PNG rendered at twice that many pixels, sharp on 2x
  screens) becomes the image's width when the cell sets none, so the picture is not shown
  at twice its intended size, and
* ``seqrmt_text_px`` (the smallest text of the figure, in CSS pixels at that size:
  :func:`seqrmt.plots.smallest_text_px`) divided by ``seqrmt_width`` becomes the class
  ``seqrmt-textw-<n>``, the smallest text as a fraction ``n / 100000`` of the figure's width
  (``seqrmt-textw-2500`` for 16 px on a 640 px figure), which the browser test at a phone's
  width multiplies by the width the image is shown at, to check that the text as shown is at
  least 9 CSS px, whatever width a cell's metadata gives the image.  (Sphinx writes an image
  node's classes into the ``<img>``, not other attributes.)
"""

from __future__ import annotations

from typing import Any

from myst_nb.core.render import NbElementRenderer

#: The name of the plugin (``nb_render_plugin``).
NAME = "seqrmt"
#: Prefix of the class that carries a figure's smallest text as a fraction of its width (1e-5 units).
TEXT_CLASS = "seqrmt-textw-"


def text_class(text_px: Any, width: Any) -> str | None:
    """The class ``seqrmt-textw-<n>`` of a figure ``width`` CSS pixels wide whose smallest text is
    ``text_px`` CSS pixels: ``n = round(100000 * text_px / width)``; ``None`` unless both are
    positive numbers."""
    try:
        n = round(100000 * float(text_px) / float(width))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return f"{TEXT_CLASS}{n}" if n > 0 and float(width) > 0 else None


def figure_attributes(nodes: list, metadata: Any) -> list:
    """Give the image nodes of one output the alt text and CSS width of its metadata."""
    if not isinstance(metadata, dict):
        return nodes
    alt = metadata.get("alt")
    width = metadata.get("seqrmt_width")
    size_class = text_class(metadata.get("seqrmt_text_px"), width)
    for node in nodes:
        if node.tagname != "image":
            continue
        if size_class and size_class not in node["classes"]:
            node["classes"].append(size_class)
        if isinstance(alt, str) and alt.strip():
            node["alt"] = " ".join(alt.split())
        if width and "width" not in node and "scale" not in node:
            try:
                node["width"] = f"{int(width)}px"
            except (TypeError, ValueError):
                pass
    return nodes


class FigureRenderer(NbElementRenderer):
    """MyST-NB's renderer, with the alt text and CSS size of :mod:`seqrmt.plots` figures."""

    def render_image(self, data: Any) -> list:
        meta = data.output_metadata.get(data.mime_type, {}) if data.output_metadata else {}
        return figure_attributes(super().render_image(data), meta)
