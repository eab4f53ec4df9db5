"""Structural reachability of a fault schedule (curation §Fault-injection synthesis).

:func:`check_reachability` replays the scripted expert's recovery under a schedule and accepts it
only when every fault fired and the sealed oracle still passes: only then is the schedule used to
generate recovery traces or to measure recovery. It runs whole episodes, so it sits above the
runtime and the scripted policies, not inside the fault model they use.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from trajectory_platform.gym.faults import FaultSpec, schedule_faults
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import run_episode


def reachable_schedule(
    fixture: Fixture,
    rng: random.Random,
    kinds: list[str] | None = None,
    before_fix: bool = True,
    tries: int = 3,
) -> list[FaultSpec] | None:
    """A schedule from :func:`schedule_faults` that passed :func:`check_reachability`, or ``None``."""
    for _ in range(tries):
        schedule = schedule_faults(fixture, rng, kinds, before_fix)
        if schedule and check_reachability(fixture, schedule).ok:
            return schedule
    return None


@dataclass
class Reachability:
    """Whether the goal stays reachable under a fault schedule, with the evidence."""

    ok: bool
    reason: str
    fired: list[dict]


_REACHABILITY_CACHE: dict[tuple, Reachability] = {}


def check_reachability(fixture: Fixture, schedule: list[FaultSpec]) -> Reachability:
    """Replay the scripted expert's recovery under ``schedule``; reachable iff every fault fired
    and the sealed oracle passes (cached per fixture and schedule)."""
    key = (fixture.fixture_id, fixture.s0_digest, tuple(schedule))
    if key not in _REACHABILITY_CACHE:
        result = run_episode(fixture, ScriptedExpert(), faults=schedule, verify=True)
        fired = result.faults
        if len(fired) < len(schedule):
            verdict = Reachability(False, "a scheduled fault never fired on the expert's path", fired)
        elif result.oracle is None or not result.oracle.passed:
            verdict = Reachability(
                False,
                f"the expert's recovery does not reach the goal (terminal {result.terminal_status})",
                fired,
            )
        else:
            verdict = Reachability(True, "expert recovery replay passes the sealed oracle", fired)
        _REACHABILITY_CACHE[key] = verdict
    return _REACHABILITY_CACHE[key]
