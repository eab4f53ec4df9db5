"""A command's password operand is a literal word, never a redirection, its target or a substitution.

Positional rules say which word of a command is the password (``htpasswd -b FILE USER PW``,
``sshpass -p PW``, ``ssh-keygen -N PW``). When that word is missing and a redirection follows
(``htpasswd -b .htpasswd ana > /tmp/log``), the rules took the word before it (the user's name) or
the redirection's target as the password; when the value comes from elsewhere, a command
substitution (``$(cat /run/pw)``, a backquoted one) or a variable, they took a piece of the
substitution, and the replacement swallowed its ``)``: the line stopped being a shell line.

Generated cases: command families (the last ones held out for validation), the password as a literal
word (it must go, the rest of the line stay byte for byte), missing before a redirection or a
here-document (the line must stay), or read from a substitution or a variable (the line must stay).
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

COMMANDS = [
    "htpasswd -b /etc/nginx/.htpasswd {user} {pw}",
    "htpasswd -bB .htpasswd {user} {pw}",
    "sshpass -p {pw} ssh {user}@build-7 uptime",
    "ssh-keygen -t ed25519 -f id_deploy -N {pw}",
    "mysqladmin -u {user} password {pw}",
    "openssl enc -aes-256-cbc -in a.tar -out a.enc -k {pw}",
    "rdesktop -u {user} -p {pw} win-3",
    "htpasswd -nbB {user} {pw}",
    "xfreerdp /u:{user} /p:{pw} /v:win-4",
    "sudo useradd-helper add_user {user} {pw}",
    "mc alias set store https://s3.example.com {user} {pw}",
    "openssl passwd -6 {pw}",
]
"""Commands whose syntax places the password: the first eight for development, the rest held out."""
DEV_COMMANDS, VALIDATION_COMMANDS = COMMANDS[:8], COMMANDS[8:]
SUFFIXES = ["", " > /tmp/out.log", " 2>&1", " >/dev/null 2>&1", " &> run.log", " >> audit.txt", " | tee log"]
SOURCES = ["$(cat /run/pw)", '"$(cat /run/secrets/pw)"', "`cat /run/secrets/pw`", '"$PW"', "${ADMIN_PW}"]
"""Where a password read from elsewhere stands in the line: a substitution or a variable."""


def _password(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(12, 18)))


def _cases(commands: list[str], seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """``(literal lines with their password, lines that must stay as they are)``."""
    rng = random.Random(seed)
    literal, unchanged = [], []
    for command in commands:
        for suffix in SUFFIXES:
            user = rng.choice(["ana", "deploy", "svc_ci", "admin"])
            password = _password(rng)
            literal.append((command.format(user=user, pw=password) + suffix, password))
            unchanged.append(command.format(user=user, pw=rng.choice(SOURCES)) + suffix)
            if command.endswith("{pw}") and suffix.strip():
                unchanged.append(command.format(user=user, pw="").rstrip() + suffix)  # no password at all
        if command.endswith("{pw}"):
            unchanged.append(command.format(user="ana", pw="").rstrip() + " <<EOF\nhello\nEOF")
    return literal, unchanged


DEV_LITERAL, DEV_UNCHANGED = _cases(DEV_COMMANDS, 1)
VALIDATION_LITERAL, VALIDATION_UNCHANGED = _cases(VALIDATION_COMMANDS, 2)


def _kept_literal(line: str, password: str) -> bool:
    """Whether the password survived or anything else of the line changed."""
    out, _ = redact_text(line, SALT, shell=True)
    head, _, tail = line.partition(password)
    return password in out or not (out.startswith(head) and out.endswith(tail))


@pytest.mark.parametrize(
    "index", range(len(DEV_LITERAL)), ids=[f"literal{i}" for i, _ in enumerate(DEV_LITERAL)]
)
def test_a_literal_password_operand_is_replaced_and_the_rest_kept(index):
    assert not _kept_literal(*DEV_LITERAL[index])


@pytest.mark.parametrize(
    "index", range(len(DEV_UNCHANGED)), ids=[f"ctl{i}" for i, _ in enumerate(DEV_UNCHANGED)]
)
def test_a_missing_or_substituted_password_leaves_the_line_as_it_is(index):
    line = DEV_UNCHANGED[index]
    assert redact_text(line, SALT, shell=True)[0] == line


def test_the_validation_commands_too():
    assert [i for i, case in enumerate(VALIDATION_LITERAL) if _kept_literal(*case)] == []
    changed = [
        i for i, line in enumerate(VALIDATION_UNCHANGED) if redact_text(line, SALT, shell=True)[0] != line
    ]
    assert changed == []
