"""The folder a harness shows the shell in after each call is the log's own evidence of whether the
shell kept it (session 45).

OpenHands records the shell's directory with every command's observation
(``extras.metadata.working_dir``) and SWE-agent ends each answer with a state footer
(``(Current directory: /testbed/calc)``); whether a shell keeps its folder was read off a ``pwd``
the log showed, else off the harness's format (``KEPT_BY_FORMAT``) alone. Now, after a line that
moved the shell, a next line that does not move shows either the folder reached (kept) or the one
before (afresh), and that outranks the table."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from _verify_factory import CALC_S0, fixed_files
from test_replay import bash, environment, episode_of, verify
from test_replay_coding_clis import ROOT, claude_entry, ingest

from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.shell_session import keeps_folder, shown_folders
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.ingest import ingest_paths

R = "/testbed"


def _footed(commands: list[tuple[str, str]], source_format: str):
    """A log whose answers end with SWE-agent's state footer (each ``(command, folder)``)."""
    turns = []
    for i, (command, folder) in enumerate(commands):
        call, answer = bash(i, command, f"\n(Open file: n/a)\n(Current directory: {folder})\nbash-$")
        turns.append((call, answer))
    return replace(episode_of(turns, None), source_format=source_format)


def _recorded(commands: list[tuple[str, str]], source_format: str):
    """A log whose harness recorded each command's folder as OpenHands' adapter keeps it."""
    episode = replace(episode_of([bash(i, c, "") for i, (c, _) in enumerate(commands)], None))
    answers = [i for i, e in enumerate(episode.events) if e.kind == "tool"]
    folders = {str(i): folder for i, (_, folder) in zip(answers, commands, strict=True)}
    return replace(episode, source_format=source_format, extra_json=json.dumps({"working_dirs": folders}))


def _kept(episode) -> bool:
    records = call_records(episode)
    return keeps_folder(episode.source_format, records, shown_folders(episode, records))


MOVED_THEN_KEPT = [("ls", R), ("cd calc", f"{R}/calc"), ("ls", f"{R}/calc")]
MOVED_THEN_BACK = [("ls", R), ("cd calc", f"{R}/calc"), ("ls", R)]
DEVELOPMENT = {  # (log, expected): the shown folders decide against the format's table
    "footer_kept_native": (_footed(MOVED_THEN_KEPT, "native"), True),
    "footer_afresh_swe_agent": (_footed(MOVED_THEN_BACK, "swe-agent"), False),
    "recorded_afresh_openhands": (_recorded(MOVED_THEN_BACK, "openhands"), False),
    "recorded_kept_mini": (_recorded(MOVED_THEN_KEPT, "mini-swe-agent"), True),
    "nothing_shown_the_table": (_footed([("cd calc", ""), ("ls", "")], "claude-code"), True),
}
VALIDATION = {
    "pushd_footer_kept_mini": (
        _footed(
            [("ls", R), ("pushd calc > /dev/null", f"{R}/calc"), ("cat ops.py", f"{R}/calc/")],
            "mini-swe-agent",
        ),
        True,
    ),
    "move_with_a_command_afresh_claude_code": (
        _recorded([("pwd", R), ("cd calc && ls", f"{R}/calc"), ("cat calc/ops.py", R)], "claude-code"),
        False,
    ),
    "only_moving_lines_say_nothing": (
        _footed([("ls", R), ("cd calc && ls", f"{R}/calc"), ("cd .. && ls", R)], "codex"),
        False,
    ),
    "a_folder_neither_says_nothing": (
        _recorded([("ls", R), ("cd calc", f"{R}/calc"), ("ls", f"{R}/tests")], "openhands"),
        True,
    ),
}


@pytest.mark.parametrize(("half", "cases"), [("development", DEVELOPMENT), ("validation", VALIDATION)])
def test_the_folders_a_harness_shows_decide_before_its_table(half, cases):
    assert {k: _kept(e) for k, (e, _) in cases.items()} == {k: kept for k, (_, kept) in cases.items()}


