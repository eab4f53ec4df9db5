"""The preference dataset stage: curation's episode pairs -> token rows for span DPO, every refusal
counted, deterministic bytes, audits that catch a broken row, and the asset with its checks."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from dagster import asset, materialize
from preference_pairs_factory import REFUSED, SECRET_ANSWER, good, pairs_table

from trajectory_platform.assets.dataset import preference_dataset
from trajectory_platform.checks.dataset import (
    pairs_n_active_positive,
    pairs_no_target_in_observation,
    pairs_offsets_verified,
    shared_prefix_unscored,
)
from trajectory_platform.resources import build_resources
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.training.data.chat_template import template_digest
from trajectory_platform.training.data.labels import IGNORE_INDEX, target_positions
from trajectory_platform.training.data.preference_dataset import (
    PREFERENCE_DATASET_SCHEMA,
    audit_pair,
    audit_pairs,
    run_preference_stage,
)
from trajectory_platform.training.data.preference_tokens import PreferencePair
from trajectory_platform.training.data.tokenizer import (
    load_tokenizer,
    tokenizer_files_digest,
)


@pytest.fixture(scope="module")
def tokenizer_dir(default_tokenizer):
    return default_tokenizer


@pytest.fixture(scope="module")
def stage(tokenizer_dir):
    return run_preference_stage(pairs_table(), tokenizer_dir, source="test")


def test_stage_writes_token_rows_the_optimizer_reads(stage, tokenizer_dir):
    table = stage.table
    assert table.schema == PREFERENCE_DATASET_SCHEMA
    assert table.column("pair_id").to_pylist() == ["p0", "p1", "p2", "p3"]  # input order kept
    tokenizer = load_tokenizer(tokenizer_dir)
    for index, row in enumerate(table.to_pylist()):
        pair = PreferencePair.from_row(row, index)  # the optimizer wing's reader
        prefix = row["prefix_tokens"]
        assert prefix > 0 and pair.chosen_ids[:prefix] == pair.rejected_ids[:prefix]
        for side in ("chosen", "rejected"):
            labels = row[f"{side}_labels"]
            assert len(labels) == len(row[f"{side}_input_ids"]) and labels[0] == IGNORE_INDEX
            assert tuple(row[f"{side}_selected"]) == target_positions(labels)
            assert min(row[f"{side}_selected"]) > prefix  # the branch turn's role token is context
            scored = tokenizer.decode([row[f"{side}_input_ids"][t] for t in row[f"{side}_selected"]])
            assert scored.endswith("<|end_turn|>")  # the authentic terminator, as in SFT
        assert SECRET_ANSWER in tokenizer.decode(pair.chosen_ids[pair.chosen_selected[0] :])
    assert stage.audit == {"n_active": [], "offsets": [], "target_in_context": [], "prefix": []}


def test_every_refusal_is_counted_by_reason_without_record_text(stage):
    tally = stage.tally
    assert tally.balanced and tally.records_in == 8 and tally.kept == 4
    assert dict(tally.dropped) == REFUSED
    assert [where for where, _ in stage.refused] == ["p4", "p5", "p6", "p7"]
    for _, refusal in stage.refused:
        assert refusal.drop.reason in REFUSED and refusal.drop.detail
        assert SECRET_ANSWER not in refusal.drop.detail
    assert "rejected episode r5" not in stage.refused[1][1].drop.detail  # the chosen side failed first
    manifest = stage.manifest
    assert manifest["counts"] == {"pairs_in": 8, "pairs_out": 4, "pairs_dropped": 4}
    assert manifest["drop_reasons"] == REFUSED
    assert SECRET_ANSWER not in json.dumps(manifest)


def test_manifest_records_tokenizer_template_and_policies(stage, tokenizer_dir):
    manifest = stage.manifest
    tokenizer = load_tokenizer(tokenizer_dir)
    assert manifest["manifest_version"] == "preference_dataset/v1"
    assert manifest["tokenizer_files_digest"] == tokenizer_files_digest(tokenizer_dir)
    assert manifest["template_digest"] == template_digest(tokenizer.chat_template)
    assert manifest["rationale_mode"] == "context" and manifest["truncation_policy"] == "exclude"
    assert manifest["label_convention"].startswith("hf_aligned")
    assert len(manifest["corpus_version"]) == 64
    stats = manifest["stats"]
    assert stats["pairs"] == 4 and stats["chosen_selected"] > stats["rejected_selected"] > 0
    assert "[[" in stage.sample and "--- rejected (r0) ---" in stage.sample


def test_same_pairs_give_byte_identical_parquet(stage, tokenizer_dir, tmp_path):
    again = run_preference_stage(pairs_table().to_pylist(), tokenizer_dir, source="test")
    write_parquet(stage.table, tmp_path / "a.parquet")
    write_parquet(again.table, tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    assert again.manifest == stage.manifest


def test_a_longer_side_than_max_length_is_refused_not_truncated(tokenizer_dir):
    from trajectory_platform.training.data.mask_settings import MaskConfig

    stage = run_preference_stage([good(0)], tokenizer_dir, MaskConfig(max_length=8))
    assert stage.table.num_rows == 0 and dict(stage.tally.dropped) == {"over_max_length": 1}


def test_audit_catches_a_shift_a_leak_a_stray_score_and_a_different_prefix(stage):
    row = stage.table.slice(0, 1).to_pylist()[0]
    assert audit_pair(row) == []
    labels = row["chosen_labels"]
    shifted = {**row, "chosen_labels": labels[1:] + [IGNORE_INDEX]}
    assert "offsets" in audit_pair(shifted)
    spans = json.loads(row["rejected_spans_json"])
    tool = next(s for s in spans if s["kind"] == "tool")
    leaked_labels = list(row["rejected_labels"])
    leaked_labels[tool["start"]] = row["rejected_input_ids"][tool["start"]]
    leaked = {**row, "rejected_labels": leaked_labels}
    assert audit_pair(leaked) == ["offsets", "target_in_context", "prefix"]  # a score in the shared prefix
    unscored = {**row, "chosen_selected": row["chosen_selected"][1:]}
    assert audit_pair(unscored) == ["offsets"]
    ids = list(row["rejected_input_ids"])
    ids[1] = ids[1] + 1
    assert audit_pair({**row, "rejected_input_ids": ids}) == ["prefix"]
    empty = {**row, "chosen_labels": [IGNORE_INDEX] * len(labels), "chosen_selected": []}
    assert "n_active" in audit_pair(empty)
    broken = pa.Table.from_pylist([row, shifted], schema=PREFERENCE_DATASET_SCHEMA)
    assert audit_pairs(broken)["offsets"] == ["p0"]  # the shifted copy only


@asset(name="preference_pairs")
def preference_pairs_stub() -> pa.Table:
    return pairs_table()


def test_preference_dataset_asset_materializes_with_checks(tmp_path):
    result = materialize(
        [
            preference_pairs_stub,
            preference_dataset,
            pairs_n_active_positive,
            pairs_offsets_verified,
            pairs_no_target_in_observation,
            shared_prefix_unscored,
        ],
        resources=build_resources(tmp_path),
    )
    assert result.success
    assert {c.check_name: c.passed for c in result.get_asset_check_evaluations()} == {
        "n_active_positive": True,
        "offsets_verified": True,
        "no_target_in_observation": True,
        "shared_prefix_unscored": True,
    }
    [event] = [
        m
        for m in result.get_asset_materialization_events()
        if m.asset_key.to_user_string() == "preference_dataset"
    ]
    metadata = {k: getattr(v, "value", v) for k, v in event.materialization.metadata.items()}
    assert (metadata["records_in"], metadata["kept"], metadata["dropped"]) == (8, 4, 4)
    assert metadata["dropped_by_reason"] == REFUSED
    assert "[[" in metadata["sample_with_targets_marked"]
    manifest = json.loads((tmp_path / "artifacts" / "preference_dataset" / "manifest.json").read_text())
    assert manifest["counts"]["pairs_out"] == 4 and manifest["source"] == "preference_pairs"
    assert result.output_for_node("preference_dataset").num_rows == 4
