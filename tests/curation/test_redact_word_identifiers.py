"""Identifiers made of words, digits and underscores (a migration's ``001_initial_schedule``, a
test's ``test_042_refund_partial``) scored as random by the entropy pass and were rewritten
wherever the episode named them: the slug rule's words now count between underscores too. A random
key joined to words by underscores is still a key. Development half only here; the validation
half's figure is in docs/redaction.md."""

from __future__ import annotations

import pytest
from _leftover_cases import IDENTIFIER_SENTENCES, UNDERSCORED_SECRETS, word_identifiers

from trajectory_platform.curation.redact import redact_text

SALT = b"word-identifiers-salt"
DEV = [sentence.format(i=name) for name in word_identifiers("dev") for sentence in IDENTIFIER_SENTENCES]


@pytest.mark.parametrize("text", DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_a_name_of_words_and_numbers_stays(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


@pytest.mark.parametrize("secret", UNDERSCORED_SECRETS, ids=["vendor_prefix", "named", "words_before"])
def test_a_random_key_joined_to_words_is_still_a_key(secret: str) -> None:
    assert secret not in redact_text(f"token {secret} ok", SALT)[0]
