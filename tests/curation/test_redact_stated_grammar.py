"""How English and code introduce a secret, by role rather than by example: the word and a link
before the value, the value before the word, a user beside it, a passphrase of several words, and a
raw private key handed to the call that builds a signer. The ordinary sentences and code that use
the same words must come back unchanged. Values are made up here; the phrasings are not those of
the red team's or the fixer's generators (held out from the rules' development)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"stated-grammar"
CHOSEN = "Wq4#zRt8Lm"
LETTERS = "hVbqLrTeWsoN"  # a random value with no digit or symbol
PHRASE = "orchid pylon meadow quartz"
KEY = "7c1f0e9b4a2d38c6e5f1a0b9d8c7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


@pytest.mark.parametrize(
    "text",
    [
        "the passphrase we settled on is {v}",
        "The admin password has been rotated to {v}.",
        "Staging password? It's {v}",
        "the root password, {v}, expires Friday",
        "Password… {v}",
        "db password now {v}",
        "we are rotating the ftp pw to {v} tonight",
        "ssh in using the password {v}",
    ],
)
@pytest.mark.parametrize("value", [CHOSEN, LETTERS])
def test_a_word_then_a_link_then_the_value(text: str, value: str) -> None:
    assert value not in _redacted(text.format(v=value))


@pytest.mark.parametrize(
    "text", ["Here is your new API key {v} for the sandbox", "The token someone pasted was {v}"]
)
def test_a_key_word_then_a_key_shaped_value(text: str) -> None:
    """After a key or token word the value must look like a key (letters alone read as a name)."""
    assert CHOSEN not in _redacted(text.format(v=CHOSEN))


@pytest.mark.parametrize(
    "text",
    [
        "{v} is the new admin password.",
        "Pick {v} for the password and keep it.",
        "It's {v} (the password)",
        "{v} - that's the wifi password",
        "Enter {v} as the vault passphrase",
        "{v} will be the temporary pin",
    ],
)
def test_the_value_before_the_word(text: str) -> None:
    assert CHOSEN not in _redacted(text.format(v=CHOSEN))


@pytest.mark.parametrize(
    "text",
    [
        "authenticated as deploy using {v}",
        "username ops and password {v}",
        "Credentials are ops, {v}",
        "the credentials (ops, {v}) still work",
    ],
)
def test_a_user_then_the_password(text: str) -> None:
    assert CHOSEN not in _redacted(text.format(v=CHOSEN))


@pytest.mark.parametrize(
    "text",
    [
        "the seed phrase is {p}",
        'My password is "{p}" for now',
        "recovery_phrase: {p}",
        "vault_password: {p}",
        "ssh-keygen -q -P '{p}' -f id_ed25519",
    ],
)
def test_a_passphrase_of_several_words_is_replaced_whole(text: str) -> None:
    redacted = _redacted(text.format(p=PHRASE))
    assert not any(word in redacted for word in PHRASE.split())


@pytest.mark.parametrize(
    "text",
    [
        "signer = Account.from_key('0x{k}')",
        'acct = Web3().eth.account.from_key("0x{k}")',
        "sk = PrivateKey(bytes.fromhex('{k}'))",
        "const w = new ethers.Wallet('0x{k}', provider)",
        'let s = PrivateKeySigner::from_str("0x{k}")?;',
        "kp = Keypair.from_seed(bytes.fromhex('{k}'))",
        "const pk = '0x{k}';",
        "Private Keys\n==================\n\n(0) 0x{k}\n",
    ],
)
def test_a_raw_private_key_handed_to_a_signer(text: str) -> None:
    assert KEY not in _redacted(text.format(k=KEY))


@pytest.mark.parametrize(
    "text",
    [
        "the vpn passphrase turns out to be {v} again",
        "Our staging password seems to be {v}",
        "their wifi password appeared to be {v} on the sticker",
        "the admin passcode ended up being {v}",
        "So the mysql password is going to be {v}.",
    ],
)
@pytest.mark.parametrize("value", [CHOSEN, LETTERS])
def test_a_verb_that_raises_a_link_states_the_value(text: str, value: str) -> None:
    """A verb that raises a link ("turned out to be", "ended up being") states as "is" does (round 12)."""
    assert value not in _redacted(text.format(v=value))


@pytest.mark.parametrize("value", ["lantern.Quill482", "cobalt.harbor.2291"])
def test_a_dotted_password_in_prose_is_no_code_reference(value: str) -> None:
    """Words joined by dots with a number, as people choose them, stated in prose (round 12); the
    capitalised ones (``Maple.Echo5155``) were already found."""
    assert value not in _redacted(f"The vpn password was {value} until Monday.")


@pytest.mark.parametrize(
    "text",
    [
        "the password turned out to be wrong",
        "The token seems to be expired.",
        "the passphrase ended up being too short",
        "The key appears to be invalid for this region.",
        "the password is going to be rotated tomorrow",
        "the password is settings.db_password",
        "The token was config.api_token2 in the old module.",
    ],
)
def test_a_raised_link_to_an_ordinary_word_is_kept(text: str) -> None:
    assert _redacted(text) == text


@pytest.mark.parametrize("name", ["APP_SESSION", "SENTRY_DSN", "APP_JWT"])
def test_a_memorable_value_under_a_name_that_wants_a_key(name: str) -> None:
    assert "Lantern.Harbor4417" not in _redacted(f"export {name}=Lantern.Harbor4417")


@pytest.mark.parametrize(
    "text",
    [
        "set the password to something strong",
        "password = get_password()",
        "The password has been changed successfully.",
        "the password you entered is incorrect",
        "the passphrase is long and random",
        "the passphrase protects the private key file",
        "I changed it: password now matches the policy",
        "use 1Password as the password manager",
        "Check vault.txt for the password.",
        "Look in ~/.netrc for the password",
        "Wait 30s for the password prompt",
        "ssh in as root with key-based auth",
        "connect as admin with sudo2 privileges",
        "with password prompts disabled",
        "The PIN (GPIO17) drives the LED",
        "the wifi password? It's on the fridge",
        "the token I used is expired",
        "search_phrase: open source agent logs",
        f"tx = w3.eth.get_transaction('0x{KEY}')",
        f"slot = w3.eth.get_storage_at(account, '0x{KEY}')",
        f"h = keccak(hexstr='0x{KEY}')",
        f"Transaction Hashes\n================\n(0) 0x{KEY}",
        "SESSION_ENGINE = 'django.contrib.sessions.backends.cache'",
    ],
)
def test_ordinary_sentences_and_code_with_the_same_words_are_kept(text: str) -> None:
    assert _redacted(text) == text
