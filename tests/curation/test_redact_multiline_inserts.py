"""An ``INSERT`` laid out a column and a value a line, as written or quoted in JSON at any depth
(sql_columns: ``INSERT``, ``SQL_VALUE``, ``column_names``).

The reader took a column list and a row on one line each, and a JSON escape one level deep; a
statement formatted one item a line (``INSERT INTO t (\\n  host,\\n  smtp_password\\n) VALUES
(\\n  'x',\\n  '<password>'\\n)``), in plain text or in a tool's output quoted as a JSON document
inside another (``\\\\n``, ``\\\\\\"``), kept the password in its credential column. Generated: word
passwords x statement layouts x quotings; development and validation differ by layout and
quoting. Controls: a digest under a checksum column, neutral columns and a placeholder in the
same layouts are kept byte for byte."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"multiline-inserts-salt"

DEV_LAYOUTS = {
    "item_a_line": lambda c, v: (
        f"INSERT INTO smtp_settings (\n  host,\n  {c}\n) VALUES (\n  'mail.example.com',\n  '{v}'\n);"
    ),
    "values_a_line": lambda c, v: (
        f"INSERT INTO accounts (id, login, {c}) VALUES (\n  1,\n  'ops',\n  '{v}'\n);"
    ),
}
VAL_LAYOUTS = {
    "table_on_next_line": lambda c, v: (
        f"INSERT INTO\n  public.users\n  (\n    id,\n    {c}\n  )\nVALUES\n  (\n    7,\n    '{v}'\n  );"
    ),
    "quoted_identifiers": lambda c, v: (
        f'INSERT INTO "service_accounts" (\n  "id",\n  "name",\n  "{c}"\n)\nVALUES (\n  1,\n'
        f"  'billing',\n  '{v}'\n) ON CONFLICT DO NOTHING;"
    ),
    "backticks_two_rows": lambda c, v: (
        f"INSERT INTO `integrations` (\n  `id`,\n  `{c}`,\n  `created_at`\n) VALUES\n"
        f"(\n  1,\n  '{v}',\n  now()\n),\n(\n  2,\n  NULL,\n  now()\n);"
    ),
}


def _document(text: str) -> str:
    return json.dumps({"stdout": text, "exit_code": 0})


DEV_QUOTINGS = {
    "plain": lambda t: t,
    "two_levels_in_prose": lambda t: f"The tool returned {json.dumps(_document(t))} as expected.",
}
VAL_QUOTINGS = {
    "one_level_document": lambda t: "Here is the output:\n" + _document(t),
    "three_levels_in_prose": lambda t: f"Log line: {json.dumps(json.dumps(_document(t)))}",
    "two_levels_single_quoted": lambda t: f"I got '{json.dumps(_document(t))[1:-1]}' back from the tool.",
}
DEV_COLUMNS = ["smtp_password", "api_secret"]
VAL_COLUMNS = ["passwd", "client_secret", "db_password"]


def _cases(layouts: dict, quotings: dict, columns: list, half: str) -> list:
    cases = []
    for lname, layout in sorted(layouts.items()):
        for qname, quoting in sorted(quotings.items()):
            g = random.Random(f"{half}{lname}{qname}")
            password = word_password(g, (100, 9999), "!#%")
            text = quoting(layout(g.choice(columns), password))
            cases.append(pytest.param(text, password, id=f"{half}-{lname}-{qname}"))
    return cases


@pytest.mark.parametrize(
    ("text", "password"),
    _cases(DEV_LAYOUTS, DEV_QUOTINGS, DEV_COLUMNS, "dev")
    + _cases(VAL_LAYOUTS, VAL_QUOTINGS, VAL_COLUMNS, "val"),
)
def test_a_password_in_a_multiline_insert_is_replaced(text: str, password: str) -> None:
    assert password[:8] not in redact_text(text, SALT)[0]


def _controls() -> list:
    cases = []
    layouts = {**DEV_LAYOUTS, **VAL_LAYOUTS}
    quotings = {**DEV_QUOTINGS, **VAL_QUOTINGS}
    for lname, layout in sorted(layouts.items()):
        g = random.Random(f"control{lname}")
        digest = hashlib.sha256(lname.encode()).hexdigest()
        quoting = quotings[sorted(quotings)[g.randrange(len(quotings))]]
        for column, value in (
            ("sha256", digest),
            ("display_name", "Billing Service"),
            ("password", "${DB_PASSWORD}"),
        ):
            cases.append(pytest.param(quoting(layout(column, value)), id=f"{lname}-{column}"))
    return cases


@pytest.mark.parametrize("text", _controls())
def test_what_no_credential_column_holds_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
