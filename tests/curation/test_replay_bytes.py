"""A replayed workspace is judged on the bytes its actions produced: a file that is not UTF-8 is
``final_state_not_text`` (``unverifiable``), never a repaired text (red team, 2026-12-06: ``sed``
wrote a raw 0xE9 into a string literal, the replay read it back as U+FFFD, the module imported
for the oracle and the recorded diff held the same U+FFFD; on a real checkout a SyntaxError)."""

from __future__ import annotations

import dataclasses

import pytest
from _verify_factory import CALC_S0
from test_replay import bash, environment, episode_of, verify

from trajectory_platform.curation.verify.read_tools import (
    ReadClaims,
    claims_contradict,
    listed,
    listing_script,
)
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.gym.shell import run_commands

OPS = CALC_S0["calc/ops.py"]
RAW_BYTE = r"""sed -i 's/a - b/a + b if "\xe9" else 0/' calc/ops.py"""
"""GNU sed writes the single byte 0xE9: the module no longer imports."""


def _repaired(raw: bytes) -> str:
    """What a forger records: the file as ``errors="replace"`` read it."""
    return raw.decode("utf-8", "replace")


def _episode(command: str, post_ops: str | None):
    turns = [bash(0, "cat calc/ops.py", OPS), bash(1, command, "")]
    diff = None if post_ops is None else unified_diff(CALC_S0, {**CALC_S0, "calc/ops.py": post_ops})
    return episode_of(turns, diff)


def test_a_command_writing_bytes_that_are_not_utf8_is_unverifiable_not_admitted():
    raw = OPS.encode().replace(b"a - b", b'a + b if "\xe9" else 0')
    (verdict,) = verify([_episode(RAW_BYTE, _repaired(raw))], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "final_state_not_text")
    finding = verdict.stage("dynamic").findings[0]
    assert finding.path == "calc/ops.py" and "1 file(s)" in finding.detail
    assert verdict.stage("dynamic").passed is None, "not tamper: nothing says the log lied"


def test_without_a_recorded_diff_the_replayed_bytes_are_not_the_post_image_either():
    (verdict,) = verify([_episode(RAW_BYTE, None)], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "final_state_not_text")


def test_valid_utf8_beyond_ascii_is_judged_as_before():
    command = r"""sed -i 's/a - b/a + b if "\xc3\xa9" else 0/' calc/ops.py"""  # é as UTF-8
    post = OPS.replace("a - b", 'a + b if "é" else 0')
    (verdict,) = verify([_episode(command, post)], environment())
    assert verdict.sink == "admitted"


def test_a_text_file_that_differs_is_still_tamper_beside_bytes_that_are_not_text():
    claimed = OPS.replace("a - b", "a + b")
    command = "sed -i 's/a - b/a * b/' calc/ops.py; printf '\\xff\\xfe' > blob.bin"
    (verdict,) = verify([_episode(command, claimed)], environment())
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")


@pytest.mark.parametrize("has_diff", [True, False])
def test_binary_output_s0_gitignore_ignores_is_let_through(has_diff):
    env = dataclasses.replace(environment(), s0_files={**CALC_S0, ".gitignore": "build/\n"})
    fix = "sed -i 's/a - b/a + b/' calc/ops.py"
    noise = (
        "mkdir -p build && printf '\\x89PNG\\r\\n\\x1a\\n\\x00' > build/plot.png"
        " && printf 'X = \"\\xe9\"\\n' > build/generated.py"
    )
    fixed = {**env.s0_files, "calc/ops.py": OPS.replace("a - b", "a + b")}
    turns = [bash(0, f"{fix}; {noise}", "")]
    (verdict,) = verify([episode_of(turns, unified_diff(env.s0_files, fixed) if has_diff else None)], env)
    assert verdict.sink == "admitted", "git leaves ignored build output out of the diff it makes"


def test_an_honest_latin1_data_edit_is_unverifiable_not_tamper():
    """The recorded diff is text (a JSON string): it cannot say which bytes the file holds, so
    the episode cannot be compared; it is not accused."""
    env = dataclasses.replace(environment(), s0_files={**CALC_S0, "data/names.txt": "caf\n"})
    command = "printf 'caf\\xe9\\n' > data/names.txt; sed -i 's/a - b/a + b/' calc/ops.py"
    post = {**env.s0_files, "data/names.txt": "caf\ufffd\n", "calc/ops.py": OPS.replace("a - b", "a + b")}
    turns = [bash(0, command, "")]
    (verdict,) = verify([episode_of(turns, unified_diff(env.s0_files, post))], env)
    assert (verdict.sink, verdict.reason) == ("unverifiable", "final_state_not_text")
    assert verdict.stage("dynamic").findings[0].path == "data/names.txt"


def test_a_search_listing_reads_files_as_the_platform_does_and_compares_what_the_tool_showed():
    """The listing behind a read tool's check (a ``Grep`` answer's lines) reads the bytes (no
    newline translation) and compares the line the tool showed: an invalid byte as U+FFFD, as
    ripgrep's output read as UTF-8."""
    files = {"names.txt": "caf\udce9\r\nx\rtail\n"}  # the bytes caf 0xE9 CR LF x CR tail LF

    def contradicted(claims: ReadClaims) -> bool:
        (listing,) = run_commands(files, [listing_script(claims)]).results
        sources = listed(claims, listing.output)
        assert sources is not None
        return claims_contradict(claims, sources)

    lone_cr = ReadClaims(((("names.txt", 1, "caf\ufffd\r"),), (("names.txt", 2, "x"),)))
    assert contradicted(lone_cr), "a lone CR does not end a line"
    assert not contradicted(ReadClaims(((("names.txt", 1, "caf\ufffd\r"),), (("names.txt", 2, "x\rtail"),))))


def test_a_lone_surrogate_in_a_library_callers_diff_rejects_that_episode_not_the_batch():
    """A recorded diff is the platform's text of the file's bytes: ``\\udce9`` is the raw byte 0xE9
    (:data:`~trajectory_platform.gym.sandbox.FILE_ERRORS`), a module that does not import, and a
    surrogate no byte stands for decodes no better. Parsing the text raised ``UnicodeEncodeError``
    and aborted the whole batch (red team, 2026-12-06; ingest replaces them, a library caller may
    not). Each is its own episode's ``static_reject``; the batch's honest episode is admitted."""
    from trajectory_platform.gym.fixtures import ReplaySpec

    def recorded(literal: str, episode_id: str):  # written by hand: unified_diff makes text of it
        diff = (
            "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
            "@@ -1,4 +1,4 @@\n def add(a, b):\n-    return a - b\n"
            f'+    return a + b if "{literal}" else 0\n \n \n'
        )
        return dataclasses.replace(episode_of([], diff), episode_id=episode_id)

    batch = [recorded("\udce9", "raw_byte"), recorded("\ud800", "no_byte"), recorded("e", "honest")]
    verdicts = {v.episode_id: v for v in verify(batch, environment(replay=ReplaySpec()))}
    assert verdicts["raw_byte"].sink == verdicts["no_byte"].sink == "static_reject"
    assert verdicts["raw_byte"].reason == "python_syntax_error"
    assert verdicts["honest"].sink == "admitted"
