"""A gated alternation (:mod:`.alternations`) finds what the plain pattern finds, where it finds it."""

import random
import re

import pytest

from trajectory_platform.curation.redact.alternations import first_characters, gated_alternation
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


@pytest.mark.parametrize("seed", range(6))
def test_a_gated_alternation_finds_the_plain_patterns_matches(seed):
    plain = re.compile(_KEYWORDS)
    for text in _texts(seed):
        assert [m.span() for m in KEYWORD_SCAN.finditer(text)] == [m.span() for m in plain.finditer(text)]
    nested = "ab|[c-e]f|(?:g|h)i|x(?:y|z)"
    for text in ("abcfgixz" * 3, "aabbccdfhhi", ""):
        gated = gated_alternation(nested)
        assert [m.span() for m in gated.finditer(text)] == [m.span() for m in re.finditer(nested, text)]


def test_the_credential_word_scan_is_gated_by_its_first_characters():
    """Every rule that looks for a credential word runs this scan over whole texts and views."""
    assert KEYWORD_SCAN.pattern.startswith("(?=[") and KEYWORD_SCAN.pattern.endswith(f"(?:{_KEYWORDS})")
    assert gated_alternation(r"\w+|x").pattern == r"\w+|x"  # no gate where the firsts are unknown
