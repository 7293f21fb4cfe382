"""The public checks and grading rules of the problem sets (``seqrmt/_problem_checks.py``), on their own:
the messages a student reads, the notebook's ``grader``, the closed-form rule and the Otter plugin's
public summary (with stand-ins for Otter's results; the sets' own tests use Otter's)."""

from __future__ import annotations

import types

import numpy as np
import pytest

import seqrmt as sr
from seqrmt import _problem_checks as pc


def test_defined_says_what_to_do_with_a_blank_or_a_missing_answer():
    with pytest.raises(AssertionError, match=r"`x` is still `...`: replace"):
        pc.defined(..., "x")
    with pytest.raises(AssertionError, match=r"`x` is not defined: run the cell"):
        pc.defined(None, "x")
    assert pc.defined(0, "x") == 0
    with pytest.raises(TypeError, match="name"):
        pc.defined(1, "")


def test_number_checks_type_finiteness_and_range():
    assert pc.number(np.float64(0.25), "x", low=0, high=1) == 0.25
    assert pc.number(np.array(3), "x") == 3.0
    for bad, message in [
        (True, "a bool"),
        ([1, 2], "one number"),
        (1 + 2j, "real part"),
        ("1", "a str"),
        (float("nan"), "finite"),
        (-0.5, "below 0: why"),
        (1.5, "above 1: why"),
    ]:
        with pytest.raises(AssertionError, match=message):
            pc.number(bad, "x", low=0, high=1, why="why")


def test_array_checks_shape_range_and_distinct_draws():
    a = pc.array([1, 2, 3], "tops", (3,), low=0, distinct=True)
    assert a.dtype == float and a.shape == (3,)
    with pytest.raises(AssertionError, match=r"shape \(2,\): the question asks for shape \(3,\) \(3 values\)"):
        pc.array([1, 2], "tops", (3,))
    with pytest.raises(AssertionError, match="all equal"):
        pc.array([1, 1, 1], "tops", (3,), distinct=True)
    with pytest.raises(AssertionError, match="array of numbers"):
        pc.array(["a", "b"], "tops", (2,))
    with pytest.raises(AssertionError, match="NaN"):
        pc.array([1, np.nan], "tops", (2,))
    with pytest.raises(TypeError, match="shape"):
        pc.array([1], "tops", 1)


def test_mapping_and_function():
    assert pc.mapping({"a": 1, "b": 2}, "d", ["b", "a"]) == {"a": 1, "b": 2}
    with pytest.raises(AssertionError, match=r"has the keys \['a'\]"):
        pc.mapping({"a": 1}, "d", ["a", "b"])
    with pytest.raises(AssertionError, match="dictionary"):
        pc.mapping([1], "d", ["a"])
    assert pc.function(lambda x, y: x * y, "f", (2, 3)) == 6.0
    with pytest.raises(AssertionError, match="a function"):
        pc.function(3, "f", (1,))
    with pytest.raises(AssertionError, match=r"`f\(0,\)` raised ZeroDivisionError"):
        pc.function(lambda x: 1 / x, "f", (0,))
    with pytest.raises(AssertionError, match="still"):
        pc.function(..., "f", (1,))
    with pytest.raises(AssertionError, match=r"returned None: its body is still `...`: replace"):
        pc.function(lambda x: None, "f", (1,))


def test_public_checks_read_the_namespace_and_report_honestly():
    ns = {"x": ...}
    grader = pc.PublicChecks(ns, points={"q1": 2})

    @grader.case("q1")
    def public_q1(x, missing):
        pc.number(x, "x", low=0)
        assert missing is None

    failed = grader.check("q1")
    assert not failed.passed and "1 of 1 public checks failed" in repr(failed) and "still `...`" in repr(failed)
    ns["x"] = 3.0
    passed = grader.check("q1")
    assert passed.passed and grader.results["q1"] is passed
    assert (
        "public checks pass" in repr(passed) and "(2 points)" in repr(passed) and "come with the grade" in repr(passed)
    )
    assert "All test cases passed" not in repr(passed)
    assert [r.passed for r in grader.check_all()] == [True]

    @grader.case("q1")
    def broken(x):
        raise KeyError("k")

    assert "broken could not run: KeyError" in repr(grader.check("q1"))
    with pytest.raises(ValueError, match="question"):
        grader.check("q9")
    with pytest.raises(ValueError, match="question"):
        grader.case("q9")
    with pytest.raises(TypeError, match="namespace"):
        pc.PublicChecks([], points={})
    with pytest.raises(TypeError, match="points"):
        pc.PublicChecks({}, points={"q1": "two"})


