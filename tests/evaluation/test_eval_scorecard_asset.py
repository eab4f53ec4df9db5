"""The ``scorecard`` asset and its checks, materialized through the real warehouse IO manager.

The candidate is the untrained embedded base and so is the baseline: identical arms must give a
zero paired difference with no discordant trial, and the declared rule must hold the candidate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
from ablation.corpus import expert_corpus, learnable_split
from dagster import (
    AssetCheckEvaluation,
    AssetCheckSeverity,
    AssetKey,
    AssetMaterialization,
    AssetSpec,
    DagsterInstance,
    asset_check,
    materialize,
)

from trajectory_platform.assets.scorecard import scorecard
from trajectory_platform.checks.scorecard import decision_recorded, required_measurements_present
from trajectory_platform.resources import build_resources
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.traces.schema import episodes_to_table
from trajectory_platform.training.optim.checkpoint import checkpoint_digest
from trajectory_platform.training.optim.model import default_base_dir


@asset_check(asset="verified_traces", name="yield_in_declared_band")
def yield_in_declared_band():
    """The accepted yield lies in the declared band."""  # stands in for the real (partitioned) check
    raise AssertionError("not run: only its stored evaluation is read")


def _materialize(eval_workdir: Path, tmp_path: Path):
    with DagsterInstance.ephemeral() as instance:
        # What upstream stages reported reaches the scorecard as declared inputs (upstream_facts)
        instance.report_runless_asset_event(
            AssetMaterialization("redacted_corpus", metadata={"leak_rate": 0.0})
        )
        # an upstream check that warned: the report names it with the command that reruns it
        instance.report_runless_asset_event(
            AssetCheckEvaluation(
                asset_key=AssetKey("verified_traces"),
                check_name="yield_in_declared_band",
                passed=False,
                severity=AssetCheckSeverity.WARN,
            )
        )
        base = default_base_dir(eval_workdir)
        row = {"path": str(base), "artifact_digest": checkpoint_digest(base), "objective": "sft", "steps": 0}
        write_parquet(pa.Table.from_pylist([row]), tmp_path / "parquet" / "checkpoint" / "all.parquet")
        train, _ = learnable_split()
        corpus = expert_corpus(train[:2], recovery_share=1.0, fault_kinds=["http_429"])
        mixture = episodes_to_table([item.episode for item in corpus])
        mixture = mixture.append_column("role", pa.array([item.role for item in corpus]))
        mixture = mixture.append_column("selected_target_tokens", pa.array([40, 60], pa.int64()))
        write_parquet(mixture, tmp_path / "parquet" / "training_mixture" / "all.parquet")
        # The longest selected-target turn is 2 tokens: turns get 2 + 8 new tokens at most.
        ignore = -100
        dataset = pa.table({"input_ids": [[1, 2, 3, 4, 5]], "labels": [[ignore, ignore, 3, 4, ignore]]})
        write_parquet(dataset, tmp_path / "parquet" / "token_masked_dataset" / "all.parquet")
        config = {
            "episodes": 2,
            "recovery_episodes": 1,
            "retention_episodes": 1,
            "max_steps": 2,
            "max_generated_tokens": 40,
        }
        return materialize(
            [
                scorecard,
                *(
                    AssetSpec(name).with_io_manager_key("io_manager")
                    for name in ("checkpoint", "training_mixture", "token_masked_dataset")
                ),
                *(AssetSpec(name) for name in ("verified_traces", "redacted_corpus", "split_assignments")),
                required_measurements_present,
                decision_recorded,
                yield_in_declared_band,
            ],
            resources=build_resources(tmp_path),
            instance=instance,
            selection=["scorecard"],
            run_config={"ops": {"scorecard": {"config": config}}},
        )


def test_scorecard_asset_holds_identical_arms(eval_workdir: Path, tmp_path: Path):
    result = _materialize(eval_workdir, tmp_path)
    assert result.success
    out = result.output_for_node("scorecard").to_pylist()[0]
    assert out["decision"] == "hold"
    assert out["n"] == 2 and out["difference"] == 0.0
    assert out["acceptance_candidate"] == out["acceptance_baseline"]
    assert out["report_path"].startswith("reports/scorecard/")  # relative to the workdir
    assert (tmp_path / out["report_path"]).is_file()
    card = json.loads((tmp_path / out["scorecard_path"]).read_text())
    diff = card["acceptance"]["difference"]
    assert diff["candidate_only"] == diff["baseline_only"] == 0
    assert card["artifacts"]["candidate"] == card["artifacts"]["baseline"]
    assert card["evaluation_manifest"]["code_version"]["source_digest"]
    assert [i["suite"] for i in card["evaluation_manifest"]["fixtures"]].count("recovery") == 1
    assert card["recovery"]["training_fault_kinds"] == ["http_429"]
    assert card["dataset_quality"]["redaction_leakage"] == 0.0  # the upstream fact, read as an input
    assert (tmp_path / out["report_path"]).with_name("mixture.png").is_file()  # from the mixture rows
    assert card["evaluation_manifest"]["decoding"]["max_new_tokens"] == 2 + 8  # sized from the dataset
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert checks["decision_recorded"].passed
    gate_gap = any("missing" in r or "lacks" in r for r in card["reasons"])
    assert checks["required_measurements_present"].passed is not gate_gap  # the check reads as the gate
    metadata = result.asset_materializations_for_node("scorecard")[0].metadata
    assert {"report", "summary", "decision", "dataset_quality"} <= set(metadata)
    # the plots show on the asset page: every drawn PNG is inline in the summary markdown
    drawn = list((tmp_path / out["report_path"]).parent.glob("*.png"))
    assert metadata["summary"].value.count("](data:image/png;base64,") == len(drawn) >= 2
    # the report reads the figures the warehouse row stores, and links every trial's transcript
    report = (tmp_path / out["report_path"]).read_text()
    assert f"data-figure='acceptance_candidate'>{out['acceptance_candidate']:.3f}<" in report
    assert f"data-figure='decision'>{out['decision']}<" in report
    assert "Check verified_traces:yield_in_declared_band failed (warning)" in report
    assert "The accepted yield lies in the declared band." in report and "--select verified_traces" in report
    pages = sorted((tmp_path / out["report_path"]).parent.glob("transcripts/*.html"))
    assert len(pages) == len(card["evaluation_manifest"]["fixtures"]) and all(
        f"href='transcripts/{page.name}'" in report for page in pages
    )
    # The same checkpoint, fixtures and seeds from another workdir: byte-identical Parquet.
    assert _materialize(eval_workdir, tmp_path / "again").success
    first, again = (root / "parquet" / "scorecard" / "all.parquet" for root in (tmp_path, tmp_path / "again"))
    assert first.read_bytes() == again.read_bytes()
