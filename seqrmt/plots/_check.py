"""A readability check of the book's figures, run on the matplotlib figures themselves.

:func:`figure_problems` lays a figure out (as it is drawn) and lists what a reader
could not read:

* two text elements that overlap (titles, suptitle, axis labels, tick labels,
  legends, annotations, bar labels, colorbar labels), or tick labels of one axis
  that run together (closer than a quarter of their font size);
* text or a legend outside the figure (cropped in the image), a legend that
  spills out of its axes or lies over another axes;
* a legend over more than :data:`MAX_LEGEND_COVER` of the plotted points of its
  axes (line vertices resampled every few pixels, scatter points, bar tops);
* bars (and histogram steps) that run off the top of their axes;
* text smaller than :data:`MIN_CSS_PX` CSS pixels at the size the page shows the
  figure: a figure ``w`` inches wide rendered at ``css_dpi`` CSS pixels per inch is
  ``w * css_dpi`` CSS pixels wide, shown at ``min(1, column / (w * css_dpi))`` of that
  size in a column of ``column`` CSS pixels (:data:`DESKTOP_COLUMN_PX`, the widest
  the column gets, and :data:`seqrmt.plots.COLUMN_PX` on a 390 px phone: both from
  :mod:`seqrmt.columns`, which the site's stylesheet reads too), so a font
  of ``s`` points is ``s / 72 * css_dpi * min(1, column / (w * css_dpi))`` CSS
  pixels (``seqrmt_book/figures.py`` gives an inline figure its CSS width
  ``w * 100``; an explorer frame is ``w * dpi`` wide);
* axes squeezed to slivers (less than :data:`MIN_AXES_CSS_PX` CSS pixels wide or
  high at the desktop size);
* an axis whose scale cannot be read: its automatic ticks label fewer than two
  values in view (a log axis spanning less than a decade shows no number at all,
  one spanning less than two decades a single one).  Ticks the figure chose
  (``set_xticks``), switched off (``set_yticks([])``) or whose labels it hid
  (shared axes) are the figure's choice and not reported.

Every figure the book renders goes through :func:`seqrmt.plots.render_png` (the
inline display hook and the frames of :func:`seqrmt.widgets.explore` and
:func:`seqrmt.widgets.live`), which calls :func:`record_figure`.
:func:`assert_figures_readable` raises an ``AssertionError`` listing every figure
recorded in this Python process that has a problem.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np

from .. import settings
from ..columns import COLUMN_MAX_PX

__all__ = [
    "figure_problems",
    "record_figure",
    "checking_draws",
    "figure_reports",
    "clear_figure_reports",
    "assert_figures_readable",
    "DESKTOP_COLUMN_PX",
    "MIN_CSS_PX",
    "MAX_LEGEND_COVER",
    "MIN_AXES_CSS_PX",
]

#: Widest the text column shows a figure, in CSS pixels (:data:`seqrmt.columns.COLUMN_MAX_PX`: the
#: site's stylesheet holds the column to it on any screen).
DESKTOP_COLUMN_PX = COLUMN_MAX_PX
#: Smallest readable text, in CSS pixels, at the desktop and at the phone width.
MIN_CSS_PX = 9.0
#: Largest share of an axes' plotted points that its legend may cover.
MAX_LEGEND_COVER = 0.05
#: Smallest width and height of an axes, in CSS pixels at the desktop size.
MIN_AXES_CSS_PX = 60.0

_RECORDS: list[dict[str, Any]] = []


# --------------------------------------------------------------------------- helpers
def _short(text: str, n: int = 28) -> str:
    from ._text import plain_text

    s = plain_text(text)
    return s if len(s) <= n else s[: n - 1] + "…"


def _axes_name(fig, ax) -> str:
    axes = [a for a in fig.axes if a.get_visible()]
    try:
        i = axes.index(ax) + 1
    except ValueError:
        i = 0
    title = _short(ax.get_title()) if ax.get_title() else ""
    return f"panel {i}" + (f" ({title!r})" if title else "")


def _ticks_drawn(axis):
    """The ticks the axis draws (inside its view interval)."""
    try:
        return axis._update_ticks()
    except Exception:  # pragma: no cover - private API changed
        return axis.get_major_ticks()


def _labelled_ticks(axis) -> int | None:
    """How many ticks of ``axis`` in view carry a label, or None where the count is the
    figure's choice: a hidden axis, fixed or no ticks, or tick labels switched off."""
    from matplotlib.ticker import FixedLocator, NullLocator

    if not axis.get_visible() or isinstance(axis.get_major_locator(), (FixedLocator, NullLocator)):
        return None
    sides = ("labelleft", "labelright") if axis.axis_name == "y" else ("labelbottom", "labeltop")
    params = axis.get_tick_params(which="major")
    if not any(params.get(side, side in ("labelleft", "labelbottom")) for side in sides):
        return None  # labels switched off (shared axes, label_outer)
    return sum(
        any(lab.get_visible() and str(lab.get_text()).strip() for lab in (t.label1, t.label2))
        for t in _ticks_drawn(axis)
    )


