"""DAgger: the expert labels learner-visited states, a label is used only when its continuation
passes the sealed oracle, disagreement is measured on the learner's own states, and the mixing
schedule beta_i is executed."""

from __future__ import annotations

import dataclasses
import json

import pytest

from trajectory_platform.curation.dedup import action_sequence
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import MalformedCallPolicy, ScriptedExpert, WrongFixPolicy
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.rounds.dagger import (
    DaggerRound,
    MixedPolicy,
    chosen_turns,
    dagger_records,
    label_state,
    label_states,
    mixed_sampler,
    plan_progress,
    training_candidates,
)
from trajectory_platform.rounds.judge import judged_candidates
from trajectory_platform.rounds.mix import source_of
from trajectory_platform.rounds.sampling import policy_sampler, round_of, stamp
from trajectory_platform.rounds.settings import DaggerSettings
from trajectory_platform.traces.record import Episode
from trajectory_platform.training.data.serialize import plan_examples, select_targets


@pytest.fixture(scope="module")
def learner(gym_task: Fixture) -> Episode:
    """A learner trajectory of round 1: read, a wrong edit, a failing test run, a false claim."""
    policy = WrongFixPolicy()
    episode = run_episode(gym_task, policy, seed=1, episode_id="learner", verify=False).episode
    return stamp(episode, policy_sampler(policy), 1)


def test_the_expert_resumes_where_the_learner_left_its_plan(gym_task: Fixture, learner: Episode):
    cut = [i for i, e in enumerate(learner.events) if e.kind == "assistant"]
    assert plan_progress(gym_task, learner.events[: cut[1]]) == 1  # the read matched the plan
    assert plan_progress(gym_task, learner.events) == 1  # the wrong edit did not


def test_labels_before_the_mistake_are_used_and_measure_disagreement(gym_task: Fixture, learner: Episode):
    labelled = label_states([learner], [gym_task], DaggerSettings(states_per_trajectory=2))
    assert [label.turn for label in labelled.labels] == [1, 2]  # never turn 0: the bare task
    edit, after = labelled.labels  # the state where the learner made its wrong edit, and the next
    first = label_state(learner, gym_task, 0, 1)
    assert first.verified and not first.disagrees  # both read the file first
    assert edit.verified and edit.disagrees and not after.verified
    assert edit.expert_action != edit.learner_action and "edit" in edit.expert_action[0]
    label_event = edit.continuation.events[edit.label_event]
    assert label_event.kind == "assistant" and action_sequence(edit.continuation)[1] == edit.expert_action[0]
    assert round_of(edit.continuation) == 1
    assert DaggerRound(1, [first, edit]).disagreement == 0.5


def test_a_malformed_call_in_the_prefix_is_reproduced_by_its_refusal(gym_task: Fixture):
    """The log keeps a malformed call as the parser's fragments, so its replay is other text and the
    parser's reason names another position; the call is refused all the same, so the state counts
    as reproduced (a checkpoint's early turns are often malformed: without this no label verified)."""
    policy = MalformedCallPolicy()
    episode = run_episode(gym_task, policy, seed=1, episode_id="malformed", verify=False).episode
    learner = stamp(episode, policy_sampler(policy), 1)
    label = label_state(learner, gym_task, 3, 1)  # after read, edit and the malformed test call
    refusals = [[e.content for e in ep.events if e.kind == "refusal"] for ep in (learner, label.continuation)]
    assert len(refusals[0]) == 1 and refusals[0] != refusals[1]  # the parser's positions differ
    assert refusals[1][0].startswith("refused: malformed tool call")
    assert label.verified and label.reason == ""


def test_a_label_whose_continuation_fails_the_oracle_is_dropped(gym_task: Fixture, learner: Episode):
    after = label_state(learner, gym_task, 2, 1)  # after the wrong edit: the expert's edit no longer applies
    assert not after.verified and after.reason == "oracle_rejected"
    labelled = DaggerRound(1, [after])
    assert labelled.used == [] and labelled.disagreement is None
    assert labelled.summary()["labels_dropped"] == {"oracle_rejected": 1}


def test_beta_one_executes_the_expert_and_beta_zero_the_learner(gym_task: Fixture):
    expert = action_sequence(run_episode(gym_task, ScriptedExpert(), verify=False).episode)
    learner = action_sequence(run_episode(gym_task, WrongFixPolicy(), verify=False).episode)
    assert expert != learner
    mixed_all = run_episode(gym_task, MixedPolicy(WrongFixPolicy(), 1.0), verify=False).episode
    mixed_none = run_episode(gym_task, MixedPolicy(WrongFixPolicy(), 0.0), verify=False).episode
    assert action_sequence(mixed_all) == expert
    assert action_sequence(mixed_none) == learner


