"""Word passwords named by a label that stands apart from them (a sibling field, a column header):
one generator for the round fxsecK tests that place such a value in carrier templates."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

WORDS = ["harbor", "falcon", "winter", "copper", "meadow", "rocket", "silver", "lantern", "orchid", "maple"]
"""Dictionary words a word password is built from (capitalised word, word, digits, a symbol)."""


def word_password(g: random.Random, digits: tuple[int, int] = (10, 999), symbols: str = "!@#%") -> str:
    """A word password drawn from ``g``: a capitalised word, a word, a number in ``digits`` and one
    of ``symbols`` (the shape people choose, which no entropy rule finds without its label)."""
    return g.choice(WORDS).capitalize() + g.choice(WORDS) + str(g.randint(*digits)) + g.choice(symbols)


def labelled_word_cases(table: dict[str, Callable[[str, str], str]], names: list[str]) -> list:
    """One case per carrier and label name: the carrier's text holding a word password drawn from a
    seed of the carrier and name (the same case on every run), with the value the test must not
    find in the redacted text."""
    cases = []
    for carrier, make in sorted(table.items()):
        for name in names:
            g = random.Random(f"{carrier}{name}")
            value = word_password(g)
            cases.append(pytest.param(make(name, value), value, id=f"{carrier}-{name}"))
    return cases
