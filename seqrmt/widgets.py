"""Interactive figures shared by the chapters of the book.

Two explorers are provided:

:func:`explore`
    A **kernel-free** explorer.  Every point of a small parameter grid is rendered
    once, when the notebook runs, to a PNG frame.  Sliders are joined to nested
    :class:`ipywidgets.Stack` containers of :class:`ipywidgets.Image` frames with
    :func:`ipywidgets.jslink`, a link that lives in the browser.  Moving a slider
    therefore changes the figure in the built (static, offline) book as well as in
    Jupyter.  Use it for every figure a reader should be able to explore on the web.

:func:`live`
    A kernel-backed explorer built on :func:`ipywidgets.interactive_output`, for
    figures driven by simulations whose parameters are continuous.  In the static
    book only its default figure is shown, under a visible note saying that the
    controls need a running notebook (Jupyter, Binder).

Accessibility: every frame is an ``<img>`` with an ``alt`` text written by the
figure's code (:func:`seqrmt.plots.alt_text`); a status region (CSS class
:data:`STATUS_CLASS`) holds a text description of the shown frame, switched by
the same sliders, for the page to announce politely; sliders carry readable names
(:data:`PARAMETER_LABELS`).  Frames are WebP images rendered at twice their CSS
size (sharp on 2x screens).  For the PDF edition the display bundle also carries
``text/latex`` (explorers: a note naming the parameters) or ``image/png`` (live
figures: the default figure).

This module needs the optional dependencies ``matplotlib`` and ``ipywidgets``
(``pip install seqrmt[plots]``); it is imported explicitly with
``import seqrmt.widgets`` and is not imported by ``import seqrmt``.
"""

from __future__ import annotations

import functools
import html
import io
import itertools
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
from ipywidgets.widgets.widget_link import Link
import numpy as np

from . import _cache

__all__ = [
    "explore",
    "live",
    "MAX_FRAMES",
    "EXPLORE_CLASS",
    "LIVE_CLASS",
    "STATUS_CLASS",
    "FRAME_CLASS",
    "PARAMETER_LABELS",
]

#: Largest number of precomputed frames :func:`explore` accepts.  Each WebP frame
#: adds roughly 20-40 KB (x 1.33 for base64) to the page.
MAX_FRAMES = 64

#: CSS class carried by the top-level box returned by :func:`explore`; the
#: browser test of the built site uses it to find kernel-free explorers.
EXPLORE_CLASS = "seqrmt-explore"

#: CSS class carried by the top-level box returned by :func:`live`.
LIVE_CLASS = "seqrmt-live"

#: CSS class of the box holding the text description of the frame on show (a
#: stack switched by the sliders); the page marks it ``aria-live="polite"``.
STATUS_CLASS = "seqrmt-explore-status"

#: CSS class of every frame ``<img>`` (explorer frames and the live figure).
FRAME_CLASS = "seqrmt-frame"

#: Readable slider names of the book's parameters (used when ``description`` does
#: not name a parameter); they are the sliders' accessible names.
PARAMETER_LABELS = {
    "delta": "δ = d/V",
    "gamma": "γ = d/N",
    "beta": "β = ‖μ‖² (signal strength)",
    "kappa": "κ = ‖w‖²",
    "alpha": "α = wᵀRw",
    "T": "T (sequence length)",
    "L": "L (prefix length)",
    "rho": "ρ (sign correlation)",
    "tau": "τ (attention scale)",
    "weights": "weights (pooling)",
    "d": "d (dimension)",
    "N": "N (sequences)",
    "V": "V (vocabulary size)",
    "seeds": "seeds (repetitions)",
    "centered": "centered",
    "theory": "theory curves",
    "family": "correlation family",
}

_SR_ONLY = (
    "position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:nowrap;border:0"
)

#: Device pixels per CSS pixel of the frames (2: sharp on phones and HiDPI screens).
FRAME_DENSITY = 2


