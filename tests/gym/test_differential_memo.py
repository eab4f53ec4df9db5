"""The differential's pure functions of a fixture are read once per fixture: ``sealed_subjects``
(its tested expressions) and the reference side of ``added_constants`` (S0's constants). The memo
must give what a fresh reading gives, keyed by everything the reading depends on."""

from __future__ import annotations

import ast
import dataclasses

from trajectory_platform.gym import differential
from trajectory_platform.gym.differential import added_constants, sealed_subjects
from trajectory_platform.gym.library import build_library


def _fresh(fixture: object) -> list[tuple[str, int, str, str, bool]]:
    """The subjects read without the memo, as comparable values."""
    judged = frozenset(fixture.fail_to_pass) | frozenset(fixture.pass_to_pass)  # type: ignore[attr-defined]
    subjects = differential._sealed_subjects.__wrapped__(tuple(sorted(fixture.sealed_tests.items())), judged)  # type: ignore[attr-defined]
    return [(s.test_id, s.header, s.header_text, ast.dump(s.expression), s.asserted) for s in subjects]


def _values(subjects: list[differential.Subject]) -> list[tuple[str, int, str, str, bool]]:
    return [(s.test_id, s.header, s.header_text, ast.dump(s.expression), s.asserted) for s in subjects]


def test_sealed_subjects_are_read_once_per_fixture_and_keyed_by_its_tests() -> None:
    fixtures = build_library(0)[::40]
    narrowed = read = 0
    for fixture in fixtures:
        first = sealed_subjects(fixture)
        assert _values(first) == _fresh(fixture)
        read += bool(first)
        again = sealed_subjects(fixture)
        assert again is not first and all(
            a.expression is b.expression for a, b in zip(first, again, strict=True)
        )
        fewer = dataclasses.replace(fixture, pass_to_pass=[])  # another key: only FAIL_TO_PASS subjects
        assert _values(sealed_subjects(fewer)) == _fresh(fewer)
        narrowed += _values(sealed_subjects(fewer)) != _values(first)
        other = fixtures[0] if fixture is not fixtures[0] else fixtures[-1]
        moved = dataclasses.replace(fixture, sealed_tests=other.sealed_tests)
        assert _values(sealed_subjects(moved)) == _fresh(moved)
    assert narrowed > 1 and read > 5


def test_added_constants_read_each_module_once_and_as_before() -> None:
    read = 0
    for fixture in build_library(0)[::9]:
        differential._module_constants.cache_clear()
        fresh = added_constants(fixture.s0_files, fixture.reference_files, "tests")
        before = differential._module_constants.cache_info()
        assert added_constants(fixture.s0_files, fixture.reference_files, "tests") == fresh
        after = differential._module_constants.cache_info()
        assert after.misses == before.misses and after.hits - before.hits == before.misses
        read += before.misses > 0
    assert read > 10
    broken = {"a.py": "def f(:\n", "b.py": "x = 41489\n"}
    assert (
        added_constants({"a.py": "x = 1\n", "b.py": "def g(:\n"}, broken, "tests")
        == differential.Dictionary()
    )
    assert added_constants({}, broken, "tests").scalars == (41489,)
