"""Backticks opened right after an assignment's ``=`` are a shell's command substitution, not a
Markdown code span: the program they run is no password, and what they print (the pieces a
``printf`` glues) still is (:func:`trajectory_platform.curation.redact.references.is_backtick_substitution`).

The cases are generated (names x commands) and split in two: the rule was written against the
development half; the validation half is held to the same standard."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"assigned-backticks-salt"

_NAMES = ("PGPASSWORD", "DB_PASSWORD", "export API_TOKEN", "SECRET", "password", "MYSQL_PWD", "local pw")
_COMMANDS = (
    "openssl rand 24",
    "gh auth token",
    "head /dev/urandom",
    "vault kv get -field=pw secret/db",
    "jq .token creds.json",
    "pass show prod",
    "aws ecr get-login-password",
    "security find-generic-password -w -s db",
)
_CASES = [f"{name}=`{command}` ./run.sh" for name, command in itertools.product(_NAMES, _COMMANDS)]
DEVELOPMENT, VALIDATION = _CASES[::2], _CASES[1::2]

_PRINTF_GLUED = [
    ("PGPASSWORD=`printf '%s%s' Kq7vZ 2mXp9` psql -h db", ("Kq7vZ", "2mXp9")),
    ("export DB_PASSWORD=`printf %s%s%s rT4 wq9Z Lm2` && ./migrate", ("rT4", "wq9Z", "Lm2")),
]

CONTROLS = [  # a label and its value in Markdown: redacted as before
    ("Set DB_PASSWORD=`hunter2` in the file", "hunter2"),
    ("password: `correct horse battery staple`", "correct horse battery staple"),
    ("The token is `Qz8vKp2LmW4x`", "Qz8vKp2LmW4x"),
]


@pytest.mark.parametrize("line", DEVELOPMENT + VALIDATION, ids=range(len(_CASES)))
def test_a_substituted_command_is_kept(line: str) -> None:
    assert redact_text(line, SALT, shell=True)[0] == line
    assert redact_text(line, SALT)[0] == line


@pytest.mark.parametrize(("line", "pieces"), _PRINTF_GLUED, ids=["two_pieces", "three_pieces"])
def test_the_glued_printf_pieces_are_redacted_and_printf_kept(line: str, pieces: tuple[str, ...]) -> None:
    for shell in (True, False):
        out = redact_text(line, SALT, shell=shell)[0]
        assert "`printf " in out
        assert not any(piece in out for piece in pieces)


@pytest.mark.parametrize(("text", "secret"), CONTROLS, ids=["assigned", "phrase", "prose"])
def test_markdown_values_stay_redacted(text: str, secret: str) -> None:
    assert secret not in redact_text(text, SALT)[0]
