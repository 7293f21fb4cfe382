"""Structure and argument checks for seqrmt.widgets (fast, no browser, no kernel)."""

from __future__ import annotations

import base64
import math
import re

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import ipywidgets as widgets  # noqa: E402
from ipywidgets.widgets.widget_link import Link  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from seqrmt import widgets as sw  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WEBP_SRC = re.compile(
    r'<img class="seqrmt-frame" src="data:image/webp;base64,([A-Za-z0-9+/=]+)" '
    r'alt="([^"]+)" width="(\d+)" height="(\d+)"'
)


def make_plot(calls: list | None = None):
    def plot(**params):
        if calls is not None:
            calls.append(params)
        fig, ax = plt.subplots(figsize=(2, 1))
        ax.set_title(", ".join(f"{k}={v}" for k, v in sorted(params.items())))
        fig.seqrmt_alt = "Frame " + ", ".join(f"{k} is {v}" for k, v in sorted(params.items()))
        return fig

    return plot


def images(w: widgets.Widget) -> list[widgets.HTML]:
    """The frame widgets (HTML holding one <img class="seqrmt-frame">) under ``w``."""
    if isinstance(w, widgets.HTML) and 'class="seqrmt-frame"' in w.value:
        return [w]
    return [img for c in getattr(w, "children", ()) for img in images(c)]


def frame_parts(w: widgets.HTML) -> tuple[bytes, str, int, int]:
    m = WEBP_SRC.search(w.value)
    assert m, w.value[:200]
    return base64.b64decode(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))


def status_texts(w: widgets.Widget) -> list[str]:
    if isinstance(w, widgets.HTML) and "seqrmt-explore-status-text" in w.value:
        return [w.value]
    return [t for c in getattr(w, "children", ()) for t in status_texts(c)]


def links_of(box) -> list[Link]:
    return box._seqrmt_links


# ----------------------------------------------------------------- explore
def test_explore_two_parameters_structure():
    calls: list = []
    grid = {"delta": [0.5, 1.0, 2.0], "n": [10, 20]}
    box = sw.explore(make_plot(calls), grid, progress=False)
    assert isinstance(box, widgets.VBox)
    assert sw.EXPLORE_CLASS in box._dom_classes
    # one call and one PNG frame per grid point, row-major
    assert len(calls) == 6
    assert calls[0] == {"delta": 0.5, "n": 10} and calls[1] == {"delta": 0.5, "n": 20}
    frames = images(box)
    assert len(frames) == 6
    parts = [frame_parts(f) for f in frames]
    # WebP frames (RIFF....WEBP) with the figure's own alt text, in row-major order
    assert all(data[:4] == b"RIFF" and data[8:12] == b"WEBP" for data, *_ in parts)
    assert [alt for _, alt, _, _ in parts][:2] == ["Frame delta is 0.5, n is 10", "Frame delta is 0.5, n is 20"]
    # CSS size = figure inches x dpi (90), pixels = 2 x CSS size
    from PIL import Image as PILImage
    import io

    data, _, w, h = parts[0]
    assert (w, h) == (180, 90)
    assert PILImage.open(io.BytesIO(data)).size == (2 * w, 2 * h)
    # no stray open figures
    assert plt.get_fignums() == []

    controls, outer, status = box.children
    assert f"{sw.EXPLORE_CLASS}-controls" in controls._dom_classes
    assert sw.STATUS_CLASS in status._dom_classes
    sliders = list(controls.children)
    assert len(sliders) == 2
    # readable accessible names: the book's label for delta, the name otherwise
    assert [s.description for s in sliders] == [sw.PARAMETER_LABELS["delta"], "n"]
    assert f"{sw.EXPLORE_CLASS}-param-delta" in sliders[0]._dom_classes
    assert [len(s.options) for s in sliders] == [3, 2]
    assert all(s.continuous_update is False for s in sliders)
    # nested stacks: outer indexed by the first slider, 3 inner ones by the second
    assert isinstance(outer, widgets.Stack) and len(outer.children) == 3
    assert all(isinstance(c, widgets.Stack) and len(c.children) == 2 for c in outer.children)

    # the status region mirrors the frame stacks: one description per frame, same nesting
    status_outer = status.children[0]
    assert isinstance(status_outer, widgets.Stack) and len(status_outer.children) == 3
    texts = status_texts(status)
    assert len(texts) == 6
    assert "Showing δ = 0.5, n = 20. Frame delta is 0.5, n is 20" in texts[1]

    links = links_of(box)
    assert len(links) == 2 * (1 + 3)
    assert all(isinstance(l, Link) for l in links)
    first = [l for l in links if l.source[0] is sliders[0]]
    second = [l for l in links if l.source[0] is sliders[1]]
    assert {id(l.target[0]) for l in first} == {id(outer), id(status_outer)}
    assert {id(l.target[0]) for l in second} == (
        {id(c) for c in outer.children} | {id(c) for c in status_outer.children}
    )
    assert all(l.source[1] == "index" and l.target[1] == "selected_index" for l in links)


