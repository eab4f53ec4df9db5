"""The ``checkpoint`` asset and its checks, materialized through the real warehouse IO manager."""

from __future__ import annotations

import json
import random

import pyarrow as pa
from dagster import AssetSpec, DagsterInstance, MaterializeResult, asset, materialize

from trajectory_platform.assets.checkpoint import checkpoint
from trajectory_platform.checks.checkpoint import (
    losses_finite,
    training_loss_falls,
    training_manifest_complete,
)
from trajectory_platform.evaluation.retraining import SAMPLER_KEY
from trajectory_platform.resources import build_resources
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.training.data.labels import IGNORE_INDEX


def _masked_rows(count: int) -> pa.Table:
    rng = random.Random(5)
    rows = []
    for index in range(count):
        context = [rng.randrange(20, 200) for _ in range(rng.randint(3, 10))]
        ids = [1, *context, 5, *reversed(context), 2]
        labels = [IGNORE_INDEX] * (len(context) + 2) + ids[len(context) + 2 :]
        split = "validation" if index % 10 == 0 else "train"
        rows.append(
            {
                "example_id": f"e{index}#0",
                "episode_id": f"e{index}",
                "split": split,
                "input_ids": ids,
                "labels": labels,
            }
        )
    rows.append(
        {
            "example_id": "t#0",
            "episode_id": "t",
            "split": "test",
            "input_ids": [1, 9, 2],
            "labels": [IGNORE_INDEX, 9, 2],
        }
    )
    return pa.Table.from_pylist(rows)


def _materialize(root):
    write_parquet(_masked_rows(30), root / "parquet" / "token_masked_dataset" / "all.parquet")
    write_parquet(pa.table({"pair_id": ["unused"]}), root / "parquet" / "preference_dataset" / "all.parquet")
    # The token_masked_dataset asset's manifest artifact: read and cross-checked by the training run.
    artifact = root / "artifacts" / "token_masked_dataset"
    artifact.mkdir(parents=True)
    declared = {"intended_normalization": "token_averaged", "corpus_version": "v-test"}
    (artifact / "manifest.json").write_text(json.dumps(declared))
    return materialize(
        [
            checkpoint,
            *(
                AssetSpec(name).with_io_manager_key("io_manager")
                for name in ("token_masked_dataset", "preference_dataset")
            ),
            AssetSpec("training_mixture"),
            training_manifest_complete,
            losses_finite,
            training_loss_falls,
        ],
        resources=build_resources(root),
        selection=["checkpoint"],
        run_config={"ops": {"checkpoint": {"config": {"max_steps": 12, "capacity": 128, "eval_every": 6}}}},
    )


def test_checkpoint_asset_trains_and_its_checks_pass(tmp_path):
    result = _materialize(tmp_path / "first")
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert {c.check_name: c.passed for c in checks} == {
        "training_manifest_complete": True,
        "losses_finite": True,
        "training_loss_falls": True,
    }
    row = result.output_for_node("checkpoint").to_pylist()[0]
    assert row["path"].startswith("checkpoints/sft-")  # relative: the row's bytes ignore the workdir
    assert row["steps"] == 12 and row["validation_targets"] > 0
    manifest = json.loads((tmp_path / "first" / row["path"] / "training_manifest.json").read_text())
    assert manifest["corpus"]["counts"]["test_held_out"] == 1
    assert manifest["corpus"]["corpus_version"] == "v-test"
    matches = manifest["serialization"]["matches_dataset"]
    assert matches == {"tokenizer": None, "template": None, "normalization": True}
    metadata = result.asset_materializations_for_node("checkpoint")[0].metadata
    assert {"loss_curve", "tokens_per_s", "memory_inventory", "training_manifest"} <= set(metadata)
    # Same data, config and seed in another workdir: byte-identical Parquet (run facts stay in metadata).
    assert _materialize(tmp_path / "second").success
    first, second = (
        sorted((tmp_path / run / "parquet" / "checkpoint").rglob("*.parquet")) for run in ("first", "second")
    )
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second] and first


def test_checkpoint_asset_trains_dpo_on_the_preference_dataset(
    tmp_path, instance: DagsterInstance, lay_default_tokenizer
):
    """objective=dpo reads the preference_dataset token rows and its manifest artifact."""
    from preference_pairs_factory import pairs_table

    from trajectory_platform.training.data.preference_dataset import run_preference_stage
    from trajectory_platform.training.data.tokenizer import default_tokenizer_dir

    tokenizer = default_tokenizer_dir(lay_default_tokenizer(tmp_path))  # the one the asset's base takes
    stage = run_preference_stage(pairs_table(), tokenizer, source="preference_pairs")
    write_parquet(_masked_rows(3), tmp_path / "parquet" / "token_masked_dataset" / "all.parquet")
    write_parquet(stage.table, tmp_path / "parquet" / "preference_dataset" / "all.parquet")
    artifact = tmp_path / "artifacts" / "preference_dataset"
    artifact.mkdir(parents=True)
    (artifact / "manifest.json").write_text(json.dumps(stage.manifest))

    @asset(name="training_mixture")
    def mixture_stand_in() -> MaterializeResult:
        return MaterializeResult(metadata={SAMPLER_KEY: "sha256:the-sampler"})

    assert materialize([mixture_stand_in], instance=instance).success
    result = materialize(
        [
            checkpoint,
            *(
                AssetSpec(name).with_io_manager_key("io_manager")
                for name in ("token_masked_dataset", "preference_dataset")
            ),
            AssetSpec("training_mixture"),
        ],
        instance=instance,
        resources=build_resources(tmp_path),
        selection=["checkpoint"],
        run_config={"ops": {"checkpoint": {"config": {"objective": "dpo", "max_steps": 2, "eval_every": 0}}}},
    )
    assert result.success
    row = result.output_for_node("checkpoint").to_pylist()[0]
    assert row["objective"] == "dpo" and row["path"].startswith("checkpoints/dpo-") and row["steps"] == 2
    manifest = json.loads((tmp_path / row["path"] / "training_manifest.json").read_text())
    assert manifest["corpus"]["dataset_path"] == "asset:preference_dataset"
    assert manifest["corpus"]["counts"]["rows_in"] == stage.table.num_rows == 4
    assert manifest["corpus"]["corpus_version"] == stage.manifest["corpus_version"]
    assert manifest["serialization"]["matches_dataset"]["tokenizer"] is True
    # The mixture's reported sampler digest is the incumbent's, for the "stale corpus" trigger.
    metadata = result.asset_materializations_for_node("checkpoint")[0].metadata
    assert metadata[SAMPLER_KEY].value == "sha256:the-sampler"
