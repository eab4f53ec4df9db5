"""A turn that quotes tool output no earlier event shows (a test tally, a command transcript) is a
fabricated observation: flagged at stage 1 and kept as context, never a target (red team,
2026-12-06: a run that never ran the tests ended with a report quoting "2 passed", admitted as a
target). A report restating the real run stays a target."""

from __future__ import annotations

import pytest
from _verify_factory import GYM, call, fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
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
