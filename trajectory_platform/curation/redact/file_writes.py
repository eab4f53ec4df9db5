"""A file an episode's commands write in pieces, read whole: a key appended across tool calls.

An agent can keep a credential out of any one command by writing it to a file piece by piece,
call after call (``echo -n ghp_Ab > /tmp/.tok``, ``echo -n Cd... >> /tmp/.tok``, ``printf '%s' ...
>> f``, ``... | tee -a f``, ``open('f', 'a').write('...')``) and reading it back where it is used
(``curl -H "Authorization: Bearer $(cat /tmp/.tok)"``). Each command is scanned alone, so a vendor
prefix with too little body for its format and a middle piece under the entropy floor both pass (a
red team, 2026-12-07: 20 of 24 such episodes kept every piece).

:func:`written_across_commands` follows what each file receives through the episode's commands in
order (``>`` and a write-mode ``open`` start the file over, ``>>``, ``tee -a`` and append mode add to
it), the way :mod:`.streams` joins a stream's deltas and :mod:`.shell_words` a word's variables: the
assembled content is scanned alone and, where a later command reads it with ``$(cat FILE)``, within
that command's line (``Bearer``, ``SECRET=`` name it there). A finding that covers a piece by
:data:`MIN_PIECE` characters or more becomes a finding on that piece where its command wrote it.
Only literal content is followed (echo's and printf's words, a Python string literal): a write of
something computed (``$(openssl rand ...)``) is not a value this module can know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trajectory_platform.curation.redact.engine import scan
from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.shell_writes import WRITTEN_PIECE, literal_writes, normal_path

MIN_PIECE = 4
"""A piece's part shorter than this is not replaced wherever it recurs (as
``episode.MIN_SPLIT_PART``): its few characters would rewrite honest text. A whole piece that short
is replaced where a command writes it (:data:`.shell_writes.WRITTEN_PIECE`), so no part of the key
stands in the log."""

_READ_BACK = re.compile(r"\$\(\s*(?:cat\s+(?P<files>[^()`;&|$]+?)|<\s*(?P<file>[^\s()]+))\s*\)")
"""Where a command reads files back: ``$(cat F [G ...] [2>/dev/null])`` or ``$(< F)``."""


@dataclass(frozen=True)
class Piece:
    """What one command wrote to a file: the content, and the field and text it was written in."""

    content: str
    field: str
    text: str


def written_across_commands(commands: list[tuple[str, str]], config: RedactionConfig) -> list[Finding]:
    """Findings on the pieces of every file ``commands`` (``(field path, command text)`` in the
    episode's order) write in two pieces or more (module docstring)."""
    files: dict[str, list[Piece]] = {}
    found: list[Finding] = []
    for field, text in commands:
        if ">" not in text and "tee" not in text and ".write(" not in text and "$(" not in text:
            continue  # no write and no read-back: a file's text a tool was handed is not parsed
        for line in text.splitlines():
            reads = [_read_files(m) for m in _READ_BACK.finditer(line)] if "$(" in line else []
            if any(len(files.get(path, ())) > 1 for paths in reads for path in paths):
                found.extend(_read_back(line, files, config))
            if ">" not in line and "tee" not in line and ".write(" not in line:
                continue
            for path, content, append in literal_writes(line):
                piece = Piece(content, field, text)
                files[path] = [*files.get(path, []), piece] if append else [piece]
    for pieces in files.values():
        if len(pieces) > 1:
            found.extend(_on_pieces([(p.content, p) for p in pieces], config))
    return list(dict.fromkeys(found))


def _read_files(match: re.Match[str]) -> list[str]:
    names = re.split(r"\s*\d*[<>]", match.group("files") or match.group("file") or "")[0]
    return [normal_path(name) for name in names.split() if not name.startswith("-")]


def _read_back(line: str, files: dict[str, list[Piece]], config: RedactionConfig) -> list[Finding]:
    """The line with each ``$(cat ...)`` of files followed replaced by their content, scanned."""
    segments: list[tuple[str, Piece | None]] = []
    last = 0
    for match in _READ_BACK.finditer(line):
        segments.append((line[last : match.start()], None))
        segments.extend((p.content, p) for path in _read_files(match) for p in files.get(path, ()))
        last = match.end()
    segments.append((line[last:], None))
    return _on_pieces(segments, config)


def _on_pieces(segments: list[tuple[str, Piece | None]], config: RedactionConfig) -> list[Finding]:
    """Scan the segments joined; each finding's part in a piece becomes a finding in its command.
    A finding inside one piece that the piece's own content shows is that command's scan's."""
    joined = "".join(content for content, _ in segments)
    bounds = [0]
    for content, _ in segments:
        bounds.append(bounds[-1] + len(content))
    found: list[Finding] = []
    for finding in scan(joined, config):
        covered = [
            (index, max(finding.start, bounds[index]), min(finding.end, bounds[index + 1]))
            for index, (_, piece) in enumerate(segments)
            if piece is not None and finding.start < bounds[index + 1] and bounds[index] < finding.end
        ]
        if len(covered) == 1 and _one_piece_shows(finding, segments[covered[0][0]][0], config):
            continue
        for index, start, end in covered:
            piece = segments[index][1]
            part = joined[start:end]
            at = piece.text.find(part) if piece is not None else -1
            if piece is not None and at >= 0:
                whole = len(part) >= MIN_PIECE or part != piece.content.rstrip("\n")
                if len(part) < MIN_PIECE and whole:
                    continue  # a short part of a longer piece: the piece's command shows more
                detector = (
                    f"{finding.detector}+file+split"
                    if len(part) >= MIN_PIECE
                    else f"{finding.detector}{WRITTEN_PIECE}"
                )
                found.append(Finding(finding.kind, at, at + len(part), part, detector, piece.field))
    return found


def _one_piece_shows(finding: Finding, content: str, config: RedactionConfig) -> bool:
    """Whether one piece's content alone finds ``finding``'s value: its command's own scan did."""
    return any(f.value == finding.value for f in scan(content, config))
