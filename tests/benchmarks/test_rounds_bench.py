"""The rounds benchmark's pure parts (benchmarks/rounds.py): every arm trains the same steps per
round (the control is compute-matched), the round-0 corpus survives staleness as anchors, the
paired comparisons pool (seed, item) against round 0 and the control, and the result JSON keeps its
shape. No training here: the end-to-end run is ``rounds.py --quick``."""

from __future__ import annotations

import json
from dataclasses import replace

from ablation.corpus import expert_corpus
from rounds import (
    ARMS,
    QUICK,
    BenchSettings,
    anchors,
    arm_schedule,
    assemble,
    comparisons,
    estimate,
    extra_steps,
    latest_outcomes,
    summary_lines,
)

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.gym.library import LEARNABLE_FAMILIES, learnable_fixture
from trajectory_platform.rounds.mix import next_mix
from trajectory_platform.rounds.settings import RoundSettings


def test_every_arm_trains_the_same_steps_each_round():
    settings = replace(BenchSettings(), rounds=3, round_steps=40)
    schedule = arm_schedule(settings)
    assert set(schedule) == set(ARMS)
    for rows in schedule.values():
        assert [(row["round"], row["steps"]) for row in rows] == [(1, 40), (2, 40), (3, 40)]
    assert extra_steps(schedule) == dict.fromkeys(ARMS, 120)
    assert "round-0" in schedule["control"][0]["adds"]
    lopsided = {**schedule, "control": schedule["control"][:2]}
    assert extra_steps(lopsided)["control"] != extra_steps(lopsided)["rounds"]


def test_the_default_fits_the_hour_and_quick_is_minutes():
    default = estimate(BenchSettings(), workers=2, step_s=1.0, episode_s=1.5, setup_s=20.0)
    assert 20 <= default["minutes"] <= 65
    assert default["steps_per_seed"] == 200 + 3 * 3 * 60
    assert estimate(QUICK, workers=2, step_s=1.0, episode_s=1.5, setup_s=20.0)["minutes"] < 5
    doubled = estimate(
        replace(BenchSettings(), round_steps=120), workers=2, step_s=1.0, episode_s=1.5, setup_s=20.0
    )
    assert doubled["minutes"] > default["minutes"]


def test_the_round_zero_corpus_survives_staleness_as_anchors():
    inputs = expert_corpus([learnable_fixture(LEARNABLE_FAMILIES[0], task, "path", 0) for task in (0, 1)])
    corpus = anchors(inputs)
    assert all(c.anchor and c.sink == "admitted" for c in corpus)
    settings = RoundSettings(staleness_rounds=2)
    assert len(next_mix(corpus, [], 3, settings).kept) == 2
    plain = [Candidate(c.episode, sink="admitted", role=c.role) for c in corpus]
    assert next_mix(plain, [], 3, settings).kept == []  # what anchoring prevents


def test_band_selection_reads_each_tasks_latest_outcomes():
    episodes = [
        i.episode
        for i in expert_corpus([learnable_fixture(LEARNABLE_FAMILIES[0], t, "path", 0) for t in (0, 1)])
    ]
    first, second = (Candidate(e, sink="admitted", role="pristine") for e in episodes)
    history = latest_outcomes({}, [first, second])
    assert {k: [c.sink for c in v] for k, v in history.items()} == {
        first.fixture_id: ["admitted"],
        second.fixture_id: ["admitted"],
    }
    failed = Candidate(first.episode, sink="hard_negative", role="pristine")
    updated = latest_outcomes(history, [failed])
    assert updated[first.fixture_id] == [failed] and updated[second.fixture_id] == [second]
    assert history[first.fixture_id] == [first]  # the caller's history is not changed


def _outcomes(seeds: int, rounds: int) -> tuple[dict[int, list[bool]], dict]:
    zero = {seed: [False, False, True, False] for seed in range(seeds)}
    arms = (
        {("rounds", seed): [[True, True, True, False]] * rounds for seed in range(seeds)}
        | {("control", seed): [[False, False, True, False]] * rounds for seed in range(seeds)}
        | {("dagger", seed): [[False, False, False, False]] * rounds for seed in range(seeds)}
    )
    return zero, arms


def test_comparisons_pool_seeds_against_round_zero_and_the_control():
    zero, arms = _outcomes(seeds=3, rounds=2)
    rows = comparisons(zero, arms)
    keyed = {(r["arm"], r["round"], r["against"]): r for r in rows}
    assert set(keyed) == {
        (arm, rnd, against)
        for arm in ARMS
        for rnd in (1, 2)
        for against in (("round0",) if arm == "control" else ("round0", "control"))
    }
    up = keyed[("rounds", 1, "round0")]
    assert up["n"] == 12 and abs(up["estimate"] - 0.5) < 1e-9 and up["candidate_only"] == 6
    assert up["ci_low"] <= up["estimate"] <= up["ci_high"]
    assert up["bootstrap_ci"][0] <= up["estimate"] <= up["bootstrap_ci"][1]
    assert keyed[("control", 2, "round0")]["estimate"] == 0.0
    assert keyed[("dagger", 1, "control")]["baseline_only"] == 3


def test_the_result_json_has_its_shape_and_a_summary():
    settings = replace(QUICK, seeds=2, rounds=2)
    zero, arms = _outcomes(seeds=2, rounds=2)
    runs = {
        (arm, seed): {
            "arm": arm,
            "seed": seed,
            "seconds": 1.0,
            "rounds": [
                {
                    "round": r + 1,
                    "admitted": 2 if arm == "rounds" else 0,
                    "joined_mix": 1 if arm == "rounds" else 0,
                    "held_out": outcome,
                    **({"dagger": {"learner_state_disagreement": 0.5}} if arm == "dagger" else {}),
                }
                for r, outcome in enumerate(arms[(arm, seed)])
            ],
        }
        for (arm, seed) in arms
    }
    zeros = {seed: {"held_out": outcome, "checkpoint": "x"} for seed, outcome in zero.items()}
    result = assemble(settings, {"minutes": 1.0}, zeros, runs)
    assert set(result) == {"settings", "estimate", "schedule", "extra_steps", "round0", "runs", "comparisons"}
    assert set(result["runs"]) == {f"{arm}-{seed}" for arm in ARMS for seed in (0, 1)}
    assert result["extra_steps"] == dict.fromkeys(ARMS, 2 * QUICK.round_steps)
    assert json.loads(json.dumps(result))["settings"]["rounds"] == 2
    lines = summary_lines(result)
    assert lines[0].startswith("round 0: held-out acceptance 0.250")
    rounds_row = next(line for line in lines if line.startswith("rounds") and line.split()[1] == "1")
    assert rounds_row.split()[2:4] == ["0.750", "4/2"]
    assert any(line.startswith("dagger") and "0.50" in line for line in lines)
