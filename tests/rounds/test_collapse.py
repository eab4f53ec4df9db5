"""The collapse watch: each figure against its declared tolerance, and a halt with a reason on a
real round whose sampler fabricates observations."""

from __future__ import annotations

import dataclasses

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import FabricatingStub, ScriptedExpert
from trajectory_platform.rounds.collapse import RoundHealth, collapse_decision, round_health
from trajectory_platform.rounds.sampling import policy_sampler, sample_round
from trajectory_platform.rounds.settings import CollapseSettings, RoundSettings

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
    assert (after.acceptance, after.fabricated_rate) == (0.0, 1.0)
    decision = collapse_decision(before, after, CollapseSettings())
    assert decision.halt
    assert [r.split(" by ")[0] for r in decision.reasons] == [
        "acceptance fell",
        "fabricated-observation rate rose",
    ]
