"""Session 44, round G: redaction's false positives (a variable joined to a literal, a log line's
time stamp, an implicit grant's fragment) and leaks (a hashing command's password holding a quote
or an operator, a Lisp alist, a key of letters alone with accents, a shell printf's pieces,
Markdown's escapes in a name). Development halves only here; each validation half's figure is in
docs/redaction.md. Ids name the half and the index, never a value."""

from __future__ import annotations

import unicodedata

import pytest
from _round_g_cases import (
    ACCENT_CONTROLS,
    ALIST_CONTROLS,
    ESCAPED_CONTROLS,
    HASHING_CONTROLS,
    PRINTF_CONTROLS,
    accented_keys,
    escaped_names,
    fragments,
    hashing_commands,
    joined_literals,
    lisp_alists,
    log_stamps,
    printf_pieces,
    shell_joined,
)

from trajectory_platform.curation.redact import redact_text

SALT = b"round-g-salt"


def _ids(name: str, cases: list[object] | tuple[object, ...]) -> list[str]:
    return [f"{name}{i}" for i in range(len(cases))]


JOINED = joined_literals("dev")


@pytest.mark.parametrize("text", JOINED, ids=_ids("dev", JOINED))
def test_a_variable_joined_to_a_literal_is_code_not_a_password(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


SHELL_JOINED = shell_joined()


@pytest.mark.parametrize(("text", "pieces"), SHELL_JOINED, ids=_ids("shell", SHELL_JOINED))
def test_a_shell_word_with_a_plus_stays_a_password(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT, shell=True)[0]
    assert not any(piece in redacted for piece in pieces)


STAMPS = log_stamps("dev")


@pytest.mark.parametrize("text", STAMPS, ids=_ids("dev", STAMPS))
def test_the_next_log_lines_time_stamp_is_no_value(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


def test_a_value_on_the_line_after_its_label_is_still_read() -> None:
    assert "Kq8mZr2LpX7w" not in redact_text("Password\nKq8mZr2LpX7w\n", SALT)[0]


FRAGMENTS = fragments("dev")


@pytest.mark.parametrize(("text", "token", "after"), FRAGMENTS, ids=_ids("dev", FRAGMENTS))
def test_a_fragments_token_ends_at_the_next_parameter(text: str, token: str, after: str) -> None:
    redacted = redact_text(text, SALT)[0]
    assert token not in redacted
    assert redacted.endswith(after)


HASHING = hashing_commands("dev")


@pytest.mark.parametrize(("text", "pieces"), HASHING, ids=_ids("dev", HASHING))
def test_a_hashing_commands_password_with_a_quote_or_an_operator_is_read_whole(
    text: str, pieces: tuple[str, ...]
) -> None:
    redacted = redact_text(text, SALT, shell=True)[0]
    assert not any(piece in redacted for piece in pieces)


ALISTS = lisp_alists("dev")


@pytest.mark.parametrize(("text", "pieces"), ALISTS, ids=_ids("dev", ALISTS))
def test_a_credential_in_a_lisp_alist_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT)[0]
    assert not any(piece in redacted for piece in pieces)


ACCENTED = accented_keys("dev")


def _unaccented(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


@pytest.mark.parametrize(("key", "text"), ACCENTED, ids=_ids("dev", ACCENTED))
def test_a_key_of_letters_alone_with_accents_is_redacted(key: str, text: str) -> None:
    assert key in _unaccented(text)
    assert key not in _unaccented(redact_text(text, SALT)[0])


PRINTF = printf_pieces("dev")


@pytest.mark.parametrize(("text", "pieces"), PRINTF, ids=_ids("dev", PRINTF))
def test_a_key_cut_into_a_shell_printfs_arguments_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT, shell=True)[0]
    glued = redacted.replace(" ", "").replace("'", "").replace('"', "")
    assert not any(piece in glued for piece in pieces)


ESCAPED = escaped_names("dev")


@pytest.mark.parametrize(("text", "pieces"), ESCAPED, ids=_ids("dev", ESCAPED))
def test_a_name_with_markdown_escapes_still_names_a_credential(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT)[0]
    assert not any(piece in redacted for piece in pieces)


CONTROLS = (*HASHING_CONTROLS, *ALIST_CONTROLS, *ACCENT_CONTROLS, *PRINTF_CONTROLS, *ESCAPED_CONTROLS)


@pytest.mark.parametrize("text", CONTROLS, ids=_ids("control", CONTROLS))
def test_honest_texts_written_the_same_way_stay(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text
