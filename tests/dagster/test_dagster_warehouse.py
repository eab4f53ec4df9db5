"""The warehouse IO manager: Parquet + DuckDB, partition replacement, loading back, and an output
staged as a Parquet file (moved into place, loaded into DuckDB from the file)."""

import datetime as dt
import gc
import os
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from dagster import AssetIn, BackfillPolicy, Config, DailyPartitionsDefinition, Output, asset, materialize

from trajectory_platform.resources import build_resources, warehouse_connection
from trajectory_platform.resources.settings import WorkdirResource
from trajectory_platform.resources.warehouse import (
    LOAD_KEY,
    PARQUET_FILES,
    STAGING_DIR,
    STAGING_GRACE_S,
    read_asset_table,
    staged_parquet,
    sweep_staging,
)
from trajectory_platform.traces.parquet import ParquetAppender, write_parquet

DAYS = DailyPartitionsDefinition(start_date="2024-01-01", end_date="2024-01-10")


def _rows_for(key: str, n: int) -> pa.Table:
    day = dt.datetime.fromisoformat(key)
    return pa.table(
        {
            "episode_id": [f"{key}-{i}" for i in range(n)],
            "partition_date": pa.array([day] * n, type=pa.timestamp("us")),
        }
    )


@asset(partitions_def=DAYS, backfill_policy=BackfillPolicy.single_run())
def daily_rows(context) -> pa.Table:
    keys = context.partition_keys
    return pa.concat_tables([_rows_for(k, 2) for k in keys])


@asset(partitions_def=DAYS)
def tagged_rows(context) -> pa.Table:
    """An output without a partition column: the warehouse copy gets one added."""
    return pa.table({"value": [context.partition_key]})


@asset(ins={"daily_rows": AssetIn()})
def row_count(daily_rows: pa.Table) -> pa.Table:
    return pa.table({"n": [daily_rows.num_rows]})


@asset(ins={"daily_rows": AssetIn(metadata={LOAD_KEY: PARQUET_FILES})})
def row_files(daily_rows: list[Path]) -> pa.Table:
    """Asks for its input's files: gets each partition's Parquet path, in partition order."""
    return pa.table({"file": [p.name for p in daily_rows], "ids": [read_ids(p) for p in daily_rows]})


def read_ids(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=["episode_id"]).column("episode_id").to_pylist()


def _count(db: Path, sql: str) -> int:
    with warehouse_connection(db, read_only=True) as con:
        return con.execute(sql).fetchone()[0]


