"""The head of a table's cell cut by a truncation mark, named by its column's header above
(cut_values.find_cut_cells).

A harness's cut (``...``, ``[truncated]``, ``…(N more chars)``) inside a row leaves the row with
fewer cells than its header, and the head of a word password in it had neither a label on its line
(so the cut-value completion took nothing) nor a whole row (so the column readers took nothing).
Generated: word passwords x tables x marks; development and validation differ by table layout and
mark. Controls: cut cells under headers that name no credential, a placeholder, a variable."""

from __future__ import annotations

import random

import pytest

from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"cut-cells-salt"


def _cut(row: str, value: str, mark: str) -> str:
    return row[: row.index(value) + len(value) - 4] + mark


DEVELOPMENT = {
    "csv_ellipsis": lambda p: (
        "service,owner,db_password,rotated\n" + _cut(f"billing,ops,{p},2024-03-01", p, "...")
    ),
    "tsv_bracketed": lambda p: (
        "name\tenv\tapi_secret\nx\tprod\ty\n" + _cut(f"search\tstaging\t{p}\t", p, " [truncated]")
    ),
    "pipes_count": lambda p: (
        "| id | user | password |\n|---|---|---|\n" + _cut(f"| 1 | admin | {p} |", p, "…(1843 more chars)")
    ),
}
VALIDATION = {
    "psql_aligned": lambda p: (
        " id | login | passwd | on\n----+-------+--------+----\n"
        + _cut(f"  1 | ops   | {p} | t", p, "...[truncated]")
    ),
    "copy_rows": lambda p: (
        "COPY public.users (id, login, password_plain) FROM stdin;\n"
        + _cut(f"7\tops\t{p}\t", p, "…(12 more chars)")
    ),
    "semicolons": lambda p: (
        "host;port;smtp_pass\nmail.example.com;587;" + _cut(f"{p};", p, "... [truncated]")
    ),
    "mysql_box": lambda p: (
        "+----+------+------------+\n| id | name | secret_key |\n+----+------+------------+\n"
        + _cut(f"|  1 | ci   | {p} |", p, "…")
    ),
}


def _cases(table: dict, half: str) -> list:
    cases = []
    for name, carrier in sorted(table.items()):
        for i in range(2):
            g = random.Random(f"{name}{i}")
            password = word_password(g, (1000, 9999), "!#%")
            cases.append(pytest.param(carrier(password), password[:-4], id=f"{half}-{name}-{i}"))
    return cases


@pytest.mark.parametrize(("text", "head"), _cases(DEVELOPMENT, "dev") + _cases(VALIDATION, "val"))
def test_the_head_of_a_cut_cell_under_a_credential_header_is_replaced(text: str, head: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert head not in redacted


CONTROLS = [
    "service,owner,description,rotated\nbilling,ops,Waiting for the deploy to finish...",
    "name\tenv\tpath\nsearch\tstaging\t/srv/app/releases/2024-05-01/current [truncated]",
    "| id | region |\n|---|---|\n| 1 | europe-west-1-zone…(12 more chars)",
    "service,owner,notes\nbilling,ops,rotated-by-platform-oncall...",
    "name\tenv\tapi_secret\nsearch\tstaging\t${API_SECRET_STAGIN [truncated]",
]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_a_cut_cell_that_holds_no_credential_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
