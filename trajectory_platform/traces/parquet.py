"""The one way the platform writes Parquet: pinned writer options, atomic replace.

Every stage's output (the warehouse's asset files, the CLI's outputs, ingest's tables) goes
through :func:`write_parquet`, so the same rows always give the same bytes (with the same
pyarrow) whoever writes them, and a reader never sees half a file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from trajectory_platform.traces.batching import check_batch_rows

ROW_GROUP_ROWS = 1024
"""Rows per row group: the one cut that decides a file's layout, whoever writes it, and the bound on
what a streaming stage's output holds in memory. A streamed file must be byte-identical to the
whole table written at once, so :class:`ParquetAppender` can only write a row group once it is full:
up to this many rows wait as Arrow data. Arrow's default (65,536) made that term grow with the output
over any realistic day (an episode is 7-20 KB of Arrow data here, so up to ~1 GB); 1,024 rows bound
it at ~7-20 MB and keep row groups of whole episodes large enough to compress and to skip by
statistics (0.5-0.8 MB each before compression here; docs/operations.md, "The memory bound, per
stage", has the file-size cost). Changing it changes every table's bytes (and data versions) once."""
PARQUET_OPTIONS = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
    "row_group_size": ROW_GROUP_ROWS,
}
"""Pinned writer options: the bytes depend only on the table (and the pyarrow version)."""


def write_parquet(table: pa.Table, path: Path) -> None:
    """Write ``table`` deterministically and atomically (parent folders are created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp, **PARQUET_OPTIONS)
    os.replace(tmp, path)


def place_parquet(source: Path, path: Path) -> None:
    """Move a finished Parquet file (one :class:`ParquetAppender` wrote) to ``path``, atomically like
    :func:`write_parquet`: a rename on one filesystem, else a copy beside ``path`` renamed into
    place, so a reader never sees half a file and ``source`` is gone either way."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    shutil.move(source, tmp)
    os.replace(tmp, path)


class ParquetAppender:
    """Write a table that arrives in pieces with the bytes :func:`write_parquet` gives the whole table.

    A stage that streams (ingest, verify, redact: ``batch_rows`` rows in memory at a time) appends
    each batch's rows; row groups are cut at the pinned ``row_group_size`` whatever the batch size,
    so the file is byte-identical to writing the concatenated table at once. Atomic like
    :func:`write_parquet`: the file appears on :meth:`close`, and a stage that fails (or refuses,
    as redaction does on a leaked canary) leaves nothing behind. Fewer than one row group of rows
    (:data:`ROW_GROUP_ROWS`) wait here between calls (:attr:`pending_rows`), the slices of the
    tables they came from: the stage's output adds that much to its memory whatever its size.
    """

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path, self.schema = Path(path), schema
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        options = {k: v for k, v in PARQUET_OPTIONS.items() if k != "row_group_size"}
        self._writer = pq.ParquetWriter(self._tmp, schema, **options)
        self._pending: list[pa.Table] = []
        self._rows = 0
        self.rows_written = 0

    @property
    def pending_rows(self) -> int:
        """Rows written to this appender that wait for their row group to fill (always fewer than
        :data:`ROW_GROUP_ROWS` between calls)."""
        return self._rows

    def write(self, table: pa.Table) -> None:
        """Append ``table``'s rows (same schema as the file's); a row group is written as soon as
        it is full, cut from the incoming table so that no slice keeps a written group alive."""
        while table.num_rows:
            head, table = (
                table.slice(0, ROW_GROUP_ROWS - self._rows),
                table.slice(ROW_GROUP_ROWS - self._rows),
            )
            self._pending.append(head)
            self._rows += head.num_rows
            if self._rows == ROW_GROUP_ROWS:
                self._row_group(self._combined())

    def _combined(self) -> pa.Table:
        """The pending rows with one chunk per column, the layout of a table built at once (the
        chunking changes the bytes), copied a column at a time and each column's pieces released
        as it is copied, so the copy adds one column to the pending rows, not all of them."""
        pending = pa.concat_tables([self.schema.empty_table(), *self._pending])
        self._pending, self._rows = [], 0
        columns = []
        for name in self.schema.names:
            columns.append(pending.column(name).combine_chunks())
            pending = pending.drop_columns([name])
        return pa.Table.from_arrays(columns, schema=self.schema)

    def _row_group(self, table: pa.Table) -> None:
        self._writer.write_table(table, row_group_size=ROW_GROUP_ROWS)
        self.rows_written += table.num_rows

    def close(self) -> None:
        """Write the last (short) row group and put the file in place; an empty table is written
        as :func:`write_parquet` writes one (a single empty row group)."""
        if self._rows or not self.rows_written:
            self._row_group(self._combined())
        self._writer.close()
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        """Drop what was written: no file appears."""
        self._writer.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> ParquetAppender:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def read_batches(path: Path, batch_rows: int, columns: list[str] | None = None) -> Iterator[pa.Table]:
    """``path``'s rows in order, at most ``batch_rows`` at a time (Arrow record batches, not the
    whole file): what a streaming stage converts to Python objects one batch at a time."""
    check_batch_rows(batch_rows)
    source = pq.ParquetFile(path, pre_buffer=False)
    for batch in source.iter_batches(batch_size=batch_rows, columns=columns, use_threads=False):
        yield pa.Table.from_batches([batch])


def read_file_batches(
    paths: Sequence[Path], batch_rows: int, columns: list[str] | None = None
) -> Iterator[pa.Table]:
    """:func:`read_batches` over several files (a day's, an asset's), one after the other."""
    for path in paths:
        yield from read_batches(path, batch_rows, columns)
