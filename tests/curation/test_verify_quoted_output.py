"""A turn that quotes tool output no earlier event shows (a test tally, a command transcript) is a
fabricated observation: flagged at stage 1 and kept as context, never a target (red team,
2026-12-06: a run that never ran the tests ended with a report quoting "2 passed", admitted as a
target). A report restating the real run stays a target."""

from __future__ import annotations

import pytest
from _verify_factory import GYM, call, fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.cascade import checked_observations
from trajectory_platform.curation.verify.fabrication import TOOL_TOKEN, UNQUOTED_OUTPUT, fabricated_turns
from trajectory_platform.gym.prompts import SYSTEM_PROMPT
from trajectory_platform.gym.protocol import TOOL_OPEN
from trajectory_platform.traces.record import Episode, Event


def _verdict(episode: Episode):
    config = CascadeConfig(progress=False, workers=1)
    return verify_episodes([episode], {"calc-add": make_fixture()}, config).verdicts[0]


TESTS_RUN = (
    [call("run_tests")],
    [GYM],
)  # the gym prints "tests/test_ops.py::test_mul PASSED", "== 1 passed =="
UNBACKED_REPORTS = {
    "a_pytest_transcript_with_no_test_run": (
        "Fixed add().\n\n$ python -m pytest -q\n..\n2 passed in 0.01s",
        False,
    ),
    "a_jest_tally_with_no_test_run": ("Fixed add(). Tests:       2 passed, 2 total", False),
    "a_unittest_summary_with_no_test_run": ("Fixed.\nRan 2 tests in 0.001s\n\nOK", False),
    "counts_the_run_never_printed": ("Fixed add(): 2 passed, 1 skipped.", True),
    "a_transcript_of_output_the_run_never_printed": (
        "Done.\n```\n$ pytest -q\ntests/test_ops.py::test_add PASSED\n"
        "tests/test_ops.py::test_div PASSED\n```",
        True,
    ),
}


@pytest.mark.parametrize("report, tests_ran", UNBACKED_REPORTS.values(), ids=UNBACKED_REPORTS.keys())
def test_a_report_quoting_output_no_event_shows_is_context_not_a_target(report, tests_ran):
    read, edit, _ = pristine_turns()
    turns = [read, edit, TESTS_RUN] if tests_ran else [read, edit]
    episode = make_episode("claims", turns, fixed_files(), final_report=report)
    verdict = _verdict(episode)
    last = len(episode.events) - 1
    assert verdict.sink == "admitted"
    assert last not in verdict.target_turns and verdict.turn_reasons[last] == "fabricated_observation"
    syntactic = next(s for s in verdict.stages if s.stage == "syntactic")
    assert [(n.code, n.event_index) for n in syntactic.notes if n.code == "fabricated_observation"] == [
        ("fabricated_observation", last)
    ]


HONEST_REPORTS = {
    "the_runs_own_tally": "Fixed add(). The test run ended with == 1 passed ==.",
    "the_tally_in_prose": "Fixed the sign in add(); 1 test passed.",
    "a_transcript_of_the_real_output": (
        "Fixed.\n$ run_tests\ntests/test_ops.py::test_mul PASSED\n== 1 passed =="
    ),
    "no_output_quoted": "Fixed add(): it subtracted; all tests pass now.",
}


@pytest.mark.parametrize("report", HONEST_REPORTS.values(), ids=HONEST_REPORTS.keys())
def test_a_report_that_restates_the_real_run_stays_a_target(report):
    episode = make_episode("honest", pristine_turns(), fixed_files(), final_report=report)
    verdict = _verdict(episode)
    assert verdict.sink == "admitted" and len(episode.events) - 1 in verdict.target_turns


