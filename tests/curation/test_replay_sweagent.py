"""Replay of SWE-agent's pre-1.0 commands (``open``, ``goto``, ``scroll_*``, ``create``,
``edit A:B`` ... ``end_of_edit``, ``find_file``, ``search_*``) in the sandbox, and the recorded
diff's comparison leaving out what S0's ``.gitignore`` ignores.

Every recorded observation here is written by hand from SWE-agent's own command definitions, not
produced by the replay: a replay that renders or edits otherwise fails these tests."""

from __future__ import annotations

import dataclasses
import json

from _verify_factory import CALC_S0, fixed_files
from test_replay import TASK, environment, episode_of, ingest_one, replay_data, verify

from trajectory_platform.curation.verify.replay import replay_episode
from trajectory_platform.gym.sandbox import unified_diff
from trajectory_platform.traces.record import Event, ToolCall

ROOT = "/calc__repo"
UPDATED = (
    "File updated. Please review the changes and make sure they are correct (correct indentation, "
    "no duplicate lines, etc). Edit the file again if necessary."
)
OPS_WINDOW = (
    f"[File: {ROOT}/calc/ops.py (6 lines total)]\n"
    "1:def add(a, b):\n2:    return a - b\n3:\n4:\n5:def mul(a, b):\n6:    return a * b\n"
)
BIG = "".join(f"line {i}\n" for i in range(1, 301))


def footer(open_file: str | None) -> str:
    return f"\n(Open file: {open_file or 'n/a'})\n(Current directory: {ROOT})\nbash-$"


def step(action: str, output: str, open_file: str | None = None) -> tuple[ToolCall, Event]:
    """A pre-1.0 turn as the SWE-agent adapter records it: a text action named after its first
    word, answered by the output with SWE-agent's state footer."""
    shown = output or "Your command ran successfully and did not produce any output."
    name = action.split()[0]
    return ToolCall(None, name, action), Event("tool", content=shown + footer(open_file))


def window(path: str, lines: range, total: int, text: str = BIG) -> str:
    """The viewer's rendering of ``lines`` of a file of ``total`` lines."""
    body = text.split("\n")
    shown = "".join(f"{i}:{body[i - 1]}\n" for i in lines)
    above = f"({lines.start - 1} more lines above)\n" if lines.start > 1 else ""
    below = f"({total - lines.stop + 1} more lines below)\n" if lines.stop <= total else ""
    return f"[File: {ROOT}/{path} ({total} lines total)]\n{above}{shown}{below}"


def replayed(turns, s0=None, diff=None):
    env = environment() if s0 is None else dataclasses.replace(environment(), s0_files=s0)
    return replay_episode(episode_of(turns, diff), env)


def test_edit_replaces_lines_a_to_b_inclusive_of_the_open_file():
    ops = f"{ROOT}/calc/ops.py"
    edited = "def add(a, b):\n    total = a + b\n    return total\n\n\ndef mul(a, b):\n    return a * b\n"
    rendering = window("calc/ops.py", range(1, 8), 7, edited) + UPDATED
    turns = [
        step("open calc/ops.py\n", OPS_WINDOW, ops),
        step("edit 2:2\n    total = a + b\n    return total\nend_of_edit\n", rendering, ops),
    ]
    result = replayed(turns)
    assert result.final_files is not None and result.final_files["calc/ops.py"] == edited
    assert (result.observations, result.drift_turns, result.unsupported_turns) == ("verified", [], [])

    absolute = step(f"open {ops}\n", OPS_WINDOW, ops)
    replaced = [absolute, step("edit 1:3\npass\nend_of_edit\n", "", ops)]
    result = replayed(replaced)
    assert result.final_files["calc/ops.py"] == "pass\n\ndef mul(a, b):\n    return a * b\n"
    assert result.drift_turns == [4], "a path under the recorded root opens; edit's output is not empty"