# --------------------------------------------------------------------------- helpers
def _format_value(value: Any) -> str:
    """Short, readable text for a grid value (``0.5``, ``1e-03``, ``'softmax'``)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if x != 0 and (abs(x) >= 1e4 or abs(x) < 1e-3):
            return f"{x:.3g}"
        return f"{x:.4g}"
    return str(value)


def _same(a: Any, b: Any) -> bool:
    """Equality that tolerates float round-off between numbers."""
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        if isinstance(a, bool) or isinstance(b, bool):
            return a is b
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - exotic objects
        return a is b


def _check_grid(grid: Any, max_frames: int) -> dict[str, list[Any]]:
    if not isinstance(grid, Mapping):
        raise TypeError(
            f"grid must be a dict mapping parameter names to sequences of values, got {type(grid).__name__}"
        )
    if len(grid) == 0:
        raise ValueError("grid is empty: give at least one parameter, e.g. {'delta': [0.5, 1.0]}")
    if len(grid) > 3:
        raise ValueError(f"grid has {len(grid)} parameters ({', '.join(map(str, grid))}); explore supports at most 3")
    out: dict[str, list[Any]] = {}
    for name, values in grid.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"grid parameter name {name!r} must be a valid Python identifier")
        if isinstance(values, (str, bytes)):
            raise TypeError(f"grid[{name!r}] must be a sequence of values, not a string")
        try:
            values = list(values)
        except TypeError:
            raise TypeError(f"grid[{name!r}] must be a sequence of values, got {type(values).__name__}") from None
        values = [v.item() if isinstance(v, np.generic) else v for v in values]
        if len(values) == 0:
            raise ValueError(f"grid[{name!r}] is empty: give at least one value")
        for i, a in enumerate(values):
            for b in values[i + 1 :]:
                if _same(a, b):
                    raise ValueError(f"grid[{name!r}] contains the value {a!r} twice")
        out[name] = values
    n_frames = math.prod(len(v) for v in out.values())
    if n_frames > max_frames:
        sizes = " x ".join(f"{len(v)} ({k})" for k, v in out.items())
        raise ValueError(
            f"grid has {sizes} = {n_frames} frames, more than max_frames={max_frames}; "
            "use fewer grid values (each frame is embedded in the page)"
        )
    return out


def _default_indices(grid: dict[str, list[Any]], defaults: Mapping[str, Any] | None) -> dict[str, int]:
    idx = {name: 0 for name in grid}
    if defaults is None:
        return idx
    if not isinstance(defaults, Mapping):
        raise TypeError(f"defaults must be a dict or None, got {type(defaults).__name__}")
    for name, value in defaults.items():
        if name not in grid:
            raise ValueError(
                f"defaults[{name!r}]: {name!r} is not a grid parameter (grid parameters: {', '.join(grid)})"
            )
        matches = [i for i, v in enumerate(grid[name]) if _same(v, value)]
        if not matches:
            raise ValueError(
                f"defaults[{name!r}] = {value!r} is not one of the grid values {[_format_value(v) for v in grid[name]]}"
            )
        idx[name] = matches[0]
    return idx


def _check_figure(fig: Any) -> None:
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"plot(...) must return a matplotlib Figure, got {type(fig).__name__}")


def _render_frame(fig: Any, dpi: float, *, png: bool = False) -> dict[str, Any]:
    """Render ``fig`` (then close it) to a WebP frame at ``FRAME_DENSITY`` x ``dpi``.

    Returns ``{"data": bytes, "mime": "image/webp", "width": css px, "height": css px,
    "alt": str, "text_px": the smallest text in CSS px at that size}`` and, with ``png=True``, ``"png"``: a PNG of the same figure (for
    the PDF edition).  The figure's text is first raised to the phone-readable size
    (:func:`seqrmt.plots.readable_fonts`).
    """
    import matplotlib.pyplot as plt
    from PIL import Image as PILImage

    from .plots._style import alt_text, readable_fonts, render_image, render_png, smallest_text_px

    _check_figure(fig)
    raw = None
    try:
        readable_fonts(fig)
        alt = alt_text(fig)
        # not cropped: every frame keeps the figure's size, so the page does not jump
        if png:
            raw, css_w, css_h = render_png(fig, css_dpi=dpi, density=FRAME_DENSITY, tight=False, palette=False)
            img = PILImage.open(io.BytesIO(raw)).convert("RGB")
        else:
            img, css_w, css_h = render_image(fig, css_dpi=dpi, density=FRAME_DENSITY)
        text_px = smallest_text_px(fig, css_dpi=dpi)
    finally:
        plt.close(fig)  # no stray inline figure after the cell
    # The book's plots are flat colours plus antialiasing: a 128-colour palette is
    # visually lossless and makes the lossless WebP about 25 % smaller.
    img = img.quantize(colors=128, method=PILImage.Quantize.FASTOCTREE, dither=PILImage.Dither.NONE).convert("RGB")
    out = io.BytesIO()
    img.save(out, format="WEBP", lossless=True, quality=50, method=2)
    frame = {"data": out.getvalue(), "mime": "image/webp", "alt": alt, "width": css_w, "height": css_h}
    if text_px is not None:
        frame["text_px"] = text_px
    if raw is not None:
        frame["png"] = raw
    return frame


def _plain(value: Any) -> bool:
    """Whether ``repr(value)`` determines ``value`` (numbers, strings, ``None``, tuples and lists of them)."""
    if value is None or isinstance(value, (bool, numbers.Number, str)):
        return True
    return isinstance(value, (tuple, list)) and all(_plain(v) for v in value)


def _frame_key(plot: Callable[..., Any], params: Mapping[str, Any], dpi: float) -> tuple | None:
    """The disk-cache key of one frame (``seqrmt/_cache.py``), or ``None`` when it cannot be cached.

    Only a figure function of ``seqrmt`` itself (or a ``functools.partial`` of one with keyword
    arguments), called with plain values, has a key: the package's source hash in the cache key then
    stands for the function's code.  A lambda or a function of the notebook is rendered every time."""
    func, kwargs = plot, {}
    if isinstance(plot, functools.partial):
        if plot.args:
            return None
        func, kwargs = plot.func, dict(plot.keywords)
    module = getattr(func, "__module__", None) or ""
    qualname = getattr(func, "__qualname__", "") or ""
    if not (module == "seqrmt" or module.startswith("seqrmt.")) or "<" in qualname or not qualname:
        return None
    arguments = {**kwargs, **params}
    if not all(_plain(v) for v in arguments.values()):
        return None
    import matplotlib
    import PIL

    return (
        module,
        qualname,
        tuple(sorted((k, repr(v)) for k, v in arguments.items())),
        repr(float(dpi)),
        FRAME_DENSITY,
        matplotlib.__version__,
        PIL.__version__,
    )


