"""The warehouse IO manager: every asset output as Parquet and as a DuckDB table.

Parquet under ``<workdir>/parquet/<asset>/<partition_key | all>.parquet`` is the durable form
(deterministic writer options: same table -> same bytes). The DuckDB file
``<workdir>/warehouse.duckdb`` mirrors it as one table per asset so a person can query every
stage with SQL. Inputs load back from Parquet, which needs no database lock and so never
blocks a parallel run or a sensor.

Partitioned assets replace exactly their partitions' rows (DELETE + INSERT in one
transaction), so re-materializing a partition or resuming a backfill never duplicates rows.
Time partitions are compared as TIMESTAMP: the record's ``partition_date`` is ``timestamp[us]``
and a string comparison would silently match nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from dagster import (
    AssetKey,
    ConfigurableIOManager,
    DagsterInvariantViolationError,
    InputContext,
    OutputContext,
    PartitionsDefinition,
    TimeWindowPartitionsDefinition,
)
from pydantic import Field

from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.workdir import asset_parquet_dir

UNPARTITIONED_KEY = "all"
DEFAULT_PARTITION_COLUMN = "partition_date"
LOCK_TIMEOUT_S = 300.0
"""How long a connection waits for the warehouse's write lock before giving up (the IO manager's
``lock_timeout_s`` default)."""
LOCK_NOTICE_EVERY_S = 10.0
LOCK_POLL_S = 0.2


def table_name(asset_key: AssetKey) -> str:
    """The DuckDB table (and Parquet folder) for an asset: its name, prefixes joined by ``__``."""
    return "__".join(asset_key.path)


def asset_parquet_files(workdir: Path, asset: str, partition_keys: list[str] | None = None) -> list[Path]:
    """An asset's Parquet files in partition order: all of them, or those of ``partition_keys`` that
    exist (empty when nothing was written)."""
    folder = asset_parquet_dir(workdir, asset)
    if partition_keys is None:
        return sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    files = [folder / f"{key}.parquet" for key in sorted(partition_keys)]
    return [f for f in files if f.exists()]


def read_asset_table(
    workdir: Path, asset: str, partition_keys: list[str] | None = None, columns: list[str] | None = None
) -> pa.Table | None:
    """Read an asset's Parquet back (all partitions, or the given ones that exist; all columns
    or just ``columns``, which must exist).

    Returns ``None`` when nothing was ever written, so sensors can run before the asset exists.
    """
    files = asset_parquet_files(workdir, asset, partition_keys)
    return _read_files(files, columns) if files else None


def _read_files(files: list[Path], columns: list[str] | None = None) -> pa.Table:
    """Several partitions' files as one table (a column one partition lacks is null in its rows)."""
    tables = [pq.read_table(f, columns=columns) for f in files]
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")


LOAD_KEY = "load"
PARQUET_FILES = "parquet_files"
"""``AssetIn(metadata={LOAD_KEY: PARQUET_FILES})``: the input arrives as its upstream's Parquet files
(``list[Path]``, one per partition in partition order), not as one table: for a stage that reads
its input a batch at a time (the split, the mixture and the pairs over every day of
``redacted_corpus``), so loading it does not hold every day's rows at once."""


class WarehouseLockTimeout(TimeoutError):
    """The warehouse stayed locked by another process for longer than the lock timeout."""


def _say_on_stderr(message: str) -> None:
    print(f"warehouse: {message}", file=sys.stderr, flush=True)


@dataclass
class LockWait:
    """Waiting for the warehouse's write lock: what it waits for is said when the wait starts and
    every ``notice_every_s`` after, and the wait ends in :class:`WarehouseLockTimeout` after
    ``timeout_s``, so a held lock never looks like a hang."""

    path: Path
    timeout_s: float
    notify: Callable[[str], None]
    notice_every_s: float = LOCK_NOTICE_EVERY_S
    poll_s: float = LOCK_POLL_S
    started: float = field(default_factory=time.monotonic)
    next_notice: float = 0.0

    def tick(self, holder: str) -> None:
        """One more poll of a lock ``holder`` keeps: say so when due, give up after the timeout."""
        waited = time.monotonic() - self.started
        if waited >= self.timeout_s:
            raise WarehouseLockTimeout(
                f"{self.path}: gave up after {waited:.0f}s waiting for its write lock, held by {holder}; "
                "close that process (a DuckDB shell or notebook holding the file, another run) and retry"
            )
        if waited >= self.next_notice:
            self.notify(
                f"waiting for the write lock on {self.path}: held by {holder} "
                f"({waited:.0f}s so far, giving up after {self.timeout_s:.0f}s)"
            )
            self.next_notice = waited + self.notice_every_s
        time.sleep(self.poll_s)


def _flock_holder(lock_file: IO[str]) -> str:
    """Who holds ``<file>.lock``: the process id its holder wrote into it, when there is one."""
    lock_file.seek(0)
    pid = lock_file.read().strip()
    return f"process {pid} (another run of this platform)" if pid.isdigit() else "another process"


