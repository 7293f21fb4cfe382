"""Common look of the book's figures, and their text alternatives.

Every figure function of :mod:`seqrmt.plots` attaches an alt text to the Figure it
returns (:func:`set_alt`): a sentence saying what is plotted, with which parameters,
and the key numbers read off the plotted data.  :func:`alt_text` returns it (or, for
a Figure built elsewhere, a description generated from its axes).  When a Figure is
displayed in a notebook, the PNG output carries the alt text in its output metadata
(``{"image/png": {"alt": ...}}``); the book's Sphinx extension
``seqrmt_book/figures.py`` copies it to the ``alt`` attribute of the ``<img>``.
:func:`seqrmt.widgets.explore` does the same for every frame.
"""

from __future__ import annotations

import functools

# the phone column and the plain text of a label, shared with the check (._check): re-exported here
from ._text import _TEX, COLUMN_PX, plain_text  # noqa: F401

__all__ = [
    "WEIGHT_COLORS",
    "THEORY_COLOR",
    "SIM_COLOR",
    "IDEAL_COLOR",
    "MEAN_SPIKE_COLOR",
    "figure",
    "finish",
    "set_alt",
    "alt_text",
    "plain_text",
    "fmt",
    "readable_fonts",
    "smallest_text_px",
    "render_png",
    "COLUMN_PX",
    "MIN_TEXT_PX",
    "legend_below",
    "legend_right",
    "log_ticks",
]

#: One color per weighting, used in every chapter.
WEIGHT_COLORS = {"mean": "#4C72B0", "causal": "#DD8452", "optimal": "#55A868", "strict causal": "#C44E52"}
THEORY_COLOR = "#222222"  # exact finite-table theory
IDEAL_COLOR = "#8172B3"  # idealized statement (alpha beta, no class-mean noise)
SIM_COLOR = "#64B5CD"  # simulation
MEAN_SPIKE_COLOR = "#C44E52"  # vocabulary-mean outlier of the uncentered S

#: Smallest figure text, in CSS pixels, when a figure is scaled to :data:`COLUMN_PX`.
MIN_TEXT_PX = 9.0
#: Resolution of the displayed PNGs relative to their CSS size (sharp on 2x screens).
PIXEL_DENSITY = 2
#: CSS pixels per inch of figure width (the figure's CSS width is ``width * CSS_DPI``).
CSS_DPI = 100
#: Margin, in inches, that :func:`render_png` keeps around a figure cropped to its content.
TIGHT_PAD_INCHES = 0.05


