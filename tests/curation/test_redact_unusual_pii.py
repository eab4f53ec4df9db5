"""Personal data in an unusual spelling: an e-mail address with its ``@`` and dots spelled out to
escape harvesters (``jane (at) acme (dot) com``), a private address zero-padded
(``010.000.000.001``) or IPv4-mapped in hex (``::ffff:c0a8:101``). The seed's pass 2 replaces
corporate e-mail addresses and RFC 1918 addresses; these spellings escaped its patterns.
Development half only here; the validation half's figure is in docs/redaction.md."""

from __future__ import annotations

import pytest
from _leftover_cases import PII_CONTROLS, obfuscated_emails, unusual_private_ips

from trajectory_platform.curation.redact import redact_text

SALT = b"unusual-pii-salt"
DEV = obfuscated_emails("dev") + unusual_private_ips("dev")


@pytest.mark.parametrize(("text", "pieces"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_an_unusually_spelled_address_is_replaced(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT)[0]
    assert not any(piece in redacted for piece in pieces)


@pytest.mark.parametrize("text", PII_CONTROLS, ids=[f"control{i}" for i in range(len(PII_CONTROLS))])
def test_prose_versions_and_public_addresses_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize(
    "text",
    ["cd /__home__jdoe7__projects__ctf__pwn__WarmUp", "cache __Users__k.lind__LLM_CTF__2016__rev"],
    ids=["home", "users"],
)
def test_a_home_directory_flattened_into_a_name_loses_its_user(text: str) -> None:
    user, rest = text.split("__")[2], text.split("__", 3)[3]
    redacted = redact_text(text, SALT)[0]
    assert user not in redacted and redacted.endswith(rest)


@pytest.mark.parametrize(
    "text", ["def __home__(self):", "see my__home__page__draft"], ids=["dunder", "glued"]
)
def test_a_name_holding_home_between_underscores_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
