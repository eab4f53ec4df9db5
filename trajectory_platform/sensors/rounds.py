"""The round sensor: start round i+1 when round i's scorecard promotes and its collapse watch passed.

Thin: read the new ``round_scorecard`` materializations since the cursor (the storage id of the
last one handled, so each scorecard is handled once), the decision each recorded and its round's
collapse verdict (``round_verified``'s metadata, written with the blocking check), and hand them to
:func:`trajectory_platform.rounds.loop.rounds_to_start`. A round to start is added as a partition
of ``rounds`` and requested as a run of ``round_job``; a hold, a halt, or a successor that already
exists is a skip with its reason. A backfill of an existing round key replays that round; its new
scorecard does not start the successor a second time.
"""

from __future__ import annotations

from typing import Any

from dagster import (
    AssetKey,
    AssetRecordsFilter,
    DagsterInstance,
    DefaultSensorStatus,
    EventLogRecord,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from trajectory_platform.resources.facts import latest_metadata
from trajectory_platform.resources.partitions import ROUND_PARTITIONS, ROUND_PARTITIONS_NAME, round_index
from trajectory_platform.rounds.loop import ScoredRound, rounds_to_start
from trajectory_platform.sensors.jobs import ROUND_JOB

SCORECARD = AssetKey("round_scorecard")
BATCH = 100
"""Scorecard events read per tick (rounds take minutes each, so a tick rarely sees more than one)."""


def scored_round(instance: DagsterInstance, record: EventLogRecord) -> ScoredRound:
    """One scorecard materialization as the loop reads it."""
    materialization = record.asset_materialization
    key = materialization.partition if materialization is not None else None
    if materialization is None or key is None:
        raise ValueError(f"round_scorecard event {record.storage_id} names no round partition")
    card: dict[str, Any] = {k: getattr(v, "value", v) for k, v in materialization.metadata.items()}
    verified = latest_metadata(instance, "round_verified", key)
    return ScoredRound(
        event_id=record.storage_id,
        round_index=round_index(key),
        decision=card.get("decision"),
        reasons=tuple(card.get("reasons") or ()),
        collapse_halt=bool(verified.get("collapse_halt")),
        collapse_reasons=tuple(verified.get("collapse_reasons") or ()),
    )


@sensor(
    name="round_sensor",
    job=ROUND_JOB,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.STOPPED,
    description="Adds round i+1 and requests its round_job run when round i's scorecard promotes "
    "(and its collapse watch passed); skips with the reason on hold or halt.",
)
def round_sensor(context: SensorEvaluationContext) -> SensorResult:
    after = int(context.cursor) if context.cursor else None
    found = context.instance.fetch_materializations(
        AssetRecordsFilter(asset_key=SCORECARD, after_storage_id=after), limit=BATCH, ascending=True
    ).records
    if not found:
        return SensorResult(skip_reason=SkipReason("no new round scorecard"), cursor=context.cursor)
    scored = [scored_round(context.instance, record) for record in found]
    existing = {round_index(k) for k in context.instance.get_dynamic_partitions(ROUND_PARTITIONS_NAME)}
    decision = rounds_to_start(scored, existing)
    cursor = str(decision.last_event)
    if not decision.start:
        return SensorResult(skip_reason=SkipReason("; ".join(decision.skipped)), cursor=cursor)
    keys = [str(i) for i in decision.start]
    context.log.info(f"starting round(s) {keys}; skipped: {decision.skipped}")
    return SensorResult(
        run_requests=[RunRequest(run_key=f"round-{key}", partition_key=key) for key in keys],
        dynamic_partitions_requests=[ROUND_PARTITIONS.build_add_request(keys)],
        cursor=cursor,
    )
