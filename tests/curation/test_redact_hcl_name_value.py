"""An HCL block's value named by its sibling ``name``/``key`` (positional hcl_name_value / hcl_value_name).

Generated: word passwords x blocks. Development: ``terraform plan`` text of an
``aws_ssm_parameter`` created (``+`` marks, name above value); validation: other blocks and
orders (value above name, a source file's ``env {}`` with no marks, a replaced resource's ``-``
marks, ``key =``). Controls: a name that is no credential's, a parameter whose name merely starts
with ``password``, a sensitive value the plan hides."""

from __future__ import annotations

import pytest

from tests.curation._labelled_word_cases import labelled_word_cases
from trajectory_platform.curation.redact.engine import redact_text

SALT = b"hcl-salt"

DEVELOPMENT = {
    "plan_ssm_created": lambda n, v: (
        '  + resource "aws_ssm_parameter" "app" {\n'
        f'      + name  = "/app/{n}"\n      + type  = "SecureString"\n      + value = "{v}"\n    }}'
    ),
}
DEV_NAMES = ["db_password", "api_token"]
VALIDATION = {
    "value_above_name": lambda n, v: f'env {{\n  value = "{v}"\n  name  = "{n.upper()}"\n}}',
    "source_env_block": lambda n, v: (
        f'container {{\n  env {{\n    name  = "{n.upper()}"\n    value = "{v}"\n  }}\n}}'
    ),
    "plan_destroyed": lambda n, v: (
        f'  - resource "x" "y" {{\n      - key   = "{n}" -> null\n      - value = "{v}" -> null\n    }}'
    ),
}
VAL_NAMES = ["admin_password", "secret_key", "smtp_pass"]
CONTROLS = [
    '  + resource "aws_ssm_parameter" "p" {\n  + name  = "/app/log_level"\n      + value = "Debug-2024"\n}',
    'parameter {\n  name  = "password_encryption"\n  value = "scram-sha-256"\n}',
    '  ~ resource "p" "p" {\n      + name  = "/app/db_password"\n      ~ value = (sensitive value)\n}',
]


@pytest.mark.parametrize(
    ("text", "value"),
    labelled_word_cases(DEVELOPMENT, DEV_NAMES) + labelled_word_cases(VALIDATION, VAL_NAMES),
)
def test_a_value_named_by_its_blocks_name_is_replaced(text: str, value: str) -> None:
    assert value not in redact_text(text, SALT)[0]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_a_block_naming_no_credential_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
