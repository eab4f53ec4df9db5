"""The column lists of SQL's ``INSERT INTO t (a, b) VALUES (...)`` and of ``pg_dump``'s ``COPY t
(a, b) FROM stdin;`` block, and the cells under them: one reader for every rule that judges a
value by the column it stands in. A credential's column makes its values secrets
(:mod:`.positional`); a digest's column (``sha256``, ``checksum``) makes a hex run in it a digest,
not a key (:mod:`.detectors`), as a CSV header's does. It sits below both, so the rule that decides
an entropy finding can read the column list without importing the positional rules."""

from __future__ import annotations

import re
from collections.abc import Iterator

_ROW_INSIDE = r"(?:[^()]|\([^()\n]*\))*"
"""A row's inside: its values, a call among them (``now()``, ``coalesce(a, b)``) one level deep, on
one line or one value a line (``VALUES (\\n  'mail.example.com',\\n  'x'\\n)``)."""
_ESCAPED_BREAK = r"\\+[nrt]"
_GAP = rf"(?:\s|{_ESCAPED_BREAK})*"
"""Space between a statement's parts, or its JSON escape at any depth: a multi-line ``VALUES`` list
read in the raw text of a JSON string (``VALUES\\n  (1, 'x'),\\n  (2, 'y')``), or of a JSON
document quoted in another (``\\\\n``)."""
INSERT = re.compile(
    rf"(?i)\bINSERT\s+INTO\s+[\w.\"`\[\]\\]+{_GAP}\((?P<columns>[^()]{{1,400}})\){_GAP}VALUES{_GAP}"
    rf"(?P<rows>(?:\({_ROW_INSIDE}\){_GAP},?{_GAP})+)"
)
_INSERT_OPENING = re.compile(r"(?i)\bINSERT\s+INTO\b")
_ROW = re.compile(rf"\(({_ROW_INSIDE})\)")
SQL_VALUE = re.compile(rf"'(?:[^'\n]|'')*'|(?<!\\)(?!{_ESCAPED_BREAK})[^,()\s](?:[^,()]|\([^()\n]*\))*")
"""One value of a row: a quoted literal (``''`` inside it an escaped quote), a bare word or a call;
never an escaped line break between values."""
COPY = re.compile(
    r"\bCOPY[ \t]+[\w.\"]+[ \t]*\((?P<columns>[^)\n]*)\)[ \t]+FROM[ \t]+stdin\b[^;\n]*;[ \t]*\n"
)
"""``pg_dump``'s data block: the column names in the ``COPY`` line, then a tab-separated row a
line up to ``\\.``: the header of the table is a SQL list, not a row of its own. The ``COPY``
may follow a prompt or a quote (a JSON ``"stdout": "COPY ...`` read through its escapes), and
options may follow ``stdin`` (``WITH (FORMAT text)``)."""
_COPY_ROW = re.compile(r"(?m)^(?!\\\.$)[^\n]*\t[^\n]*$")
_LOOKBACK = 20_000
"""How far before a cell its statement's column list is sought: a longer ``VALUES`` list or
``COPY`` block is read in part."""


def column_names(listed: str) -> list[str]:
    """The names of a SQL column list (``id, "password", `sha256```), unquoted, one a line or on one
    (a line break escaped in a JSON string, at any depth, is a break; so is ``\\"``'s backslash)."""
    listed = re.sub(_ESCAPED_BREAK, " ", listed)
    return [name.strip().strip('"`[]\\') for name in listed.split(",")]


def insert_rows(match: re.Match[str]) -> Iterator[tuple[re.Match[str], list[re.Match[str]]]]:
    """Each row of an :data:`INSERT` match's ``VALUES`` (its parenthesised span, relative to the
    ``rows`` group) with its values (:data:`SQL_VALUE`, relative to the row's inside)."""
    for row in _ROW.finditer(match.group("rows")):
        yield row, list(SQL_VALUE.finditer(row.group(1)))


def copy_blocks(text: str) -> Iterator[tuple[list[str], Iterator[tuple[int, list[str]]]]]:
    """Each ``COPY ... FROM stdin;`` block of ``text``: its column names, and its rows (each one's
    offset and its tab-separated cells) up to the first that has not as many cells."""
    for block in COPY.finditer(text):
        names = column_names(block.group("columns"))
        yield names, _copy_block_rows(text, block.end(), len(names))


def _copy_block_rows(text: str, position: int, width: int) -> Iterator[tuple[int, list[str]]]:
    while row := _COPY_ROW.match(text, position):
        cells = row.group().split("\t")
        if len(cells) != width:
            return
        yield row.start(), cells
        position = row.end() + 1


def column_at(text: str, start: int, end: int) -> str | None:
    """The name of the column whose value ``text[start:end]`` is: a quoted literal of an
    ``INSERT``'s row, or a whole cell of a ``COPY`` block's row; None elsewhere."""
    if text[start - 1 : start] == "'" and text.startswith("'", end):
        return _insert_column_at(text, start)
    line_start = text.rfind("\n", 0, start) + 1
    if text[start - 1 : start] in ("\t", "\n", "") and (end == len(text) or text[end] in "\t\n"):
        return _copy_column_at(text, line_start, start)
    return None


def _insert_column_at(text: str, start: int) -> str | None:
    openings = list(_INSERT_OPENING.finditer(text, max(0, start - _LOOKBACK), start))
    match = INSERT.match(text, openings[-1].start()) if openings else None
    if match is None or not match.start("rows") <= start < match.end("rows"):
        return None
    names = column_names(match.group("columns"))
    inside = start - match.start("rows")
    for row, values in insert_rows(match):
        if row.start(1) <= inside < row.end(1) and len(values) == len(names):
            for name, value in zip(names, values, strict=True):
                if value.start() <= inside - row.start(1) < value.end():
                    return name
    return None


def _copy_column_at(text: str, line_start: int, start: int) -> str | None:
    if text.rfind("COPY", max(0, line_start - _LOOKBACK), line_start) == -1:
        return None
    blocks = list(COPY.finditer(text, max(0, line_start - _LOOKBACK), line_start))
    if not blocks:
        return None
    block = blocks[-1]
    names = column_names(block.group("columns"))
    for offset, _cells in _copy_block_rows(text, block.end(), len(names)):
        if offset == line_start:
            return names[text.count("\t", line_start, start)]
        if offset > line_start:
            break
    return None
