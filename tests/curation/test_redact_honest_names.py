"""Session 47 (fxsecFP): values under a credential's word that hold no credential.

A false positive destroys a user's data: a replaced reference or id breaks the tool call that held
it. Two classes, each generated over carriers and split into a development and a validation half
(the validation forms were written first; the fixes were developed on the development half):

- a reference (``${VAR}``, ``$VAR``, ``{{ secrets.X }}``, ``%(x)s``, ``<SESSION>``, ``%X%``) as
  the first cookie of a ``Cookie``/``Set-Cookie`` header: the label rule read the first
  ``name=value`` pair as the header's value, and replaced the variable;
- a UUID under a token's or a key's name that grants nothing (``NextToken``, ``ClientRequestToken``,
  ``--starting-token``, ``pageToken``, ``dedup_key``): pagination, sync and idempotency values an
  API hands out to be sent back, which an agent's tool calls carry.

Controls: session cookies with a value, and UUIDs under the names of keys and tokens that grant
access (an API key, a Heroku key, a Vault ``client_token``, a session token), stay replaced.
"""

from __future__ import annotations

import json
import uuid

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"honest-names-salt"


def _uuid(seed: int) -> str:
    return str(uuid.UUID(int=(seed * 0x9E3779B97F4A7C15_F39CC0605CEDC834) % (1 << 128), version=4))


COOKIE_REFERENCES = {
    "validation": ["{{ secrets.SESSION }}", "%(session)s", "<SESSION_TOKEN>", "%SESSION%"],
    "development": ["${SESSION_ID}", "$SESSION_ID"],
}
COOKIE_CARRIERS = {
    "validation": [
        lambda r: f"Set-Cookie: auth_token={r}; Path=/; HttpOnly",
        lambda r: json.dumps({"headers": {"Cookie": f"sessionid={r}"}}),
        lambda r: f'curl -s -H "Cookie: remember_token={r}" https://app.example.com/me',
    ],
    "development": [
        lambda r: f"> GET / HTTP/1.1\n> Cookie: session_id={r}\n>",
        lambda r: f"Cookie: sid={r}",
    ],
}
ID_TOKEN_CARRIERS = {
    "validation": [
        lambda u: json.dumps({"NextToken": u, "MaxResults": 50}),
        lambda u: json.dumps({"ClientRequestToken": u, "Name": "deploy"}),
        lambda u: f"aws ec2 describe-instances --starting-token {u} --max-items 10",
        lambda u: json.dumps({"pageToken": u, "pageSize": 100}),
        lambda u: json.dumps({"continuation_token": u}),
    ],
    "development": [
        lambda u: json.dumps({"next_page_token": u}),
        lambda u: json.dumps({"sync_token": u, "resource_types": ["items"]}),
        lambda u: json.dumps({"dedup_key": u}),
        lambda u: f"IDEMPOTENCY_TOKEN={u}",
    ],
}


def _honest() -> dict[str, list[tuple[str, str, str]]]:
    """Each half's cases: (class, text, the honest value that must survive)."""
    halves: dict[str, list[tuple[str, str, str]]] = {}
    for half in ("validation", "development"):
        cases = [
            ("cookie_reference", carrier(reference), reference)
            for carrier in COOKIE_CARRIERS[half]
            for reference in COOKIE_REFERENCES[half]
        ]
        for n, carrier in enumerate(ID_TOKEN_CARRIERS[half]):
            value = _uuid(n + (100 if half == "validation" else 0))
            cases.append(("id_under_token_name", carrier(value), value))
        halves[half] = cases
    return halves


HONEST = _honest()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param(text, value, id=f"{half}-{kind}-{i}")
        for half, cases in HONEST.items()
        for i, (kind, text, value) in enumerate(cases)
    ],
)
def test_a_reference_or_an_id_under_a_credentials_word_is_kept(text: str, value: str) -> None:
    redacted, findings = redact_text(text, SALT)
    assert value in redacted, [finding.detector for finding in findings]


_RANDOM_KEY = "hK3vQ9zXw2LmP8rT5yNc"
CONTROLS = [
    pytest.param(f"Cookie: session_id={_RANDOM_KEY}", _RANDOM_KEY, id="cookie-session"),
    pytest.param(f"Set-Cookie: auth_token={_RANDOM_KEY}; Path=/", _RANDOM_KEY, id="set-cookie-auth"),
    pytest.param(json.dumps({"api_key": _uuid(7)}), _uuid(7), id="uuid-api-key"),
    pytest.param(f"X-API-Key: {_uuid(8)}", _uuid(8), id="uuid-api-key-header"),
    pytest.param(f"HEROKU_API_KEY={_uuid(9)}", _uuid(9), id="uuid-heroku-key"),
    pytest.param(json.dumps({"auth": {"client_token": _uuid(10)}}), _uuid(10), id="uuid-vault-client-token"),
    pytest.param(json.dumps({"session_token": _uuid(11)}), _uuid(11), id="uuid-session-token"),
]


@pytest.mark.parametrize(("text", "secret"), CONTROLS)
def test_a_credential_under_the_same_names_is_still_replaced(text: str, secret: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert secret not in redacted
