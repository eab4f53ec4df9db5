"""The daily partitioning shared by every day-partitioned asset and check.

It mirrors the trace source's ``<YYYY-MM-DD>`` folders: a partition is the day a log was
written. It starts early enough for historical logs; ``end_offset=1`` makes today a partition
so logs landing today are ingested today. Downstream daily assets import this one object so
every stage (and its checks) share one partitioning.

Curation below ingest (``verified_traces`` / ``triage_report``, ``redacted_corpus``) runs one day
per run (:data:`PER_DAY_BACKFILL`): a backfill over a range becomes one run per day, which any
executor or run launcher can spread, and a day's output never depends on which other days shared
its run (docs/operations.md, "Per-day curation").

The self-improvement loop's assets are partitioned by round (:data:`ROUND_PARTITIONS`): dynamic
partitions "1", "2", ..., one added per round as the loop starts it (docs/operations.md, "Rounds").
"""

from __future__ import annotations

from dagster import BackfillPolicy, DailyPartitionsDefinition, DynamicPartitionsDefinition

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


ROUND_PARTITIONS_NAME = "rounds"
ROUND_PARTITIONS = DynamicPartitionsDefinition(name=ROUND_PARTITIONS_NAME)
"""One partition per self-improvement round, keyed "1", "2", ...: the round sensor adds round i+1 when
round i's scorecard promotes, and ``trajectory-platform round`` adds the next one by hand. Dynamic,
not static: how many rounds there will be is decided by the loop as it runs."""

ROUND_PARTITION_COLUMN = "round_key"
"""The warehouse column a round-partitioned table's rows are replaced by (added to the DuckDB copy)."""


def round_index(partition_key: str) -> int:
    """The round a partition key names; ``ValueError`` for anything but a positive whole number."""
    if not partition_key.isdigit() or int(partition_key) < 1 or partition_key != str(int(partition_key)):
        raise ValueError(f"a round partition key is a round number 1, 2, ..., not {partition_key!r}")
    return int(partition_key)
