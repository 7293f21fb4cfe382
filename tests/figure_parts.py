"""Helpers of the figure tests: what a figure's legends say, wherever they are drawn.

The book's figures put their legends outside the data (``seqrmt.plots.legend_below`` draws a
figure legend under the axes, ``legend_right`` an axes legend beside them), so a test asks the
axes *and* the figure for legend entries.
"""

from __future__ import annotations


def legend_texts(ax) -> list[str]:
    """The entries of ``ax``'s own legend and of every legend of its figure."""
    legends = [ax.get_legend()] + list(ax.figure.legends)
    return [t.get_text() for leg in legends if leg is not None for t in leg.get_texts()]


def has_legend(ax) -> bool:
    """Whether ``ax`` or its figure shows a legend with at least one entry."""
    return bool(legend_texts(ax))
