"""Two daily partitions materialized at the same time, in two processes (as two queued runs
of a backfill do under the multiprocess executor or on two pods), while a third process holds
the DuckDB file: both wait for the single writer instead of failing, and both land exactly once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from trajectory_platform.resources import warehouse_connection

MATERIALIZE_ONE_DAY = textwrap.dedent(
    """
    import datetime as dt, sys
    from pathlib import Path
    import pyarrow as pa
    from dagster import DailyPartitionsDefinition, asset, materialize
    from trajectory_platform.resources import build_resources

    @asset(partitions_def=DailyPartitionsDefinition(start_date="2024-01-01", end_date="2024-01-10"))
    def daily_rows(context) -> pa.Table:
        day = dt.datetime.fromisoformat(context.partition_key)
        (Path(sys.argv[2]) / f"{context.partition_key}.computed").touch()  # about to be stored
        return pa.table({"episode_id": [f"{context.partition_key}-{i}" for i in range(3)],
                         "partition_date": pa.array([day] * 3, type=pa.timestamp("us"))})

    key, workdir = sys.argv[1], sys.argv[2]
    assert materialize([daily_rows], partition_key=key, resources=build_resources(workdir)).success
    """
)


def test_two_partitions_written_concurrently_wait_for_the_single_writer(tmp_path: Path) -> None:
    script = tmp_path / "one_day.py"
    script.write_text(MATERIALIZE_ONE_DAY)
    db = tmp_path / "warehouse.duckdb"
    days = ("2024-01-02", "2024-01-03")
    with warehouse_connection(db) as con:  # a writer holds the file while both runs start
        con.execute("CREATE TABLE held (x INTEGER)")
        runs = [
            subprocess.Popen([sys.executable, str(script), day, str(tmp_path)], stderr=subprocess.PIPE)
            for day in days
        ]
        deadline = time.monotonic() + 240
        while not all((tmp_path / f"{day}.computed").exists() for day in days):
            assert time.monotonic() < deadline and all(run.poll() is None for run in runs)
            time.sleep(0.2)
        time.sleep(1.5)  # both outputs are computed: only the writer lock keeps them from landing
        assert all(run.poll() is None for run in runs), "a run did not wait for the writer"
    for run in runs:
        _, err = run.communicate(timeout=240)
        assert run.returncode == 0, err.decode()[-2000:]
    with warehouse_connection(db, read_only=True) as con:
        rows = con.execute(
            "SELECT strftime(partition_date, '%Y-%m-%d'), count(*) FROM daily_rows GROUP BY 1 ORDER BY 1"
        ).fetchall()
    assert rows == [(days[0], 3), (days[1], 3)]
    assert sorted(p.name for p in (tmp_path / "parquet" / "daily_rows").iterdir()) == [
        f"{day}.parquet" for day in days
    ]
