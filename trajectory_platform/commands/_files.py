"""What an input file is, by its content, checked at the door of every command that reads one.

A file's name says what a user meant, its first bytes what it is: ``ingest`` of a PNG, ``redact``
of a Parquet file or ``train`` on an image must fail before any work with the file and what it
is, not write a corrupt output or build a model first. Only what the first bytes prove is
named; anything else is taken for text.
"""

from __future__ import annotations

from pathlib import Path

from trajectory_platform.traces.adapters.base import as_utf8

PARQUET = "a Parquet file"
SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"PAR1", PARQUET),
    (0, b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (0, b"\xff\xd8\xff", "a JPEG image"),
    (0, b"GIF87a", "a GIF image"),
    (0, b"GIF89a", "a GIF image"),
    (0, b"%PDF-", "a PDF document"),
    (0, b"PK\x03\x04", "a ZIP archive (or a format built on one: .pt, .docx, .xlsx)"),
    (0, b"\x1f\x8b", "a gzip archive"),
    (0, b"BZh", "a bzip2 archive"),
    (0, b"\xfd7zXZ\x00", "an xz archive"),
    (0, b"(\xb5/\xfd", "a zstd archive"),
    (0, b"SQLite format 3\x00", "an SQLite database"),
    (8, b"DUCK", "a DuckDB database"),
    (0, b"ARROW1", "an Arrow IPC file"),
    (0, b"\x7fELF", "an executable (ELF)"),
)
"""``(offset, magic bytes, what the file is)`` of the binary formats a user most often passes by
mistake; the first match names the file."""

HEAD_BYTES = 8192


def binary_kind(path: Path) -> str | None:
    """What ``path``'s first bytes say it is when it is not text (``None``: text, or a folder).

    A known signature names the format; other bytes with a NUL in them, once UTF-16/32 text is
    decoded, are ``binary data``."""
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    for offset, magic, kind in SIGNATURES:
        if head[offset : offset + len(magic)] == magic:
            return kind
    return "binary data" if b"\x00" in as_utf8(head) else None


def not_text(paths: list[Path], expected: str) -> str | None:
    """The error for the first of ``paths`` (named files; folders are walked by the command) that
    is a binary file, saying what it is and what was ``expected``; ``None`` when all are text."""
    for path in paths:
        kind = binary_kind(path)
        if kind is not None:
            return f"{path}: this file is {kind}, not {expected}"
    return None
