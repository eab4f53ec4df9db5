"""The daily partitioning shared by every day-partitioned asset and check.

It mirrors the trace source's ``<YYYY-MM-DD>`` folders: a partition is the day a log was
written. It starts early enough for historical logs; ``end_offset=1`` makes today a partition
so logs landing today are ingested today. Downstream daily assets import this one object so
every stage (and its checks) share one partitioning.

Curation below ingest (``verified_traces`` / ``triage_report``, ``redacted_corpus``) runs one day
per run (:data:`PER_DAY_BACKFILL`): a backfill over a range becomes one run per day, which any
executor or run launcher can spread, and a day's output never depends on which other days shared
its run (docs/operations.md, "Per-day curation").
"""

from __future__ import annotations

from dagster import BackfillPolicy, DailyPartitionsDefinition

DAILY_PARTITIONS = DailyPartitionsDefinition(start_date="2023-01-01", end_offset=1)

PER_DAY_BACKFILL = BackfillPolicy.multi_run(max_partitions_per_run=1)
"""The backfill policy of the per-day curation assets: one run per day of the range. One day, not a
batch of days: the cascade's batch-wide judgements (a fixture shown flaky, the advisory ranking, the
tools' refusal rates) and the Λ_leak sample are drawn over exactly one day, so a day's bytes do not
depend on how a backfill was cut into runs."""


def one_day(partition_keys: list[str], asset: str) -> str:
    """The one day a per-day curation run covers; ``ValueError`` naming the range otherwise."""
    if len(partition_keys) != 1:
        raise ValueError(
            f"{asset} runs one day per run, not {len(partition_keys)} "
            f"({partition_keys[0]}..{partition_keys[-1]}): launch a backfill over the range, which "
            "makes one run per day"
        )
    return partition_keys[0]
