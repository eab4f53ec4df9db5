"""Arrow forms of the cascade's output: the verdict columns, and episodes joined with them.

Only deterministic content is stored (no wall-clock timings: those live in the ledger), so the
same episodes and fixtures give byte-identical Parquet. A trace table is verified from its Parquet
files into a Parquet file (:func:`verify_files`), a batch at a time, so no step holds a day's rows;
a table in memory takes the same path (:func:`verify_table`).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trajectory_platform.curation.verify.cascade import (
    CascadeConfig,
    CascadeResult,
    FixturesLookup,
    lookup_context,
    parquet_batches,
    verify_batches,
)
from trajectory_platform.curation.verify.context import apply_to_fixture, build_diff_view
from trajectory_platform.curation.verify.delta import screen_diff
from trajectory_platform.curation.verify.ledger import count_flakes
from trajectory_platform.curation.verify.verdicts import EpisodeVerdict
from trajectory_platform.traces.parquet import ROW_GROUP_ROWS, ParquetAppender, read_batches, write_parquet
from trajectory_platform.traces.record import Episode, canonical_json
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row, table_to_episodes

VERDICT_FIELDS = [
    pa.field("sink", pa.string(), nullable=False),
    pa.field("sink_reason", pa.string()),
    pa.field("role", pa.string()),
    pa.field("t_div", pa.int32()),
    pa.field("t_rec", pa.int32()),
    pa.field("t_div_reason", pa.string()),
    pa.field("target_turns", pa.list_(pa.int32())),
    pa.field("turn_reasons_json", pa.string()),
    pa.field("advisory_score", pa.float64()),
    pa.field("advisory_rank", pa.int32()),
    pa.field("oracle_runs", pa.int32()),
    pa.field("triage_class", pa.string()),
    pa.field("triage_subject", pa.string()),
    pa.field("triage_evidence_json", pa.string()),
    pa.field("stage_verdicts_json", pa.string()),
    pa.field("verifier_suite_digest", pa.string()),
]
VERDICTS_SCHEMA = pa.schema([pa.field("episode_id", pa.string(), nullable=False), *VERDICT_FIELDS])
"""``verdicts.parquet``: one row per episode, sorted by episode_id."""

VERIFIED_SCHEMA = pa.schema([*EPISODE_SCHEMA, *VERDICT_FIELDS])
"""``verified_traces``: every episode column plus the verdict columns."""


def verdict_row(verdict: EpisodeVerdict) -> dict:
    """The verdict columns of one episode."""
    return {
        "sink": verdict.sink,
        "sink_reason": verdict.reason,
        "role": verdict.role,
        "t_div": verdict.t_div,
        "t_rec": verdict.t_rec,
        "t_div_reason": verdict.t_div_reason,
        "target_turns": verdict.target_turns,
        "turn_reasons_json": canonical_json({str(k): v for k, v in sorted(verdict.turn_reasons.items())}),
        "advisory_score": verdict.advisory_score,
        "advisory_rank": verdict.advisory_rank,
        "oracle_runs": verdict.oracle_runs,
        "triage_class": verdict.triage_class,
        "triage_subject": verdict.triage_subject,
        "triage_evidence_json": canonical_json(verdict.triage_evidence),
        "stage_verdicts_json": canonical_json([s.as_dict() for s in verdict.stages]),
        "verifier_suite_digest": verdict.verifier_suite_digest,
    }


def verdicts_table(result: CascadeResult) -> pa.Table:
    """Verdicts alone (the CLI's ``verdicts.parquet``) of a run that kept them
    (:func:`~trajectory_platform.curation.verify.cascade.verify_episodes`), sorted by episode_id.
    Converted to Arrow one row group (:data:`ROW_GROUP_ROWS` verdicts) at a time: the rows as Python
    dicts are a few KB an episode, so building them all at once peaked with the corpus; chunks cut
    at the row groups give the bytes of the table built at once."""
    ordered = sorted(result.verdicts, key=lambda v: v.episode_id)
    chunks = [
        verdicts_batch(ordered[start : start + ROW_GROUP_ROWS])
        for start in range(0, len(ordered), ROW_GROUP_ROWS)
    ]
    return pa.concat_tables([VERDICTS_SCHEMA.empty_table(), *chunks])


def verdicts_batch(verdicts: list[EpisodeVerdict]) -> pa.Table:
    """A batch of verdicts as ``verdicts.parquet`` rows, sorted by episode_id (stable)."""
    rows = [{"episode_id": v.episode_id, **verdict_row(v)} for v in verdicts]
    rows.sort(key=lambda r: r["episode_id"])
    return pa.Table.from_pylist(rows, schema=VERDICTS_SCHEMA)


SORT_MEMORY = "256MB"
"""DuckDB's memory limit while it sorts a file by episode id (it spills past it): the bound
:class:`VerdictsFile` keeps on verdicts that came out of id order, and :func:`verify_files` on an
input that is not sorted by id."""


class VerdictsFile:
    """``verdicts.parquet`` written a batch of verdicts at a time (what a streaming verification
    emits), with the bytes :func:`write_parquet` gives :func:`verdicts_table`'s whole table.

    Each batch's rows, sorted by id, are appended to a hidden file beside the output. When the
    batches came in id order (a trace table from ingest is sorted by id) that file is the output;
    otherwise DuckDB sorts it into place on disk, within :data:`SORT_MEMORY` (ties in input order).
    Atomic: the output appears on :meth:`close`, and nothing is left behind on an error.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._unsorted = self.path.with_name(f".{self.path.name}.unsorted")
        self._appender = ParquetAppender(self._unsorted, VERDICTS_SCHEMA)
        self._last: str | None = None
        self.in_order = True

    def write(self, verdicts: list[EpisodeVerdict]) -> None:
        table = verdicts_batch(verdicts)
        if table.num_rows:
            ids = table.column("episode_id")
            self.in_order &= self._last is None or ids[0].as_py() >= self._last
            self._last = ids[-1].as_py()
        self._appender.write(table)

    def close(self) -> None:
        self._appender.close()
        try:
            if self.in_order:
                os.replace(self._unsorted, self.path)
            else:
                sort_by_episode_id([self._unsorted], self.path, VERDICTS_SCHEMA)
        finally:
            self._unsorted.unlink(missing_ok=True)

    def __enter__(self) -> VerdictsFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self._appender.abort()


def sort_by_episode_id(sources: Sequence[Path], path: Path, schema: pa.Schema) -> None:
    """``sources``' rows sorted by episode id into ``path`` with ``schema``'s columns: ties in source,
    then row order, so the rows come in the order a stable sort of the sources' concatenation gives.
    Through DuckDB's external sort (within :data:`SORT_MEMORY`, spilling beside ``path``), a row
    group at a time into :class:`ParquetAppender`: neither the input nor the output is held whole."""
    import duckdb

    union = " UNION ALL BY NAME ".join(
        f"SELECT *, {index} AS _sort_source FROM read_parquet(?, file_row_number = true)"
        for index in range(len(sources))
    )
    columns = ", ".join('"' + name.replace('"', '""') + '"' for name in schema.names)
    path.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix=".sort-", dir=path.parent) as spill,
        duckdb.connect(config={"memory_limit": SORT_MEMORY, "threads": 1, "temp_directory": spill}) as con,
        ParquetAppender(path, schema) as out,
    ):
        result = con.sql(
            f"SELECT {columns} FROM ({union}) ORDER BY episode_id, _sort_source, file_row_number",
            params=[str(source) for source in sources],
        )
        for batch in result.to_arrow_reader(ROW_GROUP_ROWS):
            out.write(pa.Table.from_batches([batch]).cast(schema))


