"""A password-hashing command's operands end where a redirection starts, however it is spaced.

The operands were once split with :func:`shlex.split`, which knows no operator: ``PW>hash.txt`` was
one operand (the file name replaced with the password), and ``PW 2>/dev/null`` made
``2>/dev/null`` the last operand (the redirection replaced, the password left). They are now
:func:`curation.shell_split.bash_words`' words, where a redirection is an operator word of its own
(a descriptor before it, ``2``, is no operand either).

Generated cases (command, password, redirection, spacing) split into a development and a validation
half; references and standard input are the controls.
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

COMMANDS = [
    "mkpasswd -m sha-512 {pw}",
    "mkpasswd --method=yescrypt {pw}",
    "htpasswd -nbB deploy {pw}",
    "htpasswd -b .htpasswd ana {pw}",
    "openssl passwd -6 {pw}",
    "openssl passwd -1 -salt xQ9 {pw}",
    "slappasswd -s {pw}",
]
REDIRECTIONS = [
    ">{f}",
    ">>{f}",
    "2>/dev/null",
    "2>&1 >{f}",
    "&>{f}",
    ">{f} 2>&1",
    "1>{f}",
    "2>>{f}.log",
    "<<< x",
]


def _case(seed: int) -> tuple[str, str, str]:
    """``(line, password, redirection)``: a hashing command whose password operand a redirection
    follows, attached to it or after a space."""
    rng = random.Random(seed)
    password = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(12, 18)))
    target = rng.choice(["hash.txt", "/etc/nginx/.htpasswd", "out/pw.hash", "/tmp/h"])
    redirection = rng.choice(REDIRECTIONS).format(f=target)
    attached = rng.random() < 0.5 and not redirection[0].isdigit()
    line = rng.choice(COMMANDS).format(pw=password) + ("" if attached else " ") + redirection
    return line, password, redirection


CASES = [_case(seed) for seed in range(80)]
DEV, VALIDATION = CASES[0::2], CASES[1::2]


def _wrong(line: str, password: str, redirection: str) -> bool:
    """Whether the redacted line still shows the password or lost its redirection."""
    out, _ = redact_text(line, SALT)
    return password in out or not out.endswith(redirection)


@pytest.mark.parametrize(("line", "password", "redirection"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_the_password_operand_is_replaced_and_the_redirection_kept(line, password, redirection):
    assert not _wrong(line, password, redirection)


def test_the_validation_half_too():
    assert [line for line, password, redirection in VALIDATION if _wrong(line, password, redirection)] == []


@pytest.mark.parametrize(
    "line",
    [
        "openssl passwd -6 -stdin < plain.txt 2>/dev/null",
        'mkpasswd -m sha-512 "$PW" 2>/dev/null >out',
        "htpasswd -nbB deploy $ADMIN_PASSWORD>>/etc/nginx/.htpasswd",
        "slappasswd -s ${LDAP_PW} 2>&1 >/tmp/h",
    ],
)
def test_a_reference_or_standard_input_stays(line):
    assert redact_text(line, SALT)[0] == line
