"""Byte dumps read back into their bytes: ``xxd``, ``hexdump -C``, ``od`` and ``xxd -p``.

An agent that checks a file for stray characters runs ``xxd .env`` or ``od -c .env``. The dump
cuts every line of the file into rows of 16 bytes, so a key is spread over rows: its bytes in hex
(or as ``od``'s characters and octal codes), its text in pieces in the ``xxd`` and ``hexdump -C``
character column, and no row holds enough of it for a pattern. Each row here becomes its bytes,
each byte with the raw span that shows it: from its hex code to its character in the column, so a
finding over the bytes, replaced as one raw span, takes the column's copy with it.

A row is read only when it parses whole: an offset, then codes of one width (hex of one to four
bytes a group, ``od``'s 3-digit octal, or ``xxd -b``'s eight binary digits, whose row must end in
its character column), then, if there is one, a character column that matches those bytes exactly
(printable ASCII as itself, any other byte as ``.``); or ``od -c``'s and ``od -a``'s 4-column
fields (a character, an escape such as ``\\n``, a control character's name such as ``sp`` or
``nl``, or a 3-digit octal code), after an offset or alone (``od -An``, which ``od -An -b``'s codes
are too); or a line of hex alone (``xxd -p``). Any other line (a ``git log --oneline`` subject
after its hash) is not a row.
"""

from __future__ import annotations

import itertools
import re

_BYTES = r"[0-9a-fA-F]{2}(?: ?[0-9a-fA-F]{2})*"
"""Hex bytes alone, joined (``xxd -p``) or one space apart (``od -An -t x1``)."""
_OD_FIELD = (
    r"(?:    |   [!-~]|  \\[0abtnvfr]|  [a-z]{2}| [a-z]{2}[a-z1-4]| [0-3][0-7]{2}|  [0-9]{2}| [0-2][0-9]{2})"
)
"""One of ``od``'s 4-column fields: a space (``od -c``), a character, an escape, a control
character's name (``od -a``: ``sp``, ``nl``, ``nul``, ``dc1``), a 3-digit octal code, or a
decimal byte (``od -t u1``: right-aligned, one to three digits; ``od -t d1``'s fields are five
columns wide, :func:`_decimal_row`)."""
_DECIMAL_FIELD = re.compile(r" {1,4}[0-9]{1,3}")
_OCTAL_OR_CHARACTER = re.compile(r" [0-3][0-7]{2}|   [0-9]")
"""A field ``od -b`` or ``od -c`` may show as well: a row of decimal bytes holds one field that is
neither (a byte from 10 to 99 is two digits wide: every letter from ``A`` to ``c``)."""
_WIDE_DECIMAL = r"(?: {2,4}[0-9]{1,3})"
"""One of ``od -t d1``'s 5-column fields without an offset before it (``od -An -t d1``)."""
DUMP_HINT = re.compile(
    r"(?m)^[ \t]*[0-9a-fA-F]{6,8}:?(?: {1,3}[^\s]{1,8}){4}"
    r"|^[ \t]*(?:[0-9a-fA-F]{2} ?){16,}\r?\n[ \t]*[0-9a-fA-F]{2}"
    rf"|^{_OD_FIELD}{{8}}|^{_WIDE_DECIMAL}{{8}}"
)
"""A line that opens like a dump row (an offset and four codes or characters), a line of sixteen
hex bytes alone and another after it, or eight ``od`` fields (or decimal bytes) without an offset:
the cheap test before any row is parsed."""
ROW_OPENS = re.compile(r"[ \t]*[0-9a-fA-F]{6,8}:?(?: {1,3}[0-9a-fA-F]{2,8}){4}")
"""A line that opens as a row of ``xxd`` or ``hexdump`` does (an offset, four codes). The rows are
one width, which reads as a terminal's cut (the ``wrapped`` view joined them, and the hex views then
read a row's codes beside the character column of the row before), and a row's offset is no value
(``DB_PASSWORD`` ending one row's character column is no label of the next row's offset)."""
_ROW = (
    rf"(?:[ \t]*(?:[0-9a-fA-F]{{6,8}}:?(?:[ \t][^\n]*)?|{_BYTES}[ \t]*\r?)"
    rf"|{_OD_FIELD}+\r?|{_WIDE_DECIMAL}+\r?)"
)
DUMP_BLOCK = re.compile(rf"(?m)^{_ROW}(?:\n{_ROW})*$")
"""Consecutive lines that may be rows (each is parsed; a line that is not a row is kept as text)."""
_OFFSET = re.compile(r"[ \t]*[0-9a-fA-F]{6,8}:?")
_HEX_ONLY = re.compile(rf"[ \t]*({_BYTES})[ \t]*\r?")
_HEX_PAIR = re.compile(r"[0-9a-fA-F]{2}")
_HEX_ROW_MIN = 8
"""Bytes a line of hex alone (or of ``od`` fields alone) must show to open a dump of such lines (its
last row may be shorter)."""
_CODE = re.compile(r"\S+")
_OD_ESCAPES = {"\\0": 0, "\\a": 7, "\\b": 8, "\\t": 9, "\\n": 10, "\\v": 11, "\\f": 12, "\\r": 13}
_OD_CONTROL_NAMES = (
    "nul soh stx etx eot enq ack bel bs ht nl vt ff cr so si dle dc1 dc2 dc3 dc4 nak syn etb can em sub esc"
    " fs gs rs us sp"
)
_OD_NAMES = {name: code for code, name in enumerate(_OD_CONTROL_NAMES.split())} | {"del": 127}
"""``od -a``'s names of the bytes it does not show as themselves."""
_BINARY_CODE = re.compile(r"[01]{8}")

