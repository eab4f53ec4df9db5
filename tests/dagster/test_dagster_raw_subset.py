"""``raw_traces`` / ``ingest_rejects`` one at a time, and a data version that is the content's.

Selecting only ``raw_traces`` for a backfill (the UI's partition dialog on its node) used to fail:
the multi-asset could not be subset. Re-ingesting identical files used to look like new data
(Dagster's default data version hashes the run id), which re-triggered verification.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import AssetKey, DagsterInstance, materialize

from trajectory_platform.assets.raw import raw_traces
from trajectory_platform.checks.raw import raw_traces_schema
from trajectory_platform.resources import build_resources, warehouse_connection

pytestmark = pytest.mark.filterwarnings("ignore::dagster.PreviewWarning", "ignore::dagster.BetaWarning")

DAYS = ["2024-03-01", "2024-03-02"]
RANGE = {"dagster/asset_partition_range_start": DAYS[0], "dagster/asset_partition_range_end": DAYS[-1]}


def _tables(workdir: Path) -> dict[str, int]:
    with warehouse_connection(workdir / "warehouse.duckdb", read_only=True) as con:
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchall()[0][0] for n in names}


def test_dagster_raw_traces_alone_backfills_a_range(tmp_path: Path, log_writer) -> None:
    log_writer(DAYS[0], good=1, bad=1)
    log_writer(DAYS[1], good=2, bad=1)
    result = materialize(
        [raw_traces, raw_traces_schema],
        selection=["raw_traces"],
        tags=RANGE,
        resources=build_resources(tmp_path),
    )
    assert result.success
    written = {(m.asset_key.to_user_string(), m.partition) for m in result.get_asset_materialization_events()}
    assert written == {("raw_traces", DAYS[0]), ("raw_traces", DAYS[1])}
    assert _tables(tmp_path) == {"raw_traces": 3}  # no ingest_rejects table: it was not selected
    checks = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
    assert checks == {"records_conserved": True, "raw_traces_schema": True}

    rejects_only = materialize(
        [raw_traces], selection=["ingest_rejects"], partition_key=DAYS[1], resources=build_resources(tmp_path)
    )
    assert rejects_only.success and rejects_only.get_asset_check_evaluations() == []
    assert _tables(tmp_path) == {"raw_traces": 3, "ingest_rejects": 1}


def test_dagster_raw_data_version_is_the_content(
    tmp_path: Path, log_writer, instance: DagsterInstance
) -> None:
    """The same files ingested twice give the same data version; a changed file a new one."""
    resources = build_resources(tmp_path)

    def ingest() -> str:
        result = materialize([raw_traces], partition_key=DAYS[0], resources=resources, instance=instance)
        assert result.success
        event = instance.get_latest_materialization_event(AssetKey("raw_traces"))
        return event.tags["dagster/data_version"]

    log_writer(DAYS[0], good=2)
    first = ingest()
    log_writer(DAYS[0], good=2)  # the same content written again (a new mtime)
    assert ingest() == first
    log_writer(DAYS[0], good=3)
    assert ingest() != first
