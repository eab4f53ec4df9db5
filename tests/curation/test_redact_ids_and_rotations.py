"""Stripe object ids name records and are kept wherever they stand; a Stripe secret key is replaced
wherever it stands; a labelled value restated in ROT13, ROT18 or ROT47 is replaced too."""

from __future__ import annotations

import codecs

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.decoders import rotations

SALT = b"rows-and-phrases"
PW = "Kestrel4471&"
"""Memorable: entropy leaves it, so only the layout can find it."""


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


STRIPE_IDS = [
    '{"payment_intent": "pi_3Nx8fQLkdIwHu7ix0Qb2ZyTe", "amount": 2000}',
    '{"latest_charge": "ch_3Nx8fQLkdIwHu7ix1aKcD9Wq"}',
    "Refunded re_3Nx8fQLkdIwHu7ix0sPq7LmZ to the customer cus_OzT4mPqR8sVwXy.",
    "stripe refunds create --charge=ch_3Nx8fQLkdIwHu7ix1aKcD9Wq",
    '{"url": "https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8i9J0kLmN"}',
]


@pytest.mark.parametrize("text", STRIPE_IDS)
def test_stripe_object_ids_name_records_and_are_kept(text: str) -> None:
    assert _redacted(text) == text


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "rk_live_51Nx8fQLkdIwHu7ixAbCdEfGhIjKl"}',
        "secret_id=sk_test_4eC39HqLyjWDarjtT1zdp7dcQ",
        '{"charge": "ch_3Nx8fQ", "note": "sk_live_51Nx8fQLkdIwHu7ixMnOpQrSt"}',
    ],
)
def test_a_stripe_secret_key_is_replaced_under_any_key(text: str) -> None:
    assert "_live_51" not in _redacted(text) and "_test_4eC" not in _redacted(text)


@pytest.mark.parametrize("rotation", [0, 1, 2])
def test_a_labelled_value_restated_in_a_rotation_is_replaced(rotation: int) -> None:
    value = "Gq4!zW9#rT2x"
    restated = rotations(value)[rotation]
    assert restated != value
    out = _redacted(f"DB_PASSWORD={value}\n$ python obfuscate.py\n{restated}")
    assert value not in out and restated not in out


def test_rotations_are_rot13_rot18_and_rot47() -> None:
    rot13, rot18, rot47 = rotations("Abc-123")
    assert rot13 == codecs.encode("Abc-123", "rot13") == "Nop-123"
    assert rot18 == "Nop-678"
    assert rot47 == "p34\\`ab"


REQUEST_ID_HEADERS = [
    "< x-amz-id-2: Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJD",
    "< x-amz-cf-id: q1W8-xZ3rT5yU7iO9pA2sD4fG6hJ8kL0zX_cV3bN5mQ7wE9rT1yA==",
    "x-request-id: Kd8fTq2vLm9pRwXs3bNc7hJy",
    "X-Amzn-Trace-Id: Root=1-67a3b2c1-Kd8fTq2vLm9pRwXs3bNc7hJy",
    "x-ms-request-id: Qz7mPw3xRt9vLk2nBc8sDf4hJg6y",
    "X-Correlation-ID: Wm4kTz8qRp2vNx6bLc9sHd",
    "cf-ray: 8f3a9c7e1b2d4f60-AMS",
    "< x-b3-traceid: 1b267619c4812cc46ee281747884ca50",
]


@pytest.mark.parametrize("header", REQUEST_ID_HEADERS)
def test_a_header_naming_its_value_a_request_or_trace_id_keeps_it(header: str) -> None:
    text = f"HTTP/1.1 200 OK\nContent-Length: 2\n{header}\nServer: nginx"
    assert _redacted(text) == text


@pytest.mark.parametrize(
    "header", ["x-api-key: {v}", "X-Session-Id: {v}", "x-auth-token: {v}", "Authorization: Bearer {v}"]
)
def test_a_header_naming_a_key_a_session_or_a_token_is_still_replaced(header: str) -> None:
    value = "Kd8fTq2vLm9pRwXs3bNc7hJyQz7mPw3x"
    text = f"< HTTP/2 200\n< x-request-id: Wm4kTz8qRp2vNx6bLc9sHd\n< {header.format(v=value)}\n"
    assert value not in _redacted(text)
