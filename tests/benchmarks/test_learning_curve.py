"""The learning curve's data and probe (benchmarks/learning_curve.py): distinct training tasks of the
asked kinds, a held-out family training never sees, and a per-category teacher-forced accuracy that
tells copied names from guessed ones."""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa
import torch
from ablation.corpus import RENAMED_TOOL_FAMILIES, regime_of
from learning_curve import (
    HELD_OUT_FAMILY,
    _category,
    _signature,
    fresh_training_family_fixtures,
    held_out_fixtures,
    target_accuracy,
    task_numbers,
    training_fixtures,
)

from trajectory_platform.evaluation.calls import ScoredCall
from trajectory_platform.gym.library import LEARN_KINDS, LEARN_TASKS_PER_FAMILY

ALL_KINDS = tuple(sorted(set(LEARN_KINDS)))


def test_task_numbers_keep_only_the_asked_kinds():
    assert task_numbers(0, 20, ALL_KINDS) == list(range(20))
    report = task_numbers(LEARN_TASKS_PER_FAMILY, 10, ("report_value",))
    assert len(report) == 10 and report[0] >= LEARN_TASKS_PER_FAMILY
    assert {LEARN_KINDS[t % len(LEARN_KINDS)] for t in report} == {"report_value"}


def test_training_tasks_are_distinct_past_the_library_and_never_the_held_out_family():
    train = training_fixtures(90, 0, ALL_KINDS)
    ids = [f.fixture_id for f in train]
    assert len(set(ids)) == 90
    assert len({(f.repo_family, f.fixture_id.split("@")[0]) for f in train}) == 90  # no task twice
    assert all(f.repo_family != HELD_OUT_FAMILY for f in train)
    assert all(int(f.fixture_id.split("-")[-1].split("@")[0]) >= LEARN_TASKS_PER_FAMILY for f in train)
    assert {f.task_kind for f in training_fixtures(30, 0, ("report_value",))} == {"report_value"}
    held_out = held_out_fixtures(12, 0, ALL_KINDS)
    assert {f.repo_family for f in held_out} == {HELD_OUT_FAMILY}
    fresh = fresh_training_family_fixtures(12, 90, 0, ALL_KINDS)
    assert not {f.fixture_id.split("@")[0] for f in fresh} & {f.fixture_id.split("@")[0] for f in train}


def test_renamed_items_are_the_held_out_tasks_in_a_tool_family_training_never_shows():
    """The release gate reads PRE on these: the same tasks as the familiar items, renamed tools."""
    familiar = held_out_fixtures(6, 0, ALL_KINDS)
    renamed = held_out_fixtures(6, 0, ALL_KINDS, RENAMED_TOOL_FAMILIES)
    assert {f.tool_family for f in renamed} == set(RENAMED_TOOL_FAMILIES) == {"alias"}
    assert {regime_of(f) for f in familiar} == {"familiar"} and {regime_of(f) for f in renamed} == {"renamed"}
    assert [f.plan[0].path for f in renamed] == [f.plan[0].path for f in familiar]
    recalled = ScoredCall("read_file", {"file_path": "a.py", "match": "X"}, {}, regime="renamed")
    assert _signature(recalled) == "read_file(file_path,match)"
    assert _signature(ScoredCall("cat", None, {})) == "cat(?)"


def test_target_tokens_are_sorted_into_name_value_and_protocol():
    assert [_category(t) for t in ("app", "_conf", "MAX", "_DEPTH", "7", "{", "path")] == [
        "file_name",
        "file_name",
        "constant_name",
        "constant_name",
        "value",
        "protocol",
        "protocol",
    ]


class _Oracle(torch.nn.Module):
    """Predicts the next token of its input, except the tokens at indices in ``wrong`` (token 0)."""

    def __init__(self, wrong: set[int]):
        super().__init__()
        self.wrong = wrong

    def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor) -> SimpleNamespace:
        ids = input_ids[0].tolist()
        logits = torch.zeros(len(ids), 8)
        for position, token in enumerate(ids[1:] + [0]):
            logits[position, 0 if position + 1 in self.wrong else token] = 1.0
        return SimpleNamespace(logits=logits[None])


def test_target_accuracy_counts_hits_per_category_on_targets_only():
    vocab = ["<pad>", "{", "app", "_conf", "7", "MAX"]
    tokenizer = SimpleNamespace(decode=lambda ids: vocab[ids[0]])
    table = pa.table({"input_ids": [[1, 2, 3, 4, 5]], "labels": [[-100, 2, 3, 4, -100]]})
    assert target_accuracy(_Oracle(set()), table, tokenizer) == {"file_name": "2/2", "value": "1/1"}
    assert target_accuracy(_Oracle({2}), table, tokenizer) == {"file_name": "1/2", "value": "1/1"}
