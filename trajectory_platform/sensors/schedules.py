"""Schedules: nightly ingestion + curation, weekly closed-loop evaluation of the incumbent.

Jobs are asset selections by key, so they grow as stages land: the nightly job is the ingestion
multi-asset and everything downstream of it up to (not including) the training stage; the
weekly job re-materializes ``scorecard``, which evaluates the current checkpoint on freshly
generated held-out fixtures. Selections by string tolerate stages that do not exist yet.
"""

from __future__ import annotations

import datetime as dt

from dagster import (
    AssetSelection,
    DefaultScheduleStatus,
    RunRequest,
    ScheduleEvaluationContext,
    define_asset_job,
    schedule,
)

TRAINING_STAGE = 'key:"token_masked_dataset"+ or key:"checkpoint"+ or key:"scorecard"+'

nightly_job = define_asset_job(
    "nightly_ingest_and_curate",
    selection=AssetSelection.from_string('(key:"raw_traces" or key:"ingest_rejects")+')
    - AssetSelection.from_string(TRAINING_STAGE),
    description="Ingest one day of logs and refresh curation (verify, redact, split, mixture).",
)

weekly_evaluation_job = define_asset_job(
    "weekly_closed_loop_evaluation",
    selection=AssetSelection.from_string('key:"scorecard"'),
    description="Closed-loop evaluation of the incumbent checkpoint on fresh fixtures.",
)


def previous_day(moment: dt.datetime) -> str:
    """The partition a nightly run ingests: the day that just ended (UTC)."""
    return (moment.astimezone(dt.UTC).date() - dt.timedelta(days=1)).isoformat()


@schedule(
    name="nightly_ingest_and_curate_schedule",
    cron_schedule="0 2 * * *",
    execution_timezone="UTC",
    job=nightly_job,
    default_status=DefaultScheduleStatus.STOPPED,
)
def nightly_ingest_and_curate_schedule(context: ScheduleEvaluationContext) -> RunRequest:
    """At 02:00 UTC: yesterday's partition through curation (run key = the day: at most once)."""
    day = previous_day(context.scheduled_execution_time)
    return RunRequest(run_key=f"nightly:{day}", partition_key=day, tags={"trajectory_platform/day": day})


@schedule(
    name="weekly_closed_loop_evaluation_schedule",
    cron_schedule="0 3 * * 0",
    execution_timezone="UTC",
    job=weekly_evaluation_job,
    default_status=DefaultScheduleStatus.STOPPED,
)
def weekly_closed_loop_evaluation_schedule(context: ScheduleEvaluationContext) -> RunRequest:
    """Sundays 03:00 UTC: re-run the closed-loop scorecard of the incumbent."""
    week = context.scheduled_execution_time.astimezone(dt.UTC).strftime("%G-W%V")
    return RunRequest(run_key=f"weekly-eval:{week}", tags={"trajectory_platform/week": week})
