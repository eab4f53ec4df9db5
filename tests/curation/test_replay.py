"""Replay verification of logs from brought environments: recorded actions re-run in the sandbox,
observations compared, the replayed final state judged by the sealed oracle; and the gym path
untouched."""

from __future__ import annotations

import dataclasses
import json

import pytest
from _verify_factory import CALC_S0, SEALED, fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verified_table, verify_episodes
from trajectory_platform.curation.verify import cascade as cascade_module
from trajectory_platform.curation.verify.calls import call_records
from trajectory_platform.curation.verify.context import DiffView
from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.curation.verify.replay import check_replay, normalize, replay_episode
from trajectory_platform.gym.fixtures import Fixture, ReplaySpec
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode, Event, Outcome, TaskIdentity, ToolCall

QUIET = CascadeConfig(progress=False)
TASK = "calc-env"
OPS = CALC_S0["calc/ops.py"]
FIXED = fixed_files()
FIX = "sed -i 's/a - b/a + b/' calc/ops.py"


SHELL = ReplaySpec(shell=True)


def environment(replay: ReplaySpec | None = SHELL, task_id: str = TASK) -> Fixture:
    """A brought environment as the cascade sees it: S0, sealed oracle, a reference, no plan."""
    return Fixture(
        fixture_id=task_id,
        repo_family="calc",
        tool_family="shell",
        domain="bug_repair",
        license="MIT",
        prompt="add() subtracts; fix it.",
        s0_files=dict(CALC_S0),
        sealed_tests=dict(SEALED),
        fail_to_pass=["tests/test_ops.py::test_add"],
        pass_to_pass=["tests/test_ops.py::test_mul"],
        reference_files=dict(FIXED),
        plan=[],
        source="environment",
        replay=replay,
    )


def episode_of(
    calls: list[tuple[ToolCall, Event | None]], diff: str | None, episode_id: str = "e1"
) -> Episode:
    events = [Event("system", content="you fix bugs"), Event("user", content="add() subtracts; fix it.")]
    for call, answer in calls:
        events.append(Event("assistant", content="thinking", tool_calls=[call]))
        if answer is not None:
            events.append(answer)
    events.append(Event("assistant", content="fixed add"))
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="deployed.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        task=TaskIdentity(fixture_id=TASK, repo_family="calc", domain="bug_repair"),
        events=events,
        outcome=Outcome(terminal_status="completed", final_answer="fixed add", workspace_diff=diff),
    )


def bash(i: int, command: str, output: str, exit_code: int = 0) -> tuple[ToolCall, Event]:
    """A function-calling shell turn (OpenHands / SWE-agent style): JSON arguments, raw output."""
    call = ToolCall(f"c{i}", "execute_bash", json.dumps({"command": command}))
    status = "ok" if exit_code == 0 else "error"
    return call, Event("tool", content=output, tool_call_id=f"c{i}", status=status, exit_code=exit_code)


def mini(command: str, output: str, exit_code: int = 0) -> tuple[ToolCall, Event]:
    """A mini-swe-agent turn as its adapter records it: text action, framed observation."""
    framed = f"<returncode>{exit_code}</returncode>\n<output>\n{output}</output>"
    return ToolCall(None, "bash", command), Event(
        "tool", content=framed, tool_name="bash", exit_code=exit_code
    )


def honest_turns() -> list[tuple[ToolCall, Event]]:
    return [
        bash(0, "cat calc/ops.py", OPS),
        bash(1, FIX, ""),
        bash(2, "grep -n 'a + b' calc/ops.py", "2:    return a + b\n"),
        bash(3, "grep -c nothing-here calc/ops.py", "0\n", exit_code=1),
    ]


def verify(episodes: list[Episode], fixture: Fixture):
    result = verify_episodes(episodes, {fixture.fixture_id: fixture}, QUIET)
    return result.verdicts


def replay_data(verdict) -> dict:
    return verdict.stage("dynamic").data["replay"]


