"""The new-logs and new-feedback sensors: new or changed files in a dated source folder -> exactly
those day partitions (``raw_traces`` from the trace source, ``production_feedback`` from the
feedback source; one rule, :func:`request_changed_days`).

The cursor is ``{day: fingerprint}`` of the source (see
:meth:`TraceSourceResource.fingerprint`). A tick requests one run per day whose
fingerprint is new or changed. Each request's ``run_key`` is ``<day>@<fingerprint>``, and
Dagster never launches two runs with the same run key for a sensor, so a restart that lost the
cursor (or a tick evaluated twice) cannot ingest the same files twice. A changed day is
re-ingested as a whole and the warehouse replaces that partition, so rows never duplicate.
"""

from __future__ import annotations

import json

from dagster import (
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.resources.trace_source import TraceSourceResource
from trajectory_platform.sensors.jobs import FEEDBACK_JOB, INGEST_JOB


def changed_partitions(previous: dict[str, str], current: dict[str, str], valid: set[str]) -> list[str]:
    """Days whose fingerprint is new or different, restricted to partitions that exist."""
    return sorted(day for day, digest in current.items() if day in valid and previous.get(day) != digest)


@sensor(
    name="new_logs_sensor",
    job=INGEST_JOB,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Requests raw_traces for exactly the trace-source days whose files are new or changed.",
)
def new_logs_sensor(context: SensorEvaluationContext, trace_source: TraceSourceResource) -> SensorResult:
    return request_changed_days(context, trace_source, "logs")


@sensor(
    name="new_feedback_sensor",
    job=FEEDBACK_JOB,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Requests production_feedback for exactly the feedback-source days whose files are new "
    "or changed.",
)
def new_feedback_sensor(
    context: SensorEvaluationContext, feedback_source: TraceSourceResource
) -> SensorResult:
    return request_changed_days(context, feedback_source, "feedback")


def request_changed_days(
    context: SensorEvaluationContext, source: TraceSourceResource, what: str
) -> SensorResult:
    """One run request per day folder of ``source`` whose fingerprint is new or changed (run key
    ``<day>@<fingerprint>``), and the cursor of every valid day's fingerprint."""
    previous = json.loads(context.cursor) if context.cursor else {}
    valid = set(DAILY_PARTITIONS.get_partition_keys())
    current = source.fingerprints()
    outside = sorted(set(current) - valid)
    if outside:  # e.g. a future-dated folder: left out of the cursor so it is picked up once valid
        context.log.warning(f"ignoring day folders outside the partitions: {outside}")
    in_range = {day: digest for day, digest in current.items() if day in valid}
    days = changed_partitions(previous, in_range, valid)
    requests = [RunRequest(run_key=f"{day}@{in_range[day]}", partition_key=day) for day in days]
    cursor = json.dumps(in_range, sort_keys=True)
    if not requests:
        return SensorResult(skip_reason=SkipReason(f"no new {what} in {source.root}"), cursor=cursor)
    context.log.info(f"new {what} for {len(days)} day(s): {days}")
    return SensorResult(run_requests=requests, cursor=cursor)