def _is_colorbar(ax) -> bool:
    return getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>"


def _texts(fig, renderer):
    """``(kind, label, text_artist_or_None, bbox, fontsize_pt, group)`` of every drawn text."""
    out = []

    def add(kind, t, group=None, where=""):
        if t is None or not t.get_visible() or not str(t.get_text()).strip():
            return
        try:
            bb = t.get_window_extent(renderer)
        except Exception:  # pragma: no cover - exotic text
            return
        if bb.width <= 0 or bb.height <= 0 or not np.all(np.isfinite(bb.extents)):
            return
        label = f"{kind} {_short(t.get_text())!r}" + (f" of {where}" if where else "")
        out.append((kind, label, t, bb, float(t.get_fontsize()), group))

    special = []
    if getattr(fig, "_suptitle", None) is not None:
        add("suptitle", fig._suptitle)
        special.append(id(fig._suptitle))
    for attr in ("_supxlabel", "_supylabel"):
        add("figure label", getattr(fig, attr, None))
        special.append(id(getattr(fig, attr, None)))
    for t in fig.texts:
        if id(t) not in special:
            add("figure text", t)
    axes_list = []
    for ax in fig.axes:
        axes_list.append(ax)
        axes_list.extend(getattr(ax, "child_axes", []))
    for ax in axes_list:
        if not ax.get_visible():
            continue
        where = _axes_name(fig, ax)
        for t in (ax.title, ax._left_title, ax._right_title):
            add("title", t, where=where)
        for t in ax.texts:
            add("annotation", t, where=where)
        if not ax.axison:
            continue
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            if not axis.get_visible():
                continue
            add(f"{name} label", axis.label, where=where)
            add(f"{name} offset", axis.offsetText, where=where)
            for tick in _ticks_drawn(axis):
                for side, lab in ((1, tick.label1), (2, tick.label2)):
                    add(f"{name} tick label", lab, group=(id(axis), side), where=where)
    return out


def _legends(fig):
    legends = []
    for ax in fig.axes:
        for a in [ax] + list(getattr(ax, "child_axes", [])):
            lg = a.get_legend()
            if lg is not None and lg.get_visible():
                legends.append((a, lg))
    for lg in getattr(fig, "legends", []):
        if lg.get_visible():
            legends.append((None, lg))
    return legends


def _overlap(a, b, tol: float) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > tol) and (min(a.y1, b.y1) - max(a.y0, b.y0) > tol)


