"""The figure readability check (seqrmt.plots.figure_problems) catches planted defects
and passes clean figures; the record of rendered figures feeds assert_figures_readable."""

from __future__ import annotations


import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")

import seqrmt.plots as srp  # noqa: E402


def kinds(problems):
    return {p.split(":")[0] for p in problems}


def clean_figure():
    fig, ax = srp.figure(width=6.4, height=3.6)
    x = np.linspace(0, 1, 200)
    ax.plot(x, x**2, label="square")
    ax.plot(x, x**3, label="cube")
    srp.finish(ax, xlabel="x", ylabel="y", title="powers of x", legend=False)
    ax.legend(loc="upper left", fontsize="small", frameon=False)
    srp.readable_fonts(fig)
    return fig


def test_clean_figures_pass():
    assert srp.figure_problems(clean_figure()) == []
    fig, (a1, a2) = srp.figure(1, 2, width=6.4, height=6.0)
    rng = np.random.default_rng(0)
    a1.hist(rng.normal(size=500), bins=30)
    a2.scatter(rng.normal(size=50), rng.normal(size=50))
    srp.finish(a1, xlabel="value", ylabel="count", title="a histogram")
    srp.finish(a2, xlabel="u", ylabel="v", title="a scatter")
    srp.readable_fonts(fig)
    assert srp.figure_problems(fig) == []


def test_the_book_figures_of_the_defaults_pass():
    """A few figure functions of the book at their defaults pass the check as rendered."""
    for fig in (srp.bulk_density_figure(2.0, 0.5), srp.weights_profiles(), srp.toolkit_semicircle_figure()):
        srp.readable_fonts(fig)
        assert srp.figure_problems(fig) == [], fig.seqrmt_origin


def test_legend_on_the_data():
    fig, ax = srp.figure(width=6.4, height=3.6)
    x = np.linspace(0, 1, 200)
    for k in range(6):
        ax.plot(x, 0.5 + 0.02 * k + 0 * x, label=f"a long legend entry number {k}")
    ax.set_ylim(0.3, 0.8)
    ax.legend(loc="center")
    srp.readable_fonts(fig)
    problems = srp.figure_problems(fig)
    assert "legend over the data" in kinds(problems), problems
    # the same legend below the axes passes
    ax.get_legend().remove()
    fig.legend(loc="outside lower center", ncols=2, fontsize="small", frameon=False)
    fig.set_figheight(5.5)
    assert "legend over the data" not in kinds(srp.figure_problems(fig))


def test_colliding_titles():
    fig, (a1, a2) = srp.figure(2, width=6.4, height=3.0)
    a1.set_title("d=1000 a rather long title that runs on and on")
    a2.set_title("distance to the limit law, still more words")
    srp.readable_fonts(fig)
    problems = srp.figure_problems(fig)
    assert any(p.startswith("overlapping text: title") and "title 'distance" in p for p in problems), problems


def test_tick_labels_running_together():
    fig, ax = srp.figure(width=3.0, height=2.5)
    ax.plot([200, 1600], [0, 1])
    ax.set_xticks([200, 400, 800, 1000, 1200, 1400, 1600])
    ax.tick_params(labelsize=12)
    problems = srp.figure_problems(fig)
    assert any(p.startswith("tick labels") for p in problems), problems


def test_text_cut_off_at_the_edge():
    fig, ax = srp.figure(width=6.4, height=3.6)
    ax.plot([0, 1], [0, 1])
    fig.text(0.93, 0.5, "a note that runs past the right edge", fontsize=12)
    srp.readable_fonts(fig)
    problems = srp.figure_problems(fig)
    assert any(p.startswith("cut off at the figure edge: figure text") for p in problems), problems
    # a saved, cropped-tight image includes it (the crop box grows), so it is not cut
    srp.clear_figure_reports()
    srp.render_png(fig)
    (rec,) = srp.figure_reports()
    assert not any(p.startswith("cut off") for p in rec["problems"]), rec
    # a frame (not cropped) keeps the figure's size: cut
    srp.clear_figure_reports()
    srp.render_png(fig, tight=False)
    (rec,) = srp.figure_reports()
    assert any(p.startswith("cut off") for p in rec["problems"]), rec