def test_create_makes_a_file_and_opens_it_and_open_sets_the_file_edit_changes():
    created = f"[File: {ROOT}/reproduce.py (1 lines total)]\n1:\n"
    turns = [
        step("create reproduce.py\n", created, f"{ROOT}/reproduce.py"),
        step("open README.md\n", f"[File: {ROOT}/README.md (1 lines total)]\n1:calc\n", f"{ROOT}/README.md"),
        step("edit 1:1\n# calc\nend_of_edit\n", window("README.md", range(1, 2), 1, "# calc") + UPDATED),
        step("open reproduce.py\n", created, f"{ROOT}/reproduce.py"),
        step(
            "edit 1:1\nprint(1)\nend_of_edit\n", window("reproduce.py", range(1, 2), 1, "print(1)") + UPDATED
        ),
    ]
    result = replayed(turns)
    assert result.final_files == {**CALC_S0, "README.md": "# calc\n", "reproduce.py": "print(1)\n"}
    assert result.observations == "verified"

    exists = step(
        "create README.md\n",
        "Error: File 'README.md' already exists.\n" + window("README.md", range(1, 2), 1, "calc"),
    )
    assert replayed([exists]).observations == "verified"


def test_goto_and_scrolling_move_the_window_as_swe_agent_does():
    path = f"{ROOT}/big.txt"
    turns = [
        step("open big.txt\n", window("big.txt", range(1, 101), 300), path),
        step("goto 150\n", window("big.txt", range(135, 235), 300), path),
        step("scroll_down\n", window("big.txt", range(201, 301), 300), path),
        step("scroll_up\n", window("big.txt", range(103, 203), 300), path),
        step("open big.txt 290\n", window("big.txt", range(201, 301), 300), path),
        step("goto 400\n", "Error: <line> must be less than or equal to 300", path),
    ]
    result = replayed(turns, s0={**CALC_S0, "big.txt": BIG})
    assert (result.observations, result.drift_turns) == ("verified", [])
    turns[2] = step("scroll_down\n", window("big.txt", range(200, 300), 300), path)
    assert replayed(turns, s0={**CALC_S0, "big.txt": BIG}).drift_turns == [6]


def test_the_search_commands_reproduce_their_listings():
    turns = [
        step('find_file "ops.py"\n', f'Found 1 matches for "ops.py" in {ROOT}:\n{ROOT}/calc/ops.py'),
        step(
            'search_dir "def "\n',
            f'Found 3 matches for "def " in {ROOT}:\n{ROOT}/calc/ops.py (2 matches)\n'
            f'{ROOT}/tests/test_ops.py (1 matches)\nEnd of matches for "def " in {ROOT}',
        ),
        step(
            "search_file return calc/ops.py\n",
            f'Found 2 matches for "return" in {ROOT}/calc/ops.py:\nLine 2:    return a - b\n'
            f'Line 6:    return a * b\nEnd of matches for "return" in {ROOT}/calc/ops.py',
        ),
        step("search_file nothing\n", "No file open. Use the open command first."),
    ]
    assert replayed(turns).observations == "verified"
    turns[0] = step('find_file "ops.py"\n', f'Found 1 matches for "ops.py" in {ROOT}:\n{ROOT}/ops.py')
    assert replayed(turns).drift_turns == [2]


def test_an_edit_that_breaks_python_syntax_is_rejected_and_the_file_kept():
    ops = f"{ROOT}/calc/ops.py"
    rejection = (
        "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry."
    )
    turns = [
        step("open calc/ops.py\n", OPS_WINDOW, ops),
        step("edit 2:2\n    return (a + b\nend_of_edit\n", rejection, ops),
    ]
    result = replayed(turns)
    assert result.final_files == CALC_S0
    assert result.drift_turns == [] and result.unchecked_turns == [4], "compared by outcome only"
    claimed = (
        window("calc/ops.py", range(1, 7), 6, CALC_S0["calc/ops.py"].replace("a - b", "(a + b")) + UPDATED
    )
    turns[1] = step("edit 2:2\n    return (a + b\nend_of_edit\n", claimed, ops)
    drifted = replayed(turns)
    assert drifted.drift_turns == [4]
    assert (drifted.drift[0].recorded_status, drifted.drift[0].replayed_status) == ("ok", "error")


