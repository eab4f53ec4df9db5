"""Evaluation budgets sized from the expert data (evaluation/budget.py): the longest selected turn
and episode, under the trial cap."""

from __future__ import annotations

import pyarrow as pa
import pytest

from trajectory_platform.evaluation.budget import FALLBACK_TURN_TOKENS, evaluation_budget, turn_budget
from trajectory_platform.training.data.labels import IGNORE_INDEX


def test_evaluation_budget_fits_the_longest_expert_turn_and_episode():
    ignore = IGNORE_INDEX
    table = pa.table({"labels": [[ignore, 5, 6, ignore, 7], [ignore, 1, 2, 3, ignore]]})
    assert evaluation_budget([table]) == (3 + 8, 2 * 3)
    assert evaluation_budget([table], margin=0) == (3, 6)
    every_token = pa.table({"input_ids": [[1, 2, 3]], "labels": [[ignore, 2, 3]]})
    with pytest.raises(ValueError, match="selected-target labels"):
        evaluation_budget([table, every_token])


def test_turn_budget_sizes_from_the_dataset_under_the_trial_cap():
    ignore = IGNORE_INDEX
    table = pa.table({"input_ids": [[1, 2, 3, 4]], "labels": [[ignore, 2, 3, ignore]]})
    assert turn_budget(table, cap=300) == 2 + 8
    assert turn_budget(table, cap=5) == 5
    assert turn_budget(table.slice(0, 0), cap=300) == FALLBACK_TURN_TOKENS
