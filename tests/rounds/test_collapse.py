"""The collapse watch: each figure against its declared tolerance (held-out and retention acceptance
from a real scorecard included), a halt with a reason on a real round whose sampler fabricates
observations, and the seeded per-round audit sample."""

from __future__ import annotations

import dataclasses
import json

import pytest

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.evaluation.scorecard import build_scorecard
from trajectory_platform.gym.fixtures import Fixture, Step
from trajectory_platform.gym.policies import FabricatingStub, ScriptedExpert
from trajectory_platform.gym.policy import PolicyInput, PolicyTurn
from trajectory_platform.gym.protocol import render_turn
from trajectory_platform.rounds.collapse import (
    RoundHealth,
    audit_sample,
    collapse_decision,
    round_health,
    scorecard_acceptance,
)
from trajectory_platform.rounds.sampling import policy_sampler, sample_round
from trajectory_platform.rounds.settings import CollapseSettings, RoundSettings
from trajectory_platform.traces.record import Episode, Event, TaskIdentity, ToolCall

HEALTHY = RoundHealth(
    round_index=1,
    attempts=8,
    distinct_sequences=8,
    distinct_per_task=4.0,
    acceptance=0.5,
    fabricated_rate=0.0,
    runaway_rate=0.0,
)


def _next(**changes: float) -> RoundHealth:
    return dataclasses.replace(HEALTHY, round_index=2, **changes)


def test_within_tolerance_the_loop_continues():
    decision = collapse_decision(HEALTHY, _next(distinct_per_task=3.2, acceptance=0.45), CollapseSettings())
    assert not decision.halt and decision.reasons == ()


def test_each_figure_beyond_its_tolerance_halts_with_its_reason():
    settings = CollapseSettings()
    cases = {
        "distinct action sequences per task fell 50%": _next(distinct_per_task=2.0),
        "acceptance fell by 0.200": _next(acceptance=0.3),
        "fabricated-observation rate rose by 0.100": _next(fabricated_rate=0.1),
        "runaway rate rose by 0.250": _next(runaway_rate=0.25),
    }
    for reason, current in cases.items():
        decision = collapse_decision(HEALTHY, current, settings)
        assert decision.halt and len(decision.reasons) == 1 and decision.reasons[0].startswith(reason)
    assert not collapse_decision(
        HEALTHY, _next(acceptance=0.3), CollapseSettings(max_acceptance_drop=0.25)
    ).halt


def test_a_fabricating_round_after_an_expert_round_halts(gym_task: Fixture):
    settings = RoundSettings(attempts=1)
    before = round_health(sample_round(policy_sampler(ScriptedExpert()), [gym_task], 1, settings))
    after = round_health(sample_round(policy_sampler(FabricatingStub()), [gym_task], 2, settings))
    assert (before.acceptance, before.fabricated_rate) == (1.0, 0.0)
    # the runtime refused each fabricated result, so verification admits the episodes (their
    # fabricating turns are context, never targets): the fabrication rate is what halts the round
    assert (after.acceptance, after.fabricated_rate) == (1.0, 1.0)
    decision = collapse_decision(before, after, CollapseSettings())
    assert decision.halt
    assert [r.split(" by ")[0] for r in decision.reasons] == ["fabricated-observation rate rose"]


class QuotingExpert(ScriptedExpert):
    """The expert whose answer also quotes a test run it never saw (a count no tool printed)."""

    name = "expert-quoting-output"

    def emit(self, step: Step, reasoning: str | None, inp: PolicyInput) -> PolicyTurn:
        turn = super().emit(step, reasoning, inp)
        if step.op != "answer":
            return turn
        return PolicyTurn(render_turn(content="Fixed.\n$ python -m pytest -q\n17 passed in 0.04s"))


def test_a_round_quoting_output_no_tool_printed_is_a_fabricating_round(gym_task: Fixture):
    """The watch counts fabrication by the verifier's one rule (``fabricated_turns``), not only the
    wire token: a policy drifting to quoted tallies it never ran is the collapse it watches for."""
    settings = RoundSettings(attempts=1)
    before = round_health(sample_round(policy_sampler(ScriptedExpert()), [gym_task], 1, settings))
    after = round_health(sample_round(policy_sampler(QuotingExpert()), [gym_task], 2, settings))
    assert (before.fabricated_rate, after.fabricated_rate) == (0.0, 1.0)
    decision = collapse_decision(before, after, CollapseSettings())
    assert [r.split(" by ")[0] for r in decision.reasons] == ["fabricated-observation rate rose"]


