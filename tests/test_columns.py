"""The widths of the text column are written once (``seqrmt/columns.py``), and the figure check and
the site's stylesheet agree on them.

The stylesheet ``seqrmt_book/static/seqrmt/site.css_t`` is a template that Sphinx renders into
``_static/seqrmt/site.css`` with :func:`seqrmt_book.assets.column_context`; :func:`served_columns`
reads the widths back from the CSS as served (tinycss2) and the tests compare them with the
figure check's: the phone column (``seqrmt.plots.COLUMN_PX``: the phone screen less the narrow
margins) and the widest column (``DESKTOP_COLUMN_PX``).  ``tests/test_book_extensions.py`` does the
same on a built site.
"""

from __future__ import annotations

import pytest

from seqrmt import columns
from seqrmt_book import STATIC, assets

TEMPLATE = STATIC / "seqrmt" / "site.css_t"


def rendered_stylesheet() -> str:
    """The template rendered as Sphinx renders a static ``_t`` file (its Jinja environment)."""
    from sphinx.util.template import SphinxRenderer

    return SphinxRenderer().render_string(TEMPLATE.read_text(encoding="utf-8"), assets.column_context())


def _px(tokens: list) -> float:
    (token,) = [t for t in tokens if t.type not in ("whitespace", "comment")]
    assert token.type == "dimension" and token.lower_unit == "px", token
    return float(token.value)


def _declarations(rule) -> dict[str, list]:
    import tinycss2

    found = tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True)
    return {d.name: d.value for d in found if d.type == "declaration"}


def served_columns(css: str) -> dict[str, float]:
    """The column of a served ``site.css``: ``column_max`` and ``wide_inset`` (``:root``), and
    ``narrow_inset`` with the ``narrow_screen_max`` of its ``@media (max-width: ...)``; and whether
    the article's rule sets its margins and width from them (``article_uses_them``)."""
    import tinycss2

    out: dict[str, float] = {}
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    for rule in rules:
        selector = tinycss2.serialize(rule.prelude).strip()
        if rule.type == "qualified-rule" and selector == ":root":
            values = _declarations(rule)
            if "--seqrmt-column-max" in values:
                out["column_max"] = _px(values["--seqrmt-column-max"])
                out["wide_inset"] = _px(values["--seqrmt-column-inset"])
        elif rule.type == "qualified-rule" and selector.endswith("article.bd-article"):
            text = {k: tinycss2.serialize(v).strip() for k, v in _declarations(rule).items()}
            out["article_uses_them"] = text == {
                "padding-left": "var(--seqrmt-column-inset)",
                "padding-right": "var(--seqrmt-column-inset)",
                "max-width": "calc(var(--seqrmt-column-max) + 2 * var(--seqrmt-column-inset))",
            }
        elif rule.type == "at-rule" and rule.lower_at_keyword == "media":
            inner = tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
            roots = [
                r for r in inner if r.type == "qualified-rule" and tinycss2.serialize(r.prelude).strip() == ":root"
            ]
            values = _declarations(roots[0]) if roots else {}
            if "--seqrmt-column-inset" in values:
                (query,) = [t for t in rule.prelude if t.type == "() block"]
                name, _, width = tinycss2.serialize(query.content).partition(":")
                assert name.strip() == "max-width", query
                out["narrow_screen_max"] = _px(tinycss2.parse_component_value_list(width))
                out["narrow_inset"] = _px(values["--seqrmt-column-inset"])
    return out


def assert_agrees_with_the_check(css: str) -> None:
    """The served column is the one the figures are checked for, at the phone and at its widest."""
    import seqrmt.plots as srp
    from seqrmt.plots import _check

    served = served_columns(css)
    assert served.get("article_uses_them"), "the article's rule no longer sets the column from its widths"
    assert columns.PHONE_SCREEN_PX <= served["narrow_screen_max"], "the phone is not a narrow screen"
    phone = columns.PHONE_SCREEN_PX - 2 * served["narrow_inset"]
    assert phone == srp.COLUMN_PX == columns.PHONE_COLUMN_PX, (phone, srp.COLUMN_PX)
    assert served["column_max"] == _check.DESKTOP_COLUMN_PX == columns.COLUMN_MAX_PX
    assert served["wide_inset"] == columns.WIDE_INSET_PX
    assert "main article.bd-article figure" in css  # a figure has the whole column


def test_the_stylesheet_and_the_figure_check_agree() -> None:
    css = rendered_stylesheet()
    assert "{{" not in css and "{%" not in css
    assert_agrees_with_the_check(css)


def test_a_width_changed_in_one_place_reaches_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(columns, "NARROW_INSET_PX", 12)
    served = served_columns(rendered_stylesheet())
    assert served["narrow_inset"] == 12 and served["column_max"] == columns.COLUMN_MAX_PX
    with pytest.raises(AssertionError):  # the check still sizes figures for a 358 px column
        assert_agrees_with_the_check(rendered_stylesheet())


def test_the_template_has_no_width_of_its_own() -> None:
    """Every width of the column in the template comes from its context."""
    import re

    text = TEMPLATE.read_text(encoding="utf-8")
    block = text[text.index(":root {") : text.index("main article.bd-article figure")]
    assert not re.search(r"\d+px", block), block
    for name in columns.css_values():
        assert "{{ seqrmt_columns." + name + " }}" in text
