"""The context-distillation benchmark's pure parts (benchmarks/context_distill.py): the gap-closed
arithmetic (undefined when the long prompt opens no gap), the compute-matched schedule, the
estimate's size, the held-out harness shown the long prompt, and the result's comparisons. No
training here: the end-to-end run is ``context_distill.py --quick``."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from context_distill import (
    ARMS,
    DEFAULT,
    SMOKE,
    UnderPrompt,
    assemble,
    estimate,
    gap_closed,
    schedule,
    summary_lines,
)

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policy import Policy, PolicyInput, PolicyTurn
from trajectory_platform.gym.prompts import long_prompt
from trajectory_platform.gym.runtime import SYSTEM_PROMPT
from trajectory_platform.traces.record import Event


def test_gap_closed_is_the_students_share_of_the_long_prompts_gain():
    assert gap_closed(short=0.2, long=0.6, student=0.3) == pytest.approx(0.25)
    assert gap_closed(short=0.2, long=0.6, student=0.6) == pytest.approx(1.0)
    assert gap_closed(short=0.2, long=0.6, student=0.1) == pytest.approx(-0.25)
    assert gap_closed(short=0.2, long=0.2, student=0.5) is None  # no gap: nothing to close
    assert gap_closed(short=0.3, long=0.1, student=0.3) is None  # the long prompt hurts


def test_student_and_control_train_the_same_steps_from_the_same_checkpoint():
    plan = schedule(replace(DEFAULT, round_steps=45))
    assert set(plan) == set(ARMS)
    assert {arm: row["steps"] for arm, row in plan.items()} == dict.fromkeys(ARMS, 45)
    assert "distilled" in plan["student"]["data"] and "distilled" not in plan["control"]["data"]


def test_one_seed_fits_half_an_hour_and_the_smoke_run_minutes():
    one = estimate(DEFAULT, workers=2, step_s=3.3, episode_s=2.0, trained_here=True)
    assert one["minutes"] <= 30
    reused = estimate(DEFAULT, workers=2, step_s=3.3, episode_s=2.0, trained_here=False)
    assert reused["minutes"] < one["minutes"]  # --checkpoint skips round 0's training
    assert estimate(SMOKE, workers=2, step_s=3.3, episode_s=2.0, trained_here=True)["minutes"] < 3


class _Echo(Policy):
    """Answers with the system prompt it was shown: what the wrapper delivers, observed."""

    name = "echo"

    def start(self, fixture: Fixture, seed: int) -> None:
        pass

    def act(self, inp: PolicyInput) -> PolicyTurn:
        return PolicyTurn(text=next(e.content or "" for e in inp.messages if e.kind == "system"))

    def sampling_params(self) -> dict:
        return {}

    def describe(self) -> dict:
        return {"policy": self.name}


def test_the_held_out_policy_is_shown_the_long_prompt_and_nothing_else_changes():
    messages = [Event(kind="system", content=SYSTEM_PROMPT), Event(kind="user", content="fix it")]
    inp = PolicyInput(messages=messages, tools=[], tools_version="v", step=0)
    wrapped = UnderPrompt(_Echo(), long_prompt())
    assert wrapped.act(inp).text == long_prompt()
    assert messages[0].content == SYSTEM_PROMPT  # the harness's own input is left as it was
    assert wrapped.describe()["system_prompt"] == long_prompt()


def test_the_result_pairs_the_gap_and_the_student_against_round_zero_and_the_control():
    zero = {seed: {"held_out": [False, True, False, False], "checkpoint": "x"} for seed in (0, 1)}
    student = {
        "long_prompt_held_out": [True, True, False, True],
        "held_out": [True, True, False, False],
        "admitted": 3,
        "distilled": 2,
        "joined_mix": 1,
        "source_token_shares": {"context_distilled": 0.01},
    }
    control = {"held_out": [False, True, False, False]}
    runs = {("student", s): student for s in zero} | {("control", s): control for s in zero}
    result = assemble(SMOKE, {"minutes": 1.0}, zero, runs)
    assert result["acceptance"] == {"round0": 0.25, "long_prompt": 0.75, "student": 0.5, "control": 0.25}
    assert result["gap"] == pytest.approx(0.5)
    assert result["gap_closed"] == {"over_round0": pytest.approx(0.5), "over_control": pytest.approx(0.5)}
    keyed = {(r["candidate"], r["against"]): r for r in result["comparisons"]}
    assert set(keyed) == {("long_prompt", "round0"), ("student", "round0"), ("student", "control")}
    assert keyed[("student", "control")]["n"] == 8 and keyed[("student", "control")]["candidate_only"] == 2
    assert keyed[("long_prompt", "round0")]["estimate"] == pytest.approx(0.5)
    assert json.loads(json.dumps(result, default=str))["schedule"]["control"]["steps"] == SMOKE.round_steps
    lines = summary_lines(result)
    assert lines[0].startswith("held-out acceptance: round0 short 0.250, round0 long 0.750 (gap +0.500)")
    assert any(line.startswith("student-0: admitted 3, distilled 2, joined mix 1") for line in lines)