def test_the_mixing_schedule_decays_and_names_the_sampler():
    settings = DaggerSettings(beta0=0.8, beta_decay=0.5)
    assert [settings.beta(i) for i in range(3)] == [0.8, 0.4, 0.2]
    learner = policy_sampler(WrongFixPolicy())
    digests = {mixed_sampler(learner, i, settings).digest for i in range(3)}
    assert len(digests) == 3 and learner.digest not in digests


def test_the_labelled_turns_follow_a_learner_turn_and_are_spread_out():
    assert chosen_turns(4, 2) == [1, 2] and chosen_turns(7, 3) == [1, 3, 5] and chosen_turns(3, 5) == [1, 2]
    assert chosen_turns(1, 3) == [] and chosen_turns(0, 3) == []  # no learner turn before any state
    for turns in range(12):
        for states in range(1, 5):
            chosen = chosen_turns(turns, states)
            assert 0 not in chosen and len(chosen) == min(states, max(turns - 1, 0))
            assert all(0 < t < turns for t in chosen)


def test_a_brought_task_is_refused_by_name(gym_task: Fixture, learner: Episode):
    brought = dataclasses.replace(gym_task, fixture_id="env/task", source="environment")
    with pytest.raises(ValueError, match="env/task: the scripted expert labels gym tasks only"):
        label_state(learner, brought, 0, 1)


def test_a_verified_label_trains_only_the_experts_turns(gym_task: Fixture, learner: Episode):
    edit = label_state(learner, gym_task, 1, 1)  # the learner read, then the expert edits from there
    after = label_state(learner, gym_task, 2, 1)  # unverified: never becomes a training record
    (record,) = training_candidates(DaggerRound(1, [edit, after]), [gym_task])
    episode = record.episode
    assistant = [i for i, e in enumerate(episode.events) if e.kind == "assistant"]
    learner_turns = [i for i in assistant if i < edit.label_event]
    assert learner_turns and record.target_turns == [i for i in assistant if i >= edit.label_event]
    (judged,) = judged_candidates([episode], [gym_task])
    assert set(learner_turns) <= set(judged.target_turns or [])  # the cascade alone would train them
    plans = plan_examples(episode, select_targets(episode, record.target_turns))
    trained = [t.event_index for p in plans for t in p.turns if t.target]
    assert trained == record.target_turns and episode.events[trained[0]] is episode.events[edit.label_event]
    assert (record.sink, record.role, record.parent_episode_id) == ("admitted", "pristine", None)
    assert record.anchor  # the expert's demonstration: aggregated over rounds, never retired as stale
    assert source_of(episode) == "dagger" and round_of(episode) == 1
    tag = json.loads(episode.extra_json or "{}")["dagger"]
    assert tag["state_of"] == "learner" and tag["turn"] == 1


def test_a_rounds_dagger_labels_only_failed_attempts_and_names_their_sampler(gym_task: Fixture):
    """Only the attempt the cascade did not admit is labelled; every record carries the round and a
    sampler digest naming the learner's, which is not the learner's own digest."""
    expert, wrong = policy_sampler(ScriptedExpert()), policy_sampler(WrongFixPolicy())
    attempts = [
        stamp(run_episode(gym_task, s.policy, seed=3, episode_id=f"a-{i}", verify=False).episode, s, 2)
        for i, s in enumerate((expert, wrong))
    ]
    learners = judged_candidates(attempts, [gym_task])
    assert [c.sink for c in learners] == ["admitted", "hard_negative"]
    records = dagger_records(learners, [gym_task], 2, DaggerSettings(states_per_trajectory=2))
    assert {label.learner_episode_id for label in records.labelled.labels} == {"a-1"}
    assert [label.turn for label in records.labelled.labels] == [1, 2]
    summary = records.summary()
    assert (summary["states_labelled"], summary["labels_used"], summary["records_admitted"]) == (2, 1, 1)
    assert (
        summary["labels_dropped"] == {"oracle_rejected": 1} and summary["learner_state_disagreement"] == 1.0
    )
    (record,) = records.admitted
    lineage, tag = record.episode.lineage, json.loads(record.episode.extra_json or "{}")
    assert round_of(record.episode) == 2 and tag["dagger"]["learner_sampler_policy_digest"] == wrong.digest
    assert lineage.sampler_policy_digest not in (None, wrong.digest, expert.digest)
    assert record.target_turns and min(record.target_turns) == tag["dagger"]["label_event"]
    assert dagger_records(learners[:1], [gym_task], 2, DaggerSettings()).summary()["states_labelled"] == 0
