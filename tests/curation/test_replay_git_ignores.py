"""The replayed final state as git sees it: files git ignores by rules written during the run
(``.pytest_cache/.gitignore``, the agent's own) are left out as the agent's ``git diff`` left them
out, never a change to a file S0 holds, and never in the state judged when the log has no diff."""

from __future__ import annotations

from test_replay import CALC_S0, FIX, FIXED, OPS, bash, environment, episode_of, verify

from trajectory_platform.curation.verify.replay import final_ignored
from trajectory_platform.gym.sandbox import unified_diff


def test_running_pytest_in_the_replay_leaves_its_cache_out_as_git_does():
    """pytest writes ``.pytest_cache/`` holding a ``.gitignore`` of ``*``: git never lists it, so
    the agent's diff never holds it (red team, 2026-12-06: every such log was tamper)."""
    run = "python3 -m pytest -q tests 2>&1 | tail -1"
    turns = [bash(0, "cat calc/ops.py", OPS), bash(1, FIX, ""), bash(2, run, "1 passed in 0.01s\n")]
    (with_diff, without) = verify(
        [episode_of(turns, unified_diff(CALC_S0, FIXED), "d"), episode_of(turns, None, "n")], environment()
    )
    assert (with_diff.sink, with_diff.reason) == ("admitted", "passed_stages_1_to_4")
    assert (without.sink, without.reason) == ("admitted", "passed_stages_1_to_4")


def test_a_rule_the_run_writes_hides_new_files_only_never_a_change_to_a_file_s0_holds():
    bad = "sed -i 's/a - b/a * b/' calc/ops.py"
    claimed = unified_diff(CALC_S0, FIXED)
    hides = [
        "printf 'calc/ops.py\\n' > calc/.gitignore",
        "git rm -q --cached calc/ops.py && echo calc/ops.py >> .git/info/exclude",
    ]
    episodes = [episode_of([bash(0, f"{bad} && {h}", "")], claimed, f"e{i}") for i, h in enumerate(hides)]
    for verdict in verify(episodes, environment()):
        assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_state_mismatch")


def test_without_a_diff_a_module_git_ignores_is_not_in_the_state_the_oracle_judges():
    """A fix put in an ignored file passed when the log left its diff out, and failed with git's
    diff (red team, 2026-12-06): both now judge what git would ship."""
    commands = [
        "mkdir -p calc/impl && printf '*\\n' > calc/impl/.gitignore"
        " && printf 'def add(a, b):\\n    return a + b\\n' > calc/impl/__init__.py",
        "printf 'from calc.impl import add\\n\\n\\ndef mul(a, b):\\n    return a * b\\n' > calc/ops.py",
    ]
    (verdict,) = verify([episode_of([bash(i, c, "") for i, c in enumerate(commands)], None)], environment())
    assert (verdict.sink, verdict.reason) == ("hard_negative", "oracle_failed")


def test_final_ignored_asks_s0s_rules_for_s0s_files_and_git_for_new_ones():
    s0 = {".gitignore": "*.log\n", "calc/ops.py": "", "old.log": ""}
    ignored = final_ignored(s0, {".pytest_cache/v/cache/nodeids", "calc/ops.py"})
    assert ignored(".pytest_cache/v/cache/nodeids") and ignored("old.log")
    assert not ignored("calc/ops.py"), "a file S0 holds is tracked: no rule of the run hides it"
    assert not ignored("new.log"), "git's answer decides for a new file"
    assert final_ignored(s0, None)("new.log"), "without git's answer, S0's rules"
