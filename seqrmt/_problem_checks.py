"""The public checks and the grading rules of the problem sets (``problems/`` of the repository).

The problem sets are graded by otter-grader: each question has public checks, which a student runs in
the notebook, and hidden tests, which give the points.  This module is what the students' notebooks,
the hidden tests and the grader share.  It needs NumPy and the standard library only, so that the
students' notebooks run in the readers' environment (``binder/requirements.txt``, without Otter):

* :func:`defined`, :func:`number`, :func:`array`, :func:`mapping` and :func:`function`: what the
  public checks are written with.  Each raises an ``AssertionError`` whose message tells the student
  what to fix (a name still ``...``, a wrong type or shape, a value outside the range the chapter
  gives), never the answer.
* :class:`PublicChecks`: the ``grader`` of a students' notebook; ``grader.check("q1")`` runs the public
  checks of question 1 and says which failed, or that they pass and the points come with the grade.
* :func:`closed_form_values`: for the hidden test of a closed form, the student's function at several
  points, failing (with the rule in the message) when it calls the library it is compared with.
* :class:`HonestPublicTests`: an Otter plugin (``generate: plugins`` in the sets' configuration) with
  which the visible "Public Tests" of ``otter run`` and Gradescope say what ``grader.check`` says:
  which public check failed, or that the hidden tests are graded later, never "All test cases passed"
  for a question whose hidden tests may still fail.

It is not part of the book's API (no chapter uses it).
"""

from __future__ import annotations

import inspect
import numbers as _numbers
import re
import sys
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

__all__: list[str] = []  # not part of the documented API of seqrmt


# ------------------------------------------------------------------ what the public checks use
def defined(value: Any, name: str) -> Any:
    """``value`` unless it is missing (``None``: the name is not defined) or still ``...``.

    Parameters
    ----------
    value : object
        The student's answer (Otter passes ``None`` for a name the notebook does not define).
    name : str
        The name the question asks for, shown in the message.

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    AssertionError
        When ``value`` is ``None`` or ``...``.
    """
    _name(name)
    if value is None:
        raise AssertionError(f"`{name}` is not defined: run the cell of your answer (it must assign `{name}`)")
    if value is Ellipsis:
        raise AssertionError(f"`{name}` is still `...`: replace the `...` with your answer and run its cell")
    return value


def number(value: Any, name: str, *, low: float | None = None, high: float | None = None, why: str = "") -> float:
    """``value`` as a float, checked to be one finite real number in ``[low, high]``.

    Parameters
    ----------
    value : object
        The student's answer.
    name : str
        Its name, shown in the messages.
    low, high : float or None
        The range the chapter gives (inclusive, up to a relative ``1e-9``); ``None`` for no bound.
    why : str
        Why the value must lie in that range, appended to the message.

    Returns
    -------
    float

    Raises
    ------
    AssertionError
        When the value is not defined, not one real number, not finite or out of range.
    """
    defined(value, name)
    if isinstance(value, (bool, np.bool_)):
        raise AssertionError(f"`{name}` is {value}, a bool: the question asks for a number")
    if np.ndim(value) != 0:
        raise AssertionError(f"`{name}` has shape {np.shape(value)}: the question asks for one number")
    if np.iscomplexobj(value):
        raise AssertionError(f"`{name}` is the complex number {complex(value):.4g}: store its real part (`.real`)")
    if not isinstance(value, (_numbers.Real, np.ndarray, np.number)):
        raise AssertionError(f"`{name}` is a {type(value).__name__}: the question asks for a number")
    x = float(value)
    if not np.isfinite(x):
        raise AssertionError(f"`{name}` is {x}: the question asks for a finite number")
    _in_range(np.array([x]), name, low, high, why)
    return x


