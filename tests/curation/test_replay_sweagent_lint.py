"""SWE-agent's ``edit`` linter in replay (flake8's selection, errors compared before and after the
edit), the viewer's size read from the log, and ``python`` in the sandbox.

Every expected text is written by hand from SWE-agent's ``edit_linting.sh`` / ``_split_string.py``
and pyflakes' / pycodestyle's messages, not produced by the code under test."""

from __future__ import annotations

import dataclasses
import json

from _verify_factory import CALC_S0
from test_replay import environment, ingest_one
from test_replay_sweagent import BIG, ROOT, UPDATED, replayed, step, swe_agent_pre1_traj, window

from trajectory_platform.curation.verify.edit_lint import LintError, introduced, lint
from trajectory_platform.curation.verify.replay import replay_episode
from trajectory_platform.curation.verify.sweagent_commands import (
    Setting,
    WindowState,
    command_script,
    shown,
    split_report,
)
from trajectory_platform.gym.shell import run_commands
from trajectory_platform.traces.ingest import ingest_paths

REFUSED = (
    "Your proposed edit has introduced new syntax error(s). Please read this error message carefully "
    "and then retry editing the file."
)
NOT_APPLIED = (
    "Your changes have NOT been applied. Please fix your edit command and try again.\n"
    "You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.\n"
    "DO NOT re-run the same failed edit command. Running it again will lead to the same error."
)
RULE = "-" * 49
LEGACY = "def f():\n    return 1\n\n\ndef g():\n    return missing\n"
BIG_PY = "".join(f"v{i} = {i}\n" for i in range(1, 301))


def test_lint_reports_swe_agents_selection_in_flake8s_words():
    source = 'import os\n__all__ = ["gone"]\n\n\ndef f(a, a):\n  return unquote(a)\n'
    assert [e.problem for e in lint(source)] == [
        "F822 undefined name 'gone' in __all__",
        "F831 duplicate argument 'a' in function definition",
        "E111 indentation is not a multiple of 4",
        "F821 undefined name 'unquote'",
    ]
    assert [e.problem for e in lint(source + "def h(:\n")] == ["E999 SyntaxError: invalid syntax"]
    assert lint("import os\nprint(os.sep, len([]))\n") == []


def test_only_errors_the_edit_introduced_count_with_swe_agents_line_bookkeeping():
    above, inside, below = (
        LintError(n, 1, f"F821 undefined name '{v}'") for n, v in ((2, "a"), (5, "c"), (8, "b"))
    )
    after = [
        above,
        LintError(5, 1, inside.problem),
        LintError(8, 1, below.problem),
        LintError(9, 1, below.problem),
    ]
    # lines 4..5 became 3 lines: the error below moved from 8 to 9; the one inside is never forgiven
    assert introduced([above, inside, below], after, 4, 5, 3) == after[1:3]


def test_an_undefined_name_edit_is_refused_a_pre_existing_one_is_not_and_python_runs():
    legacy, ops = f"{ROOT}/calc/legacy.py", f"{ROOT}/calc/ops.py"
    edited = LEGACY.replace("    return 1\n", "    x = 1\n    return x\n")
    turns = [
        step("open calc/legacy.py\n", window("calc/legacy.py", range(1, 7), 6, LEGACY), legacy),
        step(
            "edit 2:2\n    x = 1\n    return x\nend_of_edit\n",
            window("calc/legacy.py", range(1, 8), 7, edited) + UPDATED,
            legacy,
        ),
        step("open calc/ops.py\n", window("calc/ops.py", range(1, 7), 6, CALC_S0["calc/ops.py"]), ops),
        step("edit 2:2\n    return a + total\nend_of_edit\n", f"{REFUSED}\n\nERRORS:\n- F821 ...", ops),
        step("python -c 'import calc.legacy as m; print(m.f())'\n", "1", ops),
    ]
    s0 = {**CALC_S0, "calc/legacy.py": LEGACY}
    result = replayed(turns, s0=s0)
    assert result.final_files == {**s0, "calc/legacy.py": edited}, "the refused edit left ops.py as it was"
    assert (result.drift_turns, result.unchecked_turns) == ([], [8]), "a refusal is compared by outcome"

    accepted = window("calc/ops.py", range(1, 7), 6, CALC_S0["calc/ops.py"].replace("a - b", "a + total"))
    turns[3] = step("edit 2:2\n    return a + total\nend_of_edit\n", accepted + UPDATED, ops)
    drifted = replayed(turns, s0=s0)
    assert drifted.drift_turns == [8]
    assert (drifted.drift[0].recorded_status, drifted.drift[0].replayed_status) == ("ok", "error")


def test_the_refusal_prints_swe_agents_text_and_windows_and_keeps_the_file_and_the_view():
    setting = Setting("f" * 32, ROOT)
    state = WindowState("big.py", 184)
    script = command_script(
        "edit 150:150\nv150 = nope\nend_of_edit\n", state, setting, "- F821 undefined name 'nope'"
    )
    run = run_commands({"big.py": BIG_PY}, [script])
    report = split_report(run.results[0].output, setting.marker, state)
    lines = BIG_PY.split("\n")
    would = "".join(f"{i}:{'v150 = nope' if i == 150 else lines[i - 1]}\n" for i in range(144, 155))
    original = "".join(f"{i}:{lines[i - 1]}\n" for i in range(145, 156))
    header = f"[File: {ROOT}/big.py (300 lines total)]\n"
    assert shown(report.text, report.workspace, ROOT) == (
        f"{REFUSED}\n\nERRORS:\n- F821 undefined name 'nope'\n\n"
        f"This is how your edit would have looked if applied\n{RULE}\n"
        f"{header}(143 more lines above)\n{would}(146 more lines below)\n{RULE}\n\n"
        f"This is the original code before your edit\n{RULE}\n"
        f"{header}(144 more lines above)\n{original}(145 more lines below)\n{RULE}\n{NOT_APPLIED}\n"
    )
    assert run.final_files == {"big.py": BIG_PY} and report.state == WindowState("big.py", 184)
    assert report.edited == (150, 150, 1)


def _with_window(path, window_size: int | str | None) -> None:
    """The ``.traj`` at ``path`` with a 1.0-style ``replay_config`` holding the viewer's size."""
    document = json.loads(path.read_text())
    variables = {} if window_size is None else {"WINDOW": window_size, "OVERLAP": 2}
    document["replay_config"] = json.dumps({"agent": {"tools": {"env_variables": variables}}})
    path.write_text(json.dumps(document))


def test_the_window_the_log_recorded_sizes_the_replayed_viewer(tmp_path):
    big = f"{ROOT}/big.txt"
    actions = [
        ("open big.txt\n", window("big.txt", range(1, 21), 300).rstrip("\n"), big),
        ("scroll_down\n", window("big.txt", range(19, 39), 300).rstrip("\n"), big),
        ("goto 100\n", window("big.txt", range(98, 118), 300).rstrip("\n"), big),
    ]
    env = dataclasses.replace(environment(), s0_files={**CALC_S0, "big.txt": BIG})
    traj = tmp_path / "calc-env.traj"
    swe_agent_pre1_traj(traj, actions, None)
    _with_window(traj, 20)
    result = replay_episode(ingest_one(traj), env)
    assert (result.observations, result.drift_turns) == ("verified", [])

    _with_window(traj, None)
    assert replay_episode(ingest_one(traj), env).drift_turns == [2, 4, 6], "SWE-agent's default is 100"

    _with_window(traj, "wide")
    (reject,) = ingest_paths([traj]).rejects
    assert reject.reason == "wrong type" and "env_variables.WINDOW" in reject.detail
