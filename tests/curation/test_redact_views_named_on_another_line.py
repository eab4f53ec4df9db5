"""A value named on another line, seen through a decoded view (engine._context_findings).

An Actions debug log's ``Evaluating: secrets.X`` above ``##[debug]=> '<value>'``, a Terraform
plan's sibling ``name = "/app/db_password"`` above ``value = "..."``, the ``passwd`` a
here-document feeds: the rules that read these ran on the raw text only, and a view (the text
quoted-printable, or dumped by ``xxd``) was scanned line by line, so its value lost the line that
names it. Generated: word passwords x carriers x views; development and validation differ by
carrier and view. Controls: masks, ``(sensitive value)``, an expression naming no credential and a
here-document into a file stay byte for byte."""

from __future__ import annotations

import random

import pytest

from tests.curation._encodings import quoted_printable, unquoted_printable, unxxd, xxd
from tests.curation._labelled_word_cases import word_password
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"views-named-on-another-line-salt"
TS = "2024-05-01T10:00:0{}.1234567Z "


def _debug(expression: str, value: str, result: bool = False) -> str:
    final = f"##[debug]Result: '{value}'" if result else f"##[debug]=> '{value}'"
    return "\n".join([TS.format(1) + f"##[debug]Evaluating: {expression}", TS.format(2) + final])


def _plan(name: str, value: str) -> str:
    return (
        '  + resource "aws_ssm_parameter" "app" {\n'
        f'      + name  = "{name}"\n      + type  = "SecureString"\n      + value = "{value}"\n    }}'
    )


VIEWS = {"qp": (quoted_printable, unquoted_printable), "xxd": (xxd, unxxd)}
DEVELOPMENT = {
    "debug_secrets_arrow": (lambda p: _debug("secrets.DB_PASSWORD", p), ["qp", "xxd"]),
    "plan_parameter": (lambda p: _plan("/app/db_password", p), ["xxd"]),
    "heredoc_passwd": (lambda p: f"$ passwd deploy <<EOF\n{p}\n{p}\nEOF", ["xxd"]),
}
VALIDATION = {
    "debug_env_result": (lambda p: _debug("env.SMTP_PASSWORD", p, result=True), ["qp", "xxd"]),
    "debug_inputs_arrow": (lambda p: _debug("inputs.api_key", p), ["xxd"]),
    "plan_parameter_qp": (lambda p: _plan("/prod/api/admin_password", p), ["qp"]),
    "heredoc_chpasswd": (lambda p: f"$ cat <<'END' | sudo chpasswd\nops:{p}\nEND", ["qp", "xxd"]),
}


def _cases(table: dict, half: str) -> list:
    cases = []
    for name, (carrier, views) in sorted(table.items()):
        for view in views:
            g = random.Random(f"{name}{view}")
            password = word_password(g, (100, 999), "!#%")
            encode, decode = VIEWS[view]
            cases.append(
                pytest.param(encode(carrier(password)), decode, password, id=f"{half}-{name}-{view}")
            )
    return cases


@pytest.mark.parametrize(
    ("text", "decode", "password"), _cases(DEVELOPMENT, "dev") + _cases(VALIDATION, "val")
)
def test_a_value_named_on_another_line_is_replaced_through_a_view(text: str, decode, password: str) -> None:
    redacted, _ = redact_text(text, SALT)
    assert password[:10] not in decode(redacted)


CONTROLS = [
    quoted_printable(_debug("secrets.DB_PASSWORD", "***", result=True)),
    quoted_printable(_debug("github.ref_name", "release-2024-05")),
    xxd('  ~ resource "azurerm_key_vault_secret" "db" {\n      ~ value = (sensitive value)\n    }'),
    quoted_printable(_plan("/app/log_level", "informational")),
    xxd("$ cat <<EOF > notes.txt\nMeadowfalcon2024!\nEOF"),
]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_what_no_other_line_names_a_credential_stays_through_a_view(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
