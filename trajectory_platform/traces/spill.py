"""Ingest's episodes sorted by id in bounded memory: sorted runs on disk, then a k-way merge.

``traces.parquet`` is sorted by episode id and ids are unique across the run (a shared source id
gets a content-digest suffix, :func:`unique_ids`), so its first row depends on the last file read.
Holding every episode until then held the corpus as Python objects. Here the episodes are written
``batch_rows`` at a time as sorted runs (temporary Parquet files), and merged. A duplicated id is
only known at the end: those rows are kept out of the first merge level, renamed (their digests
read back from the runs) and written as runs of their own, so every run is sorted by its final id.
Memory: one batch while parsing, then :data:`FAN_IN` runs' read-ahead and one output batch while
merging (more runs than that merge in levels), beside the output's current row group (fewer than
:data:`~trajectory_platform.traces.parquet.ROW_GROUP_ROWS` rows) waiting in
:class:`~trajectory_platform.traces.parquet.ParquetAppender`, which cuts the same row groups as a
whole-table write: the file is byte-identical to sorting in memory. Parsing holds one record of the
file being read when it is JSON Lines (:meth:`~trajectory_platform.traces.adapters.base.SourceFile.read`).
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trajectory_platform.traces.batching import check_batch_rows
from trajectory_platform.traces.parquet import ParquetAppender, read_batches
from trajectory_platform.traces.record import Episode, canonical_json, with_logged_id
from trajectory_platform.traces.schema import (
    EPISODE_SCHEMA,
    episode_row,
    episodes_to_table,
    table_to_episodes,
)

FAN_IN = 16
"""Runs merged at once; more runs merge in levels, so the merge's read-ahead never grows with them."""
RUN_ROW_GROUP = 64
"""Rows per row group of a run: what a run's reader decodes at once during the merge."""

OrderKey = tuple[str, int, str]
"""Where an episode was read: (source file, line or 0, JSON path or ""): the order of duplicates."""


def order_key(episode: Episode) -> OrderKey:
    return (episode.source_file, episode.source_line or 0, episode.source_path or "")


def episode_digest(episode: Episode) -> str:
    """Digest of what was recorded (not of where it was read from)."""
    row = episode_row(episode)
    content = {k: row[k] for k in ("task", "lineage", "tools", "events", "outcome", "extra_json")}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()[:8]


def unique_ids(episode_id: str, occurrences: Sequence[tuple[OrderKey, str]]) -> list[str]:
    """The ids of episodes sharing ``episode_id``, from each one's (order key, content digest), in the
    given order: each keeps its source id with a suffix of its digest and, for byte-identical
    duplicates, the occurrence number in file/line order (the same names whichever order they came)."""
    ranked = sorted(range(len(occurrences)), key=lambda i: occurrences[i][0])
    seen: Counter[str] = Counter()
    names = [""] * len(occurrences)
    for index in ranked:
        digest = occurrences[index][1]
        seen[digest] += 1
        suffix = digest if seen[digest] == 1 else f"{digest}.{seen[digest]}"
        names[index] = f"{episode_id}~{suffix}"
    return names


