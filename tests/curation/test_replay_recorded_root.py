"""Replayed commands see the workspace at the absolute path the agent's container held the
repository at, when the log records it (SWE-agent's state footer, mini-swe-agent's configured
``cwd``, the working directory OpenHands' first command observation records): ``python3
/<root>/x.py`` and ``cd /<root> && ...`` re-execute as they did, a forged output still drifts,
and a recorded root that would shadow a sandbox system folder is refused (recorded as a code,
never as the path) while the episode replays as it did before.

Every recorded output here is what the command prints in the agent's container, written by hand."""

from __future__ import annotations

import dataclasses
import json

from _verify_factory import CALC_S0
from test_replay import bash, environment, episode_of, mini, verify

from trajectory_platform.curation.verify.replay import replay_episode, repository_root
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Event, ToolCall

ROOT = "/calc__repo"
SHOW = "import calc.ops\nprint(calc.ops.add(2, 3), calc.ops.__file__)\n"
S0 = {**CALC_S0, "show.py": SHOW}


def swe(i: int, command: str, output: str, root: str = ROOT) -> tuple[ToolCall, Event]:
    """A SWE-agent 1.0 function-calling ``bash`` turn, its answer ending in the state footer."""
    shown = output or "Your command ran successfully and did not produce any output."
    footer = f"\n(Open file: n/a)\n(Current directory: {root})\nbash-$"
    return ToolCall(f"c{i}", "bash", json.dumps({"command": command})), Event(
        "tool", content=shown + footer, tool_call_id=f"c{i}"
    )


def absolute_turns(root: str = ROOT) -> list[tuple[ToolCall, Event]]:
    return [
        swe(0, f"python3 {root}/show.py", f"-1 {root}/calc/ops.py\n", root),
        swe(1, f"cd {root} && pwd && ls calc", f"{root}\n__init__.py\nops.py\n", root),
        swe(2, "pwd", f"{root}\n", root),
        swe(3, f"sed -i 's/a - b/a + b/' {root}/calc/ops.py", "", root),
        swe(4, f"python3 {root}/show.py", f"5 {root}/calc/ops.py\n", root),
    ]


def swe_agent_episode(turns, diff=None):
    episode = episode_of(turns, diff)
    return dataclasses.replace(episode, source_format="swe-agent"), dataclasses.replace(
        environment(), s0_files=dict(S0)
    )


def test_absolute_root_paths_replay_verified_and_a_forged_output_drifts():
    fixed = {**S0, "calc/ops.py": CALC_S0["calc/ops.py"].replace("a - b", "a + b")}
    episode, env = swe_agent_episode(absolute_turns(), unified_diff(S0, fixed))
    result = replay_episode(episode, env)
    assert (result.observations, result.drift_turns, result.final_files) == ("verified", [], fixed)
    assert result.data()["recorded_root"] == "mounted"
    (verdict,) = verify([episode], env)
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")

    forged = absolute_turns()
    forged[4] = swe(4, f"python3 {ROOT}/show.py", f"6 {ROOT}/calc/ops.py\n")
    episode, env = swe_agent_episode(forged)
    assert replay_episode(episode, env).drift_turns == [10]

    elsewhere = absolute_turns()
    elsewhere[2] = swe(2, "pwd", "/workspace\n")  # the sandbox's own path is not the agent's
    episode, env = swe_agent_episode(elsewhere)
    assert replay_episode(episode, env).drift_turns == [6]


def test_a_root_shadowing_a_system_folder_is_refused_and_the_log_replays_as_before():
    root = "/usr/src/app"
    episode, env = swe_agent_episode(absolute_turns(root))
    result = replay_episode(episode, env)
    assert result.data()["recorded_root"] == "system_directory"
    assert root not in json.dumps(result.data()), "the refusal keeps no record text"
    # relative commands print the workspace's path, written as the recorded root; absolute ones
    # name a path the sandbox does not have (its /usr stays the read-only system's)
    assert result.drift_turns == [2, 4, 8, 10]
    assert result.final_files == S0

    episode, env = swe_agent_episode(
        [swe(0, "pwd && python3 show.py", "/usr/src/app\n-1 /usr/src/app/calc/ops.py\n", root)]
    )
    assert replay_episode(episode, env).observations == "verified"


