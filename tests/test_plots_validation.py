"""Figures of the chapter "How exact is the theory?" (seqrmt.plots.validation)."""
from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402

import seqrmt.plots as srp  # noqa: E402
import seqrmt.validation as sv  # noqa: E402


@pytest.fixture(scope="module")
def atlas_rows():
    return sv.load_atlas()[0]


@pytest.fixture(scope="module")
def fs_rows():
    return sv.load_finite_size()[0]


def _check(fig, n_axes=2):
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) >= n_axes
    for ax in axes[:n_axes]:
        assert ax.get_ylabel()
    return axes


def test_all_exported():
    for name in ("validation_atlas", "validation_ideal", "validation_mean_spike", "validation_scaling",
                 "validation_bulk_T", "validation_bulk_histogram", "validation_transition"):
        assert callable(getattr(srp, name))


@pytest.mark.parametrize("kw", [{}, dict(delta=1.5, gamma=1.5),
                                dict(delta=0.25, gamma=1.5, eigenvalue="lambda_2", overlap="overlap_mean")])
def test_atlas(atlas_rows, kw):
    axes = _check(srp.validation_atlas(rows=atlas_rows, **kw))
    assert len(axes[0].get_xticklabels()) == 9          # 3 R x 3 weightings
    assert axes[0].collections                          # markers and error bars


def test_atlas_bad_input(atlas_rows):
    with pytest.raises(ValueError, match="delta"):
        srp.validation_atlas(rows=atlas_rows, delta=0.7)
    with pytest.raises(ValueError, match="eigenvalue"):
        srp.validation_atlas(rows=atlas_rows, eigenvalue="lambda_9")
    with pytest.raises(ValueError, match="rows"):
        srp.validation_atlas(rows=[])


@pytest.mark.parametrize("centered", [True, False])
def test_ideal(atlas_rows, centered):
    axes = _check(srp.validation_ideal(rows=atlas_rows, centered=centered))
    labels = axes[0].get_legend_handles_labels()[1]
    assert any("idealized" in s for s in labels) and any("exact" in s for s in labels)
    with pytest.raises(ValueError, match="centered"):
        srp.validation_ideal(rows=atlas_rows, centered="yes")


def test_mean_spike(atlas_rows):
    axes = _check(srp.validation_mean_spike(rows=atlas_rows))
    assert axes[0].get_xlabel() and axes[1].get_xlabel()
    with pytest.raises(ValueError, match="uncentered"):
        srp.validation_mean_spike(rows=[r for r in atlas_rows if r["centered"]])


@pytest.mark.parametrize("q", ["lambda_signal", "overlap_signal"])
def test_scaling(fs_rows, q):
    axes = _check(srp.validation_scaling(rows=fs_rows, quantity=q))
    assert axes[0].get_xscale() == "log" and axes[0].get_yscale() == "log"
    assert any("slope" in s for s in axes[0].get_legend_handles_labels()[1])
    with pytest.raises(ValueError, match="quantity"):
        srp.validation_scaling(rows=fs_rows, quantity="nope")


def test_bulk_T(fs_rows):
    axes = _check(srp.validation_bulk_T(rows=fs_rows))
    assert axes[0].get_xlabel() == "sequence length $T$"
    with pytest.raises(ValueError, match="bulk_T"):
        srp.validation_bulk_T(rows=[r for r in fs_rows if r["study"] == "scaling"])


@pytest.mark.parametrize("T", [1, 4])
def test_bulk_histogram(T):
    axes = _check(srp.validation_bulk_histogram(T=T, d=120, seed=1))
    assert "Kolmogorov" in axes[1].get_title()
    with pytest.raises(ValueError, match="T"):
        srp.validation_bulk_histogram(T=0)
    with pytest.raises(ValueError, match="delta"):
        srp.validation_bulk_histogram(delta=-1.0)


def test_transition():
    axes = _check(srp.validation_transition(d=100, seeds=1, n_beta=3))
    assert len(axes[0].lines) >= 2
    with pytest.raises(ValueError, match="weights"):
        srp.validation_transition(weights="softmax")
    with pytest.raises(ValueError, match="R"):
        srp.validation_transition(R="toeplitz")


def test_validation_table_lists_the_chosen_quantities():
    rows, _ = sv.load_atlas()
    rows = [r for r in rows if r["delta_nominal"] == 0.5 and r["gamma_nominal"] == 0.25]
    table = srp.validation_table(rows, quantities="overlap_signal")
    n = sum(r["quantity"] == "overlap_signal" for r in rows)
    assert len(table.rows) == n > 0
    html = table._repr_html_()
    assert html.count("<tr>") == n + 1 and "verdict" in html
    assert "overlap_signal" in repr(table)
    with pytest.raises(ValueError, match="quantities"):
        srp.validation_table(rows, quantities="lambda_99")
