"""Session 45, round H: redaction's leftovers. False positives (a template literal joined to a
variable) and leaks (a random literal joined to a variable, an ``od -t u1`` row whose codes all
read as octal too, a private address or a phone number spelled out, a plain password cut into a
shell printf's arguments, a key cut into numbered fields). Development halves and controls only
here; each validation half's figure is in docs/redaction.md. Ids name the half and the index, never
a value."""

from __future__ import annotations

import time

import pytest
from _round_g_cases import joined_literals
from _round_h_cases import (
    JOIN_CONTROLS,
    OD_CONTROLS,
    PRINTF_PASSWORD_CONTROLS,
    SPELLED_CONTROLS,
    SPLIT_CONTROLS,
    od_octal_looking,
    printf_passwords,
    random_joins,
    shell_plus,
    spelled_addresses,
    split_fields,
    template_joins,
    undumped,
)

from trajectory_platform.curation.redact import RedactionConfig, redact_text
from trajectory_platform.curation.redact.decoders import decoded_views
from trajectory_platform.curation.redact.pii import find_pii

SALT = b"round-h-salt"


def _ids(name: str, cases: list[object] | tuple[object, ...]) -> list[str]:
    return [f"{name}{i}" for i in range(len(cases))]


def _leaks(text: str, pieces: tuple[str, ...], shell: bool = False) -> bool:
    redacted = redact_text(text, SALT, shell=shell)[0]
    return any(piece in redacted for piece in pieces)


TEMPLATE_JOINS = template_joins("dev")


@pytest.mark.parametrize("text", TEMPLATE_JOINS, ids=_ids("dev", TEMPLATE_JOINS))
def test_a_template_literal_joined_to_a_variable_is_code(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


ROUND_G_JOINS = joined_literals("validation")


@pytest.mark.parametrize("text", ROUND_G_JOINS, ids=_ids("round_g", ROUND_G_JOINS))
def test_round_gs_joined_literals_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


SHELL_PLUS = shell_plus()


@pytest.mark.parametrize(("text", "pieces"), SHELL_PLUS, ids=_ids("shell", SHELL_PLUS))
def test_a_shell_word_with_a_plus_is_still_a_password(text: str, pieces: tuple[str, ...]) -> None:
    assert not _leaks(text, pieces, shell=True)


def test_a_backquoted_value_in_markdown_is_still_read() -> None:
    assert "Kq8mZr2LpX7w" not in redact_text("Set `DB_PASSWORD` to `Kq8mZr2LpX7w`", SALT)[0]


RANDOM_JOINS = random_joins("dev")


@pytest.mark.parametrize(("text", "pieces"), RANDOM_JOINS, ids=_ids("dev", RANDOM_JOINS))
def test_a_random_literal_joined_to_a_variable_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    assert not _leaks(text, pieces)


@pytest.mark.parametrize("text", JOIN_CONTROLS, ids=_ids("control", JOIN_CONTROLS))
def test_joins_with_nothing_random_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


OD_DUMPS = od_octal_looking("dev")


@pytest.mark.parametrize(("text", "pieces"), OD_DUMPS, ids=_ids("dev", OD_DUMPS))
def test_a_decimal_row_that_reads_as_octal_too_shows_its_bytes(text: str, pieces: tuple[str, ...]) -> None:
    assert any(pieces[0] in view.text for view in decoded_views(text) if view.name == "dump")
    assert not any(piece in undumped(redact_text(text, SALT)[0]) for piece in pieces)


@pytest.mark.parametrize("text", OD_CONTROLS, ids=_ids("control", OD_CONTROLS))
def test_dumps_of_text_and_octal_rows_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


SPELLED = spelled_addresses("dev")


@pytest.mark.parametrize(("text", "pieces"), SPELLED, ids=_ids("dev", SPELLED))
def test_an_address_or_a_phone_number_spelled_out_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    assert not _leaks(text, pieces)


def _best_seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        list(find_pii(text, RedactionConfig()))
        best = min(best, time.perf_counter() - start)
    return best


def test_a_long_run_of_digits_after_spelled_digits_is_read_in_linear_time() -> None:
    """A run of digits could be split at every place a unit ends: 18 digits took 16 times as long
    as 14 (exponential). A ratio, not a time, whatever the machine's load."""
    ratio = _best_seconds("a 1 2 3 " + "7" * 18 + "x") / _best_seconds("a 1 2 3 " + "7" * 14 + "x")
    assert ratio < 6, f"4 more digits took {ratio:.1f}x as long"


@pytest.mark.parametrize("text", SPELLED_CONTROLS, ids=_ids("control", SPELLED_CONTROLS))
def test_numbers_in_lists_tables_and_versions_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text


PRINTF_PASSWORDS = printf_passwords("dev")


@pytest.mark.parametrize(("text", "pieces"), PRINTF_PASSWORDS, ids=_ids("dev", PRINTF_PASSWORDS))
def test_a_plain_password_cut_into_printfs_arguments_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    redacted = redact_text(text, SALT, shell=True)[0]
    glued = redacted.replace(" ", "").replace("'", "").replace('"', "")
    assert not any(piece in glued for piece in pieces)


@pytest.mark.parametrize("text", PRINTF_PASSWORD_CONTROLS, ids=_ids("control", PRINTF_PASSWORD_CONTROLS))
def test_printfs_of_variables_and_of_no_credential_stay(text: str) -> None:
    assert redact_text(text, SALT, shell=True)[0] == text


SPLIT = split_fields("dev")


@pytest.mark.parametrize(("text", "pieces"), SPLIT, ids=_ids("dev", SPLIT))
def test_a_key_cut_into_numbered_fields_is_redacted(text: str, pieces: tuple[str, ...]) -> None:
    assert not _leaks(text, pieces)


@pytest.mark.parametrize("text", SPLIT_CONTROLS, ids=_ids("control", SPLIT_CONTROLS))
def test_numbered_fields_that_are_no_keys_pieces_stay(text: str) -> None:
    assert redact_text(text, SALT)[0] == text
