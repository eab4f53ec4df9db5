"""Letters of mixed case with no digit, joined to a variable under a password's name
(``password = base + "qWeRtzXYabcK"``): where their case flips at random and a word they form has
no vowel, they are a key's piece and are replaced; camel-case suffixes stay
(:func:`trajectory_platform.curation.redact.joined_values.mixed_at_random`).

The random literals are generated (seeded) and split in two: the rule was written against the
development half; the validation half is held to the same floor. Not every random run is caught:
one whose words each hold a vowel reads as a name (see docs/redaction.md)."""

from __future__ import annotations

import random
import string

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"joined-mixed-case-salt"
_LAYOUTS = (
    'password = base + "{}"',
    'password = "{}" + suffix',
    'const pw = prefix + "{}";',
    'db_password: env_base + "{}"',
)


def _literals(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        value = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(8, 23)))
        if not (value.islower() or value.isupper()):
            out.append(value)
    return out


_CASES = [_LAYOUTS[i % len(_LAYOUTS)].format(v) for i, v in enumerate(_literals(7, 120))]
DEVELOPMENT, VALIDATION = _CASES[::2], _CASES[1::2]
FLOOR = 0.35
"""The share of random mixed-case literals replaced, in each half (0.0 before the rule; after it,
0.38 development, 0.52 validation)."""

CONTROLS = [
    f'password = base + "{suffix}"'
    for suffix in ("DevSuffix", "Production", "ProdDbSuffix", "getXCoord", "HTTPServer", "AdminUser")
    + (
        "StagingEnv",
        "BackupCopy",
        "parseXMLdata",
        "NewPassword",
        "ClusterAdmin",
        "MyAppSecret",
        "SandboxOnly",
    )
]


def _replaced(text: str) -> bool:
    literal = text.split('"')[1]
    return literal not in redact_text(text, SALT)[0]


@pytest.mark.parametrize("half", [DEVELOPMENT, VALIDATION], ids=["development", "validation"])
def test_random_mixed_case_literals_joined_to_a_variable_are_replaced(half: list[str]) -> None:
    assert sum(map(_replaced, half)) >= FLOOR * len(half)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_camel_case_suffixes_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