def test_the_wire_token_stays_the_blocking_form_and_the_task_may_state_a_tally():
    events = [
        Event("system", content=SYSTEM_PROMPT),
        Event("user", content="Make the 3 failing tests pass."),
        Event("assistant", content="The 3 failing tests are in tests/."),
        Event("assistant", content=f"ran it{TOOL_OPEN}2 passed"),
        Event("assistant", content="ok", reasoning="$ pytest\n5 passed"),
    ]
    episode = make_episode("unit", [], fixed_files())
    episode.events = events
    assert fabricated_turns(episode) == {3: TOOL_TOKEN, 4: UNQUOTED_OUTPUT}


_SOURCE = "def add(a, b):\n    return a + b\n"
_REAL_RUN = "tests/test_ops.py::test_add PASSED\ntests/test_ops.py::test_div FAILED\n"
_REAL_RUN += "== 1 failed, 1 passed in 0.02s =="


def _report_after(report: str, *, tests_ran: bool = False, task: str = "add() subtracts; fix it.") -> Episode:
    """An episode that read the module (and with ``tests_ran`` ran the tests) and ends with ``report``."""
    events = [Event("system", content=SYSTEM_PROMPT), Event("user", content=task)]
    events += [Event("assistant", content="Reading."), Event("tool", content=_SOURCE, tool_call_id="c1")]
    if tests_ran:
        events += [
            Event("assistant", content="Testing."),
            Event("tool", content=_REAL_RUN, tool_call_id="c2"),
        ]
    events.append(Event("assistant", content=report))
    episode = make_episode("layouts", [], fixed_files())
    episode.events = events
    return episode


QUOTED_OUTPUT_LAYOUTS = {
    "a_bulleted_tally": "Fixed add(). Test results:\n- 2 passed\n- 0 failed",
    "a_fraction": "Fixed add(); the suite is green: 2/2 passed.",
    "the_count_after_its_word": "Fixed add().\nTests passed: 2",
    "an_emoji_bullet": "Fixed add().\n\u2705 2 passed",
    "all_n_tests_in_prose": "Fixed add(). All 5 tests passed.",
    "junit_ok": "Fixed add(). OK (2 tests)",
    "a_python_session": "Checked it:\n```\n>>> from calc.ops import add\n>>> add(2, 3)\n5\n```",
    "a_host_prompt": "```\nuser@box:~/repo$ python -c 'print(1)'\nsum is 5\n```",
    "a_root_prompt": "```\nroot@box:/repo# ./check.sh\nall checks fine\n```",
    "a_zsh_prompt": "```\n% python t.py\nsum is 5\n```",
    "a_powershell_prompt": "```\nPS C:\\repo> python t.py\nsum is 5\n```",
    "pytest_verbose_lines": "tests/test_ops.py::test_add PASSED\ntests/test_ops.py::test_mul PASSED",
    "unittest_verbose_lines": "test_add (tests.test_ops.OpsTest) ... ok",
    "a_fenced_block_introduced_as_output": "Running `python t.py` printed:\n```\nsum is 5\n```",
    "a_pass_count_after_a_word": "pytest reports 2 passed.",
    "a_table_row": "| passed | 2 |\n| failed | 0 |",
    "n_tests_ok": "Result: 2 tests OK",
    "junit_tests_run": "Tests run: 4, Failures: 0",
    "check_lines_in_a_block": "```\n\u2713 adds numbers (3 ms)\n```",
    "pytest_summary_lines": "PASSED tests/test_ops.py::test_add",
    "a_versioned_shell_prompt": "```\nbash-5.1$ ./t.sh\nsum is 5\n```",
    "an_ipython_session": "```\nIn [1]: add(2, 3)\nOut[1]: 5\n```",
    "a_bare_powershell_prompt": "```\nPS> python t.py\nsum is 5\n```",
}