# --------------------------------------------------------------------------- alt text
def fmt(x, digits: int = 3) -> str:
    """A number written for an alt text: ``0.5``, ``1.85``, ``0.00123``, ``12``."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    if x != x:  # NaN
        return "undefined"
    if abs(x) < 1e-10:
        return "0"
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.{digits}g}"


def set_alt(fig, text: str):
    """Attach the alt text ``text`` (one or more sentences) to ``fig``; returns ``fig``.

    TeX markup is converted to plain text (:func:`plain_text`) and whitespace is
    collapsed.  Raises ``ValueError`` if the text is empty.
    """
    text = plain_text(text)
    if not text:
        raise ValueError("alt text must not be empty")
    fig.seqrmt_alt = text
    return fig


def _describe_axes(ax) -> str:
    parts = []
    title = plain_text(ax.get_title())
    kind = "plot"
    if ax.images:
        kind = "image"
    elif ax.patches and not ax.lines:
        kind = "bar chart or histogram"
    if title:
        parts.append(f"{kind} titled {title}")
    else:
        parts.append(kind)
    for axis, name in ((ax.xaxis, "horizontal"), (ax.yaxis, "vertical")):
        label = plain_text(axis.get_label_text())
        lo, hi = sorted(axis.get_view_interval())
        scale = " (log scale)" if axis.get_scale() == "log" else ""
        if label:
            parts.append(f"{name} axis {label} from {fmt(lo)} to {fmt(hi)}{scale}")
    legend = ax.get_legend()
    if legend is not None:
        labels = [plain_text(t.get_text()) for t in legend.get_texts() if t.get_text()]
        if labels:
            parts.append("legend: " + "; ".join(labels))
    return ", ".join(parts)


def alt_text(fig) -> str:
    """The alt text of ``fig``: the one set by :func:`set_alt` or, failing that, a
    description generated from the figure's axes (titles, axis labels and ranges,
    legend entries)."""
    text = getattr(fig, "seqrmt_alt", None)
    if text:
        return text
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    if not axes:
        return "Figure."
    if len(axes) == 1:
        return "Figure: " + _describe_axes(axes[0]) + "."
    return f"Figure with {len(axes)} panels. " + " ".join(
        f"Panel {i + 1}: {_describe_axes(ax)}." for i, ax in enumerate(axes)
    )


# --------------------------------------------------------------------------- rendering
def readable_fonts(fig, *, column_px: float = COLUMN_PX, min_px: float = MIN_TEXT_PX) -> float:
    """Raise every text of ``fig`` to at least ``min_px`` CSS pixels when the figure is
    scaled down to a ``column_px`` wide column (a 390 px phone).  Returns the font
    size floor used, in points.  Idempotent.

    The width counted is the figure's plus the margin :func:`render_png` keeps on each side of an
    inline figure, so that the cropped PNG too shows its text at ``min_px`` or more."""
    from matplotlib.text import Text

    width_pt = (fig.get_figwidth() + 2 * TIGHT_PAD_INCHES) * 72.0
    floor = min_px * width_pt / column_px
    for t in fig.findobj(Text):
        if t.get_text() and t.get_fontsize() < floor:
            t.set_fontsize(floor)
    for ax in fig.axes:
        # tick labels are created at draw time from the axis' tick parameters
        for axis in (ax.xaxis, ax.yaxis):
            for which, ticks in (("major", axis.get_major_ticks()), ("minor", axis.get_minor_ticks())):
                size = ticks[0].label1.get_fontsize() if ticks else floor
                if size < floor:
                    axis.set_tick_params(which=which, labelsize=floor)
        if ax.xaxis.offsetText.get_fontsize() < floor:
            ax.xaxis.offsetText.set_fontsize(floor)
        if ax.yaxis.offsetText.get_fontsize() < floor:
            ax.yaxis.offsetText.set_fontsize(floor)
    return floor


def smallest_text_px(fig, *, css_dpi: float = CSS_DPI) -> float | None:
    """The size of the smallest visible text of ``fig``, in CSS pixels, when the figure is shown at
    its own CSS size (``css_dpi`` CSS pixels per inch); ``None`` for a figure without text.

    Read after the figure is drawn (tick labels exist only then).  A page that shows the figure at
    ``s`` times its CSS width shows this text at ``s`` times the size: the book writes the number
    beside each figure and explorer frame (``data-seqrmt-text-px``), and the browser test at a
    phone's width checks ``s * smallest_text_px >= MIN_TEXT_PX``.
    """
    from matplotlib.text import Text

    sizes = [
        t.get_fontsize()
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and (t.axes is None or t.axes.get_visible())
    ]
    return round(min(sizes) * css_dpi / 72.0, 2) if sizes else None


def render_png(
    fig,
    *,
    css_dpi: float = CSS_DPI,
    density: float = PIXEL_DENSITY,
    tight: bool = True,
    palette: bool = True,
    check: bool = True,
) -> tuple[bytes, int, int]:
    """Render ``fig`` to PNG at ``density`` device pixels per CSS pixel.

    Returns ``(png_bytes, css_width, css_height)``: show the image at
    ``css_width x css_height`` CSS pixels so that it is sharp on a 2x screen.  With
    ``palette=True`` the image is quantized to at most 256 colours (lossless for the
    book's flat-colour plots up to antialiasing shades) to keep it small.  With
    ``check=True`` the figure's readability is checked and recorded
    (:func:`seqrmt.plots.record_figure`, :func:`seqrmt.plots.assert_figures_readable`).
    """
    import io
    from PIL import Image as _Image

    buf = io.BytesIO()
    kw = dict(bbox_inches="tight", pad_inches=TIGHT_PAD_INCHES) if tight else {}
    if check:
        from ._check import checking_draws

        with checking_draws(fig, css_dpi=css_dpi, where="inline" if tight else "frame"):
            fig.savefig(buf, format="png", dpi=css_dpi * density, facecolor="white", **kw)
    else:
        fig.savefig(buf, format="png", dpi=css_dpi * density, facecolor="white", **kw)
    img = _Image.open(io.BytesIO(buf.getvalue()))
    w, h = img.size
    if palette:
        img = img.convert("RGB").quantize(colors=256, method=_Image.Quantize.MEDIANCUT, dither=_Image.Dither.NONE)
        out = io.BytesIO()
        img.save(out, format="PNG", optimize=True)
        data = out.getvalue()
    else:
        data = buf.getvalue()
    return data, round(w / density), round(h / density)


def render_image(fig, *, css_dpi: float = CSS_DPI, density: float = PIXEL_DENSITY, check: bool = True):
    """Render ``fig``, uncropped, to an RGB ``PIL.Image`` at ``density`` device pixels per CSS pixel.

    The pixels of :func:`render_png` with ``tight=False, palette=False``, without encoding and decoding a
    PNG (the explorers' frames are re-encoded as WebP): returns ``(image, css_width, css_height)``.
    """
    import io
    from PIL import Image as _Image

    dpi = css_dpi * density
    buf = io.BytesIO()
    if check:
        from ._check import checking_draws

        with checking_draws(fig, css_dpi=css_dpi, where="frame"):
            fig.savefig(buf, format="rgba", dpi=dpi, facecolor="white")
    else:
        fig.savefig(buf, format="rgba", dpi=dpi, facecolor="white")
    data = buf.getvalue()
    # Agg's canvas is the figure's size in pixels, truncated (backend_agg.RendererAgg)
    w, h = int(fig.get_figwidth() * dpi), int(fig.get_figheight() * dpi)
    if w * h * 4 != len(data):  # pragma: no cover - another backend's rounding
        data, w, h = render_png(fig, css_dpi=css_dpi, density=density, tight=False, palette=False, check=False)
        return _Image.open(io.BytesIO(data)).convert("RGB"), w, h
    img = _Image.frombuffer("RGBA", (w, h), data, "raw", "RGBA", 0, 1).convert("RGB")
    return img, round(w / density), round(h / density)


def _png(fig):
    """IPython formatter: a sharp PNG plus output metadata with the alt text and the
    CSS size (read by ``seqrmt_book/figures.py``)."""
    readable_fonts(fig)
    data, w, h = render_png(fig)
    meta = {"alt": alt_text(fig), "seqrmt_width": w, "seqrmt_height": h}
    text_px = smallest_text_px(fig)
    if text_px is not None:
        meta["seqrmt_text_px"] = text_px
    return data, meta


def _latex(fig):  # pragma: no cover - trivial
    return None


def _register_display() -> None:
    """Let IPython show a bare ``Figure`` (built without pyplot) as a PNG with alt text."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is optional
        return
    ip = get_ipython()
    if ip is None:
        return
    from matplotlib.figure import Figure

    ip.display_formatter.formatters["image/png"].for_type(Figure, _png)


_register_display()


def figure(ncols: int = 1, nrows: int = 1, *, width: float = 6.4, height: float = 3.6, **kw):
    """A figure and axes with the book's size, created without pyplot's global state
    (so that closing it is never forgotten and no stray inline figure appears)."""
    import sys
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    # the figure function that asked for it, named by the readability check
    fig.seqrmt_origin = sys._getframe(1).f_code.co_name
    axes = fig.subplots(nrows, ncols, squeeze=True, **kw)
    return fig, axes


def finish(ax, *, xlabel: str | None = None, ylabel: str | None = None, title: str | None = None, legend: bool = True):
    """Label an axes and add a legend if it has labelled artists."""
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize="medium", pad=8)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", frameon=False)
    ax.grid(alpha=0.25)
    # a little more room under the x axis: its first tick label clears the y axis' one
    ax.tick_params(axis="x", pad=5)
    return ax


def legend_below(fig, ax=None, *, handles=None, labels=None, ncols: int = 2, fontsize="small", **kw):
    """A legend under the axes of ``fig``, outside the data (``loc="outside lower center"``,
    placed by constrained layout).

    The entries are ``handles``/``labels`` when given, else the labelled artists of ``ax``
    or, without ``ax``, of every axes of the figure (each label once).  Returns the legend.
    """
    if handles is None:
        handles, labels, seen = [], [], set()
        for a in [ax] if ax is not None else fig.axes:
            for h, lab in zip(*a.get_legend_handles_labels()):
                if lab not in seen:
                    seen.add(lab)
                    handles.append(h)
                    labels.append(lab)
    elif labels is None:
        labels = [h.get_label() for h in handles]
    if not handles:
        return None
    return fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=max(1, min(ncols, len(handles))),
        frameon=False,
        fontsize=fontsize,
        **kw,
    )


