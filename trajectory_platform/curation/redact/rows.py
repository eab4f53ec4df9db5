"""Rows of a two-column table whose first cell names a credential: ``| DB password | x |``, a
box-drawn ``│ password │ x │``, an ``aws ... --output table`` row, and aligned columns
(``api_token      x``), with a value the table wrapped onto the next row.

A table of settings is how a CLI prints a secret (``aws secretsmanager get-secret-value --output
table``, ``vault kv get``, ``pulumi config``) and how an agent sums up what it created in a final
answer. The label is the row's first cell and the value its second, with nothing between them that
reads as an assignment: a table needs no header (a ``key | value`` header is
:func:`.positional._key_value_rows`' evidence), and a box's verticals are not ``|``. Unread, a
memorable value (``Amber9101$``) stayed; a long one wrapped over two rows kept both halves, each
too short for entropy.

What counts: a row's first cell names a credential as a table column would
(:func:`.positional.column_class`: ``password``, or a secret's name of two parts), and its second
cell is credential-shaped. A bordered row (it opens with a vertical) is a table's by its border;
aligned columns (two spaces or a tab between label and value) need a neighbouring line split at
the same column, since a line of prose may hold a wide gap too.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from trajectory_platform.curation.redact.credential_names import KEYWORD_SCAN, KEYWORD_SCAN_ANY_CASE
from trajectory_platform.curation.redact.model import Finding


def _box_to_ascii() -> dict[int, str]:
    """Unicode's box-drawing characters as ASCII tables draw them: a vertical line ``|``, a
    horizontal one ``-``, a corner or a junction ``+``. Same length, so offsets stay."""
    table: dict[int, str] = {ord("¦"): "|"}
    for code in range(0x2500, 0x2580):
        name = unicodedata.name(chr(code), "")
        junction = " AND " in name or ("VERTICAL" in name and "HORIZONTAL" in name)
        table[code] = "+" if junction else "|" if "VERTICAL" in name else "-" if "HORIZONTAL" in name else "+"
    return table


BOX_TO_ASCII = _box_to_ascii()
_BOX_CHARACTERS = re.compile("[\u2500-\u257f¦]")


def ascii_table(text: str) -> str:
    """``text`` with its box-drawing characters as ASCII (:data:`BOX_TO_ASCII`), so one reading of
    ``|`` tables reads box-drawn ones too (``psql``'s unicode border style, ``rich``, ``tabulate``'s
    ``fancy_grid``)."""
    return text.translate(BOX_TO_ASCII) if _BOX_CHARACTERS.search(text) else text


_BORDERED = re.compile(r"[ \t]*\|(?P<key>[^|\n]*)\|(?P<value>[^|\n]*)\|?[ \t]*\r?$")
"""A bordered row of two cells: ``| key | value |`` (the closing border optional)."""
_ALIGNED = re.compile(
    r"[ \t]*(?P<key>[A-Za-z_][\w.-]*(?: [A-Za-z_][\w.-]*){0,3})(?P<gap> {2,}|\t+)(?P<value>\S+)[ \t]*\r?$"
)
"""A row of aligned columns: a label of up to four words, a gap of two spaces or a tab, one value."""
_CONTINUED_BORDERED = re.compile(r"[ \t]*\|[ \t]*\|(?P<value>[^|\n]*)\|?[ \t]*\r?$")
_SECOND_COLUMN = re.compile(r"[ \t]*\S+(?: \S+)*(?: {2,}|\t+)(?=\S)")
_SHORTEST_PIECE = 4
"""A wrapped value's piece shorter than this is left: replaced everywhere in the episode, a
two-letter piece would rewrite words."""


@dataclass(frozen=True)
class NamingLines:
    """A text's lines, where each starts, and which of them hold a credential word (ascending):
    read once for every table rule, since finding the words is most of their cost."""

    lines: list[str]
    offsets: list[int]
    naming: list[int]


def naming_lines(text: str, lower: str) -> NamingLines | None:
    """``text``'s :class:`NamingLines` (``lower``: ``text.lower()``), or None when no line names a
    credential (most texts: nothing to split)."""
    scan = KEYWORD_SCAN.finditer(lower) if len(lower) == len(text) else KEYWORD_SCAN_ANY_CASE.finditer(text)
    hits = [hit.start() for hit in scan]
    if not hits:
        return None
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    return NamingLines(lines, offsets, sorted({bisect.bisect_right(offsets, hit) - 1 for hit in hits}))


def find_labelled_rows(text: NamingLines, judge: Callable[[str, str], str | None]) -> Iterator[Finding]:
    """The value cell of each row whose first cell names a credential and whose value is one
    (``judge(label, value)``: the finding's kind, or None), with a value wrapped onto the rows
    under it (module docstring). ``text`` is the table in ASCII (:func:`ascii_table`)."""
    lines, offsets = text.lines, text.offsets
    for index in text.naming:
        line = lines[index]
        row = _BORDERED.fullmatch(line)
        continued = _CONTINUED_BORDERED
        if row is None:
            row = _ALIGNED.fullmatch(line)
            if row is None or not _aligned_neighbour(lines, index, row.start("value")):
                continue
            continued = re.compile(rf"[ \t]{{{row.start('value')}}}(?P<value>\S+)[ \t]*\r?$")
        pieces = [(offsets[index] + row.start("value"), row.group("value"))]
        for below in range(index + 1, len(lines)):
            more = continued.fullmatch(lines[below])
            if more is None or not more.group("value").strip():
                break
            pieces.append((offsets[below] + more.start("value"), more.group("value")))
        if len(pieces) == 1:
            pieces = [(pieces[0][0] + (inner := _undecorated(pieces[0][1]))[1], inner[0])]
        label = _undecorated(row.group("key"))[0].rstrip(":").strip()
        kind = judge(label, "".join(piece.strip() for _, piece in pieces))
        if kind is None:
            continue
        for start, piece in pieces:
            stripped = piece.strip()
            if len(stripped) >= _SHORTEST_PIECE or len(pieces) == 1:
                begin = start + piece.index(stripped)
                yield Finding(kind, begin, begin + len(stripped), stripped, "positional:labelled_row")


_DECORATED = re.compile(r"(?P<mark>\*\*|__|[*_`\"'])(?P<inner>\S(?:.*\S)?)(?P=mark)")
"""A cell's text in Markdown emphasis, a code span or quotes: ``**Password**``, `` `x` ``."""


def _undecorated(cell: str) -> tuple[str, int]:
    """``cell`` without its surrounding spaces and one layer of Markdown emphasis, code marks or
    quotes, and where that text starts in it: an agent's summary table writes ``| **Password** |
    `x` |``, and the marks hid the label and would have joined the value."""
    stripped = cell.strip()
    offset = cell.index(stripped) if stripped else 0
    decorated = _DECORATED.fullmatch(stripped)
    if decorated is None:
        return stripped, offset
    return decorated.group("inner"), offset + decorated.start("inner")


def _aligned_neighbour(lines: list[str], index: int, column: int) -> bool:
    """Is the line above or below split into columns at ``column`` too (a table's, not a sentence's
    wide gap)?"""
    for near in (index - 1, index + 1):
        if 0 <= near < len(lines):
            gap = _SECOND_COLUMN.match(lines[near])
            if gap is not None and gap.end() == column:
                return True
    return False
