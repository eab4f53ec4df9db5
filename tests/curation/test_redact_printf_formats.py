"""A shell's ``printf`` whose format holds text around its placeholders writes a credential into a
document or a command (``printf '{"password":"%s"}' pw``, ``printf '[client]\\npassword=%s\\n' pw >
~/.my.cnf``): the argument is read where the format puts it and replaced; the command, the format
and what is no credential stay (:mod:`trajectory_platform.curation.redact.printf_formats`).

Cases are generated (passwords x format layouts) and split in two: the view was written against the
development layouts; the validation layouts (YAML, XML, a connection string, an AWS credentials
file, a JSON member, a command line, Python, two placeholders) are held to the same standard.
Controls: formats that print no credential, a variable, and a conversion the view does not read."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"printf-formats-salt"

DEVELOPMENT_LAYOUTS = [
    'printf \'{{"password":"%s"}}\' {w}',
    "printf 'user=admin password=%s\\n' {w}",
    "printf '[client]\\npassword=%s\\n' '{w}' > ~/.my.cnf",
    "printf -- '--password=%s' {w}",
    "printf 'PGPASSWORD=%s psql -h db\\n' \"{w}\"",
    "printf 'db_pass = \"%s\"\\n' {w}",
]
VALIDATION_LAYOUTS = [
    "printf 'password: \"%s\"\\n' {w} > config.yml",
    "printf '<password>%s</password>\\n' {w}",
    "printf 'DATABASE_URL=postgres://app:%s@db:5432/prod\\n' {w} >> .env",
    "printf '[default]\\naws_secret_access_key = %s\\n' {w} > ~/.aws/credentials",
    "printf '\"db_password\": \"%s\",\\n' '{w}'",
    "printf 'mysql -uroot -p%s -e \"show databases\"\\n' {w}",
    "printf \"SECRET_KEY='%s'\\n\" {w} >> settings.py",
    "printf 'auth.password=%s\\nauth.user=%s\\n' {w} bob",
]
_DEVELOPMENT_WORDS = ("hunter2", "bluehorse42", "Kq7vZ2mXp9")
_VALIDATION_WORDS = ("tigerlily7", "Falcon99!", "q8Zr2vLm4T")


def _cases(layouts: list[str], words: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(layout.format(w=word), word) for layout, word in itertools.product(layouts, words)]


DEVELOPMENT = _cases(DEVELOPMENT_LAYOUTS, _DEVELOPMENT_WORDS)
VALIDATION = _cases(VALIDATION_LAYOUTS, _VALIDATION_WORDS)

CONTROLS = [
    "printf 'user=%s host=%s\\n' bob db1",
    "printf 'Hello, %s!\\n' world",
    'printf \'{"count": "%s"}\' 42',
    "printf 'password=%s\\n' \"$DB_PASSWORD\"",
    "printf 'path=%s\\n' /tmp/build > out.txt",
    "printf '%-10s %s\\n' name value",
    "printf 'token_name=%s\\n' deploy-key",
]


def _leaked(text: str, word: str) -> bool:
    out = redact_text(text, SALT, shell=True)[0]
    return word in out or not out.startswith("printf ")


@pytest.mark.parametrize(
    ("text", "word"), DEVELOPMENT + VALIDATION, ids=range(len(DEVELOPMENT) + len(VALIDATION))
)
def test_a_credential_printf_writes_into_its_format_is_replaced(text: str, word: str) -> None:
    assert not _leaked(text, word)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_printf_formats_of_no_credential_are_kept(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text
