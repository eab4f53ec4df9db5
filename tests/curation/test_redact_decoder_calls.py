"""A credential's name assigned what a decoding call returns (``DB_PASSWORD=$(echo 'uhagre' | tr
'A-Za-z' 'N-ZA-Mn-za-m')``, ``password = base64.b64decode('...').decode()``, ``atob('...')``): the
encoded literal is the credential and is replaced; the call and the name stay
(:mod:`trajectory_platform.curation.redact.decoder_calls`).

Cases are generated (word passwords x carriers) and split in two: the rule was written against the
development carriers (a shell's ``tr`` and ``base64 -d`` substitutions, Python's ``codecs`` and
``b64decode``, ``atob``); the validation carriers (backquotes, a here-string, ``openssl base64``,
``tr`` sets written otherwise, PHP, Ruby, PowerShell, Node, Java) are held to the same standard.
Controls: the same calls under names that are no credential's, and calls that decode nothing."""

from __future__ import annotations

import base64
import codecs
import itertools
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"decoder-calls-salt"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _rot(text: str) -> str:
    return codecs.encode(text, "rot13")


Carrier = Callable[[str], str]

_TR = "tr 'A-Za-z' 'N-ZA-Mn-za-m'"
DEVELOPMENT_CARRIERS: list[tuple[Carrier, Carrier, bool]] = [
    (_rot, lambda e: f"DB_PASSWORD=$(echo '{e}' | {_TR})", True),
    (_b64, lambda e: f"export API_TOKEN=$(echo {e} | base64 -d)", True),
    (_rot, lambda e: f"password = codecs.decode('{e}', 'rot13')", False),
    (_b64, lambda e: f"db_password = base64.b64decode('{e}').decode()", False),
    (_b64, lambda e: f"const secret = atob('{e}');", False),
]
VALIDATION_CARRIERS: list[tuple[Carrier, Carrier, bool]] = [
    (_b64, lambda e: f"TOKEN=`echo -n {e} | base64 --decode`", True),
    (_b64, lambda e: f"export MYSQL_PWD=$(base64 -d <<< '{e}')", True),
    (_b64, lambda e: f"PGPASSWORD=$(echo {e} | openssl base64 -d)", True),
    (_rot, lambda e: f"ADMIN_PASS=$(echo {e} | tr '[a-zA-Z]' '[n-za-mN-ZA-M]')", True),
    (_b64, lambda e: f"$db_password = base64_decode('{e}');", False),
    (_rot, lambda e: f"$password = str_rot13('{e}');", False),
    (_b64, lambda e: f'SECRET_KEY = Base64.decode64("{e}")', False),
    (
        _b64,
        lambda e: (
            f"$password = [System.Text.Encoding]::UTF8.GetString([System.Convert]::FromBase64String('{e}'))"
        ),
        False,
    ),
    (_b64, lambda e: f"const apiKey = Buffer.from('{e}', 'base64').toString('utf8');", False),
    (_b64, lambda e: f'String password = new String(Base64.getDecoder().decode("{e}"));', False),
]
_DEVELOPMENT_WORDS = ("hunter2", "bluehorse42", "Maple2024!", "correcthorse")
_VALIDATION_WORDS = ("tigerlily7", "Falcon99", "orangesky", "letmein2025")


def _cases(
    carriers: list[tuple[Carrier, Carrier, bool]], words: tuple[str, ...]
) -> list[tuple[str, str, bool]]:
    return [
        (carry(encode(w)), encode(w), shell)
        for (encode, carry, shell), w in itertools.product(carriers, words)
    ]


DEVELOPMENT = _cases(DEVELOPMENT_CARRIERS, _DEVELOPMENT_WORDS)
VALIDATION = _cases(VALIDATION_CARRIERS, _VALIDATION_WORDS)

CONTROLS = [
    (f"GREETING=$(echo '{_rot('hello')}' | {_TR})", True),
    (f"export REGION=$(echo {_b64('eu-west-1')} | base64 -d)", True),
    (f"title = codecs.decode('{_rot('Welcome')}', 'rot13')", False),
    (f"body = base64.b64decode('{_b64('plain text')}').decode()", False),
    ("const label = atob('aGVsbG8=');", False),
    ("password = base64.b64decode(encoded).decode()", False),
    ('DB_PASSWORD=$(echo "$ENCODED" | base64 -d)', True),
    ("echo 'uryyb' | tr 'a-z' 'b-za'", True),
]


def _leaked(text: str, encoded: str, shell: bool) -> bool:
    return encoded in redact_text(text, SALT, shell=shell)[0]


@pytest.mark.parametrize(
    ("text", "encoded", "shell"), DEVELOPMENT + VALIDATION, ids=range(len(DEVELOPMENT) + len(VALIDATION))
)
def test_a_credential_decoded_by_a_call_is_replaced(text: str, encoded: str, shell: bool) -> None:
    assert not _leaked(text, encoded, shell)


@pytest.mark.parametrize(("text", "shell"), CONTROLS, ids=range(len(CONTROLS)))
def test_decoding_calls_of_no_credential_are_kept(text: str, shell: bool) -> None:
    assert redact_text(text, SALT, shell=shell)[0] == text
