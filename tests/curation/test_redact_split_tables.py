"""A query result split into its column names and its rows (structure._split_table_columns, and
engine._quoted_document_structures for such a result opening a line of prose).

``{"columns": ["id", "db_password"], "rows": [[1, "..."]]}``: no key names the value, and the
header-row rule reads only a header that is the first row of the same list. Query APIs split the
two: pandas' ``orient="split"``, Trino's ``columns`` of objects with ``data``, Snowflake's
``rowType``, Databricks' ``manifest.schema.columns`` beside ``result.data_array``, BigQuery's
``schema.fields`` with ``{"f": [{"v": ...}]}`` rows. Generated: word passwords and random keys x
shapes; development and validation differ by shape and column name. Controls: the same results
with columns that name no credential, a placeholder, names and rows of different lengths."""

from __future__ import annotations

import json
import random
import string

import pytest

from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"split-tables-salt-0123456789abcd"


def _names(columns: list[str]) -> list[dict]:
    return [{"name": column, "type": "varchar"} for column in columns]


DEVELOPMENT = {
    "columns_rows": lambda c, v: json.dumps({"columns": ["id", c], "rows": [[1, v], [2, None]]}),
    "pandas_split": lambda c, v: json.dumps({"columns": ["user", c], "index": [0], "data": [["ops", v]]}),
    "trino": lambda c, v: json.dumps({"columns": _names(["id", c]), "data": [[7, v]], "stats": {"x": 1}}),
    "databricks": lambda c, v: json.dumps(
        {"manifest": {"schema": {"columns": _names(["host", c])}}, "result": {"data_array": [["db1", v]]}}
    ),
    "in_prose_on_its_line": lambda c, v: (
        "Here is the output:\n" + json.dumps({"columns": ["a", c], "rows": [["x", v]]})
    ),
}
DEV_COLUMNS = ["db_password", "api_secret"]
VALIDATION = {
    "snowflake": lambda c, v: json.dumps(
        {"resultSetMetaData": {"rowType": _names(["ACCOUNT", c])}, "data": [["acme", v]], "code": "090001"}
    ),
    "schema_fields_data": lambda c, v: json.dumps(
        {"schema": {"fields": _names(["env", c, "owner"])}, "data": [["prod", v, "ops"]]}
    ),
    "bigquery": lambda c, v: json.dumps(
        {"schema": {"fields": _names(["svc", c])}, "rows": [{"f": [{"v": "mail"}, {"v": v}]}]}
    ),
    "nested_result_in_reply": lambda c, v: (
        "I got this back:\n  "
        + json.dumps({"result": {"columns": ["login", c, "active"], "rows": [["deploy", v, True]]}})
    ),
}
VAL_COLUMNS = ["user_password", "client_secret", "SERVICE_PASSWD"]


def _value(g: random.Random, random_key: bool) -> str:
    if random_key:
        return "".join(g.choice(string.ascii_letters + string.digits) for _ in range(24))
    return word_password(g, (100, 999), "!#%")


def _cases(table: dict, columns: list[str], half: str) -> list:
    cases = []
    for name, carrier in sorted(table.items()):
        for column in columns:
            for random_key in (False, True):
                value = _value(random.Random(f"{half}{name}{column}{random_key}"), random_key)
                kind = "key" if random_key else "word"
                cases.append(pytest.param(carrier(column, value), value, id=f"{half}-{name}-{column}-{kind}"))
    return cases


@pytest.mark.parametrize(
    ("text", "value"),
    _cases(DEVELOPMENT, DEV_COLUMNS, "dev") + _cases(VALIDATION, VAL_COLUMNS, "val"),
)
def test_a_cell_under_a_credential_column_is_replaced(text: str, value: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert value not in redacted


CONTROLS = {
    "neutral_column": json.dumps({"columns": ["id", "owner"], "rows": [[1, "Harborwinter417!"]]}),
    "placeholder": json.dumps({"columns": ["id", "db_password"], "rows": [[1, "<your-password>"]]}),
    "lengths_differ": json.dumps({"columns": ["password"], "rows": [["ops", "Meadowfalcon22#x"]]}),
    "digest_column": json.dumps(
        {"schema": {"fields": _names(["file", "sha256"])}, "data": [["a.bin", "9f" * 32]]}
    ),
}
KEPT = {
    "neutral_column": "Harborwinter417!",
    "placeholder": "<your-password>",
    "lengths_differ": "Meadowfalcon22#x",
    "digest_column": "9f" * 32,
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_cell_no_credential_column_names_is_kept(name: str) -> None:
    redacted, _ = redact_text(CONTROLS[name], SALT)
    assert KEPT[name] in redacted
