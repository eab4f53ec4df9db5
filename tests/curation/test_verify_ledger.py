"""Ledger arithmetic against curation napkin math 0.2 and the R_flake / yield-band rules."""

import math

import pytest

from trajectory_platform.curation.verify.ledger import (
    Ledger,
    StageCost,
    accepted_cost,
    cumulative_yield,
    expected_attempt_cost,
)

SEED_COSTS = [0.00005, 0.12, 8.5, 0.45, 15.0]
SEED_PASS = [0.65, 0.40, 0.25, 0.85, 0.70]


def test_seed_worked_example_c_attempt_and_yield():
    c_attempt = expected_attempt_cost(SEED_COSTS, SEED_PASS)
    assert c_attempt == pytest.approx(3.14605, abs=1e-9)
    assert round(c_attempt, 3) == 3.146
    y = cumulative_yield(SEED_PASS)
    assert y == pytest.approx(0.038675)
    assert round(100 * y, 2) == 3.87
    assert math.floor(100_000 * y) == 3867
    assert accepted_cost(c_attempt, y) == pytest.approx(3.14605 / 0.038675)


def test_seed_naive_monolithic_order_and_saving():
    # napkin math 0.2 step 2: dynamic (p3) first, then static (p2), then semantic triage
    naive = expected_attempt_cost([8.5, 0.12, 15.0], [0.25, 0.40, 1.0])
    assert naive == pytest.approx(10.03)
    saving = (naive - expected_attempt_cost(SEED_COSTS, SEED_PASS)) / naive
    assert round(100 * saving, 1) == 68.6


def test_accepted_cost_is_unbounded_without_acceptances():
    assert accepted_cost(1.0, 0.0) is None


def _ledger(stages, monolithic=(), inconsistent=0, judged=0, band=(0.05, 0.5)):
    return Ledger(
        attempts=stages[0].entered,
        stages=list(stages),
        monolithic=list(monolithic),
        routing_wall_s=0.0,
        oracle_runs=judged,
        dynamic_verified=judged,
        inconsistent=inconsistent,
        retired_fixtures=[],
        yield_band=band,
    )


def test_measured_counters_reproduce_eq1_and_eq2():
    # 100 attempts through the seed's pass rates with measured seconds per stage
    stages = [
        StageCost("syntactic", 100, 65, 100 * 0.00005),
        StageCost("static", 65, 26, 65 * 0.12),
        StageCost("dynamic", 26, 6, 26 * 8.5),
        StageCost("delta", 6, 5, 6 * 0.45),
        StageCost("advisory", 5, 5, 5 * 15.0),
    ]
    ledger = _ledger(stages)
    assert ledger.c_attempt == pytest.approx(ledger.measured_c_attempt)
    assert ledger.yield_ == pytest.approx(5 / 100)
    assert ledger.c_accepted == pytest.approx(ledger.c_attempt / 0.05)
    summary = ledger.summary()
    assert summary["stages"][2] == {
        "stage": "dynamic",
        "entered": 26,
        "passed": 6,
        "wall_s": 221.0,
        "c": 8.5,
        "p": round(6 / 26, 6),
    }


def test_cost_ratio_compares_monolithic_to_staged():
    stages = [StageCost("syntactic", 10, 5, 0.001), StageCost("dynamic", 5, 5, 5.0)]
    monolithic = [StageCost("dynamic", 10, 8, 10.0)]
    ledger = _ledger(stages, monolithic)
    assert ledger.monolithic_c_attempt == pytest.approx(1.0)
    assert ledger.cost_ratio == pytest.approx(1.0 / ledger.c_attempt)
    assert ledger.cost_ratio > 1.9


def test_r_flake_above_two_percent_halts_admission():
    stages = [StageCost("dynamic", 100, 10, 1.0)]
    assert not _ledger(stages, inconsistent=2, judged=100).admission_halted
    halted = _ledger(stages, inconsistent=3, judged=100)
    assert halted.r_flake == pytest.approx(0.03)
    assert halted.admission_halted
    assert any("admission halted" in w for w in halted.health_warnings())


def test_yield_outside_band_warns_and_high_yield_flags_lax_verifier():
    inside = _ledger([StageCost("dynamic", 100, 10, 1.0)])
    assert inside.health_warnings() == []
    lax = _ledger([StageCost("dynamic", 100, 60, 1.0)])
    assert lax.lax_verifier
    warnings = lax.health_warnings()
    assert any("outside declared band" in w for w in warnings)
    assert any("lax" in w for w in warnings)
    low = _ledger([StageCost("dynamic", 100, 1, 1.0)])
    assert not low.lax_verifier and any("outside declared band" in w for w in low.health_warnings())
