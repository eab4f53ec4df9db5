"""A value bound to a neutral name, then used where a credential goes (red team 2026-12-06 rtsec8,
class F13): the label names a reference, and the literal sits elsewhere under a name that says
nothing. Layouts and values are not the red team's; each negative is a near miss kept as it is."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"bound-names-salt"
PW = "Quill=Marsh7712"

BOUND = {
    "python_keyword": f"cfg_a = '{PW}'\nclient = redis.Redis(host='r', password=cfg_a)",
    "python_dict_value": f'ENTRY = "{PW}"\nsettings = {{"user": "svc", "api_token": ENTRY}}',
    "js_object": f"let q9 = '{PW}';\nconst c = new Client({{ user: 'svc', secret: q9 }});",
    "yaml_alias": f"x-base: &base_val {PW}\nservices:\n  app:\n    environment:\n      SMTP_PASS: *base_val",
    "actions_env_expression": (
        f"env:\n  blob: {PW}\njobs:\n  a:\n    steps:\n      - run: psql --password=${{{{ env.blob }}}} -h db"
    ),
    "terraform_local": f'locals {{\n  m1 = "{PW}"\n}}\nresource "x" "y" {{\n  admin_password = local.m1\n}}',
    "make_variable_in_option": f"REG := {PW}\npush:\n\tdocker login -u ci -p $(REG) registry.example\n",
}


@pytest.mark.parametrize("text", BOUND.values(), ids=BOUND.keys())
def test_a_literal_reaching_a_credential_through_a_name_is_redacted(text: str) -> None:
    assert PW not in redact_text(text, SALT)[0]


KEPT = {
    "reference_to_a_call": "pw = getpass.getpass()\nconn = connect(user='a', password=pw)",
    "bound_to_a_plain_word": "default = 'changeme'\nconnect(password=default)",
    "unrelated_binding": "host_name = 'db-7.example'\nconnect(host=host_name, password=None)",
    "alias_to_a_mapping": "x-env: &common\n  TZ: UTC\nservices:\n  a:\n    environment: *common\n",
}


@pytest.mark.parametrize("text", KEPT.values(), ids=KEPT.keys())
def test_near_misses_stay_as_they_are(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