def test_a_consistent_shell_log_is_verified_and_admitted_when_the_oracle_passes():
    episode = episode_of(honest_turns(), unified_diff(CALC_S0, FIXED))
    result = verify_episodes([episode], {TASK: environment()}, QUIET)
    (verdict,) = result.verdicts
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    (row,) = verified_table([episode], result).to_pylist()
    stored = {s["stage"]: s for s in json.loads(row["stage_verdicts_json"])}
    assert stored["dynamic"]["data"]["replay"]["observations"] == "verified"
    dynamic = verdict.stage("dynamic")
    assert replay_data(verdict) == {
        "mode": "shell",
        "observations": "verified",
        "turns_replayed": 4,
        "drift_turns": [],
        "verified_answers": [3, 5, 7, 9],
        "writes_measured": True,
    }
    assert dynamic.data["runs"] >= 1 and dynamic.passed
    assert 0 < dynamic.timings["replay_s"] <= dynamic.wall_s, "the replay's time is the dynamic stage's"


def test_a_replayed_fix_that_the_oracle_rejects_is_a_hard_negative():
    wrong = [bash(0, "sed -i 's/a - b/a * b/' calc/ops.py", "")]
    post = {**CALC_S0, "calc/ops.py": OPS.replace("a - b", "a * b")}
    (verdict,) = verify([episode_of(wrong, unified_diff(CALC_S0, post))], environment())
    assert verdict.sink == "hard_negative"
    assert replay_data(verdict)["observations"] == "verified"


def test_an_edited_observation_is_replay_drift_and_the_finding_holds_no_record_text():
    turns = honest_turns()
    secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
    turns[2] = bash(2, "grep -n 'a + b' calc/ops.py", f"2:    return a + b  # {secret}\n")
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_drift")
    dynamic = verdict.stage("dynamic")
    assert dynamic.passed is None and dynamic.findings[0].event_index == 6
    data = replay_data(verdict)
    assert data["observations"] == "drift" and data["drift_turns"] == [6]
    stored = json.dumps([s.as_dict() for s in verdict.stages])
    assert secret not in stored and "return a + b" not in stored
    assert data["drift"][0]["recorded_chars"] > data["drift"][0]["replayed_chars"]


def test_a_different_exit_code_is_drift_too():
    turns = honest_turns()
    turns[3] = bash(3, "grep -c nothing-here calc/ops.py", "0\n", exit_code=0)
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert verdict.reason == "replay_drift"
    assert replay_data(verdict)["drift"][0] == {
        "turn": 8,
        "recorded_chars": 1,
        "replayed_chars": 1,
        "recorded_sha256": replay_data(verdict)["drift"][0]["recorded_sha256"],
        "replayed_sha256": replay_data(verdict)["drift"][0]["recorded_sha256"],
        "recorded_exit": 0,
        "replayed_exit": 1,
    }


def test_a_recorded_diff_the_commands_do_not_produce_is_tamper():
    claimed = {**FIXED, "calc/ops.py": FIXED["calc/ops.py"] + "\n\ndef sub(a, b):\n    return a - b\n"}
    (verdict,) = verify([episode_of(honest_turns(), unified_diff(CALC_S0, claimed))], environment())
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")
    finding = verdict.stage("dynamic").findings[0]
    assert finding.path == "calc/ops.py" and "1 file(s)" in finding.detail
    assert verdict.stage("delta") is None


def test_normalization_tolerates_timestamps_durations_and_the_environments_patterns():
    command = "date -u '+%Y-%m-%dT%H:%M:%S started'; echo 'Ran 3 tests in 0.57s'; echo \"at $PWD/calc\""
    recorded = "2024-01-02T03:04:05 started\nRan 3 tests in 1.9s   \nat /testbed/calc\n\n"  # a slower machine
    turns = [bash(0, command, recorded), bash(1, FIX, "")]
    episode = episode_of(turns, unified_diff(CALC_S0, FIXED))
    strict = replay_episode(episode, environment())
    assert strict.observations == "drift" and strict.drift_turns == [2], "the root path differs"
    tolerant = environment(ReplaySpec(shell=True, normalize=(r"/(testbed|workspace)\b",)))
    assert replay_episode(episode, tolerant).observations == "verified"
    (verdict,) = verify([episode], tolerant)
    assert verdict.sink == "admitted"


