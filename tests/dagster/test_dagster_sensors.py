"""Sensors and schedules evaluated the way the daemon does, with build_*_context."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pyarrow as pa
import pytest
from dagster import (
    AssetKey,
    DagsterInstance,
    Definitions,
    MaterializeResult,
    asset,
    build_schedule_context,
    build_sensor_context,
    materialize,
)

from trajectory_platform.evaluation.retraining import (
    admitted_tokens,
    dominant_sampler_digest,
    scorecard_regressed,
)
from trajectory_platform.resources import build_resources
from trajectory_platform.sensors.new_logs import new_feedback_sensor, new_logs_sensor
from trajectory_platform.sensors.retraining import retraining_sensor
from trajectory_platform.sensors.schedules import (
    nightly_ingest_and_curate_schedule,
    weekly_closed_loop_evaluation_schedule,
)
from trajectory_platform.traces.parquet import write_parquet

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")


def _tick(sensor, resources, cursor=None, **kw):
    context = build_sensor_context(cursor=cursor, resources=resources, **kw)
    result = sensor(context)
    return result, context


# --- new logs -------------------------------------------------------------------------------


def test_dagster_new_logs_sensor_requests_exactly_new_days(tmp_path: Path, log_writer) -> None:
    resources = build_resources(tmp_path)
    log_writer("2024-03-01", good=2)
    log_writer("2024-03-02", good=1)
    first, _ = _tick(new_logs_sensor, resources)
    assert sorted(r.partition_key for r in first.run_requests) == ["2024-03-01", "2024-03-02"]

    again, _ = _tick(new_logs_sensor, resources, cursor=first.cursor)
    assert again.run_requests == [] and again.cursor == first.cursor  # nothing new: no request

    log_writer("2024-03-02", good=1, name="late.jsonl")  # a file lands in an old day
    log_writer("2024-03-05", good=1)
    third, _ = _tick(new_logs_sensor, resources, cursor=first.cursor)
    assert [r.partition_key for r in third.run_requests] == ["2024-03-02", "2024-03-05"]
    assert len({r.run_key for r in first.run_requests + third.run_requests}) == 4


def test_dagster_new_feedback_sensor_requests_exactly_new_feedback_days(tmp_path: Path, log_writer) -> None:
    """Feedback lands in its own source: new feedback days are requested, trace days are not."""
    resources = build_resources(tmp_path)
    log_writer("2024-03-01", good=1)  # a trace day: the feedback sensor does not see it
    day = tmp_path / "feedback_source" / "2024-03-02"
    day.mkdir(parents=True)
    (day / "fb.jsonl").write_text('{"episode_id": "e1", "kind": "accepted"}\n', encoding="utf-8")
    first, _ = _tick(new_feedback_sensor, resources)
    assert [r.partition_key for r in first.run_requests] == ["2024-03-02"]
    again, _ = _tick(new_feedback_sensor, resources, cursor=first.cursor)
    assert again.run_requests == [] and again.cursor == first.cursor
    (day / "more.jsonl").write_text('{"episode_id": "e2", "kind": "retry"}\n', encoding="utf-8")
    third, _ = _tick(new_feedback_sensor, resources, cursor=first.cursor)
    assert [r.partition_key for r in third.run_requests] == ["2024-03-02"]
    assert third.run_requests[0].run_key != first.run_requests[0].run_key


def test_dagster_new_logs_sensor_is_idempotent_across_restarts(tmp_path: Path, log_writer) -> None:
    """A restart that lost the cursor re-emits the same run keys, which Dagster deduplicates."""
    resources = build_resources(tmp_path)
    log_writer("2024-03-01", good=2)
    before, _ = _tick(new_logs_sensor, resources)
    after_restart, _ = _tick(new_logs_sensor, resources)
    assert [r.run_key for r in before.run_requests] == [r.run_key for r in after_restart.run_requests]


def test_dagster_new_logs_sensor_ignores_non_partition_folders(tmp_path: Path, log_writer) -> None:
    resources = build_resources(tmp_path)
    log_writer("1999-01-01", good=1)  # before the first partition
    log_writer("2999-01-01", good=1)  # in the future: picked up once it is a partition
    (tmp_path / "trace_source" / "notes").mkdir()
    result, _ = _tick(new_logs_sensor, resources)
    assert result.run_requests == [] and json.loads(result.cursor) == {}


# --- retraining -----------------------------------------------------------------------------


@asset(name="checkpoint")
def fake_checkpoint() -> MaterializeResult:
    """Stands in for the training stage's asset key (the sensor reads only keys and metadata)."""
    return MaterializeResult(metadata={"selected_target_tokens": 30_000})


@asset(name="scorecard")
def fake_scorecard() -> pa.Table:
    """The evaluation stage's scorecard columns: the acceptance difference and its interval."""
    return pa.table({"decision": ["hold"], "difference": [-0.3], "ci_low": [-0.5], "ci_high": [-0.1]})


def _mixture(workdir: Path, tokens: list[int], split: str = "train", digest_episodes: bool = False) -> None:
    ids = [f"e{i}" for i in range(len(tokens))]
    table = pa.table(
        {
            "episode_id": ids,
            "role": ["pristine"] * len(ids),
            "split": [split] * len(ids),
            "selected_target_tokens": pa.array(tokens, pa.int64()),
        }
    )
    write_parquet(table, workdir / "parquet" / "training_mixture" / "all.parquet")
    if digest_episodes:
        lineage = pa.array([{"sampler_policy_digest": "new-policy"}] * len(ids))
        episodes = pa.table({"episode_id": ids, "lineage": lineage})
        write_parquet(episodes, workdir / "parquet" / "raw_traces" / "2024-03-01.parquet")


