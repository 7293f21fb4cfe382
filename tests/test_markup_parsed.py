"""The book's extensions read HTML and CSS with parsers, never with regular expressions.

``seqrmt_book/`` works on the doctree, Sphinx's events and the templates; where it reads written
markup it parses it (BeautifulSoup for HTML, tinycss2 for CSS, MathJax's own element tree in
``mathjax_render.js``).  This test finds every regular expression of the package's Python (the
patterns given to ``re``) and of its own JavaScript (the regular-expression literals and
``RegExp``) and fails on one that matches markup: an HTML tag or attribute (``<span``, ``</div>``,
``class="``), an entity, or a CSS at-rule, declaration block or ``url(``.  It catches a planted one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "seqrmt_book"
#: Not the package's own code: MathJax's build-time components and the vendored libraries.
VENDORED = ("mathjax", "vendor")
_RE_FUNCTIONS = {"compile", "sub", "subn", "search", "match", "fullmatch", "findall", "finditer", "split"}

#: Regular-expression syntax that holds a "<" without being markup: lookbehinds, named groups.
_REGEX_SYNTAX = re.compile(r"\(\?<[=!]|\(\?P<\w+>|\(\?P=\w+\)|\(\?<\w+>|\\<")
#: What marks a pattern as one over markup.
_MARKUP = (
    re.compile(r"<\\?/?\(?\??[A-Za-z!]"),  # a tag: <span, </div>, <(span|div), <!--
    re.compile(r"\b(?:class|src|href|style|id|data-[\w-]+|mathcolor)\s*=\s*\\?[\"']"),  # an attribute
    re.compile(r"&(?:[a-z]+|#\d+);"),  # an entity
    re.compile(r"@(?:font-face|media|import|supports|keyframes|property|page)\b"),  # a CSS at-rule
    re.compile(r"\burl\\?\("),  # a CSS url()
    re.compile(r"\\\{(?:\s|\\s[*+?]?)*[a-z-]+(?:\s|\\s[*+?]?)*:"),  # a CSS declaration block: \{\s*color:
)


def over_markup(pattern: str) -> bool:
    """Whether a regular expression's pattern matches HTML or CSS (see :data:`_MARKUP`)."""
    bare = _REGEX_SYNTAX.sub("", pattern)
    return any(m.search(bare) for m in _MARKUP)


def _string(node: ast.AST) -> str | None:
    """The value of a constant string (or of an implicit concatenation, or of ``+`` of strings)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left), _string(node.right)
        return None if left is None or right is None else left + right
    return None


def python_patterns(source: str) -> list[tuple[int, str]]:
    """``(line, pattern)`` of every pattern given to a function of ``re`` in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        if node.func.attr in _RE_FUNCTIONS and isinstance(node.func.value, ast.Name) and node.func.value.id == "re":
            pattern = _string(node.args[0])
            if pattern is not None:
                out.append((node.lineno, pattern))
    return out


#: A JavaScript regular-expression literal, after a character that can precede an expression.
_JS_LITERAL = re.compile(r"(?:^|[=(,:!&|?;{}\[]|\breturn)\s*/((?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+)/[dgimsuvy]*")
_JS_REGEXP = re.compile(r"""\bRegExp\(\s*(["'`])((?:(?!\1)[^\\]|\\.)*)\1""")
_JS_COMMENTS = re.compile(r"/\*.*?\*/|(?<![:\\\"'])//[^\n]*", re.S)


def javascript_patterns(source: str) -> list[str]:
    """The regular expressions of a JavaScript file: its literals and the strings given to ``RegExp``."""
    code = _JS_COMMENTS.sub("", source)
    return [m.group(1) for m in _JS_LITERAL.finditer(code)] + [m.group(2) for m in _JS_REGEXP.finditer(code)]


def markup_patterns(root: Path = PACKAGE) -> list[str]:
    """Every regular expression over markup in the package's own Python and JavaScript."""
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or set(path.relative_to(root).parts) & set(VENDORED):
            continue
        name = path.relative_to(root.parent).as_posix()
        if path.suffix == ".py":
            source = path.read_text(encoding="utf-8")
            found += [f"{name}:{line}: {p!r}" for line, p in python_patterns(source) if over_markup(p)]
        elif path.suffix in (".js", ".cjs", ".mjs"):
            found += [f"{name}: /{p}/" for p in javascript_patterns(path.read_text(encoding="utf-8")) if over_markup(p)]
    return found


def test_no_regular_expression_reads_html_or_css_in_the_extensions() -> None:
    assert not markup_patterns(), "parse markup (BeautifulSoup, tinycss2) instead of matching it:\n" + "\n".join(
        markup_patterns()
    )


def test_the_scan_reads_the_packages_own_patterns() -> None:
    patterns = [p for path in PACKAGE.rglob("*.py") for _, p in python_patterns(path.read_text(encoding="utf-8"))]
    assert len(patterns) >= 10 and r"\\[A-Za-z]+|\\.|\s+|." in patterns  # typeset's TeX tokens: not markup
    assert "previews\\.js(\\?.*)?$" in javascript_patterns((PACKAGE / "static/seqrmt/previews.js").read_text())


def test_the_scan_catches_a_planted_regular_expression_over_markup(tmp_path: Path) -> None:
    package = tmp_path / "seqrmt_book"
    (package / "static").mkdir(parents=True)
    (package / "fine.py").write_text('import re\n\nWORD = re.compile(r"(?<![A-Za-z])(?P<name>alpha)")\n')
    (package / "planted.py").write_text(
        "import re\n\n"
        "_MATH = re.compile(\n"
        "    r'<(span|div)(\\s[^>]*?class=\"math\")>(.*?)</\\1>', re.S\n"
        ")\n"
        "def swap(css):\n"
        '    return re.sub(r"@font-face\\s*\\{", "@font-face { font-display: swap;", css)\n'
    )
    (package / "static" / "planted.js").write_text(
        "// a comment with a <tag> and a/slash/\n"
        'function texError(out) { return /data-mjx-error="([^"]*)"/.exec(out); }\n'
        'const ok = name.replace(/\\s+/g, " ");\n'
    )
    found = markup_patterns(package)
    assert len(found) == 3, found
    assert found[0].startswith("seqrmt_book/planted.py:3: ") and found[1].startswith("seqrmt_book/planted.py:7: ")
    assert found[2] == 'seqrmt_book/static/planted.js: /data-mjx-error="([^"]*)"/'
    for pattern in ("<script\\b[^>]*>", "url\\(([^)]+)\\)", "a\\s*\\{\\s*color:", "&amp;"):
        assert over_markup(pattern), pattern
    for pattern in ("(?<![\\w.])\\d+\\.\\d{2,}", "^\\s*(?:from|import)\\s+", "(?P<fence>`{3,}|:{3,})\\{(?P<name>x)\\}"):
        assert not over_markup(pattern), pattern
