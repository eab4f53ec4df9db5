"""YAML node properties and explicit keys before a credential (red team rtsec11, class 03): an
anchor or a core string tag was read as the value (and judged no credential), and ``? key`` /
``: value`` was no ``name: value`` line. Tags that name where a value is stay exempt.

The values and documents here are not the red team's (those are its generators)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"yaml-properties-salt"
PW = "Rk8wLq3Vzt"


@pytest.mark.parametrize(
    "text",
    [
        f"smtp:\n  password: &smtp_pw {PW}\nbackup:\n  password: *smtp_pw\n",
        f"api_token: !!str {PW}\n",
        f"db: {{user: app, passwd: &p '{PW}'}}\n",
        f'secret: !<tag:yaml.org,2002:str> "{PW}"\n',
        f"auth:\n  client_secret: !!str &cs {PW}\n",
        f"redis:\n  ? password\n  : {PW}\n",
    ],
)
def test_a_credential_after_node_properties_or_an_explicit_key_is_replaced(text: str) -> None:
    assert PW not in redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    "text",
    [
        "defaults: &defaults\n  adapter: postgresql\ndev:\n  <<: *defaults\n",
        "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n",
        "MasterUserPassword: !Ref DbPassword\n",
        "credentials: &creds\n  user: app\n",
        "tls_key: !secret tls_key_name\n",
        "? name\n: Widget\n",
    ],
)
def test_references_anchors_on_mappings_and_other_keys_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
