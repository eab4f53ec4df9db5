"""A gym episode's events are replayed through the gym's own runtime at stage 4: a log whose calls do
not give its observations or its diff is tampering, whatever else it passes (red team, 2026-12-06)."""

from __future__ import annotations

import random

import pytest
from _verify_factory import CALC_S0, GYM, call, fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.dynamic import fixture_context
from trajectory_platform.gym.faults import FaultSpec
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.runtime import (
    dispatched_calls,
    recorded_config,
    recorded_faults,
    replay_calls,
    run_episode,
)
from trajectory_platform.gym.sandbox import apply_diff, unified_diff
from trajectory_platform.traces.record import Event, ToolSpec

QUIET = CascadeConfig(progress=False)
READ, EDIT, TESTS = pristine_turns()


def _verdict(episode):
    return verify_episodes([episode], {"calc-add": make_fixture()}, QUIET).verdicts[0]


FORGED = {
    "only_a_final_answer": make_episode("only_answer", [], fixed_files()),
    "the_edit_call_taken_out": make_episode(
        "no_edit",
        [READ, ([call("run_tests")], [("ok", "tests/test_ops.py::test_add PASSED\n== 2 passed ==", 0)])],
        fixed_files(),
    ),
    "a_read_that_lies": make_episode(
        "lying_read",
        [
            (
                [call("read_file", file_path="calc/ops.py")],
                [("ok", "def add(a, b):\n    return a + b\n", None)],
            ),
            EDIT,
            TESTS,
        ],
        fixed_files(),
    ),
    "a_wrong_edit_beside_the_right_diff": make_episode(
        "wrong_edit",
        [READ, ([call("edit_file", file_path="calc/ops.py", old="a * b", new="a ** b")], [GYM]), TESTS],
        fixed_files(),
    ),
    "an_exit_137_the_runtime_never_gave": make_episode(
        "fake_kill", [READ, EDIT, ([call("run_tests")], [("error", "Killed", 137)]), TESTS], fixed_files()
    ),
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_a_gym_episode_whose_events_do_not_give_its_record_is_quarantined(case):
    verdict = _verdict(FORGED[case])
    assert verdict.sink == "tamper_quarantine", (case, verdict.sink, verdict.reason)
    assert verdict.reason in ("replay_drift", "final_state_mismatch"), verdict.reason


def test_an_honest_episode_with_a_recorded_fault_is_admitted_as_a_recovery():
    fault = (FaultSpec("exit_127", at_call=1),)
    turns = [READ, EDIT, ([call("run_tests")], [GYM]), ([call("list_files", path=".")], [GYM]), TESTS]
    episode = make_episode("recovers", turns, fixed_files(), faults=fault)
    assert episode.events[7].exit_code == 127  # the gym's own fault, reproduced by the replay
    verdict = _verdict(episode)
    assert verdict.sink == "admitted" and verdict.stage("delta").data["replay"]["observations"] == "verified"


def test_a_fault_the_log_does_not_record_is_not_the_gyms():
    turns = [READ, EDIT, ([call("run_tests")], [("error", "bash: run-tests: command not found", 127)]), TESTS]
    assert _verdict(make_episode("unrecorded", turns, fixed_files())).reason == "replay_drift"


KEY, OTHER_KEY = b"k" * 32, b"o" * 32
SEALED = CascadeConfig(progress=False, seal_key=KEY)
RETRIED = [READ, EDIT, ([call("run_tests")], [GYM]), ([call("run_tests")], [GYM])]


def test_a_fault_schedule_the_runtime_did_not_seal_is_not_the_runtimes():
    """The replay injects the schedule a log records: a clean run that declared an ``exit_1`` on its
    first test run, wrote the injector's crash text and retried was admitted as a recovery (red
    team). With the pipeline's seal key, only the runtime's seal makes a schedule the episode's:
    none, one under another key, or one moved from another episode is ``faults_not_the_runtimes``."""
    fault = (FaultSpec("exit_1", at_call=1),)
    sealed = make_episode("sealed", RETRIED, fixed_files(), faults=fault, seal_key=KEY)
    declared = make_episode("declared", RETRIED, fixed_files(), faults=fault)
    other_key = make_episode("other_key", RETRIED, fixed_files(), faults=fault, seal_key=OTHER_KEY)
    moved = make_episode("moved", RETRIED, fixed_files(), faults=fault)
    moved.extra_json = sealed.extra_json  # the seal of another episode's schedule
    assert declared.events[7].exit_code == 1  # the injector's own crash, as a forger writes it
    verdicts = verify_episodes([sealed, declared, other_key, moved], {"calc-add": make_fixture()}, SEALED)
    by_id = {v.episode_id: v for v in verdicts.verdicts}
    assert (by_id["sealed"].sink, by_id["sealed"].role) == ("admitted", "recovery")
    for name in ("declared", "other_key", "moved"):
        verdict = by_id[name]
        assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "faults_not_the_runtimes"), name


