"""Common look of the book's figures."""
from __future__ import annotations

__all__ = ["WEIGHT_COLORS", "THEORY_COLOR", "SIM_COLOR", "IDEAL_COLOR", "MEAN_SPIKE_COLOR",
           "figure", "finish"]

#: One color per weighting, used in every chapter.
WEIGHT_COLORS = {"mean": "#4C72B0", "causal": "#DD8452", "optimal": "#55A868",
                 "strict causal": "#C44E52"}
THEORY_COLOR = "#222222"     # exact finite-table theory
IDEAL_COLOR = "#8172B3"      # idealized statement (alpha beta, no class-mean noise)
SIM_COLOR = "#64B5CD"        # simulation
MEAN_SPIKE_COLOR = "#C44E52"  # vocabulary-mean outlier of the uncentered S


def _png(fig) -> bytes:
    import io
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, bbox_inches="tight")
    return buf.getvalue()


def _register_display() -> None:
    """Let IPython show a bare ``Figure`` (built without pyplot) as a PNG."""
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
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=True, **kw)
    return fig, axes


def finish(ax, *, xlabel: str | None = None, ylabel: str | None = None,
           title: str | None = None, legend: bool = True):
    """Label an axes and add a legend if it has labelled artists."""
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize="medium")
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", frameon=False)
    ax.grid(alpha=0.25)
    return ax
