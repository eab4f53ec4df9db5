"""A code call's top-level arguments, read from text: one reading for redaction and the verifier.

Redaction's binding rules, credential sinks and login calls (a literal passed to ``hashpw(...)``,
``login(user, pw)``) and the verifier's action screen (the argv list ``subprocess.run([...])``
starts: :mod:`.verify.argv_calls`) both split a call's text at its top-level commas. Each had its
own scanner: the screen's ended a string at any quote not right after a backslash, so a literal
ending in an escaped backslash (``"C:\\\\tmp\\\\"``) never closed, and the call's argument list ran on
past its ``)`` into whatever code followed, whose strings became words of the started program;
it did not know template literals (a backquoted JavaScript string's commas split it). Redaction's
did both right. ``curation.redact`` and ``curation.verify`` are siblings that never import each
other, so the one reading sits in ``curation`` itself, below both (as :mod:`.shell_split` does for
shell lines).

What differs by reader is only how far to read: ``reach`` (an argv list is longer than a
password's call) and whether an unclosed call still counts (``unclosed``: the screen reads a
diff's added lines, which may stop before the ``)``; redaction reads no call it cannot close).
Text, not a parse: the calls sit in shell lines, heredocs and other languages as often as in a
Python module. Where a bracket closes (:func:`closing_bracket`) is the same reading: redaction's
blocks of security answers had their own twin of it, which knew no backquoted string, and a
template literal holding a ``]`` ended the block before the answer.
"""

from __future__ import annotations

from collections.abc import Iterator

REACH = 600
"""How far past the ``(`` a call's arguments are read by default (a password's call is short)."""


def call_arguments(
    text: str, start: int, reach: int = REACH, unclosed: bool = False
) -> list[tuple[int, int]] | None:
    """The top-level argument spans of the call whose ``(`` is just before ``start`` (commas
    inside brackets and string literals, quoted with ``'``, ``"`` or a backquote and escaped with
    a backslash, do not split). A call that does not close within ``reach`` characters gives
    ``None``, or with ``unclosed`` the spans read so far."""
    spans: list[tuple[int, int]] = []
    begin = start
    end = min(len(text), start + reach)
    for index, char in _top_level(text, start, end):
        if char == ",":
            spans.append((begin, index))
            begin = index + 1
        else:
            if text[begin:index].strip():
                spans.append((begin, index))
            return spans
    if not unclosed:
        return None
    return [*spans, (begin, end)] if text[begin:end].strip() else spans


def closing_bracket(text: str, start: int, limit: int) -> int | None:
    """Where the bracket opened just before ``start`` closes: the first closing bracket at its
    level, nested brackets and string literals skipped as :func:`call_arguments` skips them (a
    block of knowledge-based answers ends there too: :mod:`.redact.kba_answers`); ``None`` when it
    does not close before ``limit``."""
    for index, char in _top_level(text, start, limit):
        if char != ",":
            return index
    return None


def _top_level(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    """Each comma at the level of ``start`` and then the closing bracket that ends that level
    (after which nothing more), with its index, up to ``end``: the one reading of nesting and
    string literals."""
    depth, index, quote = 0, start, ""
    while index < end:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                yield index, char
                return
            depth -= 1
        elif char == "," and depth == 0:
            yield index, char
        index += 1
