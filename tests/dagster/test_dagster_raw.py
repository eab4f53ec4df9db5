"""``raw_traces`` / ``ingest_rejects`` materialized in-process on a temporary workdir."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pyarrow as pa
import pytest
from dagster import AssetKey, asset, materialize

from trajectory_platform.assets.raw import raw_traces
from trajectory_platform.checks.raw import ingest_rejects_explained, raw_traces_episode_ids, raw_traces_schema
from trajectory_platform.resources import build_resources, warehouse_connection
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import episodes_to_table

RAW = [raw_traces, raw_traces_schema, raw_traces_episode_ids, ingest_rejects_explained]
pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")


def _query(workdir: Path, sql: str) -> list[tuple]:
    with warehouse_connection(workdir / "warehouse.duckdb", read_only=True) as con:
        return con.execute(sql).fetchall()


def test_dagster_raw_partition_with_checks_and_metadata(tmp_path: Path, log_writer) -> None:
    log_writer("2024-03-01", good=3, bad=2)
    result = materialize(RAW, partition_key="2024-03-01", resources=build_resources(tmp_path))
    assert result.success
    checks = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
    assert checks == {
        "records_conserved": True,
        "raw_traces_schema": True,
        "raw_traces_episode_ids": True,
        "ingest_rejects_explained": True,
    }
    materializations = {
        m.asset_key.to_user_string(): m.metadata for m in result.asset_materializations_for_node("raw_traces")
    }
    meta = materializations["raw_traces"]
    assert meta["records_in"].value == 5 and meta["normalized"].value == 3
    assert meta["counts_by_format"].value == {"openai": 3}
    assert meta["rejected"].value == 2 and meta["top_reject_reasons"].value == {"malformed JSON": 2}
    assert "| episode_id |" in meta["preview"].value
    assert materializations["ingest_rejects"]["top_reject_reasons"].value == {"malformed JSON": 2}
    assert _query(tmp_path, "SELECT count(*) FROM raw_traces") == [(3,)]
    assert _query(tmp_path, "SELECT count(*), min(source_line) FROM ingest_rejects") == [(2, 4)]


def test_dagster_raw_metadata_counts_unread_files_and_replaced_surrogates(tmp_path: Path, log_writer) -> None:
    """The UI shows what the CLI's summary shows: files of the day that are not logs (never read)
    and lone surrogates replaced, so neither goes unnoticed in a scheduled run."""
    log = log_writer("2024-03-01", good=1)
    (log.parent / "notes.txt").write_text("not a log\n")
    turns = [{"role": "user", "content": "half @HALF@"}, {"role": "assistant", "content": "ok"}]
    line = json.dumps({"messages": turns}).replace("@HALF@", "\\ud83d")  # half an emoji, escaped
    (log.parent / "half.jsonl").write_text(line + "\n")
    result = materialize(RAW, partition_key="2024-03-01", resources=build_resources(tmp_path))
    assert result.success
    materialized = result.asset_materializations_for_node("raw_traces")
    meta = {m.asset_key.to_user_string(): m.metadata for m in materialized}
    assert meta["raw_traces"]["normalized"].value == 2
    assert meta["raw_traces"]["skipped_files"].value == {".txt": 1}
    assert meta["raw_traces"]["lone_surrogates_replaced"].value == 1
    assert meta["raw_traces"]["markup_kept_as_text"].value == {}


def test_dagster_three_partition_backfill_is_resumable_without_duplicates(tmp_path: Path, log_writer) -> None:
    """One run over a 3-day range (single-run policy), then one day rerun, then the range again."""
    days = ["2024-03-01", "2024-03-02", "2024-03-03"]
    for i, day in enumerate(days):
        log_writer(day, good=i + 1, bad=1)
    resources = build_resources(tmp_path)
    tags = {"dagster/asset_partition_range_start": days[0], "dagster/asset_partition_range_end": days[-1]}
    assert materialize(RAW, tags=tags, resources=resources).success
    assert materialize(RAW, partition_key=days[1], resources=resources).success
    assert materialize(RAW, tags=tags, resources=resources).success
    by_day = _query(
        tmp_path,
        "SELECT strftime(partition_date, '%Y-%m-%d'), count(*), count(DISTINCT episode_id) "
        "FROM raw_traces GROUP BY 1 ORDER BY 1",
    )
    assert by_day == [(days[0], 1, 1), (days[1], 2, 2), (days[2], 3, 3)]
    assert _query(tmp_path, "SELECT count(*) FROM ingest_rejects") == [(3,)]


def test_dagster_range_backfill_metadata_is_each_days_own(tmp_path: Path, log_writer) -> None:
    """One run over two days writes one materialization per day, each with that day's figures."""
    days = ["2024-03-01", "2024-03-02"]
    log_writer(days[0], good=1, bad=0)
    log_writer(days[1], good=3, bad=2)
    tags = {"dagster/asset_partition_range_start": days[0], "dagster/asset_partition_range_end": days[-1]}
    result = materialize(RAW, tags=tags, resources=build_resources(tmp_path))
    assert result.success
    by_day: dict[tuple[str, str | None], dict] = {
        (m.asset_key.to_user_string(), m.partition): m.metadata
        for m in result.asset_materializations_for_node("raw_traces")
    }
    first, second = by_day[("raw_traces", days[0])], by_day[("raw_traces", days[1])]
    assert (first["records_in"].value, first["normalized"].value, first["rejected"].value) == (1, 1, 0)
    assert (second["records_in"].value, second["normalized"].value, second["rejected"].value) == (5, 3, 2)
    assert by_day[("ingest_rejects", days[0])]["rejected"].value == 0
    assert by_day[("ingest_rejects", days[1])]["rejected"].value == 2


