"""``user:password@host`` with no scheme in front: a command's argument or prose names an account.

A URL's userinfo (``scheme://user:pw@host``) had its rule, and so had the schemeless word with a
domain before the user or a port after the host (Impacket's ``dom/user:pw@target``, a proxy's
``user:pw@proxy:3128``). Without either (``mysqlsh admin:pw@db01``, "the replica is reachable as
repl:pw@10.0.4.7"), the password stayed. Such a word is also an address after a scheme's name
(``mailto:ops@example.com``, ``sip:alice@voip.example.com``), a pinned image
(``python:3.11-slim@sha256:...``), Oracle's driver (``jdbc:oracle:thin:@host:1521/db``) or a mail
header glued to its address (``From:alice@example.com``): those are the controls.

Generated cases (commands and sentences, host shapes, password shapes) split into a development and
a validation half.
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

_CONTEXTS = [
    "mysqlsh {w} --sql",
    "the replica is reachable as {w} for now",
    "lftp {w}",
    "connect with {w} and run the migration",
    "hydra -C combos.txt {w}",
    "DSN: {w}",
    "mongosh {w}/admin",
    "use {w} to reach the cache",
]
_HOSTS = ["db01", "10.0.4.7", "cache.internal", "mysql.example.com", "pg-replica-2", "[fd00::12]"]
_USERS = ["admin", "repl", "svc_backup", "deploy", "alice", "root"]


def _password(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return (
            rng.choice(["Harbor", "Quartz", "Maple", "Falcon"])
            + str(rng.randint(10, 9999))
            + rng.choice("!#%*")
        )
    alphabet = string.ascii_letters + string.digits + "!#%^*_-"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(10, 20)))


def _cases(contexts: list[str], seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    cases = []
    for context in contexts:
        for _ in range(6):
            password = _password(rng)
            word = f"{rng.choice(_USERS)}:{password}@{rng.choice(_HOSTS)}"
            cases.append((context.format(w=word), password))
    return cases


DEV = _cases(_CONTEXTS[:5], 31)
VALIDATION = _cases(_CONTEXTS[5:], 32)
CONTROLS = [
    "send it to mailto:ops@example.com",
    "call sip:alice.w2@voip.example.com",
    "chat at xmpp:Bob.Smith99@jabber.example.org",
    "FROM python:3.11-slim@sha256:" + "3f7a" * 16,
    "image: nginx:1.25.3@sha256:" + "a1b2" * 16,
    "url = jdbc:oracle:thin:@db.example.com:1521/ORCL",
    "url = jdbc:oracle:thin:@//db.example.com:1521/service",
    "From:Alice.W2@example.com",
    "Reply-To:Dev.Team42@example.com",
    "scp build.tar deploy@10.0.4.7:/srv/app",
    "ssh -p 2222 admin@db01 uptime",
    "git reflog show main@{1}",
    "at 12:30@home we sync",
    "ERROR:root:Failed@step3",
]


def _missed(line: str, password: str) -> bool:
    out, _ = redact_text(line, SALT)
    return password in out


@pytest.mark.parametrize(("line", "password"), DEV, ids=[f"dev{i}" for i, _ in enumerate(DEV)])
def test_the_password_of_a_bare_userinfo_is_replaced(line, password):
    assert not _missed(line, password)


def test_the_validation_contexts_too():
    assert [line for line, password in VALIDATION if _missed(line, password)] == []


@pytest.mark.parametrize("line", CONTROLS, ids=[f"ctl{i}" for i, _ in enumerate(CONTROLS)])
def test_an_address_an_image_or_a_driver_stays(line):
    out, findings = redact_text(line, SALT)
    assert [f.detector for f in findings if f.kind == "PASSWORD"] == []
