"""Whole-text encodings the redaction tests put their cases through, and their readings back."""

from __future__ import annotations

import quopri
import re

_XXD_ROW = re.compile(r"^[0-9a-f]{8}: ((?:[0-9a-f]{2,4} ?)+)", re.M)


def xxd(text: str) -> str:
    """``text`` as ``xxd`` dumps it: 16-byte rows, an offset, two-byte hex groups, a character column."""
    data, rows = text.encode(), []
    for i in range(0, len(data), 16):
        chunk = data[i : i + 16]
        groups = " ".join(chunk.hex()[j : j + 4] for j in range(0, 2 * len(chunk), 4))
        rows.append(f"{i:08x}: {groups:<39}  " + "".join(chr(c) if 32 <= c < 127 else "." for c in chunk))
    return "\n".join(rows)


def unxxd(dump: str) -> str:
    """The bytes an ``xxd`` dump's hex columns show, as text (what a reader gets back with ``xxd -r``)."""
    hexes = "".join("".join(row.group(1).split()) for row in _XXD_ROW.finditer(dump))
    return bytes.fromhex(hexes[: len(hexes) // 2 * 2]).decode("utf-8", "replace")


def quoted_printable(text: str) -> str:
    """``text`` quoted-printable throughout (``quopri``: ``=`` as ``=3D``, soft breaks at 76 columns)."""
    return quopri.encodestring(text.encode()).decode()


def unquoted_printable(text: str) -> str:
    """What a quoted-printable text reads as, decoded."""
    return quopri.decodestring(text.encode()).decode("utf-8", "replace")
