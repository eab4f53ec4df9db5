"""The warehouse IO manager: every asset output as Parquet and as a DuckDB table.

Parquet under ``<workdir>/parquet/<asset>/<partition_key | all>.parquet`` is the durable form
(deterministic writer options: same table -> same bytes). The DuckDB file
``<workdir>/warehouse.duckdb`` mirrors it as one table per asset so a person can query every
stage with SQL. Inputs load back from Parquet, which needs no database lock and so never
blocks a parallel run or a sensor.

An output is a ``pyarrow.Table``, or a :class:`StagedParquet`: one partition's rows a streaming
stage already wrote as Parquet (``verified_traces``), moved into place and read by DuckDB from the
file, so neither the step nor the IO manager holds them as one table.

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
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypeAlias

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

from trajectory_platform.traces.parquet import ROW_GROUP_ROWS, place_parquet, read_file_batches, write_parquet
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


def partition_batches(
    workdir: Path, asset: str, partition_key: str, columns: list[str] | None = None
) -> Iterator[pa.Table]:
    """One partition's stored rows (all columns, or ``columns``), a row group at a time: what an
    asset check reads instead of the day as one table, so checking a day costs a batch of memory,
    not the day. Raises :class:`FileNotFoundError` (naming the folder) when the partition has no file."""
    return read_file_batches(_partition_files(workdir, asset, partition_key), ROW_GROUP_ROWS, columns)


def partition_columns(workdir: Path, asset: str, partition_key: str, columns: list[str]) -> pa.Table:
    """A few short ``columns`` of one partition as one table (ids, labels: what a whole-day
    expectation needs, without the episodes); raises like :func:`partition_batches`."""
    return pa.concat_tables(
        pq.read_table(path, columns=columns) for path in _partition_files(workdir, asset, partition_key)
    )


def _partition_files(workdir: Path, asset: str, partition_key: str) -> list[Path]:
    files = asset_parquet_files(workdir, asset, [partition_key])
    if not files:
        raise FileNotFoundError(
            f"no Parquet for asset {asset!r} partition {partition_key} under "
            f"{asset_parquet_dir(workdir, asset)}: materialize it first"
        )
    return files


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


STAGING_DIR = "staging"
"""``<workdir>/staging``: where a streaming stage writes its output before the IO manager takes it
(:func:`staged_parquet`); a folder left there was a step killed before it could clean up."""


@dataclass(frozen=True)
class StagedParquet:
    """An asset output already written as one partition's Parquet file (by
    :class:`~trajectory_platform.traces.parquet.ParquetAppender`, so with the bytes
    :func:`write_parquet` would give the table): the IO manager moves it into place as that
    partition's file and loads DuckDB from it. Why: a stage that streams its output (a day of
    ``verified_traces``) would otherwise have to build the day as one table only to hand it over."""

    path: Path

    def column_names(self) -> list[str]:
        """The file's columns (read from its footer, not its rows)."""
        return pq.read_schema(self.path).names


STAGING_LOCK = ".in-use"
"""A staging folder's lock file: held (``flock``) by the step writing into the folder for as long
as the folder exists, released by the kernel when that process ends however it ends."""
STAGING_GRACE_S = 60.0
"""How old a staging folder must be before a sweep may take it for abandoned."""


@contextlib.contextmanager
def staged_parquet(workdir: Path, name: str) -> Iterator[StagedParquet]:
    """A :class:`StagedParquet` to write ``name``'s output to, in a fresh folder under
    ``<workdir>/staging`` (the warehouse's filesystem: handing the file over is a rename). Yield
    the output inside the ``with``: the IO manager takes the file while the step waits at the
    ``yield``. A failed step's folder goes when its generator is closed or collected; a killed
    step's stays until the next staged output sweeps it (:func:`sweep_staging`)."""
    root = Path(workdir) / STAGING_DIR
    root.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix=f"{name}-", dir=root) as folder,
        (Path(folder) / STAGING_LOCK).open("w") as lock,
    ):
        fcntl.flock(lock, fcntl.LOCK_EX)  # a fresh file: nobody else holds it
        sweep_staging(root)
        yield StagedParquet(Path(folder) / f"{name}.parquet")


def sweep_staging(root: Path, grace_s: float | None = None) -> list[Path]:
    """Remove the staging folders under ``root`` whose writer is gone: older than ``grace_s``
    (default :data:`STAGING_GRACE_S`; a new folder gets its lock a moment after it is made) and
    with no lock file or a lock nobody holds. Returns them. Why: a step killed mid-write (OOM, a
    cancelled run) leaves its partial Parquet here, possibly gigabytes, and nothing else would ever
    delete it. A folder whose lock is held belongs to a live step, in this process or another, and
    is left alone."""
    grace_s = STAGING_GRACE_S if grace_s is None else grace_s
    swept = []
    for folder in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        try:  # a step that ends meanwhile removes its own folder: not an error, nothing to sweep
            if time.time() - folder.stat().st_mtime < grace_s:
                continue
        except FileNotFoundError:
            continue
        try:
            with (folder / STAGING_LOCK).open("r") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except FileNotFoundError:
            if not folder.exists():
                continue
            # no lock file after the grace: its writer died before taking one
        except BlockingIOError:
            continue  # a live step holds it
        shutil.rmtree(folder, ignore_errors=True)
        swept.append(folder)
    return swept


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