def _img_html(frame: Mapping[str, Any]) -> str:
    """``<img>`` element of a frame, with its alt text and CSS size."""
    import base64

    src = f"data:{frame['mime']};base64,{base64.b64encode(frame['data']).decode('ascii')}"
    # the smallest text at the frame's CSS size (seqrmt.plots.smallest_text_px), read by the phone check
    text = f' data-seqrmt-text-px="{frame["text_px"]}"' if frame.get("text_px") else ""
    return (
        f'<img class="{FRAME_CLASS}" src="{src}" alt="{html.escape(frame["alt"], quote=True)}" '
        f'width="{frame["width"]}" height="{frame["height"]}"{text} '
        f'style="max-width:100%;height:auto;display:block">'
    )


def _frame_widget(frame: Mapping[str, Any]) -> widgets.HTML:
    w = widgets.HTML(value=_img_html(frame), layout=widgets.Layout(width="auto", max_width="100%"))
    w.add_class(f"{FRAME_CLASS}-box")
    return w


def _status_widget(text: str) -> widgets.HTML:

    # Visually hidden (the image shows the same), still read by screen readers.
    return widgets.HTML(
        value=f'<p class="{STATUS_CLASS}-text" style="{_SR_ONLY}">{html.escape(text)}</p>',
        layout=widgets.Layout(width="auto"),
    )


def _settings_text(params: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    from .plots._style import plain_text

    return ", ".join(
        f"{plain_text(labels.get(n, n)).split(' (')[0].split(' = ')[0]} = {_format_value(v)}" for n, v in params.items()
    )


class _Explorer(widgets.VBox):
    """The box returned by :func:`explore`: a ``VBox`` whose display bundle also
    carries a ``text/latex`` note for the PDF edition."""

    _seqrmt_latex: str = ""

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict) and self._seqrmt_latex:
            bundle = dict(bundle)
            bundle["text/latex"] = self._seqrmt_latex
        return bundle