def mini_swe_agent_log(tmp_path, cwd: str, commands: list[tuple[str, str]]):
    """A mini-swe-agent 1.x ``traj.json`` with its saved configuration, ingested."""
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "add() subtracts; fix it."},
    ]
    for command, output in commands:
        messages.append(
            {"role": "assistant", "content": f"THOUGHT: go\n\n```mswea_bash_command\n{command}\n```"}
        )
        messages.append(
            {"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{output}</output>"}
        )
    info = {"exit_status": "Submitted", "config": {"environment": {"cwd": cwd, "timeout": 60}}}
    log = tmp_path / "calc-env.traj.json"
    document = {
        "info": info,
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "calc-env",
    }
    log.write_text(json.dumps(document), encoding="utf-8")
    (episode,) = ingest_paths([log]).episodes
    return episode


def test_a_mini_swe_agent_cwd_is_the_root_its_commands_see(tmp_path):
    commands = [("cd /testbed && pwd && python3 show.py", "/testbed\n-1 /testbed/calc/ops.py\n")]
    episode = mini_swe_agent_log(tmp_path, "/testbed", commands)
    assert repository_root(episode) == "/testbed"
    env = dataclasses.replace(environment(), s0_files=dict(S0))
    result = replay_episode(episode, env)
    assert (result.observations, result.data()["recorded_root"]) == ("verified", "mounted")

    default = mini_swe_agent_log(tmp_path, "/", [("pwd", "/\n")])  # DockerEnvironment's default
    result = replay_episode(default, env)
    assert (result.drift_turns, result.data()["recorded_root"]) == ([2], "system_directory")

    turns = [mini("cd /testbed && pwd", "/testbed\n")]
    native = episode_of(turns, None)
    assert repository_root(native) is None, "no recorded root: none is guessed"
    assert replay_episode(native, env).drift_turns == [2]


def openhands_log(tmp_path, root: str | None, commands: list[tuple[str, str]], patch: str | None = None):
    """An OpenHands evaluation output line (event stream): ``execute_bash`` actions, each answered
    by a ``run`` observation whose ``extras.metadata`` records the exit code and, as OpenHands'
    runtime does, the shell's working directory after the command; ingested."""
    history: list[dict] = [{"id": 0, "source": "user", "action": "message", "args": {"content": "fix add()"}}]
    for i, (command, output) in enumerate(commands):
        call = {"id": f"toolu_{i}", "type": "function"}
        call["function"] = {"name": "execute_bash", "arguments": json.dumps({"command": command})}
        response = {"id": f"resp_{i}", "choices": [{"message": {"tool_calls": [call]}}]}
        metadata = {"function_name": "execute_bash", "tool_call_id": f"toolu_{i}", "model_response": response}
        args = {"command": command}
        history.append(
            {
                "id": 2 * i + 1,
                "source": "agent",
                "action": "run",
                "args": args,
                "tool_call_metadata": metadata,
            }
        )
        recorded = {"exit_code": 0, "working_dir": root, "py_interpreter_path": None}
        history.append(
            {
                "id": 2 * i + 2,
                "cause": 2 * i + 1,
                "observation": "run",
                "content": output,
                "extras": {"command": command, "metadata": recorded, "hidden": False},
                "tool_call_metadata": metadata,
            }
        )
    line = {"instance_id": "calc-env", "instruction": "fix add()", "history": history}
    line["test_result"] = {"git_patch": patch} if patch is not None else {}
    log = tmp_path / "output.jsonl"
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (episode,) = ingest_paths([log]).episodes
    return episode


def openhands_commands(root: str = ROOT) -> list[tuple[str, str]]:
    return [
        (f"python3 {root}/show.py", f"-1 {root}/calc/ops.py\n"),
        (f"cd {root} && pwd && ls calc", f"{root}\n__init__.py\nops.py\n"),
        (f"sed -i 's/a - b/a + b/' {root}/calc/ops.py", ""),
        (f"python3 {root}/show.py", f"5 {root}/calc/ops.py\n"),
    ]


