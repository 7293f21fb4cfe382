"""Unit tests of the site extensions for readers: self-checks (outside HTML), previews,
editions and build-time tab stops (``site_assets/``)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "site_assets"))

import seqrmt_editions  # noqa: E402
import seqrmt_previews  # noqa: E402
import seqrmt_site  # noqa: E402


def test_book_version_is_pyprojects(tmp_path):
    import tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert seqrmt_editions.book_version(ROOT) == pyproject["project"]["version"]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2.3.4"\n')
    assert seqrmt_editions.book_version(tmp_path) == "2.3.4"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(ValueError, match="version"):
        seqrmt_editions.book_version(tmp_path)


def test_build_date_honours_source_date_epoch(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert seqrmt_editions.build_date() == "1970-01-01"
    line = seqrmt_editions.footer_line("1.2", "1970-01-01", "changes.html")
    assert 'class="seqrmt-edition"' in line and "version 1.2" in line and 'href="changes.html"' in line


PAGE = ('<html><head></head><body>'
        '<div class="proof theorem admonition" id="thm-a"><p class="admonition-title">Theorem 1</p>'
        '<div class="section"><p>See <a class="reference internal" href="#eq-x">x</a>.</p></div></div>'
        '<div class="math notranslate nohighlight" id="equation-e1"><span class="eqno">(1)'
        '<a class="headerlink" href="#equation-e1">#</a></span><mjx-container>E</mjx-container></div>'
        '<div class="section" id="intro"><p>text</p></div>'
        '<p><a class="reference internal" href="#thm-a">T</a> <a class="reference internal" '
        'href="#equation-e1">(1)</a> <a class="reference internal" href="#intro">I</a></p>'
        '</body></html>')


def test_previews_mark_statement_and_equation_links(tmp_path):
    (tmp_path / "book").mkdir()
    page = tmp_path / "book" / "p.html"
    page.write_text(PAGE)
    assert seqrmt_previews.add_previews(tmp_path) == 2
    text = page.read_text()
    assert 'data-seqrmt-preview="book/p.html#thm-a"' in text
    assert 'data-seqrmt-preview="book/p.html#equation-e1"' in text
    assert 'data-seqrmt-preview="book/p.html#intro"' not in text        # a section: no preview
    theorem = (tmp_path / seqrmt_previews.FOLDER / seqrmt_previews.file_name("book/p.html#thm-a")).read_text()
    assert "Theorem 1" in theorem and "<a " not in theorem and "id=" not in theorem
    eq = (tmp_path / seqrmt_previews.FOLDER / seqrmt_previews.file_name("book/p.html#equation-e1")).read_text()
    assert "(1)" in eq and "headerlink" not in eq
    assert seqrmt_previews.add_previews(tmp_path) == 2                  # idempotent
    assert page.read_text() == text


def test_element_is_balanced():
    html = '<div class="exercise admonition" id="ex"><div><div>a</div></div><p>b</p></div><div>c</div>'
    assert seqrmt_previews._element(html, "ex").endswith("<p>b</p></div>")
    assert seqrmt_previews._element(html, "missing") is None


def test_scroll_boxes_named_tab_stops():
    html = ('<div class="cell_input docutils container"><pre>a</pre></div>'
            '<div class="cell_output docutils container"><pre>b</pre></div>'
            '<div class="pst-scrollable-table-container"><table></table></div>')
    out = seqrmt_site.focusable_scroll_boxes(html)
    assert '<pre tabindex="0" role="group" aria-label="Code">a' in out
    assert '<pre tabindex="0" role="group" aria-label="Output">b' in out
    assert 'class="pst-scrollable-table-container" tabindex="0" role="group" aria-label="Table"' in out
    assert seqrmt_site.focusable_scroll_boxes(out) == out