def test_commands_replay_cannot_redo_stay_unsupported_and_are_named():
    turns = [
        step("open calc/ops.py\n", OPS_WINDOW),
        step("insert 2\n    pass\nend_of_insert\n", "inserted"),
        step("set_cursors 1 2\n", "cursors set"),
    ]
    (verdict,) = verify([episode_of(turns, None)], environment())
    assert (verdict.sink, verdict.reason) == ("unverifiable", "replay_unsupported_call")
    assert replay_data(verdict)["unsupported_turns"] == [4, 6], (
        "an insert whose text is no bash word (a newline outside quotes) and 0.x cursor mode"
    )
    detail = verdict.stage("dynamic").findings[0].detail
    assert "insert" in detail and "set_cursors" in detail and "open" not in detail


def swe_agent_pre1_traj(path, actions: list[tuple[str, str, str | None]], submission: str | None) -> None:
    """A pre-1.0 SWE-agent ``.traj`` shaped as the real ones (``history`` of assistant ``action``
    lines and user observations with the state footer, ``trajectory`` steps, ``info``)."""
    history: list[dict] = [
        {"role": "system", "content": "SETTING: You are an autonomous programmer...", "agent": "primary"},
        {"role": "user", "content": "ISSUE:\nadd() subtracts; fix it.", "agent": "primary"},
    ]
    steps = []
    for action, output, open_file in actions:
        thought = f"Next: {action.split()[0]}."
        history.append(
            {
                "role": "assistant",
                "content": f"{thought}\n\n```\n{action}```",
                "thought": thought,
                "action": action,
            }
        )
        shown = output or "Your command ran successfully and did not produce any output."
        observation = f"{shown}\n(Open file: {open_file or 'n/a'})\n(Current directory: {ROOT})\nbash-$"
        history.append({"role": "user", "content": observation, "agent": "primary"})
        state = json.dumps({"open_file": open_file or "n/a", "working_dir": ROOT})
        steps.append(
            {"action": action, "observation": shown, "response": thought, "state": state, "thought": thought}
        )
    history.append({"role": "assistant", "content": "```\nsubmit\n```", "thought": "", "action": "submit\n"})
    info = {"exit_status": "submitted", "submission": submission}
    path.write_text(
        json.dumps({"environment": "swe_main", "trajectory": steps, "history": history, "info": info})
    )


def test_a_pre_1_0_swe_agent_episode_replays_end_to_end_and_the_oracle_admits_it(tmp_path):
    ops = f"{ROOT}/calc/ops.py"
    fixed = fixed_files()
    reproduce = f"{ROOT}/reproduce.py"
    actions = [
        ('find_file "ops.py"\n', f'Found 1 matches for "ops.py" in {ROOT}:\n{ROOT}/calc/ops.py', None),
        ("open calc/ops.py\n", OPS_WINDOW.rstrip("\n"), ops),
        (
            "edit 2:2\n    return a + b\nend_of_edit\n",
            window("calc/ops.py", range(1, 7), 6, fixed["calc/ops.py"]) + UPDATED,
            ops,
        ),
        ("create reproduce.py\n", f"[File: {reproduce} (1 lines total)]\n1:", reproduce),
        (
            "edit 1:1\nfrom calc.ops import add\nprint(add(2, 3))\nend_of_edit\n",
            window("reproduce.py", range(1, 3), 2, "from calc.ops import add\nprint(add(2, 3))") + UPDATED,
            reproduce,
        ),
        ("python3 reproduce.py\n", "5", reproduce),
        ("rm reproduce.py\n", "", reproduce),
    ]
    traj = tmp_path / f"{TASK}.traj"
    swe_agent_pre1_traj(traj, actions, unified_diff(CALC_S0, fixed))
    episode = ingest_one(traj)
    result = replay_episode(episode, environment())
    assert result.final_files == fixed and result.turns_replayed == 7
    (verdict,) = verify([episode], environment())
    assert (verdict.sink, verdict.reason) == ("admitted", "passed_stages_1_to_4")
    assert replay_data(verdict) == {
        "mode": "shell",
        "observations": "verified",
        "turns_replayed": 7,
        "drift_turns": [],
        "recorded_root": "mounted",
        "verified_answers": [3, 5, 7, 9, 11, 13, 15],
        "writes_measured": True,
    }

    wrong = list(actions)
    wrong[2] = ("edit 2:2\n    return a * b\nend_of_edit\n", actions[2][1], ops)
    swe_agent_pre1_traj(traj, wrong, unified_diff(CALC_S0, fixed))
    (tampered,) = verify([ingest_one(traj)], environment())
    assert tampered.reason == "replay_drift", "the window it printed shows what the edit really did"