def test_dagster_empty_day_materializes_empty_tables(tmp_path: Path) -> None:
    result = materialize(RAW, partition_key="2024-03-05", resources=build_resources(tmp_path))
    assert result.success
    assert _query(tmp_path, "SELECT count(*) FROM raw_traces") == [(0,)]


def test_dagster_failed_expectation_reports_the_duplicate(tmp_path: Path) -> None:
    """The id check is real: a partition with a duplicated id fails it and names the id."""

    @asset(name="raw_traces", partitions_def=DAILY_PARTITIONS)
    def duplicated() -> pa.Table:
        twin = Episode("dup", "native", "f.jsonl", 1, None, None)
        table = episodes_to_table([twin, twin])
        day = pa.array([dt.datetime(2024, 3, 1)] * 2, pa.timestamp("us"))
        return table.set_column(table.schema.get_field_index("partition_date"), "partition_date", day)

    result = materialize(
        [duplicated, raw_traces_episode_ids],
        partition_key="2024-03-01",
        resources=build_resources(tmp_path),
        raise_on_error=False,
    )
    [evaluation] = result.get_asset_check_evaluations()
    assert evaluation.asset_key == AssetKey("raw_traces") and not evaluation.passed
    failures = evaluation.metadata["failures"].value
    assert failures["expect_column_values_to_be_unique(episode_id)"]["sample"] == ["dup", "dup"]


def test_a_task_map_at_the_trace_source_root_links_every_days_logs(tmp_path: Path, log_writer) -> None:
    """The chat logs name no task; one ``task_ids.json`` at the source root names it for each day."""
    log_writer("2024-03-01", good=2)
    (tmp_path / "trace_source" / "task_ids.json").write_text('{"2024-03-01/*": "calc-add"}')
    result = materialize(RAW, partition_key="2024-03-01", resources=build_resources(tmp_path))
    assert result.success
    assert _query(tmp_path, "SELECT task.fixture_id, count(*) FROM raw_traces GROUP BY 1") == [
        ("calc-add", 2)
    ]
    assert _query(tmp_path, "SELECT count(*) FROM ingest_rejects") == [(0,)], "the map is not read as a log"