class SortedSpill:
    """Episodes in (any order), ``traces.parquet`` out: sorted by final id, ids unique."""

    def __init__(self, folder: Path, batch_rows: int) -> None:
        check_batch_rows(batch_rows)
        self.folder, self.batch_rows = Path(folder), batch_rows
        self.folder.mkdir(parents=True, exist_ok=True)
        self._buffer: list[Episode] = []
        self._runs: list[Path] = []
        self._ids: Counter[str] = Counter()
        self._made = 0

    def add(self, episode: Episode) -> None:
        self._buffer.append(episode)
        self._ids[episode.episode_id] += 1
        if len(self._buffer) >= self.batch_rows:
            self._flush()

    def _flush(self) -> None:
        if self._buffer:
            self._runs.append(self._run(episodes_to_table(sorted(self._buffer, key=lambda e: e.episode_id))))
            self._buffer = []

    def _path(self) -> Path:
        self._made += 1
        return self.folder / f"run-{self._made:06d}.parquet"

    def _run(self, table: pa.Table) -> Path:
        path = self._path()
        pq.write_table(table, path, compression="zstd", compression_level=1, row_group_size=RUN_ROW_GROUP)
        return path

    def write(self, path: Path) -> int:
        """Write every episode added, sorted by final id, to ``path``; returns the rows written."""
        self._flush()
        duplicated = {episode_id for episode_id, count in self._ids.items() if count > 1}
        sources = [(run, duplicated) for run in self._runs]
        sources += [(run, set()) for run in self._renamed_runs(duplicated)]
        while len(sources) > FAN_IN:
            groups = [sources[i : i + FAN_IN] for i in range(0, len(sources), FAN_IN)]
            sources = [(self._merged_run(group), set()) for group in groups]
        with ParquetAppender(path, EPISODE_SCHEMA) as out:
            return self._merge(sources, out.write)

    def _renamed_runs(self, duplicated: set[str]) -> list[Path]:
        """The rows of duplicated ids under their final names (each recording the id its log wrote,
        :func:`with_logged_id`), as runs sorted by those names."""
        if not duplicated:
            return []
        wanted = pa.array(sorted(duplicated), pa.string())
        occurrences: dict[str, list[tuple[OrderKey, str]]] = {}
        for table in self._duplicate_rows(wanted):
            for episode in table_to_episodes(table):
                occurrences.setdefault(episode.episode_id, []).append(
                    (order_key(episode), episode_digest(episode))
                )
        names = {episode_id: iter(unique_ids(episode_id, found)) for episode_id, found in occurrences.items()}
        runs = []
        for table in self._duplicate_rows(wanted):
            logged = table.column("episode_id").to_pylist()
            renamed = [next(names[episode_id]) for episode_id in logged]
            extras = [
                with_logged_id(extra, episode_id)
                for extra, episode_id in zip(table.column("extra_json").to_pylist(), logged, strict=True)
            ]
            for name, values in (("episode_id", renamed), ("extra_json", extras)):
                column = EPISODE_SCHEMA.get_field_index(name)
                table = table.set_column(column, EPISODE_SCHEMA.field(column), pa.array(values, pa.string()))
            runs.append(self._run(table.sort_by("episode_id")))
        return runs

    def _duplicate_rows(self, wanted: pa.Array) -> Iterator[pa.Table]:
        """The rows of duplicated ids, run by run in run order, at most ``batch_rows`` at a time."""
        for run in self._runs:
            for table in read_batches(run, self.batch_rows):
                chosen = table.filter(pc.is_in(table.column("episode_id"), value_set=wanted))
                if chosen.num_rows:
                    yield chosen

    def _merged_run(self, sources: list[tuple[Path, set[str]]]) -> Path:
        """One merge level: ``sources`` merged into one run."""
        path = self._path()
        with pq.ParquetWriter(path, EPISODE_SCHEMA, compression="zstd", compression_level=1) as writer:
            self._merge(sources, lambda table: writer.write_table(table, row_group_size=RUN_ROW_GROUP))
        return path

    def _merge(self, sources: list[tuple[Path, set[str]]], write: Callable[[pa.Table], None]) -> int:
        """Rows of every source in id order, handed to ``write`` ``batch_rows`` rows at a time (each
        source is sorted by id; ``skip``: ids a source leaves out, renamed elsewhere); returns the
        rows written."""
        chunk_rows = max(RUN_ROW_GROUP, self.batch_rows // max(len(sources), 1))
        streams = [_rows(path, skip, chunk_rows) for path, skip in sources]
        pieces: list[pa.Table] = []
        total, rows, start, end = 0, 0, 0, 0
        current: pa.Table | None = None
        for _, table, index in heapq.merge(*streams, key=lambda row: row[0]):
            if table is not current or index != end:
                if current is not None:
                    pieces.append(current.slice(start, end - start))
                current, start, end = table, index, index
            end += 1
            rows += 1
            if rows >= self.batch_rows:
                pieces.append(table.slice(start, end - start))
                write(pa.concat_tables(pieces))
                total += rows
                pieces, rows, current = [], 0, None
        if current is not None:
            pieces.append(current.slice(start, end - start))
        if pieces:
            write(pa.concat_tables(pieces))
        return total + rows


def _rows(path: Path, skip: set[str], chunk_rows: int) -> Iterator[tuple[str, pa.Table, int]]:
    """A run's rows in order as (id, chunk, index in the chunk), ``skip``'s ids left out (ids are
    unique among the rows a merge sees, so it never compares further than the id)."""
    for table in read_batches(path, chunk_rows):
        table = table.cast(EPISODE_SCHEMA)
        for index, episode_id in enumerate(table.column("episode_id").to_pylist()):
            if episode_id not in skip:
                yield episode_id, table, index
