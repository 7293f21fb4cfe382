"""Sphinx extension: alt text and CSS size of notebook images from their output metadata.

Registered in ``_config.yml`` under ``sphinx: local_extensions: {seqrmt_alt: site_assets/}``.

The figures of the book are drawn by :mod:`seqrmt.plots`, which writes an alt text
for every figure from the plotted data (:func:`seqrmt.plots.alt_text`).  The
notebook's display hook stores it in the output metadata of the PNG::

    {"image/png": {"alt": "...", "seqrmt_width": 640, "seqrmt_height": 360}}

MyST-NB 1.4 reads only ``width``/``height`` from output metadata
(``NbElementRenderer.render_image``).  This extension wraps that method so that

* ``alt`` from the output metadata becomes the ``alt`` of the image (it takes
  precedence over a cell-level ``mystnb: image: alt:``, so the text always comes
  from the code that drew the figure), and
* ``seqrmt_width``/``seqrmt_height`` (the CSS size of a PNG rendered at twice that
  many pixels, sharp on 2x screens) become the image's width when the cell sets
  none, so the picture is not shown at twice its intended size.
"""

from __future__ import annotations

from typing import Any

_WRAPPED = "_seqrmt_alt_wrapped"


def _wrap_render_image() -> None:
    from myst_nb.core.render import NbElementRenderer

    original = NbElementRenderer.render_image
    if getattr(original, _WRAPPED, False):
        return

    def render_image(self: Any, data: Any) -> list:
        result = original(self, data)
        meta = data.output_metadata.get(data.mime_type, {}) if data.output_metadata else {}
        if not isinstance(meta, dict):
            return result
        alt = meta.get("alt")
        width = meta.get("seqrmt_width")
        for node in result:
            if node.tagname != "image":
                continue
            if isinstance(alt, str) and alt.strip():
                node["alt"] = " ".join(alt.split())
            if width and "width" not in node and "scale" not in node:
                try:
                    node["width"] = f"{int(width)}px"
                except (TypeError, ValueError):
                    pass
        return result

    setattr(render_image, _WRAPPED, True)
    render_image.__doc__ = original.__doc__
    NbElementRenderer.render_image = render_image  # type: ignore[method-assign]


def setup(app: Any) -> dict[str, Any]:
    _wrap_render_image()
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