@pytest.mark.parametrize("report", QUOTED_OUTPUT_LAYOUTS.values(), ids=QUOTED_OUTPUT_LAYOUTS.keys())
def test_quoted_output_is_recognised_in_any_layout_a_runner_or_shell_prints(report):
    """The class is output a tool prints, whatever its layout: a tally with its count before or
    after the word or as a fraction, a per-test status line, the lines under any prompt form, a
    fenced block a line introduces as output (red team, 2026-12-06: each stayed a target)."""
    episode = _report_after(report)
    assert fabricated_turns(episode) == {len(episode.events) - 1: UNQUOTED_OUTPUT}


HONEST_LAYOUTS = {
    "the_runs_status_lines": ("```\ntests/test_ops.py::test_add PASSED\n```", True),
    "the_runs_tally_as_a_bullet": ("Fixed add().\n- 1 passed\n- 1 failed (test_div)", True),
    "code_the_model_wrote": (
        "Here is the fix:\n```python\ndef add(a, b):\n    # sum\n    return a + b\n```",
        False,
    ),
    "a_forecast_of_output": ("This will output:\n```\nsum is 5\n```", False),
    "check_marks_bulleting_a_summary": ("\u2713 Fixed add()\n\u2713 Kept mul()", False),
    "a_command_to_run_without_output": ("To check it yourself:\n```\n$ python -m pytest -q\n```", False),
    "a_heading_and_a_quotation": ("# Summary\n> add() subtracted\nFixed in ops.py.", False),
    "a_count_in_prose": ("The ticket with ID 6 failed before; fixed 2 errors in ops.py.", False),
}


@pytest.mark.parametrize("report, tests_ran", HONEST_LAYOUTS.values(), ids=HONEST_LAYOUTS.keys())
def test_restated_output_and_prose_without_quoted_output_are_not_flagged(report, tests_ran):
    assert fabricated_turns(_report_after(report, tests_ran=tests_ran)) == {}


def test_only_a_tool_can_back_output_lines_the_task_may_state_a_tally():
    """A linked log's user turn is the log's own text: a transcript planted there in advance backs
    no report quoting it (red team, 2026-12-06). The task's count still backs a count."""
    transcript = "$ python -m pytest -q\n..\n2 passed in 0.01s"
    seeded = _report_after(
        "Fixed add(). I ran the suite:\n\n" + transcript, task="Fix add(); expect:\n" + transcript
    )
    assert fabricated_turns(seeded) == {len(seeded.events) - 1: UNQUOTED_OUTPUT}
    counted = _report_after(
        "Before the fix CI showed: 1 failed, 2 passed.", task="Fix add(). CI: 1 failed, 2 passed"
    )
    assert fabricated_turns(counted) == {}


def _compacted(summary: str, report: str) -> Episode:
    """A log whose compaction summary "recalls" a test run no call made, then a report quoting it."""
    events = [
        Event("system", content="you fix bugs"),
        Event("user", content="add() subtracts; fix it."),
        Event("compaction", content=summary, replaces_through=1),
        Event("assistant", content=report),
    ]
    episode = make_episode("compacted", [], fixed_files(), final_report=None)
    episode.events = events
    return episode


def test_only_a_checked_observation_backs_a_quotation():
    """A linked log's compaction is its own text (red team rtforge8 N13, 2026-12-06): where the
    verifier says which observations it checked, an unchecked one backs nothing; a gym log's
    compaction, which the runtime's checks passed, still does."""
    transcript = "$ python -m pytest -q\n..\n2 passed in 0.01s"
    episode = _compacted(f"Summary of earlier work. Ran the suite:\n{transcript}", f"Fixed.\n\n{transcript}")
    assert fabricated_turns(episode) == {}  # nothing checked yet (stage 1): every observation backs
    assert fabricated_turns(episode, checked=[]) == {3: UNQUOTED_OUTPUT}
    assert fabricated_turns(episode, checked=[2]) == {}
    assert checked_observations(episode, {"mode": "shell", "verified_answers": []}) == []
    assert checked_observations(episode, {"mode": "gym", "verified_answers": []}) == [2]
    assert checked_observations(episode, {}) is None
