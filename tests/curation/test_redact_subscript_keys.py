"""A credential assigned to a subscript named by a symbol (Ruby's ``config[:password] = "x"``).

A string subscript named the value (``settings["api_key"] = "x"``); a Ruby hash indexed by a
symbol, as Rails settings and ``params`` are, did not, and the literal stayed. Generated
assignments (receivers, names, quoting, spacing) split into a development and a validation half;
a reference, another subscript or ``nil`` on the right are the controls.
"""

from __future__ import annotations

import random
import string

import pytest
from redact_factory import SALT

from trajectory_platform.curation.redact import redact_text

_RECEIVERS = ["settings", "config", "@options", "Rails.application.config.x", "opts", "ENV_CFG", "creds"]
_NAMES = ["password", "api_key", "db_password", "secret_key", "auth_token", "client_secret", "smtp_password"]


def _cases(seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(30):
        value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(12, 24)))
        value = value[:-1] + rng.choice(string.digits)
        quote = rng.choice("\"'")
        space = rng.choice(["", " "])
        line = f"{rng.choice(_RECEIVERS)}[:{rng.choice(_NAMES)}]{space}={space}{quote}{value}{quote}"
        cases.append((line, value))
    return cases


DEV, VALIDATION = _cases(61), _cases(62)
CONTROLS = [
    "params[:password] = params[:password_confirmation]",
    'config[:password] = ENV["DB_PASSWORD"]',
    "settings[:api_key] = nil",
    "opts[:password] = Rails.application.credentials.db_password",
    'config[:timeout] = "30s"',
]


@pytest.mark.parametrize(("line", "value"), DEV, ids=[f"dev{i}" for i, _ in enumerate(DEV)])
def test_a_literal_under_a_symbol_subscript_is_replaced(line, value):
    assert value not in redact_text(line, SALT)[0]


def test_the_validation_half_too():
    assert [line for line, value in VALIDATION if value in redact_text(line, SALT)[0]] == []


@pytest.mark.parametrize("line", CONTROLS, ids=[f"ctl{i}" for i, _ in enumerate(CONTROLS)])
def test_a_reference_or_another_name_stays(line):
    assert redact_text(line, SALT)[0] == line
