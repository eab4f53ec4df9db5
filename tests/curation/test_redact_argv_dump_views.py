"""``/proc/PID/cmdline`` and ``environ`` (NUL-separated) seen quoted-printable or as an ``xxd`` dump.

A NUL between a flag and its value reads as a space (the ``argv_separators`` view), but the
quoted-printable view left a lone ``=00`` encoded, and the dump view counted the NULs as binary
(one byte in ten of an argv), so neither view reached the separator view. Generated: word passwords
x argv and environ shapes x the two encodings; development and validation differ by command, flag
and variable. Controls: NUL-separated text with no credential and a binary file's dump stay."""

from __future__ import annotations

import random

import pytest

from tests.curation._encodings import quoted_printable, unquoted_printable, unxxd, xxd
from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"argv-dump-views-salt"
DEVELOPMENT = {
    "cmdline_flag": lambda p: (
        f"$ cat /proc/4242/cmdline\nnode\x00server.js\x00--db-password\x00{p}\x00--port\x008080\x00"
    ),
    "environ_variable": lambda p: (
        f"$ cat /proc/1/environ\nPATH=/usr/bin\x00HOSTNAME=web-1\x00DB_PASSWORD={p}\x00HOME=/root\x00"
    ),
}
VALIDATION = {
    "cmdline_long_flag": lambda p: (
        f"cat /proc/977/cmdline\nmysql\x00-u\x00root\x00--password\x00{p}\x00-h\x00db\x00"
    ),
    "cmdline_property": lambda p: (
        f"$ cat /proc/31/cmdline\njava\x00-Dspring.datasource.password={p}\x00-jar\x00app.jar\x00"
    ),
    "environ_self": lambda p: (
        f"# cat /proc/self/environ\nLANG=C.UTF-8\x00SMTP_PASSWORD={p}\x00TERM=xterm\x00"
    ),
}
ENCODINGS = {"qp": (quoted_printable, unquoted_printable), "xxd": (xxd, unxxd)}


def _cases(table: dict, half: str) -> list:
    cases = []
    for name, carrier in sorted(table.items()):
        for encoding, (encode, decode) in ENCODINGS.items():
            g = random.Random(f"{name}{encoding}")
            password = word_password(g, (100, 999), "!#%")
            cases.append(
                pytest.param(encode(carrier(password)), decode, password, id=f"{half}-{name}-{encoding}")
            )
    return cases


@pytest.mark.parametrize(
    ("text", "decode", "password"), _cases(DEVELOPMENT, "dev") + _cases(VALIDATION, "val")
)
def test_a_password_in_a_nul_separated_argv_dumped_or_quoted_printable_is_replaced(
    text: str, decode, password: str
) -> None:
    redacted, _ = redact_text(text, SALT)
    assert password[:10] not in decode(redacted)
    assert password[:10] not in redacted.replace("\n", "")


CONTROLS = [
    quoted_printable("$ cat /proc/4242/cmdline\nnode\x00server.js\x00--port\x008080\x00--workers\x004\x00"),
    xxd("$ cat /proc/1/environ\nPATH=/usr/local/bin:/usr/bin\x00HOME=/root\x00LANG=C.UTF-8\x00"),
    xxd(
        "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01\x00\x00\x00libc.so.6\x00puts\x00"
    ),
    quoted_printable("python3\x00-m\x00http.server\x008000\x00--bind\x00127.0.0.1\x00"),
]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_nul_separated_text_without_a_credential_is_kept_through_the_views(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
