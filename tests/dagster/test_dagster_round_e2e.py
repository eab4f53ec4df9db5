"""One round end to end, through ``round_job`` on an instance, as ``trajectory-platform round`` runs
it: a scripted teacher samples k=2 attempts on the two training tasks the corpus left in the
P_inform band, the cascade judges them through the spool, the round's mix, dataset, checkpoint
(2 steps) and scorecard (a few short trials) are built, and every admitted round trajectory
carries the sampler's digest and the round; the lineage sampler -> checkpoint is in the metadata."""

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
from trajectory_platform.curation.verify import verified_table, verify_episodes
from trajectory_platform.definitions import bound_to
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert, WrongFixPolicy, make_policy
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.resources import build_resources, read_asset_table
from trajectory_platform.resources.facts import latest_metadata
from trajectory_platform.rounds.sampling import ROUND_KEY, policy_sampler
from trajectory_platform.rounds.stage import training_fixtures
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.training.optim.checkpoint import checkpoint_digest
from trajectory_platform.training.optim.model import build_default_model
from trajectory_platform.workdir import WORKDIR_ENV, asset_parquet_dir

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning"),
]

TINY = {
    "policy_rollouts": {"sampler": "expert_pristine", "attempts": 2, "workers": 1},
    "round_checkpoint": {"max_steps": 2, "examples_per_step": 2, "capacity": 2048, "eval_every": 0},
    "round_scorecard": {
        "episodes": 2,
        "recovery_episodes": 1,
        "retention_episodes": 1,
        "max_steps": 2,
        "max_generated_tokens": 40,
    },
}


def _corpus(workdir: Path) -> None:
    """The graph's outputs a round reads: verified outcomes that put two training tasks in the band
    (one pass and one failure each: p = 0.5), the base mixture, and the checkpoint to sample with."""
    fixtures = training_fixtures(SplitSettings())[:2]
    episodes = [
        run_episode(
            f, policy, seed=7, episode_id=f"corpus-{f.fixture_id}-{policy.name}", verify=False
        ).episode
        for f in fixtures
        for policy in (ScriptedExpert(), WrongFixPolicy())
    ]
    judged = verify_episodes(episodes, {f.fixture_id: f for f in fixtures})
    verified = verified_table(episodes, judged)
    assert sorted(verified["sink"].to_pylist()) == ["admitted", "admitted", "hard_negative", "hard_negative"]
    write_parquet(verified, asset_parquet_dir(workdir, "verified_traces") / "2024-01-01.parquet")
    split = SplitSettings()
    splits = split_stage(verified, build_library(split.fixture_seed), split.policy(), split.decontamination())
    mixture = composed_mixture(MixtureSettings(), verified, splits.table).table
    write_parquet(mixture, asset_parquet_dir(workdir, "training_mixture") / "all.parquet")
    base = build_default_model(workdir)
    row = {"path": str(base.relative_to(workdir)), "artifact_digest": checkpoint_digest(base)}
    write_parquet(pa.Table.from_pylist([row]), asset_parquet_dir(workdir, "checkpoint") / "all.parquet")


def test_one_round_end_to_end(eval_workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir = tmp_path / "workdir"
    shutil.copytree(eval_workdir, workdir)  # the default tokenizer and base model, built once per session
    monkeypatch.setenv(WORKDIR_ENV, str(workdir))
    _corpus(workdir)
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
    assert verified.num_rows == 4  # 2 tasks x k=2, every attempt judged (nothing lost in the spool)
    digest = policy_sampler(make_policy("expert_pristine")).digest
    admitted = [r for r in verified.to_pylist() if r["sink"] == "admitted"]
    assert len(admitted) == 4
    for row in admitted:
        assert row["lineage"]["sampler_policy_digest"] == digest
        assert json.loads(row["extra_json"])[ROUND_KEY] == 1
    assert rollouts["sampler_policy_digest"] == digest == checkpoint["sampler_policy_digest"]
    base = read_asset_table(workdir, "checkpoint").to_pylist()[0]["artifact_digest"]
    assert checkpoint["sampler_checkpoint_digest"] == scorecard["sampler_checkpoint_digest"] == base
    assert checkpoint["artifact_digest"] != base  # the round trained a new checkpoint
    assert rollouts["depth_max"] <= 2 and rollouts["verify_episodes_per_s"] > 0
    mixture = read_asset_table(workdir, "round_mixture", ["1"])
    assert mixture.num_rows >= 1
