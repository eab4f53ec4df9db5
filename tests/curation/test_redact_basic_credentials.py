"""Red team, round 16 (2026-12-07): HTTP Basic credentials away from an ``Authorization`` header
(an environment variable, a YAML or JSON field, a proxy setting, a header of another name) were
read by entropy alone, and base64 of a short ``user:password`` (``admin:admin123``) scores as no
key, so it stayed; so did a ``Basic`` value cut short by a truncation mark. Carriers and
credentials are split into a development and a validation half (none in both). Controls: the
scheme word in prose, a challenge's realm and base64 that decodes to no ``user:`` stay."""

from __future__ import annotations

import base64

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"basic-credentials-salt"


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


CARRIERS = {
    "development": [
        lambda v: f"API_AUTH=Basic {v}",
        lambda v: f"auth:\n  scheme: http\n  value: Basic {v}\n",
        lambda v: f'headers = {{"X-Auth": "Basic {v}"}}',
    ],
    "validation": [
        lambda v: f"export UPSTREAM_CREDENTIALS='Basic {v}'",
        lambda v: f'<add key="ServiceAuth" value="Basic {v}" />',
        lambda v: f'proxy_set_header X-Forwarded-Auth "Basic {v}";',
    ],
}
CREDENTIALS = {
    "development": [("admin", "admin123"), ("deploy", "winter2024"), ("ci", "hunter22")],
    "validation": [("root", "toor1234"), ("svc", "summer99"), ("bob", "pa55word")],
}

CASES = [
    pytest.param(carrier(_basic(user, password)), _basic(user, password), id=f"{half}-{i}-{j}")
    for half, carriers in CARRIERS.items()
    for i, carrier in enumerate(carriers)
    for j, (user, password) in enumerate(CREDENTIALS[half])
]


@pytest.mark.parametrize(("text", "token"), CASES)
def test_basic_credentials_under_any_name_are_replaced(text: str, token: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert token not in redacted
    assert token[:12] not in redacted


@pytest.mark.parametrize(
    "cut",
    [
        f"API_AUTH='Basic {_basic('deploy', 'Xq2hEw8rTzPm1a')[:16]}\n... [output truncated: 1843 more]",
        f'  "auth": "Basic {_basic("svc", "Lk9vNb3cRt7y")[:16]}<response clipped>',
    ],
    ids=["development", "validation"],
)
def test_basic_credentials_cut_short_are_replaced(cut: str) -> None:
    head = cut.split("Basic ")[1][:16]
    assert head not in redact_text(cut, SALT)[0]


CONTROLS = [
    'WWW-Authenticate: Basic realm="staging"',
    "Use Basic authentication over TLS only.",
    "Basic dGVzdA==",
    "class BasicAuth(Basic):",
    "The Basic plan costs $10 per month",
]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_basic_without_credentials_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
