"""A JSON Web Key's private members (``d``, ``p``, ``q``, ``dp``, ``dq``, ``qi``, ``k``) are replaced
whatever their value looks like: a symmetric key that is a passphrase base64url-encoded, a short
or repetitive test key (:mod:`trajectory_platform.curation.redact.jwk`). Random members were caught
by entropy already; these were not.

Cases are generated (weak key values x carriers); the carriers are split in two: the rule was
written against the development carriers, the validation carriers (another JSON layout, sorted
members, a JWKS, YAML list items, JavaScript, TOML, a JWK inside a JSON string) are held to the
same standard. Controls: the same member names outside a JWK, and public JWKs' short members."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"jwk-members-salt"


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


_KEYS: list[dict[str, str]] = [
    {"kty": "oct", "k": _b64url("secret"), "alg": "HS256"},
    {"kty": "oct", "k": _b64url("my-hmac-signing-key"), "use": "sig"},
    {"kty": "oct", "k": "AAAAAAAAAAAAAAAAAAAAAA"},
    {"kty": "EC", "crv": "P-256", "x": "AQAB", "y": "AQAB", "d": _b64url("changeme")},
    {"kty": "OKP", "crv": "Ed25519", "x": "AQAB", "d": "ZGV2LWtleQ"},
    {
        "kty": "RSA",
        "n": "AQAB",
        "e": "AQAB",
        "d": "AQIDBA",
        "p": "CwsL",
        "q": "DQ0N",
        "dp": "BwcH",
        "dq": "CAgI",
        "qi": "CQkJ",
    },
]
_PRIVATE = ("d", "p", "q", "dp", "dq", "qi", "k")

Carrier = Callable[[dict[str, str]], str]

DEVELOPMENT_CARRIERS: dict[str, Carrier] = {
    "json": lambda jwk: json.dumps(jwk, indent=2),
    "yaml": lambda jwk: "signing:\n" + "".join(f"  {k}: {v}\n" for k, v in jwk.items()),
    "python": lambda jwk: "key = {" + ", ".join(f"'{k}': '{v}'" for k, v in jwk.items()) + "}",
    "shell": lambda jwk: f"export JWK='{json.dumps(jwk)}'",
}
VALIDATION_CARRIERS: dict[str, Carrier] = {
    "sorted-compact": lambda jwk: json.dumps(jwk, sort_keys=True, separators=(",", ":")),
    "jwks": lambda jwk: json.dumps({"keys": [{"kid": "a"}, jwk]}, indent=4),
    "yaml-list": lambda jwk: (
        "keys:\n"
        + "".join(("  - " if i == 0 else "    ") + f'{k}: "{v}"\n' for i, (k, v) in enumerate(jwk.items()))
    ),
    "javascript": lambda jwk: "const jwk = { " + ", ".join(f'{k}: "{v}"' for k, v in jwk.items()) + " };",
    "toml": lambda jwk: "[jwt.key]\n" + "".join(f'{k} = "{v}"\n' for k, v in jwk.items()),
    "in-a-string": lambda jwk: json.dumps({"stdout": json.dumps(jwk) + "\n"}),
}


def _cases(carriers: dict[str, Carrier]) -> list[tuple[str, list[str]]]:
    return [
        (carry(jwk), [v for k, v in jwk.items() if k in _PRIVATE])
        for carry in carriers.values()
        for jwk in _KEYS
    ]


DEVELOPMENT = _cases(DEVELOPMENT_CARRIERS)
VALIDATION = _cases(VALIDATION_CARRIERS)

CONTROLS = [
    '{"d": "2024-01-01", "p": "page", "k": "kilo", "q": "query"}',
    "point:\n  p: 3\n  q: 4\n  d: down\n",
    '{"kty": "RSA", "kid": "key1", "use": "sig", "alg": "RS256", "e": "AQAB"}',
    "jwk:\n  kty: EC\n  crv: P-256\n  kid: main\nflags:\n  d: debug\n  k: keep\n",
    '[{"kty": "oct", "kid": "hmac-1"}, {"d": "delta", "k": "kappa"}]',
    "kty = 'RSA'  # the type\nd = diff(a, b)\n\nk = kernel",
]


def _leaked(text: str, values: list[str]) -> list[str]:
    out = redact_text(text, SALT)[0]
    return [v for v in values if v in out]


@pytest.mark.parametrize(
    ("text", "values"), DEVELOPMENT + VALIDATION, ids=range(len(DEVELOPMENT + VALIDATION))
)
def test_private_members_of_a_jwk_are_replaced(text: str, values: list[str]) -> None:
    assert not _leaked(text, values)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_the_same_names_outside_a_jwk_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
