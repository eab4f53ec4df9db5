"""A Codex command that outlived its call and the ``write_stdin`` calls that fed it replay as the one
run they were (``cli_tools.command_session_calls``): the command at its call with the writes'
``chars`` on its stdin, the writes no calls of their own; only a session the log saw end and that
ran alone (no call changing the workspace between its start and its last write). The others stay
``replay_unsupported_call``."""

from __future__ import annotations

import json

import pytest
from test_replay import environment
from test_replay_coding_clis import PATCH, PATCHED, apply_patch, codex_session

from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.cli_tools import NO_EFFECT, SHELL, cli_call, command_session_calls
from trajectory_platform.curation.verify.replay import replay_episode

UPPER = "python3 -c 'import sys; print(sys.stdin.read().upper(), end=\"\")'"


def _exec(cmd: str) -> dict:
    return {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": cmd})}


def _write(chars: str) -> dict:
    arguments = json.dumps({"session_id": 4867, "chars": chars, "yield_time_ms": 1000})
    return {"type": "function_call", "name": "write_stdin", "arguments": arguments}


def _said(state: str, output: str) -> str:
    return f"Chunk ID: 9f\nWall time: 1.0 seconds\n{state}\nOriginal token count: 2\nOutput:\n{output}"


RUNNING = _said("Process running with session ID 4867", "")
SESSIONS = {
    "fed-then-ended": (
        [(_exec(UPPER), RUNNING), (_write("hi\n"), _said("Process exited with code 0", "HI\n"))],
        "hi\n",
    ),
    "polled-then-ended": (
        [(_exec("sleep 0"), RUNNING), (_write(""), _said("Process exited with code 0", ""))],
        "",
    ),
    "a-patch-between": (
        [
            (_exec(UPPER), RUNNING),
            (apply_patch(PATCH), PATCHED),
            (_write("x"), _said("Process exited with code 0", "X")),
        ],
        None,
    ),
    "never-ended": ([(_exec(UPPER), RUNNING), (_write("x"), RUNNING)], None),
}
"""A session's calls, and the stdin its replay feeds (``None``: not replayed, unsupported)."""


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_a_command_session_is_replayed_as_one_run_only_where_it_ended_alone(name: str, tmp_path):
    turns, fed = SESSIONS[name]
    episode = codex_session(tmp_path / "rollout.jsonl", turns)
    records = call_records(episode)
    cli = {id(r.call): c for r in records if (c := cli_call(r, "codex", "/home/dev/calc")) is not None}
    linked = command_session_calls(records, episode.extra().get("command_sessions"), cli, "/home/dev/calc")
    if fed is None:
        assert linked == {}
        return
    command, *writes = [linked[id(r.call)] for r in records if r.call.name in ("exec_command", "write_stdin")]
    assert (command.kind, command.compared) == (SHELL, False)
    assert isinstance(command.action, str) and command.action.endswith(UPPER + "\n}" if fed else "sleep 0")
    assert [w.kind for w in writes] == [NO_EFFECT] * len(writes)


@pytest.mark.parametrize("exit_code", [0, 1])
def test_a_replayed_session_is_no_unsupported_call_and_a_failure_it_did_not_have_is_drift(
    exit_code, tmp_path
):
    ended = _said(f"Process exited with code {exit_code}", "HI\n")
    episode = codex_session(tmp_path / "rollout.jsonl", [(_exec(UPPER), RUNNING), (_write("hi\n"), ended)])
    result = replay_episode(episode, environment())
    assert result.unsupported_turns == [] and result.error is None
    assert len(result.drift_turns) == exit_code, "a failure the replayed command did not have is drift"
