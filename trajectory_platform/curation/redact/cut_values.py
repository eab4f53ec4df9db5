"""Values a harness cut short: the head of a credential left before a truncation mark.

A tool result longer than the harness allows is cut at a fixed length and marked (``<response
clipped>``, ``... [output truncated: 1843 more characters]``, ``[... 12 lines omitted ...]``,
``(truncated)``, a glued ``...``). The cut falls anywhere, so it often falls inside a value, and
the head left is no whole anything: a connection string's password without the ``@host`` its
format needs, a ``Basic`` header's base64 cut short, a labelled key whose closing quote was cut
off. Every detector needs the whole structure, so the head stayed in clear (red team rtsec16:
48 of 82 such cases kept, on the last line before the mark).

Here the line up to the cut is completed the way it could have gone on: the head continued by a
filler (:data:`FILL`), then, each tried in turn, nothing, the closing quote the line leaves open,
or an ``@host`` after an open URL userinfo; and the completed line is scanned by the detectors
that need a label or a format (entropy off: a filler is random, so an entropy finding says
nothing about the head). A finding that starts within the head and runs on into the filler makes the
head a finding of its own kind, unless the head is a placeholder's (``<your-passw``, ``$DB_PASSWORD_PRO``:
:func:`.not_values.placeholder_head`). One that starts before the head's run of non-space characters is
not taken: there the filler turned the prose before the cut into a phrase (``db_password: Still
destroying...`` of a Terraform log read as a passphrase), and a value cut inside a phrase of
several words is left to the rules that read it whole. A head of a word, a path or prose after no
label completes to nothing a label or a format rule takes (``tests/curation/test_redact_cut_values.py``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator

from trajectory_platform.curation.redact.model import Finding, RedactionConfig
from trajectory_platform.curation.redact.not_values import placeholder_head

FILL = "Qz7Xk2Pw9Lm4Rt6YhB3nV8cJ5dF1sG0a"
"""What continues a cut head in the completed line: 32 characters of a key's alphabet, so a rule
that needs a value's length or shape sees one."""
CUT_HEAD_MIN = 6
"""The shortest head replaced (as :data:`.engine.TRUNCATED_HEAD_MIN`): shorter heads carry next to
nothing of a value."""
_CUT_MARK = re.compile(
    r"(?P<glued>\.\.\.|\u2026)(?=\s|$|[\[(<'\"])"
    r"|\s*(?:\.\.\.\s*|\u2026\s*)?[\[(<]\s*(?:\.\.\.\s*|\u2026\s*)?(?:output\s+|response\s+|observation\s+)?"
    r"(?:truncated|clipped|elided|omitted|cut)\b"
    r"|\s*(?:\.\.\.|\u2026)\s*[\[(<]\s*\d+\s+(?:more\s+)?(?:characters|chars|bytes|lines)\b",
    re.IGNORECASE,
)
"""A harness's truncation mark, at the cut: a bracketed or tagged word (truncated, clipped,
elided, omitted, cut), an ellipsis then a count of what was left out, or an ellipsis glued to the
head (``AKIA...``) before a space or the end."""
_GATE = re.compile(r"\.\.\.|\u2026|truncated|clipped|elided|omitted|\bcut\b", re.IGNORECASE)
_HEAD = re.compile(r"\S+$")
_USERINFO_OPEN = re.compile(r"://[^\s/@]*:[^\s/@]*$")
"""A URL whose userinfo is still open at the cut: ``scheme://user:`` and part of a password."""


def cut_head(value: str) -> str | None:
    """``value`` before the truncation mark that ends it (``$DB_PASSWORD_PRO...`` of a table's
    cell, which a column reader takes whole), or None where no mark ends it."""
    if _GATE.search(value) is None:
        return None
    for mark in _CUT_MARK.finditer(value):
        if mark.end() == len(value):
            return value[: mark.start()]
    return None


def cut_at(text: str, position: int) -> bool:
    """Does a truncation mark start at ``position`` of ``text`` (the spaces before a spaced mark
    included): is what ends there a head the harness cut?"""
    return _CUT_MARK.match(text, position) is not None


def _placeholder(head: str) -> bool:
    """Is the head before a cut a placeholder's, an earlier mark on its line put aside (``%ADMIN_PASSW...
    [output truncated]``: the spaced mark's head ends in the glued one)?"""
    inner = cut_head(head)
    return placeholder_head(head if inner is None else inner)


def _closers(line: str) -> list[str]:
    """The endings tried after the filler: none, the quote the line leaves open, an ``@host``."""
    endings = [""]
    for quote in "'\"":
        if line.count(quote) % 2:
            endings.append(quote)
    if _USERINFO_OPEN.search(line):
        endings.append("@cut.invalid/")
    return endings