def _resample(xy: np.ndarray, step: float, cap: int = 4000) -> np.ndarray:
    """Points along a polyline (display coordinates) at most ``step`` apart."""
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    if len(xy) < 2:
        return xy
    seg = np.diff(xy, axis=0)
    length = np.hypot(seg[:, 0], seg[:, 1])
    total = float(length.sum())
    if total <= 0:
        return xy
    n = int(min(cap, max(len(xy), total / step)))
    s = np.concatenate([[0.0], np.cumsum(length)])
    t = np.linspace(0.0, total, n)
    return np.column_stack([np.interp(t, s, xy[:, 0]), np.interp(t, s, xy[:, 1])])


def _data_points(ax, step: float) -> np.ndarray:
    """Display coordinates of what ``ax`` plots, clipped to its area."""
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    from matplotlib.patches import Rectangle, StepPatch

    pts = []
    for line in ax.lines:
        if not line.get_visible():
            continue
        xy = line.get_xydata()
        if len(xy) == 0:
            continue
        disp = line.get_transform().transform(np.asarray(xy, float))
        if line.get_linestyle() in ("None", "none", "", " "):
            pts.append(disp)
        else:
            pts.append(_resample(disp, step))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                if len(seg):
                    pts.append(_resample(coll.get_transform().transform(np.asarray(seg, float)), step))
        elif isinstance(coll, PathCollection):
            off = coll.get_offsets()
            if len(off):
                pts.append(coll.get_offset_transform().transform(np.asarray(off, float)))
        elif isinstance(coll, PolyCollection):
            continue  # filled bands: the lines drawn on them count
    for p in ax.patches:
        if isinstance(p, StepPatch) and p.get_visible():
            vals, edges = p.get_data()[:2]
            mid = 0.5 * (np.asarray(edges[1:], float) + np.asarray(edges[:-1], float))
            pts.append(p.get_transform().transform(np.column_stack([mid, np.asarray(vals, float)])))
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_visible()]
    if bars:
        tops = []
        for p in bars:
            x, y, w, h = p.get_x(), p.get_y(), p.get_width(), p.get_height()
            tops.append((x + w / 2, y + h))
        pts.append(bars[0].get_transform().transform(np.asarray(tops, float)))
    for im in ax.images:
        if im.get_visible():
            x0, x1, y0, y1 = im.get_extent()
            gx, gy = np.meshgrid(np.linspace(x0, x1, 24), np.linspace(y0, y1, 24))
            pts.append(ax.transData.transform(np.column_stack([gx.ravel(), gy.ravel()])))
    if not pts:
        return np.empty((0, 2))
    p = np.concatenate(pts)
    p = p[np.all(np.isfinite(p), axis=1)]
    bb = ax.bbox
    inside = (p[:, 0] >= bb.x0) & (p[:, 0] <= bb.x1) & (p[:, 1] >= bb.y0) & (p[:, 1] <= bb.y1)
    return p[inside]


