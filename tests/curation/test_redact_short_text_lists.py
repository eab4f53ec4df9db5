"""A short password under a credential's name, spelled as character codes or char literals: below a
key's 16-byte floor and too short for the entropy test, so only the name and the text it spells
find it (red team rtsec11 class 05)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"short-lists-salt"
PW = "Vx7qLm2Rt9"


def _codes(text: str, hexa: bool = False) -> str:
    return ", ".join(f"0x{ord(ch):02X}" if hexa else str(ord(ch)) for ch in text)


SPELLED = {
    "php_array": f"$smtpPassword = array({_codes(PW)});",
    "c_nul_terminated": f"unsigned char ftp_pass[11] = {{ {_codes(PW, True)}, 0 }};",
    "csharp_bytes": f"var secretKey = new byte[] {{ {_codes(PW)} }};",
    "java_chars": "final char[] truststorePassword = {" + ", ".join(f"'{ch}'" for ch in PW) + "};",
    "dart_list": f"final List<int> apiToken = <int>[{_codes(PW)}];",
}


@pytest.mark.parametrize("text", SPELLED.values(), ids=SPELLED.keys())
def test_a_short_password_spelled_as_a_list_under_a_credential_name_is_replaced(text: str) -> None:
    out = redact_text(text, SALT)[0]
    first = text[text.index("{" if "{" in text else "[" if "[" in text else "(") + 1 :][:12].strip()
    assert first not in out, out
    assert out.split("=")[0] == text.split("=")[0]  # the declaration stays


KEPT = {
    "unnamed_codes": f"values = [{_codes(PW)}]",
    "named_word": f"password_hint = [{_codes('password')}]",
    "small_table": "secret_sizes = [16, 24, 32, 48, 64, 96, 128]",
    "char_list_of_a_word": "char[] passwordLabel = {'P', 'a', 's', 's', 'w', 'o', 'r', 'd'};",
}


@pytest.mark.parametrize("text", KEPT.values(), ids=KEPT.keys())
def test_a_list_that_spells_no_password_or_is_not_named_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
