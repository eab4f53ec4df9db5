"""Call-validity categories, SFA and PRE on hand-made calls (fine-tuning 16.11.2)."""

import pytest

from trajectory_platform.evaluation.calls import (
    ScoredCall,
    by_regime,
    call_validity,
    classify_call,
    parametric_recall_error,
    schema_following_accuracy,
)

READ = {
    "read_file": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
        "additionalProperties": False,
    }
}
RENAMED = {
    "read_file": {
        "type": "object",
        "properties": {"target_uri": {"type": "string"}},
        "required": ["target_uri"],
        "additionalProperties": False,
    }
}


def test_each_category_is_distinguished():
    assert classify_call(ScoredCall("read_file", {"file_path": "a"}, READ)) == "valid"
    assert classify_call(ScoredCall("read_file", None, READ)) == "malformed_serialization"
    assert (
        classify_call(ScoredCall("read_file", {"file_path": "a"}, READ, truncated=True))
        == "truncated_proposal"
    )
    assert classify_call(ScoredCall("rm", {"path": "a"}, READ)) == "undeclared_tool"
    assert classify_call(ScoredCall("read_file", {"file_path": 3}, READ)) == "schema_violation"
    assert classify_call(ScoredCall("read_file", {"file_path": "a"}, READ, execution_error=True)) == (
        "tool_execution_error"
    )
    summary = call_validity(
        [ScoredCall("read_file", None, READ), ScoredCall("read_file", {"file_path": "a"}, READ)]
    )
    assert summary["total"] == 2 and summary["counts"]["malformed_serialization"] == 1
    assert summary["rates"]["valid"] == 0.5


def test_stale_key_on_renamed_schema_is_pre_not_sfa():
    training_keys = {"file_path"}
    stale = [ScoredCall("read_file", {"file_path": "a"}, RENAMED, regime="renamed")] * 3
    correct = [ScoredCall("read_file", {"target_uri": "a"}, RENAMED, regime="renamed")]
    calls = stale + correct
    assert schema_following_accuracy(calls) == pytest.approx(0.25)
    assert parametric_recall_error(calls, training_keys) == pytest.approx(0.75)
    familiar = [ScoredCall("read_file", {"file_path": "a"}, READ)]
    regimes = by_regime(familiar + calls, training_keys)
    assert regimes["familiar"] == {"n_calls": 1, "sfa": 1.0, "pre": 0.0}
    assert regimes["renamed"]["pre"] == pytest.approx(0.75)
    assert schema_following_accuracy([]) is None


def test_truncated_proposal_never_counts_as_schema_following():
    cut = ScoredCall("read_file", {"file_path": "a"}, READ, truncated=True)
    assert schema_following_accuracy([cut]) == 0.0
    failed_run = ScoredCall("read_file", {"file_path": "a"}, READ, execution_error=True)
    assert schema_following_accuracy([failed_run]) == 1.0