def test_dagster_partitions_replace_without_duplicates(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    for key in ("2024-01-01", "2024-01-02", "2024-01-03", "2024-01-02"):
        assert materialize([daily_rows], partition_key=key, resources=resources).success
    db = tmp_path / "warehouse.duckdb"
    assert _count(db, "SELECT count(*) FROM daily_rows") == 6
    assert _count(db, "SELECT count(DISTINCT episode_id) FROM daily_rows") == 6
    # The trap: the partition column is a TIMESTAMP, so a timestamp filter finds the rows.
    assert _count(db, "SELECT count(*) FROM daily_rows WHERE partition_date = TIMESTAMP '2024-01-02'") == 2
    with warehouse_connection(db, read_only=True) as con:
        kind = con.execute(
            "SELECT data_type FROM information_schema.columns WHERE column_name='partition_date'"
        )
        assert kind.fetchone()[0] == "TIMESTAMP"
    assert sorted(p.name for p in (tmp_path / "parquet" / "daily_rows").iterdir()) == [
        "2024-01-01.parquet",
        "2024-01-02.parquet",
        "2024-01-03.parquet",
    ]


def test_dagster_single_run_range_splits_into_partitions(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    tags = {
        "dagster/asset_partition_range_start": "2024-01-04",
        "dagster/asset_partition_range_end": "2024-01-06",
    }
    assert materialize([daily_rows], tags=tags, resources=resources).success
    assert materialize([daily_rows], tags=tags, resources=resources).success  # resumed / rerun
    assert _count(tmp_path / "warehouse.duckdb", "SELECT count(*) FROM daily_rows") == 6
    part = read_asset_table(tmp_path, "daily_rows", ["2024-01-05"])
    assert part.column("episode_id").to_pylist() == ["2024-01-05-0", "2024-01-05-1"]


def test_dagster_missing_partition_column_is_added_in_warehouse(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    for key in ("2024-01-01", "2024-01-01", "2024-01-02"):
        assert materialize([tagged_rows], partition_key=key, resources=resources).success
    db = tmp_path / "warehouse.duckdb"
    assert _count(db, "SELECT count(*) FROM tagged_rows") == 2
    assert read_asset_table(tmp_path, "tagged_rows").column_names == ["value"]


def test_dagster_unpartitioned_reads_all_partitions(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    for key in ("2024-01-01", "2024-01-02"):
        assert materialize([daily_rows], partition_key=key, resources=resources).success
    result = materialize([daily_rows, row_count], selection=[row_count], resources=resources)
    assert result.success
    assert _count(tmp_path / "warehouse.duckdb", "SELECT n FROM row_count") == 4


def test_dagster_parquet_bytes_are_deterministic(tmp_path: Path) -> None:
    blobs = []
    for run in ("a", "b"):
        assert materialize(
            [daily_rows], partition_key="2024-01-01", resources=build_resources(tmp_path / run)
        ).success
        blobs.append((tmp_path / run / "parquet" / "daily_rows" / "2024-01-01.parquet").read_bytes())
    assert blobs[0] == blobs[1]


def test_dagster_unknown_output_type_fails_clearly(tmp_path: Path) -> None:
    @asset
    def not_a_table() -> dict:
        return {"a": 1}

    with pytest.raises(Exception, match="stores pyarrow.Table"):
        materialize([not_a_table], resources=build_resources(tmp_path))
    assert not duckdb.connect(str(tmp_path / "warehouse.duckdb")).execute("SHOW TABLES").fetchall()


def test_dagster_schema_change_rebuilds_table_from_parquet(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    assert materialize([daily_rows], partition_key="2024-01-01", resources=resources).success

    @asset(name="daily_rows", partitions_def=DAYS)
    def daily_rows_v2(context) -> pa.Table:
        table = _rows_for(context.partition_key, 3)
        return table.append_column("score", pa.array([1.0] * 3))

    assert materialize([daily_rows_v2], partition_key="2024-01-02", resources=resources).success
    db = tmp_path / "warehouse.duckdb"
    assert _count(db, "SELECT count(*) FROM daily_rows") == 5
    assert _count(db, "SELECT count(score) FROM daily_rows") == 3


def test_an_input_can_take_its_upstreams_parquet_files_instead_of_a_table(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    for key in ("2024-01-03", "2024-01-01"):
        assert materialize([daily_rows], partition_key=key, resources=resources).success
    result = materialize([daily_rows, row_files], selection=[row_files], resources=resources)
    assert result.output_for_node("row_files").to_pylist() == [
        {"file": "2024-01-01.parquet", "ids": ["2024-01-01-0", "2024-01-01-1"]},
        {"file": "2024-01-03.parquet", "ids": ["2024-01-03-0", "2024-01-03-1"]},
    ]


class StagedConfig(Config):
    rows: int = 2
    partition_column: bool = True


@asset(partitions_def=DAYS)
def staged_rows(context, config: StagedConfig, workdir: WorkdirResource):
    """Streams its output into a staged file, a row at a time, instead of returning a table."""
    table = _rows_for(context.partition_keys[0], config.rows)
    table = table if config.partition_column else table.drop_columns(["partition_date"])
    with staged_parquet(workdir.root, "staged_rows") as staged:
        with ParquetAppender(staged.path, table.schema) as out:
            for start in range(table.num_rows):
                out.write(table.slice(start, 1))
        yield Output(staged)


def _staged_config(**fields: object) -> dict:
    return {"ops": {"staged_rows": {"config": fields}}}


def test_a_staged_file_output_is_the_partitions_parquet_and_replaces_it_in_duckdb(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    for key, rows in (("2024-01-01", 2), ("2024-01-02", 5), ("2024-01-02", 3)):  # the 2nd day again
        result = materialize(
            [staged_rows], partition_key=key, resources=resources, run_config=_staged_config(rows=rows)
        )
        assert result.success
    assert result.asset_materializations_for_node("staged_rows")[0].metadata["rows"].value == 3
    folder = tmp_path / "parquet" / "staged_rows"
    write_parquet(_rows_for("2024-01-02", 3), tmp_path / "as_a_table.parquet")
    assert (folder / "2024-01-02.parquet").read_bytes() == (tmp_path / "as_a_table.parquet").read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["2024-01-01.parquet", "2024-01-02.parquet"]
    db = tmp_path / "warehouse.duckdb"
    assert _count(db, "SELECT count(*) FROM staged_rows") == 5
    assert _count(db, "SELECT count(*) FROM staged_rows WHERE partition_date = TIMESTAMP '2024-01-02'") == 3
    assert _count(db, "SELECT count(*) FROM staged_rows WHERE episode_id = '2024-01-02-4'") == 0
    assert list((tmp_path / STAGING_DIR).iterdir()) == []  # the staged file moved, its folder gone


def test_a_staged_file_without_the_partition_column_gets_it_in_duckdb(tmp_path: Path) -> None:
    resources = build_resources(tmp_path)
    config = _staged_config(rows=2, partition_column=False)
    for key in ("2024-01-01", "2024-01-01", "2024-01-03"):
        assert materialize([staged_rows], partition_key=key, resources=resources, run_config=config).success
    assert _count(tmp_path / "warehouse.duckdb", "SELECT count(*) FROM staged_rows") == 4
    assert (
        _count(
            tmp_path / "warehouse.duckdb",
            "SELECT count(*) FROM staged_rows WHERE partition_date = TIMESTAMP '2024-01-03'",
        )
        == 2
    )
    assert read_asset_table(tmp_path, "staged_rows").column_names == ["episode_id"]


def test_a_staged_file_is_one_partitions_output(tmp_path: Path) -> None:
    tags = {
        "dagster/asset_partition_range_start": "2024-01-04",
        "dagster/asset_partition_range_end": "2024-01-05",
    }
    with pytest.raises(Exception, match="one partition's rows"):
        materialize([staged_rows], tags=tags, resources=build_resources(tmp_path))
    assert not (tmp_path / "parquet" / "staged_rows").exists()
    gc.collect()  # the failed step's generator, and with it its staging folder, once nothing holds it
    assert list((tmp_path / STAGING_DIR).iterdir()) == []


def test_a_killed_steps_staging_folder_is_swept_and_a_live_ones_is_not(tmp_path: Path) -> None:
    # A step killed while writing (SIGKILL: no cleanup runs) leaves its folder and partial file;
    # the kernel releases its lock, so the next staged output sweeps the folder. A live step's
    # folder (its lock held, here by this process) and a fresh one (inside the grace) stay.
    import signal
    import subprocess
    import sys

    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, signal\n"
            "from trajectory_platform.resources.warehouse import staged_parquet\n"
            f"with staged_parquet({str(tmp_path)!r}, 'verified_traces') as staged:\n"
            "    staged.path.write_bytes(b'partial')\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n",
        ],
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL
    staging = tmp_path / STAGING_DIR
    [orphan] = list(staging.iterdir())
    unlocked = staging / "redacted_corpus-nolock"
    unlocked.mkdir()
    with staged_parquet(tmp_path, "redacted_corpus") as live:
        assert orphan.exists()  # inside the grace: not swept yet
        old = time.time() - 2 * STAGING_GRACE_S
        for folder in (orphan, unlocked, live.path.parent):
            os.utime(folder, (old, old))
        assert sweep_staging(staging) == sorted([orphan, unlocked])
        assert live.path.parent.exists() and not orphan.exists() and not unlocked.exists()
    assert not list(staging.iterdir())


def test_a_sweep_passes_over_a_folder_that_vanishes_while_it_looks(tmp_path: Path, monkeypatch) -> None:
    # Another step's folder is listed, then removed by its step ending before the sweep reads it:
    # the sweep (which runs inside every staged output) must not fail that output.
    staging = tmp_path / STAGING_DIR
    staging.mkdir()
    gone = staging / "verified_traces-ended"
    listed = Path.iterdir

    def list_then_vanish(self: Path):
        entries = list(listed(self))
        if self == staging:
            gone.mkdir()
            entries.append(gone)
            gone.rmdir()  # removed between the listing and the look
        return iter(entries)

    monkeypatch.setattr(Path, "is_dir", lambda self: True)
    monkeypatch.setattr(Path, "iterdir", list_then_vanish)
    assert sweep_staging(staging) == []
