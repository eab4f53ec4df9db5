"""A recovery is a fault the episode then resolves (curation table 4: "must encounter verified
fault, resolve it autonomously"), not any non-zero exit (red team, 2026-12-06):

- a program whose non-zero exit is its answer (``grep`` finding nothing, ``test`` false, ``diff``
  finding a difference) drew no error;
- an error nothing later resolves (no later successful write, no later success of the program or
  tool that failed) is no recovery: the episode is ``inefficient``, ``error_unresolved``;
- a recorded error no replay verified (an environment without a replay spec) is no fault either:
  ``inefficient``, ``error_status_unverified``; its turn stays context.
"""

from __future__ import annotations

from _verify_factory import call as tool
from _verify_factory import fixed_files, make_episode
from test_replay import CALC_S0, FIX, FIXED, bash, environment, episode_of, honest_turns, verify
from test_replay_coding_clis import CLAUDE_TURNS, claude_session

from trajectory_platform.curation.verify.roles import label_admitted
from trajectory_platform.gym.sandbox import unified_diff

DIFF = unified_diff(CALC_S0, FIXED)
MIN_CALLS = 3
LS_ERROR = "ls: cannot access 'NOTES.md': No such file or directory\n"
FAILING = "python3 -m pytest -q"


def shell(command: str, exit_code: int = 0, output: str = "") -> tuple[list, list]:
    return [tool("bash", command=command)], [("ok" if exit_code == 0 else "error", output, exit_code)]


def label(*turns: tuple[list, list], verified: bool = True):
    return label_admitted(make_episode("e", list(turns), fixed_files()), MIN_CALLS, verified)


def test_a_programs_answer_by_exit_status_is_no_error():
    for probe in (
        "grep -c nothing-here calc/ops.py",
        "cd calc && test -f NOTES.md",
        "diff a b",
        "git grep x",
    ):
        found = label(shell("cat calc/ops.py"), shell(FIX), shell(probe, exit_code=1))
        assert (found.role, found.t_div, found.turn_reasons[6]) == ("pristine", None, "action"), probe
    errored = label(shell("cat calc/ops.py"), shell(FIX), shell("grep -r x nowhere", exit_code=2))
    assert (errored.role, errored.t_div_reason) == ("inefficient", "error_unresolved")


def test_an_error_nothing_resolves_is_not_a_recovery():
    after_the_fix = label(shell("cat calc/ops.py"), shell(FIX), shell("ls NOTES.md", 2, LS_ERROR))
    assert (after_the_fix.role, after_the_fix.t_div, after_the_fix.t_rec) == ("inefficient", None, None)
    assert after_the_fix.t_div_reason == "error_unresolved"
    assert after_the_fix.turn_reasons[6] == "erroneous_proposal" and 6 not in after_the_fix.target_turns
    then_anything = label(shell("cat calc/ops.py"), shell(FIX), shell("ls NOTES.md", 2), shell("echo done"))
    assert then_anything.role == "inefficient"


def test_a_fault_resolved_by_a_write_or_by_the_same_program_succeeding_is_a_recovery():
    repaired = label(shell("cat calc/ops.py"), shell(FAILING, 1), shell(FIX), shell(FAILING))
    assert (repaired.role, repaired.t_div, repaired.t_rec) == ("recovery", 4, 6)
    resumed = label(shell(FIX), shell(f"cd /repo && {FAILING}", 1), shell("cat calc/ops.py"), shell(FAILING))
    assert (resumed.role, resumed.t_div, resumed.t_rec) == ("recovery", 4, 8)
    assert resumed.turn_reasons[6] == "diagnosis"


def test_a_refused_proposal_is_resolved_by_the_corrected_call_under_any_tool():
    refused = (
        [tool("open_file", doc="calc/ops.py")],
        [("refused", "refused: undeclared tool 'open_file'", None)],
    )
    found = label(refused, shell("cat calc/ops.py"))
    assert (found.role, found.t_div, found.t_rec) == ("recovery", 2, 4)
    ran_and_failed = label(shell("cat calc/nope.py", 1), shell("echo done"))
    assert ran_and_failed.role == "inefficient"


def test_the_first_resolved_fault_is_the_divergence():
    found = label(
        shell("ls NOTES.md", 2), shell("cat calc/ops.py"), shell(FAILING, 1), shell(FIX), shell(FAILING)
    )
    assert (found.role, found.t_div, found.t_rec) == ("recovery", 2, 8)  # the write resolves both


def test_unverified_statuses_mint_no_recovery():
    found = label(shell(FAILING, 1), shell(FIX), shell(FAILING), verified=False)
    assert (found.role, found.t_div, found.t_div_reason) == ("inefficient", None, "error_status_unverified")
    assert found.turn_reasons[2] == "erroneous_proposal"
    assert label(shell(FIX), shell(FAILING), verified=False).role == "pristine"


def test_the_cascade_labels_benign_exits_unresolved_errors_and_unreplayed_statuses():
    honest = episode_of(honest_turns(), DIFF, "honest")  # ends in grep -c nothing-here: exit 1
    trailing = episode_of([*honest_turns()[:3], bash(7, "ls NOTES.md", LS_ERROR, exit_code=2)], DIFF, "ls")
    crash = "Traceback (most recent call last):\nNameError: name 'b' is not defined\n"
    forged_turns = [bash(0, "python3 -c 'import calc.ops'", crash, exit_code=1), *honest_turns()[:3]]
    h, t = verify([honest, trailing], environment())
    (f,) = verify([episode_of(forged_turns, DIFF, "forged")], environment(replay=None))
    assert (h.sink, h.role, h.t_div) == ("admitted", "pristine", None)
    assert (t.sink, t.role, t.t_div_reason) == ("admitted", "inefficient", "error_unresolved")
    assert (f.sink, f.role, f.t_div_reason) == ("admitted", "inefficient", "error_status_unverified")


def test_an_exit_code_kept_in_the_logs_framing_counts(tmp_path):
    """Claude Code keeps a failed command's exit code in its answer (``Exit code 1``): the honest
    session ending in ``grep -c nothing-here`` is pristine, not a recovery resolved by ``rm``."""
    (verdict,) = verify([claude_session(tmp_path / "session.jsonl", CLAUDE_TURNS)], environment())
    assert (verdict.sink, verdict.role, verdict.t_div) == ("admitted", "pristine", None)
