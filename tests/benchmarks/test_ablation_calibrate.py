"""The ablation's calibration (benchmarks/ablation/calibrate.py, the --quick tier of
benchmarks/ablations.py): measurement mechanics, never which variant wins.

Scripted policies with exactly predictable scores go through the real evaluator (runtime, sealed
oracle, episode measures, scorecard aggregation), then a seconds-long training run must lower its
loss and reproduce itself bit for bit.
"""

from pathlib import Path

import pytest
from ablation.calibrate import (
    CALIBRATED,
    CALIBRATION_ITEMS,
    EXPECTED_STUBS,
    SAME_COST,
    calibrated,
    evaluation_sample,
    mean_step_seconds,
    smoke_training,
    stub_deviations,
    stub_mechanics,
)
from ablation.compare import REFERENCE
from ablation.run import VARIANTS


@pytest.fixture(scope="module")
def stubs():
    return stub_mechanics()


def test_expert_is_accepted_everywhere(stubs):
    expert = stubs["expert"]
    assert expert["acceptance"] == 1.0 and expert["recovery"] == 1.0 and expert["retention"] == 1.0
    assert expert["fabricated_observation_rate"] == 0.0 and expert["runaway_rate"] == 0.0
    counts = expert["call_validity"]["counts"]
    policy_faults = ("malformed_serialization", "truncated_proposal", "undeclared_tool", "schema_violation")
    assert all(counts[c] == 0 for c in policy_faults)
    assert counts["tool_execution_error"] > 0  # injected faults are execution errors, not the policy's
    assert expert["sfa"]["renamed"] == 1.0 and expert["pre"]["renamed"] == 0.0


def test_stale_key_stub_recalls_training_keys_on_renamed_schemas(stubs):
    stale = stubs["stale_key"]
    assert stale["pre"]["renamed"] == 1.0
    assert stale["sfa"]["renamed"] == 0.0
    assert stale["call_validity"]["counts"]["schema_violation"] > 0


def test_fabricating_stub_fabricates_in_every_episode(stubs):
    assert stubs["fabricating"]["fabricated_observation_rate"] == 1.0
    assert stubs["fabricating"]["fabricated_turn_rate"] == 1.0


def test_never_recovering_stub_never_recovers(stubs):
    never = stubs["never_recovering"]
    assert never["recovery"] == 0.0
    assert never["acceptance"] == 1.0  # it is the expert until a fault strikes
    assert len(never["recovery_by_kind"]) >= 2


def test_no_end_token_stub_always_runs_away(stubs):
    runaway = stubs["no_end_token"]
    assert runaway["runaway_rate"] == 1.0
    assert runaway["acceptance"] == 0.0
    counts = runaway["call_validity"]["counts"]
    assert counts["truncated_proposal"] == runaway["call_validity"]["total"] > 0


def test_smoke_training_loss_falls_and_is_deterministic(eval_workdir: Path, tmp_path: Path):
    result = smoke_training(eval_workdir, tmp_path / "runs", steps=6, tasks=6)
    first, second = result["runs"]
    assert first["losses"][-1] < first["losses"][0]
    assert first["digest"] == second["digest"]
    assert first["losses"] == second["losses"]
    assert first["episodes"] == second["episodes"]
    assert len(first["episodes"]) == 2


def test_every_stub_measures_exactly_what_it_must(stubs):
    rows = stub_deviations(stubs)
    assert len(rows) == sum(len(expected) for expected in EXPECTED_STUBS.values())
    assert [row for row in rows if row[2] != row[3]] == []


def test_every_variant_has_a_calibrated_step_time_and_the_plan_reads_their_mean():
    """The all-token loop (no shared prefix, the head everywhere) costs about twice the reference's
    step: a plan from the reference alone projected 75 min for a run that took longer."""
    assert "compute_matched" not in CALIBRATED
    assert set(CALIBRATED) | set(SAME_COST) == set(VARIANTS)
    measured = {"selected": 1.0, "all_token": 3.0, "augmented": 2.0, "recovery": 1.0}
    assert mean_step_seconds(measured) == pytest.approx((1.0 + 3.0 + 2.0 + 1.0 + 3.0) / 5)


def test_a_run_of_some_claims_calibrates_and_plans_only_the_variants_it_trains():
    assert calibrated(("selected", "recovery")) == ("selected", "recovery")
    assert calibrated(("selected", "all_token", "compute_matched")) == ("selected", "all_token")
    measured = {"selected": 1.0, "recovery": 2.0}
    assert mean_step_seconds(measured, ("selected", "recovery")) == pytest.approx(1.5)


def test_only_the_first_calibrated_variant_measures_the_evaluation_bound():
    """Every variant runs the same items under the same budget, so the reference's barely trained
    checkpoint alone bounds the evaluation; its sample's share scales the time to the suite."""
    items = [object()] * (2 * CALIBRATION_ITEMS)
    for claims in (("selected", "all_token", "augmented", "recovery"), ("selected", "recovery")):
        first = calibrated(claims)[0]
        assert first == REFERENCE
        assert evaluation_sample(items, first, first) == (items[:CALIBRATION_ITEMS], 0.5)
        assert all(evaluation_sample(items, v, first) == ([], 0.0) for v in calibrated(claims)[1:])
