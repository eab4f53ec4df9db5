"""Sizing of the ablations' --full tier: steps from measured costs, evaluation budgets from the
expert data, and the compact tool view every variant trains and is evaluated with."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from trajectory_platform.evaluation.ablation import all_token_labels, compact_tool, plan_budget
from trajectory_platform.evaluation.budget import FALLBACK_TURN_TOKENS, evaluation_budget, turn_budget
from trajectory_platform.gym.tools import manifest
from trajectory_platform.training.data.labels import IGNORE_INDEX


def test_plan_derives_the_most_steps_that_fit_and_projects_declared_ones():
    plan = plan_budget(0.5, 30.0, 60.0, runs=15, budget_seconds=2700.0, steps=None)
    assert plan.steps == plan.fitting_steps == 292  # (2700 - 60 - 15 x 30) / (15 x 0.5)
    assert plan.projected_seconds <= 2700.0 < plan_budget(0.5, 30.0, 60.0, 15, 2700.0, 293).projected_seconds
    declared = plan_budget(0.5, 30.0, 60.0, runs=15, budget_seconds=2700.0, steps=2200)
    assert declared.steps == 2200 and declared.fitting_steps == 292
    assert declared.projected_seconds == 60.0 + 15 * (2200 * 0.5 + 30.0)
    assert plan_budget(5.0, 300.0, 60.0, runs=15, budget_seconds=2700.0, steps=None).steps == 0


def test_evaluation_budget_fits_the_longest_expert_turn_and_episode():
    ignore = IGNORE_INDEX
    table = pa.table({"labels": [[ignore, 5, 6, ignore, 7], [ignore, 1, 2, 3, ignore]]})
    assert evaluation_budget([table]) == (3 + 8, 2 * 3)
    assert evaluation_budget([table], margin=0) == (3, 6)
    with pytest.raises(ValueError, match="selected-target labels"):
        evaluation_budget(
            [table, all_token_labels(pa.table({"input_ids": [[1, 2, 3]], "labels": [[ignore, 2, 3]]}))]
        )


def test_turn_budget_sizes_from_the_dataset_under_the_trial_cap():
    ignore = IGNORE_INDEX
    table = pa.table({"input_ids": [[1, 2, 3, 4]], "labels": [[ignore, 2, 3, ignore]]})
    assert turn_budget(table, cap=300) == 2 + 8
    assert turn_budget(table, cap=5) == 5
    assert turn_budget(table.slice(0, 0), cap=300) == FALLBACK_TURN_TOKENS


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


def test_plan_with_two_workers_runs_half_as_many_rounds():
    plan = plan_budget(0.75, 40.0, 60.0, runs=15, budget_seconds=2700.0, steps=None, workers=2)
    assert plan.rounds == 8
    assert plan.steps == int((2700 - 60 - 8 * 40) / (8 * 0.75))
    assert plan.projected_seconds == 60.0 + 8 * (plan.steps * 0.75 + 40.0)
