"""Base64 of a JSON document is a token when the document is one: decoded, not by its ``eyJ`` head.

``eyJ`` is how base64 of ``{"`` starts, so every JSON object encoded as base64 (a pagination
cursor, an OAuth ``state``, a feature-flag blob, a Kubernetes annotation) read as a token and was
replaced: an ordinary value, rewritten wherever it recurred, and the request or the manifest that
carried it no longer worked. A JWT is three (JWE: five) segments and its header names an ``alg``; a
document that carries a credential (a registry's ``auths``, a service account's ``private_key``, a
``password``) is one whatever its shape. The rule now decodes the run and lets a document go that
is neither.

Generated documents (ordinary data and documents carrying a credential, in both base64 alphabets,
padded or not, in several places of a line) split into a development and a validation half.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

_WORDS = ["offset", "page", "cursor", "sort", "filter", "region", "theme", "lang", "limit", "view", "step"]
_VALUES = ["created_at", "desc", "eu-west", "dark", "en-GB", "grid", "open", "shoes", "2024-05-01"]
_PLACES = [
    "GET /v1/items?cursor={b}&limit=20",
    "state={b}",
    '"next_page": "{b}"',
    "annotation: {b}",
    "{b}",
    "X-Cursor: {b}",
]


def _encode(rng: random.Random, document: dict[str, object]) -> str:
    raw = json.dumps(document, separators=rng.choice([(",", ":"), (", ", ": ")])).encode()
    if rng.random() < 0.5:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return base64.b64encode(raw).decode()


def _ordinary(rng: random.Random) -> dict[str, object]:
    keys = rng.sample(_WORDS, rng.randint(2, 4))
    return {key: rng.choice([rng.randint(0, 5000), rng.choice(_VALUES), rng.random() < 0.5]) for key in keys}


def _secret(rng: random.Random) -> tuple[dict[str, object], str]:
    value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(16, 28)))
    kind = rng.randrange(4)
    if kind == 0:
        return {
            "auths": {"registry.example.com": {"auth": base64.b64encode(f"ci:{value}".encode()).decode()}}
        }, value
    if kind == 1:
        return {"type": "service_account", "client_email": "x@p.iam", "private_key_id": value}, value
    if kind == 2:
        return {"user": "svc", rng.choice(["password", "api_key", "token", "secret"]): value}, value
    return {"alg": "HS256", "typ": "JWT", "kid": value}, value


def _cases(seed: int) -> tuple[list[str], list[str]]:
    """``(lines with an ordinary document, lines with a credential's document)``."""
    rng = random.Random(seed)
    ordinary = [rng.choice(_PLACES).format(b=_encode(rng, _ordinary(rng))) for _ in range(30)]
    secrets = [rng.choice(_PLACES).format(b=_encode(rng, _secret(rng)[0])) for _ in range(30)]
    return ordinary, secrets


DEV_ORDINARY, DEV_SECRETS = _cases(11)
VALIDATION_ORDINARY, VALIDATION_SECRETS = _cases(12)


@pytest.mark.parametrize("line", DEV_ORDINARY, ids=[f"ordinary{i}" for i, _ in enumerate(DEV_ORDINARY)])
def test_an_encoded_document_of_ordinary_data_stays(line):
    assert redact_text(line, SALT)[0] == line


@pytest.mark.parametrize("line", DEV_SECRETS, ids=[f"credential{i}" for i, _ in enumerate(DEV_SECRETS)])
def test_an_encoded_document_carrying_a_credential_goes(line):
    assert "<REDACTED_" in redact_text(line, SALT)[0]


def test_the_validation_half_too():
    assert [line for line in VALIDATION_ORDINARY if redact_text(line, SALT)[0] != line] == []
    assert [line for line in VALIDATION_SECRETS if "<REDACTED_" not in redact_text(line, SALT)[0]] == []


def test_a_jwt_and_an_undecodable_run_still_go():
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    assert jwt not in redact_text(f"token: {jwt}", SALT)[0]
    assert "eyJ" not in redact_text("blob eyJx7Qk9Zp2LmR4vT8wYc3NdEf6Gh2JkL0", SALT)[0]


def test_a_grafana_provisioned_key_is_a_key_whatever_its_k():
    """Grafana's provisioned API key is base64 of ``{"k": KEY, "n": NAME, "id": N}``: its ``k`` names
    the key even where the key scores low (CredSweeper's sample holds mostly zeros), so it stays a
    secret (the benchmark's validation half lost it for a while)."""
    document = json.dumps({"k": "0" * 30 + "7", "n": "ci", "id": 12}, separators=(",", ":"))
    token = base64.b64encode(document.encode()).decode().rstrip("=")
    assert token not in redact_text(f"token in text: {token}", SALT)[0]
