"""The daily partitioning shared by every day-partitioned asset and check.

It mirrors the trace source's ``<YYYY-MM-DD>`` folders: a partition is the day a log was
written. It starts early enough for historical logs; ``end_offset=1`` makes today a partition
so logs landing today are ingested today. Downstream daily assets import this one object so
every stage (and its checks) share one partitioning.
"""

from __future__ import annotations

from dagster import DailyPartitionsDefinition

DAILY_PARTITIONS = DailyPartitionsDefinition(start_date="2023-01-01", end_offset=1)
