"""A credential named by code beside its literal rather than by an assignment
(``detectors.find_named_literals``): a Ruby symbol (``set :password, "x"``, and each literal of a
list it is set to), an Erlang atom (``{password, "x"}``), a getter's default by keyword
(ConfigParser's ``fallback=``), a typer ``Option``/``Argument`` default. Names, values and
layouts here are not those of the generators the rules were measured on."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"named-by-code"
PW = "copperkettle41"
"""Memorable and lowercase: entropy leaves it, only the name beside it marks it."""

NAMED = {
    "ruby_symbol": f"set :smtp_password, '{PW}'",
    "ruby_symbol_env_default": f'set :api_token, ENV.fetch("API_TOKEN", "{PW}")',
    "ruby_symbol_list_last": f'set :api_keys, ["ab12cd34ef", "{PW}"]',
    "erlang_atom": f'{{ok, [{{username, "svc"}}, {{password, "{PW}"}}]}}',
    "erlang_quoted_atom": f"{{'db_password', \"{PW}\"}}",
    "configparser_fallback": f'pw = cfg.get("mail", "passwd", fallback="{PW}")',
    "configparser_one_argument": f"pw = section.get('secret', fallback='{PW}')",
    "typer_option": f'token: str = typer.Option("{PW}", "--token", envvar="TOKEN")',
    "typer_argument": f"password: str = typer.Argument('{PW}')",
}


@pytest.mark.parametrize("text", NAMED.values(), ids=NAMED.keys())
def test_a_literal_code_names_a_credential_is_replaced(text: str) -> None:
    out = redact_text(text, SALT)[0]
    assert PW not in out, out


HONEST = {
    "ruby_setting": 'set :application, "storefront"',
    "ruby_number": "set :password_min_length, 12",
    "erlang_user": '{user, "deploy"}',
    "erlang_option": "{password_hash, sha512}",
    "configparser_host": "host = cfg.get('db', 'host', fallback='localhost')",
    "configparser_path": "path = cfg.get('db', 'password_file', fallback='/run/secrets/pw')",
    "typer_name": "name: str = typer.Option('world', envvar='NAME')",
}


@pytest.mark.parametrize("text", HONEST.values(), ids=HONEST.keys())
def test_settings_that_name_no_credential_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