Piece: TypeAlias = pa.Table | Path
"""One partition's rows for the warehouse: a table in memory, or that partition's Parquet file
(already in place), which DuckDB reads itself, a row group at a time."""


def replace_in_warehouse(
    db_path: Path,
    name: str,
    pieces: Mapping[str, Piece],
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
                select, params = _incoming(con, pieces[UNPARTITIONED_KEY], None, None)
                _run(con, f"CREATE OR REPLACE TABLE {quoted} AS {select}", params)
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


def _incoming(
    con: duckdb.DuckDBPyConnection, piece: Piece, column: str | None, value: object
) -> tuple[str, list]:
    """The query (and its parameters) that reads one piece, with the partition column ``column``
    set to ``value`` when the piece lacks it (``None``: unpartitioned). A table is registered as
    ``_incoming``; a file is read by ``read_parquet``, so it is never loaded whole into Python."""
    if isinstance(piece, pa.Table):
        con.register("_incoming", piece if column is None else _with_partition_column(piece, column, value))
        return "SELECT * FROM _incoming", []
    if column is None or column in pq.read_schema(piece).names:
        return "SELECT * FROM read_parquet(?)", [str(piece)]
    return f'SELECT *, ? AS "{column}" FROM read_parquet(?)', [value, str(piece)]


def _insert_pieces(
    con: duckdb.DuckDBPyConnection,
    quoted: str,
    pieces: Mapping[str, Piece],
    partition_column: str,
    partitions_def: PartitionsDefinition | None,
    create: bool,
) -> None:
    for key, piece in pieces.items():
        select, params = _incoming(con, piece, partition_column, _partition_value(partitions_def, key))
        if create:
            _run(con, f"CREATE TABLE {quoted} AS {select}", params)
            create = False
        else:
            _run(con, f"INSERT INTO {quoted} BY NAME {select}", params)
        if isinstance(piece, pa.Table):
            con.unregister("_incoming")


def _stored_pieces(
    obj: pa.Table | StagedParquet,
    keys: list[str],
    column: str | None,
    partitions_def: PartitionsDefinition | None,
    folder: Path,
) -> dict[str, Piece]:
    """Write an output's Parquet, a file per partition key, and return what DuckDB loads: a table's
    pieces (split by partition), or a staged file moved into place as its one partition's file
    (a staged output is one partition's, or an unpartitioned asset's, rows)."""
    if isinstance(obj, pa.Table):
        pieces = split_by_partition(obj, keys, column, partitions_def) if column else {keys[0]: obj}
        for key, piece in pieces.items():
            write_parquet(piece, folder / f"{key}.parquet")
        return dict(pieces)
    if len(keys) != 1:
        raise ValueError(
            f"a StagedParquet output is one partition's rows; this run writes {len(keys)} partitions "
            f"({keys[0]}..{keys[-1]}): run one partition per run (a per-day backfill policy)"
        )
    path = folder / f"{keys[0]}.parquet"
    place_parquet(obj.path, path)
    return {keys[0]: path}


def _piece_rows(piece: Piece) -> int:
    """A piece's rows (a file's from its footer)."""
    return piece.num_rows if isinstance(piece, pa.Table) else pq.ParquetFile(piece).metadata.num_rows


def _run_log(context: OutputContext) -> Callable[[str], None] | None:
    """The run's log for a lock wait (seen in the UI's run view), ``None`` outside a run."""
    try:
        return context.log.warning
    except DagsterInvariantViolationError:
        return None


class WarehouseIOManager(ConfigurableIOManager):
    """Stores every asset output (a ``pyarrow.Table``, or a :class:`StagedParquet` file) as Parquet
    + DuckDB; loads Parquet back.

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

    def handle_output(self, context: OutputContext, obj: pa.Table | StagedParquet | None) -> None:
        if obj is None:  # MaterializeResult / Nothing outputs store nothing
            return
        if not isinstance(obj, pa.Table | StagedParquet):
            raise TypeError(
                f"asset {context.asset_key.to_user_string()} returned {type(obj).__name__}; "
                "the warehouse IO manager stores pyarrow.Table outputs (or a StagedParquet file)"
            )
        columns = obj.column_names if isinstance(obj, pa.Table) else obj.column_names()
        declared = (context.definition_metadata or {}).get("dagster/column_schema")
        if declared is not None and columns != [c.name for c in declared.columns]:
            raise ValueError(
                f"asset {context.asset_key.to_user_string()} returned columns {columns}, "
                f"not the columns its definition declares {[c.name for c in declared.columns]}"
            )
        name = table_name(context.asset_key)
        folder = asset_parquet_dir(self.root, name)
        if context.has_asset_partitions:
            partitions_def = context.asset_partitions_def
            column = (context.definition_metadata or {}).get("partition_expr", DEFAULT_PARTITION_COLUMN)
            keys = list(context.asset_partition_keys)
        else:
            partitions_def, column, keys = None, None, [UNPARTITIONED_KEY]
        pieces = _stored_pieces(obj, keys, column, partitions_def, folder)
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
                "rows": sum(_piece_rows(piece) for piece in pieces.values()),
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
