"""The ablation's plan (benchmarks/ablation/plan.py): steps from measured costs, declared steps
projected, refusals; and the compact tool view the variants train on."""

from __future__ import annotations

import json

from ablation.corpus import compact_tool
from ablation.plan import MIN_STEPS, plan_budget

from trajectory_platform.gym.tools import manifest


def test_plan_derives_the_most_steps_that_fit_and_projects_declared_ones():
    plan = plan_budget(0.5, 10.0, 20.0, 60.0, runs=15, budget_seconds=2700.0, steps=None)
    assert plan.steps == plan.fitting_steps == 292  # (2700 - 60 - 15 x (10 + 20)) / (15 x 0.5)
    over = plan_budget(0.5, 10.0, 20.0, 60.0, 15, 2700.0, 293)
    assert plan.projected_seconds <= 2700.0 < over.projected_seconds
    declared = plan_budget(0.5, 10.0, 20.0, 60.0, runs=15, budget_seconds=2700.0, steps=2200)
    assert declared.steps == 2200 and declared.fitting_steps == 292
    assert declared.training_seconds == 60.0 + 15 * (2200 * 0.5 + 10.0)
    assert declared.projected_seconds == declared.training_seconds + 15 * 20.0
    assert plan_budget(5.0, 100.0, 200.0, 60.0, runs=15, budget_seconds=2700.0, steps=None).steps == 0


def test_plan_with_two_workers_runs_half_as_many_rounds():
    plan = plan_budget(0.75, 10.0, 30.0, 60.0, runs=15, budget_seconds=2700.0, steps=None, workers=2)
    assert plan.rounds == 8
    assert plan.steps == int((2700 - 60 - 8 * 40) / (8 * 0.75))
    assert plan.projected_seconds == 60.0 + 8 * (plan.steps * 0.75 + 40.0)
    assert plan.training_seconds == 60.0 + 7.5 * (plan.steps * 0.75 + 10.0)  # packed, no evaluation


def test_plan_refuses_too_few_derived_steps_and_declared_steps_over_budget_without_evaluation():
    assert plan_budget(0.5, 10.0, 20.0, 60.0, 15, 2700.0, None).problem(steps_declared=False) is None
    starved = plan_budget(5.0, 50.0, 100.0, 60.0, 15, 2700.0, None)
    assert starved.steps < MIN_STEPS
    assert "minimum" in (starved.problem(steps_declared=False) or "")
    over = plan_budget(0.5, 10.0, 20.0, 60.0, 15, 2700.0, 2200)
    assert "training alone projects" in (over.problem(steps_declared=True) or "")
    assert plan_budget(0.5, 10.0, 20.0, 60.0, 15, 2700.0, 10).problem(steps_declared=True) is None


def test_a_plan_over_budget_only_under_the_evaluation_bound_goes_on_with_a_caution():
    """The bound is a barely trained model's runaway time: the 2026-12-04 plan read 101 s a run
    where trained runs took 7-17 s, and refused 3,000 steps (94.4 min) that fit 90 without it."""
    plan = plan_budget(0.201, 3.0, 101.0, 46.0, runs=15, budget_seconds=5400.0, steps=3000, workers=2)
    assert plan.training_seconds == 46.0 + 7.5 * (3000 * 0.201 + 3.0) < 5400.0 < plan.projected_seconds
    assert plan.problem(steps_declared=True) is None
    assert "up to 95.0 min" in (plan.caution() or "")  # 46 + 8 x (3,000 x 0.201 + 3 + 101) s
    fitting = plan_budget(0.201, 3.0, 101.0, 46.0, runs=15, budget_seconds=5400.0, steps=None, workers=2)
    assert fitting.steps < 3000 and fitting.caution() is None


def test_compact_tool_keeps_names_keys_types_and_required_only():
    read = next(t for t in manifest("alias", "1.0").specs() if t.name == "cat")
    compact = compact_tool(read)
    schema = json.loads(compact.parameters_json)
    full = json.loads(read.parameters_json)
    assert (compact.name, compact.description, compact.version) == (read.name, read.description, read.version)
    assert set(schema) == {"properties", "required"} and schema["required"] == full["required"]
    assert set(schema["properties"]) == set(full["properties"])
    for key, prop in schema["properties"].items():
        assert "description" not in prop and prop["type"] == full["properties"][key]["type"]
    assert len(compact.parameters_json) < len(read.parameters_json)
