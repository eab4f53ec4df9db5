"""Shell words built from variables, expanded: a key cut across ``A=...; B=...`` and read back as ``$A$B``.

An agent (or a log's author) can keep a credential out of any one string by assigning its pieces
to shell variables and joining them where it is used: ``A=AKIAQWER; B=TYUIOP234567; aws configure
set aws_access_key_id $A$B``. No piece is a key, so no detector sees one. This module expands such
words the way the shell would for the simple cases that carry a key (variables assigned a literal
earlier in the same text, unquoted or quoted, and referenced as ``$NAME`` or ``${NAME}`` inside one
word, quotes removed) and keeps, for every expanded character, the raw span it came from: the value
of the assignment for a variable's characters, the word itself for literal ones. A detector run on
the expanded line then becomes findings on the raw pieces (``detectors.find_split_variables``).

Anything it cannot expand exactly (a variable assigned by a command, one not assigned before its
use, parameter expansions with operators) is left alone: the raw text is scanned as it stands.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

_ASSIGNMENT = re.compile(
    r"(?:^|(?<=[\s;&|(]))(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?"
    r"(?P<name>[A-Za-z_]\w*)="
    r"(?:\"(?P<dq>[^\"\\$`\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s;&|'\"`$()<>\\]+))",
    re.MULTILINE,
)
"""``NAME=value`` where a command may start (``export`` and friends allowed), the value a literal:
bare, single-quoted, or double-quoted with nothing in it to expand."""
_REFERENCE = r"\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*)"
_WORD = re.compile(rf"(?:{_REFERENCE}|[\"']|[^\s;&|()<>\"'$])+")
"""A shell word as far as this module reads one: references, quotes and plain characters."""
_PIECE = re.compile(rf"(?P<ref>{_REFERENCE})|(?P<quote>[\"'])|(?P<plain>[^\"'$]+)")


CONTEXT = 256
"""How much of its line on either side an expanded word is scanned with: enough for the label a
detector reads before a key (``curl -H "Authorization: Bearer $A$B"``), and a bound, so that a
line of many expansions costs linear time (each scanned its whole line: 42 s for 77 kB)."""


@dataclass(frozen=True)
class Expansion:
    """One word with at least one variable and one more piece, expanded inside its line (up to
    :data:`CONTEXT` characters of it on either side).

    ``pieces`` maps each expanded run to where it came from: ``(start, end)`` in ``line`` and the
    raw ``(start, end)`` in the scanned text, with ``variable`` true for a variable's value.
    """

    line: str
    start: int
    end: int
    pieces: tuple[tuple[int, int, int, int, bool], ...]


def _assignments(text: str) -> dict[str, list[tuple[int, int, int]]]:
    """Every literal assignment by name: (where it ends, raw start and end of its value)."""
    found: dict[str, list[tuple[int, int, int]]] = {}
    for match in _ASSIGNMENT.finditer(text):
        group = next(g for g in ("dq", "sq", "bare") if match.group(g) is not None)
        found.setdefault(match.group("name"), []).append((match.end(), *match.span(group)))
    return found


def expansions(text: str) -> Iterator[Expansion]:
    """Every word of ``text`` joining a variable to another piece, expanded (see the module)."""
    if "$" not in text or "=" not in text:
        return
    assigned = _assignments(text)
    if not assigned:
        return
    for word in _WORD.finditer(text):
        if "$" not in word.group():
            continue
        expanded = _expand(text, word, assigned)
        if expanded is None:
            continue
        chars, pieces = expanded
        line_start = max(text.rfind("\n", 0, word.start()) + 1, word.start() - CONTEXT)
        line_end = text.find("\n", word.end(), word.end() + CONTEXT)
        line_end = min(len(text), word.end() + CONTEXT) if line_end < 0 else line_end
        before = text[line_start : word.start()]
        shifted = tuple((s + len(before), e + len(before), rs, re_, v) for s, e, rs, re_, v in pieces)
        line = before + chars + text[word.end() : line_end]
        yield Expansion(line, len(before), len(before) + len(chars), shifted)


def _expand(
    text: str, word: re.Match[str], assigned: dict[str, list[tuple[int, int, int]]]
) -> tuple[str, list[tuple[int, int, int, int, bool]]] | None:
    """The word's expansion and its pieces (offsets into the expansion), or ``None`` when a
    variable in it has no literal assignment before it or it joins nothing. A quote between two
    parts of one token is removed, as the shell removes it; the others stay, as context a detector
    reads (``password = "$A$B",``), mapped to nothing."""
    segments: list[tuple[str, int, int, bool | None]] = []  # text, raw span, variable (None: a quote)
    for piece in _PIECE.finditer(word.group()):
        at = word.start() + piece.start()
        if piece.group("quote"):
            segments.append((piece.group(), at, at + 1, None))
        elif piece.group("ref"):
            name = piece.group("ref").strip("${}")
            spans = assigned.get(name, [])
            index = bisect.bisect_right(spans, (at, 1 << 62, 1 << 62)) - 1
            if index < 0:
                return None
            _, start, end = spans[index]
            segments.append((text[start:end], start, end, True))
        else:
            segments.append((piece.group(), at, at + len(piece.group()), False))
    filled = [i for i, segment in enumerate(segments) if segment[3] is not None and segment[0]]
    if len(filled) < 2 or not any(segments[i][3] for i in filled):
        return None
    chars: list[str] = []
    pieces: list[tuple[int, int, int, int, bool]] = []
    length = 0
    for index, (value, start, end, variable) in enumerate(segments):
        if variable is None and _joins(segments, filled, index):
            continue  # a quote that joins two parts of one token (``${A}"$B"``): removed
        if variable is not None and value:
            pieces.append((length, length + len(value), start, end, variable))
        chars.append(value)
        length += len(value)
    return "".join(chars), pieces


_TOKEN_EDGE = re.compile(r"[\w+/=.\-]")


def _joins(segments: list[tuple[str, int, int, bool | None]], filled: list[int], index: int) -> bool:
    """Whether the quote at ``index`` sits between two parts of one token: the nearest parts
    before and after it end and start with a token character."""
    before = [i for i in filled if i < index]
    after = [i for i in filled if i > index]
    return bool(
        before
        and after
        and _TOKEN_EDGE.match(segments[before[-1]][0][-1])
        and _TOKEN_EDGE.match(segments[after[0]][0][0])
    )
