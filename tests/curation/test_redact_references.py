"""A reference to a value, a type, a format string or a pattern in a credential's place is kept
byte for byte, in its line and everywhere else in the episode; a literal in the same place is
still redacted (:mod:`trajectory_platform.curation.redact.references`)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from redact_factory import secret_episode

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.episode import redact_episode
from trajectory_platform.traces.record import Event

SALT = b"references-salt!"

KEPT = {
    "substitution_quoted": 'mongosh -u admin -p "$(cat pw.txt)"',
    "substitution_bare": "mysql -u root -p$(cat /run/secrets/db) app",
    "substitution_redirect": 'mysql --password="$(< ~/.mysqlpw)" -e "select 1"',
    "substitution_command": 'docker login -u ci -p "$(aws ecr get-login-password)" reg.io',
    "substitution_backticks": "ldapsearch -x -w `cat /etc/ldap.secret` -b dc=x",
    "substitution_nested_option": 'usermod -p $(openssl passwd -1 "$NEWPASS") bob',
    "password_stdin_flag": "echo $(cat a) | docker login -u bot --password-stdin r.io",
    "rust_reference": "fn login(user: &str, password: &str) -> bool { true }",
    "rust_generic": "struct Cfg { secret: Option<String>, port: u16 }",
    "rust_impl": "fn with(mut self, password: impl AsRef<str>) -> Self {",
    "rust_mut": "    passphrase: &mut String,",
    "python_type": "def login(self, password: SecretStr) -> None:",
    "ts_field": "interface Creds { apiKey?: string; secret: Buffer }",
    "ts_parameter": "function sign(payload: object, api_key: Uint8Array) {",
    "yaml_alias": "password: *shared",
    "maven_filter": "spring.datasource.password: @db.password@",
    "interpolation": "password: #{DbPassword}",
    "actions_expression": '- run: mysql -u root -p"${{ env.DB_PW }}" app',
    "pipeline_variable": "- script: docker login -u ci -p $(registryPassword) reg.io",
    "powershell_cmdlet": "$password = Read-Host -AsSecureString",
    "powershell_constructor": "$cred = New-Object System.Management.Automation.PSCredential('admin', $sec)",
    "cloudformation": "  MasterUserPassword: !Ref DbPassword",
    "terraform": "  password = var.db_password",
    "format_string": 'password = "%s%s" % (prefix, suffix)',
    "format_braces": 'api_key = "{}{}".format(a, b)',
    "sed_pattern": "sed -i 's/password: .*/password: REPLACE/' config.yml",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_a_reference_or_a_type_is_kept(case: str) -> None:
    text = KEPT[case]
    shell = not text.startswith(("fn", "struct", "def", "interface", "function", "$", " ", "pass", "spring"))
    assert redact_text(text, SALT, shell=shell)[0] == text


def test_a_type_read_as_a_value_does_not_spread_through_the_episode() -> None:
    """A false positive enters the symbol table: the type ``&str`` of a credential's parameter,
    taken as its value, rewrote every ``&str`` of every message."""
    events = [
        Event(kind="tool", content="fn login(user: &str, password: &str) -> bool { true }"),
        Event(kind="tool", content='fn greet(name: &str) -> String { format!("hi {name}") }'),
        Event(kind="tool", content='VERSION=$(cat VERSION)\nmongosh -p "$(cat pw.txt)"'),
    ]
    redacted, findings = redact_episode(replace(secret_episode(), events=events), SALT)
    assert [e.content for e in redacted.events] == [e.content for e in events]
    assert not [f for f in findings if f.field.startswith("events")]


LITERALS = {
    "option": ("mysql -u root -pSunset2291River app", "Sunset2291River"),
    "ts_const": ('const apiKey: string = "k9XvT2mQ8rL4wZ7pB3nC";', "k9XvT2mQ8rL4wZ7pB3nC"),
    "yaml": ("password: Falcon-harbor-1184!", "Falcon-harbor-1184!"),
    "star_prefixed_quoted": ('password = "*Hx82kLq"', "*Hx82kLq"),
}


@pytest.mark.parametrize("case", sorted(LITERALS))
def test_a_literal_in_the_same_place_is_still_redacted(case: str) -> None:
    text, secret = LITERALS[case]
    assert secret not in redact_text(text, SALT, shell=case == "option")[0]
