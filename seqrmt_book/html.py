"""Sphinx extension: the HTML that Sphinx, docutils and myst-nb write for some nodes, made
accessible and light where it is written (a translator mixin and node visitors).

* **Images** (:meth:`SeqrmtTranslatorMixin.visit_image`): content images get
  ``loading="lazy"``, ``decoding="async"`` and their intrinsic ``width``/``height`` (no
  layout shift while they load), the first one too: a chapter's largest paint on a phone is its
  opening paragraph, and a figure fetched at once only delays it (Lighthouse, mobile: 0.15 s on
  chapter 0); a lazy image in view is fetched right after the first layout.  A figure drawn at
  twice its size gets a phone-sized copy offered by ``srcset`` (:func:`phone_variant`, written
  after the build); a PNG drawn at twice its CSS width (``seqrmt.plots``)
  gets the CSS width and the height that keeps its aspect ratio.
* **Scroll boxes** (:meth:`~SeqrmtTranslatorMixin.visit_literal_block`,
  :meth:`~SeqrmtTranslatorMixin.visit_table`): every ``<pre>`` of a code block (named
  "Code", or "Output" inside a notebook cell's output) and every table container ("Table")
  is a named tab stop in the HTML already (``tabindex="0"``, ``role="group"``,
  ``aria-label``), so that a keyboard user, or axe-core run right after load
  (``scrollable-region-focusable``), does not depend on a script; ``static/seqrmt/site.js``
  later takes the stop away from a box that does not scroll.
* **Bibliography lists**: docutils writes ``role="list"`` around ``role="doc-biblioentry"``
  entries, a list without list items (axe ``aria-required-children``): the entries are
  list items (doc-biblioentry is deprecated in DPUB-ARIA 1.1).
* **Hidden code cells**: myst-nb names every "Show code cell ..." ``<summary>``
  "Toggle hidden content", so its visible text is not its name (axe
  ``label-content-name-mismatch``, WCAG 2.5.3): :func:`visit_hide_cell` writes it without
  that label (its visible text is its name).

The mixin is put in front of every HTML translator at ``builder-inited``, after
pydata-sphinx-theme has put its own there (the theme's ``setup_translators``).
"""

from __future__ import annotations

import posixpath
import struct
import types
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docutils import nodes