def test_explore_frame_order_matches_indices():
    grid = {"a": [1, 2], "b": ["x", "y", "z"]}
    box = sw.explore(make_plot(), grid, progress=False)
    outer = box.children[1]
    direct = sw.explore(make_plot(), {"a": [2], "b": ["y"]}, progress=False)
    assert frame_parts(outer.children[1].children[1]) == frame_parts(images(direct)[0])


def test_explore_one_parameter_and_defaults():
    box = sw.explore(make_plot(), {"k": [1, 2, 3, 4]}, defaults={"k": 3}, description={"k": "κ"}, progress=False)
    (slider,) = box.children[0].children
    stack = box.children[1]
    assert box.children[2].children[0].selected_index == 2
    assert slider.description == "κ"
    assert slider.index == 2 and stack.selected_index == 2
    assert slider.label == "3"
    assert len(stack.children) == 4 and len(links_of(box)) == 2


def test_explore_three_parameters_links_every_stack():
    box = sw.explore(make_plot(), {"a": [1, 2], "b": [1, 2, 3], "c": [0.1, 0.2]}, progress=False)
    assert len(images(box)) == 12
    # 1 outer + 2 second-level + 6 third-level stacks, for the frames and the status region
    assert len(links_of(box)) == 2 * (1 + 2 + 6)


def test_explore_defaults_tolerate_float_roundoff():
    import numpy as np

    box = sw.explore(make_plot(), {"d": np.linspace(0, 1, 4)}, defaults={"d": 1 / 3}, progress=False)
    assert box.children[0].children[0].index == 1


@pytest.mark.parametrize(
    "value, label", [(0.5, "0.5"), (2, "2"), (1e-5, "1e-05"), (0.123456, "0.1235"), ("softmax", "softmax")]
)
def test_labels_are_readable(value, label):
    assert sw._format_value(value) == label


def test_explore_validation_errors():
    plot = make_plot()
    with pytest.raises(TypeError, match="plot must be callable"):
        sw.explore(42, {"a": [1]})
    with pytest.raises(ValueError, match="grid is empty"):
        sw.explore(plot, {})
    with pytest.raises(TypeError, match="grid must be a dict"):
        sw.explore(plot, [("a", [1])])
    with pytest.raises(ValueError, match=r"grid\['a'\] is empty"):
        sw.explore(plot, {"a": []})
    with pytest.raises(TypeError, match=r"grid\['a'\].*string"):
        sw.explore(plot, {"a": "abc"})
    with pytest.raises(ValueError, match=r"grid\['a'\] contains the value 1 twice"):
        sw.explore(plot, {"a": [1, 1.0]})
    with pytest.raises(ValueError, match="at most 3"):
        sw.explore(plot, {"a": [1], "b": [1], "c": [1], "d": [1]})
    with pytest.raises(ValueError, match=r"65 frames, more than max_frames=64"):
        sw.explore(plot, {"a": list(range(13)), "b": list(range(5))})
    with pytest.raises(ValueError, match=r"defaults\['z'\].*not a grid parameter"):
        sw.explore(plot, {"a": [1, 2]}, defaults={"z": 1})
    with pytest.raises(ValueError, match=r"defaults\['a'\] = 3 is not one of the grid values"):
        sw.explore(plot, {"a": [1, 2]}, defaults={"a": 3})
    with pytest.raises(ValueError, match="description has keys"):
        sw.explore(plot, {"a": [1, 2]}, description={"b": "B"})
    with pytest.raises(ValueError, match="dpi"):
        sw.explore(plot, {"a": [1, 2]}, dpi=0)