class _Live(widgets.VBox):
    """The box returned by :func:`live`: a ``VBox`` whose display bundle also
    carries the default figure as ``image/png`` (and a ``text/latex`` note) for the
    PDF edition."""

    _seqrmt_png: bytes = b""
    _seqrmt_png_alt: str = ""
    _seqrmt_latex: str = ""

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        import base64

        bundle = super()._repr_mimebundle_(**kwargs)
        if not isinstance(bundle, dict):
            return bundle
        bundle = dict(bundle)
        metadata: dict[str, Any] = {}
        if self._seqrmt_png:
            bundle["image/png"] = base64.b64encode(self._seqrmt_png).decode("ascii")
            metadata["image/png"] = {"alt": self._seqrmt_png_alt}
        if self._seqrmt_latex:
            bundle["text/latex"] = self._seqrmt_latex
        return (bundle, metadata) if metadata else bundle


def _latex_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append("\\textasciitilde{}")
        elif ch == "^":
            out.append("\\textasciicircum{}")
        elif ch == "\\":
            out.append("\\textbackslash{}")
        else:
            out.append(ch)
    return "".join(out)


def _latex_parameter(label: str) -> str:
    """A slider label for LaTeX: Greek letters and norms as math, the rest escaped."""
    from .plots._style import _TEX

    names = (
        "alpha",
        "beta",
        "gamma",
        "delta",
        "Delta",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "rho",
        "tau",
        "theta",
        "zeta",
        "xi",
        "Sigma",
        "sigma",
        "varphi",
        "psi",
        "pi",
        "eta",
    )
    math_of = {_TEX[k]: f"\\{k} " for k in names}
    math_of.update({"‖": "\\|", "²": "^2", "ᵀ": "^\\top "})
    parts: list[tuple[bool, str]] = []
    for ch in label:
        is_math = ch in math_of
        text = math_of[ch] if is_math else _latex_escape(ch)
        if parts and parts[-1][0] == is_math:
            parts[-1] = (is_math, parts[-1][1] + text)
        else:
            parts.append((is_math, text))
    return "".join(f"${t.strip()}$" if m else t for m, t in parts)


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    ip = get_ipython()
    return ip is not None and getattr(ip, "kernel", None) is not None


class _Progress:
    """A small progress bar shown while frames are computed, hidden afterwards.

    Only shown inside a Jupyter kernel.  At the end the bar is hidden (so the saved
    widget state, which keeps every model ever created, renders nothing in the
    static book) and then closed (so it disappears in Jupyter).
    """

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar: widgets.IntProgress | None = None
        if enabled and _in_kernel() and total > 1:
            from IPython.display import display

            self.bar = widgets.IntProgress(
                value=0,
                min=0,
                max=total,
                description="Rendering",
                style={"description_width": "initial"},
            )
            display(self.bar)

    def step(self, done: int, label: str) -> None:
        if self.bar is not None:
            self.bar.value = done
            self.bar.description = f"Rendering {done}/{self.bar.max}"

    def close(self) -> None:
        if self.bar is not None:
            self.bar.layout.display = "none"
            self.bar.close()
            self.bar = None


