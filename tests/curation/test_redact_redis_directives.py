"""Redis's credential directives where a word stands between the name and the value, or a client
runs them: ``sentinel auth-pass <master> PW`` and ``redis-cli ... CONFIG SET masterauth PW``.

The directive rule read ``name value`` alone on a line, or ``CONFIG SET name value`` after the
client's ``>`` prompt; a Sentinel directive names its master first, and a shell line runs the
client with its options before ``CONFIG SET``: both passwords stayed. Generated lines (client,
options, directive, password) split into a development and a validation half; other settings and
references are the controls.
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

_CLIENTS = [
    "redis-cli",
    "redis-cli -h cache-1 -p 6380",
    '/usr/bin/redis-cli -a "$OLD"',
    "valkey-cli -n 2",
    "keydb-cli",
]
_DIRECTIVES = ["requirepass", "masterauth"]


def _password(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(12, 20)))


def _cases(seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(15):
        password = _password(rng)
        line = f"{rng.choice(_CLIENTS)} CONFIG SET {rng.choice(_DIRECTIVES)} {password}"
        cases.append((line, password))
        password = _password(rng)
        master = rng.choice(["mymaster", "cache-primary", "redis_main"])
        cases.append((f"sentinel auth-pass {master} {password}", password))
    return cases


DEV, VALIDATION = _cases(71), _cases(72)
CONTROLS = [
    "sentinel monitor mymaster cache-1 6379 2",
    "sentinel down-after-milliseconds mymaster 5000",
    "redis-cli CONFIG SET maxmemory 2gb",
    'sentinel auth-pass mymaster "$REDIS_PASSWORD"',
    "redis-cli CONFIG SET requirepass ${REDIS_PASSWORD}",
]


@pytest.mark.parametrize(("line", "password"), DEV, ids=[f"dev{i}" for i, _ in enumerate(DEV)])
def test_the_password_of_a_redis_directive_is_replaced(line, password):
    assert password not in redact_text(line, SALT, shell=True)[0]


def test_the_validation_half_too():
    assert [line for line, password in VALIDATION if password in redact_text(line, SALT, shell=True)[0]] == []


@pytest.mark.parametrize("line", CONTROLS, ids=[f"ctl{i}" for i, _ in enumerate(CONTROLS)])
def test_another_setting_or_a_reference_stays(line):
    assert redact_text(line, SALT, shell=True)[0] == line
