"""Replay of a harness that carries its shell's folder alone (Claude Code), after the harness table
(``shell_session.KEPT_BY_FORMAT``).

Claude Code's Bash tool runs each call in a new shell (``source <snapshot> && eval '<line>' &&
pwd -P >| <cwd file>``): the folder carries over, and only where the line exited 0; variables,
aliases, functions and options do not ("Environment variables do not persist"), a line's own
``EXIT`` handler runs as its call ends, and the line is ``eval``-ed on the shell's first line
(``$LINENO`` 1 on a one-line call; replay ran it on its script's second line: one higher). Replay
kept the whole session for it, as SWE-agent's and OpenHands' long-lived shells keep it, and
restarted a line that ended its shell (``exit``, ``set -e``, ``exec``) at the episode's start,
where Claude Code stays in the folder it was in: an honest log drifted. The round trips run
test-written lines in the host's bash, as replay runs each line (a fresh ``bash -c``); each case's
expected output is what Claude Code prints. Development half developed against, validation half
run once after (6/7: ``builtin eval`` numbers a longer call's lines otherwise than Claude Code's
``eval``; 7/7 since); the session-scope round trips (``test_replay_kept_shell_session.py``) are the
control and keep their outputs."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from _verify_factory import CALC_S0, fixed_files
from test_replay import bash, environment, episode_of

from trajectory_platform.curation.verify.replay import replay_episode
from trajectory_platform.curation.verify.shell_session import FOLDER, KEPT_BY_FORMAT, SESSION, in_kept_shell
from trajectory_platform.gym.sandbox import unified_diff

DEV = {
    "variable_gone": (["export T=1; cd a", "echo ${T-unset}; pwd"], "unset\n{0}/a\n"),
    "failed_line_keeps_the_folder_before_it": (["cd a", "cd ..; false", "pwd"], "{0}/a\n"),
    "exit_keeps_the_folder_before_it": (["cd a", "cd ..; exit 0", "pwd"], "{0}/a\n"),
    "alias_gone": (["alias k=true; cd a", "type k >/dev/null 2>&1; echo $?"], "1\n"),
    "handler_runs_as_its_call_ends": (["trap 'echo bye' EXIT", "echo x"], "bye\nx\n"),
    "lineno_of_a_one_line_call": (["cd a", "echo $LINENO"], "1\n"),
}
VALIDATION = {
    "errexit_keeps_the_folder_before_it": (
        ["cd a", "set -e; cd ..; false; echo no", "pwd; echo $-"],
        "{0}/a\nhBc\n",
    ),
    "function_gone": (["f() { echo hi; }", "f 2>/dev/null || echo none"], "none\n"),
    "path_back_to_the_harness": (["export PATH=/nowhere", "ls -d a"], "a\n"),
    "option_gone": (["shopt -s nullglob", "echo no*.such"], "no*.such\n"),
    "exec_keeps_the_folder_before_it": (["cd a", "cd ..; exec true", "pwd"], "{0}/a\n"),
    "success_moves": (["cd a && pwd", "pwd"], "{0}/a\n{0}/a\n"),
    "lineno_of_a_longer_call": (["cd a", "echo $LINENO\necho $LINENO"], "2\n3\n"),
}


def round_trip(lines: list[str], folder: Path, scope: str) -> str:
    """What ``lines`` print together, each a fresh ``bash -c`` in a shell kept to ``scope``."""
    env = {"PATH": os.environ["PATH"], "HOME": "/tmp", "TERM": "dumb"}
    outputs = []
    for i, line in enumerate(lines):
        previous = str(folder / f"s{i - 1}") if i else None
        script = in_kept_shell(line, str(folder / f"s{i}"), previous, scope)
        done = subprocess.run(
            ["bash", "-c", script], cwd=folder, capture_output=True, text=True, env=env, check=False
        )
        outputs.append(done.stdout)
    return "".join(outputs)


def test_the_table_keeps_claude_codes_folder_alone_and_the_long_lived_shells_session():
    assert KEPT_BY_FORMAT == {"swe-agent": SESSION, "openhands": SESSION, "claude-code": FOLDER}


@pytest.mark.parametrize("name", [*DEV, *(f"validation:{k}" for k in VALIDATION)])
def test_a_folder_only_shell_carries_the_folder_a_line_left_where_it_exited_0(name: str, tmp_path: Path):
    lines, expected = (VALIDATION if name.startswith("validation:") else DEV)[
        name.removeprefix("validation:")
    ]
    (tmp_path / "a").mkdir()
    folder = tmp_path.resolve()
    assert round_trip(lines, folder, FOLDER) == expected.format(folder), name


def test_an_honest_claude_code_log_replays_with_its_harness_state():
    """Sandboxed: a variable gone at the next call, and a line that ended its shell leaving the
    folder before it (replay kept the variable and restarted at the root: drift)."""
    lines = [
        ("export T=1; cd calc", ""),
        ("cd ..; exit 0", ""),
        ("echo ${T-unset}; ls", "unset\n__init__.py\nops.py\n"),
    ]
    turns = [
        (replace(call, name="Bash"), answer)
        for call, answer in (bash(i, *line) for i, line in enumerate(lines))
    ]
    diff = unified_diff(CALC_S0, fixed_files())
    episode = replace(episode_of(turns, diff, "claude-kept"), source_format="claude-code")
    result = replay_episode(episode, environment())
    assert (result.observations, result.drift_turns, result.kept_folder) == ("verified", [], True)