def test_too_small_font():
    fig, ax = srp.figure(width=6.4, height=3.6)
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("x", fontsize=5)
    problems = srp.figure_problems(fig, columns=(730,))
    assert any(p.startswith("text too small: x label") for p in problems), problems
    # 5 pt at 100 CSS px per inch is 6.9 px; at 200 CSS px per inch it is 13.9 px (the
    # figure, 3.2 in x 200 = 640 px wide, is not scaled down in a 730 px column)
    fig.set_figwidth(3.2)
    ax.tick_params(labelsize=5)
    assert "text too small" not in kinds(srp.figure_problems(fig, columns=(730,), css_dpi=200))
    assert "text too small" in kinds(srp.figure_problems(fig, columns=(730,), css_dpi=100))
    # a wide figure is scaled down to the column: 10 pt on a 20 inch figure is 5 px at 730 px
    fig2, ax2 = srp.figure(width=20, height=6)
    ax2.plot([0, 1], [0, 1])
    ax2.tick_params(labelsize=10)
    ax2.set_xlabel("x", fontsize=10)
    ax2.set_ylabel("y", fontsize=10)
    (p,) = [q for q in srp.figure_problems(fig2, columns=(730,)) if q.startswith("text too small")]
    assert "5.1 CSS px" in p, p


def test_squeezed_axes_and_bars_off_the_top():
    fig, axes = srp.figure(6, width=6.4, height=3.0)
    for ax in axes:
        ax.bar([0, 1, 2], [1, 5, 2])
        ax.set_ylabel("a long y label here")
    axes[0].set_ylim(0, 3)
    problems = srp.figure_problems(fig)
    assert "axes squeezed" in kinds(problems), problems
    assert "bars cut off" in kinds(problems), problems


def test_legend_over_tick_labels_and_outside_its_axes():
    fig, ax = srp.figure(width=6.4, height=3.6)
    ax.plot([0, 1], [0, 1], label="line")
    ax.set_yticks([0.0, 0.5, 1.0])
    ax.legend(loc="center left", bbox_to_anchor=(-0.06, 0.5)).set_in_layout(False)
    srp.readable_fonts(fig)
    problems = srp.figure_problems(fig)
    assert "legend spills out of its axes" in kinds(problems), problems
    assert "legend over text" in kinds(problems), problems


def test_bar_label_under_the_legend():
    fig, ax = srp.figure(width=6.4, height=3.6)
    bars = ax.bar(["a", "b", "c"], [1.0, 2.0, 6.57], label="value")
    ax.bar_label(bars, fmt="%.2f")
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, 1.0), fontsize=14, borderaxespad=0)
    ax.set_ylim(0, 7)
    problems = srp.figure_problems(fig)
    assert any("covers annotation '6.57'" in p for p in problems), problems


def test_a_log_axis_without_numbers():
    """A log axis over less than a decade labels no value; over less than two decades one.
    seqrmt.plots.log_ticks labels it; chosen, removed or hidden ticks are not reported."""

    def log_figure(lo, hi):
        fig, (a1, a2) = srp.figure(2, width=6.4, height=3.0, sharey=True)
        for ax in (a1, a2):
            ax.semilogy([200, 400, 800], [lo, (lo * hi) ** 0.5, hi], "o-")
            ax.minorticks_off()
        srp.readable_fonts(fig)
        return fig, a1, a2

    for lo, hi, shown in ((0.012, 0.07, 0), (0.002, 0.05, 1)):
        fig, a1, a2 = log_figure(lo, hi)
        problems = srp.figure_problems(fig)
        assert f"the y axis of panel 1 labels {shown} value(s)" in " ".join(problems), problems
        assert not any("panel 2" in p for p in problems), problems  # its labels are hidden (sharey)
        srp.log_ticks(a1)
        assert "scale unreadable" not in kinds(srp.figure_problems(fig))
        a1.set_yticks([])  # no ticks at all: the figure's choice
        assert "scale unreadable" not in kinds(srp.figure_problems(fig))
    fig, a1, _ = log_figure(1e-4, 1e-1)  # three decades: matplotlib's own ticks
    assert "scale unreadable" not in kinds(srp.figure_problems(fig))
    with pytest.raises(ValueError, match="which"):
        srp.log_ticks(a1, "z")
    fig, ax = srp.figure()
    with pytest.raises(ValueError, match="log-scaled y axis"):
        srp.log_ticks(ax)