# --------------------------------------------------------------------------- explore
def explore(
    plot: Callable[..., Any],
    grid: Mapping[str, Sequence[Any]],
    *,
    defaults: Mapping[str, Any] | None = None,
    dpi: float = 90,
    description: Mapping[str, str] | None = None,
    progress: bool = True,
    max_frames: int = MAX_FRAMES,
    name: str | None = None,
) -> widgets.VBox:
    """Kernel-free explorer: sliders over a grid of precomputed figures.

    ``plot(**params)`` is called once for every point of the Cartesian product of
    the grid values; each returned figure is saved as a WebP frame (an ``<img>``
    in an :class:`ipywidgets.HTML`, with the figure's alt text,
    :func:`seqrmt.plots.alt_text`) and closed.  One slider per parameter is linked
    in the browser (:func:`ipywidgets.jslink`) to nested
    :class:`ipywidgets.Stack` containers of frames: the outer stack is indexed by
    the first slider, each of its children is a stack indexed by the second
    slider, and so on.  A second, identical tree of stacks holds a text
    description of every frame (the status region, CSS class
    :data:`STATUS_CLASS`), so that the page can announce the new figure when a
    slider moves.  Nothing runs in Python when a slider moves, so the explorer
    works in the static HTML book (no kernel, offline) as well as in Jupyter.

    With ``SEQRMT_CACHE_DIR`` set (the book's build and tests), the frames of a figure function
    of ``seqrmt`` called with plain values are stored there and read back by later runs
    (``seqrmt/_cache.py``, keyed by the package's source); a lambda is rendered every time.

    Parameters
    ----------
    plot : callable
        ``plot(**params) -> matplotlib.figure.Figure``.  Called with one keyword
        argument per grid parameter.  Give every frame the same figure size so the
        page does not jump while sliding.
    grid : dict of str to sequence
        Parameter name -> the values it takes, in slider order (1 to 3
        parameters).  The product of the lengths must not exceed ``max_frames``.
    defaults : dict, optional
        Initial value of some parameters; each must be one of its grid values.
        Parameters not given start at their first grid value.
    dpi : float, default 90
        CSS pixels per inch of figure: a frame is shown ``width * dpi`` CSS pixels
        wide (at most the column width) and rendered at twice that resolution.
    description : dict of str to str, optional
        Slider label per parameter (e.g. ``{"delta": "δ = d/V"}``), its accessible
        name; defaults to :data:`PARAMETER_LABELS` or else the parameter name.
    progress : bool, default True
        Show a progress bar while the frames are rendered (only inside Jupyter;
        it is hidden once done).
    max_frames : int, default :data:`MAX_FRAMES`
        Safety limit on the number of frames (each one is embedded in the page).
    name : str, optional
        What the figure shows, for the PDF note (e.g. ``"the spectrum"``).

    Returns
    -------
    ipywidgets.VBox
        The sliders above the frame stack and the status region, with the CSS
        class :data:`EXPLORE_CLASS`.  Display it (make it the last expression of a
        cell); its display bundle also has a ``text/latex`` note for the PDF.

    Raises
    ------
    TypeError
        If ``plot`` is not callable, ``grid``/``defaults`` are not dicts, or
        ``plot`` does not return a matplotlib Figure.
    ValueError
        If the grid is empty, has more than 3 parameters, an empty or duplicated
        value list, more than ``max_frames`` frames, or a default that is not a
        grid value.

    Examples
    --------
    >>> def plot(delta, n):                                      # doctest: +SKIP
    ...     fig, ax = plt.subplots(figsize=(6, 3))
    ...     ...
    ...     return fig
    >>> explore(plot, {"delta": [0.5, 1, 2], "n": [100, 400]})  # doctest: +SKIP
    """
    if not callable(plot):
        raise TypeError(f"plot must be callable (plot(**params) -> Figure), got {type(plot).__name__}")
    if not isinstance(max_frames, int) or max_frames < 1:
        raise ValueError(f"max_frames must be a positive integer, got {max_frames!r}")
    if not (isinstance(dpi, numbers.Real) and dpi > 0):
        raise ValueError(f"dpi must be a positive number, got {dpi!r}")
    values = _check_grid(grid, max_frames)
    start = _default_indices(values, defaults)
    labels = _explore_labels(values, description, name)
    frames = _render_frames(plot, values, labels, dpi, progress)
    # nested stacks (level d is indexed by slider d), for the frames and for their text descriptions
    levels: list[list[widgets.Stack]] = [[] for _ in values]
    root = _stacks(values, start, frames, _frame_widget, levels)
    status = widgets.Box(
        [_stacks(values, start, frames, lambda f: _status_widget(f["status"]), levels)],
        layout=widgets.Layout(width="auto"),
    )
    status.add_class(STATUS_CLASS)
    sliders, links = _linked_sliders(values, labels, start, levels)
    controls = widgets.VBox(sliders)
    controls.add_class(f"{EXPLORE_CLASS}-controls")
    box = _Explorer([controls, root, status])
    box.add_class(EXPLORE_CLASS)
    box._seqrmt_latex = _explorer_note(name or "this figure", values, labels, start)
    # Keep references so the links are not garbage-collected with a live kernel
    # and so tests can inspect the structure.
    box._seqrmt_links = links  # type: ignore[attr-defined]
    box._seqrmt_sliders = sliders  # type: ignore[attr-defined]
    box._seqrmt_stacks = levels  # type: ignore[attr-defined]
    box._seqrmt_grid = values  # type: ignore[attr-defined]
    box._seqrmt_frames = frames  # type: ignore[attr-defined]
    return box


