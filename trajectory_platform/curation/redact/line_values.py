"""Values that their line delimits: the words after a credential's name in a YAML entry, an
``.env`` line or a YAML block scalar, where no quote marks where the value ends.

A quoted value's extent is its quotes; an unquoted one's, in code, ends at a space. In a
line-oriented file it ends at the line's end: ``passphrase: correct horse battery staple`` and an
``.env`` file's ``DB_PASSWORD=my dog ate 7 cookies`` (dotenv reads the rest of the line) hold one
value of several words. Cut at the first space, the pseudonym took one word and the rest of the
passphrase stayed; a first word that reads as a placeholder (``my``) kept all of it.

Such a line is also where prose writes a label and a remark (``Password: not set``, ``Secret:
stored in the vault``, ``Token: see the README``), so a phrase counts as the value only when no
word of it is one a remark needs and a passphrase does not (:data:`_REMARK_WORDS`), such as a
credential's own name (``Password: reset your password``).
"""

from __future__ import annotations

import re

_PHRASE = re.compile(r"[A-Za-z0-9][\w'!?.#@$%&*+-]*(?:[ \t]+[\w'!?.#@$%&*+-]+){1,23}")
"""Two to twenty-four words (a wallet's recovery phrase is 12 or 24) of letters, digits and a
password's usual symbols: no quote, bracket, comma, path separator, ``=`` or ``:`` (a mapping, a
call, a tuple, a command's arguments)."""
_REMARK_WORDS = frozenset(
    {
        *("not", "no", "none", "must", "should", "will", "can", "cannot", "may", "please"),
        *("enter", "here", "see", "set", "unset", "required", "optional", "provided", "stored", "saved"),
        *("use", "using", "used", "least", "than", "characters", "character", "chars", "is", "are"),
        *("be", "been", "was", "were", "via", "from", "your", "changed", "updated", "reset", "hidden"),
        *("redacted", "masked", "omitted", "empty", "missing", "default", "same", "above", "below"),
        *("env", "environment", "variable", "vault", "file", "config", "todo", "tbd", "if", "when"),
        *("password", "passwords", "passphrase", "secret", "secrets", "token", "tokens", "key", "keys"),
    }
)
"""Words of a remark about a value rather than the value: what it is not, where it is, what to do.
A passphrase is content words (``correct horse battery staple``, ``my dog ate 7 cookies``)."""
_WORD = re.compile(r"[A-Za-z]+")
_LOCATIVE_WORDS = frozenset(
    {"in", "on", "at", "by", "to", "of", "for", "with", "under", "inside", "the", "a", "an"}
)
"""Words that place a value rather than spell it (``stored in the vault``, ``written on the
card``): beside a plain first word, a clause; a passphrase of content words holds none."""
_PLAIN_WORD = re.compile(r"[a-z]+")


def line_phrase(value: str) -> bool:
    """Does ``value``, the rest of a line after a password's name, read as a passphrase of several
    words rather than a remark (module docstring)? One word is the single-token rules' case."""
    if len(value) > 200 or not _PHRASE.fullmatch(value):
        return False
    words = [word.lower() for word in _WORD.findall(value)]
    return bool(words) and not any(word in _REMARK_WORDS for word in words)


_ENV_FILE_LINE = re.compile(r"[ \t]*(?:#|(?:export[ \t]+)?[A-Z_][A-Z0-9_]*=)")
"""A line of an ``.env`` file: a comment or another ``NAME=`` entry."""


def in_env_file(text: str, line_start: int, line_end: int) -> bool:
    """Is the line ``text[line_start:line_end]`` one of an ``.env`` file's, by its neighbours: the
    line before or after it is a comment or another entry? There ``NAME=two words`` is one value
    (dotenv reads to the line's end); alone on a shell's line it is ``NAME=two`` and a command
    (``DB_PASSWORD=x python app.py``)."""
    before = text.rfind("\n", 0, max(0, line_start - 1)) + 1
    if line_start > 0 and _ENV_FILE_LINE.match(text, before, line_start - 1):
        return True
    return line_end < len(text) and _ENV_FILE_LINE.match(text, line_end + 1) is not None


def line_remark(value: str) -> bool:
    """Does ``value``, the rest of a line after a label's colon, read as an English remark about
    the credential rather than the credential (``Secret: stored in the vault``, ``Passphrase:
    written on the card``)? Three words or more, the first a plain small-letter word, another a
    remark's or one that places the value (:data:`_REMARK_WORDS`, :data:`_LOCATIVE_WORDS`). Read
    word by word, the first word alone (``stored``) was taken for a password and the sentence lost
    it. Two words stay the single-token rules' (``password: keep empty`` is labelled a password in
    the CredSweeper corpus)."""
    if len(value) > 200 or not _PHRASE.fullmatch(value):
        return False
    words = value.split()
    if len(words) < 3 or not _PLAIN_WORD.fullmatch(words[0]):
        return False
    rest = {word.lower() for word in _WORD.findall(" ".join(words[1:]))}
    return bool(rest & (_REMARK_WORDS | _LOCATIVE_WORDS))
