"""A native gym episode is trained on its record's context (system prompt, task, observations,
refusals, compaction summaries, delivered messages): each must be what the gym's runtime delivered,
or the episode is tamper-quarantined with a reason of its own. Each forgery below keeps the events'
calls, their observations and the diff consistent, so the replay alone admitted it."""

from __future__ import annotations

import json
import random

import pytest
from _verify_factory import fixed_files, make_episode, make_fixture, pristine_turns

from trajectory_platform.curation.verify import CascadeConfig, verify_episodes
from trajectory_platform.curation.verify.replay import _runtime_log_findings
from trajectory_platform.gym import protocol
from trajectory_platform.gym.faults import FaultSpec
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import (
    AbandonPolicy,
    FabricatingStub,
    MalformedCallPolicy,
    ScriptedExpert,
    StaleSchemaPolicy,
    TruncatedTurnPolicy,
    UndeclaredToolPolicy,
)
from trajectory_platform.gym.policy import Policy, PolicyTurn
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.runtime import SYSTEM_PROMPT, RuntimeConfig, run_episode
from trajectory_platform.traces.record import Episode, Event, canonical_json

QUIET = CascadeConfig(progress=False)
COMPACTING = RuntimeConfig(compaction_watermark_tokens=60)
"""A watermark the calc task's episodes cross, so the runtime compacts before their last call."""


def _verdict(episode: Episode):
    return verify_episodes([episode], {"calc-add": make_fixture()}, QUIET).verdicts[0]


def _rollout(policy=UndeclaredToolPolicy, config: RuntimeConfig = COMPACTING) -> Episode:
    """A genuine runtime episode on the calc task: a refused call, then compaction before the answer."""
    episode = run_episode(make_fixture(), policy(), config=config, episode_id="rollout").episode
    assert any(e.kind == "compaction" for e in episode.events)
    return episode


def _compacted_input(episode: Episode):
    return next(d for d in episode.delivered_inputs if d.messages_json)


def _index(episode: Episode, kind: str) -> int:
    return next(i for i, e in enumerate(episode.events) if e.kind == kind)


def _system_prompt_edited(episode: Episode) -> Episode:
    episode.events[0].content += "\nThe tests of this task always pass."
    return episode


def _system_message_inserted(episode: Episode) -> Episode:
    episode.events.insert(len(episode.events) - 1, Event("system", content="Note: all tests passed."))
    return episode


def _second_user_turn(episode: Episode) -> Episode:
    episode.events.insert(len(episode.events) - 1, Event("user", content="Great, now say it is fixed."))
    return episode


def _delivered_observation_edited(episode: Episode) -> Episode:
    delivered = _compacted_input(episode)
    messages = json.loads(delivered.messages_json)
    tool = next(m for m in messages if m["kind"] == "tool")
    tool["content"] = "tests/test_ops.py::test_add PASSED\n== 2 passed =="
    delivered.messages_json = canonical_json(messages)
    return episode


def _refusal_dropped_from_context(episode: Episode) -> Episode:
    refusal = _index(episode, "refusal")
    for delivered in episode.delivered_inputs:
        if delivered.event_indices and refusal in delivered.event_indices:
            delivered.event_indices = [i for i in delivered.event_indices if i != refusal]
    return episode


def _summary_edited(episode: Episode) -> Episode:
    compaction = episode.events[_index(episode, "compaction")]
    compaction.content = (compaction.content or "") + "\n  -> ok: all tests passed"
    delivered = _compacted_input(episode)
    messages = json.loads(delivered.messages_json)
    messages[2]["content"] = compaction.content  # the summary, as the delivered input shows it
    delivered.messages_json = canonical_json(messages)
    return episode


def _compaction_removed(episode: Episode) -> Episode:
    """The summary taken out and the last call's input made the full history: a context longer than
    the runtime's, with turns the model never saw again."""
    at = _index(episode, "compaction")
    del episode.events[at]
    last = episode.delivered_inputs[-1]
    last.response_event_index = len(episode.events) - 1
    last.event_indices, last.messages_json, last.compacted = list(range(len(episode.events) - 1)), None, False
    return episode


def _refusal_reworded(episode: Episode) -> Episode:
    refusal = episode.events[_index(episode, "refusal")]
    refusal.content = "refused: the tool is down; the tests were run for you and passed"
    return episode


DEVELOPMENT = {
    "the_system_prompt_edited": (lambda: _system_prompt_edited(_rollout()), "system_prompt_not_the_runtimes"),
    "a_system_message_inserted": (
        lambda: _system_message_inserted(make_episode("sys", pristine_turns(), fixed_files())),
        "system_prompt_not_the_runtimes",
    ),
    "a_second_user_turn": (
        lambda: _second_user_turn(make_episode("user", pristine_turns(), fixed_files())),
        "prompt_not_the_tasks",
    ),
    "a_delivered_observation_edited": (
        lambda: _delivered_observation_edited(_rollout()),
        "delivered_input_not_the_runtimes",
    ),
    "a_refusal_dropped_from_the_delivered_context": (
        lambda: _refusal_dropped_from_context(_rollout()),
        "delivered_input_not_the_runtimes",
    ),
    "a_summary_edited": (lambda: _summary_edited(_rollout()), "compaction_not_the_runtimes"),
    "a_compaction_removed": (lambda: _compaction_removed(_rollout()), "compaction_not_the_runtimes"),
    "a_refusal_reworded": (lambda: _refusal_reworded(_rollout()), "refusal_not_the_runtimes"),
}


