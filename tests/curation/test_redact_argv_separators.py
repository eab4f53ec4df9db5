"""Red team, round 16 (2026-12-07): a command line read from ``/proc/PID/cmdline`` (or
``/proc/PID/environ``) separates its arguments with NUL bytes, which a log keeps as they are, as
JSON's ``\\u0000`` or as ``cat -v``'s ``^@``. A flag and its value one NUL apart
(``--db-password``, NUL, a word password) were no flag and value to the label rules, which read a
space there, so a password only a label names stayed. Commands, flags and separators are split
into a development and a validation half. Controls: NUL-separated arguments and variables that
hold no credential, and UTF-16 text, stay as they are."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"argv-separators-salt"

ARGV = {
    "development": [
        ["node", "/srv/app/server.js", "--db-password", "Copperorchid2725!", "--port", "8080"],
        ["mysql", "-uroot", "-pMeadowlantern77#", "appdb"],
    ],
    "validation": [
        ["python3", "worker.py", "--api-token", "Thunderharbor4410$", "--queue", "jobs"],
        ["redis-cli", "-h", "cache", "-a", "Silverrocket9031!", "ping"],
    ],
}
SEPARATORS = {
    "development": [lambda args: "\x00".join(args) + "\x00", lambda args: "^@".join(args)],
    "validation": [lambda args: json.dumps({"stdout": "\x00".join(args)}), lambda args: "\x00".join(args)],
}
CASES = [
    pytest.param(join(args), password, id=f"{half}-{i}-{j}")
    for half, commands in ARGV.items()
    for i, args in enumerate(commands)
    for password in [next(a for a in args if any(c in a for c in "!#$"))]
    for j, join in enumerate(SEPARATORS[half])
]


@pytest.mark.parametrize(("text", "password"), CASES)
def test_a_password_after_its_flag_one_nul_apart_is_replaced(text: str, password: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert password.lstrip("-pu")[:10] not in redacted


CONTROLS = [
    "node\x00/srv/app/server.js\x00--port\x008080\x00--workers\x004\x00",
    "PATH=/usr/local/bin:/usr/bin\x00HOME=/root\x00LANG=C.UTF-8\x00",
    "python3^@-m^@http.server^@8000",
    "A\x00P\x00I\x00 \x00k\x00e\x00y\x00s\x00",
]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_nul_separated_words_without_a_credential_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
