"""A shell line's words as bash splits them: the one splitter of every curation reader of shell lines.

The verifier (replay, git history, action safety, write targets, shell indirection, the call
records, SWE-agent's tool lines), dedup's padding test and redaction (a file written in pieces, a
password-hashing command's operands) read a shell line as words. Dedup built its own ``shlex`` lexer
beside the verifier's (and read an empty quoted word, ``echo ''``, as an operator: the empty set of
its characters is inside every set). Redaction's file writes split without ``whitespace_split``, so
``a,b``, ``user:`` or ``$KEY`` left unquoted became several words and a piece written to a file was
rebuilt with spaces that were never in it (a password written after ``user:`` was never seen whole);
its hashing commands split with :func:`shlex.split`, which knows no operator (``pw>hash.txt`` was
one operand, the file name replaced with the password; ``pw 2>/dev/null`` made the redirection the
password and left the password). One line was different words to different readers, and a fix to one
reader's quoting missed the others. Here is the one splitter; ``curation.redact`` and
``curation.verify`` are siblings that never import each other, so it sits in ``curation`` itself,
below both.

It takes no options: every reader needs the same words (bash's), and a reader that wants less
(only list operators, only redirections) filters the words, never re-splits the line.
"""

from __future__ import annotations

import shlex

OPERATOR_CHARACTERS = frozenset("();<>|&")
"""The characters bash reads as operators outside quotes (lists, pipes, redirections, subshells)."""


def bash_words(line: str) -> list[str] | None:
    """``line``'s words as bash splits them: quotes removed, each run of operator characters
    (``|``, ``&&``, ``;``, ``>``, ``2>`` as ``2`` then ``>``, parentheses) a word of its own;
    ``None`` where bash would reject the line (an open quote)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


def is_operator(word: str) -> bool:
    """Whether a word of :func:`bash_words` is a run of operator characters (``|``, ``>>``,
    ``);``): a separator or a redirection, never a program's argument. (Quotes are removed, so a
    quoted ``'|'`` reads as one too; the readers accept that for a word no honest argument is.)"""
    return bool(word) and set(word) <= OPERATOR_CHARACTERS


def substituted_or_redirected(text: str, command_start: int, position: int) -> bool:
    """Whether the word at ``position`` of the command starting at ``command_start`` is no literal
    operand: it sits inside a command substitution opened after the command started (``$(cat
    /run/pw)``, a backquoted one), or is a redirection or its target (``>log``, ``2>&1``, ``>
    /tmp/out``; a here-string's ``<<< PW`` is the command's input, a literal). A reader that takes
    an operand by its place (the password after ``-N``, a user's then a password's word) reads
    neither as the value: a substitution's words are another command's, a redirection's target a
    file. A substitution the whole command runs in (``OUT=$(sshpass -p PW ...)``) opened before
    ``command_start`` and does not count."""
    depth, backquoted, quote, index = 0, False, "", command_start
    while index < position:
        char = text[index]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            index += 1
        elif char == '"':
            quote = "" if quote else '"'
        elif char == "'" and not quote:
            quote = "'"
        elif text.startswith("$(", index):
            depth += 1
            index += 1
        elif char == ")" and depth:
            depth -= 1
        elif char == "`":
            backquoted = not backquoted
        index += 1
    if depth or backquoted or text[position : position + 1] in ("<", ">", "&"):
        return True
    word_start = position
    while word_start > command_start and not text[word_start - 1].isspace():
        word_start -= 1
    before = text[command_start:word_start].rstrip() + text[word_start:position].rstrip("\"'")
    return before.endswith(("<", ">", "$(", "`")) and not before.endswith("<<<")


def tr_ranges_spelt_out(spec: str) -> str:
    """A ``tr`` set with its ranges spelt out (``a-z``, ``N-ZA-M``), as GNU ``tr`` reads them: a
    range whose ends are in descending order is no range, its three characters stand for
    themselves. One reading for the verifier's shell indirection and redaction's decoder calls,
    which both decide whether a ``tr`` is ROT13 (quotes, brackets and escapes are each caller's)."""
    out: list[str] = []
    index = 0
    while index < len(spec):
        if index + 2 < len(spec) and spec[index + 1] == "-" and spec[index] <= spec[index + 2]:
            out.extend(chr(code) for code in range(ord(spec[index]), ord(spec[index + 2]) + 1))
            index += 3
        else:
            out.append(spec[index])
            index += 1
    return "".join(out)
