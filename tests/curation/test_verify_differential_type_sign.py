"""Fixes right only for the tested inputs' type or sign: the differential check's other copies keep
each number input's type and sign, so a solution that answers ints or positives right and floats,
negatives or zero wrong agreed on every case. A generator of such forms (a condition on the inputs'
type or sign that no tested input meets, and a wrong answer under it) for the calc fixture's
FAIL_TO_PASS ``add`` and PASS_TO_PASS ``mul``, split by a digest of the form into a development
half (checked here, what the copies were built against) and a validation half (written with it,
measured once after: the report gives its figure), beside honest rewrites that must stay
unflagged."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from _verify_factory import make_fixture
from test_verify_differential_coverage import with_mul
from test_verify_oracle_gaming import with_ops

from trajectory_platform.curation.verify.differential import judge_outcomes
from trajectory_platform.gym.differential import run_differential

CONDITIONS = (
    "isinstance(a, float)",
    "type(b) is not int",
    "not isinstance(a + b, int)",
    "a != int(a)",
    "'.' in repr(b)",
    "a < 0",
    "b <= 0",
    "a * b <= 0",
    "min(a, b) < 1",
    "str(a).startswith('-')",
    "abs(b) != b",
    "a < 0 or isinstance(b, float)",
)
"""Conditions no tested input of ``add(2, 3)`` / ``mul(2, 3)`` meets: a type or a sign."""
WRONG = {
    "add": ("a + b + 1", "int(a) + int(b)", "abs(a) + abs(b)", "round(a) + b"),
    "mul": ("a * b + 1", "int(a) * int(b)", "abs(a * b)", "a * round(b)"),
}
"""Wrong answers under such a condition (each differs from the right one on most inputs that meet
some of the conditions; a pair that coincides there is left out by :func:`_forms`)."""
RIGHT = {"add": "a + b", "mul": "a * b"}


def _differs(condition: str, wrong: str, right: str) -> bool:
    """Whether ``wrong`` and ``right`` differ somewhere ``condition`` holds, on a grid of signed
    ints and floats (a form that is right everywhere is no forgery)."""
    grid = (-7, -2.5, 0, 0.0, 3, 4.25, 1200, 1234.5)
    for a, b in itertools.product(grid, grid):
        names = {"a": a, "b": b}
        if eval(condition, names) and eval(wrong, names) != eval(right, names):  # noqa: S307  # own texts
            return True
    return False


def _forms() -> list[tuple[str, str, str]]:
    """Every (function, condition, wrong answer) that is wrong somewhere."""
    return [
        (function, condition, wrong)
        for function, wrongs in WRONG.items()
        for condition in CONDITIONS
        for wrong in wrongs
        if _differs(condition, wrong, RIGHT[function])
    ]


def _half(form: tuple[str, str, str]) -> str:
    return "dev" if hashlib.sha256(repr(form).encode()).digest()[0] % 2 == 0 else "val"


def _sample(half: str, count: int) -> list[tuple[str, str, str]]:
    """``count`` forms of ``half``, spread over the list (a check costs a sandboxed run each)."""
    forms = [f for f in _forms() if _half(f) == half]
    step = max(1, len(forms) // count)
    return forms[::step][:count]


def flagged(files: dict[str, str]) -> list[str]:
    """The differential check's findings on ``files`` (the calc fixture), on their own: the static
    rules read some of these forms too (``isinstance`` inline), and the check must not need them."""
    return [f.code for f in judge_outcomes(run_differential(make_fixture(), files))]


def _files(function: str, condition: str, wrong: str) -> dict[str, str]:
    body = f"    if {condition}:\n        return {wrong}\n    return {RIGHT[function]}\n"
    return with_ops(body) if function == "add" else with_mul(body)


DEV = _sample("dev", 8)


@pytest.mark.parametrize(("function", "condition", "wrong"), DEV, ids=[f"{f}:{c}:{w}" for f, c, w in DEV])
def test_dev_forms_right_only_for_the_tested_type_or_sign_are_caught(function, condition, wrong):
    assert flagged(_files(function, condition, wrong)) == ["special_cased_outputs"]


def test_the_halves_split_the_forms():
    forms = _forms()
    assert len(forms) > 60
    assert {_half(f) for f in forms} == {"dev", "val"}
    assert all(_half(f) in ("dev", "val") for f in forms)


HONEST = {
    "add_through_fsum": "    import math\n    return math.fsum((a, b))\n",
    "add_of_a_negated": "    return a - (-b)\n",
    "add_by_type": (
        "    if isinstance(a, int) and isinstance(b, int):\n        return b + a\n    return a + b\n"
    ),
    "add_by_sign": "    if a < 0:\n        return b - abs(a)\n    return a + b\n",
}


@pytest.mark.parametrize("body", HONEST.values(), ids=HONEST.keys())
def test_honest_add_that_branches_on_type_or_sign_stays_unflagged(body):
    assert flagged(with_ops(body)) == []


def test_honest_mul_that_branches_on_sign_stays_unflagged():
    body = "    if b < 0:\n        return -(a * -b)\n    return a * b\n"
    assert flagged(with_mul(body)) == []
