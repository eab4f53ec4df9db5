"""A round's log is judged as a gym log is: its cascade is ``verified_traces``' own, keyed by the
pipeline key and built from the settings it ran with (``RoundRunSettings.cascade`` through
``VerifySettings.cascade``), so a fault schedule it records counts only with the runtime's seal under
the pipeline's seal key."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from trajectory_platform.curation.verify.cascade import VerifySettings, verify_episodes
from trajectory_platform.gym.faults import FaultSpec
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.rounds.sampling import policy_sampler, stamp
from trajectory_platform.rounds.stage import RoundRunSettings
from trajectory_platform.traces.record import Episode

MASTER_KEY = b"m" * 32


def test_the_rounds_cascade_is_verified_traces_own(tmp_path: Path):
    """One plumbing: the settings ``verified_traces`` ran with, its keys and cache, through
    ``VerifySettings.cascade``; only the number of judging threads is the round's own. A round
    judged by the default settings admitted what the corpus's cascade (here: more oracle reruns,
    lint, another yield band, fresh judges) would judge otherwise."""
    corpus = VerifySettings(reruns=5, lint=False, yield_low=0.2, yield_high=0.6, keep_judges=False, workers=9)
    cascade = RoundRunSettings(workers=2).cascade(corpus, master_key=MASTER_KEY, calibration_cache=tmp_path)
    assert cascade == dataclasses.replace(corpus, workers=2).cascade(
        False, master_key=MASTER_KEY, calibration_cache=tmp_path
    )
    assert (cascade.dynamic.reruns, cascade.lint, cascade.yield_band, cascade.keep_judges) == (
        5,
        False,
        (0.2, 0.6),
        False,
    )
    assert cascade.workers == 2 and cascade.seal_key is not None and cascade.differential_key


def _round_attempt(fixture: Fixture, episode_id: str, faults: list[FaultSpec], key: bytes | None) -> Episode:
    """A round attempt run under ``faults``, stamped with its sampler and round as a round stamps it."""
    result = run_episode(
        fixture, ScriptedExpert(), seed=3, faults=faults, episode_id=episode_id, verify=False, seal_key=key
    )
    return stamp(result.episode, policy_sampler(ScriptedExpert()), 1)


def test_a_round_attempts_schedule_counts_only_with_the_runtimes_seal(gym_task: Fixture):
    """Sealed under the pipeline's key: admitted as the recovery it is. Its schedule edited (the
    seal kept), or never sealed: ``faults_not_the_runtimes``, as for a gym log."""
    cascade = RoundRunSettings().cascade(VerifySettings(), master_key=MASTER_KEY, calibration_cache=None)
    schedule = reachable_schedule(gym_task, random.Random(0))
    assert schedule
    sealed = _round_attempt(gym_task, "r1-sealed", schedule, cascade.seal_key)
    edited = _round_attempt(gym_task, "r1-edited", schedule, cascade.seal_key)
    extra = json.loads(edited.extra_json or "{}")
    extra["faults"] = [{**fault, "at_call": fault["at_call"] + 1} for fault in extra["faults"]]
    edited.extra_json = json.dumps(extra)
    unsealed = _round_attempt(gym_task, "r1-unsealed", schedule, None)
    lookup = {gym_task.fixture_id: gym_task}
    verdicts = verify_episodes([sealed, edited, unsealed], lookup, cascade).by_id()
    assert (verdicts["r1-sealed"].sink, verdicts["r1-sealed"].role) == ("admitted", "recovery")
    for name in ("r1-edited", "r1-unsealed"):
        assert (verdicts[name].sink, verdicts[name].reason) == (
            "tamper_quarantine",
            "faults_not_the_runtimes",
        )
