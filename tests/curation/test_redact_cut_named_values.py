"""The head of a value a truncation mark cut, named on a line above (cut_values.find_cut_cells with
positional's readers of values named elsewhere).

A cut left a Terraform plan's ``value = "<head>`` under its sibling ``name = "/app/db_password"``,
an Actions debug ``=> '<head>`` under ``Evaluating: secrets.X``, an ``INSERT`` row's literal under
its column list: the line names nothing, the structure that does was never closed, so neither the
cut completion of one line nor the readers of whole structures took the head. Generated: word
passwords and random keys x carriers x marks; development and validation differ by carrier and
mark. Controls: the same carriers naming no credential, and a placeholder cut, are kept (an
Actions debug value of ``secrets.X`` is a secret by its place, whatever X: it has no neutral
control)."""

from __future__ import annotations

import random

import pytest

from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"cut-named-values-salt"
KEY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"
TS = "2024-05-01T10:00:0{}.1234567Z "

DEVELOPMENT = {
    "plan_parameter": lambda n, v: (
        '  + resource "aws_ssm_parameter" "app" {\n'
        f'      + name  = "/prod/{n}"\n      + type  = "SecureString"\n      + value = "{v}'
    ),
    "yaml_env_list": lambda n, v: (
        f"env:\n  - name: LOG_LEVEL\n    value: info\n  - name: {n.upper()}\n    value: {v}"
    ),
}
VALIDATION = {
    "actions_debug": lambda n, v: (
        f"{TS.format(1)}##[debug]Evaluating: secrets.{n.upper()}\n{TS.format(2)}##[debug]=> '{v}"
    ),
    "insert_row": lambda n, v: (
        f"INSERT INTO `accounts` (`id`, `login`, `{n}`, `created_at`) VALUES (1,'ops','{v}"
    ),
    "json_name_value": lambda n, v: (
        '[{"name": "REGION", "value": "eu-west-1"},\n {"name": "' + n.upper() + '", "value": "' + v
    ),
}
DEV_MARKS = ["\n... [output truncated: 1843 more characters]", "..."]
VAL_MARKS = ["…(12 more chars)", "\n<response clipped>", " [truncated]"]
NAMES = ["db_password", "api_secret", "smtp_password"]


def _cases(table: dict, marks: list, half: str) -> list:
    cases = []
    for carrier, make in sorted(table.items()):
        for kind in ("word", "key"):
            g = random.Random(f"{half}{carrier}{kind}")
            if kind == "word":
                value = word_password(g, (1000, 9999), "!#%")
            else:
                value = "".join(g.choice(KEY_ALPHABET) for _ in range(32))
            head = value[: max(len(value) // 2, 10)]
            text = make(g.choice(NAMES), head) + g.choice(marks)
            cases.append(pytest.param(text, head, id=f"{half}-{carrier}-{kind}"))
    return cases


@pytest.mark.parametrize(
    ("text", "head"), _cases(DEVELOPMENT, DEV_MARKS, "dev") + _cases(VALIDATION, VAL_MARKS, "val")
)
def test_the_head_of_a_cut_value_named_on_another_line_is_replaced(text: str, head: str) -> None:
    assert head not in redact_text(text, SALT)[0]


def _controls() -> list:
    cases = []
    for carrier, make in sorted({**DEVELOPMENT, **VALIDATION}.items()):
        neutral = [] if carrier == "actions_debug" else [("log_level", "informational-verbose")]
        for name, value in [*neutral, ("db_password", "${DB_PASSWORD_PRODUCTION}")]:
            cases.append(pytest.param(make(name, value[:14]) + "...", id=f"{carrier}-{name}"))
    return cases


@pytest.mark.parametrize("text", _controls())
def test_what_names_no_credential_or_holds_a_placeholder_is_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
