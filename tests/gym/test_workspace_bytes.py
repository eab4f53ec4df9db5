"""A workspace file is the bytes the actions left (``sandbox.file_text``): the gym's snapshot, the
shell replay's final state and the oracle's workspace carry bytes that are not UTF-8 instead of
repairing them to U+FFFD, so a module holding a raw 0xE9 is judged as one that does not import
(red team, 2026-12-06)."""

from __future__ import annotations

import pytest

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.gym import protocol
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policy import Policy, PolicyTurn
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.gym.sandbox import Workspace, file_bytes, not_text, shown_text
from trajectory_platform.gym.shell import collect_files

FIXTURE = "learn-alpha/fix_constant-06@uri"
MODULE = "ui_opts.py"
RAW_FIX = b'LOW_DEPTH = 9 if "\xe9" else 0'
"""The right constant, in a line whose string literal holds a byte no UTF-8 decoder accepts."""


class Turns(Policy):
    name = "turns"

    def __init__(self, *turns: str | PolicyTurn):
        self.turns = [t if isinstance(t, PolicyTurn) else PolicyTurn(t) for t in turns]

    def act(self, inp):
        return self.turns.pop(0) if self.turns else PolicyTurn("done")


@pytest.fixture(scope="module")
def fixture():
    return next(f for f in build_library(0) if f.fixture_id.startswith(FIXTURE))


def test_the_runtime_judges_the_bytes_an_agents_test_run_left_not_a_repaired_text(fixture):
    """The agent's own test run loads its conftest, which writes the raw byte into the module: the
    agent saw the SyntaxError, and the runtime's oracle must see it too."""
    rewrite = (
        f"d = open({MODULE!r}, 'rb').read()\n"
        f"open({MODULE!r}, 'wb').write(d.replace(b'LOW_DEPTH = 3', {RAW_FIX!r}))\n"
    )
    write = protocol.render_tool_call("write_file", {"target_uri": "tests/conftest.py", "text": rewrite})
    result = run_episode(fixture, Turns(write, protocol.render_tool_call("run_tests", {})))
    assert "SyntaxError" in result.episode.events[-2].content, "the agent's run saw what the bytes are"
    assert file_bytes(result.final_files[MODULE]).startswith(RAW_FIX)
    assert result.oracle is not None and not result.oracle.passed
    assert '+LOW_DEPTH = 9 if "\ufffd" else 0' in (result.episode.outcome.workspace_diff or ""), (
        "the recorded diff is text: the byte shows as U+FFFD there, and only there"
    )


def test_a_gym_log_whose_replay_leaves_bytes_that_are_not_utf8_is_unverifiable(fixture):
    text = fixture.s0_files[MODULE].replace("LOW_DEPTH = 3", 'LOW_DEPTH = 9 if "\udce9" else 0')
    write = PolicyTurn.structured(calls=[("write_file", {"target_uri": MODULE, "text": text})])
    result = run_episode(fixture, Turns(write))
    assert result.oracle is not None and not result.oracle.passed
    verdicts = verify_episodes([result.episode], {fixture.fixture_id: fixture}, CascadeConfig(progress=False))
    (verdict,) = verdicts.verdicts
    assert (verdict.sink, verdict.reason) == ("unverifiable", "final_state_not_text")


VARIANTS = {
    "latin1_in_literal": (b'x = "caf\xe9"\n', False),
    "overlong_slash": (b"x = '\xc0\xaf'\n", False),
    "surrogate_as_bytes": (b"x = '\xed\xa0\x80'\n", False),
    "utf16_with_bom": ("x = 'é'\n".encode("utf-16"), False),
    "truncated_at_eof": (b"x = 1\n\xe2\x82", False),
    "png_header": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", False),
    "utf8_bom": (b"\xef\xbb\xbfx = 1\n", True),
    "nul_bytes": (b"x = 1\n\x00\x00tail\n", True),
    "crlf_mixed_with_lone_cr": (b"a = 1\r\nb = 2\nc = 3\rd = 4\r\n", True),
    "utf8_beyond_ascii": ("x = 'é 🐍'\n".encode(), True),
    "u_fffd_itself_as_utf8": ("x = '\ufffd'\n".encode(), True),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_reader_gives_the_bytes_back_and_shows_what_a_tool_shows(name, tmp_path):
    raw, is_utf8 = VARIANTS[name]
    (tmp_path / "f.py").write_bytes(raw)
    (replayed,) = collect_files(tmp_path).values()
    with Workspace({"f.py": replayed}) as ws:
        assert (ws.root / "f.py").read_bytes() == raw, "written back byte for byte"
        assert ws.snapshot() == {"f.py": replayed}, "the gym's snapshot and the replay read alike"
    assert not_text(replayed) is not is_utf8
    assert shown_text(replayed) == raw.decode("utf-8", "replace")
    if is_utf8:
        assert replayed == raw.decode("utf-8"), "valid UTF-8 reads exactly as it always did"