def test_explore_rejects_non_figure_and_closes_figures():
    def bad(a):
        plt.figure()
        return "not a figure"

    with pytest.raises(TypeError, match="must return a matplotlib Figure"):
        sw.explore(bad, {"a": [1, 2]}, progress=False)
    plt.close("all")


def test_explore_max_frames_is_adjustable():
    box = sw.explore(make_plot(), {"a": list(range(3))}, max_frames=3, progress=False)
    assert len(images(box)) == 3
    with pytest.raises(ValueError, match="max_frames=2"):
        sw.explore(make_plot(), {"a": list(range(3))}, max_frames=2)


def test_explore_state_is_serialisable():
    """The saved notebook widget state must contain the links and frames."""
    box = sw.explore(make_plot(), {"a": [1, 2], "b": [3, 4]}, progress=False)
    state = widgets.Widget.get_manager_state(drop_defaults=True)["state"]
    names = {s["model_name"] for s in state.values()}
    assert {"LinkModel", "StackModel", "HTMLModel", "SelectionSliderModel"} <= names
    for link in links_of(box):
        assert link.model_id in state


def test_explore_latex_fallback_names_parameters():
    box = sw.explore(
        make_plot(),
        {"beta": [0.5, 1.0], "weights": ["mean", "optimal"]},
        defaults={"weights": "optimal"},
        progress=False,
    )
    bundle = box._repr_mimebundle_()
    # the HTML build keeps the widget view; the PDF build gets the note
    assert "application/vnd.jupyter.widget-view+json" in bundle
    tex = bundle["text/latex"]
    assert r"$\beta" in tex and r"\{0.5, 1\}" in tex and r"\{mean, optimal\}" in tex
    assert "weights (pooling) = optimal" in tex
    assert tex.count("$") % 2 == 0


def test_frames_are_smaller_than_png_at_the_same_resolution():
    import io
    import matplotlib.pyplot as plt
    import numpy as np

    def plot():
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        x = np.linspace(0, 10, 400)
        for k in range(3):
            ax.plot(x, np.sin(x + k), label=f"curve {k}")
        ax.legend()
        ax.set_title("three curves")
        return fig

    fig = plot()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=180, facecolor="white")
    plt.close(fig)
    frame = sw._render_frame(plot(), 90)
    assert frame["mime"] == "image/webp"
    assert len(frame["data"]) < 0.6 * len(buf.getvalue())