def test_normalize_defaults():
    assert normalize("pid 4242 at 0x7f3a9c001234\r\n2 passed in 0.12s \n") == normalize(
        "PID=17 at 0x7f00deadbeef\n2 passed in 3 ms\n\n"
    )
    assert normalize("-rw-r--r-- 1 a a 9 Jul 17 01:31 setup.py /tmp/tmpa1b2c3/x") == normalize(
        "-rw-r--r-- 1 a a 9 Dec  3 2023 setup.py /tmp/q/x"
    )
    assert normalize("bash: line 1: ponyc: command not found") == "bash: ponyc: command not found"
    assert normalize("2 passed") != normalize("3 passed")


def test_a_mini_swe_agent_log_replays_with_its_framing_and_submission():
    submit = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
    diff = unified_diff(CALC_S0, FIXED)
    turns = [mini("cat calc/ops.py", OPS), mini(FIX, ""), mini("grep -q 'a - b' calc/ops.py", "", 1)]
    turns.append((ToolCall(None, "bash", submit), Event("tool", content=diff, tool_name="bash")))
    (verdict,) = verify([episode_of(turns, diff)], environment())
    assert verdict.sink == "admitted"
    assert replay_data(verdict)["turns_replayed"] == 3


def test_a_call_the_shell_replay_cannot_execute_makes_the_episode_unverifiable():
    opened = ToolCall("e", "open", json.dumps({"path": "calc/ops.py"}))
    turns = [bash(0, FIX, ""), (opened, Event("tool", content=OPS, tool_call_id="e"))]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_unsupported_call")
    assert replay_data(verdict)["unsupported_turns"] == [4]


def test_a_refused_call_is_not_replayed_and_an_unanswered_one_is_replayed_unchecked():
    refused = (
        ToolCall("r", "execute_bash", json.dumps({"command": "rm calc/ops.py"})),
        Event("refusal", content="not allowed", tool_call_id="r", status="refused"),
    )
    unanswered = (ToolCall("u", "execute_bash", json.dumps({"command": FIX})), None)
    episode = episode_of([refused, unanswered], unified_diff(CALC_S0, FIXED))
    result = replay_episode(episode, environment())
    # the refusal's text is the log's word alone, so its turn is unchecked too
    assert result.turns_replayed == 1 and result.unchecked_turns == [2, 4]
    assert result.observations == "unverified" and result.final_files == FIXED


def test_without_a_recorded_diff_the_replayed_state_is_what_the_oracle_and_the_audit_judge():
    episode = episode_of(honest_turns(), None)
    (verdict,) = verify([episode], environment())
    assert verdict.sink == "admitted"
    bad = episode_of(
        [bash(0, "echo 'def test_x():\n    assert True' > tests/test_extra.py; " + FIX, "")], None
    )
    (tampered,) = verify([bad], environment())
    assert tampered.sink == "tamper_quarantine"
    assert tampered.stage("dynamic").findings[0].path == "tests/test_extra.py"  # measured as replay wrote it


def test_check_replay_replaces_the_view_only_when_no_diff_was_recorded():
    context = fixture_context(environment())
    view = DiffView(text="", post=dict(CALC_S0))
    check = check_replay(episode_of(honest_turns(), None), context, view)
    assert check is not None and check.sink is None
    assert check.view.post == FIXED and check.view.paths == ["calc/ops.py"]
    assert check.view.text == unified_diff(CALC_S0, FIXED)


TOOLS = {
    "calctools.py": (
        "import os\n\n\n"
        "def call(name, arguments, root):\n"
        "    path = os.path.join(root, arguments['path'])\n"
        "    if name == 'read':\n"
        "        with open(path) as fh:\n"
        "            return fh.read()\n"
        "    if name == 'replace':\n"
        "        with open(path) as fh:\n"
        "            text = fh.read()\n"
        "        if arguments['old'] not in text:\n"
        "            return 'error: old text not found'\n"
        "        with open(path, 'w') as fh:\n"
        "            fh.write(text.replace(arguments['old'], arguments['new']))\n"
        "        return 'replaced in ' + arguments['path']\n"
        "    return 'error: unknown tool ' + name\n"
    )
}


