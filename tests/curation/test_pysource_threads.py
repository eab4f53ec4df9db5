"""Verification parses Python from its worker threads: CPython 3.11's AST constructor shares its
recursion depth across threads, so parses interleaved by a finalizer raise SystemError unless
serialized (python/cpython#106905), and a parse we do not own (3.11's traceback carets) can still
interrupt one, which is then tried again. The stress below reproduces it on a bare ``ast.parse``."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from _verify_factory import make_fixture

from trajectory_platform.curation.verify import pysource
from trajectory_platform.curation.verify.edit_lint import lint
from trajectory_platform.gym.differential import sealed_subjects
from trajectory_platform.gym.python_trees import parse_tree

SOURCE = Path(pysource.__file__).read_text()


class _Finalized:
    """A cycle member whose finalizer runs Python code when the collector frees it mid-parse."""

    def __del__(self) -> None:
        sum(range(50))


def _errors_when_threads_parse(
    parse: Callable[[str], object], seconds: float = 1.5, outsiders: int = 0
) -> list[BaseException]:
    """SystemErrors ``parse`` raised in 4 threads parsing under finalizer churn, beside
    ``outsiders`` threads running a bare ``ast.parse`` (as 3.11's traceback formatting does). Each
    parse is of a text of its own, so a memo of the parse (``parse_python``'s, ``sealed_subjects``')
    never answers in its place."""
    errors: list[BaseException] = []
    stop = threading.Event()
    texts = itertools.count()

    def outsider() -> None:
        while not stop.is_set():
            try:
                ast.parse(SOURCE)
            except SystemError:
                continue

    def work() -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not errors:
            junk = [_Finalized() for _ in range(10)]
            for item in junk:
                item.self = item  # type: ignore[attr-defined]
            del junk
            try:
                parse(f"{SOURCE}\n# {next(texts)}\n")
            except SystemError as exc:
                errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        others = [threading.Thread(target=outsider) for _ in range(outsiders)]
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in [*others, *threads]:
            thread.start()
        for thread in threads:
            thread.join()
        stop.set()
        for thread in others:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    return errors


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the race is CPython 3.11's")
def test_the_stress_reproduces_the_race_on_a_bare_parse() -> None:
    assert _errors_when_threads_parse(ast.parse, seconds=4.0), "the stress no longer shows the race"


def _sealed_subjects(source: str) -> object:
    """The differential check's parse of a fixture's sealed tests (the CI failure of 11:41)."""
    return sealed_subjects(dataclasses.replace(make_fixture(), sealed_tests={"tests/test_x.py": source}))


@pytest.mark.parametrize(
    "parse", [pysource.parse_python, pysource.parse_module, lint, parse_tree, _sealed_subjects]
)
def test_parsing_from_worker_threads_never_raises(parse: Callable[[str], object]) -> None:
    assert _errors_when_threads_parse(parse) == []


def test_a_parse_interrupted_by_one_we_do_not_own_is_tried_again() -> None:
    assert _errors_when_threads_parse(pysource.parse_module, outsiders=1) == []
