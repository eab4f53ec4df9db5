"""The decoders' cheap gates (:data:`.decoders.DECODERS`) that are word alternations pass exactly the
texts their plain patterns passed: gated by first characters, they only skip positions no match
starts at."""

import random
import re

import pytest

from trajectory_platform.curation.redact import decoders
from trajectory_platform.curation.redact.decoders import decoded_views

_PLAIN = {
    "joined": (decoders._JOINED_HINT, re.compile(r"(?i)join|concat|implode|%[sv]|\{\d*\}"), str),
    "rot13": (decoders._ROT13_MARK, re.compile(rf"(?<![a-z0-9])(?:{decoders._ROT13_WORDS})"), str.lower),
    "markdown": (
        decoders._MARKDOWN_HINT,
        re.compile(r"`|\*\*|__|</?(?:b|strong|em|code)>|(?<!\w)[*_]\w|\w\\[_*]"),
        str,
    ),
}
"""Each gate beside the pattern it replaced (session 47's main) and what the gate searches."""

_PIECES = (
    "a",
    "Z",
    "9",
    " ",
    "\n",
    "_",
    "*",
    "`",
    "\\",
    "<",
    ">",
    "/",
    "b",
    "em",
    "code",
    "strong",
    "JOIN",
    "Concat",
    "implode",
    "%s",
    "%V",
    "{",
    "}",
    "{3}",
    "\u0130",
    "\u212a",
    "cnff",
    "frperg",
    "cj:",
    "cj: ",
    "xrl=",
    "=",
    "bnhgu",
    "x",
    "gbxra",
)


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randrange(0, 12))) for _ in range(400)]


@pytest.mark.parametrize("name", sorted(_PLAIN))
def test_a_gate_passes_the_texts_its_plain_pattern_passed(name):
    """Both answers occur (fails before for markdown: the plain pattern has no gate to find)."""
    gate, plain, prepare = _PLAIN[name]
    assert gate.pattern.startswith("(?=[")
    answers = [
        (gate.search(prepare(t)) is None, plain.search(prepare(t)) is None)
        for s in range(3)
        for t in _texts(s)
    ]
    assert all(new == old for new, old in answers)
    assert {new for new, _ in answers} == {True, False}


def test_the_reversed_and_rot13_gates_share_one_lowercase_copy():
    """The two gates run one after the other on each text (fails before: each lowered it)."""
    decoders._lowercase.cache_clear()
    list(decoded_views("plain words with no marked word at all\n"))
    info = decoders._lowercase.cache_info()
    assert (info.misses, info.hits) == (1, 1)