def tool_turn(i: int, name: str, output: str, **arguments: str) -> tuple[ToolCall, Event]:
    call = ToolCall(f"t{i}", name, json.dumps(arguments))
    return call, Event("tool", content=output, tool_call_id=f"t{i}", status="ok")


def test_tools_mode_replays_calls_through_the_environments_own_implementation():
    env = environment(ReplaySpec(tools_files=TOOLS, tools_entry_point="calctools:call"))
    turns = [
        tool_turn(0, "read", OPS, path="calc/ops.py"),
        tool_turn(1, "replace", "error: old text not found", path="calc/ops.py", old="a ~ b", new="x"),
        tool_turn(2, "replace", "replaced in calc/ops.py", path="calc/ops.py", old="a - b", new="a + b"),
        (ToolCall("f", "finish", "{}"), None),
    ]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], env)
    assert verdict.sink == "admitted"
    assert replay_data(verdict) == {
        "mode": "tools",
        "observations": "verified",
        "turns_replayed": 3,
        "drift_turns": [],
        "verified_answers": [3, 5, 7],
        "writes_measured": True,
    }
    turns[0] = tool_turn(0, "read", OPS.replace("a - b", "a + b"), path="calc/ops.py")
    (drifted,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], env)
    assert (drifted.sink, drifted.reason) == ("unverifiable", "replay_drift")


def test_a_broken_tools_module_is_replay_failed():
    env = environment(ReplaySpec(tools_files=TOOLS, tools_entry_point="calctools:absent"))
    turns = [tool_turn(0, "read", OPS, path="calc/ops.py")]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], env)
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_failed")


@pytest.mark.parametrize("replay", [None, ReplaySpec()])
def test_without_a_replay_spec_observations_are_unverified_and_the_oracle_judges_the_recorded_diff(replay):
    env = environment(replay)
    lying = [bash(0, "cat calc/ops.py", "anything at all")]
    (good,) = verify([episode_of(lying, unified_diff(CALC_S0, FIXED))], env)
    assert good.sink == "admitted"
    assert replay_data(good) == {
        "mode": "none",
        "observations": "unverified",
        "turns_replayed": 0,
        "drift_turns": [],
    }
    (bad,) = verify([episode_of(lying, "")], env)
    assert bad.sink == "hard_negative"


def test_gym_fixtures_take_exactly_the_path_they_took_before(monkeypatch):
    fixture = make_fixture()
    episodes = [
        make_episode("pristine", pristine_turns(), fixed_files()),
        make_episode("wrong", pristine_turns()[:1], dict(CALC_S0)),
        make_episode("tests", pristine_turns(), {**fixed_files(), "tests/test_ops.py": "x = 1\n"}),
    ]

    def stored(result) -> str:
        return json.dumps(
            [
                (v.sink, v.reason, v.role, v.target_turns, [s.as_dict() for s in v.stages])
                for v in result.verdicts
            ],
            sort_keys=True,
        )

    with_replay = verify_episodes(episodes, {fixture.fixture_id: fixture}, QUIET)
    monkeypatch.setattr(cascade_module, "check_replay", lambda *args: None)
    without = verify_episodes(episodes, {fixture.fixture_id: fixture}, QUIET)
    assert stored(with_replay) == stored(without)
    assert [v.sink for v in with_replay.verdicts] == ["admitted", "hard_negative", "tamper_quarantine"]
    for verdict in with_replay.verdicts:  # only the gym's own replay (a hard negative's, at stage 3)
        dynamic = verdict.stage("dynamic")
        assert dynamic is None or dynamic.data.get("replay", {"mode": "gym"})["mode"] == "gym"


# ---------------------------------------------------------------- the file editor (str_replace_editor)

REPRODUCE = "from calc.ops import add\nprint(add(2, 3))\n"
NUMBERED = "".join(f"{i:6}\t{line}\n" for i, line in enumerate(OPS.split("\n"), 1))


