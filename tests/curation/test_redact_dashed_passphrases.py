"""A passphrase of words joined by ``-`` (``correct-horse-battery-staple``) under a token's or a
secret's name is the secret; the same words under a slug's, an id's, a name's or a generic key's
name stay (:func:`trajectory_platform.curation.redact.detectors.dashed_passphrase`).

Cases are generated (names x layouts x passphrases) and split in two: the rule was written against
the development half; the validation half is held to the same standard."""

from __future__ import annotations

import itertools

import pytest

from trajectory_platform.curation.redact import redact_text

SALT = b"dashed-passphrase-salt"

_WORDS = (
    "correct",
    "horse",
    "battery",
    "staple",
    "purple",
    "monkey",
    "dishwasher",
    "lantern",
    "orbit",
    "velvet",
)
_PHRASES = tuple("-".join(_WORDS[i : i + n]) for i, n in ((0, 4), (4, 4), (2, 5), (5, 5), (1, 6), (3, 4)))
_SECRET_NAMES = ("token", "api_key", "API_TOKEN", "apiKey", "access_token", "client_secret", "AUTH_TOKEN")
_LAYOUTS = ("{name}: {value}", "{name} = '{value}'", "{name}={value}", '{{"{name}": "{value}"}}')
_CASES = [
    (layout.format(name=name, value=phrase), phrase)
    for (name, layout), phrase in zip(itertools.product(_SECRET_NAMES, _LAYOUTS), itertools.cycle(_PHRASES))
]
DEVELOPMENT, VALIDATION = _CASES[::2], _CASES[1::2]

_PLAIN_NAMES = ("slug", "id", "name", "key", "page_token", "token_name", "secret_name", "cache_key", "branch")
CONTROLS = [
    layout.format(name=name, value=phrase)
    for (name, layout), phrase in zip(itertools.product(_PLAIN_NAMES, _LAYOUTS), itertools.cycle(_PHRASES))
] + ["token: the-quick-brown-fox", "api_key: read-from-vault-at-startup"]


@pytest.mark.parametrize(("text", "phrase"), DEVELOPMENT + VALIDATION, ids=range(len(_CASES)))
def test_a_dashed_passphrase_under_a_secret_name_is_replaced(text: str, phrase: str) -> None:
    assert phrase not in redact_text(text, SALT)[0]


@pytest.mark.parametrize("text", CONTROLS, ids=range(len(CONTROLS)))
def test_dashed_words_under_other_names_are_kept(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
