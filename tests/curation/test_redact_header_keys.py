"""An ``X-`` header naming a key by what it unlocks (``X-Cache-Key``, ``X-Primary-Key``) carries a
credential, where in code a ``cache_key`` is a lookup; a request target under a key's name (a
gateway's cache key shown for debugging) and request or trace ids stay."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.credential_names import credential_class

SALT = b"header-key-salt"
VALUES = ("Tr0ub4dor3xk9Q", "7f9a2b4c1d8e3f60a1b2", "kq8ZrT0p9vLk2WmXc")
HEADERS = ("X-Cache-Key", "x-cache-key", "X-CDN-Cache-Key", "X-Primary-Key", "X-Api-Key")
FORMS = (
    "{name}: {value}",
    'curl -s -H "{name}: {value}" https://api.example.com/v1/items',
    '{{"{name}": "{value}"}}',
)


@pytest.mark.parametrize(
    ("name", "value", "form"),
    list(itertools.product(HEADERS, VALUES, FORMS)),
    ids=[f"{n}-{i}-{j}" for n, i, j in itertools.product(HEADERS, range(len(VALUES)), range(len(FORMS)))],
)
def test_a_key_header_value_is_replaced(name: str, value: str, form: str) -> None:
    text = form.format(name=name, value=value)
    assert value not in redact_text(text, SALT, shell=text.startswith("curl"))[0]


CONTROLS = (
    "X-Cache-Key: /api/v1/users?page=2",
    "X-Cache-Key: GET:/static/app.js",
    "X-Api-Key: /api/v1/users?page=2",
    "x-request-id: 8f14e45fceea167a5a36dedd4bea2543",
    "X-Amzn-Trace-Id: Root=1-67891233-abcdef012345678912345678",
    "X-Idempotency-Key: 3f2b8c1e-9a7d-4c2e-8f1a-6b5d4e3c2a10",
    "X-Partition-Key: tenant-42",
    "X-Cache: HIT",
    "cache_key = f'user:{user_id}'",
)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_lookups_and_ids_under_header_names_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize("name", ["cache_key", "cache-key", "primary_key", "X-Partition-Key", "x-request-id"])
def test_a_lookup_key_outside_an_x_header_names_nothing(name: str) -> None:
    assert credential_class(name) is None