Byte = tuple[int, int, int]
"""A byte of a dump and the raw span (start, end) that shows it."""
Run = tuple[int, int, list[Byte]]
"""Raw start and end of consecutive rows of one dump and the bytes they show; no bytes: a line
that is not a row."""


def dump_runs(block: str, start: int) -> list[Run]:
    """``block`` (lines matched by :data:`DUMP_BLOCK`, at ``start`` in the text) as runs of rows
    and the lines between them. The last row of a dump of hex alone may be shorter than the rest,
    as long as it follows a row of one. A row of three-digit codes that are all octal digits reads
    as ``od -b``'s octal and as ``od -t u1``'s decimal bytes alike (lowercase ``d`` to ``w`` are
    ``100`` to ``127`` in decimal): a dump is one command's output, so such a row is read as
    decimal where another row of its run can only be (a two-digit byte: every text file's line
    ends with ``10``). Before, the row's bytes came out as capitals and the key they cut was read
    in pieces (session 45)."""
    rows: list[tuple[int, int, list[Byte], list[Byte] | None]] = []
    full_row_above = False
    for line in block.split("\n"):
        end = start + len(line)
        plain = _HEX_ONLY.fullmatch(line)
        shown = [] if plain is None else list(_HEX_PAIR.finditer(line, plain.start(1), plain.end(1)))
        fields = None if plain or line[:1] not in " \t" else _od_characters(line, 0, start)
        if plain and (full_row_above or len(shown) >= _HEX_ROW_MIN):
            row: list[Byte] | None = [
                (int(pair.group(), 16), start + pair.start(), start + pair.end()) for pair in shown
            ]
            full_row_above = len(shown) >= _HEX_ROW_MIN
        elif fields and (full_row_above or len(fields) >= _HEX_ROW_MIN):
            row, full_row_above = fields, len(fields) >= _HEX_ROW_MIN
        else:
            row, full_row_above = _offset_row(line, start), False
        rows.append((start, end, row or [], _decimal_reading(line, start) if row and not plain else None))
        start = end + 1
    runs: list[Run] = []
    for index, (row_start, row_end, row, _) in enumerate(rows):
        if row and runs and runs[-1][2]:
            runs[-1][2].extend(row)
            runs[-1] = (runs[-1][0], row_end, runs[-1][2])
            continue
        if row:
            run = list(itertools.takewhile(lambda entry: entry[2], rows[index:]))
            if any(reading == shown for _, _, shown, reading in run):
                rows[index : index + len(run)] = [
                    (low, high, reading or shown, reading) for low, high, shown, reading in run
                ]
                row = rows[index][2]
        runs.append((row_start, row_end, list(row)))
    return runs