def _cuts(text: str) -> Iterator[tuple[int, int, str, re.Match[str]]]:
    """Each cut ``text`` shows: where its line starts, where the head ends (the mark's start, less
    the spaces before a spaced mark), the line up to there and its head (the last run of non-space
    characters), for heads of :data:`CUT_HEAD_MIN` characters or more."""
    for mark in _CUT_MARK.finditer(text):
        end = mark.start()
        while mark.group("glued") is None and end > 0 and text[end - 1].isspace():
            end -= 1
        line_start = text.rfind("\n", 0, end) + 1
        line = text[line_start:end]
        head = _HEAD.search(line)
        if head is not None and len(head.group()) >= CUT_HEAD_MIN:
            yield line_start, end, line, head


def find_cut_values(
    text: str, config: RedactionConfig, scan: Callable[[str, RedactionConfig], list[Finding]]
) -> list[Finding]:
    """Heads of credentials ``text`` shows cut by a truncation mark, each a finding of the kind the
    completed line's finding has (``scan``: the detectors of pass 1, run without entropy)."""
    if _GATE.search(text) is None:
        return []
    plain = dataclasses.replace(config, entropy=False)
    found: list[Finding] = []
    for line_start, end, line, head in _cuts(text):
        for ending in _closers(line):
            hits = [
                f
                for f in scan(line + FILL + ending, plain)
                if head.start() <= f.start < len(line)
                and f.end > len(line)
                and len(line) - f.start >= CUT_HEAD_MIN
                and not _placeholder(line[f.start :])
            ]
            if hits:
                start = line_start + min(f.start for f in hits)
                found.append(Finding(hits[0].kind, start, end, text[start:end], "cut"))
                break
    return found


CUT_ROW_CONTEXT = 40
"""Lines above a cut row read with it: a table's header and the rows that show its layout."""
_CELL_SEPARATORS = ",\t;|"


def may_be_cut(text: str) -> bool:
    """Does ``text`` hold anything a truncation mark may start with (:data:`_CUT_MARK`)? A cut
    value's head stands on the mark's own line."""
    return _GATE.search(text) is not None


def _open_brackets(line: str) -> str:
    """The closers of the brackets ``line`` leaves open, innermost first (an ``INSERT``'s
    ``VALUES (1, 'x``, a call's ``f(a, "x``)."""
    stack: list[str] = []
    for ch in line:
        if ch in _CLOSER_OF:
            stack.append(_CLOSER_OF[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
    return "".join(reversed(stack))


_CLOSER_OF = {"(": ")", "[": "]", "{": "}"}


def _completions(line: str) -> Iterator[str]:
    """How a cut line may go on after the filler, for a reader of whole structures: the quote it
    leaves open (or none), then one to four more cells where it holds a cell separator (a row of
    fewer cells than its header is no row), then the brackets it leaves open."""
    separators = [c for c in _CELL_SEPARATORS if c in line]
    cells = [""] + [(separators[0] + "x") * more for more in range(1, 5)] if separators else [""]
    brackets = _open_brackets(line)
    for quote in _closers(line):
        if quote.startswith("@"):
            continue  # a URL's userinfo: find_cut_values's reading
        for more in cells:
            yield quote + more + brackets


def find_cut_cells(text: str, read_named: Callable[[str], Iterable[Finding]]) -> list[Finding]:
    """Heads of values a truncation mark cut whose name stands on a line above: a table's cell
    under its column's header, an ``INSERT``'s value under its column list, a Terraform plan's
    ``value`` beside its ``name``, an Actions debug value under ``Evaluating: secrets.X``
    (``read_named``: the readers of :func:`.positional.find_column_credentials`). The line is
    completed as :func:`find_cut_values` completes it (the filler), then as :func:`_completions`
    goes on, since these readers take whole rows and closed values only, and read with the
    :data:`CUT_ROW_CONTEXT` lines above it."""
    if not may_be_cut(text):
        return []
    found: list[Finding] = []
    for line_start, end, line, head in _cuts(text):
        context_start = line_start
        for _ in range(CUT_ROW_CONTEXT):
            if context_start == 0:
                break
            context_start = text.rfind("\n", 0, context_start - 1) + 1
        above = text[context_start:line_start]  # none where the line names its own (an INSERT's columns)
        for ending in _completions(line):
            completed = above + line + FILL + ending
            cut_at = len(above) + len(line)
            hits = [
                f
                for f in read_named(completed)
                if len(above) + head.start() <= f.start < cut_at
                and f.end > cut_at
                and cut_at - f.start >= CUT_HEAD_MIN
                and not _placeholder(completed[f.start : cut_at])
            ]
            if hits:
                start = context_start + min(f.start for f in hits)
                found.append(Finding(hits[0].kind, start, end, text[start:end], "cut"))
                break
    return found
