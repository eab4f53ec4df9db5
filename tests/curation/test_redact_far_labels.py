"""Red team, round 15 (2026-12-07): a password that reads as a word (``Monkeysunshine329``), labelled
more than a line away: a CSV's or a table's header row above a later row, a Markdown table's header
above its separator. Pass 1 found it; pass 3 replaces a
word-shaped password only where a scan confirms its label (so ``image: postgres`` survives
``POSTGRES_PASSWORD: postgres``), and that scan read the line before and after alone: the value was
reported redacted and kept. Layouts and words are split into a development and a validation half
(none in both); the controls are the same layouts whose column names no credential, and a default
password that is also an image's name."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"far-label-salt"

Layout = Callable[[list[tuple[str, str]], str], str]
"""Rows of (user, value) under a header naming the value's column."""


def _csv(rows: list[tuple[str, str]], column: str) -> str:
    return "\n".join(
        [f"user,{column},created", *(f"{u},{v},2024-0{i % 9 + 1}-01" for i, (u, v) in enumerate(rows))]
    )


def _markdown(rows: list[tuple[str, str]], column: str) -> str:
    return "\n".join([f"| user | {column} |", "|---|---|", *(f"| {u} | {v} |" for u, v in rows)])


def _csv_quoted(rows: list[tuple[str, str]], column: str) -> str:
    return "\n".join([f'"user","{column}"', *(f'"{u}","{v}"' for u, v in rows)])


def _tsv(rows: list[tuple[str, str]], column: str) -> str:
    return "\n".join([f"id\tuser\t{column}", *(f"{i}\t{u}\t{v}" for i, (u, v) in enumerate(rows))])


def _psql(rows: list[tuple[str, str]], column: str) -> str:
    width = max(len(v) for _, v in rows)
    head = f" user  | {column.ljust(width)}"
    rule = "-------+-" + "-" * width
    return "\n".join([head, rule, *(f" {u.ljust(5)} | {v}" for u, v in rows), f"({len(rows)} rows)"])


def _markdown_first_column(rows: list[tuple[str, str]], column: str) -> str:
    return "\n".join([f"| {column} | owner |", "| :--- | :--- |", *(f"| {v} | {u} |" for u, v in rows)])


LAYOUTS: dict[str, dict[str, Layout]] = {
    "development": {"csv": _csv, "markdown": _markdown, "csv_quoted": _csv_quoted},
    "validation": {"tsv": _tsv, "psql": _psql, "markdown_first_column": _markdown_first_column},
}
WORDS = {
    "development": ("winter", "dragon", "monkey", "shadow", "master", "orange"),
    "validation": ("harbor", "silver", "falcon", "rocket", "coffee", "purple"),
}
USERS = ("ann", "bob", "cid", "dan", "eve")


def _password(rng: random.Random, half: str) -> str:
    first, second = rng.sample(WORDS[half], 2)
    return f"{first.capitalize()}{second}{rng.randint(10, 999)}"


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for half, layouts in LAYOUTS.items():
        rng = random.Random(f"far-{half}")
        for name, layout in layouts.items():
            rows = [(user, _password(rng, half)) for user in USERS]
            cases.append(pytest.param([v for _, v in rows], layout(rows, "password"), id=f"{half}-{name}"))
    return cases


@pytest.mark.parametrize(("passwords", "text"), _cases())
def test_a_word_password_labelled_rows_above_is_replaced(passwords: list[str], text: str) -> None:
    redacted, findings = redact_text(text, SALT)
    assert {f.value for f in findings} >= set(passwords), "pass 1 must find every one"
    assert [p for p in passwords if p in redacted] == []


@pytest.mark.parametrize(
    "text",
    [
        layout(
            [(user, word.capitalize() + "town") for user, word in zip(USERS, WORDS[half], strict=False)],
            "city",
        )
        for half, layouts in LAYOUTS.items()
        for layout in layouts.values()
    ],
)
def test_the_same_layouts_naming_no_credential_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def test_a_default_password_is_replaced_where_labelled_and_the_image_naming_it_kept() -> None:
    """The image's line is confirmed neither by its window nor by the whole text's scan."""
    text = "db:\n  environment:\n    POSTGRES_PASSWORD: postgres\n  volumes: [data]\n  image: postgres:16"
    redacted = redact_text(text, SALT)[0]
    assert "POSTGRES_PASSWORD: <REDACTED_PASSWORD:" in redacted
    assert redacted.endswith("image: postgres:16")
