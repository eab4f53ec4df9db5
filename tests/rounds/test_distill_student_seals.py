"""A context-distilled student is a record the platform makes, so the platform seals it: its fault
schedule and end are sealed again over the student's id and events where its teacher's held under
the pipeline's key, and never where they did not; no teacher seal (over the teacher's id) is
carried. Before, a student carried its teacher's seals: its end never counted as sealed and a
student of a faulted teacher was refused as a schedule no runtime injected."""

from __future__ import annotations

import copy
import random

import pytest

from trajectory_platform.curation.verify.cascade import CascadeConfig, verify_episodes
from trajectory_platform.gym.faults import FAULT_KINDS, FAULTS_SEAL
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert, WrongFixPolicy
from trajectory_platform.gym.prompts import PROMPT_SEAL, long_prompt
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.runtime import (
    END_SEAL,
    RuntimeConfig,
    end_sealed,
    faults_sealed,
    prompt_sealed,
    recorded_faults,
    run_episode,
)
from trajectory_platform.rounds.distill import context_distilled
from trajectory_platform.traces.record import LOGGED_ID_KEY, Episode, canonical_json

KEY = b"pipeline-seal-key"


def _schedule(fixture: Fixture) -> list:
    rng = random.Random(0)
    return next(s for kind in FAULT_KINDS if (s := reachable_schedule(fixture, rng, [kind])))


@pytest.fixture(scope="module")
def teachers(gym_task: Fixture) -> dict[str, Episode]:
    """Long-prompt teachers the runtime sealed under the key: faulted, timed out, a wrong fix."""
    runs = {
        "faulted expert": (ScriptedExpert(), _schedule(gym_task), None),
        "timed out": (ScriptedExpert(), [], RuntimeConfig(wall_timeout_s=0.0)),
        "faulted wrong fix": (WrongFixPolicy(), _schedule(gym_task), None),
    }
    return {
        name: run_episode(
            gym_task,
            policy,
            faults=faults,
            config=config,
            system_prompt=long_prompt(),
            seal_key=KEY,
            episode_id=f"teacher-{index}",
        ).episode
        for index, (name, (policy, faults, config)) in enumerate(runs.items())
    }


def _seals(episode: Episode, key: bytes = KEY) -> dict[str, bool]:
    return {
        "end": end_sealed(episode, key),
        "faults": faults_sealed(episode, key),
        "prompt": prompt_sealed(episode, key),
    }


def _renamed(teacher: Episode) -> Episode:
    """The teacher as ingest names it when its id collided (the id its log wrote kept beside)."""
    renamed = copy.deepcopy(teacher)
    renamed.episode_id = f"{teacher.episode_id}~0badc0de"
    renamed.extra_json = canonical_json({**teacher.extra(), LOGGED_ID_KEY: teacher.episode_id})
    return renamed


def test_a_student_of_a_sealed_teacher_is_sealed_as_its_own_run(teachers):
    for name, teacher in teachers.items():
        for source in (teacher, _renamed(teacher)):
            assert _seals(source) == {"end": True, "faults": True, "prompt": True}, name
            student = context_distilled(source, seal_key=KEY)
            assert student.logged_id() == student.episode_id == f"{source.episode_id}-ctx"
            assert recorded_faults(student) == recorded_faults(teacher)
            assert _seals(student) == {"end": True, "faults": True, "prompt": True}, name
            assert _seals(student, b"another-key") == {
                "end": False,
                "faults": not recorded_faults(teacher),
                "prompt": True,
            }


def _unsealed_teachers(teacher: Episode) -> dict[str, tuple[Episode, set[str]]]:
    """A teacher whose schedule or end does not hold under the key, and what its student must lack."""

    def edited(change) -> Episode:
        forged = copy.deepcopy(teacher)
        change(forged)
        return forged

    def without(key: str):
        return lambda e: setattr(
            e, "extra_json", canonical_json({k: v for k, v in e.extra().items() if k != key})
        )

    return {
        "faults seal removed": (edited(without(FAULTS_SEAL)), {"faults"}),
        "end seal removed": (edited(without(END_SEAL)), {"end"}),
        "final answer edited": (edited(lambda e: setattr(e.outcome, "final_answer", "fixed")), {"end"}),
        "status stated": (edited(lambda e: setattr(e.outcome, "terminal_status", "timeout")), {"end"}),
        "a fault added": (
            edited(
                lambda e: setattr(
                    e, "extra_json", canonical_json({**e.extra(), "faults": e.extra()["faults"] * 2})
                )
            ),
            {"faults"},
        ),
    }


def test_a_student_never_seals_what_its_teacher_only_stated(teachers):
    for name, teacher in teachers.items():
        if not recorded_faults(teacher) or teacher.outcome.terminal_status == "timeout":
            continue
        for edit, (forged, lacking) in _unsealed_teachers(teacher).items():
            student = context_distilled(forged, seal_key=KEY)
            assert {k for k, held in _seals(student).items() if not held} == lacking, (name, edit)


def test_without_the_key_no_teacher_seal_is_carried(teachers):
    for teacher in teachers.values():
        extra = context_distilled(_renamed(teacher)).extra()
        assert not {PROMPT_SEAL, FAULTS_SEAL, END_SEAL, LOGGED_ID_KEY} & set(extra)


def test_the_cascade_admits_the_faulted_experts_student(teachers, gym_task: Fixture):
    student = context_distilled(teachers["faulted expert"], seal_key=KEY)
    cascade = CascadeConfig(progress=False, workers=1, seal_key=KEY)
    (verdict,) = verify_episodes([student], {gym_task.fixture_id: gym_task}, cascade).verdicts
    assert (verdict.sink, verdict.role) == ("admitted", "recovery")
