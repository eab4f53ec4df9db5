"""A URL's credential parameter is a literal, whatever its value looks like to code.

``password=a.b.c`` in code reads as an attribute chain, and a dotted value after a password's name
was kept as one (``settings.db.password``). In a URL's query (``jdbc:mysql://h/db?user=u&
password=a.b.c``, ``mongodb://h/db?authSource=admin&password=...``) or a JDBC connection string's
``;`` parameters (``jdbc:sqlserver://h;user=u;password=...;``) nothing is code: the value is the
parameter's text, and the password stayed.

Generated URLs (schemes, parameter names, dotted and snake_case passwords, hex tokens, the
parameter first, middle or last) split into a development and a validation half; references
(``${DB_PASSWORD}``, ``%s``, ``{pw}``) and code that builds a URL from an attribute are the
controls.
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

_BASES = [
    "jdbc:mysql://db.example.com:3306/app?{q}",
    "jdbc:postgresql://pg-1/app?{q}",
    "mongodb://mongo-0.example.com/app?{q}",
    "https://api.example.com/v1/login?{q}",
    "jdbc:sqlserver://sql-2:1433;databaseName=app;{s}",
    "amqp://mq.example.com/vhost?{q}",
]
_NAMES = ["password", "pwd", "passwd", "db_password", "pass", "PASSWORD", "userPassword"]
_TOKEN_NAMES = ["token", "access_token", "api_key", "sig", "apikey", "auth"]
"""A key's names: its value must be key-shaped (a dotted word is none), a run of hex is one."""


def _value(rng: random.Random) -> str:
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 7))) for _ in range(3)]
    shape = rng.randrange(3)
    if shape == 0:
        return ".".join(words[: rng.randint(2, 3)])
    if shape == 1:
        return ".".join(words[:2]) + str(rng.randint(1, 99))
    return "_".join(words[:2]) + "." + words[2]


def _line(rng: random.Random, value: str) -> str:
    name = rng.choice(_TOKEN_NAMES if all(ch in string.hexdigits for ch in value) else _NAMES)
    others = [f"user={rng.choice(['app', 'svc', 'ro'])}", "ssl=true", "connectTimeout=5"]
    position = rng.randrange(len(others) + 1)
    pairs = [*others[:position], f"{name}={value}", *others[position:]]
    line = rng.choice(_BASES).format(q="&".join(pairs), s=";".join(pairs) + ";")
    return rng.choice(["{u}", 'url = "{u}"', "export DATABASE_URL='{u}'", "connecting to {u} ..."]).format(
        u=line
    )


def _cases(seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """``(lines with their literal credential, lines with a reference where it would be)``."""
    rng = random.Random(seed)
    literal = []
    for index in range(40):
        value = (
            "".join(rng.choice("0123456789abcdef") for _ in range(rng.randint(16, 40)))
            if index % 4 == 0
            else _value(rng)
        )
        literal.append((_line(rng, value), value))
    references = [
        _line(rng, rng.choice(["${DB_PASSWORD}", "%s", "{pw}", "$PW", "<password>"])) for _ in range(20)
    ]
    return literal, references


DEV, DEV_CONTROLS = _cases(21)
VALIDATION, VALIDATION_CONTROLS = _cases(22)


def _missed(line: str, value: str) -> bool:
    out, _ = redact_text(line, SALT)
    return f"={value}" in out


@pytest.mark.parametrize(("line", "value"), DEV, ids=[f"dev{i}" for i, _ in enumerate(DEV)])
def test_a_dotted_credential_parameter_is_replaced(line, value):
    assert not _missed(line, value)


@pytest.mark.parametrize("line", DEV_CONTROLS, ids=[f"ctl{i}" for i, _ in enumerate(DEV_CONTROLS)])
def test_a_reference_in_its_place_stays(line):
    assert redact_text(line, SALT)[0] == line


def test_the_validation_half_too():
    """Measured once, after development: 39 of 40 replaced (a hex ``sig`` among a JDBC string's
    ``;`` parameters is missed; not tuned away here, reported), 20 of 20 references kept."""
    assert len([line for line, value in VALIDATION if _missed(line, value)]) <= 1
    assert [line for line in VALIDATION_CONTROLS if redact_text(line, SALT)[0] != line] == []


@pytest.mark.parametrize(
    "line",
    [
        "password = settings.db.password",
        "url = base + '?password=' + cfg.db.password",
        "conn = connect(password=config.db.password)",
    ],
)
def test_code_reading_an_attribute_stays(line):
    assert redact_text(line, SALT)[0] == line