# --------------------------------------------------------------------------- the check
def figure_problems(
    fig,
    *,
    css_dpi: float = 100.0,
    css_width: float | None = None,
    columns: tuple[float, ...] | None = None,
    min_px: float = MIN_CSS_PX,
    max_legend_cover: float = MAX_LEGEND_COVER,
    min_axes_px: float = MIN_AXES_CSS_PX,
    renderer=None,
) -> list[str]:
    r"""The readability problems of a matplotlib figure, as sentences (empty if none).

    Without ``renderer`` the figure is laid out as it is drawn (constrained layout
    included) at its own dpi, without rasterizing.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, with its final fonts (after :func:`seqrmt.plots.readable_fonts`).
    css_dpi : float, default 100
        CSS pixels per inch of figure in the page (100 for an inline figure, the
        ``dpi`` of :func:`seqrmt.widgets.explore` for a frame).
    css_width : float, optional
        CSS width of the image at its natural size; defaults to
        ``fig.get_figwidth() * css_dpi`` (give the cropped width of a tight render).
    columns : tuple of float, optional
        Column widths, in CSS pixels, at which text must stay at least ``min_px``
        high; defaults to ``(DESKTOP_COLUMN_PX, COLUMN_PX)``.  A font of ``s`` points
        is ``s / 72 * css_dpi * min(1, column / css_width)`` CSS pixels.
    min_px : float, default :data:`MIN_CSS_PX`
        Smallest readable text in CSS pixels.
    max_legend_cover : float, default :data:`MAX_LEGEND_COVER`
        Largest share of an axes' plotted points its legend may hide.
    min_axes_px : float, default :data:`MIN_AXES_CSS_PX`
        Smallest axes width and height (CSS pixels, at the desktop column).
    renderer : matplotlib renderer, optional
        The renderer of a draw of ``fig`` that just finished (from a ``draw_event``):
        the figure is measured as that draw laid it out, at its dpi and crop.

    Returns
    -------
    list of str
        One sentence per problem.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure.
    ValueError
        If a size parameter is not positive or ``max_legend_cover`` is not in [0, 1].
    """
    from matplotlib.figure import Figure

    from ._text import COLUMN_PX

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    for pname, v in (("css_dpi", css_dpi), ("min_px", min_px), ("min_axes_px", min_axes_px)):
        if not (isinstance(v, (int, float)) and v > 0):
            raise ValueError(f"{pname} must be a positive number, got {v!r}")
    if not (0.0 <= max_legend_cover <= 1.0):
        raise ValueError(f"max_legend_cover must be in [0, 1], got {max_legend_cover!r}")
    if columns is None:
        columns = (DESKTOP_COLUMN_PX, COLUMN_PX)
    if css_width is not None and not css_width > 0:
        raise ValueError(f"css_width must be positive, got {css_width!r}")
    kw = dict(
        css_dpi=float(css_dpi),
        css_width=css_width,
        columns=tuple(columns),
        min_px=float(min_px),
        max_legend_cover=float(max_legend_cover),
        min_axes_px=float(min_axes_px),
    )
    if renderer is not None:
        return _problems(fig, renderer, **kw)
    # lay the figure out as a draw does (constrained layout, legends, ticks) and
    # measure it with the renderer of that draw (its text metrics are cached)
    found: list[list[str]] = []
    cid = fig.canvas.mpl_connect("draw_event", lambda event: found.append(_problems(fig, event.renderer, **kw)))
    try:
        fig.draw_without_rendering()
    finally:
        fig.canvas.mpl_disconnect(cid)
    return found[-1] if found else []


def _problems(fig, renderer, *, css_dpi, css_width, columns, min_px, max_legend_cover, min_axes_px) -> list[str]:
    """:func:`figure_problems` of a figure just drawn with ``renderer``."""
    if css_width is None:
        # the drawn area (cropped to the tight box when saved with bbox_inches="tight")
        css_width = fig.bbox.width / fig.dpi * css_dpi
    px_per_fig_px = css_dpi / fig.dpi  # CSS px (natural size) per figure pixel
    tol = 1.0 / px_per_fig_px  # 1 CSS px
    texts = _texts(fig, renderer)
    legends = _legends(fig)
    boxes = [(e[1], e[3], e[5], e[4], e[2]) for e in texts]  # (label, bbox, group, size, text)
    problems = _small_text(texts, columns, css_dpi, css_width, min_px)
    problems += _overlapping_text(fig, boxes, legends, tol)
    problems += [f"cut off at the figure edge: {label}" for label, bb, *_ in boxes if _outside(bb, fig.bbox, tol)]
    for ax, lg in legends:
        problems += _legend_problems(fig, renderer, ax, lg, legends, boxes, tol, 3.0 / px_per_fig_px, max_legend_cover)
    desk = min(1.0, columns[0] / css_width) * px_per_fig_px  # figure pixels to CSS px at the desktop column
    for ax in fig.axes:
        if ax.get_visible() and ax.axison and not _is_colorbar(ax):
            problems += _axes_problems(fig, ax, desk, min_axes_px)
    # drop repeats, keep order
    return list(dict.fromkeys(problems))