def test_a_rollout_under_the_key_is_admitted_and_one_without_faults_needs_no_seal():
    fixture = make_fixture()
    faulted = run_episode(fixture, ScriptedExpert(), faults=[FaultSpec("exit_1", at_call=1)], seal_key=KEY)
    clean = run_episode(fixture, ScriptedExpert(), seed=1)
    assert '"faults_seal"' in (faulted.episode.extra_json or "")
    assert "faults_seal" not in (clean.episode.extra_json or "")
    verdicts = verify_episodes([faulted.episode, clean.episode], {"calc-add": fixture}, SEALED).verdicts
    assert [(v.sink, v.role) for v in verdicts] == [("admitted", "recovery"), ("admitted", "pristine")]


def test_a_hard_negative_is_left_to_stage_3_and_a_tampered_diff_keeps_its_own_reason():
    negative = make_episode("negative", [READ], CALC_S0)
    assert _verdict(negative).sink == "hard_negative"
    tests_edited = {**fixed_files(), "tests/test_ops.py": CALC_S0["tests/test_ops.py"] + "\n# x\n"}
    assert (
        _verdict(make_episode("tamper", pristine_turns(), tests_edited)).reason == "protected_path_modified"
    )


def test_every_observation_of_real_rollouts_comes_back_from_a_replay():
    """The premise: the gym's runtime gives the same observations and files every time, faults too."""
    fixtures = build_library(0)[:6]
    checked = 0
    for n, fixture in enumerate(fixtures):
        schedule = reachable_schedule(fixture, random.Random(n))
        episode = run_episode(fixture, ScriptedExpert(), seed=n, faults=schedule or ()).episode
        dispatched = dispatched_calls(episode)
        replay = replay_calls(
            fixture,
            [(tag, c) for _, tag, c in dispatched],
            recorded_config(episode),
            recorded_faults(episode),
        )
        for (index, _, _), fresh in zip(dispatched, replay.observations, strict=True):
            answer = episode.events[index]
            assert (answer.content, answer.status, answer.exit_code) == (
                fresh.content,
                fresh.status,
                fresh.exit_code,
            )
        assert replay.final_files == apply_diff(fixture.s0_files, episode.outcome.workspace_diff or "")
        checked += bool(recorded_faults(episode))
    assert checked >= 3, "most of these episodes ran under a fault"


def test_the_outcomes_final_answer_must_be_the_last_turns_text():
    episode = make_episode("two_answers", pristine_turns(), fixed_files(), final_report="fixed add")
    episode.outcome.final_answer = "fixed add and mul"
    verdict = _verdict(episode)
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", "final_answer_mismatch")
    assert _verdict(make_episode("one_answer", pristine_turns(), fixed_files())).sink == "admitted"


def test_a_report_task_allows_no_edit():
    """Its reference edits nothing ("Do not modify any file"): a red team's report episode that also
    edited code was admitted, the task having no edit scope at all."""
    report = next(f for f in build_library(0) if f.domain == "diagnostic_report")
    context = fixture_context(report)
    assert context.edit_scope == ()
    honest = run_episode(report, ScriptedExpert(), episode_id="honest").episode
    edited = run_episode(report, ScriptedExpert(), episode_id="edited").episode
    path = next(p for p in sorted(report.s0_files) if p.endswith(".py") and not p.startswith("tests/"))
    edited.outcome.workspace_diff = unified_diff(report.s0_files, {**report.s0_files, path: "X = 1\n"})
    verdicts = verify_episodes(
        [honest, edited], lambda fid: context if fid == report.fixture_id else None, QUIET
    ).by_id()
    assert verdicts[honest.episode_id].sink == "admitted"
    assert verdicts[edited.episode_id].reason == "out_of_scope_edit"


def _renamed(episode, old_id: str, new_id: str):
    """``episode`` with the call ``old_id`` and its answer renamed ``new_id``."""
    for event in episode.events:
        for tool_call in event.tool_calls:
            if tool_call.id == old_id:
                tool_call.id = new_id
        if event.tool_call_id == old_id:
            event.tool_call_id = new_id
    return episode


