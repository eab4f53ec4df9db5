"""A table a tool returned as JSON, pasted into prose as an escaped JSON string (engine.
_quoted_literal_findings, structure._header_row_columns).

``The query returned "[{\\"id\\": 1, \\"db_password\\": \\"...\\"}]"``: the text is no JSON document,
so its literals were never decoded, its keys never read as keys, and a CSV ``stdout`` inside never
stood on lines of its own; a table of rows as arrays under a header row was read by no rule at all.
Generated: word passwords x table shapes x sentences; development and validation differ by shape
and sentence. Controls: the same tables with columns that name no credential, placeholders."""

from __future__ import annotations

import json

import pytest

from tests.curation._labelled_word_cases import labelled_word_cases
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"prose-json-tables-salt"


def _tool_output(stdout: str) -> str:
    return json.dumps({"tool_output": json.dumps({"stdout": stdout, "rc": 0})})


DEVELOPMENT = {
    "csv_stdout_in_json_in_prose": lambda c, p: (
        f"Here it is: {_tool_output(f'service,{c},owner{chr(10)}billing,{p},ops')} as shown."
    ),
    "header_row_arrays": lambda c, p: (
        f"The sheet came back as {json.dumps(json.dumps([['service', c], ['billing', p]]))}."
    ),
}
DEV_COLUMNS = ["db_password", "api_secret"]
VALIDATION = {
    "tsv_output_in_result": lambda c, p: (
        "I got "
        + json.dumps({"result": json.dumps({"output": f"name\tenv\t{c}\nmailer\tprod\t{p}\n"})})
        + " back."
    ),
    "row_objects_in_prose": lambda c, p: (
        f"Rows: {json.dumps(json.dumps([{'id': 1, c: p, 'env': 'prod'}]))}, then exit."
    ),
    "header_row_nested": lambda c, p: (
        f"data={json.dumps(json.dumps({'values': [['id', 'user', c], [1, 'ops', p]]}))}"
    ),
}
VAL_COLUMNS = ["password", "smtp_pass", "client_secret"]


@pytest.mark.parametrize(
    ("text", "password"),
    labelled_word_cases(DEVELOPMENT, DEV_COLUMNS) + labelled_word_cases(VALIDATION, VAL_COLUMNS),
)
def test_a_password_in_a_json_table_quoted_in_prose_is_replaced(text: str, password: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert password not in redacted.replace("\\\\", "\\")


CONTROLS = [
    f"The sheet came back as {json.dumps(json.dumps([['service', 'region'], ['billing', 'eu-west-1']]))}.",
    "The sheet came back as "
    + json.dumps(json.dumps([["service", "password"], ["billing", "<your-password>"]])),
    f"Here it is: {_tool_output('service,owner,rotated' + chr(10) + 'billing,ops,2024-03-01')} as shown.",
    f"Rows: {json.dumps(json.dumps([{'id': 1, 'api_key': '${API_KEY}', 'env': 'prod'}]))}, then exit.",
    'commit "\\t8ab20238fb3ef48823e75469b5712d3f0baf2e58\\n" was reverted',  # a literal of no document
]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_a_json_table_in_prose_without_a_credential_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