def array(
    value: Any,
    name: str,
    shape: tuple[int, ...],
    *,
    low: float | None = None,
    high: float | None = None,
    why: str = "",
    distinct: bool = False,
) -> np.ndarray:
    """``value`` as a float array of the asked ``shape``, finite, in ``[low, high]``.

    Parameters
    ----------
    value : object
        The student's answer (a list, a tuple or an array).
    name : str
        Its name, shown in the messages.
    shape : tuple of int
        The shape the question asks for (``(8,)`` for eight draws).
    low, high : float or None
        The range of every entry (inclusive, up to a relative ``1e-9``); ``None`` for no bound.
    why : str
        Why the entries must lie in that range, appended to the message.
    distinct : bool
        Whether the entries are independent draws, which cannot all be equal.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    AssertionError
        When the value is not defined, not an array of real numbers, of another shape, not finite,
        out of range, or (``distinct``) all equal.
    """
    defined(value, name)
    if not isinstance(shape, tuple) or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise TypeError(f"shape must be a tuple of nonnegative ints, got {shape!r}")
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise AssertionError(f"`{name}` must be an array of numbers of shape {shape}") from None
    if a.shape != shape:
        draws = f" ({shape[0]} values)" if len(shape) == 1 else ""
        raise AssertionError(f"`{name}` has shape {a.shape}: the question asks for shape {shape}{draws}")
    if not np.all(np.isfinite(a)):
        raise AssertionError(f"`{name}` holds a NaN or an infinite value")
    _in_range(a, name, low, high, why)
    if distinct and a.size > 1 and np.all(a == a.flat[0]):
        raise AssertionError(f"the values of `{name}` are all equal: each must come from its own seed")
    return a


def mapping(value: Any, name: str, keys: Iterable[str]) -> Mapping:
    """``value``, checked to be a dictionary with exactly the ``keys`` the question names.

    Parameters
    ----------
    value : object
        The student's answer.
    name : str
        Its name, shown in the messages.
    keys : iterable of str
        The keys the question asks for.

    Returns
    -------
    Mapping

    Raises
    ------
    AssertionError
        When the value is not defined, not a dictionary, or has other keys.
    """
    defined(value, name)
    wanted = sorted(keys)
    if not isinstance(value, Mapping):
        raise AssertionError(f"`{name}` is a {type(value).__name__}: the question asks for a dictionary")
    if sorted(value) != wanted:
        raise AssertionError(f"`{name}` has the keys {sorted(value)}: the question asks for {wanted}")
    return value


def function(value: Any, name: str, args: Sequence) -> float:
    """The number ``value(*args)``, checking that ``value`` is a function giving one real number there.

    Parameters
    ----------
    value : object
        The student's function.
    name : str
        Its name, shown in the messages.
    args : sequence
        The arguments of one call.

    Returns
    -------
    float

    Raises
    ------
    AssertionError
        When ``value`` is not defined, not callable, fails at ``args`` or returns no finite number.
    """
    defined(value, name)
    if not callable(value):
        raise AssertionError(f"`{name}` is a {type(value).__name__}: the question asks for a function")
    call = f"{name}{tuple(args)}"
    try:
        result = value(*args)
    except Exception as exc:  # the student's code: any error is reported, not raised
        raise AssertionError(f"`{call}` raised {type(exc).__name__}: {exc}") from None
    if result is None:
        raise AssertionError(
            f"`{call}` returned None: its body is still `...`: replace it with your formula, after a `return`"
        )
    return number(result, call)


def _name(name: Any) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a nonempty str, got {name!r}")


def _in_range(a: np.ndarray, name: str, low: float | None, high: float | None, why: str) -> None:
    if low is not None and np.any(a < low - 1e-9 * abs(low)):
        bad = float(a[a < low - 1e-9 * abs(low)][0])
        raise AssertionError(f"`{name}` holds {bad:.4g}, below {low:g}{_why(why)}")
    if high is not None and np.any(a > high + 1e-9 * abs(high)):
        bad = float(a[a > high + 1e-9 * abs(high)][0])
        raise AssertionError(f"`{name}` holds {bad:.4g}, above {high:g}{_why(why)}")


def _why(why: str) -> str:
    return f": {why}" if why else ""


