"""The random-looking literals of a credential that code computes by joining strings.

``password = base + "Xk9mQ2vL7pRt"`` is an expression, not a value: the labelled-value rules
leave it (:func:`.not_values.joined_to_literal`: a word's literal joined to a variable, such as
``prefix + "-dev"``, is code). The expression can still hold the secret's fixed part, and a
literal that scores as a random key (:func:`.entropy.looks_random`, or random letters in one case)
is no suffix a program chooses (nor are letters whose case flips at random, :func:`mixed_at_random`):
it is redacted, alone, and the variable and the ``+`` stay. A
literal that reads as a word, a date, a path or an address (``"-dev"``, ```_2024```,
``"@example.com"``) stays with the code. The same in either order (``"Xk9m..." + suffix``) and in a
template literal's text beside its ``${...}`` (session 45).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trajectory_platform.curation.redact.credential_names import credential_class
from trajectory_platform.curation.redact.entropy import looks_random
from trajectory_platform.curation.redact.model import Finding
from trajectory_platform.curation.redact.not_values import joined_to_literal
from trajectory_platform.curation.redact.spelling import case_flips_at_random, random_letters

_LITERAL = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`"
_OPERAND = rf"(?:{_LITERAL}|[A-Za-z_$][\w$.]*(?:\(\))?)"
_NAME = r"[A-Za-z_][\w.-]{0,63}"
_JOIN = re.compile(
    rf"(?P<name>\"{_NAME}\"|'{_NAME}'|{_NAME})[ \t]*(?::=|=>|[=:])[ \t]*"
    rf"(?P<expr>{_OPERAND}(?:[ \t]*\+[ \t]*{_OPERAND})+|`[^`\n]*\$\{{[^`\n]*`)"
)
"""A name, an assignment's or a key's operator, and operands joined by ``+`` (or a template literal
that interpolates)."""
_HINT = re.compile(r"[\"'`][ \t]*\+|\+[ \t]*[\"'`]|`[^`\n]*\$\{")
"""A quote beside a ``+``, or a template literal that interpolates: the cheap test first."""
_PIECE = re.compile(rf"{_LITERAL}")
_INTERPOLATION = re.compile(r"\$\{[^}\n]*\}")
_CASED_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]")
"""A camel-case word, a capital alone where no small letters follow it (an acronym, letter by letter)."""
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
MIN_PIECE = 8
"""A shorter literal is a suffix or a separator as often as a key's piece (``hunter2`` scores as
random)."""


def _pieces(literal: str, at: int) -> Iterator[tuple[int, int]]:
    """The spans of a literal's text, a template literal's between its interpolations."""
    start, end = at + 1, at + len(literal) - 1
    if literal[0] != "`":
        yield start, end
        return
    for interpolation in _INTERPOLATION.finditer(literal, 1, len(literal) - 1):
        yield start, at + interpolation.start()
        start = at + interpolation.end()
    yield start, end


def mixed_at_random(piece: str) -> bool:
    """Letters alone whose case flips as a random key's does (``"qWeRtzXYabcK"``), with a word of
    three letters or more and no vowel among the words its capitals start (``Rtz``): no digit marks
    them and :func:`.entropy.looks_random` asks one of a literal this short (red team, session 45),
    but no suffix a program joins on is cased or spelled so (``"ProdDbSuffix"``, ``"HTTPServer"``,
    ``"MyAppSecret"``: short words, an acronym, each word with its vowel)."""
    if not (piece.isascii() and piece.isalpha() and case_flips_at_random(piece)):
        return False
    return any(len(word) >= 3 and not _VOWEL.search(word) for word in _CASED_WORD.findall(piece))


def find_joined_literals(text: str) -> Iterator[Finding]:
    """Each random-looking literal of an expression a credential's name is assigned (module
    docstring)."""
    if _HINT.search(text) is None:
        return
    for join in _JOIN.finditer(text):
        name_class = credential_class(join.group("name").strip("\"'"))
        if name_class is None or not joined_to_literal(text, join.start("expr")):
            continue
        for literal in _PIECE.finditer(text, join.start("expr"), join.end("expr")):
            for start, end in _pieces(literal.group(), literal.start()):
                piece = text[start:end]
                if len(piece) >= MIN_PIECE and (
                    looks_random(piece) or random_letters(piece) or mixed_at_random(piece)
                ):
                    kind = "PASSWORD" if name_class == "password" else "SECRET"
                    yield Finding(kind, start, end, piece, "joined_literal")