def test_an_openhands_working_dir_is_the_root_its_commands_see(tmp_path):
    env = dataclasses.replace(environment(), s0_files=dict(S0))
    fixed = {**S0, "calc/ops.py": CALC_S0["calc/ops.py"].replace("a - b", "a + b")}
    episode = openhands_log(tmp_path, ROOT, openhands_commands(), unified_diff(S0, fixed))
    assert repository_root(episode) == ROOT
    result = replay_episode(episode, env)
    assert (result.observations, result.drift_turns, result.final_files) == ("verified", [], fixed)
    assert result.data()["recorded_root"] == "mounted"
    (verdict,) = verify([episode], env)
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")

    forged = openhands_commands()
    forged[3] = (forged[3][0], f"6 {ROOT}/calc/ops.py\n")
    episode = openhands_log(tmp_path, ROOT, forged)
    assert replay_episode(episode, env).drift_turns == [7]

    unrecorded = openhands_log(tmp_path, None, openhands_commands())
    assert repository_root(unrecorded) is None, "no working_dir recorded: none is guessed"
    assert replay_episode(unrecorded, env).drift_turns == [1, 3, 5, 7]


def test_an_openhands_root_shadowing_a_system_folder_is_refused(tmp_path):
    root = "/usr/src/app"
    env = dataclasses.replace(environment(), s0_files=dict(S0))
    episode = openhands_log(tmp_path, root, openhands_commands(root))
    result = replay_episode(episode, env)
    assert result.data()["recorded_root"] == "system_directory"
    assert root not in json.dumps(result.data()), "the refusal keeps no record text"
    assert result.drift_turns == [1, 3, 5, 7] and result.final_files == S0

    episode = openhands_log(tmp_path, root, [("pwd && python3 show.py", f"{root}\n-1 {root}/calc/ops.py\n")])
    assert replay_episode(episode, env).observations == "verified"


def test_an_openhands_root_inside_the_workspace_folder_holds_s0_there(tmp_path):
    """OpenHands' evaluation runtime keeps the repository at ``/workspace/<repo>``, inside the
    folder the sandbox mounts the workspace at: S0 is placed there instead of a second bind, the
    commands start there, and a file written beside the repository stays out of the final state."""
    root = "/workspace/calc__repo"
    env = dataclasses.replace(environment(), s0_files=dict(S0))
    fixed = {**S0, "calc/ops.py": CALC_S0["calc/ops.py"].replace("a - b", "a + b")}
    beside = [("pwd && echo kept > /workspace/notes.txt && cat ../notes.txt", f"{root}\nkept\n")]
    episode = openhands_log(tmp_path, root, openhands_commands(root) + beside, unified_diff(S0, fixed))
    result = replay_episode(episode, env)
    assert (result.observations, result.drift_turns, result.final_files) == ("verified", [], fixed)
    assert result.data()["recorded_root"] == "inside_workspace"
    (verdict,) = verify([episode], env)
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")

    forged = openhands_commands(root)
    forged[1] = (forged[1][0], f"{root}\n__init__.py\nops.py\nsecret.py\n")
    assert replay_episode(openhands_log(tmp_path, root, forged), env).drift_turns == [3]


def test_editor_paths_under_a_root_inside_the_workspace_folder_edit_s0():
    root = "/workspace/calc__repo"
    edit = {"command": "str_replace", "path": f"{root}/calc/ops.py", "old_str": "a - b", "new_str": "a + b"}
    turns = [
        (
            ToolCall("e0", "str_replace_editor", json.dumps(edit)),
            Event("tool", content="edited", tool_call_id="e0", status="ok"),
        ),
        bash(1, "python3 show.py", f"5 {root}/calc/ops.py\n"),
    ]
    episode = dataclasses.replace(
        episode_of(turns, None), source_format="openhands", extra_json=json.dumps({"working_dir": root})
    )
    result = replay_episode(episode, dataclasses.replace(environment(), s0_files=dict(S0)))
    assert (result.drift_turns, result.unchecked_turns) == ([], [2])
    assert result.final_files == {**S0, "calc/ops.py": CALC_S0["calc/ops.py"].replace("a - b", "a + b")}