def verify_files(
    traces: Sequence[Path],
    out: Path,
    fixtures_lookup: FixturesLookup | None,
    config: CascadeConfig,
    on_batch: Callable[[list[EpisodeVerdict]], None] | None = None,
) -> CascadeResult:
    """Trace tables' Parquet files (a day's ``raw_traces``) through the cascade ``config.batch_rows``
    episodes at a time, in episode id order; their verified table is written to ``out`` batch by
    batch, and the run's result returned (it keeps no verdict).

    Why files: a day held as one Arrow table, input and output, made the stage's memory grow with
    the day although every other part of verification is batched. Here the input is read in record
    batches (sorted on disk first when it is not sorted by id: :func:`episodes_by_id`) and each
    batch leaves as its Arrow rows through :class:`ParquetAppender`, so the file has the bytes
    ``write_parquet(verified_table(...))`` gives the whole input sorted by id, for any batch size.
    Atomic: ``out`` appears only when every batch is written. ``on_batch`` also receives each batch's
    verdicts (the ``curate`` command's ``verdicts.parquet``), so every caller verifies on this one
    path.
    """

    def emit(batch: list[Episode], verdicts: list[EpisodeVerdict]) -> None:
        verified.write(verified_batch(batch, verdicts))
        if on_batch is not None:
            on_batch(verdicts)

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix=".verify-", dir=out.parent) as scratch,
        ParquetAppender(out, VERIFIED_SCHEMA) as verified,
    ):
        source = episodes_by_id(traces, Path(scratch))
        return verify_batches(
            parquet_batches(source, config.batch_rows),
            fixtures_lookup,
            config,
            emit,
        )


def episodes_by_id(traces: Sequence[Path], scratch: Path) -> Path:
    """One Parquet file of ``traces``' episodes sorted by episode id (ties in file, then row order):
    the one file itself when it is already sorted (ingest writes its tables sorted, so this is the
    usual case and costs one read of the id column), else a copy sorted on disk in ``scratch``
    (:func:`sort_by_episode_id`). Verification emits its batches in input order and sorts within
    a batch, so only an input sorted across batches gives a sorted output."""
    if not traces:
        raise ValueError("no trace files to verify")
    if len(traces) == 1 and _sorted_by_id(Path(traces[0])):
        return Path(traces[0])
    path = Path(scratch) / "traces-by-id.parquet"
    sort_by_episode_id([Path(t) for t in traces], path, EPISODE_SCHEMA)
    return path


