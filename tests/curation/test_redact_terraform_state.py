"""Secrets a Terraform state names by the resource's type (red team rtsec11, class 01): the
``result`` of a ``random_password`` sits under a key that names nothing.

The values and states here are not the red team's (those are its generators)."""

from __future__ import annotations

import json

import pytest
from redact_factory import secret_episode, with_shell_calls

from trajectory_platform.curation.redact import redact_episode, redact_text

SALT = b"tfstate-salt"
PW = "x9<Tq]w2"
"""Short, with the brackets of the provider's default specials: no entropy rule takes it."""
HASH = "$2a$10$" + "Jq0rPz8LmN4vXw2Ks6TbYu" * 2


def _state(kind: str, attributes: dict) -> dict:
    return {
        "version": 4,
        "resources": [
            {
                "mode": "managed",
                "type": kind,
                "name": "main",
                "instances": [{"schema_version": 0, "attributes": attributes}],
            }
        ],
    }


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(_state("random_password", {"id": "none", "length": 8, "result": PW, "special": True})),
        json.dumps(_state("random_password", {"result": PW}), indent=2),
        "$ terraform state pull\n"
        + json.dumps(_state("azuread_application_password", {"value": PW, "display_name": "ci"})),
        json.dumps(
            {
                "values": {
                    "root_module": {"resources": [{"type": "random_password", "values": {"result": PW}}]}
                }
            }
        ),
        json.dumps({"bcrypt_hash": HASH, "length": 8, "result": PW}, indent=1),
    ],
)
def test_a_secret_attribute_of_a_typed_resource_is_replaced(text: str) -> None:
    assert PW not in redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(_state("random_pet", {"id": "brave-otter", "result": "Brave-otter9"})),
        json.dumps(_state("random_string", {"result": "x9Tq-w2ab"})),
        json.dumps(_state("aws_instance", {"instance_type": "t3.micro", "ami": "ami-0abcdef12"})),
        json.dumps({"db_port": {"sensitive": False, "type": "string", "value": "5432:tcp"}}),
    ],
)
def test_other_resources_and_attributes_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (
            "terraform show -json | jq '.values.root_module.resources[]"
            ' | select(.type == "random_password") | .values\'',
            json.dumps({"id": "none", "length": 8, "result": PW}, indent=2),
        ),
        (
            "terraform state show -show-sensitive random_password.app",
            f'resource "random_password" "app" {{\n    result = "{PW}"\n}}',
        ),
    ],
)
def test_the_attributes_a_command_selected_by_type_are_replaced(command: str, output: str) -> None:
    redacted, _ = redact_episode(with_shell_calls(secret_episode(), (command, output)), SALT)
    assert PW not in json.dumps(redacted.to_dict())