# ------------------------------------------------------------------ the notebook's checks
def report(question: str, n_public: int, failures: Sequence[str], points: float | None, hidden: bool) -> str:
    """What a student reads about the public checks of one question (the notebook and Otter alike).

    Parameters
    ----------
    question : str
        The question's name (``"q1"``).
    n_public : int
        How many public checks it has.
    failures : sequence of str
        The messages of the checks that failed.
    points : float or None
        The points of the question, given by its hidden tests.
    hidden : bool
        Whether it has hidden tests.

    Returns
    -------
    str
    """
    if failures:
        lines = [f"{question}: {len(failures)} of {n_public} public checks failed. Fix this before you submit:"]
        return "\n".join(lines + [f"  - {message}" for message in failures])
    if not hidden:
        return f"{question}: the checks pass ({n_public} of {n_public}), and all of them are public."
    worth = f" ({points:g} point{'' if points == 1 else 's'})" if points else ""
    return (
        f"{question}: the public checks pass ({n_public} of {n_public}). They do not grade your answer: its points{worth} "
        "come with the grade, from hidden tests run when your notebook is graded."
    )


class CheckReport:
    """The result of ``grader.check(question)``: ``passed``, the failed checks' ``failures``, and the
    text of :func:`report` as its representation in the notebook."""

    def __init__(self, question: str, n_public: int, failures: list[str], points: float | None):
        self.question, self.n_public, self.failures, self.points = question, n_public, failures, points
        self.passed = not failures

    def __repr__(self) -> str:
        return report(self.question, self.n_public, self.failures, self.points, hidden=True)


class PublicChecks:
    """The public checks of a students' notebook: ``grader.check("q1")`` below the answer to question 1.

    The checks are the public test functions of the set's master (the same Otter runs when it grades),
    registered with :meth:`case`.  A check reads the names of its parameters from the notebook's
    namespace (``None`` for a missing name, as Otter does) and fails by raising an exception.

    Parameters
    ----------
    namespace : dict
        The notebook's global namespace (``globals()``).
    points : dict
        The points of each question, ``{"q1": 2, ...}``.
    """

    def __init__(self, namespace: dict, points: Mapping[str, float]):
        if not isinstance(namespace, dict):
            raise TypeError(f"namespace must be a dict (the notebook's globals()), got {type(namespace).__name__}")
        if not isinstance(points, Mapping) or not all(isinstance(p, _numbers.Real) for p in points.values()):
            raise TypeError(f"points must map each question to its points, got {points!r}")
        self.namespace, self.points = namespace, dict(points)
        self.cases: dict[str, list[Callable]] = {q: [] for q in self.points}
        #: the last report of each question checked
        self.results: dict[str, CheckReport] = {}

    def case(self, question: str) -> Callable[[Callable], Callable]:
        """A decorator registering a public check of ``question``."""
        self._question(question)

        def register(check: Callable) -> Callable:
            if not callable(check):
                raise TypeError(f"a check must be a function, got {type(check).__name__}")
            self.cases[question].append(check)
            return check

        return register

    def check(self, question: str) -> CheckReport:
        """Run the public checks of ``question``; the report says which failed.

        Parameters
        ----------
        question : str
            ``"q1"``, ``"q2"``, ...

        Returns
        -------
        CheckReport
        """
        self._question(question)
        failures = []
        for case in self.cases[question]:
            args = {
                p: self.namespace if p == "env" else self.namespace.get(p) for p in inspect.signature(case).parameters
            }
            try:
                case(**args)
            except AssertionError as exc:
                failures.append(str(exc) or f"{case.__name__} failed")
            except Exception as exc:  # a check that cannot run on this answer fails, with the reason
                failures.append(f"{case.__name__} could not run: {type(exc).__name__}: {exc}")
        result = CheckReport(question, len(self.cases[question]), failures, self.points[question])
        self.results[question] = result
        return result

    def check_all(self) -> list[CheckReport]:
        """:meth:`check` every question, in order."""
        return [self.check(q) for q in self.cases]

    def _question(self, question: Any) -> None:
        if question not in self.cases:
            raise ValueError(f"question must be one of {sorted(self.cases)}, got {question!r}")