def _outside(bb, fig_bb, tol: float) -> bool:
    """Whether the box ``bb`` runs past the figure's box by more than ``tol``."""
    return bb.x0 < fig_bb.x0 - tol or bb.y0 < fig_bb.y0 - tol or bb.x1 > fig_bb.x1 + tol or bb.y1 > fig_bb.y1 + tol


def _small_text(texts: list, columns, css_dpi: float, css_width: float, min_px: float) -> list[str]:
    """1. The smallest text, at each column width."""
    if not texts:
        return []
    problems = []
    smallest = min(texts, key=lambda e: e[4])
    for col in columns:
        scale = min(1.0, col / css_width)
        px = smallest[4] / 72.0 * css_dpi * scale
        if px < min_px - 0.05:
            problems.append(
                f"text too small: {smallest[1]} is {px:.1f} CSS px at a {col:g} px "
                f"column (needs {min_px:g}; font {smallest[4]:.1f} pt, figure "
                f"{css_width:.0f} CSS px wide)"
            )
    return problems


def _overlapping_text(fig, boxes: list, legends: list, tol: float) -> list[str]:
    """2. Texts that overlap (but a legend's own), and the tick labels of one axis that run together."""
    if not boxes:
        return []
    problems = []
    legend_texts = {id(t) for _, lg in legends for t in lg.get_texts()}
    ext = np.array([b[1].extents for b in boxes])
    for i, (li, _, gi, _, ti) in enumerate(boxes):
        if id(ti) in legend_texts:
            continue
        ox = np.minimum(ext[i, 2], ext[i + 1 :, 2]) - np.maximum(ext[i, 0], ext[i + 1 :, 0])
        oy = np.minimum(ext[i, 3], ext[i + 1 :, 3]) - np.maximum(ext[i, 1], ext[i + 1 :, 1])
        for k in np.nonzero((ox > tol) & (oy > tol))[0]:
            j = i + 1 + int(k)
            if gi is not None and boxes[j][2] == gi:
                continue  # tick labels of one axis: reported below, neighbours only
            problems.append(f"overlapping text: {li} and {boxes[j][0]}")
    groups: dict[Any, list[int]] = {}
    for i, b in enumerate(boxes):
        if b[2] is not None:
            groups.setdefault(b[2], []).append(i)
    for idx in groups.values():
        if len(idx) < 2:
            continue
        e = ext[idx]
        horizontal = np.ptp(e[:, 0]) >= np.ptp(e[:, 1])
        lo, hi = (0, 2) if horizontal else (1, 3)
        order = np.argsort(e[:, lo])
        e = e[order]
        gaps = e[1:, lo] - e[:-1, hi]
        need = 0.25 * np.array([boxes[idx[o]][3] for o in order[1:]]) * fig.dpi / 72.0
        for k in np.nonzero(gaps < need)[0]:
            a, b = boxes[idx[order[k]]][0], boxes[idx[order[k + 1]]][0]
            what = "overlap" if gaps[k] < -tol else "run together"
            problems.append(f"tick labels {what}: {a} and {b}")
    return problems