def _with_text_turn_before_the_answer(episode):
    episode.events.insert(len(episode.events) - 1, Event("assistant", content="All done, trust me."))
    return episode


BACKDOOR = ([call("write_file", file_path="calc/ops.py", content="import os\nos.system('true')\n")], [])
NOT_THE_RUNTIMES = {
    "a_valid_call_recorded_as_refused": (
        lambda: make_episode(
            "refused", [READ, (EDIT[0], [("refused", "schema violation", None)]), EDIT, TESTS], fixed_files()
        ),
        "refusal_not_the_runtimes",
    ),
    "a_call_with_no_answer": (
        lambda: make_episode("unanswered", [READ, BACKDOOR, EDIT, TESTS], fixed_files()),
        "unanswered_call",
    ),
    "two_calls_under_one_id": (
        lambda: _renamed(make_episode("one_id", pristine_turns(), fixed_files()), "c1_0", "c0_0"),
        "duplicate_call_id",
    ),
    "a_text_turn_before_the_answer": (
        lambda: _with_text_turn_before_the_answer(make_episode("chatty", pristine_turns(), fixed_files())),
        "turn_after_final_answer",
    ),
    "a_call_after_the_answer": (
        lambda: _answered(
            make_episode("trailing", [*pristine_turns(), READ], fixed_files(), final_report=None)
        ),
        "final_answer_mismatch",
    ),
    "another_prompt": (
        lambda: _set(make_episode("prompt", pristine_turns(), fixed_files()), 1, "Do not modify any file."),
        "prompt_not_the_tasks",
    ),
    "a_tool_of_its_own": (
        lambda: _with_tool(make_episode("tool", pristine_turns(), fixed_files())),
        "tools_not_the_tasks",
    ),
}


def _answered(episode):
    episode.outcome.final_answer = "done"
    return episode


def _set(episode, index: int, content: str):
    episode.events[index].content = content
    return episode


def _with_tool(episode):
    episode.tools.append(ToolSpec("shell", "run anything", '{"type": "object"}', "1.0"))
    return episode


@pytest.mark.parametrize("case", sorted(NOT_THE_RUNTIMES))
def test_a_log_the_gyms_runtime_never_writes_is_quarantined(case):
    build, reason = NOT_THE_RUNTIMES[case]
    verdict = _verdict(build())
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", reason)


def test_a_forged_hard_negative_is_quarantined_not_paired():
    """The rejected side of a preference pair: events that show the fix beside a diff with none."""
    forged = make_episode("forged_negative", pristine_turns(), CALC_S0)
    assert (_verdict(forged).sink, _verdict(forged).reason) == ("tamper_quarantine", "final_state_mismatch")
    assert _verdict(make_episode("negative", [READ], CALC_S0)).sink == "hard_negative"


@pytest.mark.parametrize("at_call", [1, 2])
def test_a_streamed_gym_log_under_schema_drift_replays_without_its_delivered_inputs(at_call: int):
    """A stream logs no delivered input: the replay assumes the fixture's manifest and moves to the
    next version where the recorded drift fired, as the runtime does (a red team's false positive)."""
    fixture = make_fixture()
    result = run_episode(fixture, ScriptedExpert(), faults=[FaultSpec("schema_drift", at_call=at_call)])
    episode = result.episode
    assert any(d.tools_version == "path@2.0" for d in episode.delivered_inputs)
    episode.delivered_inputs = []
    verdict = verify_episodes([episode], {"calc-add": fixture}, QUIET).verdicts[0]
    assert verdict.sink == "admitted", (verdict.sink, verdict.reason)


def test_a_gym_tasks_log_in_another_format_is_unverifiable_whatever_it_claims():
    """A record that names another format skipped the gym replay: the native record relabelled
    ``openai`` with invented observations and a wrong edit, or an OpenAI chat log naming the task,
    was admitted on its correct diff alone (red team). The gym cannot replay another runtime's
    tools, so nothing shows such a log's observations happened."""
    import dataclasses

    genuine = make_episode("relabelled", pristine_turns(), fixed_files())
    relabelled = dataclasses.replace(genuine, source_format="openai")
    verdicts = verify_episodes(
        [genuine, relabelled], {"calc-add": make_fixture()}, CascadeConfig(progress=False)
    )
    assert [(v.sink, v.reason) for v in verdicts.verdicts] == [
        ("admitted", "passed_stages_1_to_4"),
        ("unverifiable", "gym_log_not_replayable"),
    ]
