"""A secret a table's cell or a block wraps loses every row, its short last one too (``In0=``,
``M3gifQ==``): one row found, the rows it goes on in are replaced where they stand
(:func:`trajectory_platform.curation.redact.detectors.wrapped_continuations`).

Cases are generated (secrets x widths x layouts) and split in two by layout: the rule was written
against the development layouts (a Markdown table's cell); the validation layouts (a box-drawing
table, a three-column table, an indented block under its label) are held to the same standard.
Controls: a value whose cell below holds a word, and cursors of ordinary data, kept byte for byte."""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"wrapped-continuations-salt"

_SECRETS: tuple[dict[str, object], ...] = (
    {"user": "bob", "password": "Tr0ub4dor&3x"},
    {"type": "service", "api_key": "Qz8vKp2LmW4xR7tY"},
    {"auths": {"reg.io": {"auth": "Ym9iOlRyMHViNGRvcg=="}}},
    {"client_id": "app-7", "client_secret": "m9Qx2LwZ8rTq4Vb"},
)
_WIDTHS = (24, 32, 40)


def _rows(document: dict[str, object], width: int) -> list[str]:
    encoded = base64.b64encode(json.dumps(document, separators=(",", ":")).encode()).decode()
    return [encoded[i : i + width] for i in range(0, len(encoded), width)]


def _markdown(rows: list[str]) -> str:
    width = max(map(len, rows))
    names = ["credentials"] + [""] * (len(rows) - 1)
    return "\n".join(f"| {name:<11} | {row:<{width}} |" for name, row in zip(names, rows, strict=True))


def _box(rows: list[str]) -> str:
    width = max(map(len, rows))
    names = ["secret"] + [""] * (len(rows) - 1)
    return "\n".join(f"│ {name:<8} │ {row:<{width}} │" for name, row in zip(names, rows, strict=True))


def _three_columns(rows: list[str]) -> str:
    width = max(map(len, rows))
    names, notes = ["deploy"] + [""] * (len(rows) - 1), ["active"] + [""] * (len(rows) - 1)
    return "\n".join(
        f"| {name:<6} | {row:<{width}} | {note:<6} |"
        for name, row, note in zip(names, rows, notes, strict=True)
    )


def _indented(rows: list[str]) -> str:
    return "auth_blob: " + rows[0] + "".join(f"\n           {row}" for row in rows[1:])


Layout = Callable[[list[str]], str]
DEVELOPMENT_LAYOUTS: tuple[Layout, ...] = (_markdown,)
VALIDATION_LAYOUTS: tuple[Layout, ...] = (_box, _three_columns, _indented)


def _cases(layouts: tuple[Layout, ...]) -> list[tuple[str, list[str]]]:
    return [
        (layout(rows := _rows(doc, width)), rows)
        for doc, width, layout in itertools.product(_SECRETS, _WIDTHS, layouts)
    ]


DEVELOPMENT = _cases(DEVELOPMENT_LAYOUTS)
VALIDATION = _cases(VALIDATION_LAYOUTS)

CONTROLS = [
    "| deploy  | sk9Qx2LwZ8rTq4VbM7nP3kR6tY1uE5wA |\n|         | Rotated                          |",
    "| token   | Zr8vQx2LwZ8rTq4VbM7nP3kR6tY1uE5w |\n|         | TBD                              |",
    "| next_cursor | eyJpZCI6MTIzNDU2Nzg5LCJvZmZz |\n|             | ZXQiOjEwMDB9                 |",
    "key: 4f8a9c2e1b7d3f6a0c5e8b2d9f1a4c7e\n     rotated",
]


def _kept_rows(text: str, rows: list[str]) -> list[str]:
    out = redact_text(text, SALT)[0]
    return [row for row in rows if row in out]


@pytest.mark.parametrize(
    ("text", "rows"), DEVELOPMENT + VALIDATION, ids=range(len(DEVELOPMENT) + len(VALIDATION))
)
def test_every_row_of_a_wrapped_secret_is_replaced(text: str, rows: list[str]) -> None:
    assert not _kept_rows(text, rows)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_a_cell_below_that_is_no_continuation_is_kept(text: str) -> None:
    out = redact_text(text, SALT)[0]
    assert out.splitlines()[1:] == text.splitlines()[1:]