def character_columns(text: str) -> list[tuple[int, int]]:
    """The character column of each row of ``text``'s dumps that has one (``xxd``, ``hexdump -C``):
    from its first character to the end of its line. A column shows a row's 16 bytes of a line and
    no more, so a rule reading it sees a value cut at the row's end (``SECRET_KEY=REPLA|``); the
    ``dump`` view reads the row's bytes joined to the rows around it, and judges the whole value."""
    if DUMP_HINT.search(text) is None:
        return []
    columns: list[tuple[int, int]] = []
    for block in DUMP_BLOCK.finditer(text):
        for _, _, shown in dump_runs(block.group(), block.start()):
            rows: dict[int, int] = {}  # a row's line end to its column's first character
            for _, raw_start, raw_end in shown:
                if raw_end - raw_start > 3 and "\n" not in text[raw_start:raw_end]:  # reaches its column
                    line_end = text.find("\n", raw_end)
                    line_end = len(text) if line_end == -1 else line_end
                    rows[line_end] = min(rows.get(line_end, raw_end - 1), raw_end - 1)
            columns.extend((start, end) for end, start in rows.items())
    return columns


def _decimal_reading(line: str, start: int) -> list[Byte] | None:
    """The row's fields read as ``od -t u1``'s decimal bytes, whether or not they read as octal
    codes too; None when they do not."""
    offset = _OFFSET.match(line)
    body_start = offset.end() if offset and line[offset.end() : offset.end() + 1] in (" ", "\t") else 0
    return _decimal_row(line[body_start:].rstrip("\r"), start + body_start, ambiguous=True)


def _offset_row(line: str, start: int) -> list[Byte] | None:
    """The bytes a row led by its offset shows, with raw spans offset by ``start`` (where ``line``
    begins in the text); None when the line is not such a row."""
    offset = _OFFSET.match(line)
    if offset is None or offset.end() == len(line) or line[offset.end()] not in " \t":
        return None
    body_start = offset.end()
    binary = _BINARY_CODE.match(line, body_start + 1) is not None
    return (
        _decimal_row(line[body_start:].rstrip("\r"), start + body_start)
        or binary
        and _code_row(line, body_start, start, binary=True)
        or _code_row(line, body_start, start)
        or _od_characters(line, body_start, start)
    )


def _code_row(line: str, body_start: int, start: int, binary: bool = False) -> list[Byte] | None:
    """Hex groups of one width (``xxd``, ``hexdump -C``, ``od -t x1``), 3-digit octal codes
    (``od -b``) or, ``binary``, eight binary digits a byte (``xxd -b``), then the character column
    if the row has one. The column is looked for after every gap of two spaces or more, before that
    text is read as codes: a column can look like hex (``cafe``), but only the real one shows the
    bytes before it. Binary digits are hex digits too (``xxd -g4``'s ``01000100``), so a row read
    as binary must end in the column that shows its bytes. Groups of several bytes and no column
    are words in the machine's order, little-endian (``hexdump``'s default, ``od -x``): ``5741``
    shows ``AW``."""
    found: list[Byte] = []
    width = 0
    for code in _CODE.finditer(line, body_start):
        if found and code.start() - (found[-1][2] - start) >= 2:
            with_column = _with_column(line, found[-1][2] - start, found, start)
            if with_column:
                return with_column
        text = code.group()
        width = width or len(text)
        if binary:
            if _BINARY_CODE.fullmatch(text) is None:
                return None
            found.append((int(text, 2), start + code.start(), start + code.end()))
            continue
        if len(text) > width or (len(text) != width and width == 3) or not _decodes(text, width):
            return None
        found.extend(_code_bytes(text, width, start + code.start()))
    if binary:
        return None
    if width in (4, 8):  # words, little-endian: each group's bytes in reverse
        half = width // 2
        return [byte for i in range(0, len(found), half) for byte in reversed(found[i : i + half])] or None
    return found or None


