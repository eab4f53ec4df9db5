"""A command whose output IS a credential (``positional.CREDENTIAL_OUTPUT``): what it prints is
replaced whatever its shape, a plain word or a passphrase included, in a transcript and in the
result of the tool call that ran it; the store's diagnostics and a field named for a user stay.

Commands, services and values here are not those of the generators the rule was measured on."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.curation.redact import redact_episode, redact_text
from trajectory_platform.curation.redact.positional import secret_printed_by
from trajectory_platform.traces.record import Episode, Event, ToolCall

SALT = b"output-salt"
WORDY = {
    "plain_word": "marzipan",
    "word_and_number": "lighthouse77",
    "passphrase": "velvet otter climbs slowly",
    "pin": "602214",
}
"""Shapes no entropy or shape test calls a secret: only the command says so."""
READERS = {
    "keyring_cli": "keyring get smtp.example.org mailer",
    "keyring_backend_option": "keyring -b keyring.backends.SecretService.Keyring get nas root",
    "keyring_api_printed": "python3 -c \"import keyring; print(keyring.get_password('jira', 'ops'))\"",
    "keychain": "security find-generic-password -a ops -s backup -w",
    "pass": "pass show infra/switch",
    "onepassword": "op read op://Ops/ldap/password",
    "vault_field": "vault kv get -field=passphrase secret/gpg",
    "gcloud_token": "gcloud auth print-access-token",
    "azure_token": "az account get-access-token --query accessToken -o tsv",
    "ecr_login": "aws ecr get-login-password --region eu-west-1",
}


def _episode(command: str, output: str) -> Episode:
    call = ToolCall(id="call_r", name="execute_bash", arguments=json.dumps({"command": command}))
    return Episode(
        episode_id="ep-out",
        source_format="native",
        source_file="f.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        events=[
            Event(kind="user", content="Set up the mail relay."),
            Event(kind="assistant", content="", tool_calls=[call]),
            Event(kind="tool", content=output, tool_call_id="call_r", status="ok"),
            Event(kind="assistant", content=f"Read it: {output.strip()}."),
        ],
    )


@pytest.mark.parametrize("value", WORDY.values(), ids=WORDY.keys())
@pytest.mark.parametrize("command", READERS.values(), ids=READERS.keys())
def test_what_a_credential_command_printed_is_replaced_whatever_its_shape(command: str, value: str) -> None:
    text = f"ops@box:~$ {command}\n{value}\nops@box:~$ "
    assert value not in redact_text(text, SALT)[0]
    redacted, _ = redact_episode(_episode(command, f"{value}\n"), SALT)
    assert value not in json.dumps(redacted.to_dict()), "the result and its echo in a later message"


DIAGNOSTICS = {
    "keyring_nothing": ("python -c \"import keyring; print(keyring.get_password('a', 'b'))\"", "None"),
    "keychain_missing": (
        "security find-generic-password -s x -w",
        "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.",
    ),
    "pass_missing": ("pass show db/x", "Error: db/x is not in the password store."),
    "vault_sealed": ("vault kv get -field=password secret/db", "Vault is sealed."),
    "gcloud_logged_out": ("gcloud auth print-access-token", "ERROR: (gcloud.auth) Reauthentication needed"),
    "user_field": ("vault kv get -field=username secret/db", "deployer"),
    "user_item": ("op read op://Ops/db/username", "svc_reports"),
    "json": ("az account get-access-token", '{"expiresOn": "2026-01-01"}'),
}


@pytest.mark.parametrize(("command", "output"), DIAGNOSTICS.values(), ids=DIAGNOSTICS.keys())
def test_a_stores_diagnostic_or_a_named_non_secret_field_stays(command: str, output: str) -> None:
    assert secret_printed_by(command, f"{output}\n") is None
