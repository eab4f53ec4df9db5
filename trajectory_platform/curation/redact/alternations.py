"""A long alternation of words compiled so ``re`` passes over every position no word can start at,
and tries at the others only the words that start with the character there.

``re`` tries each alternative of ``a|b|c...`` at every position of the text, even where the
position's character starts none of them: over a canary document's views (20 of 24,000 characters
each, one scan per view and rule) the credential-word scan alone was a sixth of redaction's time.
:func:`gated_alternation` compiles the same alternatives as ``(?=[<first characters>])`` and one
branch per first character, each holding (in their order) the alternatives that can start with it,
less that character. The lookahead consumes nothing and admits every position a match can start
at; where a match starts, the branch of its character tries the alternatives that could match there
in the order the plain pattern tries them, so the first that matches is the same: the compiled
pattern finds the same matches, in the same places, as the plain one (8x faster on that scan).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

_WIDEST_RANGE = 256
"""A character range wider than this makes the first characters unknown (no gate is worth it)."""


def _sequence_firsts(items: Any) -> set[str] | None:
    """The characters a match of the parsed sequence ``items`` can start with; None when that is
    not a finite set read from its first item (a repeat, a category, an anchor, a lookaround, an
    empty sequence, a group that changes flags)."""
    if not len(items):
        return None
    op, arg = items[0]
    if op is sre.LITERAL:
        return {chr(arg)}
    if op is sre.IN:
        chars: set[str] = set()
        for member, value in arg:
            if member is sre.LITERAL:
                chars.add(chr(value))
            elif member is sre.RANGE and value[1] - value[0] <= _WIDEST_RANGE:
                chars.update(map(chr, range(value[0], value[1] + 1)))
            else:
                return None  # a negated set, a category (\s, \w), a wide range
        return chars
    if op is sre.SUBPATTERN:
        _group, added, removed, inner = arg
        return None if added or removed else _sequence_firsts(inner)
    if op is sre.BRANCH:
        union: set[str] = set()
        for branch in arg[1]:
            firsts = _sequence_firsts(branch)
            if firsts is None:
                return None
            union |= firsts
        return union
    return None


def first_characters(pattern: str) -> frozenset[str] | None:
    """Every character a match of ``pattern`` (compiled without flags) can start with, or None
    when the pattern's first items do not say (see :func:`_sequence_firsts`)."""
    firsts = _sequence_firsts(sre_parse.parse(pattern, 0))
    return None if firsts is None else frozenset(firsts)


def _class_end(pattern: str, start: int) -> int:
    """Where the character class opened at ``pattern[start]`` (a ``[``) ends (after its ``]``)."""
    index = start + 1
    index += pattern.startswith("^", index)
    index += pattern.startswith("]", index)  # a "]" first in a class is a character
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return index + 1


def top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at each ``|`` outside groups, classes and escapes."""
    parts, depth, index, start = [], 0, 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = _class_end(pattern, index)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    return [*parts, pattern[start:]]


def _by_first_character(pattern: str) -> str | None:
    """``pattern``'s alternatives as one branch per first character (module docstring), or None
    when an alternative does not open with one character or one class taken once, or the pattern
    captures groups."""
    if re.compile(pattern).groups:
        return None  # an alternative under two characters would number its groups twice
    branches: dict[str, list[str]] = {}
    for alternative in top_level_alternatives(pattern):
        if not alternative or alternative[0] in "\\().^$*+?{|":
            return None
        head = alternative[: _class_end(alternative, 0)] if alternative[0] == "[" else alternative[0]
        rest = alternative[len(head) :]
        firsts = first_characters(head)
        if firsts is None or rest[:1] in ("*", "+", "?", "{"):
            return None
        for char in sorted(firsts):
            branches.setdefault(char, []).append(rest)
    return "|".join(f"{re.escape(char)}(?:{'|'.join(rests)})" for char, rests in branches.items())


def gated_alternation(pattern: str, flags: int = 0, lookbehind: str = "") -> re.Pattern[str]:
    """``pattern`` compiled behind a lookahead of its :func:`first_characters`, as one branch per
    first character where its alternatives allow (module docstring): the same matches as
    ``re.compile(lookbehind + "(?:" + pattern + ")", flags)``, found without trying every
    alternative everywhere.

    ``flags`` is 0 or ``re.IGNORECASE``. Case-insensitive, the gate is the same class compiled
    case-insensitively, which ``re`` folds as it folds the literals (the Kelvin sign for ``k``, the
    long s for ``s``), so it admits every position a match can start at; the branches are not
    split by character (two first characters may fold to one). ``lookbehind`` is an assertion on
    the text before the match (``(?<![a-z0-9])``): tried after the gate, which a leading lookbehind
    would otherwise keep ``re`` from using to skip positions."""
    if flags & ~re.IGNORECASE:
        raise ValueError("only re.IGNORECASE is supported")
    firsts = first_characters(pattern)
    if firsts is None:
        return re.compile(f"{lookbehind}(?:{pattern})" if lookbehind else pattern, flags)
    gate = "".join(re.escape(char) for char in sorted(firsts))
    branches = pattern if flags else _by_first_character(pattern) or pattern
    return re.compile(f"(?=[{gate}]){lookbehind}(?:{branches})", flags)


def literal_first(lookbehind: str, literal: str) -> str:
    """``lookbehind`` then ``literal`` (a pattern's opening) written as the literal first and the
    assertion after it, reading back over the literal: ``(?<!X)lit`` as ``lit(?<!Xlit)``. A
    pattern that opens with a lookbehind gives ``re`` no literal prefix, so it tries a match at every
    position of the text (a JWT's ``eyJ`` searched for in every view of a canary document, a ``config``
    rule's two lookbehinds on every line); opened with the literal, ``re`` skips to where the literal
    stands. The literal has one width, so the assertion reads the same characters before it: the
    pattern matches the same texts at the same places, with the same groups."""
    if not lookbehind.startswith(("(?<=", "(?<!")) or not lookbehind.endswith(")"):
        raise ValueError("not one lookbehind")
    escaped = re.escape(literal)
    return f"{escaped}{lookbehind[:-1]}{escaped})"