def png_size(path: Path) -> tuple[int, int] | None:
    """``(width, height)`` in pixels of a PNG file, or None (not a PNG, unreadable)."""
    try:
        with path.open("rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) == 24 and head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        return struct.unpack(">II", head[16:24])
    return None


def display_size(pixels: tuple[int, int], css_width: str | None) -> tuple[int, int]:
    """The size an image is shown at: its pixels, or a CSS width in px with the same aspect ratio."""
    w, h = pixels
    if css_width and css_width.endswith("px"):
        try:
            shown = float(css_width[:-2])
        except ValueError:
            return w, h
        return int(round(shown)), int(round(shown * h / w))
    return w, h


#: Width in pixels of the phone-sized copy of a figure: the phone column (``seqrmt.columns``) at
#: twice its CSS pixels.  A phone downloads it instead of the figure's full PNG (``srcset``).
PHONE_VARIANT_PX = 720
#: Suffix of a phone-sized copy's file name (``<name>.w720.png`` beside ``<name>.png`` in ``_images/``).
VARIANT_SUFFIX = f".w{PHONE_VARIANT_PX}.png"
_VARIANTS = "_seqrmt_image_variants"


def phone_variant(pixels: tuple[int, int] | None, css_width: str | None, uri: str) -> tuple[str, str, str] | None:
    """``(srcset, sizes, file name)`` of a PNG figure that gets a phone-sized copy, or ``None``.

    A figure drawn at twice its CSS width (``seqrmt.plots``) and more than half as wide again as the
    copy gets a copy :data:`PHONE_VARIANT_PX` pixels wide: ``srcset`` offers both by their widths, and
    ``sizes`` says the image is shown as wide as the narrow screen's column (the screen less its
    margins, :mod:`seqrmt.columns`) up to its CSS width, so that a phone takes the copy and a
    desktop the full figure."""
    from seqrmt import columns

    if not pixels or not uri.endswith(".png") or not css_width or not css_width.endswith("px"):
        return None
    width = pixels[0]
    try:
        css = float(css_width[:-2])
    except ValueError:
        return None
    if width < 1.5 * PHONE_VARIANT_PX or width < 1.9 * css:
        return None
    copy = uri[: -len(".png")] + VARIANT_SUFFIX
    srcset = f"{copy} {PHONE_VARIANT_PX}w, {uri} {width}w"
    inset = 2 * columns.NARROW_INSET_PX
    sizes = f"(max-width: {columns.NARROW_SCREEN_MAX_PX}px) min(calc(100vw - {inset}px), {css:g}px), {css:g}px"
    return srcset, sizes, posixpath.basename(uri)


def _variants(app: Any) -> set[str]:
    found = getattr(app, _VARIANTS, None)
    if found is None:
        found = set()
        setattr(app, _VARIANTS, found)
    return found


def write_phone_variant(source: Path) -> Path:
    """Write the phone-sized copy of the PNG ``source`` beside it (unless it is newer); its path."""
    from PIL import Image

    target = source.with_name(source.name[: -len(".png")] + VARIANT_SUFFIX)
    if target.is_file() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    with Image.open(source) as image:
        rgb = image.convert("RGB")
        height = round(rgb.height * PHONE_VARIANT_PX / rgb.width)
        small = rgb.resize((PHONE_VARIANT_PX, height), Image.Resampling.LANCZOS)
        small = small.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        small.save(target, format="PNG", optimize=True)
    return target


def _build_finished(app: Any, exception: Exception | None) -> None:
    """The phone-sized copies of the figures the pages offer (Sphinx has copied the images by now)."""
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    images = Path(app.outdir) / "_images"
    for name in sorted(_variants(app)):
        source = images / unquote(name)
        if source.is_file():
            write_phone_variant(source)


def _with_attributes(tag: str, extra: str) -> str:
    """An ``<img ...>`` tag with more attributes before its end."""
    for end in (" />", "/>", ">"):
        i = tag.rfind(end)
        if i >= 0:
            return tag[:i] + " " + extra + tag[i:]
    return tag


def scroll_box_name(node: Any) -> str:
    """The name of a code block's ``<pre>``: "Output" inside a notebook cell's output, else "Code"."""
    parent = node.parent
    while parent is not None:
        classes = parent.get("classes", []) if isinstance(parent, nodes.Element) else []
        if "cell_output" in classes:
            return "Output"
        if "cell_input" in classes:
            return "Code"
        parent = parent.parent
    return "Code"


class SeqrmtTranslatorMixin:
    """What this extension changes in the HTML translator (see the module docstring)."""

    def visit_image(self, node: Any) -> None:
        source = str(node["uri"])
        local = not source.startswith(("data:", "http:", "https:"))
        if local:
            node.setdefault("loading", "lazy")
        start = len(self.body)
        super().visit_image(node)  # type: ignore[misc]
        if not local or len(self.body) == start or not self.body[-1].lstrip().startswith("<img"):
            return
        extra = ['decoding="async"']
        size = png_size(Path(self.builder.srcdir) / source)
        if "height" not in node and size:
            w, h = display_size(size, node.get("width"))
            extra.append(f'width="{w}" height="{h}"')
        variant = phone_variant(size, node.get("width"), str(node["uri"]))
        if variant:
            srcset, sizes, name = variant
            extra.append(f'srcset="{escape(srcset, quote=True)}" sizes="{escape(sizes, quote=True)}"')
            _variants(self.builder.app).add(name)
        self.body[-1] = _with_attributes(self.body[-1], " ".join(extra))

    def visit_literal_block(self, node: Any) -> None:
        start = len(self.body)
        try:
            super().visit_literal_block(node)  # type: ignore[misc]
        finally:  # the translator raises SkipNode after writing the block
            name = scroll_box_name(node)
            for i in range(start, len(self.body)):
                if "<pre>" in self.body[i]:
                    self.body[i] = self.body[i].replace(
                        "<pre>", f'<pre tabindex="0" role="group" aria-label="{name}">', 1
                    )
                    break

    def visit_table(self, node: Any) -> None:
        start = len(self.body)
        super().visit_table(node)  # type: ignore[misc]
        container = '<div class="pst-scrollable-table-container">'
        for i in range(start, len(self.body)):
            if self.body[i] == container:
                self.body[i] = (
                    '<div class="pst-scrollable-table-container" tabindex="0" role="group" aria-label="Table">'
                )
                break

    def visit_citation(self, node: Any) -> None:
        if not isinstance(node.previous_sibling(), type(node)):
            self.body.append('<div role="list" class="citation-list">\n')
        self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def visit_hide_cell(self: Any, node: Any) -> None:
    """myst-nb's ``visit_HideCellInput`` without the ``aria-label`` on its ``<summary>``."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def _add_mixin(app: Any) -> None:
    if getattr(app.builder, "format", "") != "html":
        return
    translators = dict(app.registry.translators.items())
    if not translators:
        translators = {app.builder.name: app.builder.default_translator_class}
    for name, klass in translators.items():
        if issubclass(klass, SeqrmtTranslatorMixin):
            continue
        mixed = types.new_class("SeqrmtHTML5Translator", (SeqrmtTranslatorMixin, klass), {})
        app.set_translator(name, mixed, override=True)


def setup(app: Any) -> dict[str, Any]:
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.setup_extension("myst_nb")
    app.add_node(HideCodeCellNode, override=True, html=(visit_hide_cell, depart_HideCellInput))
    # after pydata-sphinx-theme's setup_translators (builder-inited, priority 500)
    app.connect("builder-inited", _add_mixin, priority=900)
    app.connect("build-finished", _build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