def swe_agent_traj(path, steps: list[tuple[str, dict, str]], submission: str | None) -> None:
    """A SWE-agent (>= 1.0, function calling) ``.traj``: tool calls, ``OBSERVATION:``-framed outputs."""
    history: list[dict] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "add() subtracts; fix it."},
    ]
    for i, (name, arguments, output) in enumerate(steps):
        call = {"id": f"call_{i}", "type": "function"}
        call["function"] = {"name": name, "arguments": json.dumps(arguments)}
        history.append({"role": "assistant", "content": "", "thought": "", "tool_calls": [call]})
        shown = output if output else "Your command ran successfully and did not produce any output."
        history.append({"role": "tool", "content": f"OBSERVATION:\n{shown}", "tool_call_ids": [f"call_{i}"]})
    history.append({"role": "assistant", "content": "", "tool_calls": [submit_call()]})
    info = {"exit_status": "submitted", "submission": submission}
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": info}), encoding="utf-8")


def submit_call() -> dict:
    return {"id": "call_submit", "type": "function", "function": {"name": "submit", "arguments": "{}"}}


def openhands_output(path, steps: list[tuple[str, dict, str, int | None]], patch: str | None) -> None:
    """An OpenHands evaluation output line: ``history`` of actions and observations linked by
    ``tool_call_metadata``; an editor failure is an observation starting ``ERROR:``."""
    history: list[dict] = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "add() subtracts; fix it."}}
    ]
    for i, (name, arguments, output, exit_code) in enumerate(steps):
        call = {"id": f"toolu_{i}", "type": "function"}
        call["function"] = {"name": name, "arguments": json.dumps(arguments)}
        response = {"id": f"resp_{i}", "choices": [{"message": {"tool_calls": [call]}}]}
        metadata = {"function_name": name, "tool_call_id": f"toolu_{i}", "model_response": response}
        kind = "run" if name == "execute_bash" else "edit"
        history.append(
            {
                "id": 2 * i + 1,
                "source": "agent",
                "action": kind,
                "args": arguments,
                "tool_call_metadata": metadata,
            }
        )
        observation = {"id": 2 * i + 2, "cause": 2 * i + 1, "observation": kind, "content": output}
        observation["tool_call_metadata"] = metadata
        if exit_code is not None:
            observation["extras"] = {"metadata": {"exit_code": exit_code}}
        history.append(observation)
    history.append({"id": 99, "source": "agent", "action": "finish", "args": {"outputs": {}}})
    line = {"instance_id": TASK, "instruction": "add() subtracts; fix it.", "history": history}
    line["test_result"] = {"git_patch": patch}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")


def ingest_one(path) -> Episode:
    (episode,) = ingest_paths([path]).episodes
    assert episode.task.fixture_id == TASK
    return episode


def editor(command: str, path: str, **arguments: object) -> dict:
    return {"command": command, "path": path, **arguments}


def openhands_steps(failed_edit_recorded: str) -> list[tuple[str, dict, str, int | None]]:
    ops = "/workspace/calc/ops.py"
    return [
        (
            "str_replace_editor",
            editor("view", ops),
            f"Here's the result of running `cat -n` on {ops}:\n{NUMBERED}",
            None,
        ),
        (
            "execute_bash",
            {"command": "cd /workspace && grep -n 'a - b' calc/ops.py"},
            "2:    return a - b",
            0,
        ),
        (
            "str_replace_editor",
            editor("str_replace", ops, old_str="a ~ b", new_str="a + b"),
            failed_edit_recorded,
            None,
        ),
        (
            "str_replace_editor",
            editor("str_replace", ops, old_str="a - b", new_str="a + b"),
            f"The file {ops} has been edited.",
            None,
        ),
        ("execute_bash", {"command": "grep -c 'a + b' calc/ops.py"}, "1", 0),
    ]


NOT_FOUND = (
    "ERROR:\nNo replacement was performed, old_str `a ~ b` did not appear verbatim in /workspace/calc/ops.py."
)