def _explore_labels(
    values: dict[str, list[Any]], description: Mapping[str, str] | None, name: str | None
) -> dict[str, str]:
    """The slider label of every grid parameter: ``description``'s, else :data:`PARAMETER_LABELS`'s,
    else its name (``description`` and ``name`` of :func:`explore` checked)."""
    if description is not None and not isinstance(description, Mapping):
        raise TypeError(f"description must be a dict or None, got {type(description).__name__}")
    labels = dict(description or {})
    unknown = set(labels) - set(values)
    if unknown:
        raise ValueError(f"description has keys that are not grid parameters: {sorted(unknown)}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string or None, got {type(name).__name__}")
    for key in values:
        labels.setdefault(key, PARAMETER_LABELS.get(key, key))
    return labels


def _render_frames(
    plot: Callable[..., Any], values: dict[str, list[Any]], labels: dict[str, str], dpi: float, progress: bool
) -> dict[tuple[int, ...], dict[str, Any]]:
    """Every frame of :func:`explore`, by its grid index (row-major: the last parameter varies fastest),
    with its status text; read from the disk cache when there (:func:`_frame_key`)."""
    names = list(values)
    shape = [len(values[n]) for n in names]
    bar = _Progress(math.prod(shape), progress)
    frames: dict[tuple[int, ...], dict[str, Any]] = {}
    try:
        for k, index in enumerate(itertools.product(*(range(s) for s in shape))):
            params = {n: values[n][i] for n, i in zip(names, index)}

            def render(params=params):
                fig = plot(**params)
                try:  # named by the readability check (seqrmt.plots.assert_figures_readable)
                    fig.seqrmt_params = params
                except AttributeError:  # pragma: no cover - not a Figure; _render_frame says so
                    pass
                return _render_frame(fig, dpi)

            key = _frame_key(plot, params, dpi)
            frame = dict(render() if key is None else _cache.cached("explore_frame", key, render))
            frame["status"] = f"Showing {_settings_text(params, labels)}. {frame['alt']}"
            frames[index] = frame
            bar.step(k + 1, ", ".join(f"{n}={_format_value(v)}" for n, v in params.items()))
    finally:
        bar.close()
    return frames


def _stacks(
    values: dict[str, list[Any]],
    start: dict[str, int],
    frames: dict[tuple[int, ...], dict[str, Any]],
    leaf: Callable[[dict[str, Any]], widgets.Widget],
    levels: list[list[widgets.Stack]],
    prefix: tuple[int, ...] = (),
) -> widgets.Widget:
    """The tree of stacks below ``prefix`` whose leaves are ``leaf(frame)``; the stack of each depth is
    added to ``levels[depth]`` (the stacks its slider selects in)."""
    names = list(values)
    depth = len(prefix)
    if depth == len(names):
        return leaf(frames[prefix])
    children = [_stacks(values, start, frames, leaf, levels, prefix + (i,)) for i in range(len(values[names[depth]]))]
    stack = widgets.Stack(children=children, selected_index=start[names[depth]])
    levels[depth].append(stack)
    return stack


def _linked_sliders(
    values: dict[str, list[Any]], labels: dict[str, str], start: dict[str, int], levels: list[list[widgets.Stack]]
) -> tuple[list[widgets.Widget], list[Link]]:
    """One slider per parameter, linked in the browser to every stack of its level."""
    sliders: list[widgets.Widget] = []
    links: list[Link] = []
    for depth, pname in enumerate(values):
        texts = [_format_value(v) for v in values[pname]]
        if len(set(texts)) < len(texts):  # keep labels distinct (e.g. 0.12341 vs 0.12342)
            texts = [repr(v) for v in values[pname]]
        opts = [(t, i) for i, t in enumerate(texts)]
        slider = widgets.SelectionSlider(
            options=opts,
            value=start[pname],
            description=labels[pname],
            continuous_update=False,
            readout=True,
            style={"description_width": "initial"},
            layout=widgets.Layout(width="min(100%, 32em)"),
        )
        slider.add_class(f"{EXPLORE_CLASS}-slider")
        slider.add_class(f"{EXPLORE_CLASS}-param-{pname}")
        for stack in levels[depth]:
            links.append(widgets.jslink((slider, "index"), (stack, "selected_index")))
        sliders.append(slider)
    return sliders, links


