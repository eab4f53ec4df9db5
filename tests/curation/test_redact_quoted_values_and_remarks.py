"""A command option's quoted value of several words is one value (the shell hands the option every
word between the quotes); PAM's and SSSD's ``*_authtok`` is a password's name; a label followed by
an English remark (``Secret: stored in the vault``) and words between numbers (``room 1234 next
5678 then 9012``) hold no value."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"quoted-and-remarks"
PHRASE = "amber otter 42 marble"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


QUOTED_OPTIONS = {
    "wpa_passphrase_bare_ssid": f'wpa_passphrase HomeNet "{PHRASE}" > /etc/wpa.conf',
    "wpa_passphrase_quoted_ssid": f"wpa_passphrase 'My Office' '{PHRASE}'",
    "openssl_value_quoted": f'openssl pkcs12 -export -in c.pem -passout pass:"{PHRASE}"',
    "openssl_argument_quoted": f"openssl rsa -in k.pem -passin 'pass:{PHRASE}' -out o.pem",
    "long_option_space": f'mysqldump -u admin --password "{PHRASE}" shop',
    "long_option_equals": f"pg_tool --db-password='{PHRASE}' migrate",
    "long_option_function_words": 'mysql -u root --password "walk the amber otter to marble"',
    "glued_short_option": f'7z a -p"{PHRASE}" backup.7z dir',
    "zip_option": f"zip -r -P '{PHRASE}' out.zip dir",
}


@pytest.mark.parametrize("case", sorted(QUOTED_OPTIONS))
def test_a_quoted_option_value_of_several_words_is_replaced_whole(case: str) -> None:
    out = _redacted(QUOTED_OPTIONS[case])
    assert not any(word in out for word in ("amber", "otter", "marble")), out


def test_a_network_name_before_the_passphrase_is_kept() -> None:
    out = _redacted(f"wpa_passphrase 'My Office' '{PHRASE}'")
    assert "'My Office'" in out and "marble" not in out


@pytest.mark.parametrize("name", ["ldap_default_authtok", "krb5_authtok", "ipa_authtok"])
def test_an_authtok_is_a_password(name: str) -> None:
    out = _redacted(f"[domain/corp]\nid_provider = ldap\n{name} = Kestrel4471\n")
    assert "Kestrel4471" not in out and f"{name} = " in out


HONEST = [
    "Secret: stored in the vault",
    "DB password: located in the env file",
    "Passphrase: written on the card",
    "Admin password: provided by ops",
    "room 1234 next 5678 then 9012",
    "Gate 4410 Unit 7720 Page 1185",
]


@pytest.mark.parametrize("text", HONEST)
def test_remarks_and_words_between_numbers_are_kept(text: str) -> None:
    assert _redacted(text) == text


def test_a_key_in_groups_of_four_is_still_found() -> None:
    assert "QWER" not in _redacted("Your key: AKIA QWER TYUI OP23 4567")
