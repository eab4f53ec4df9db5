"""Band selection: only tasks whose P_inform(p, k) lies in the declared band are sampled."""

from __future__ import annotations

import dataclasses

import pytest

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.dedup import p_inform
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert, WrongFixPolicy
from trajectory_platform.rounds.sampling import policy_sampler
from trajectory_platform.rounds.selection import pilot_estimates, select_tasks, selected_fixtures
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
    (solved,) = pilot_estimates(expert, [gym_task], 2, 0, RoundSettings(attempts=8))
    (unsolved,) = pilot_estimates(wrong, [gym_task], 1, 0, RoundSettings(attempts=8))
    assert (solved.signal.attempts, solved.signal.pass_rate, solved.selected) == (2, 1.0, False)
    assert "nearly always solved" in solved.reason
    assert (unsolved.signal.pass_rate, unsolved.selected) == (
        0.0,
        False,
    ) and "rarely solved" in unsolved.reason