def _decodes(code: str, width: int) -> bool:
    """An octal byte in a row of them, else one to four bytes of hex (a last row's only group may
    be narrower than the rest: ``xxd -g4`` ends ``72320a``)."""
    if width == 3:
        return re.fullmatch(r"[0-3][0-7]{2}", code) is not None
    return len(code) % 2 == 0 and len(code) <= 8 and re.fullmatch(r"[0-9a-fA-F]+", code) is not None


def _code_bytes(code: str, width: int, at: int) -> list[Byte]:
    if width == 3:
        return [(int(code, 8), at, at + 3)]
    return [(int(code[i : i + 2], 16), at + i, at + i + 2) for i in range(0, len(code), 2)]


def _with_column(line: str, codes_end: int, found: list[Byte], start: int) -> list[Byte] | None:
    """The row's bytes, each span reaching its character in the column, when the rest of the line
    after ``codes_end`` is blank space and then that column (``|...|`` for ``hexdump -C``,
    ``>...<`` for ``od -t x1z``; trailing blanks aside, as a log may trim them); None when not."""
    shown = "".join(chr(byte) if 32 <= byte < 127 else "." for byte, _, _ in found)
    rest = line[codes_end:].rstrip()
    for column in (shown, f"|{shown}|", f">{shown}<"):
        visible = column.rstrip()
        if visible and rest.endswith(visible) and not rest[: -len(visible)].strip():
            first = codes_end + len(rest) - len(visible) + (column != shown)
            ends = (start + min(first + i + 1, len(line)) for i in range(len(found)))
            return [(byte, raw_start, end) for (byte, raw_start, _), end in zip(found, ends, strict=True)]
    return None


def _od_characters(line: str, body_start: int, start: int) -> list[Byte] | None:
    """``od -c`` and ``od -a``: fields four columns wide, right-aligned: a printable character, a
    backslash escape (``-c``) or a control character's name (``-a``), or a 3-digit octal code; four
    spaces are a space. A row of decimal bytes alone (``od -t u1``) is read as such (red team,
    2026-12-07: its rows hid every key of the round)."""
    body = line[body_start:].rstrip("\r")
    if not body or len(body) % 4:
        return None
    decimal = _decimal_row(body, start + body_start)
    if decimal:
        return decimal
    found: list[Byte] = []
    for i in range(0, len(body), 4):
        field = body[i : i + 4]
        value = field.lstrip(" ")
        if field == "    ":
            byte = 32
        elif len(value) == 1 and field.startswith("   ") and 32 < ord(value) < 127:
            byte = ord(value)
        elif value in _OD_ESCAPES and field.startswith("  "):
            byte = _OD_ESCAPES[value]
        elif value in _OD_NAMES and field.startswith(" "):
            byte = _OD_NAMES[value]
        elif re.fullmatch(r" [0-3][0-7]{2}", field):
            byte = int(value, 8)
        else:
            return None
        at = start + body_start + i
        found.append((byte, at, at + 4))
    return found


def _decimal_row(body: str, at: int, ambiguous: bool = False) -> list[Byte] | None:
    """``od -t u1`` (fields four columns wide) and ``od -t d1`` (five): bytes in decimal,
    right-aligned, each under 256, with raw spans offset by ``at``; None unless one field at least
    is no octal code or ``od -c`` digit (a row of text holds a two-digit byte, ``A`` to ``c``).
    Read before a row's hex: ``  76  86`` are two bytes of hex to :func:`_code_row`, but hex rows
    are never right-aligned in fields four or five wide. ``ambiguous``: a row whose fields all
    read as octal codes too is read as well (:func:`dump_runs` decides by its run)."""
    for width in (4, 5):
        if len(body) % width:
            continue
        fields = [body[i : i + width] for i in range(0, len(body), width)]
        if all(_DECIMAL_FIELD.fullmatch(field) and int(field) < 256 for field in fields) and (
            ambiguous or not all(_OCTAL_OR_CHARACTER.fullmatch(field) for field in fields)
        ):
            return [(int(field), at + width * i, at + width * i + width) for i, field in enumerate(fields)]
    return None