def test_a_swe_agent_log_of_shell_and_editor_calls_replays_to_its_final_state_and_is_admitted(tmp_path):
    ops = "/testbed/calc/ops.py"
    steps = [
        (
            "str_replace_editor",
            editor("view", ops),
            f"Here's the result of running `cat -n` on {ops}:\n{NUMBERED}",
        ),
        ("bash", {"command": "grep -c 'a - b' calc/ops.py"}, "1"),
        (
            "str_replace_editor",
            editor("str_replace", ops, old_str="a - b", new_str="a + b"),
            f"The file {ops} has been edited. Here's the result of running `cat -n` on a snippet...",
        ),
        (
            "str_replace_editor",
            editor("create", "/testbed/reproduce.py", file_text=REPRODUCE),
            "File created successfully at: /testbed/reproduce.py",
        ),
        ("bash", {"command": "python3 reproduce.py"}, "5"),
        ("bash", {"command": "rm reproduce.py"}, ""),
    ]
    swe_agent_traj(tmp_path / f"{TASK}.traj", steps, unified_diff(CALC_S0, FIXED))
    episode = ingest_one(tmp_path / f"{TASK}.traj")
    result = replay_episode(episode, environment())
    assert result.final_files == FIXED, (
        "the editor's edit, the script it created and its removal all replayed"
    )
    editor_turns = [6, 8]  # the view (turn 2) is compared: replay prints what the editor printed
    assert result.unchecked_turns == editor_turns and result.drift_turns == []
    (verdict,) = verify([episode], environment())
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    assert replay_data(verdict) == {
        "mode": "shell",
        "observations": "unverified",
        "turns_replayed": 6,
        "drift_turns": [],
        "unchecked_turns": editor_turns,
        "verified_answers": [3, 5, 11, 13],  # an edit's answer is its rendering: not compared
        "writes_measured": True,
    }


def test_an_openhands_log_whose_failed_edit_fails_again_is_admitted(tmp_path):
    openhands_output(tmp_path / "output.jsonl", openhands_steps(NOT_FOUND), unified_diff(CALC_S0, FIXED))
    episode = ingest_one(tmp_path / "output.jsonl")
    assert [e.status for e in episode.events if e.kind == "tool"][2] == "error"
    (verdict,) = verify([episode], environment())
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    data = replay_data(verdict)
    assert data["observations"] == "unverified" and data["turns_replayed"] == 5
    assert data["unchecked_turns"] == [5, 7] and data["drift_turns"] == [], "the view (1) is compared"


