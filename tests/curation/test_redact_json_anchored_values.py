"""Red team, round 15 (2026-12-07): a password that reads as a word (``Harborsilver42``,
``MonkeyDragon7``) in a JSON document whose label sits outside the value's own string literal: a
sibling's value (a HAR header, a container's ``env``, CloudFormation's parameters, SSM), or the
argv item before it. The document's scan found it; rewritten literal by literal, the value showed
no label and was kept as a word that merely spells a password, so the text came back unchanged
while its findings said it had been redacted. Carriers and password words are split into a
development and a validation half (none in both); the controls are the same words where no label
names them, and a default password whose word is also an image's name."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"json-anchored-salt"

Carrier = Callable[[str], str]

CARRIERS: dict[str, dict[str, Carrier]] = {
    "development": {
        "har_header": lambda v: json.dumps({"request": {"headers": [{"name": "X-Api-Key", "value": v}]}}),
        "k8s_env": lambda v: json.dumps({"containers": [{"env": [{"name": "DB_PASSWORD", "value": v}]}]}),
        "argv_flag": lambda v: json.dumps({"args": ["--user", "bob", "--password", v]}),
        "cloudformation": lambda v: json.dumps(
            {"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": v}]}
        ),
    },
    "validation": {
        "postman_variable": lambda v: json.dumps(
            {"variable": [{"key": "api_token", "value": v, "type": "secret"}]}
        ),
        "ssm_parameter": lambda v: json.dumps(
            {"Name": "/prod/db/password", "Value": v, "Type": "SecureString"}
        ),
        "argv_attached": lambda v: json.dumps(["mysql", "-u", "root", "-p" + v, "shop"]),
        "ecs_environment": lambda v: json.dumps(
            {"containerDefinitions": [{"environment": [{"name": "SMTP_PASS", "value": v}]}]}
        ),
    },
}
"""Per half, a JSON document that labels the value outside the value's literal."""

WORDS = {
    "development": ("winter", "dragon", "monkey", "shadow", "master", "orange"),
    "validation": ("harbor", "silver", "falcon", "rocket", "coffee", "purple"),
}


def _password(rng: random.Random, half: str) -> str:
    """A word password of a shape ``SymbolTable.is_plain_word`` accepts: a word and digits, or
    capitalised words run together (with digits)."""
    first, second = rng.sample(WORDS[half], 2)
    first, second = first.capitalize(), rng.choice((second, second.capitalize()))
    return f"{first}{second}{rng.randint(1, 99)}" if second.islower() else first + second


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for half, carriers in CARRIERS.items():
        rng = random.Random(f"anchored-{half}")
        for name, carrier in carriers.items():
            for n in range(2):
                password = _password(rng, half)
                cases.append(pytest.param(password, carrier(password), id=f"{half}-{name}-{n}"))
    return cases


@pytest.mark.parametrize(("password", "text"), _cases())
def test_a_word_password_labelled_outside_its_literal_is_replaced(password: str, text: str) -> None:
    redacted, findings = redact_text(text, SALT)
    assert any(f.value == password for f in findings), "the document's scan must find it"
    assert password not in redacted
    json.loads(redacted)


CONTROLS = [
    json.dumps({"headers": [{"name": "X-Region", "value": "Harborsilver42"}]}),
    json.dumps({"args": ["--user", "Monkeydragon7", "--verbose"]}),
    json.dumps({"Parameters": [{"ParameterKey": "InstanceName", "ParameterValue": "WinterOrange"}]}),
    json.dumps({"Name": "/prod/app/title", "Value": "FalconRocket", "Type": "String"}),
]


@pytest.mark.parametrize("text", CONTROLS)
def test_the_same_words_where_nothing_names_a_credential_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def test_a_default_password_is_replaced_where_labelled_and_kept_where_it_names_an_image() -> None:
    text = json.dumps({"image": "postgres", "env": [{"name": "POSTGRES_PASSWORD", "value": "postgres"}]})
    redacted = json.loads(redact_text(text, SALT)[0])
    assert redacted["image"] == "postgres"
    assert redacted["env"][0]["value"] != "postgres"