# ------------------------------------------------------------------ the hidden tests of a closed form
def closed_form_values(
    func: Any, name: str, points: Sequence[Sequence], *, forbid: Sequence[str] = ("seqrmt",)
) -> list[float]:
    """The values of a student's closed form at ``points``, if it computes them itself.

    Every Python function called while ``func`` runs is watched (``sys.setprofile``): a call into a
    module of ``forbid`` (``"seqrmt"``: any function of the package, however it was imported;
    ``"numpy.linalg"``: an eigenvalue solver) fails the test with the rule in its message.

    Parameters
    ----------
    func : callable
        The student's function.
    name : str
        Its name, shown in the messages.
    points : sequence of argument tuples
        Where to evaluate it.
    forbid : sequence of str
        Module prefixes a closed form may not call.

    Returns
    -------
    list of float

    Raises
    ------
    AssertionError
        When ``func`` calls a forbidden module, fails, or gives no finite number.
    """
    defined(func, name)
    if not callable(func):
        raise AssertionError(f"`{name}` is a {type(func).__name__}: the question asks for a function")
    if isinstance(forbid, str) or not all(isinstance(f, str) and f for f in forbid):
        raise TypeError(f"forbid must be a sequence of module names, got {forbid!r}")
    calls: list[str] = []

    def watch(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            if module != __name__ and any(module == f or module.startswith(f + ".") for f in forbid):
                calls.append(f"{module}.{frame.f_code.co_name}")

    results = []
    for args in points:
        previous = sys.getprofile()
        sys.setprofile(watch)
        try:
            results.append(func(*args))
        except Exception as exc:  # the student's code: any error is reported as a failed test
            raise AssertionError(f"`{name}{tuple(args)}` raised {type(exc).__name__}: {exc}") from None
        finally:
            sys.setprofile(previous)
        if calls:
            raise AssertionError(
                f"`{name}` calls {calls[0]}. The rule of a closed-form question: the function computes the "
                f"formula you derived itself (arithmetic and NumPy) and may not call {' or '.join(forbid)}, "
                "which computes what it is compared with; this part scores 0."
            )
    return [number(r, f"{name}{tuple(args)}") for r, args in zip(results, points)]


# ------------------------------------------------------------------ the grader's visible results
def _failure(message: str | None) -> str:
    """The reason of a failed Otter test case: its exception's message, without Otter's frame."""
    lines = (message or "").strip().splitlines()
    for line in reversed(lines):
        match = re.match(r"^(\w+(?:Error|Exception)): ?(.*)$", line.strip())
        if match:
            return match.group(2) if match.group(1) == "AssertionError" and match.group(2) else line.strip()
    return lines[-1].strip() if lines else "a public check failed"


def public_summary(results: Any, public_only: bool = False) -> str:
    """``GradingResults.summary`` with an honest public part (see :class:`HonestPublicTests`)."""
    if not public_only or results.has_catastrophic_failure():
        return type(results).summary(results, public_only=public_only)
    parts = []
    for name, test_file in results.results.items():
        public = [r for r in test_file.test_case_results if not r.test_case.hidden]
        failures = [_failure(r.message) for r in public if not r.passed]
        hidden = any(tc.hidden for tc in test_file.test_cases)
        parts.append(report(name, len(public), failures, test_file.possible, hidden))
    return "\n\n".join(parts)


class HonestPublicTests:
    """An Otter plugin: the visible "Public Tests" of a graded submission say what the notebook says.

    Otter summarizes the public test cases of each question as "All test cases passed!" as soon as
    they pass, even when the hidden tests that give the points fail; on Gradescope, which shows the
    public results before the grades are published, a student would read that and lose the points.
    With this plugin (``otter_config.json``: ``"plugins": ["seqrmt._problem_checks.HonestPublicTests"]``)
    the public summary is :func:`report` for each question: the public checks that failed, or that
    the points come from hidden tests graded later.  The per-question results (published with the
    grade) are Otter's own.

    Parameters
    ----------
    submission_path, submission_metadata, plugin_config
        What Otter passes to every plugin (unused).
    """

    def __init__(self, submission_path: str = "", submission_metadata: Any = None, plugin_config: Any = None):
        self.submission_path = submission_path

    def after_grading(self, results: Any) -> None:
        """Give ``results`` the honest public summary (Otter calls this after the tests ran)."""
        if not hasattr(results, "results") or not hasattr(results, "summary"):
            raise TypeError(f"results must be Otter's GradingResults, got {type(results).__name__}")
        results.summary = types.MethodType(public_summary, results)