def _duckdb_holder(error: Exception) -> str:
    """Who holds DuckDB's own file lock, as its error names it (``... (PID 1234)``)."""
    found = re.search(r"held in (.+?) \(PID (\d+)\)", str(error))
    return f"process {found.group(2)} ({found.group(1)})" if found else "another process"


@contextlib.contextmanager
def warehouse_connection(
    path: Path,
    read_only: bool = False,
    *,
    timeout_s: float = LOCK_TIMEOUT_S,
    notify: Callable[[str], None] | None = None,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the DuckDB file, waiting while another process holds its single-writer lock.

    Writers in this package also serialize on ``<file>.lock`` (flock, with the holder's process id
    written in it) so parallel steps of a multiprocess run queue up instead of failing. While it
    waits, ``notify`` (default: stderr) hears which file and which process it waits for, every
    ``LOCK_NOTICE_EVERY_S``; after ``timeout_s`` it raises :class:`WarehouseLockTimeout`.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(path.name + ".lock")
    wait = LockWait(path, timeout_s, notify or _say_on_stderr)
    with open(lock_path, "a+") as lock_file:
        if not read_only:
            while True:
                try:
                    fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    wait.tick(_flock_holder(lock_file))
            lock_file.truncate(0)
            lock_file.write(str(os.getpid()))
            lock_file.flush()
        while True:
            try:
                con = duckdb.connect(str(path), read_only=read_only)
                break
            except duckdb.IOException as err:  # held by another process (e.g. a person's shell)
                if "lock" not in str(err).lower():
                    raise
                wait.tick(_duckdb_holder(err))
        try:
            yield con
        finally:
            con.close()


def _partition_value(partitions_def: PartitionsDefinition | None, key: str) -> object:
    """The warehouse value of a partition key: a naive UTC TIMESTAMP for time partitions."""
    if isinstance(partitions_def, TimeWindowPartitionsDefinition):
        start = partitions_def.time_window_for_partition_key(key).start
        return start.astimezone(dt.UTC).replace(tzinfo=None)
    return key


def _with_partition_column(table: pa.Table, column: str, value: object) -> pa.Table:
    """Add the partition column for the warehouse copy when the output does not carry it."""
    if column in table.column_names:
        return table
    arrow_type = pa.timestamp("us") if isinstance(value, dt.datetime) else pa.string()
    return table.append_column(column, pa.array([value] * table.num_rows, type=arrow_type))


def split_by_partition(
    table: pa.Table, keys: list[str], column: str, partitions_def: PartitionsDefinition | None
) -> dict[str, pa.Table]:
    """One table per partition key; every row must belong to one of ``keys`` (nothing lost)."""
    if len(keys) == 1:
        return {keys[0]: table}
    if column not in table.column_names:
        raise ValueError(
            f"a multi-partition output must carry the partition column {column!r} "
            f"(set metadata partition_expr on the asset to name another); columns: {table.column_names}"
        )
    pieces: dict[str, pa.Table] = {}
    for key in keys:
        value = _partition_value(partitions_def, key)
        scalar = pa.scalar(value, type=table.schema.field(column).type)
        pieces[key] = table.filter(pc.fill_null(pc.equal(table[column], scalar), False))
    placed = sum(p.num_rows for p in pieces.values())
    if placed != table.num_rows:
        raise ValueError(
            f"{table.num_rows - placed} rows have a {column!r} outside partitions {keys[0]}..{keys[-1]}"
        )
    return pieces


def replace_in_warehouse(
    db_path: Path,
    name: str,
    pieces: Mapping[str, pa.Table],
    partition_column: str | None,
    partitions_def: PartitionsDefinition | None,
    parquet_dir: Path,
    *,
    lock_timeout_s: float = LOCK_TIMEOUT_S,
    notify: Callable[[str], None] | None = None,
) -> None:
    """Make table ``name`` hold exactly ``pieces`` for their partitions (all rows if unpartitioned).

    If the asset's schema changed since the table was created, the table is rebuilt from every
    Parquet partition (already written), so the warehouse always equals the Parquet files. A wait
    for the write lock is told to ``notify`` (see :func:`warehouse_connection`).
    """
    quoted = '"' + name.replace('"', '""') + '"'
    with warehouse_connection(db_path, timeout_s=lock_timeout_s, notify=notify) as con:
        con.begin()
        try:
            exists = _table_exists(con, name)
            if partition_column is None:
                con.register("_incoming", pieces[UNPARTITIONED_KEY])
                _run(con, f"CREATE OR REPLACE TABLE {quoted} AS SELECT * FROM _incoming")
            else:
                values = [_partition_value(partitions_def, key) for key in pieces]
                if exists:
                    placeholders = ", ".join("?" for _ in values)
                    col = '"' + partition_column + '"'
                    _run(con, f"DELETE FROM {quoted} WHERE {col} IN ({placeholders})", values)
                try:
                    _insert_pieces(con, quoted, pieces, partition_column, partitions_def, create=not exists)
                except (duckdb.BinderException, duckdb.ConversionException, duckdb.CatalogException):
                    con.rollback()
                    con.begin()
                    _run(con, f"DROP TABLE IF EXISTS {quoted}")
                    frames = [
                        _with_partition_column(
                            pq.read_table(p), partition_column, _partition_value(partitions_def, p.stem)
                        )
                        for p in sorted(parquet_dir.glob("*.parquet"))
                    ]
                    con.register("_incoming", pa.concat_tables(frames, promote_options="permissive"))
                    _run(con, f"CREATE TABLE {quoted} AS SELECT * FROM _incoming")
            con.commit()
        except BaseException:
            con.rollback()
            raise


def _run(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> list:
    """Execute and drain the result: DuckDB 2 refuses new work while a result is unfetched."""
    return con.execute(sql, params or []).fetchall()


def _table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return bool(
        _run(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name])[0][0]
    )


def _insert_pieces(con, quoted, pieces, partition_column, partitions_def, create: bool) -> None:
    for key, piece in pieces.items():
        frame = _with_partition_column(piece, partition_column, _partition_value(partitions_def, key))
        con.register("_incoming", frame)
        if create:
            _run(con, f"CREATE TABLE {quoted} AS SELECT * FROM _incoming")
            create = False
        else:
            _run(con, f"INSERT INTO {quoted} BY NAME SELECT * FROM _incoming")
        con.unregister("_incoming")


def _run_log(context: OutputContext) -> Callable[[str], None] | None:
    """The run's log for a lock wait (seen in the UI's run view), ``None`` outside a run."""
    try:
        return context.log.warning
    except DagsterInvariantViolationError:
        return None


class WarehouseIOManager(ConfigurableIOManager):
    """Stores every asset output (a ``pyarrow.Table``) as Parquet + DuckDB; loads Parquet back.

    Partitioned assets name their partition column with definition metadata ``partition_expr``
    (default ``partition_date``); when a single-partition output lacks it, the warehouse copy
    gets it added so rows can still be replaced per partition.
    """

    workdir: str
    lock_timeout_s: float = Field(
        default=LOCK_TIMEOUT_S,
        description="seconds to wait for the warehouse's write lock (held by another process) before "
        "failing; the wait is logged with the file and the holder meanwhile",
    )

    @property
    def root(self) -> Path:
        return Path(self.workdir).resolve()

    @property
    def db_path(self) -> Path:
        return self.root / "warehouse.duckdb"

    def handle_output(self, context: OutputContext, obj: pa.Table | None) -> None:
        if obj is None:  # MaterializeResult / Nothing outputs store nothing
            return
        if not isinstance(obj, pa.Table):
            raise TypeError(
                f"asset {context.asset_key.to_user_string()} returned {type(obj).__name__}; "
                "the warehouse IO manager stores pyarrow.Table outputs"
            )
        declared = (context.definition_metadata or {}).get("dagster/column_schema")
        if declared is not None and obj.column_names != [c.name for c in declared.columns]:
            raise ValueError(
                f"asset {context.asset_key.to_user_string()} returned columns {obj.column_names}, "
                f"not the columns its definition declares {[c.name for c in declared.columns]}"
            )
        name = table_name(context.asset_key)
        folder = asset_parquet_dir(self.root, name)
        if context.has_asset_partitions:
            partitions_def = context.asset_partitions_def
            column = (context.definition_metadata or {}).get("partition_expr", DEFAULT_PARTITION_COLUMN)
            pieces = split_by_partition(obj, list(context.asset_partition_keys), column, partitions_def)
        else:
            partitions_def, column = None, None
            pieces = {UNPARTITIONED_KEY: obj}
        for key, piece in pieces.items():
            write_parquet(piece, folder / f"{key}.parquet")
        replace_in_warehouse(
            self.db_path,
            name,
            pieces,
            column,
            partitions_def,
            folder,
            lock_timeout_s=self.lock_timeout_s,
            notify=_run_log(context),
        )
        context.add_output_metadata(
            {
                "rows": obj.num_rows,
                "duckdb_table": f"{self.db_path}::{name}",
                "parquet": str(folder / (f"{next(iter(pieces))}.parquet" if len(pieces) == 1 else "")),
            }
        )

    def load_input(self, context: InputContext) -> pa.Table | list[Path]:
        """The upstream's rows as one table, or its Parquet files when the input asks for them
        (:data:`PARQUET_FILES`)."""
        name = table_name(context.asset_key)
        keys = list(context.asset_partition_keys) if context.has_asset_partitions else [UNPARTITIONED_KEY]
        files = asset_parquet_files(self.root, name, keys)
        if not files:
            raise FileNotFoundError(
                f"no Parquet for asset {name!r} (partitions {keys[0]}..{keys[-1]}) under "
                f"{asset_parquet_dir(self.root, name)}: materialize it first"
            )
        if (context.definition_metadata or {}).get(LOAD_KEY) == PARQUET_FILES:
            return files
        return _read_files(files)
