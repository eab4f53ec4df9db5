"""One round end to end, through ``round_job`` on an instance, as ``trajectory-platform round`` runs
it: the corpus's scripted outcomes would put two training tasks in the P_inform band, but round 1
estimates p from its own sampler instead. A scripted sampler that never solves a bug-fix task
pilots two of them (one attempt each): nothing is in the band, so the round trains on DAgger
records, the expert's verified labels on the states its failed attempts reached. The round's mix,
dataset, checkpoint (2 steps) and scorecard (a few short trials) are built; every attempt and
record carries the round and the sampler's digest; the lineage sampler -> checkpoint is in the
metadata."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from dagster import AssetKey, DagsterInstance

from trajectory_platform.assets.mixture import composed_mixture
from trajectory_platform.commands._rounds import next_round_key, run_round
from trajectory_platform.curation.split_mixture_stage import MixtureSettings, SplitSettings, split_stage
from trajectory_platform.definitions import bound_to
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import make_policy
from trajectory_platform.resources import build_resources, read_asset_table
from trajectory_platform.resources.facts import latest_metadata
from trajectory_platform.rounds.sampling import ROUND_KEY, policy_sampler
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.training.optim.checkpoint import checkpoint_digest
from trajectory_platform.training.optim.model import build_default_model
from trajectory_platform.workdir import WORKDIR_ENV, asset_manifest, asset_parquet_dir

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning"),
]

TINY = {
    # seed 2 draws two bug-fix tasks for the pilot (test, read, edit, test, answer): wrong_fix fails both
    "policy_rollouts": {
        "sampler": "wrong_fix",
        "attempts": 2,
        "pilot_attempts": 1,
        "pilot_tasks": 2,
        "seed": 2,
        "workers": 1,
    },
    "round_checkpoint": {"max_steps": 2, "examples_per_step": 2, "capacity": 2048, "eval_every": 0},
    "round_scorecard": {
        "episodes": 2,
        "recovery_episodes": 1,
        "retention_episodes": 1,
        "max_steps": 2,
        "max_generated_tokens": 40,
    },
}


def _corpus(workdir: Path, verified: pa.Table) -> None:
    """The graph's outputs a round reads: the corpus's verified outcomes (one scripted pass and one
    failure on each of two training tasks: p = 0.5, in the band if they counted), the base mixture,
    and the checkpoint to sample with."""
    assert sorted(verified["sink"].to_pylist()) == ["admitted", "admitted", "hard_negative", "hard_negative"]
    write_parquet(verified, asset_parquet_dir(workdir, "verified_traces") / "2024-01-01.parquet")
    split = SplitSettings()
    splits = split_stage(verified, build_library(split.fixture_seed), split.policy(), split.decontamination())
    mixture = composed_mixture(MixtureSettings(), verified, splits.table).table
    write_parquet(mixture, asset_parquet_dir(workdir, "training_mixture") / "all.parquet")
    base = build_default_model(workdir)
    row = {"path": str(base.relative_to(workdir)), "artifact_digest": checkpoint_digest(base)}
    write_parquet(pa.Table.from_pylist([row]), asset_parquet_dir(workdir, "checkpoint") / "all.parquet")


def test_one_round_end_to_end(
    eval_workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scripted_corpus: pa.Table
) -> None:
    workdir = tmp_path / "workdir"
    shutil.copytree(eval_workdir, workdir)  # the default tokenizer and base model, built once per session
    monkeypatch.setenv(WORKDIR_ENV, str(workdir))
    _corpus(workdir, scripted_corpus)
    located = bound_to(build_resources(workdir))
    failed: list[str] = []
    with DagsterInstance.ephemeral() as instance:
        assert next_round_key(instance) == "1"
        outcome = run_round(located, instance, "1", TINY, lambda e: e.passed or failed.append(e.check_name))
        assert outcome["ok"], outcome
        assert failed == [] and outcome["decision"] in ("promote", "hold")
        assert next_round_key(instance) == "2"
        rollouts = latest_metadata(instance, "policy_rollouts", "1")
        checkpoint = latest_metadata(instance, "round_checkpoint", "1")
        scorecard = latest_metadata(instance, "round_scorecard", "1")
        assert instance.get_latest_materialization_event(AssetKey("round_dataset")) is not None

    verified = read_asset_table(workdir, "round_verified", ["1"])
    assert verified.num_rows == 2  # the pilot: 2 tasks x 1 attempt, every attempt judged
    digest = policy_sampler(make_policy("wrong_fix")).digest
    for row in verified.to_pylist():
        assert "-pilot-" in row["episode_id"] and row["sink"] != "admitted"
        assert row["lineage"]["sampler_policy_digest"] == digest
        assert json.loads(row["extra_json"])[ROUND_KEY] == 1
    selection = rollouts["selection"]
    assert selection["estimated_from"] == "pilot" and selection["pilot"]["attempts"] == 2
    assert selection["tasks_selected"] == 0  # not the corpus's two tasks at p = 0.5
    dagger = read_asset_table(workdir, "round_dagger", ["1"])
    assert dagger.num_rows >= 1 and set(dagger["sink"].to_pylist()) == {"admitted"}
    for row in dagger.to_pylist():
        extra = json.loads(row["extra_json"])
        assert extra[ROUND_KEY] == 1 and extra["dagger"]["learner_sampler_policy_digest"] == digest
        assert row["lineage"]["sampler_policy_digest"] not in (None, digest)
    assert rollouts["sampler_policy_digest"] == digest == checkpoint["sampler_policy_digest"]
    base = read_asset_table(workdir, "checkpoint").to_pylist()[0]["artifact_digest"]
    assert checkpoint["sampler_checkpoint_digest"] == scorecard["sampler_checkpoint_digest"] == base
    assert checkpoint["artifact_digest"] != base  # the round trained a new checkpoint
    mixture = read_asset_table(workdir, "round_mixture", ["1"])
    assert set(dagger["episode_id"].to_pylist()) & set(mixture["episode_id"].to_pylist())
    manifest = json.loads(asset_manifest(workdir, "round_dataset/1").read_text())
    assert (
        manifest["provenance"]["redacted"] is False and "round_dagger" in manifest["provenance"]["upstream"]
    )