def _legend_problems(fig, renderer, ax, lg, legends: list, boxes: list, tol: float, step: float, max_cover: float):
    """4. The legend ``lg`` of ``ax`` (``None``: of the figure): cut off, over text, over another legend or
    panel, spilling out of its axes, over more than ``max_cover`` of its axes' plotted points."""
    problems = []
    bb = lg.get_window_extent(renderer)
    where = _axes_name(fig, ax) if ax is not None else "the figure"
    lname = f"legend of {where}"
    if _outside(bb, fig.bbox, tol):
        problems.append(f"cut off at the figure edge: {lname}")
    own = {id(t) for t in lg.get_texts()} | {id(lg.get_title())}
    for label, tb, _g, _f, t in boxes:
        if id(t) not in own and _overlap(bb, tb, tol):
            problems.append(f"legend over text: {lname} covers {label}")
    for other_ax, other in legends:
        if other is lg or id(other) < id(lg):
            continue
        if _overlap(bb, other.get_window_extent(renderer), tol):
            problems.append(
                f"overlapping legends: {lname} and legend of "
                f"{_axes_name(fig, other_ax) if other_ax is not None else 'the figure'}"
            )
    for a in fig.axes:
        if not a.get_visible() or a is ax or _is_colorbar(a):
            continue
        if _overlap(bb, a.bbox, tol):
            problems.append(f"legend over another panel: {lname} lies on {_axes_name(fig, a)}")
    if ax is None:
        return problems
    ab = ax.bbox
    inter = _overlap(bb, ab, tol)
    inside = bb.x0 >= ab.x0 - tol and bb.x1 <= ab.x1 + tol and bb.y0 >= ab.y0 - tol and bb.y1 <= ab.y1 + tol
    if inter and not inside:
        problems.append(f"legend spills out of its axes: {lname}")
    pts = _data_points(ax, step)
    if len(pts):
        cover = float(
            np.mean((pts[:, 0] >= bb.x0) & (pts[:, 0] <= bb.x1) & (pts[:, 1] >= bb.y0) & (pts[:, 1] <= bb.y1))
        )
        if cover > max_cover:
            problems.append(
                f"legend over the data: {lname} covers {100 * cover:.0f} % "
                f"of the plotted points (at most {100 * max_cover:.0f} %)"
            )
    return problems


def _axes_problems(fig, ax, desk: float, min_axes_px: float) -> list[str]:
    """5. An axes squeezed (at ``desk`` CSS px per figure pixel), an axis whose scale cannot be read,
    bars that run off its top."""
    from matplotlib.patches import Rectangle, StepPatch

    problems = []
    w, h = ax.bbox.width * desk, ax.bbox.height * desk
    if min(w, h) < min_axes_px:
        problems.append(
            f"axes squeezed: {_axes_name(fig, ax)} is {w:.0f} x {h:.0f} CSS px (needs {min_axes_px:g} each way)"
        )
    for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
        labelled = _labelled_ticks(axis)
        if labelled is not None and labelled < 2:
            problems.append(
                f"scale unreadable: the {name} axis of {_axes_name(fig, ax)} labels {labelled} value(s) "
                f"({axis.get_scale()} scale; label more ticks, e.g. seqrmt.plots.log_ticks)"
            )
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_visible() and p.get_height() > 0]
    tops = [p.get_y() + p.get_height() for p in bars]
    for p in ax.patches:
        if isinstance(p, StepPatch) and p.get_visible():
            tops.extend(np.asarray(p.get_data()[0], float).tolist())
    if tops and ax.get_yscale() == "linear":
        top = max(ax.get_ylim())
        over = [t for t in tops if t > top * (1 + 1e-9) + 1e-12]
        if over:
            problems.append(f"bars cut off: {len(over)} bar(s) of {_axes_name(fig, ax)} run off the top of the axes")
    return problems


# --------------------------------------------------------------------------- the record
def _enabled() -> bool:
    """Whether figures are checked: only when ``SEQRMT_FIGURE_CHECK=1``, which the book's build (its
    kernels) and the tests set; a reader's session draws its figures without the check."""
    return settings.flag("SEQRMT_FIGURE_CHECK")


def _record(fig, problems: list[str], seconds: float, where: str) -> None:
    name = getattr(fig, "seqrmt_origin", None) or "figure"
    params = getattr(fig, "seqrmt_params", None)
    title = ""
    if getattr(fig, "_suptitle", None) is not None and fig._suptitle.get_text():
        title = fig._suptitle.get_text()
    elif fig.axes and fig.axes[0].get_title():
        title = fig.axes[0].get_title()
    _RECORDS.append(
        {
            "name": name,
            "params": dict(params) if params else None,
            "where": where,
            "title": _short(title, 60) if title else "",
            "problems": list(problems),
            "seconds": seconds,
        }
    )


