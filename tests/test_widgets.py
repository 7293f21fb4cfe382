"""Structure and argument checks for seqrmt.widgets (fast, no browser, no kernel)."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import ipywidgets as widgets  # noqa: E402
from ipywidgets.widgets.widget_link import Link  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from seqrmt import widgets as sw  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def make_plot(calls: list | None = None):
    def plot(**params):
        if calls is not None:
            calls.append(params)
        fig, ax = plt.subplots(figsize=(2, 1))
        ax.set_title(", ".join(f"{k}={v}" for k, v in sorted(params.items())))
        return fig

    return plot


def images(w: widgets.Widget) -> list[widgets.Image]:
    if isinstance(w, widgets.Image):
        return [w]
    return [img for c in getattr(w, "children", ()) for img in images(c)]


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
    assert all(bytes(img.value).startswith(PNG_MAGIC) and img.format == "png" for img in frames)
    # no stray open figures
    assert plt.get_fignums() == []

    controls, outer = box.children
    sliders = list(controls.children)
    assert len(sliders) == 2
    assert [s.description for s in sliders] == ["delta", "n"]
    assert [len(s.options) for s in sliders] == [3, 2]
    assert all(s.continuous_update is False for s in sliders)
    # nested stacks: outer indexed by the first slider, 3 inner ones by the second
    assert isinstance(outer, widgets.Stack) and len(outer.children) == 3
    assert all(isinstance(c, widgets.Stack) and len(c.children) == 2 for c in outer.children)

    links = links_of(box)
    assert len(links) == 1 + 3
    assert all(isinstance(l, Link) for l in links)
    first = [l for l in links if l.source[0] is sliders[0]]
    second = [l for l in links if l.source[0] is sliders[1]]
    assert [l.target[0] for l in first] == [outer]
    assert {id(l.target[0]) for l in second} == {id(c) for c in outer.children}
    assert all(l.source[1] == "index" and l.target[1] == "selected_index" for l in links)


def test_explore_frame_order_matches_indices():
    grid = {"a": [1, 2], "b": ["x", "y", "z"]}
    box = sw.explore(make_plot(), grid, progress=False)
    outer = box.children[1]
    direct = sw.explore(make_plot(), {"a": [2], "b": ["y"]}, progress=False)
    assert bytes(outer.children[1].children[1].value) == bytes(images(direct)[0].value)


def test_explore_one_parameter_and_defaults():
    box = sw.explore(make_plot(), {"k": [1, 2, 3, 4]}, defaults={"k": 3},
                     description={"k": "κ"}, progress=False)
    (slider,) = box.children[0].children
    stack = box.children[1]
    assert slider.description == "κ"
    assert slider.index == 2 and stack.selected_index == 2
    assert slider.label == "3"
    assert len(stack.children) == 4 and len(links_of(box)) == 1


def test_explore_three_parameters_links_every_stack():
    box = sw.explore(make_plot(), {"a": [1, 2], "b": [1, 2, 3], "c": [0.1, 0.2]}, progress=False)
    assert len(images(box)) == 12
    # 1 outer + 2 second-level + 6 third-level stacks
    assert len(links_of(box)) == 1 + 2 + 6


def test_explore_defaults_tolerate_float_roundoff():
    import numpy as np

    box = sw.explore(make_plot(), {"d": np.linspace(0, 1, 4)}, defaults={"d": 1 / 3},
                     progress=False)
    assert box.children[0].children[0].index == 1


@pytest.mark.parametrize("value, label", [(0.5, "0.5"), (2, "2"), (1e-5, "1e-05"),
                                          (0.123456, "0.1235"), ("softmax", "softmax")])
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
    assert {"LinkModel", "StackModel", "ImageModel", "SelectionSliderModel"} <= names
    for link in links_of(box):
        assert link.model_id in state


# ----------------------------------------------------------------- live
def test_live_builds_controls_without_continuous_update():
    calls: list = []
    box = sw.live(make_plot(calls), {"x": (0.0, 1.0, 0.1, 0.3), "n": (1, 9, 2),
                                     "kind": ["a", "b"],
                                     "y": {"min": 0, "max": 5, "value": 2},
                                     "z": widgets.FloatSlider(continuous_update=True)},
                  defaults={"n": 3}, fixed={"extra": 1})
    assert sw.LIVE_CLASS in box._dom_classes
    controls, out = box.children
    assert isinstance(out, widgets.Output)
    kinds = [type(c).__name__ for c in controls.children]
    assert kinds == ["FloatSlider", "IntSlider", "Dropdown", "IntSlider", "FloatSlider"]
    sliders = [c for c in controls.children if hasattr(c, "continuous_update")]
    assert all(c.continuous_update is False for c in sliders)
    assert controls.children[0].value == pytest.approx(0.3)
    assert controls.children[1].value == 3
    # the default figure is drawn at construction
    assert calls and calls[0]["extra"] == 1 and calls[0]["n"] == 3
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
