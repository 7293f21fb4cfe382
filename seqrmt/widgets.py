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
    book only its default figure is shown (the sliders need a running kernel, e.g.
    on Binder).

This module needs the optional dependencies ``matplotlib`` and ``ipywidgets``
(``pip install seqrmt[plots]``); it is imported explicitly with
``import seqrmt.widgets`` and is not imported by ``import seqrmt``.
"""

from __future__ import annotations

import io
import itertools
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
from ipywidgets.widgets.widget_link import Link
import numpy as np

__all__ = ["explore", "live", "MAX_FRAMES", "EXPLORE_CLASS", "LIVE_CLASS"]

#: Largest number of precomputed frames :func:`explore` accepts.  Each PNG frame
#: adds roughly 20-40 KB (x 1.33 for base64) to the page.
MAX_FRAMES = 64

#: CSS class carried by the top-level box returned by :func:`explore`; the
#: browser test of the built site uses it to find kernel-free explorers.
EXPLORE_CLASS = "seqrmt-explore"

#: CSS class carried by the top-level box returned by :func:`live`.
LIVE_CLASS = "seqrmt-live"


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
            f"grid must be a dict mapping parameter names to sequences of values, "
            f"got {type(grid).__name__}"
        )
    if len(grid) == 0:
        raise ValueError("grid is empty: give at least one parameter, e.g. {'delta': [0.5, 1.0]}")
    if len(grid) > 3:
        raise ValueError(
            f"grid has {len(grid)} parameters ({', '.join(map(str, grid))}); "
            "explore supports at most 3"
        )
    out: dict[str, list[Any]] = {}
    for name, values in grid.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"grid parameter name {name!r} must be a valid Python identifier")
        if isinstance(values, (str, bytes)):
            raise TypeError(f"grid[{name!r}] must be a sequence of values, not a string")
        try:
            values = list(values)
        except TypeError:
            raise TypeError(
                f"grid[{name!r}] must be a sequence of values, got {type(values).__name__}"
            ) from None
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


def _default_indices(
    grid: dict[str, list[Any]], defaults: Mapping[str, Any] | None
) -> dict[str, int]:
    idx = {name: 0 for name in grid}
    if defaults is None:
        return idx
    if not isinstance(defaults, Mapping):
        raise TypeError(f"defaults must be a dict or None, got {type(defaults).__name__}")
    for name, value in defaults.items():
        if name not in grid:
            raise ValueError(
                f"defaults[{name!r}]: {name!r} is not a grid parameter "
                f"(grid parameters: {', '.join(grid)})"
            )
        matches = [i for i, v in enumerate(grid[name]) if _same(v, value)]
        if not matches:
            raise ValueError(
                f"defaults[{name!r}] = {value!r} is not one of the grid values "
                f"{[_format_value(v) for v in grid[name]]}"
            )
        idx[name] = matches[0]
    return idx


def _figure_to_png(fig: Any, dpi: float) -> bytes:
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(
            f"plot(...) must return a matplotlib Figure, got {type(fig).__name__}"
        )
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    finally:
        plt.close(fig)  # no stray inline figure after the cell
    return buf.getvalue()


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
) -> widgets.VBox:
    """Kernel-free explorer: sliders over a grid of precomputed figures.

    ``plot(**params)`` is called once for every point of the Cartesian product of
    the grid values; each returned figure is saved as a PNG frame and closed.  One
    slider per parameter is linked in the browser (:func:`ipywidgets.jslink`) to
    nested :class:`ipywidgets.Stack` containers of :class:`ipywidgets.Image`
    frames: the outer stack is indexed by the first slider, each of its children
    is a stack indexed by the second slider, and so on.  Nothing runs in Python
    when a slider moves, so the explorer works in the static HTML book (no
    kernel, offline) as well as in Jupyter.

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
        Resolution of the PNG frames.
    description : dict of str to str, optional
        Slider label per parameter (e.g. ``{"delta": "δ"}``); defaults to the
        parameter name.
    progress : bool, default True
        Show a progress bar while the frames are rendered (only inside Jupyter;
        it is hidden once done).
    max_frames : int, default :data:`MAX_FRAMES`
        Safety limit on the number of frames (each one is embedded in the page).

    Returns
    -------
    ipywidgets.VBox
        The sliders above the image stack, with the CSS class
        :data:`EXPLORE_CLASS`.  Display it (make it the last expression of a cell).

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
    if description is not None and not isinstance(description, Mapping):
        raise TypeError(f"description must be a dict or None, got {type(description).__name__}")
    labels = dict(description or {})
    unknown = set(labels) - set(values)
    if unknown:
        raise ValueError(
            f"description has keys that are not grid parameters: {sorted(unknown)}"
        )

    names = list(values)
    shape = [len(values[n]) for n in names]
    total = math.prod(shape)

    # 1. Render every frame (row-major: last parameter varies fastest).
    bar = _Progress(total, progress)
    frames: dict[tuple[int, ...], bytes] = {}
    try:
        for k, index in enumerate(itertools.product(*(range(s) for s in shape))):
            params = {n: values[n][i] for n, i in zip(names, index)}
            frames[index] = _figure_to_png(plot(**params), dpi)
            bar.step(k + 1, ", ".join(f"{n}={_format_value(v)}" for n, v in params.items()))
    finally:
        bar.close()

    # 2. Nested stacks: level d is indexed by slider d.
    levels: list[list[widgets.Stack]] = [[] for _ in names]

    def build(prefix: tuple[int, ...]) -> widgets.Widget:
        depth = len(prefix)
        if depth == len(names):
            return widgets.Image(value=frames[prefix], format="png", layout=widgets.Layout(max_width="100%", height="auto"))
        children = [build(prefix + (i,)) for i in range(shape[depth])]
        stack = widgets.Stack(children=children, selected_index=start[names[depth]])
        levels[depth].append(stack)
        return stack

    root = build(())

    # 3. One slider per parameter, linked in the browser to every stack of its level.
    sliders: list[widgets.Widget] = []
    links: list[Link] = []
    for depth, name in enumerate(names):
        texts = [_format_value(v) for v in values[name]]
        if len(set(texts)) < len(texts):  # keep labels distinct (e.g. 0.12341 vs 0.12342)
            texts = [repr(v) for v in values[name]]
        opts = [(t, i) for i, t in enumerate(texts)]
        slider = widgets.SelectionSlider(
            options=opts,
            value=start[name],
            description=labels.get(name, name),
            continuous_update=False,
            readout=True,
            style={"description_width": "initial"},
            layout=widgets.Layout(width="min(100%, 28em)"),
        )
        slider.add_class(f"{EXPLORE_CLASS}-slider")
        for stack in levels[depth]:
            links.append(widgets.jslink((slider, "index"), (stack, "selected_index")))
        sliders.append(slider)

    box = widgets.VBox([widgets.VBox(sliders), root])
    box.add_class(EXPLORE_CLASS)
    # Keep references so the links are not garbage-collected with a live kernel
    # and so tests can inspect the structure.
    box._seqrmt_links = links  # type: ignore[attr-defined]
    box._seqrmt_sliders = sliders  # type: ignore[attr-defined]
    box._seqrmt_stacks = levels  # type: ignore[attr-defined]
    box._seqrmt_grid = values  # type: ignore[attr-defined]
    return box


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
        is_int = kind == "int" or (
            kind is None and all(isinstance(x, numbers.Integral) for x in numbers_)
        )
        cls = widgets.IntSlider if is_int else widgets.FloatSlider
        spec.setdefault("continuous_update", False)
        spec["continuous_update"] = False
        return cls(**common, **spec)
    if isinstance(spec, tuple) and 2 <= len(spec) <= 4 and all(
        isinstance(x, numbers.Real) and not isinstance(x, bool) for x in spec
    ):
        lo, hi = spec[0], spec[1]
        if lo >= hi:
            raise ValueError(f"sliders[{name!r}] = {spec!r}: min must be smaller than max")
        is_int = all(isinstance(x, numbers.Integral) for x in spec)
        step = spec[2] if len(spec) >= 3 else (1 if is_int else (hi - lo) / 100)
        value = spec[3] if len(spec) == 4 else (lo + hi) / 2
        if is_int:
            return widgets.IntSlider(min=lo, max=hi, step=step, value=int(value),
                                     continuous_update=False, **common)
        return widgets.FloatSlider(min=lo, max=hi, step=step, value=value,
                                   continuous_update=False, **common)
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
) -> widgets.VBox:
    """Kernel-backed explorer for simulation-driven figures.

    Builds one control per entry of ``sliders`` (every slider has
    ``continuous_update=False``, so a simulation runs only when the slider is
    released) and redraws ``plot(**params)`` through
    :func:`ipywidgets.interactive_output`.  The default figure is drawn at
    construction, so the saved widget state carries it and the static book shows
    it; moving the sliders needs a live kernel (Jupyter, Binder).

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
        Label per parameter; defaults to the name.
    fixed : dict, optional
        Extra keyword arguments passed unchanged to every ``plot`` call.

    Returns
    -------
    ipywidgets.VBox
        Controls above an ``Output`` holding the figure, with CSS class
        :data:`LIVE_CLASS`.

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
    labels = dict(description or {})
    controls = {name: _make_control(name, spec, labels.get(name, name)) for name, spec in sliders.items()}
    for name, value in (defaults or {}).items():
        if name not in controls:
            raise ValueError(
                f"defaults[{name!r}]: {name!r} is not a slider (sliders: {', '.join(controls)})"
            )
        controls[name].value = value
    extra = dict(fixed or {})
    clash = set(extra) & set(controls)
    if clash:
        raise ValueError(f"fixed and sliders share parameters: {sorted(clash)}")

    def draw(**params: Any) -> None:
        import matplotlib.pyplot as plt
        from IPython.display import display

        fig = plot(**params, **extra)
        try:
            display(fig)
        finally:
            plt.close(fig)

    out = widgets.interactive_output(draw, controls)
    box = widgets.VBox([widgets.VBox(list(controls.values())), out])
    box.add_class(LIVE_CLASS)
    return box
