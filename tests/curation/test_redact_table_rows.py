"""Credentials a layout labels: a two-column table's row whose first cell names one (bordered,
box-drawn, aligned, wrapped over two rows: ``curation/redact/rows.py``), and a ``user:password``
word in prose (``curation/redact/pairs.py``)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.rows import ascii_table

SALT = b"rows-and-phrases"
PW = "Kestrel4471&"
"""Memorable: entropy leaves it, so only the layout can find it."""


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


ROWS = {
    "markdown_row_no_header": (
        f"| Setting | Current |\n|---|---|\n| host | db.internal |\n| DB password | {PW} |"
    ),
    "markdown_row_alone": f"| region | eu-west-1 |\n| smtp_password | {PW} |",
    "box_light": (
        f"┌──────────┬──────────────┐\n"
        f"│ password │ {PW} │\n"
        f"│ port     │ 5432         │\n"
        f"└──────────┴──────────────┘"
    ),
    "box_heavy_header": (
        f"┃ Field         ┃ Detail       ┃\n┣━━━━━━━━━━━━━━━╋━━━━━━━━━━━━━━┫\n┃ Client Secret ┃ {PW} ┃"
    ),
    "box_double": f"║ user          ║ admin        ║\n║ Root Password ║ {PW} ║",
    "ascii_grid": (
        f"+------------+--------------+\n"
        f"| api_token  | {PW} |\n"
        f"| user       | admin        |\n"
        f"+------------+--------------+"
    ),
    "aligned_columns": f"host            db.internal\nwebhook_secret  {PW}\nport            5432",
    "aligned_tabbed": f"user\tadmin\nadmin_pwd\t{PW}",
    "markdown_emphasis_and_code": f"| **Root Password** | `{PW}` |\n| **Host** | `db.internal` |",
    "label_with_colon": f"| Password: | {PW} |\n| Port: | 5432 |",
}


@pytest.mark.parametrize("layout", sorted(ROWS))
def test_a_row_whose_first_cell_names_a_credential_loses_its_value(layout: str) -> None:
    assert PW not in _redacted(ROWS[layout])


def test_a_code_span_keeps_its_marks_around_the_pseudonym() -> None:
    out = _redacted(f"| **API key** | `{PW}` |")
    assert PW not in out and out.startswith("| **API key** | `<REDACTED_") and out.endswith("` |")


def test_a_value_wrapped_over_two_rows_loses_both_halves() -> None:
    head, tail = "xQ7rTz9LmP", "w2VbN8kHs4"
    aws = (
        "-------------------------------------------\n|             GetSecretValue              |\n"
        "+--------------+--------------------------+\n"
        f"|  Name        |  prod/app                |\n|  SecretString|  {head}              |\n"
        f"|              |  {tail}              |\n+--------------+--------------------------+"
    )
    indented = f"  host            db.internal\n  db_password     {head}\n                  {tail}\n"
    for text in (aws, indented):
        out = _redacted(text)
        assert head not in out and tail not in out


NOT_ROWS = {
    "test_results": (
        "| Test | Result |\n|---|---|\n| test_password_reset | PASSED |\n| test_token_refresh | FAILED |"
    ),
    "coverage": (
        "Name                         Stmts   Miss  Cover\nsrc/auth/tokens.py              45      3    93%"
    ),
    "package_versions": (
        "| Package | Version |\n|---|---|\n| auth-lib | 1.2.3-beta |\n| secret-storage | 3.3.3 |"
    ),
    "counts": "  token_count      1234\n  max_tokens       4096\n  tokenizer        gpt2-v3",
}


@pytest.mark.parametrize("case", sorted(NOT_ROWS))
def test_tables_of_results_versions_and_counts_are_kept(case: str) -> None:
    assert _redacted(NOT_ROWS[case]) == NOT_ROWS[case]


def test_box_drawing_reads_as_an_ascii_table_of_the_same_length() -> None:
    box = "┌──┬──┐\n│ a│ b│\n├──┼──┤\n└──┴──┘"
    assert ascii_table(box) == "+--+--+\n| a| b|\n+--+--+\n+--+--+"


PAIRS = [
    f"Log in with admin:{PW} on the staging box.",
    f"The default creds are deploy:{PW}",
    f"SSH access (root:{PW}) works now.",
    f"I created the account `svc_backup:{PW}` for you.",
    f"Try ubuntu:{PW} first.",
]


@pytest.mark.parametrize("text", PAIRS)
def test_a_user_password_word_in_prose_loses_its_password(text: str) -> None:
    out = _redacted(text)
    assert PW not in out and PW.rstrip("&") not in out


NOT_PAIRS = [
    "FROM python:3.11-slim\nRUN ssh-keygen -A && docker pull postgres:15-alpine",
    "Log in to the registry, then pull ubuntu:jammy-20240227 and node:18-bullseye",
    "ERROR:root:Authentication failed for user admin",
    "Log in at localhost:8080 as user alice",
    "The user:1234:profile key caches the account of alice.",
    "# pylint:disable=protected-access  (the account fixture reaches into internals)",
]


@pytest.mark.parametrize("text", NOT_PAIRS)
def test_image_tags_ports_and_log_prefixes_are_no_pairs(text: str) -> None:
    assert _redacted(text) == text
