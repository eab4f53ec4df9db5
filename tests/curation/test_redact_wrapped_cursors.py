"""A base64 pagination cursor or id wrapped across rows (a table's cell, an indented block) is
judged joined: a document of ordinary data stays byte for byte, one that carries a credential is
still replaced (:func:`trajectory_platform.curation.redact.detectors.wrapped_rows`).

Cases are generated (documents x wrap widths x layouts) and split in two: the rule was written
against the development half; the validation half is held to the same standard."""

from __future__ import annotations

import base64
import itertools
import json

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"wrapped-cursor-salt"

_CURSORS = (
    {"id": 123456789, "offset": 1000, "page": 42},
    {"last_seen_id": "order_48213", "limit": 50},
    {"after": 9812734, "sort": "created_at", "direction": "desc"},
    {"shard": 3, "position": 771234, "ts": 1733500000},
    {"user_id": 5521, "cursor_v": 2, "filter": "open"},
    {"v": "v1", "next": 200, "tenant": "acme-eu"},
)
_SECRETS = (
    {"user": "bob", "password": "Tr0ub4dor&3x"},
    {"type": "service", "api_key": "Qz8vKp2LmW4xR7tY"},
    {"auths": {"reg.io": {"auth": "Ym9iOlRyMHViNGRvcg=="}}},
)
_WIDTHS = (24, 32, 40)


def _rows(document: dict[str, object], width: int) -> list[str]:
    encoded = base64.b64encode(json.dumps(document, separators=(",", ":")).encode()).decode()
    return [encoded[i : i + width] for i in range(0, len(encoded), width)]


def _table(rows: list[str]) -> str:
    width = max(map(len, rows))
    label = ["next_cursor"] + [""] * (len(rows) - 1)
    return "\n".join(f"| {name:<11} | {row:<{width}} |" for name, row in zip(label, rows, strict=True))


def _indented(rows: list[str]) -> str:
    return "cursor:\n" + "\n".join(f"    {row}" for row in rows)


_LAYOUTS = (_table, _indented)
_CASES = [layout(_rows(doc, width)) for doc, width, layout in itertools.product(_CURSORS, _WIDTHS, _LAYOUTS)]
DEVELOPMENT, VALIDATION = _CASES[::2], _CASES[1::2]
_SECRET_CASES = [
    (layout(rows := _rows(doc, width)), rows[0])
    for doc, width, layout in itertools.product(_SECRETS, _WIDTHS, _LAYOUTS)
]


@pytest.mark.parametrize("text", DEVELOPMENT + VALIDATION, ids=range(len(_CASES)))
def test_a_wrapped_cursor_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize(("text", "first_row"), _SECRET_CASES, ids=range(len(_SECRET_CASES)))
def test_a_wrapped_document_with_a_credential_is_replaced(text: str, first_row: str) -> None:
    assert first_row not in redact_text(text, SALT)[0]