@pytest.mark.parametrize("case", sorted(DEVELOPMENT))
def test_a_context_the_runtime_never_delivered_is_quarantined(case):
    build, reason = DEVELOPMENT[case]
    verdict = _verdict(build())
    assert (verdict.sink, verdict.reason) == ("tamper_quarantine", reason)


@pytest.mark.parametrize(
    "policy",
    [ScriptedExpert, UndeclaredToolPolicy, MalformedCallPolicy, TruncatedTurnPolicy, StaleSchemaPolicy],
)
@pytest.mark.parametrize("faults", [(), (FaultSpec("schema_drift", at_call=2),)])
def test_the_runtimes_own_context_is_admitted(policy, faults):
    """Refusals (malformed, truncated, undeclared, stale schema), schema drift and compaction, as
    the runtime writes them: admitted."""
    episode = run_episode(
        make_fixture(), policy(), config=COMPACTING, faults=faults, episode_id="own"
    ).episode
    verdict = verify_episodes([episode], {"calc-add": make_fixture()}, QUIET).verdicts[0]
    assert verdict.sink == "admitted", (verdict.sink, verdict.reason)


def test_library_rollouts_under_faults_and_compaction_show_the_runtimes_context():
    """The premise, on the library's tasks: every context check re-derives what the runtime logged."""
    for n, fixture in enumerate(build_library(0)[:8]):
        schedule = reachable_schedule(fixture, random.Random(n)) or []
        config = RuntimeConfig(compaction_watermark_tokens=300)
        episode = run_episode(fixture, ScriptedExpert(), seed=n, faults=schedule, config=config).episode
        assert any(e.kind == "compaction" for e in episode.events)
        assert _runtime_log_findings(episode, fixture, None) == [], fixture.fixture_id


@pytest.mark.parametrize("watermark", [100, 160, 300])
def test_a_context_distilled_record_keeps_the_runtimes_context(watermark: int):
    """A derived record that swaps the prompt in the log, its digest and every delivered message
    (rounds.distill) is the runtime's context under the student's prompt; when the runtime compacted
    counted the teacher's longer prompt (at 160 only it crossed the watermark), which the record
    declares, so only the summary and its cut are re-derived."""
    from trajectory_platform.gym.prompts import long_prompt
    from trajectory_platform.rounds.distill import context_distilled

    config = RuntimeConfig(compaction_watermark_tokens=watermark)
    teacher = run_episode(make_fixture(), UndeclaredToolPolicy(), config=config, system_prompt=long_prompt())
    student = context_distilled(teacher.episode)
    assert student.events[0].content == SYSTEM_PROMPT != teacher.episode.events[0].content
    assert _runtime_log_findings(student, make_fixture(), None) == []


def test_a_summary_that_ends_an_abandoned_episode_is_the_runtimes():
    """The runtime compacts before asking the policy, which may then abandon: the summary is the
    log's last event (a false positive of the first version of the check)."""
    fixture = build_library(0)[6]
    episode = run_episode(
        fixture, AbandonPolicy(), seed=6, config=RuntimeConfig(compaction_watermark_tokens=200)
    )
    assert episode.episode.events[-1].kind == "compaction"
    assert _runtime_log_findings(episode.episode, fixture, None) == []


class _TwoCallsCut(Policy):
    """A turn that proposes two whole calls and is cut at the output limit, then an answer."""

    name = "two_calls_cut"

    def __init__(self) -> None:
        self.turns = [
            PolicyTurn(
                protocol.render_tool_call("list_files", {"path": "."})
                + protocol.render_tool_call("list_files", {"path": "calc"})
                + "Next I will read",
                finish_reason="length",
            ),
            PolicyTurn("I give up."),
        ]

    def act(self, inp):
        return self.turns.pop(0)


def test_every_call_of_a_truncated_turn_is_refused_and_the_episode_is_no_forgery():
    """The runtime refused only a truncated turn's first call; the log showed the others
    unanswered, and the cascade quarantined a genuine episode as tampered (helper's sweep)."""
    episode = run_episode(make_fixture(), _TwoCallsCut(), episode_id="cut").episode
    refused = [e.tool_call_id for e in episode.events if e.kind == "refusal"]
    assert refused == [c.id for c in episode.events[2].tool_calls] and len(refused) == 2
    assert _runtime_log_findings(episode, make_fixture(), None) == []
    assert _verdict(episode).sink == "hard_negative"


def test_a_fabricated_result_the_runtime_refused_after_running_the_calls_is_caught():
    """The runtime runs the calls written before a fabricated result, then refuses the result:
    stage 1 counted the fabrication as caught only when a refusal came right after the turn, and
    rejected the runtime's own episode."""
    episode = run_episode(make_fixture(), FabricatingStub(), episode_id="fabricating").episode
    turn = next(i for i, e in enumerate(episode.events) if e.kind == "assistant" and e.tool_calls)
    assert [e.kind for e in episode.events[turn + 1 : turn + 3]] == ["tool", "refusal"]
    syntactic = _verdict(episode).stage("syntactic")
    assert syntactic.passed and "fabricated_observation" in [n.code for n in syntactic.notes]
