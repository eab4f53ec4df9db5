"""A shell's ``printf`` that glues a password from pieces: written into a credential's file
(``printf '%s%s' a b > ~/.vault_pass``) or printed after a label in its own format
(``printf 'password=%s%s' a b``), the pieces are the password and are replaced; the command, its
format and the file stay (:mod:`trajectory_platform.curation.redact.credential_sinks`,
``decoders._printf_pieces``).

Cases are generated (formats x pieces x destinations) and split in two: the rules were written
against the development half; the validation half is held to the same standard. Controls are the
same commands with what is no password: pieces written to an ordinary file, a count or a version
after a label, variables."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"printf-labels-salt"

_PIECES = (("hunter", "tigerlily"), ("Kq7vZ", "2mXp9"), ("rT4", "wq9Z", "Lm2"), ("'s3cr'", "'etPw9'"))
_FILES = ("~/.vault_pass", "/run/secrets/db_password", ".pgpass_pw", "$HOME/.ansible_vault_password")
_LABELS = ("password=", "PASSWORD=", "db_password: ", "PGPASSWORD=", "passwd=")


def _format(label: str, count: int, newline: str) -> str:
    return f"'{label}{'%s' * count}{newline}'"


_CASES = [
    (f"printf {_format('', len(p), nl)} {' '.join(p)} {op} {f}", p)
    for p, f, (nl, op) in itertools.product(_PIECES, _FILES, (("", ">"), ("\\n", ">>")))
] + [
    (f"printf {_format(label, len(p), nl)} {' '.join(p)}{tail}", p)
    for p, label, (nl, tail) in itertools.product(_PIECES, _LABELS, (("", ""), ("\\n", " > app.env")))
]
DEVELOPMENT, VALIDATION = _CASES[::2], _CASES[1::2]

CONTROLS = [
    "printf '%s%s' build 42 > status.txt",
    "printf '%s%s\\n' $USER $HOST > ~/.vault_pass",
    "printf 'count=%s%s' 4 2",
    "printf 'version=%s' 1.2.3",
    "printf 'user=%s%s' bob by",
    "printf 'password=%s\\n' \"$PW\"",
    "printf '%s%s' ab cd",
    "printf '%s\\n' one two three > notes.txt",
]


def _leaks(line: str, pieces: tuple[str, ...]) -> bool:
    out = redact_text(line, SALT, shell=True)[0]
    return any(piece.strip("'") in out for piece in pieces) or not out.startswith("printf '")


@pytest.mark.parametrize(("line", "pieces"), DEVELOPMENT + VALIDATION, ids=range(len(_CASES)))
def test_printf_pieces_of_a_password_are_replaced(line: str, pieces: tuple[str, ...]) -> None:
    assert not _leaks(line, pieces)


@pytest.mark.parametrize("line", CONTROLS, ids=range(len(CONTROLS)))
def test_printf_of_no_password_is_kept(line: str) -> None:
    assert redact_text(line, SALT, shell=True)[0] == line
