"""Card numbers, IBANs, SSNs and wallet recovery phrases: found by their own evidence, not by a label
that ordinary redaction rules know (check digits for the identifiers, the phrase's shape for seeds)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.checksummed_ids import iban_valid, luhn_valid

SALT = b"unit-salt"
PHRASE = "arena alpha alarm album act actor actual adapt add addict adjust admit"
PHRASE_24 = PHRASE + " agent agree ahead aim air airport aisle alarm album alcohol alert alien"


def kept(text: str, value: str) -> bool:
    return value in redact_text(text, SALT)[0]


def test_checksums_accept_the_published_test_numbers_and_reject_a_changed_digit():
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert iban_valid("GB82WEST12345698765432") and not iban_valid("GB82WEST12345698765433")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"card_number": "4111111111111111", "holder": "J ROE"}', "4111111111111111"),
        ("order_id,card,amount\n1001,5555555555554444,19.99\n", "5555555555554444"),
        ("payment accepted pan=378282246310005 amount=19.99", "378282246310005"),
        ("The customer says 4012-8888-8888-1881 was declined.", "4012-8888-8888-1881"),
        ("Amex on file: 3782 822463 10005", "3782 822463 10005"),
        ("Please wire the refund to GB82WEST12345698765432 by Friday.", "GB82WEST12345698765432"),
        ("IBAN: DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00"),
        ("Her social security number is 219-09-9999, please verify.", "219-09-9999"),
        ('{"name": "Jane Roe", "ssn": "219099999"}', "219099999"),
    ],
)
def test_checksummed_identifiers_are_redacted(text: str, value: str):
    assert not kept(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("rng = np.random.default_rng(4202165767276)", "4202165767276"),  # passes Luhn, a code literal
        ("started at 1733500000123 ms", "1733500000123"),  # a timestamp: no issuer starts with 1
        ("invoice 4111111111111112 paid", "4111111111111112"),  # fails Luhn
        ("account DE89 3704 0044 0532 0130 01", "DE89 3704 0044 0532 0130 01"),  # fails mod-97
        ("build 219-09-9999 of the firmware", "219-09-9999"),  # SSN shape with no label
    ],
)
def test_digit_runs_that_are_not_identifiers_are_kept(text: str, value: str):
    assert kept(text, value)


@pytest.mark.parametrize(
    "text",
    [
        f"Write down your recovery phrase and keep it offline:\n\n{PHRASE_24}\n",
        f'{{"mnemonic": "{PHRASE_24}"}}',
        f'const wallet = ethers.Wallet.fromPhrase("{PHRASE}");',
        f"wallet:\n  seed_phrase: {PHRASE}\n",
        f"[recover] seed phrase: {PHRASE}\n",
    ],
)
def test_labelled_recovery_phrases_are_redacted_whole(text: str):
    out = redact_text(text, SALT)[0]
    assert "actor actual adapt" not in out and "REDACTED_SEED_PHRASE" in out


def test_a_numbered_recovery_phrase_is_one_value_and_its_words_stay_ordinary():
    listing = "\n".join(f"{n}. {word}" for n, word in enumerate(PHRASE.split(), 1))
    out = redact_text(f"{listing}\nNext, add the actor to the arena.", SALT)[0]
    assert "2. alpha" not in out and "12. admit" not in out
    assert out.endswith("Next, add the actor to the arena.")


@pytest.mark.parametrize(
    "text",
    [
        f"The phrase {PHRASE} and so on",  # the run continues: prose, not a quoted or line-ended value
        f"note: {PHRASE} more",
        "\n".join(f"{n}. {word}" for n, word in enumerate(PHRASE.split()[:11], 1)),  # 11 is no phrase length
    ],
)
def test_word_runs_that_are_not_phrases_are_kept(text: str):
    assert "actor actual" in redact_text(text, SALT)[0] or "6. actor" in redact_text(text, SALT)[0]
