"""Functions a reader can hold in mind: no function of ``seqrmt/`` has more than :data:`MAX_LINES`
lines of code.

A line of code is a line of the function's text that holds part of a Python token (a line of a
multi-line expression or string counts); blank lines, comment lines and the docstrings of the function
and of the functions and classes inside it do not.  A nested function counts in its own size and in
the size of the function around it.  A long function is split along its seams (one panel of a figure,
one kind of problem, one step of a build) into functions of its module.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "seqrmt"
MAX_LINES = 80
_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


def _code_lines(source: str) -> set[int]:
    """The numbers of the lines that hold part of a code token (strings included)."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _NOT_CODE:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines


def _docstring_lines(node: ast.AST) -> set[int]:
    """The lines of the docstrings of ``node`` and of every function and class inside it."""
    out: set[int] = set()
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    out.update(range(first.lineno, first.end_lineno + 1))
    return out


def function_sizes(source: str) -> list[tuple[str, int, int]]:
    """``(qualified name, first line, lines of code)`` of every function of a module's ``source``."""
    tree = ast.parse(source)
    code = _code_lines(source)
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    span = set(range(child.lineno, child.end_lineno + 1))
                    out.append((name, child.lineno, len((span & code) - _docstring_lines(child))))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def long_functions(root: Path = PACKAGE, limit: int = MAX_LINES) -> list[str]:
    """The functions of the Python files under ``root`` with more than ``limit`` lines of code."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for name, line, size in function_sizes(path.read_text(encoding="utf-8")):
            if size > limit:
                found.append(f"{path.relative_to(root.parent).as_posix()}:{line} {name}: {size} lines of code")
    return found


def test_no_function_of_the_package_is_longer_than_a_reader_holds_in_mind() -> None:
    found = long_functions()
    assert not found, f"functions over {MAX_LINES} lines of code (split them along their seams):\n" + "\n".join(found)


def test_the_package_is_measured() -> None:
    sizes = [s for path in PACKAGE.rglob("*.py") for s in function_sizes(path.read_text(encoding="utf-8"))]
    assert len(sizes) > 500
    assert max(size for _, _, size in sizes) > 40  # the figures' functions are measured


def test_a_planted_long_function_fails_and_docstrings_and_comments_do_not_count(tmp_path: Path) -> None:
    package = tmp_path / "seqrmt"
    package.mkdir()
    statements = "".join(f"    x{i} = {i}\n" for i in range(81))
    (package / "planted.py").write_text(f"def planted():\n{statements}    return x0\n", encoding="utf-8")
    talk = '        """' + "\n".join(["A long docstring."] * 100) + '"""\n' + "        # a comment\n\n" * 100
    (package / "fine.py").write_text(
        f"class Model:\n    def method(self):\n{talk}        return [\n            1,\n            2,\n        ]\n",
        encoding="utf-8",
    )
    assert long_functions(package) == ["seqrmt/planted.py:1 planted: 83 lines of code"]
    assert function_sizes((package / "fine.py").read_text()) == [("Model.method", 2, 5)]