def _openhands_log(tmp_path, commands: list[tuple[str, str, str]]):
    """An OpenHands event-stream log: each ``(command, output, working_dir after it)``."""
    history = []
    for i, (command, output, folder) in enumerate(commands):
        call = {"id": f"t{i}", "type": "function"}
        call["function"] = {"name": "execute_bash", "arguments": json.dumps({"command": command})}
        response = {"id": f"r{i}", "choices": [{"message": {"tool_calls": [call]}}]}
        metadata = {"function_name": "execute_bash", "tool_call_id": f"t{i}", "model_response": response}
        run = {"id": 2 * i + 1, "source": "agent", "action": "run", "args": {"command": command}}
        history.append({**run, "tool_call_metadata": metadata})
        extras = {"command": command, "metadata": {"exit_code": 0, "working_dir": folder}}
        observed = {"id": 2 * i + 2, "cause": 2 * i + 1, "observation": "run", "content": output}
        history.append({**observed, "extras": extras, "tool_call_metadata": metadata})
    line = {"instance_id": "calc-env", "instruction": "fix add()", "history": history}
    line["test_result"] = {"git_patch": unified_diff(CALC_S0, fixed_files())}
    log = tmp_path / "output.jsonl"
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (episode,) = ingest_paths([log]).episodes
    return episode


def test_an_openhands_log_whose_folders_show_a_fresh_shell_is_replayed_as_one(tmp_path):
    """Its adapter keeps every command's folder where they differ (one folder throughout: only the
    first, as before); a log showing its shell back at the root after a ``cd`` is replayed from the
    root for each line and admitted, where the format's table alone ran it in ``calc`` (drift)."""
    root = "/workspace"
    commands = [
        ("grep -c 'a - b' calc/ops.py", "1\n", root),
        ("cd calc", "", f"{root}/calc"),
        ("sed -i 's/a - b/a + b/' calc/ops.py", "", root),
    ]
    episode = _openhands_log(tmp_path, commands)
    assert json.loads(episode.extra_json or "{}")["working_dirs"] == {
        "1": root,
        "3": f"{root}/calc",
        "5": root,
    }
    (verdict,) = verify([episode], environment())
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    still = _openhands_log(tmp_path, [(c, o, root) for c, o, _ in commands])
    assert "working_dirs" not in json.loads(still.extra_json or "{}")


def test_a_claude_code_session_keeps_each_results_cwd_as_its_folder(tmp_path):
    """Claude Code writes the session's ``cwd`` on every entry: the one a command's result came in
    is where its shell was after it. Kept where they differ (one throughout: only the first, as
    before) and read like OpenHands' ``working_dir``: a session back at its root after a lone
    ``cd`` ran each command afresh, whatever the table says of Claude Code."""

    def session(folders: list[str]):
        model = {"role": "assistant", "model": "claude-sonnet-4-5"}
        entries = [claude_entry(0, "user", {"role": "user", "content": "fix add()"})]
        for i, (command, folder) in enumerate(zip(["ls", "cd calc", "ls"], folders, strict=True)):
            use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": command}}
            entries.append(claude_entry(2 * i + 1, "assistant", {**model, "id": f"m{i}", "content": [use]}))
            result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "", "is_error": False}
            entries.append(
                {**claude_entry(2 * i + 2, "user", {"role": "user", "content": [result]}), "cwd": folder}
            )
        return ingest(tmp_path / "s.jsonl", "".join(json.dumps(e) + "\n" for e in entries))

    afresh = session([ROOT, f"{ROOT}/calc", ROOT])
    assert json.loads(afresh.extra_json or "{}")["working_dirs"] == {
        "2": ROOT,
        "4": f"{ROOT}/calc",
        "6": ROOT,
    }
    assert _kept(afresh) is False
    assert _kept(session([ROOT, f"{ROOT}/calc", f"{ROOT}/calc"])) is True
    assert "working_dirs" not in json.loads(session([ROOT] * 3).extra_json or "{}")
