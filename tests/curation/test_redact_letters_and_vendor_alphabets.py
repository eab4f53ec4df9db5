"""Keys that no digit, symbol or case flip marks, and vendor formats in their whole alphabet:

- a run of random letters in one case under a key's or a token's name (``api_token = "..."``),
  told from words, names and placeholders by how English spells (:func:`.spelling.random_letters`);
- JWTs whose segments use base64's standard alphabet, JWE compact tokens (five segments, the
  encrypted key empty for ``dir``), Stripe keys of the ``prod`` mode and of 10 to 15 characters,
  Terraform Cloud tokens with capitals, SendGrid keys with ``=`` and ``.`` inside: each format as
  gitleaks' rule writes it.

Values are drawn from seeds, not fixed strings.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"letters-and-alphabets"


def _letters(seed: int, alphabet: str) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(16, 32)))


LAYOUTS = {
    "python": lambda v: f'api_token = "{v}"',
    "export": lambda v: f"export SLACK_BOT_TOKEN={v}",
    "json": lambda v: json.dumps({"access_token": v, "expires_in": 3600}),
    "yaml": lambda v: f"auth:\n  token: {v}\n",
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("alphabet", [string.ascii_lowercase, string.ascii_uppercase], ids=["lower", "upper"])
@pytest.mark.parametrize("seed", range(2))
def test_random_letters_in_one_case_under_a_token_name_are_replaced(layout, alphabet, seed):
    value = _letters(seed, alphabet)
    redacted, _ = redact_text(LAYOUTS[layout](value), SALT)
    assert value not in redacted


@pytest.mark.parametrize(
    "text",
    [
        'api_token = "placeholder"',
        'token_type = "bearer"',
        'csrf_token = "csrfmiddlewaretoken"',
        'access_token = "accesstoken"',
        'api_token = "abcdefghijklmnop"',
        'TOKEN_HEADER = "AUTHORIZATION"',
        'auth_token = "transactions"',
        'api_key = "applicationjson"',
    ],
)
def test_words_names_and_placeholders_under_a_token_name_are_kept(text):
    assert redact_text(text, SALT)[0] == text


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _jwe(seed: int, alg: str) -> str:
    rng = random.Random(seed)
    header = _b64url(json.dumps({"alg": alg, "enc": "A256GCM"}).encode())
    key = "" if alg == "dir" else _b64url(rng.randbytes(256))
    parts = [header, key, _b64url(rng.randbytes(12)), _b64url(rng.randbytes(40)), _b64url(rng.randbytes(16))]
    return ".".join(parts)


def _drawn(seed: int, alphabet: str, size: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(size))


ALNUM = string.ascii_letters + string.digits
VENDOR_VALUES = {
    "jwt_standard_alphabet": lambda s: (
        f"ey{_drawn(s, ALNUM, 18)}.ey{_drawn(s + 1, ALNUM + '/', 18)}.{_drawn(s, ALNUM + '/', 20)}"
    ),
    "jwe_rsa": lambda s: _jwe(s, "RSA-OAEP"),
    "jwe_dir": lambda s: _jwe(s, "dir"),
    "stripe_prod_short": lambda s: f"sk_prod_{_drawn(s, ALNUM, 12)}",
    "terraform_cloud_capitals": lambda s: f"{_drawn(s, ALNUM, 14)}.atlasv1.{_drawn(s, ALNUM + '-_=', 64)}",
    "sendgrid_punctuated": lambda s: f"SG.{_drawn(s, ALNUM, 20)}={_drawn(s + 1, ALNUM + '.', 45)}",
}


@pytest.mark.parametrize("form", sorted(VENDOR_VALUES))
@pytest.mark.parametrize("seed", range(2))
def test_a_vendor_format_in_its_whole_alphabet_is_replaced_whole(form, seed):
    value = VENDOR_VALUES[form](seed)
    for text in (value, f"the response carried {value} and then closed"):
        redacted, _ = redact_text(text, SALT)
        assert not any(len(piece) >= 8 and piece in redacted for piece in value.split(".")), redacted
