"""Named stage jobs: every run the platform launches is listed under a stage's name.

A bare asset selection (``materialize``, a sensor whose target is a selection) shows up in the
UI's run list as ``__ephemeral_asset_job__`` / ``__anonymous_asset_job_*``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import (
    AssetKey,
    AutomationConditionSensorDefinition,
    DagsterInstance,
    build_sensor_context,
)

from trajectory_platform.definitions import bound_to, defs, stage_job
from trajectory_platform.resources import build_resources
from trajectory_platform.sensors.jobs import STAGE_JOBS
from trajectory_platform.sensors.new_logs import new_logs_sensor

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")

RAW = [AssetKey("raw_traces"), AssetKey("ingest_rejects")]


def test_dagster_stage_jobs_cover_every_asset_once() -> None:
    graph = defs.resolve_asset_graph()
    selected = [defs.resolve_job_def(job.name).asset_layer.selected_asset_keys for job in STAGE_JOBS]
    every = [key for keys in selected for key in keys]
    assert sorted(every) == sorted(graph.get_all_asset_keys())  # each asset in exactly one stage job
    assert [job.name for job in STAGE_JOBS] == [
        "ingest_job",
        "feedback_job",
        "curation_job",
        "dataset_job",
        "training_job",
        "evaluation_job",
        "round_job",
    ]


def test_dagster_sensors_and_schedules_target_named_jobs() -> None:
    """Everything but the automation sensor (whose runs Dagster names itself) names its job."""
    repository = defs.get_repository_def()
    job_names = {job.name for job in repository.get_all_jobs()}
    targeted = {
        s.name: s.job_name
        for s in repository.sensor_defs
        if not isinstance(s, AutomationConditionSensorDefinition)
    }
    assert targeted == {
        "new_logs_sensor": "ingest_job",
        "new_feedback_sensor": "feedback_job",
        "retraining_sensor": "retraining_job",
        "round_sensor": "round_job",
    }
    for schedule in repository.schedule_defs:
        assert schedule.job_name in job_names and not schedule.job_name.startswith("__"), schedule.name
    assert not any(name.startswith(("__ephemeral", "__anonymous")) for name in job_names)


def test_dagster_stage_job_names_the_cli_and_sensor_runs(
    tmp_path: Path, log_writer, instance: DagsterInstance
) -> None:
    """The CLI's raw step runs as ``ingest_job`` (with the stage's checks); the new-logs sensor's
    request is for that job, which the daemon launches it under."""
    log_writer("2024-03-01", good=2)
    resources = build_resources(tmp_path)
    located = bound_to(resources)
    job = stage_job(located, RAW)  # what `trajectory-platform run` executes for the raw step
    result = job.execute_in_process(asset_selection=RAW, partition_key="2024-03-01", instance=instance)
    assert result.success
    checks = {e.check_name for e in result.get_asset_check_evaluations()}
    assert {"records_conserved", "raw_traces_schema"} <= checks  # the stage's checks come along
    assert [r.dagster_run.job_name for r in instance.get_run_records()] == ["ingest_job"]

    [request] = new_logs_sensor(build_sensor_context(resources=resources)).run_requests
    assert new_logs_sensor.job_name == "ingest_job" and request.partition_key == "2024-03-01"
    assert set(located.resolve_job_def(new_logs_sensor.job_name).asset_layer.selected_asset_keys) == set(RAW)
    with pytest.raises(LookupError, match="no stage job"):
        stage_job(located, [AssetKey("not_an_asset")])