@pytest.fixture
def retrain_env(tmp_path: Path, instance: DagsterInstance):
    resources = build_resources(tmp_path)
    resources["retraining"] = resources["retraining"].model_copy(
        update={"min_new_selected_target_tokens": 20_000}
    )
    defs = Definitions(assets=[fake_checkpoint, fake_scorecard], sensors=[retraining_sensor])
    return tmp_path, instance, resources, defs


def _retrain_tick(env, cursor=None):
    _, instance, resources, defs = env
    return _tick(retraining_sensor, resources, cursor=cursor, instance=instance, definitions=defs)[0]


def test_dagster_retraining_waits_for_a_mixture_then_fires_on_threshold(retrain_env) -> None:
    workdir = retrain_env[0]
    assert _retrain_tick(retrain_env).run_requests == []  # no training_mixture yet
    _mixture(workdir, [10_000, 5_000])
    below = _retrain_tick(retrain_env)
    assert below.run_requests == [] and "15000 new admitted tokens" in below.skip_reason.skip_message
    _mixture(workdir, [10_000, 5_000, 6_000])
    fired = _retrain_tick(retrain_env, cursor=below.cursor)
    [request] = fired.run_requests
    assert set(request.asset_selection) == {AssetKey("checkpoint"), AssetKey("scorecard")}
    assert "21000 new admitted" in request.tags["trajectory_platform/retrain_reasons"]
    repeat = _retrain_tick(retrain_env, cursor=fired.cursor)
    assert repeat.run_requests[0].run_key == request.run_key  # same state -> same key -> one run


def test_dagster_retraining_baseline_resets_after_a_checkpoint(retrain_env) -> None:
    workdir, instance, resources, _ = retrain_env
    _mixture(workdir, [25_000, 10_000])
    assert _retrain_tick(retrain_env).run_requests
    assert materialize([fake_checkpoint], instance=instance, resources=resources).success
    after = _retrain_tick(retrain_env)
    assert after.run_requests == []  # metadata says the checkpoint saw 30000: 5000 are new
    assert json.loads(after.cursor)["baseline_tokens"] == 30_000
    _mixture(workdir, [25_000, 10_000, 15_000])
    assert _retrain_tick(retrain_env, cursor=after.cursor).run_requests


def test_dagster_retraining_on_stale_corpus_and_regression(retrain_env) -> None:
    workdir, instance, resources, _ = retrain_env
    assert materialize([fake_checkpoint], instance=instance, resources=resources).success
    write_parquet(
        pa.table({"sampler_policy_digest": ["old-policy"]}),
        workdir / "parquet" / "checkpoint" / "all.parquet",
    )
    _mixture(workdir, [100], digest_episodes=True)
    [stale] = _retrain_tick(retrain_env).run_requests
    assert "stale corpus" in stale.tags["trajectory_platform/retrain_reasons"]

    write_parquet(
        pa.table({"sampler_policy_digest": ["new-policy"]}),
        workdir / "parquet" / "checkpoint" / "all.parquet",
    )
    fresh = _retrain_tick(retrain_env)
    assert fresh.run_requests == []
    assert materialize(
        [fake_scorecard], instance=instance, resources=resources
    ).success  # weekly re-evaluation
    [regressed] = _retrain_tick(retrain_env, cursor=fresh.cursor).run_requests
    assert "regressed" in regressed.tags["trajectory_platform/retrain_reasons"]
    acted = _retrain_tick(retrain_env, cursor=_retrain_tick(retrain_env, cursor=fresh.cursor).cursor)
    assert acted.run_requests == []  # the same scorecard does not trigger twice


def test_dagster_retraining_policy_readers() -> None:
    lineage = pa.array([{"sampler_policy_digest": d} for d in ("a", "b", "b", None)])
    mixture = pa.table(
        {
            "episode_id": ["e0", "e1", "e2", "e3"],
            "lineage": lineage,
            "split": ["train", "train", "test", "train"],
            "selected_target_tokens": [50, 30, 100, 7],
        }
    )
    assert admitted_tokens(mixture) == 87  # the test split is not admitted for training
    assert dominant_sampler_digest(mixture, None) == "a"  # 50 tokens of a vs 30 of b in train
    assert scorecard_regressed(pa.table({"ci_high": [0.2, -0.01]}))  # the latest row decides
    assert not scorecard_regressed(pa.table({"ci_high": [-0.2, 0.01]}))
    assert scorecard_regressed(pa.table({"acceptance": [{"difference": {"ci_high": -0.1}}]}))
    assert not scorecard_regressed(None)


# --- schedules ------------------------------------------------------------------------------


def test_dagster_nightly_schedule_requests_yesterday_once() -> None:
    context = build_schedule_context(scheduled_execution_time=dt.datetime(2024, 3, 2, 2, tzinfo=dt.UTC))
    request = nightly_ingest_and_curate_schedule(context)
    assert request.partition_key == "2024-03-01" and request.run_key == "nightly:2024-03-01"


def test_dagster_weekly_evaluation_schedule_keys_by_iso_week() -> None:
    context = build_schedule_context(scheduled_execution_time=dt.datetime(2024, 3, 3, 3, tzinfo=dt.UTC))
    assert weekly_closed_loop_evaluation_schedule(context).run_key == "weekly-eval:2024-W09"


def test_dagster_schedule_jobs_resolve_against_the_code_location() -> None:
    from trajectory_platform.definitions import defs

    nightly = defs.resolve_job_def("nightly_ingest_and_curate")
    assert {AssetKey("raw_traces"), AssetKey("ingest_rejects")} <= set(
        nightly.asset_layer.selected_asset_keys
    )
    for stage in ("checkpoint", "scorecard", "token_masked_dataset"):
        assert AssetKey(stage) not in nightly.asset_layer.selected_asset_keys
