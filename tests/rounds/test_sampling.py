"""Sampling a round: pinned seeds, the full cascade's verdicts and ledger, and the sampler's digest
and round on every admitted trajectory (what staleness retirement and the retraining sensor read)."""

from __future__ import annotations

import json

import pytest

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert, WrongFixPolicy
from trajectory_platform.rounds.mix import next_mix
from trajectory_platform.rounds.sampling import (
    RoundSample,
    pinned_seed,
    policy_sampler,
    round_of,
    sample_round,
)
from trajectory_platform.rounds.settings import RoundSettings


@pytest.fixture(scope="module")
def expert_round(gym_task: Fixture) -> RoundSample:
    return sample_round(policy_sampler(ScriptedExpert()), [gym_task], 2, RoundSettings(attempts=2))


def test_every_admitted_trajectory_carries_the_sampler_digest_and_round(expert_round: RoundSample):
    sampler = policy_sampler(ScriptedExpert())
    assert len(expert_round.admitted) == 2
    for candidate in expert_round.admitted:
        assert candidate.episode.lineage.sampler_policy_digest == sampler.digest
        assert round_of(candidate.episode) == 2
        assert "runtime" in json.loads(candidate.episode.extra_json or "{}")  # the runtime's record is kept
    assert sampler.digest != policy_sampler(WrongFixPolicy()).digest


def test_the_round_reports_counts_per_sink_and_the_cascade_ledger(expert_round: RoundSample):
    summary = expert_round.summary()
    assert summary["sinks"] == {"admitted": 2}
    assert summary["ledger"]["attempts"] == 2
    assert [s["stage"] for s in summary["ledger"]["stages"]][:3] == ["syntactic", "static", "dynamic"]
    assert summary["ledger"]["monolithic_stages"]  # the staged/monolithic comparison is reported
    assert len({e.episode_id for e in expert_round.episodes}) == 2


def test_the_admitted_round_joins_the_mix_deduplicated(expert_round: RoundSample):
    mix = next_mix([], expert_round.admitted, 2, RoundSettings())
    assert len(mix.kept) == 1  # the deterministic expert's two attempts are one action sequence
    assert [d.reason for d in mix.dropped.values()] == ["duplicate_action_sequence"]


def test_seeds_are_pinned_per_round_task_and_attempt():
    assert pinned_seed(0, 1, "t", 0) == pinned_seed(0, 1, "t", 0)
    assert len({pinned_seed(0, r, "t", a) for r in range(3) for a in range(3)}) == 9
