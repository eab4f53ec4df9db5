"""Environment variables that a client reads as its password hold one even when it is a plain word
(``REDISCLI_AUTH=sunshine redis-cli``, ``MYSQL_PWD=letmein mysql shop``): the value is replaced and
the command after it kept."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.credential_names import credential_class

SALT = b"client-variables-salt"
VARIABLES = {
    "REDISCLI_AUTH": "redis-cli -h cache ping",
    "MYSQL_PWD": "mysql -u root shop",
    "PGPASSWORD": "psql -h db -U app",
    "SSHPASS": "sshpass -e ssh deploy@host",
    "LDAPPASSWORD": "ldapsearch -x -H ldap://dir",
}
VALUES = ("sunshine", "letmein", "Dragon", "hunter22")
FORMS = ("{name}={value} {command}", "export {name}={value}; {command}", 'env {name}="{value}" {command}')


@pytest.mark.parametrize(
    ("name", "value", "form"),
    list(itertools.product(VARIABLES, VALUES, FORMS)),
    ids=[f"{n}-{i}-{j}" for n, i, j in itertools.product(VARIABLES, range(len(VALUES)), range(len(FORMS)))],
)
def test_a_client_password_variable_is_replaced_and_its_command_kept(
    name: str, value: str, form: str
) -> None:
    command = VARIABLES[name]
    redacted = redact_text(form.format(name=name, value=value, command=command), SALT, shell=True)[0]
    assert value not in redacted
    assert redacted.endswith(command) and f"{name}=" in redacted


@pytest.mark.parametrize("name", ["REDISCLI_AUTH", "REDIS_AUTH", "masterauth", "keydb_auth"])
def test_a_redis_clients_auth_variable_names_a_password(name: str) -> None:
    assert credential_class(name) == "password"


CONTROLS = (
    "REDIS_AUTH_ENABLED=true redis-server",
    "REDISCLI_AUTH=$REDIS_PASSWORD redis-cli ping",
    "AUTH_MODE=ldap ./serve",
    "OAUTH=github ./serve",
)


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_switches_and_references_under_auth_names_stay(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text