def test_files_the_s0_gitignore_ignores_are_left_out_of_the_recorded_diff_comparison():
    ignores = {".gitignore": "*.log\nbuild/\n!keep.log\n", "calc/.gitignore": "cache.txt\n"}
    env = dataclasses.replace(environment(), s0_files={**CALC_S0, **ignores})
    fixed = {**env.s0_files, "calc/ops.py": fixed_files()["calc/ops.py"]}
    fix = "sed -i 's/a - b/a + b/' calc/ops.py"
    noise = "echo x > run.log; mkdir -p build && echo y > build/out.txt; echo z > calc/cache.txt"
    bash = ToolCall("c0", "execute_bash", json.dumps({"command": f"{fix}; {noise}"}))
    turns = [(bash, Event("tool", content="", tool_call_id="c0", status="ok", exit_code=0))]
    git_made = unified_diff(env.s0_files, fixed)
    (verdict,) = verify([episode_of(turns, git_made)], env)
    assert verdict.sink == "admitted", "git leaves ignored files out of the diff it makes"

    kept = ToolCall("c0", "execute_bash", json.dumps({"command": f"{fix}; {noise}; echo k > keep.log"}))
    turns = [(kept, Event("tool", content="", tool_call_id="c0", status="ok", exit_code=0))]
    (verdict,) = verify([episode_of(turns, git_made)], env)
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")
    assert verdict.stage("dynamic").findings[0].path == "keep.log", "a negated pattern is not ignored"

    # an ignored file the diff adds and the commands never wrote: the oracle would judge it
    planted = unified_diff(env.s0_files, {**fixed, "build/planted.py": "X = 1\n"})
    turns = [(bash, Event("tool", content="", tool_call_id="c0", status="ok", exit_code=0))]
    (verdict,) = verify([episode_of(turns, planted)], env)
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")


def test_without_a_recorded_diff_the_replayed_final_state_goes_through_the_static_stage():
    """Stage 2 judged the (empty) recorded diff before replay; the replayed state it never saw
    must meet the same static invariants a recorded diff would."""
    shelling = 'import os\n\n\ndef clean():\n    os.system("true")\n'
    escaped = shelling.replace("\n", "\\n")
    command = f"sed -i 's/a - b/a + b/' calc/ops.py && printf '{escaped}' > calc/tidy.py"
    call = ToolCall("c0", "execute_bash", json.dumps({"command": command}))
    turns = [(call, Event("tool", content="", tool_call_id="c0", status="ok", exit_code=0))]
    post = {**fixed_files(), "calc/tidy.py": shelling}
    (recorded,) = verify([episode_of(turns, unified_diff(CALC_S0, post))], environment())
    assert (recorded.sink, recorded.reason) == ("static_reject", "shell_exec")
    (replayed_only,) = verify([episode_of(turns, None)], environment())
    assert (replayed_only.sink, replayed_only.reason) == ("static_reject", "shell_exec")
    (static,) = [s for s in replayed_only.stages if s.stage == "static"]
    assert static.findings[0].path == "calc/tidy.py", "the replayed state's stage 2, not the empty diff's"