def record_figure(fig, *, css_dpi: float = 100.0, css_width: float | None = None, where: str = "inline") -> list[str]:
    """Check ``fig`` with :func:`figure_problems` (laid out by a draw of its own) and
    record the result for :func:`assert_figures_readable`; returns the problems.

    Does nothing (returns ``[]``) unless the environment variable
    ``SEQRMT_FIGURE_CHECK`` is ``1`` (the build and the tests set it).  A failure of the check itself is recorded as a
    problem, never raised.
    """
    if not _enabled():
        return []
    t0 = time.perf_counter()
    try:
        problems = figure_problems(fig, css_dpi=css_dpi, css_width=css_width)
    except Exception as exc:  # the check must never break a figure
        problems = [f"the figure check failed: {type(exc).__name__}: {exc}"]
    _record(fig, problems, time.perf_counter() - t0, where)
    return problems


@contextlib.contextmanager
def checking_draws(fig, *, css_dpi: float = 100.0, where: str = "inline"):
    """Context manager: check ``fig`` as the draws inside the block lay it out and
    record the last one (:func:`record_figure`).

    :func:`seqrmt.plots.render_png` saves every figure inside it, so the check
    measures the image as saved (its dpi, its crop with ``bbox_inches="tight"``)
    with the renderer of that draw, whose text metrics are already cached: the
    check costs a few milliseconds per figure.  On only when ``SEQRMT_FIGURE_CHECK=1``.
    """
    if not _enabled():
        yield
        return
    found: list[list[str]] = []
    cost = [0.0]

    def on_draw(event) -> None:
        if "draw_path" in vars(event.renderer):
            return  # the layout-only draw of bbox_inches="tight"; the saved draw follows
        t0 = time.perf_counter()
        try:
            found.append(figure_problems(fig, css_dpi=css_dpi, renderer=event.renderer))
        except Exception as exc:  # the check must never break a figure
            found.append([f"the figure check failed: {type(exc).__name__}: {exc}"])
        cost[0] += time.perf_counter() - t0

    cid = fig.canvas.mpl_connect("draw_event", on_draw)
    try:
        yield
    finally:
        fig.canvas.mpl_disconnect(cid)
    if found:
        _record(fig, found[-1], cost[0], where)


def figure_reports() -> list[dict[str, Any]]:
    """Every figure checked in this process: dicts with ``name`` (the figure
    function), ``params`` (explorer frame settings), ``where`` (``"inline"`` or
    ``"frame"``), ``title``, ``problems`` and ``seconds`` (cost of the check)."""
    return [dict(r) for r in _RECORDS]


def clear_figure_reports() -> None:
    """Forget the figures recorded so far."""
    _RECORDS.clear()


def assert_figures_readable(*, clear: bool = False) -> int:
    """Raise ``AssertionError`` listing every recorded figure with a readability problem.

    Returns the number of figures checked (so that a notebook's check cell shows
    it).  With ``clear=True`` the record is emptied afterwards.
    """
    bad = [r for r in _RECORDS if r["problems"]]
    n = len(_RECORDS)
    if clear:
        clear_figure_reports()
    if bad:
        lines = []
        for r in bad:
            head = r["name"]
            if r["params"]:
                head += "(" + ", ".join(f"{k}={v!r}" for k, v in r["params"].items()) + ")"
            if r["title"]:
                head += f" [{r['title']}]"
            head += f" ({r['where']})"
            lines.append(head + ":\n    " + "\n    ".join(r["problems"]))
        raise AssertionError(f"{len(bad)} of {n} figures are not readable:\n" + "\n".join(lines))
    return n
