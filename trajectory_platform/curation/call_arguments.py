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
Python module.
"""

from __future__ import annotations

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
    depth, begin, index, quote = 0, start, start, ""
    end = min(len(text), start + reach)
    while index < end:
        ch = text[index]
        if quote:
            if ch == "\\":
                index += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                if text[begin:index].strip():
                    spans.append((begin, index))
                return spans
            depth -= 1
        elif ch == "," and depth == 0:
            spans.append((begin, index))
            begin = index + 1
        index += 1
    if not unclosed:
        return None
    return [*spans, (begin, min(index, len(text)))] if text[begin:end].strip() else spans