def _measure(item: str, suite: str, accepted: bool) -> EpisodeMeasure:
    return EpisodeMeasure(
        item_id=item,
        fixture_id=item,
        suite=suite,
        regime="familiar_schema",
        seed=0,
        task_kind="fix",
        accepted=accepted,
        terminal_status="completed",
        fault_kinds=[],
        faults_fired=0,
        turns=4,
        call_turns=3,
        fabricated_turns=0,
        runaway_turns=0,
        generated_tokens=10,
        input_tokens=100,
        wall_s=0.1,
    )


def _scorecard(heldout: list[bool], retention: list[bool]) -> dict:
    """A real scorecard (evaluation's own builder) whose candidate arm has these outcomes."""
    measures = [_measure(f"a{i}", "acceptance", ok) for i, ok in enumerate(heldout)]
    measures += [_measure(f"r{i}", "retention", ok) for i, ok in enumerate(retention)]
    baseline = [dataclasses.replace(m, accepted=True) for m in measures]
    return build_scorecard(measures, baseline, training_keys=set(), training_keys_source="test")


def test_held_out_and_retention_acceptance_come_from_the_scorecard(gym_task: Fixture):
    sample = sample_round(policy_sampler(ScriptedExpert()), [gym_task], 1, RoundSettings(attempts=1))
    health = round_health(sample, _scorecard([True, True, False, True], [True, False]))
    assert (health.heldout_acceptance, health.retention_acceptance) == (0.75, 0.5)
    assert round_health(sample).heldout_acceptance is None  # no scorecard: not measured
    assert scorecard_acceptance(_scorecard([True], [])) == (1.0, None)  # no retention suite run


def test_a_held_out_or_retention_drop_beyond_tolerance_halts():
    settings = CollapseSettings(max_heldout_drop=0.10, max_retention_drop=0.05)
    before = dataclasses.replace(HEALTHY, heldout_acceptance=0.60, retention_acceptance=0.90)
    steady = _next(heldout_acceptance=0.55, retention_acceptance=0.88)
    assert not collapse_decision(before, steady, settings).halt
    heldout = collapse_decision(before, _next(heldout_acceptance=0.45, retention_acceptance=0.90), settings)
    assert heldout.halt and heldout.reasons == (
        "held-out acceptance fell by 0.150 from round 1 to round 2, beyond the 0.100 tolerance",
    )
    retention = collapse_decision(before, _next(heldout_acceptance=0.60, retention_acceptance=0.80), settings)
    assert retention.halt and [r.split(" by ")[0] for r in retention.reasons] == ["retention acceptance fell"]
    unmeasured = collapse_decision(before, _next(heldout_acceptance=0.60), settings)
    assert (
        unmeasured.halt
        and "retention acceptance was measured in round 1 but not in round 2" in (unmeasured.reasons[0])
    )
    assert not collapse_decision(HEALTHY, _next(heldout_acceptance=0.1), settings).halt  # no baseline yet


def _candidate(episode_id: str, sink: str = "admitted") -> Candidate:
    call = ToolCall("call_0_0", "read_file", json.dumps({"path": "secret.txt", "token": "sk-live-123"}))
    episode = Episode(
        episode_id,
        "native",
        "gym",
        None,
        None,
        None,
        task=TaskIdentity(fixture_id=f"task-{episode_id[-1]}"),
        events=[Event(kind="assistant", tool_calls=[call]), Event(kind="assistant", content="done")],
    )
    return Candidate(episode, sink=sink, role="pristine")


def test_the_audit_sample_is_deterministic_for_a_seed_and_shows_no_arguments():
    pool = [_candidate(f"ep-{i:02d}") for i in range(20)]
    first = audit_sample(pool, 5, seed=7, round_index=2)
    assert first == audit_sample(list(reversed(pool)), 5, seed=7, round_index=2)  # order does not matter
    assert len(first) == 5 and [e.episode_id for e in first] == sorted(e.episode_id for e in first)
    others = {tuple(e.episode_id for e in audit_sample(pool, 5, seed=s, round_index=2)) for s in range(8)}
    assert len(others) > 1  # the seed decides the draw
    assert first[0].tools == ("read_file",) and first[0].assistant_turns == 2
    assert "sk-live" not in json.dumps([e.to_dict() for e in first])
    assert len(audit_sample(pool[:3], 5, seed=7, round_index=2)) == 3
    with pytest.raises(ValueError, match="ep-x"):
        audit_sample([_candidate("ep-x", sink="hard_negative")], 5, seed=7, round_index=2)
