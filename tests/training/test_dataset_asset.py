"""``token_masked_dataset`` materializes from a training mixture; its blocking checks pass and can fail."""

from __future__ import annotations

import json

import pyarrow as pa
from dagster import asset, materialize

from trajectory_platform.assets.dataset import token_masked_dataset
from trajectory_platform.checks.dataset import n_active_positive, no_target_in_observation, offsets_verified
from trajectory_platform.resources import build_resources
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row
from trajectory_platform.training.data.dataset_stage import audit_table


def _episode(episode_id: str) -> Episode:
    schema = {"properties": {"file_path": {"type": "string"}}, "required": ["file_path"], "type": "object"}
    return Episode(
        episode_id=episode_id,
        source_format="native",
        source_file="t.jsonl",
        source_line=1,
        source_path=None,
        partition_date=None,
        tools=[ToolSpec("read_file", "Read a file.", canonical_json(schema))],
        events=[
            Event("user", "What is WIDTH in conf.py?"),
            Event("assistant", "", tool_calls=[ToolCall("c1", "read_file", '{"path":"conf.py"}')]),
            Event(
                "refusal", "error: missing required argument 'file_path'", tool_call_id="c1", status="refused"
            ),
            Event("assistant", "", tool_calls=[ToolCall("c2", "read_file", '{"file_path":"conf.py"}')]),
            Event("tool", "WIDTH = 18", tool_call_id="c2", status="ok"),
            Event("assistant", "18"),
        ],
    )


def _mixture() -> pa.Table:
    fields = [
        *EPISODE_SCHEMA,
        pa.field("role", pa.string()),
        pa.field("split", pa.string()),
        pa.field("target_turns", pa.list_(pa.int32())),
    ]
    rows = [
        {**episode_row(_episode("ep-a")), "role": "recovery", "split": "train", "target_turns": [3, 5]},
        {**episode_row(_episode("ep-b")), "role": "pristine", "split": "validation", "target_turns": [1]},
        {**episode_row(_episode("ep-c")), "role": "recovery", "split": "train", "target_turns": []},
    ]
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))


@asset(name="training_mixture")
def training_mixture_stub() -> pa.Table:
    return _mixture()


def test_token_masked_dataset_materializes_with_checks(tmp_path):
    result = materialize(
        [
            training_mixture_stub,
            token_masked_dataset,
            n_active_positive,
            offsets_verified,
            no_target_in_observation,
        ],
        resources=build_resources(tmp_path),
    )
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert {c.check_name: c.passed for c in checks} == {
        "n_active_positive": True,
        "offsets_verified": True,
        "no_target_in_observation": True,
    }
    [materialization] = [
        m
        for m in result.get_asset_materialization_events()
        if m.asset_key.to_user_string() == "token_masked_dataset"
    ]
    metadata = materialization.materialization.metadata
    assert metadata["examples_out"].value == 2
    assert metadata["drop_reasons"].value == {"no_target": 1}  # ep-c: curation selected nothing
    assert "[[" in metadata["sample_with_targets_marked"].value
    manifest = json.loads((tmp_path / "artifacts" / "token_masked_dataset" / "manifest.json").read_text())
    assert manifest["counts"]["episodes_in"] == 3 and manifest["target_policy"]["episodes_by_policy"] == {
        "curation_target_turns": 3
    }
    # The asset reads curation's tables, so `train` accepts its manifest without an opt-out.
    assert manifest["provenance"]["verified"] is True and manifest["provenance"]["redacted"] is True
    table = result.output_for_node("token_masked_dataset")
    assert table.column("split").to_pylist() == ["train", "validation"]


def test_stage_is_deterministic_and_audit_catches_a_double_shift_and_a_leak(default_tokenizer):
    from trajectory_platform.training.data.dataset_stage import run_dataset_stage
    from trajectory_platform.training.data.masked_dataset import inputs_from_table

    path = default_tokenizer
    stage = run_dataset_stage(inputs_from_table(_mixture()), path)
    table = stage.table
    assert audit_table(table) == {"n_active": [], "offsets": [], "target_in_context": []}
    again = run_dataset_stage(inputs_from_table(_mixture()), path)  # deterministic: same rows, same manifest
    assert again.table.equals(table) and again.manifest == stage.manifest
    row = table.slice(0, 1).to_pylist()[0]
    shifted = {**row, "labels": row["labels"][1:] + [-100]}
    spans = json.loads(row["spans_json"])
    observation = next(s for s in spans if s["kind"] == "tool")
    pairs = enumerate(zip(row["input_ids"], row["labels"], strict=True))
    leaked = {
        **row,
        "labels": [tok if observation["start"] <= t < observation["end"] else lab for t, (tok, lab) in pairs],
    }
    broken = pa.Table.from_pylist([shifted, leaked], schema=table.schema)
    problems = audit_table(broken)
    assert row["example_id"] in problems["offsets"] and row["example_id"] in problems["target_in_context"]
