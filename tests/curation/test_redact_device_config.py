"""Network-device configuration lines (red team rtsec11, class 02): a command, an optional type
digit, then the secret, with no ``=`` or ``:``; ``community`` and ``key`` name no credential.

The values and lines here are not the red team's (those are its generators)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"device-config-salt"
PW = "Tz4kWq9Lme"


def _config(line: str) -> str:
    return f"hostname edge-9\n!\n{line}\n!\ninterface Vlan10\n ip address 192.0.2.9 255.255.255.0\n!\nend\n"


@pytest.mark.parametrize(
    "line",
    [
        f"enable secret 0 {PW}",
        f"username ops privilege 15 password 7 {PW}",
        f"snmp-server community {PW} RO 20",
        f"snmp-server host 192.0.2.50 traps version 2c {PW}",
        f"radius-server host 192.0.2.60 auth-port 1812 key 0 {PW}",
        f"tacacs server AAA1\n address ipv4 192.0.2.61\n key 7 {PW}",
        f" ip ospf message-digest-key 3 md5 {PW}",
        f" vrrp 4 authentication text {PW}",
        f"crypto isakmp key {PW} address 0.0.0.0",
        f" ppp chap password 0 {PW}",
    ],
)
def test_the_secret_of_a_device_config_line_is_replaced(line: str) -> None:
    assert PW not in redact_text(_config(line), SALT)[0]


def test_a_word_community_counts_in_a_config_only() -> None:
    assert "northwind" not in redact_text(_config("snmp-server community northwind RW"), SALT)[0]
    prose = "Run snmp-server community northwind RW on the lab box, then check the counters."
    assert redact_text(prose, SALT)[0] == prose


@pytest.mark.parametrize(
    "line",
    [
        "enable password protection for the console",
        "enable secret 5 <hash>",
        "username admin privilege 15 secret 0 {{ vault_admin_pw }}",
        "snmp-server community $SNMP_COMMUNITY RO",
        "show snmp community",
        " description uplink key to core",
    ],
)
def test_prose_placeholders_and_show_commands_stay(line: str) -> None:
    assert redact_text(_config(line), SALT)[0] == _config(line)


def _junos(statement: str) -> str:
    return f"system {{\n    host-name edge-9;\n}}\nprotocols {{\n    {statement}\n}}\n"


@pytest.mark.parametrize(
    "line",
    [
        f'set system root-authentication encrypted-password "$6$Ab12$Kq{PW}"',
        f"set system login user ops authentication plain-text-password-value {PW}",
        f'set protocols bgp group ext neighbor 192.0.2.1 authentication-key "$9${PW}"',
        f'set protocols ospf area 0 interface ge-0/0/0 authentication md5 1 key "$9${PW}"',
        f'set system radius-server 192.0.2.70 secret "$9${PW}"',
        f'set security ike policy p1 pre-shared-key ascii-text "$9${PW}"',
        f"set snmp community {PW} authorization read-only",
        f"set snmp v3 usm local-engine user nms authentication-sha authentication-password {PW}",
        f"key chain CORE\n key 1\n  key-string 7 {PW}",
        _junos(f'authentication-key "$9${PW}";'),
        _junos(f'encrypted-password "$6$Ab12$Kq{PW}";'),
        _junos(f'secret "$9${PW}";'),
        "snmp {\n    community " + PW + " {\n        authorization read-only;\n    }\n}",
    ],
    ids=range(13),
)
def test_the_secret_of_a_junos_statement_is_replaced(line: str) -> None:
    assert PW not in redact_text(line, SALT)[0]


@pytest.mark.parametrize(
    "line",
    [
        "set snmp community $SNMP_COMMUNITY authorization read-only",
        'set system login user ops authentication encrypted-password "<hash>"',
        "show snmp community",
        "keep the secret sauce",
        "set -e\nsecret sauce\n",
        "key-string 7 {{ ospf_key }}",
    ],
)
def test_junos_placeholders_and_prose_stay(line: str) -> None:
    assert redact_text(line, SALT)[0] == line