# ----------------------------------------------------------------- live
def test_frames_of_a_seqrmt_figure_function_are_read_from_the_disk_cache(monkeypatch, tmp_path):
    """With SEQRMT_CACHE_DIR, a second explorer of the same seqrmt function (or a partial of it) with
    the same values renders nothing and shows the same frames; a lambda, a function of the notebook
    or a value that is not plain is rendered every time."""
    import functools

    monkeypatch.setenv("SEQRMT_CACHE_DIR", str(tmp_path))
    calls: list = []
    plot = make_plot(calls)
    plot.__module__, plot.__qualname__ = "seqrmt.plots.example", "example_figure"
    grid = {"a": [1, 2], "b": [0.5]}
    first = sw.explore(plot, grid, progress=False)
    assert len(calls) == 2
    again = sw.explore(plot, grid, progress=False)
    assert len(calls) == 2, "the frames were rendered again"
    assert [frame_parts(w) for w in images(again)] == [frame_parts(w) for w in images(first)]
    assert status_texts(again) == status_texts(first)
    sw.explore(plot, grid, dpi=60, progress=False)  # another size: new frames
    assert len(calls) == 4
    part = functools.partial(plot, c="x")
    sw.explore(part, grid, progress=False)
    sw.explore(part, grid, progress=False)
    assert len(calls) == 6
    for uncached in (lambda a, b: plot(a=a, b=b), make_plot(calls)):
        before = len(calls)
        sw.explore(uncached, grid, progress=False)
        sw.explore(uncached, grid, progress=False)
        assert len(calls) == before + 4
    assert sw._frame_key(plot, {"a": np.arange(2)}, 90) is None
    assert len(list((tmp_path / "explore_frame").glob("*.pickle"))) == 6


def test_live_builds_controls_without_continuous_update():
    calls: list = []
    box = sw.live(
        make_plot(calls),
        {
            "x": (0.0, 1.0, 0.1, 0.3),
            "n": (1, 9, 2),
            "kind": ["a", "b"],
            "y": {"min": 0, "max": 5, "value": 2},
            "z": widgets.FloatSlider(continuous_update=True),
        },
        defaults={"n": 3},
        fixed={"extra": 1},
    )
    assert sw.LIVE_CLASS in box._dom_classes
    note, controls, frame, status = box.children
    assert isinstance(frame, widgets.HTML) and 'class="seqrmt-frame"' in frame.value
    assert sw.STATUS_CLASS in status._dom_classes
    # a visible note says the controls need a running notebook
    assert f"{sw.LIVE_CLASS}-note" in note._dom_classes
    assert "Needs a running notebook" in note.value
    assert f"{sw.LIVE_CLASS}-controls" in controls._dom_classes
    kinds = [type(c).__name__ for c in controls.children]
    assert kinds == ["FloatSlider", "IntSlider", "Dropdown", "IntSlider", "FloatSlider"]
    sliders = [c for c in controls.children if hasattr(c, "continuous_update")]
    assert all(c.continuous_update is False for c in sliders)
    assert controls.children[0].value == pytest.approx(0.3)
    assert controls.children[1].value == 3
    # the default figure is drawn at construction
    assert calls and calls[0]["extra"] == 1 and calls[0]["n"] == 3
    assert plt.get_fignums() == []
    assert 'alt="Frame ' in frame.value and "n is 3" in frame.value
    # PDF fallback: the default figure as PNG with its alt text, and a note
    bundle, metadata = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)
    assert "n is 3" in metadata["image/png"]["alt"]
    assert "running notebook" in bundle["text/latex"]
    # in a kernel, moving a control redraws the figure and updates note and status
    controls.children[1].value = 5
    assert calls[-1]["n"] == 5 and "n is 5" in frame.value
    assert "Running" in note.value and "n is 5" in status.children[0].value
    assert plt.get_fignums() == []


def test_live_validation_errors():
    with pytest.raises(TypeError, match="plot must be callable"):
        sw.live(None, {"x": (0, 1)})
    with pytest.raises(ValueError, match="sliders is empty"):
        sw.live(make_plot(), {})
    with pytest.raises(TypeError, match=r"sliders\['x'\].*not a slider spec"):
        sw.live(make_plot(), {"x": object()})
    with pytest.raises(ValueError, match=r"sliders\['x'\].*min must be smaller"):
        sw.live(make_plot(), {"x": (1.0, 0.0)})
    with pytest.raises(ValueError, match=r"defaults\['q'\]"):
        sw.live(make_plot(), {"x": (0.0, 1.0)}, defaults={"q": 1})


def test_module_constants():
    assert sw.MAX_FRAMES == 64
    assert math.prod([8, 8]) <= sw.MAX_FRAMES