def legend_right(ax, *, fontsize="small", **kw):
    """A legend to the right of ``ax``, outside the data (constrained layout makes room)."""
    kw.setdefault("loc", "center left")
    kw.setdefault("bbox_to_anchor", (1.02, 0.5))
    return ax.legend(fontsize=fontsize, frameon=False, **kw)


def log_ticks(ax, which: str = "y"):
    """Label a log axis so that its scale can be read, whatever its span.

    Where at least two powers of ten are in view, the axis keeps matplotlib's ticks at the
    powers of ten; over a shorter span its labelled ticks are 1, 2 and 5 times the powers of
    ten, and where fewer than two of those are in view, every integer multiple of them.  The
    choice is made when the figure is drawn, so it follows the final limits.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes with a log-scaled ``which`` axis.
    which : {"x", "y", "both"}, default "y"
        The axis (or both) to label.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.

    Raises
    ------
    ValueError
        If ``which`` is not one of the three names, or the axis is not log-scaled.
    """
    import numpy as np
    from matplotlib.ticker import LogFormatterSciNotation, NullFormatter

    if which not in ("x", "y", "both"):
        raise ValueError(f"which must be 'x', 'y' or 'both', got {which!r}")
    for name in ("x", "y") if which == "both" else (which,):
        axis = getattr(ax, f"{name}axis")
        if axis.get_scale() != "log":
            raise ValueError(f"log_ticks needs a log-scaled {name} axis, got the scale {axis.get_scale()!r}")
        axis.set_major_locator(_readable_log_locator_class()())
        axis.set_major_formatter(LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(np.inf, np.inf)))
        axis.set_minor_formatter(NullFormatter())
    return ax


@functools.cache
def _readable_log_locator_class():
    import numpy as np
    from matplotlib.ticker import LogLocator

    class ReadableLogLocator(LogLocator):
        """Powers of ten where two are in view; else 1-2-5 multiples; else 1-9 multiples."""

        def tick_values(self, vmin, vmax):
            lo, hi = sorted((float(vmin), float(vmax)))
            if not (lo > 0 and np.isfinite(hi)):
                return super().tick_values(vmin, vmax)
            k = np.arange(np.floor(np.log10(lo)), np.ceil(np.log10(hi)) + 1)
            for subs in ((1.0,), (1.0, 2.0, 5.0), tuple(range(1, 10))):
                ticks = np.sort(np.concatenate([m * 10.0**k for m in subs]))
                if np.count_nonzero((ticks >= lo * (1 - 1e-9)) & (ticks <= hi * (1 + 1e-9))) >= 2:
                    return super().tick_values(vmin, vmax) if len(subs) == 1 else ticks
            return ticks

    return ReadableLogLocator