def test_an_editor_status_the_replay_contradicts_is_drift(tmp_path):
    claimed_success = "The file /workspace/calc/ops.py has been edited."
    openhands_output(tmp_path / "a.jsonl", openhands_steps(claimed_success), unified_diff(CALC_S0, FIXED))
    (verdict,) = verify([ingest_one(tmp_path / "a.jsonl")], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_drift")
    (drift,) = replay_data(verdict)["drift"]
    assert (drift["turn"], drift["recorded_status"], drift["replayed_status"]) == (5, "ok", "error")
    assert "a ~ b" not in json.dumps(replay_data(verdict)), "no record text in the verdict"

    steps = openhands_steps(NOT_FOUND)
    steps[3] = (steps[3][0], steps[3][1], "ERROR:\nNo replacement was performed.", None)
    openhands_output(tmp_path / "b.jsonl", steps, unified_diff(CALC_S0, FIXED))
    (verdict,) = verify([ingest_one(tmp_path / "b.jsonl")], environment())
    assert verdict.reason == "replay_drift"
    (drift,) = replay_data(verdict)["drift"]
    assert (drift["turn"], drift["recorded_status"], drift["replayed_status"]) == (7, "error", "ok")


def test_a_recorded_diff_the_editor_calls_do_not_produce_is_final_state_mismatch(tmp_path):
    claimed = {**FIXED, "calc/ops.py": FIXED["calc/ops.py"].replace("a * b", "a * b  # tuned")}
    openhands_output(tmp_path / "output.jsonl", openhands_steps(NOT_FOUND), unified_diff(CALC_S0, claimed))
    (verdict,) = verify([ingest_one(tmp_path / "output.jsonl")], environment())
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")
    assert verdict.stage("dynamic").findings[0].path == "calc/ops.py"


def test_an_editor_path_outside_the_workspace_makes_the_episode_unsupported():
    scratch = ToolCall(
        "s", "str_replace_editor", json.dumps(editor("create", "/tmp/scratch.py", file_text="x"))
    )
    turns = [bash(0, FIX, ""), (scratch, Event("tool", content="File created.", tool_call_id="s"))]
    (verdict,) = verify([episode_of(turns, unified_diff(CALC_S0, FIXED))], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_unsupported_call")
    assert replay_data(verdict)["unsupported_turns"] == [4]


SWE_AGENT_DEMOS = "swe-agent/trajectories/demonstrations"


def test_real_logs_replay_their_shell_and_editor_calls_and_refuse_what_a_shell_cannot_redo(real_root):
    """mini-swe-agent's own test log re-runs (its submission turn aside) and matches; OpenHands'
    editor calls are replayed as edits (on an empty S0 their views and the shell commands fail,
    which is drift, not an unsupported call); SWE-agent's pre-1.0 commands (``open``, ``edit``,
    ``create``...) are re-executed too (the script they create and edit renders as recorded), while
    its 1.0 function-calling windowed tools and its cursor mode are calls a shell replay cannot
    re-execute."""
    env = dataclasses.replace(environment(), s0_files={})
    mini_log = ingest_paths([real_root / "mini-swe-agent/tests/test_data/local.traj.json"]).episodes[0]
    result = replay_episode(mini_log, env)
    assert (result.turns_replayed, result.final_files, result.drift_turns) == (1, {}, [])
    submission = [i for i, e in enumerate(mini_log.events) if e.kind == "tool"][-1]
    # the submission line is not re-run: its answer is the log's word (red team, round 10)
    assert result.observations == "unverified" and result.unreplayed_answers == [submission]

    basic = ingest_paths([real_root / "openhands/tests/runtime/trajs/basic.json"]).episodes[0]
    (create,) = [r for r in call_records(basic) if r.call.name == "str_replace_editor"]
    result = replay_episode(basic, env)
    assert (result.unsupported_turns, result.turns_replayed, result.drift_turns) == ([], 1, [])
    assert result.unchecked_turns == [create.turn] and result.observations == "unverified"
    assert result.final_files == {"game_2048.py": json.loads(create.call.arguments or "")["file_text"]}

    ponyc = ingest_paths(
        [real_root / "openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl"]
    )
    episode = ponyc.episodes[0]
    records = [r for r in call_records(episode) if r.call.name not in ("think", "finish")]
    result = replay_episode(episode, env)
    assert result.unsupported_turns == [] and result.turns_replayed == len(records)
    editor_turns = {r.turn for r in records if r.call.name == "str_replace_editor"}
    assert editor_turns and editor_turns <= set(result.unchecked_turns) | set(result.drift_turns)
    assert result.observations == "drift", "the ponyc repository is not in this empty S0"

    pre_1_0 = ingest_paths(
        [
            real_root
            / SWE_AGENT_DEMOS
            / "replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__"
            "c-2.00__install-1___install_from_source/marshmallow-code__marshmallow-1867.traj"
        ]
    ).episodes[0]
    result = replay_episode(pre_1_0, env)
    lines = {r.turn: (r.call.arguments or "").split("\n")[0] for r in call_records(pre_1_0)}
    assert result.unsupported_turns == [] and result.observations == "drift"
    matched = {lines[t] for t in lines if t not in result.drift_turns and t not in result.unchecked_turns}
    assert {"create reproduce.py", "edit 1:1"} <= matched, "rendered exactly as SWE-agent did"

    cursors = (
        "replay__marshmallow-code__marshmallow-1867__default_sys-env_cursors_window100__t-0.20__p-0.95__"
        "c-2.00__install-1/marshmallow-code__marshmallow-1867.traj"
    )
    episode = ingest_paths([real_root / SWE_AGENT_DEMOS / cursors]).episodes[0]
    result = replay_episode(episode, env)
    names = {r.turn: r.call.name for r in call_records(episode)}
    assert {names[turn] for turn in result.unsupported_turns} == {"set_cursors"}, "0.x cursor mode"
    assert result.observations == "unverified" and result.final_files is None