def test_arguments_are_validated():
    with pytest.raises(TypeError, match="fig"):
        srp.figure_problems("not a figure")
    fig = clean_figure()
    with pytest.raises(ValueError, match="css_dpi"):
        srp.figure_problems(fig, css_dpi=0)
    with pytest.raises(ValueError, match="max_legend_cover"):
        srp.figure_problems(fig, max_legend_cover=2)


def test_rendered_figures_are_recorded_and_asserted(monkeypatch):
    srp.clear_figure_reports()
    srp.render_png(clean_figure())
    assert srp.assert_figures_readable() == 1
    fig, (a1, a2) = srp.figure(2, width=6.4, height=3.0)
    a1.set_title("a long title that runs into its neighbour")
    a2.set_title("the neighbour title, also long")
    fig.seqrmt_params = {"beta": 0.5}
    srp.readable_fonts(fig)
    srp.render_png(fig, tight=False)
    with pytest.raises(
        AssertionError,
        match=r"(?s)1 of 2 figures.*test_rendered_figures_are_recorded"
        r"_and_asserted\(beta=0.5\).*overlapping text",
    ):
        srp.assert_figures_readable()
    reps = srp.figure_reports()
    assert [r["where"] for r in reps] == ["inline", "frame"]
    assert all(r["seconds"] >= 0 for r in reps)
    with pytest.raises(AssertionError):
        srp.assert_figures_readable(clear=True)
    assert srp.figure_reports() == []
    # switched off
    monkeypatch.setenv("SEQRMT_FIGURE_CHECK", "0")
    srp.render_png(fig)
    assert srp.figure_reports() == []
    # a reader's session (the variable unset) draws without the check
    monkeypatch.delenv("SEQRMT_FIGURE_CHECK")
    srp.render_png(fig)
    assert srp.figure_reports() == []
    monkeypatch.setenv("SEQRMT_FIGURE_CHECK", "1")
    srp.render_png(fig)
    assert len(srp.figure_reports()) == 1


def test_explorer_frames_are_recorded():
    widgets = pytest.importorskip("seqrmt.widgets")
    srp.clear_figure_reports()

    def plot(beta):
        fig, ax = srp.figure(width=6.4, height=3.0)
        ax.plot([0, 1], [0, beta])
        srp.finish(ax, xlabel="x", ylabel="y", title=f"beta = {beta}")
        return fig

    widgets.explore(plot, {"beta": [0.5, 1.0]}, progress=False)
    reps = srp.figure_reports()
    assert [(r["where"], r["params"]) for r in reps] == [("frame", {"beta": 0.5}), ("frame", {"beta": 1.0})]
    assert srp.assert_figures_readable(clear=True) == 2


def test_the_check_records_its_cost():
    """render_png checks a figure once and records what the check cost (its share of the rendering,
    at most a half, is a bar of benchmarks/bench_budgets.py, not a test)."""
    fig = srp.bulk_density_figure(2.0, 0.5)
    srp.readable_fonts(fig)
    srp.clear_figure_reports()
    srp.render_png(fig)
    (rec,) = srp.figure_reports()
    srp.clear_figure_reports()
    assert isinstance(rec["seconds"], float) and rec["seconds"] >= 0.0, rec
