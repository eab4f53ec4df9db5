"""A line entry's value of several words (``passphrase: correct horse battery staple``, an ``.env``
file's line, a YAML block scalar) is one value, delimited by its line
(``curation/redact/line_values.py``)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"rows-and-phrases"
PW = "Kestrel4471&"
"""Memorable: entropy leaves it, so only the layout can find it."""


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


PHRASE = "violet tractor eats 9 pancakes"
PHRASES = {
    "yaml_entry": f"passphrase: {PHRASE}",
    "yaml_nested": f"smtp:\n  host: mail.internal\n  password: {PHRASE}\n  port: 25",
    "yaml_with_comment": f"secret: {PHRASE}  # rotate monthly",
    "yaml_possessive_start": "db_password: my cat ate 12 socks",
    "env_file": f"# local settings\nAPP_HOST=localhost\nKEY_PASSPHRASE={PHRASE}\nAPP_PORT=8000",
    "block_literal": f"auth:\n  password: |\n    {PHRASE}\n  user: admin",
    "block_folded_strip": f"auth:\n  passphrase: >-\n    {PHRASE}\n",
}


@pytest.mark.parametrize("case", sorted(PHRASES))
def test_a_line_entry_value_of_several_words_is_replaced_whole(case: str) -> None:
    out = _redacted(PHRASES[case])
    words = PHRASE.split() if case != "yaml_possessive_start" else ["cat", "socks"]
    assert not any(f" {word}" in out or out.endswith(word) for word in words if len(word) > 2), out


NOT_PHRASES = [
    "Password: not set",
    "Token: see the README for details",
    "password_confirmation: Password confirmation",
    "DB_PASSWORD=$DB_PASS\nRUN_CMD=npm run start",
    "        expecter.spawn.async_pw_transport = pw, transport",
]


@pytest.mark.parametrize("text", NOT_PHRASES)
def test_remarks_after_a_label_and_shell_commands_are_kept(text: str) -> None:
    assert _redacted(text) == text


def test_a_shell_line_keeps_its_command_after_the_assignment() -> None:
    out = _redacted(f"DB_PASSWORD={PW} python manage.py migrate")
    assert PW not in out and out.endswith(" python manage.py migrate")