def _explorer_note(what: str, values: dict[str, list[Any]], labels: dict[str, str], start: dict[str, int]) -> str:
    """The PDF's note in place of an explorer of ``what``: its sliders and their defaults (LaTeX)."""
    names = list(values)
    params_tex = "; ".join(
        f"{_latex_parameter(labels[n])} in \\{{{', '.join(_latex_escape(t) for t in map(_format_value, values[n]))}\\}}"
        for n in names
    )
    return (
        "\\begin{center}\\small\\itshape "
        f"The online edition has an interactive version of {_latex_escape(what)}: "
        f"sliders over {params_tex} (default: "
        + ", ".join(
            f"{_latex_parameter(labels[n])} = {_latex_escape(_format_value(values[n][start[n]]))}" for n in names
        )
        + ").\\end{center}"
    )


# --------------------------------------------------------------------------- live
def _make_control(name: str, spec: Any, label: str) -> widgets.ValueWidget:
    common = dict(description=label, style={"description_width": "initial"})
    if isinstance(spec, widgets.ValueWidget):
        if hasattr(spec, "continuous_update"):
            spec.continuous_update = False
        return spec
    if isinstance(spec, Mapping):
        spec = dict(spec)
        kind = spec.pop("kind", None)
        if "options" in spec or kind == "dropdown":
            return widgets.Dropdown(**common, **spec)
        numbers_ = [spec.get(k) for k in ("min", "max", "step", "value") if spec.get(k) is not None]
        is_int = kind == "int" or (kind is None and all(isinstance(x, numbers.Integral) for x in numbers_))
        cls = widgets.IntSlider if is_int else widgets.FloatSlider
        spec.setdefault("continuous_update", False)
        spec["continuous_update"] = False
        return cls(**common, **spec)
    if (
        isinstance(spec, tuple)
        and 2 <= len(spec) <= 4
        and all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in spec)
    ):
        lo, hi = spec[0], spec[1]
        if lo >= hi:
            raise ValueError(f"sliders[{name!r}] = {spec!r}: min must be smaller than max")
        is_int = all(isinstance(x, numbers.Integral) for x in spec)
        step = spec[2] if len(spec) >= 3 else (1 if is_int else (hi - lo) / 100)
        value = spec[3] if len(spec) == 4 else (lo + hi) / 2
        if is_int:
            return widgets.IntSlider(min=lo, max=hi, step=step, value=int(value), continuous_update=False, **common)
        return widgets.FloatSlider(min=lo, max=hi, step=step, value=value, continuous_update=False, **common)
    if isinstance(spec, (list, tuple)) and len(spec) > 0:
        return widgets.Dropdown(options=list(spec), **common)
    raise TypeError(
        f"sliders[{name!r}] = {spec!r} is not a slider spec: use (min, max[, step[, value]]), "
        "a list of options, a dict of slider keywords, or an ipywidgets control"
    )


