"""Checks of the built PDF edition (``scripts/build_pdf.sh``).

The PDF is looked for at ``$SEQRMT_PDF``, else ``_build/html/_pdf/seqrmt-book.pdf``, else
``_build/latex/seqrmt-book.pdf``.  It is read with the poppler tools ``pdfinfo``,
``pdftotext`` and ``pdfimages`` (Debian/Ubuntu package ``poppler-utils``).  Checks:

* at least 80 pages and at least 30 images (the figures are embedded as images);
* the title of every page listed in ``_toc.yml`` (its first ``# `` heading) is in the text;
* no unresolved reference: no ``??`` anywhere in the text;
* the licence of the text (CC BY 4.0) is stated.

Without a PDF, without poppler, or with a PDF older than the book's sources (``book/``,
``seqrmt/``, ``_config.yml``, ``_toc.yml``), the tests are skipped with the reason,
unless ``SEQRMT_REQUIRE_PDF=1`` (set it where the PDF is built, as in ``.ci/run``), in
which case they fail.  An old PDF is never tested.

Two tests need no PDF: they check that ``seqrmt_book/latex.py`` tells a text-mode
``text/latex`` note from a formula, and that the note :func:`seqrmt.widgets.explore` puts
in its display bundle for the PDF is such a text-mode note.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from book_toc import toc_pages

from seqrmt import settings

ROOT = Path(__file__).resolve().parents[1]
NAME = "seqrmt-book.pdf"
MIN_PAGES = 80
MIN_IMAGES = 30


def _unavailable(reason: str) -> None:
    if settings.flag("SEQRMT_REQUIRE_PDF"):
        pytest.fail(f"{reason} (SEQRMT_REQUIRE_PDF=1, so this is an error)", pytrace=False)
    pytest.skip(reason)


def _sources() -> list[Path]:
    out = [ROOT / f for f in ("_config.yml", "_toc.yml")]
    for folder in ("book", "seqrmt"):
        out += [
            p
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in p.parts)
        ]
    return out


@pytest.fixture(scope="module")
def pdf() -> Path:
    named = settings.get("SEQRMT_PDF")
    candidates = (
        [Path(named)] if named else [ROOT / "_build" / "html" / "_pdf" / NAME, ROOT / "_build" / "latex" / NAME]
    )
    found = next((p for p in candidates if p.is_file()), None)
    if found is None:
        _unavailable(
            f"no PDF built ({', '.join(str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p) for p in candidates)} "
            "missing): run scripts/build_pdf.sh"
        )
    for tool in ("pdfinfo", "pdftotext", "pdfimages"):
        if shutil.which(tool) is None:
            _unavailable(f"'{tool}' not found (apt-get install poppler-utils)")
    newer = [p.relative_to(ROOT).as_posix() for p in _sources() if p.stat().st_mtime > found.stat().st_mtime]
    if newer:
        _unavailable(
            f"{found} is older than {len(newer)} source file(s) (e.g. {', '.join(newer[:3])}): "
            "rebuild it with scripts/build_pdf.sh"
        )
    return found


@pytest.fixture(scope="module")
def text(pdf) -> str:
    out = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return out


def _normalize(s: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    s = s.replace("\u2010", "-").replace("\u2011", "-").replace("\u2013", "-").replace("\u2014", "-")
    s = s.replace("\u2019", "'").replace("\u2018", "'")
    return re.sub(r"\s+", " ", s).strip().lower()


def _title(doc: str) -> str:
    for ext in (".ipynb", ".md"):
        p = ROOT / f"{doc}{ext}"
        if p.exists():
            if ext == ".ipynb":
                cells = json.loads(p.read_text(encoding="utf-8"))["cells"]
                text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
            else:
                text = re.sub(r"^---\n.*?\n---\n", "", p.read_text(encoding="utf-8"), flags=re.S)
            m = re.search(r"^#\s+(.+)$", text, re.M)
            assert m, f"{p} has no '# ' title"
            return m.group(1).strip()
    raise AssertionError(f"{doc}: listed in _toc.yml but no .ipynb/.md file")


def test_page_count(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert pages >= MIN_PAGES, f"{pages} pages, at least {MIN_PAGES} expected"


def test_figures_are_images(pdf):
    listing = subprocess.run(
        ["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    images = [row for row in listing if row.split()[2] == "image"]  # not soft masks
    assert len(images) >= MIN_IMAGES, f"{len(images)} images, at least {MIN_IMAGES} expected"


def test_every_title_present(text):
    body = _normalize(text)
    missing = []
    for doc in dict.fromkeys(toc_pages()):
        title = _title(doc.removesuffix(".ipynb").removesuffix(".md"))
        plain = re.sub(r"\$[^$]*\$", "", title)  # math is typeset differently
        words = [w for w in re.split(r"[^\w'-]+", _normalize(plain)) if w]
        if not re.search(r"[^\w'-]+".join(map(re.escape, words)), body):
            missing.append(title)
    assert not missing, f"titles not found in the PDF text: {missing}"


def test_no_unresolved_reference(text):
    hits = [m.start() for m in re.finditer(r"\?\?", text)]
    context = [text[max(0, i - 60) : i + 20].replace("\n", " ") for i in hits[:5]]
    assert not hits, f"{len(hits)} unresolved references ('??') in the PDF, e.g. {context}"


def test_licence_stated(text):
    body = _normalize(text)
    assert "cc by 4.0" in body or "creative commons attribution 4.0" in body, (
        "the licence of the text (CC BY 4.0) is not stated in the PDF"
    )


# --------------------------------------------------------------- without a PDF
def _latex_extension():
    from seqrmt_book import latex

    return latex


def test_text_mode_latex_is_told_from_math():
    ext = _latex_extension()
    assert ext.is_text_mode(r"\begin{center}\small\itshape A note.\end{center}")
    assert ext.is_text_mode(r"\itshape A note.")
    assert not ext.is_text_mode(r"\begin{aligned} a &= b \end{aligned}")
    assert not ext.is_text_mode(r"x^2 + \frac{1}{2}")


def test_explorer_pdf_note_is_text_mode():
    """The PDF fallback that seqrmt.widgets.explore puts in its bundle is the kind of
    text/latex that the extension passes to LaTeX as raw text (not as an equation)."""
    pytest.importorskip("ipywidgets")
    import seqrmt.plots as srp
    from seqrmt.widgets import explore

    box = explore(srp.weights_profiles, grid={"L": [2, 4]}, defaults={"L": 4}, dpi=30)
    bundle = box._repr_mimebundle_()
    assert "text/latex" in bundle, "explore() carries no text/latex fallback for the PDF"
    assert _latex_extension().is_text_mode(bundle["text/latex"])
