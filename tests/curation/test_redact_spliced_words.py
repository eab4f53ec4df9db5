"""A value spelled in several quoting pieces of one shell word (``'ab'"cd"ef``, bash's ANSI-C
``$'..\\x21..'``, a bare ``\\!``): the shell reads one word, every rule read its first piece or
none, and the rest of the password stayed. Development half only here; the validation half's
figure is in docs/redaction.md."""

from __future__ import annotations

import time

import pytest
from _leftover_cases import SPLICED_CONTROLS, spliced_words

from trajectory_platform.curation.redact import redact_text
from trajectory_platform.curation.redact.decoders import quoted_span, requoted_words

SALT = b"spliced-words-salt"
DEV = spliced_words("dev")


@pytest.mark.parametrize(("text", "pieces"), DEV, ids=[f"dev{i}" for i in range(len(DEV))])
def test_a_word_of_quoting_pieces_is_redacted_whole(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT, shell=True)[0]
    assert not any(piece in redacted for piece in pieces)


@pytest.mark.parametrize("text", SPLICED_CONTROLS, ids=[f"control{i}" for i in range(len(SPLICED_CONTROLS))])
def test_honest_words_of_quoting_pieces_stay(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text


def test_the_pseudonym_leaves_the_line_quoted_as_it_was() -> None:
    redacted = redact_text("openssl enc -k 'Zq7Rm'\"Lx9w\"Tp3K -in f", SALT, shell=True)[0]
    assert redacted.count("'") % 2 == 0 and redacted.count('"') % 2 == 0


@pytest.mark.parametrize(
    "text",
    [
        '{"content": "Click \\"Finish\\" and set type=\\"submit\\""}',
        "It's the 'main' branch, isn't it?",
        '<input name="file" value="Submit!"/>',
        "import React from 'react'\\nimport './App.css'\\n",
    ],
    ids=["json_escaped_quotes", "prose_apostrophes", "markup", "json_escaped_lines"],
)
def test_no_shell_word_is_read_in_escaped_json_prose_or_markup(text: str) -> None:
    assert requoted_words(text) is None


def test_widening_a_long_plain_run_to_whole_pieces_takes_linear_time() -> None:
    started = time.perf_counter()
    assert quoted_span("a" * 40 + '"', 0, 41) == (0, 41)
    assert time.perf_counter() - started < 1.0