def live(
    plot: Callable[..., Any],
    sliders: Mapping[str, Any],
    *,
    defaults: Mapping[str, Any] | None = None,
    description: Mapping[str, str] | None = None,
    fixed: Mapping[str, Any] | None = None,
    dpi: float = 90,
) -> widgets.VBox:
    """Kernel-backed explorer for simulation-driven figures.

    Builds one control per entry of ``sliders`` (every slider has
    ``continuous_update=False``, so a simulation runs only when the slider is
    released) and redraws ``plot(**params)`` when a control changes.  The default
    figure is drawn at construction, so the saved widget state carries it and the
    static book shows it, with its alt text, under a visible note (CSS class
    ``seqrmt-live-note``) saying that the controls need a running notebook
    (Jupyter, Binder); the page greys out the controls of a ``seqrmt-live`` box
    when no kernel is attached.  Once a control is moved in a running kernel the
    note says that the figure follows the controls.

    Parameters
    ----------
    plot : callable
        ``plot(**params) -> matplotlib.figure.Figure``.
    sliders : dict
        Parameter name -> control spec, one of

        * ``(min, max)``, ``(min, max, step)`` or ``(min, max, step, value)``:
          an ``IntSlider`` if all are ints, else a ``FloatSlider``;
        * a list of options: a ``Dropdown``;
        * a dict of keyword arguments for ``FloatSlider``/``IntSlider`` (or for
          ``Dropdown`` if it has ``options``); ``kind`` may be ``"int"``,
          ``"float"`` or ``"dropdown"``;
        * an ipywidgets control (its ``continuous_update`` is set to False).
    defaults : dict, optional
        Initial values overriding those of the specs.
    description : dict of str to str, optional
        Label per parameter (its accessible name); defaults to
        :data:`PARAMETER_LABELS` or else the name.
    fixed : dict, optional
        Extra keyword arguments passed unchanged to every ``plot`` call.
    dpi : float, default 90
        CSS pixels per inch of figure (rendered at twice that resolution).

    Returns
    -------
    ipywidgets.VBox
        Note, controls, figure and status region, with CSS class
        :data:`LIVE_CLASS`.  Its display bundle also carries the default figure as
        ``image/png`` (with alt text) and a ``text/latex`` note, for the PDF.

    Raises
    ------
    TypeError
        If ``plot`` is not callable or a spec is not understood.
    ValueError
        If ``sliders`` is empty or a default names an unknown parameter.
    """
    if not callable(plot):
        raise TypeError(f"plot must be callable (plot(**params) -> Figure), got {type(plot).__name__}")
    if not isinstance(sliders, Mapping):
        raise TypeError(f"sliders must be a dict of control specs, got {type(sliders).__name__}")
    if len(sliders) == 0:
        raise ValueError("sliders is empty: give at least one parameter")
    if not (isinstance(dpi, numbers.Real) and dpi > 0):
        raise ValueError(f"dpi must be a positive number, got {dpi!r}")
    labels = dict(description or {})
    for key in sliders:
        labels.setdefault(key, PARAMETER_LABELS.get(key, key))
    controls = {name: _make_control(name, spec, labels[name]) for name, spec in sliders.items()}
    for name, value in (defaults or {}).items():
        if name not in controls:
            raise ValueError(f"defaults[{name!r}]: {name!r} is not a slider (sliders: {', '.join(controls)})")
        controls[name].value = value
    extra = dict(fixed or {})
    clash = set(extra) & set(controls)
    if clash:
        raise ValueError(f"fixed and sliders share parameters: {sorted(clash)}")

    def current() -> dict[str, Any]:
        return {name: c.value for name, c in controls.items()}

    first = _render_frame(plot(**current(), **extra), dpi, png=True)
    shown = _settings_text(current(), labels)
    frame = _frame_widget(first)
    status_text = _status_widget(f"Showing {shown}. {first['alt']}")
    status = widgets.Box([status_text], layout=widgets.Layout(width="auto"))
    status.add_class(STATUS_CLASS)
    note = widgets.HTML(
        value=(
            f'<p class="{LIVE_CLASS}-note-text"><strong>Needs a running notebook.</strong> '
            "These controls redraw the figure only when this page runs as a notebook "
            "(Jupyter, or Binder from the launch button at the top of the page). "
            f"The figure shows the default setting: {html.escape(shown)}.</p>"
        ),
        layout=widgets.Layout(width="auto"),
    )
    note.add_class(f"{LIVE_CLASS}-note")

    def redraw(change: Any = None) -> None:
        params = current()
        new = _render_frame(plot(**params, **extra), dpi)
        frame.value = _img_html(new)
        text = _settings_text(params, labels)
        status_text.value = _status_widget(f"Showing {text}. {new['alt']}").value
        note.value = (
            f'<p class="{LIVE_CLASS}-note-text"><strong>Running.</strong> '
            f"The figure follows the controls (now {html.escape(text)}).</p>"
        )

    for c in controls.values():
        c.observe(redraw, names="value")
        c.add_class(f"{LIVE_CLASS}-control")
    box_controls = widgets.VBox(list(controls.values()))
    box_controls.add_class(f"{LIVE_CLASS}-controls")
    box = _Live([note, box_controls, frame, status])
    box.add_class(LIVE_CLASS)
    box._seqrmt_png = first["png"]
    box._seqrmt_png_alt = first["alt"]
    box._seqrmt_latex = (
        "\\begin{center}\\small\\itshape "
        "In a running notebook this figure has controls for "
        + ", ".join(_latex_parameter(labels[n]) for n in controls)
        + "; shown here at its default setting.\\end{center}"
    )
    box._seqrmt_controls = controls  # type: ignore[attr-defined]
    box._seqrmt_redraw = redraw  # type: ignore[attr-defined]
    return box
