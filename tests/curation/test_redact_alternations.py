"""A gated alternation (:mod:`.alternations`) finds what the plain pattern finds, where it finds it."""

import random
import re

import pytest

from trajectory_platform.curation.redact.alternations import (
    first_characters,
    gated_alternation,
    top_level_alternatives,
)
from trajectory_platform.curation.redact.credential_names import _KEYWORDS, KEYWORD_SCAN


@pytest.mark.parametrize(
    ("pattern", "firsts"),
    [
        ("ab|cd", {"a", "c"}),
        ("ab|[c-e]f|(?:g|h)i", {"a", "c", "d", "e", "g", "h"}),
        ("x(?:y|z)", {"x"}),
        ("[şs]ifre|пароль", {"ş", "s", "п"}),
        ("a?b", None),  # the first item may match nothing
        (r"\w*?key", None),
        (r"\sx|y", None),  # a category
        ("[^a]b", None),
        ("(?i:a)b", None),  # a group that changes flags
        ("^ab", None),
    ],
)
def test_first_characters_are_read_from_the_first_items_or_not_at_all(pattern, firsts):
    assert first_characters(pattern) == (None if firsts is None else frozenset(firsts))


_PIECES = (
    "pas",
    "pa",
    "sw",
    "ord",
    "se",
    "cret",
    "o",
    "b",
    "q",
    "z",
    "token",
    "ke",
    "y",
    "mot de",
    "\n",
    " ",
    "_",
    "ş",
    "ifre",
    "ключ",
    "A",
    "e",
)


def _texts(seed: int):
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randrange(0, 60))) for _ in range(40)]


_ALTERNATIONS = (
    _KEYWORDS,
    "ab|[c-e]f|(?:g|h)i|x(?:y|z)",
    "secret|se|secreto|[sş]ab|s|şx|a+b|ab",  # prefixes of each other; heads shared with a class
    "pa|p|[pq]a[\\s_]?z|q",
    "(a)b|ac",  # a capturing group: no branches
)


@pytest.mark.parametrize("seed", range(6))
def test_a_gated_alternation_finds_the_plain_patterns_matches(seed):
    for pattern in _ALTERNATIONS:
        plain, gated = re.compile(pattern), gated_alternation(pattern)
        for text in [*_texts(seed), "secreto sab şab şx aab pa\nz qa z"]:
            assert [m.span() for m in gated.finditer(text)] == [m.span() for m in plain.finditer(text)]


@pytest.mark.parametrize(
    ("pattern", "parts"),
    [
        ("a|b", ["a", "b"]),
        ("a(?:b|c)|d", ["a(?:b|c)", "d"]),
        ("[|]x|\\|y|[]|]z", ["[|]x", "\\|y", "[]|]z"]),
    ],
)
def test_alternatives_are_split_outside_groups_classes_and_escapes(pattern, parts):
    assert top_level_alternatives(pattern) == parts


def test_the_credential_word_scan_is_gated_and_branched_by_first_characters():
    """Every rule that looks for a credential word runs this scan over whole texts and views."""
    assert KEYWORD_SCAN.pattern.startswith("(?=[") and "|s(?:ecret|" in KEYWORD_SCAN.pattern
    assert gated_alternation(r"\w+|x").pattern == r"\w+|x"  # no gate where the firsts are unknown
    assert gated_alternation("(a)b|ac").pattern == "(?=[a])(?:(a)b|ac)"


_FOLDS = ("K", "\u212a", "k", "S", "\u017f", "s", "I", "\u0130", "\u0131", "i", "J", "C", "\u00c5", "\u212b")
"""Characters ``re`` folds case-insensitively beyond ASCII's pairs (the Kelvin sign, the long s,
the dotted and dotless i, the angstrom sign), beside the letters they fold with."""
_ANY_CASE = (
    "join|concat|implode|%[sv]|\\{\\d*\\}",
    "key|secret|ſx|[kK]ey|isi|å",
    "ab|[c-e]f|(?:g|h)i",
)


@pytest.mark.parametrize("seed", range(4))
def test_a_case_insensitive_gate_finds_the_plain_patterns_matches(seed):
    """The gate's class folds as the literals do, so it admits every start (fails before: no flags)."""
    rng = random.Random(seed)
    pieces = (
        *_PIECES,
        *_FOLDS,
        "OIN",
        "oin",
        "ONCAT",
        "mplode",
        "%S",
        "%v",
        "{12}",
        "{",
        "}",
        "EY",
        "ecret",
        "x",
    )
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 60))) for _ in range(60)]
    for pattern in _ANY_CASE:
        plain, gated = re.compile(pattern, re.IGNORECASE), gated_alternation(pattern, re.IGNORECASE)
        assert gated.pattern.startswith("(?=[")
        for text in texts:
            assert [m.span() for m in gated.finditer(text)] == [m.span() for m in plain.finditer(text)]


@pytest.mark.parametrize("seed", range(4))
def test_a_lookbehind_is_tried_after_the_gate_with_the_same_matches(seed):
    """A leading lookbehind would hide the gate from ``re`` (fails before: no lookbehind)."""
    behind = "(?<![a-z0-9])"
    for pattern in _ALTERNATIONS:
        plain, gated = re.compile(f"{behind}(?:{pattern})"), gated_alternation(pattern, lookbehind=behind)
        assert gated.pattern.startswith("(?=[") == (first_characters(pattern) is not None)
        for text in [*_texts(seed), "xsecret 1pa pa _q"]:
            assert [m.span() for m in gated.finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_only_ignorecase_is_a_gated_alternations_flag():
    with pytest.raises(ValueError):
        gated_alternation("a|b", re.MULTILINE)
