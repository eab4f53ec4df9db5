"""Band selection: only tasks whose P_inform(p, k) lies in the declared band are sampled."""

from __future__ import annotations

import dataclasses

import pytest

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.dedup import p_inform
from trajectory_platform.evaluation.harness import evaluation_runtime
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert, WrongFixPolicy
from trajectory_platform.rounds.sampling import policy_sampler, sample_round, stamp
from trajectory_platform.rounds.selection import (
    PILOT_STREAM,
    learned_outcomes,
    pilot_estimates,
    pilot_fixtures,
    select_tasks,
    selected_fixtures,
)
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.traces.record import Episode, TaskIdentity


def _attempts(fixture_id: str, sinks: list[str]) -> list[Candidate]:
    return [
        Candidate(
            Episode(
                f"{fixture_id}-{i}",
                "native",
                "gym",
                None,
                None,
                None,
                task=TaskIdentity(fixture_id=fixture_id),
            ),
            sink=sink,
        )
        for i, sink in enumerate(sinks)
    ]


VERIFIED = [
    *_attempts("never", ["hard_negative"] * 4),
    *_attempts("always", ["admitted"] * 4),
    *_attempts("half", ["admitted", "hard_negative"] * 2),
    *_attempts("rare", ["admitted"] + ["hard_negative"] * 9),
    *_attempts("undecided", ["flaky_quarantine", "unverifiable"]),
]


def test_only_tasks_in_the_band_are_selected_and_the_rest_say_why():
    choices = {
        c.signal.fixture_id: c for c in select_tasks(VERIFIED, RoundSettings(attempts=8, band_low=0.6))
    }
    assert {fid for fid, c in choices.items() if c.selected} == {"half"}
    assert choices["half"].signal.p_inform == pytest.approx(p_inform(0.5, 8))
    assert "nearly always solved" in choices["always"].reason
    assert "rarely solved" in choices["never"].reason
    assert "rarely solved" in choices["rare"].reason  # p=0.1, k=8: P_inform 0.57 - 0.1^8 < 0.6
    assert "no oracle-decided attempt" in choices["undecided"].reason


def test_the_band_and_k_are_the_declared_settings():
    wide = select_tasks(VERIFIED, RoundSettings(attempts=8, band_low=0.4))
    assert {c.signal.fixture_id for c in wide if c.selected} == {"half", "rare"}  # P_inform(0.1, 8) = 0.57
    capped = select_tasks(VERIFIED, RoundSettings(attempts=8, band_low=0.4, band_high=0.9))
    assert {c.signal.fixture_id for c in capped if c.selected} == {"rare"}
    assert "> 0.9" in next(c for c in capped if c.signal.fixture_id == "half").reason
    few = select_tasks(VERIFIED, RoundSettings(attempts=1, band_low=0.4))  # P_inform(p, 1) = 0 always
    assert not any(c.selected for c in few)


def test_selected_fixtures_keep_the_catalog_order(gym_task: Fixture):
    other = dataclasses.replace(gym_task, fixture_id="half")
    choices = select_tasks(VERIFIED, RoundSettings(attempts=8))
    assert selected_fixtures(choices, [gym_task, other]) == [other]


def test_a_band_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="band_low"):
        RoundSettings(band_low=0.8, band_high=0.5)


def test_a_pilot_estimates_p_from_judged_attempts(gym_task: Fixture):
    expert, wrong = policy_sampler(ScriptedExpert()), policy_sampler(WrongFixPolicy())
    runtime = evaluation_runtime(8, 600)
    pilot = pilot_estimates(expert, [gym_task], 2, 0, RoundSettings(attempts=8), runtime=runtime)
    (solved,) = pilot.choices
    (unsolved,) = pilot_estimates(wrong, [gym_task], 1, 0, RoundSettings(attempts=8), runtime=runtime).choices
    assert (solved.signal.attempts, solved.signal.pass_rate, solved.selected) == (2, 1.0, False)
    assert "nearly always solved" in solved.reason
    assert (unsolved.signal.pass_rate, unsolved.selected) == (
        0.0,
        False,
    ) and "rarely solved" in unsolved.reason
    assert pilot.summary() == {
        "attempts": 2,
        "tasks_piloted": 1,
        "tasks_estimated": 1,
        "tasks_in_band": 0,
        "sinks": {"admitted": 2},
    }


def test_the_pilot_runs_under_the_rounds_runtime_limits(gym_task: Fixture):
    """The expert's plan takes four turns: a one-turn budget stops every pilot attempt after its read,
    so none passes (a runaway checkpoint is cut the same way instead of running for minutes)."""
    pilot = pilot_estimates(
        policy_sampler(ScriptedExpert()),
        [gym_task],
        2,
        1,
        RoundSettings(),
        runtime=evaluation_runtime(1, 600),
    )
    turns = [sum(e.kind == "assistant" for e in episode.events) for episode in pilot.sample.episodes]
    assert turns == [1, 1] and pilot.summary()["sinks"] == {"hard_negative": 2}


class SeedLog(ScriptedExpert):
    """The scripted expert, noting the seed of every episode it starts (to compare streams)."""

    seeds: list[int] = []

    def start(self, fixture: Fixture, seed: int) -> None:
        self.seeds.append(seed)
        super().start(fixture, seed)


def test_pilot_seeds_and_episode_ids_differ_from_the_main_samplings(gym_task: Fixture):
    policy = SeedLog()
    policy.seeds = []
    sampler, settings = policy_sampler(policy), RoundSettings(attempts=2)
    pilot = pilot_estimates(sampler, [gym_task], 2, 1, settings, runtime=evaluation_runtime())
    pilot_seeds = list(policy.seeds)
    main = sample_round(sampler, [gym_task], 1, settings)
    main_seeds = policy.seeds[len(pilot_seeds) :]
    assert len(set(pilot_seeds)) == len(set(main_seeds)) == 2 and not set(pilot_seeds) & set(main_seeds)
    pilot_ids, main_ids = ({e.episode_id for e in s.episodes} for s in (pilot.sample, main))
    assert not pilot_ids & main_ids and all(f"-{PILOT_STREAM}-" in i for i in pilot_ids)


def test_only_attempts_a_round_sampled_estimate_p(gym_task: Fixture):
    """The corpus's scripted outcomes (no round recorded) are left out, a round's attempts kept."""
    assert learned_outcomes(VERIFIED) == []
    sampled = [
        dataclasses.replace(c, episode=stamp(c.episode, policy_sampler(ScriptedExpert()), 1))
        for c in VERIFIED
    ]
    assert learned_outcomes(sampled) == sampled


def test_the_pilot_draw_is_seeded_and_keeps_the_catalogue_order(gym_task: Fixture):
    tasks = [dataclasses.replace(gym_task, fixture_id=f"t{i}") for i in range(10)]
    drawn = pilot_fixtures(tasks, 3, 0, 1)
    assert drawn == pilot_fixtures(tasks, 3, 0, 1) and len(drawn) == 3
    assert [tasks.index(f) for f in drawn] == sorted(tasks.index(f) for f in drawn)
    assert pilot_fixtures(tasks, 0, 0, 1) == tasks == pilot_fixtures(tasks, 12, 0, 1)
    assert len({tuple(f.fixture_id for f in pilot_fixtures(tasks, 3, 0, r)) for r in range(1, 6)}) > 1