def test_closed_form_values_refuse_the_library_however_it_is_called():
    from seqrmt import population_threshold as alias

    points = [(0.5, 1.0), (2.0, 0.25)]
    by_hand = pc.closed_form_values(lambda d, k: k * (d + np.sqrt(d)), "theta_pop", points)
    assert np.allclose(by_hand, [sr.population_threshold(*p) for p in points])
    for cheat in (
        lambda d, k: sr.population_threshold(d, k),
        lambda d, k: alias(d, k),
        lambda d, k: sr.predict(d, 0.5, sr.mean_weights(4), np.eye(4), 1.0) and k * (d + np.sqrt(d)),
    ):
        with pytest.raises(AssertionError, match=r"calls seqrmt\..*The rule of a closed-form question"):
            pc.closed_form_values(cheat, "theta_pop", points)
    eig = lambda T, L: np.linalg.eigvalsh(np.eye(T)).max()  # noqa: E731
    assert pc.closed_form_values(eig, "f", [(3, 1)]) == [1.0]  # numpy.linalg is allowed unless forbidden
    with pytest.raises(AssertionError, match=r"calls numpy\.linalg"):
        pc.closed_form_values(eig, "f", [(3, 1)], forbid=("seqrmt", "numpy.linalg"))
    with pytest.raises(AssertionError, match="raised ZeroDivisionError"):
        pc.closed_form_values(lambda d, k: 1 / 0, "theta_pop", points)
    with pytest.raises(AssertionError, match="a function"):
        pc.closed_form_values(2.0, "theta_pop", points)
    with pytest.raises(TypeError, match="forbid"):
        pc.closed_form_values(abs, "f", [(1,)], forbid="seqrmt")


def _results(cases: dict[str, list[tuple[bool, bool, str]]]):
    """A stand-in for Otter's GradingResults: ``{question: [(hidden, passed, message)]}``."""

    class Results:
        def __init__(self):
            self.results = {}
            for q, rows in cases.items():
                tcs = [types.SimpleNamespace(hidden=h, points=0 if not h else 1) for h, _, _ in rows]
                self.results[q] = types.SimpleNamespace(
                    test_cases=tcs,
                    test_case_results=[
                        types.SimpleNamespace(test_case=tc, passed=p, message=m) for tc, (_, p, m) in zip(tcs, rows)
                    ],
                    possible=sum(tc.points for tc in tcs),
                )

        def has_catastrophic_failure(self):
            return False

        def summary(self, public_only=False):
            return "q1 results: All test cases passed!"

    return Results()


def test_the_plugin_makes_the_public_summary_honest():
    otter_message = (
        "❌ Test case failed\nError at line 3 in test q2:\n    number(N_c)\nAssertionError: `N_c` is still `...`"
    )
    results = _results(
        {
            "q1": [(False, True, "ok"), (True, False, "❌ Test case failed\nAssertionError: wrong")],
            "q2": [(False, False, otter_message), (True, False, "x")],
        }
    )
    pc.HonestPublicTests("", {}, {}).after_grading(results)
    public = results.summary(public_only=True)
    assert "All test cases passed" not in public
    q1, q2 = public.split("\n\n")
    assert q1.startswith("q1: the public checks pass (1 of 1)") and "(1 point)" in q1 and "come with the grade" in q1
    assert q2.startswith("q2: 1 of 1 public checks failed") and "`N_c` is still `...`" in q2 and "Error at" not in q2
    assert results.summary() == "q1 results: All test cases passed!"  # the full results are Otter's own
    with pytest.raises(TypeError, match="results"):
        pc.HonestPublicTests().after_grading(object())


def test_failure_reasons_from_otter_messages():
    assert pc._failure("❌ Test case failed\nError at line 1 in test q1:\n  x\nAssertionError: ") == "AssertionError:"
    assert pc._failure("❌ x\nTypeError: bad") == "TypeError: bad"
    assert pc._failure(None) == "a public check failed"
