"""How English and code introduce a secret, by role rather than by example: the word and a link
before the value, the value before the word, a user beside it, a passphrase of several words, and a
raw private key handed to the call that builds a signer. The ordinary sentences and code that use
the same words must come back unchanged. Values are made up here; the phrasings are not those of
the red team's or the fixer's generators (held out from the rules' development)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"stated-grammar"
KEY = "7c1f0e9b4a2d38c6e5f1a0b9d8c7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9"


def _redacted(text: str) -> str:
    return redact_text(text, SALT)[0]


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
        f"tx = w3.eth.get_transaction('0x{KEY}')",
        f"slot = w3.eth.get_storage_at(account, '0x{KEY}')",
        f"h = keccak(hexstr='0x{KEY}')",
        f"Transaction Hashes\n================\n(0) 0x{KEY}",
    ],
)
def test_ordinary_sentences_and_code_with_the_same_words_are_kept(text: str) -> None:
    assert _redacted(text) == text
