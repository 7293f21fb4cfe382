"""The widths of the book's text column, in CSS pixels, written once.

The figures are drawn and checked for them: :mod:`seqrmt.plots` sizes a figure's fonts for the
phone column (:data:`PHONE_COLUMN_PX`, ``seqrmt.plots.COLUMN_PX``) and its readability check
measures text and axes at both columns (``seqrmt/plots/_check.py``).  The site's stylesheet sets
the column with the same numbers: ``seqrmt_book/static/seqrmt/site.css_t`` is a template that Sphinx
fills from :func:`css_values` (``seqrmt_book/assets.py``), so that the page shows a figure at the
widths it was checked for:

* up to :data:`NARROW_SCREEN_MAX_PX` the column is the screen less :data:`NARROW_INSET_PX` on each
  side: :data:`PHONE_COLUMN_PX` on the :data:`PHONE_SCREEN_PX` phone the figures are drawn for;
* wider, the page keeps :data:`WIDE_INSET_PX` on each side and the column is at most
  :data:`COLUMN_MAX_PX` wide (the desktop column of the check: a figure is never shown larger);
* a figure takes the whole column (no padding of its own).

The module imports nothing of the package: every layer may read it.
"""

from __future__ import annotations

__all__ = [
    "PHONE_SCREEN_PX",
    "NARROW_SCREEN_MAX_PX",
    "NARROW_INSET_PX",
    "WIDE_INSET_PX",
    "COLUMN_MAX_PX",
    "PHONE_COLUMN_PX",
    "css_values",
]

#: The phone the figures are drawn for: a 390 CSS px wide screen.
PHONE_SCREEN_PX = 390
#: The widest screen with narrow margins (the theme's breakpoint ``md``, 768 px, included).
NARROW_SCREEN_MAX_PX = 768
#: The page's margin on each side of the column on a narrow screen (the theme's ``1rem``).
NARROW_INSET_PX = 16
#: The page's margin on each side of the column on a wider screen (the theme's ``2rem``).
WIDE_INSET_PX = 32
#: The widest the text column gets, on any screen: the desktop column of the figure check.
COLUMN_MAX_PX = 730
#: The text column on the phone: 358 CSS px.
PHONE_COLUMN_PX = PHONE_SCREEN_PX - 2 * NARROW_INSET_PX


def css_values() -> dict[str, int]:
    """What the stylesheet's template reads (``seqrmt_columns`` in its context), in CSS pixels."""
    return {
        "column_max": COLUMN_MAX_PX,
        "wide_inset": WIDE_INSET_PX,
        "narrow_inset": NARROW_INSET_PX,
        "narrow_screen_max": NARROW_SCREEN_MAX_PX,
    }
