"""Red team, round 16 (2026-12-07): a credential cut short by a harness's truncation mark. The head
left before ``<response clipped>``, ``... [output truncated: N more characters]`` or ``...
(truncated)`` is no whole value (a connection string's password without its ``@host``, a
labelled key or password without its closing quote), so no rule took
it and the head stayed in clear. Values and marks are split into a development and a validation
half (none in both). Controls: a path, prose, a placeholder, a digest and a commit id cut the same
way stay as they are."""

from __future__ import annotations

import random
import string

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"cut-values-salt"
_ALNUM = string.ascii_letters + string.digits


def _key(seed: str, length: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(_ALNUM) for _ in range(length))


def _half(value: str) -> str:
    return value[: max(len(value) // 2, 10)]


HEADS = {
    "development": {
        "connection_string": lambda: ("DATABASE_URL=postgresql://app:", "Falcon4410#" + _key("c", 8)),
        "quoted_key": lambda: ("API_KEY='", _key("k", 32)),
        "quoted_word": lambda: ("DB_PASSWORD='", "Harborfalcon2291!"),
    },
    "validation": {
        "mongodb_userinfo": lambda: ('  uri: "mongodb+srv://svc:', "Orchid7713%" + _key("m", 8)),
        "double_quoted_secret": lambda: ('client_secret = "', _key("s", 40)),
        "json_password": lambda: ('{"user": "ci", "password": "', "Lanternmeadow8812#"),
    },
}
"""Per half, what stands before a value on its line and the value."""

MARKS = {
    "development": [
        "\n... [output truncated: 1843 more characters]",
        "<response clipped><NOTE>Due to the max output limit",
    ],
    "validation": [
        "... (truncated)",
        "\n[... Observation truncated due to length ...]",
        "…[4096 more chars]",
    ],
}

CASES = [
    pytest.param(prefix, value, mark, id=f"{half}-{name}-{index}")
    for half, heads in HEADS.items()
    for name, make in heads.items()
    for prefix, value in [make()]
    for index, mark in enumerate(MARKS[half])
]


@pytest.mark.parametrize(("prefix", "value", "mark"), CASES)
def test_a_credential_cut_by_a_truncation_mark_is_replaced(prefix: str, value: str, mark: str) -> None:
    head = _half(value)
    redacted, findings = redact_text(f"line before\n{prefix}{head}{mark}\nafter", SALT)
    assert head not in redacted
    assert head[:8] not in redacted
    assert findings


CONTROLS = [
    "  File /usr/lib/python3/dist-packages/requests/adapters.py\n[488 lines below omitted]",
    "see https://example.com/docs/reference/configuration/long/pa... (truncated)",
    "API_TOKEN=${API_TOKEN_FROM_VAU<response clipped>",
    "password: <your-password-he... [truncated]",
    "commit 3f1c2d4e5a6b7c8d9e0f1a2b3c<response clipped>",
    "SHA256SUM=3b1f8a9c0d2e4f6a8b0c2d4e6f... (truncated)",
    "Installing collected packages: numpy, pandas, scikit-le\n... [output truncated: 80 more characters]",
    "Waiting for the database...\nDone",
    "token = get_token(...)\nprint(token)",
]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_ordinary_text_cut_by_a_truncation_mark_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