def _sorted_by_id(path: Path) -> bool:
    """Whether ``path``'s episode ids never decrease (read a row group's ids at a time; strings
    compare by code point here and by UTF-8 bytes in Arrow and DuckDB, the same order)."""
    last: str | None = None
    for table in read_batches(path, ROW_GROUP_ROWS, ["episode_id"]):
        ids = table.column("episode_id").combine_chunks()
        if not len(ids):
            continue
        if last is not None and ids[0].as_py() < last:
            return False
        if not pc.all(pc.greater_equal(ids.slice(1), ids.slice(0, len(ids) - 1))).as_py():
            return False
        last = ids[-1].as_py()
    return True


def verify_table(
    traces: pa.Table, fixtures_lookup: FixturesLookup | None, config: CascadeConfig
) -> tuple[pa.Table, CascadeResult]:
    """A trace table already in memory (a test, a caller that holds its day anyway) through
    :func:`verify_files` by way of a temporary file: its verified table, sorted by episode_id, and
    the run's result. One path verifies a trace table, so the two cannot drift; the table costs a
    write and a read here, which a caller with the table in memory can afford."""
    with tempfile.TemporaryDirectory(prefix="tp-verify-") as folder:
        source, out = Path(folder) / "traces.parquet", Path(folder) / "verified.parquet"
        write_parquet(traces, source)
        result = verify_files([source], out, fixtures_lookup, config)
        # read back under the declared schema: Parquet names a list's item "element", not "item"
        return pq.read_table(out).cast(VERIFIED_SCHEMA).combine_chunks(), result


def verified_table(episodes: list[Episode], result: CascadeResult) -> pa.Table:
    """Episodes with their verdict columns (the ``verified_traces`` asset), sorted by episode_id."""
    by_id = result.by_id()
    return verified_batch(episodes, [by_id[e.episode_id] for e in episodes])


def verified_batch(episodes: list[Episode], verdicts: list[EpisodeVerdict]) -> pa.Table:
    """Episodes with their verdicts, paired by position (a batch ``verify_batches`` emits), sorted by
    episode_id: batches of an input sorted by id append to the table :func:`verified_table` gives."""
    rows = [{**episode_row(e), **verdict_row(v)} for e, v in zip(episodes, verdicts, strict=True)]
    rows.sort(key=lambda r: r["episode_id"])
    return pa.Table.from_pylist(rows, schema=VERIFIED_SCHEMA)


def turn_reasons(row_json: str) -> dict[int, str]:
    """Decode ``turn_reasons_json`` back to event index -> reason."""
    return {int(k): v for k, v in json.loads(row_json or "{}").items()}


def flake_counts(batches: Iterable[pa.Table]) -> tuple[int, int]:
    """(inconsistent, judged) re-derived from a verdict table's stored stage-3 data (its
    ``stage_verdicts_json`` column suffices), read in batches."""

    def dynamic_data() -> Iterator[dict[str, Any]]:
        for table in batches:
            for row in table.select(["stage_verdicts_json"]).to_pylist():
                stages = json.loads(row["stage_verdicts_json"] or "[]")
                yield from (s["data"] for s in stages if s["stage"] == "dynamic")

    inconsistent, judged, _ = count_flakes(dynamic_data())
    return inconsistent, judged


def _writes_measured(stage_verdicts_json: str | None) -> bool:
    """Whether the stored verdict's replay measured every call's writes
    (:attr:`.replay.ReplayResult.writes_measured`): its words are then not read for them."""
    stages = json.loads(stage_verdicts_json or "[]")
    return any(s.get("data", {}).get("replay", {}).get("writes_measured") for s in stages)


def admitted_with_tamper_evidence(
    batches: Iterable[pa.Table], fixtures_lookup: FixturesLookup | None
) -> list[str]:
    """Admitted episode ids on which the diff tamper screen, re-run from scratch, finds evidence.

    An independent re-derivation for the asset check: it reads the stored episodes (a batch at a
    time), not the cascade's bookkeeping, so a routing bug upstream cannot hide a tampered admission.
    """
    flagged = []
    for table in batches:
        admitted = table.filter(pc.equal(table["sink"], "admitted"))
        stages = admitted["stage_verdicts_json"].to_pylist()
        for episode, stored in zip(
            table_to_episodes(admitted.select(EPISODE_SCHEMA.names)), stages, strict=True
        ):
            fixture = lookup_context(fixtures_lookup, episode.task.fixture_id)
            diff = build_diff_view(episode)
            if fixture is not None:
                apply_to_fixture(diff, fixture)
            if screen_diff(episode, diff, fixture, _writes_measured(stored)):
                flagged.append(episode.episode_id)
    return flagged
