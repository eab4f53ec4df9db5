"""A configuration value holding a quote: an INI or properties value written bare (``password =
Kt4"vB8``), a Kubernetes ``- name:``/``value:`` pair whose double-quoted value escapes it
(``"a\\"b"``). The INI rule read a quote as code and cut the value there; the name/value rule
read no value at all. Development half only here; the validation half's figure is in
docs/redaction.md."""

from __future__ import annotations

import pytest
from _leftover_cases import CONFIG_CONTROLS, quoted_config_values

from trajectory_platform.curation.redact import redact_text

SALT = b"quoted-config-salt"
DEV = quoted_config_values("dev")


@pytest.mark.parametrize(("text", "pieces"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_a_config_value_holding_a_quote_is_redacted_whole(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT)[0]
    assert not any(piece in redacted for piece in pieces)


@pytest.mark.parametrize("text", CONFIG_CONTROLS, ids=[f"control{i}" for i in range(len(CONFIG_CONTROLS))])
def test_code_and_names_beside_a_quote_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
