"""A placeholder cut by a truncation mark stays a placeholder (not_values.placeholder_head).

A harness's cut (``...``, ``[truncated]``, ``…(N more chars)``) keeps the head of whatever stood
there: under a password's column or name, the head of ``<your-password>`` or of
``$DB_PASSWORD_PROD`` was read as a value's head (the cut completion gave it a filler, the column
rule took the cell with its ``...``), and replacing it broke the table or the call holding it.
Generated: placeholders x carriers x marks x cut points; development and validation differ by
placeholder form, carrier and mark. Controls: word passwords and random keys cut in the same
places are still replaced."""

from __future__ import annotations

import random

import pytest

from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

KEY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
SALT = b"cut-placeholders-salt"

DEV_PLACEHOLDERS = {
    "angle_your": "<your-password-here>",
    "dollar_env": "$DB_PASSWORD_PRODUCTION",
    "braced_env": "${SMTP_PASSWORD_STAGING}",
}
VAL_PLACEHOLDERS = {
    "angle_name": "<database_password>",
    "actions_template": "{{ secrets.REGISTRY_PASSWORD }}",
    "windows_env": "%ADMIN_PASSWORD_LOCAL%",
    "python_format": "%(mail_password)s",
    "dollar_lower": "$api_secret_value_prod",
}
DEV_CARRIERS = {
    "markdown_table": lambda v: f"| id | user | password |\n|---|---|---|\n| 1 | admin | {v}",
    "csv": lambda v: f"service,owner,db_password\nbilling,ops,{v}",
    "env_line": lambda v: f"PORT=8080\nDB_PASSWORD={v}",
}
VAL_CARRIERS = {
    "psql": lambda v: f" id | login | passwd\n----+-------+--------\n  1 | ops   | {v}",
    "tsv": lambda v: f"name\tenv\tapi_secret\nsearch\tstaging\t{v}",
    "yaml": lambda v: f"database:\n  host: db\n  password: {v}",
    "json_key": lambda v: '{"user": "ops", "password": "' + v,
}
DEV_MARKS = ["...", " [truncated]"]
VAL_MARKS = ["…(1843 more chars)", "... [output truncated: 12 more characters]", "…"]


def _cases(placeholders: dict, carriers: dict, marks: list, half: str) -> list:
    cases = []
    for pname, placeholder in sorted(placeholders.items()):
        for cname, carrier in sorted(carriers.items()):
            g = random.Random(f"{half}{pname}{cname}")
            cut = g.randint(6, len(placeholder) - 2)
            mark = g.choice(marks)
            cases.append(pytest.param(carrier(placeholder[:cut]) + mark, id=f"{half}-{pname}-{cname}"))
    return cases


@pytest.mark.parametrize(
    "text",
    _cases(DEV_PLACEHOLDERS, DEV_CARRIERS, DEV_MARKS, "dev")
    + _cases(VAL_PLACEHOLDERS, VAL_CARRIERS, VAL_MARKS, "val"),
)
def test_a_placeholder_cut_by_a_truncation_mark_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def _controls() -> list:
    cases = []
    for cname, carrier in sorted({**DEV_CARRIERS, **VAL_CARRIERS}.items()):
        g = random.Random(f"control{cname}")
        password = word_password(g, (1000, 9999), "!#%")
        key = "".join(g.choice(KEY_ALPHABET) for _ in range(24))
        for value in (password, key):
            head = value[: len(value) - 3]
            text = carrier(head) + g.choice(DEV_MARKS + VAL_MARKS)
            cases.append(pytest.param(text, head, id=f"{cname}-{'word' if value == password else 'key'}"))
    return cases


@pytest.mark.parametrize(("text", "head"), _controls())
def test_a_credential_cut_in_the_same_places_is_still_replaced(text: str, head: str) -> None:
    assert head not in redact_text(text, SALT)[0]
