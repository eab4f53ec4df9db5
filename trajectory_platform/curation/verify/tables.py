"""Arrow forms of the cascade's output: the verdict columns, and episodes joined with them.

Only deterministic content is stored (no wall-clock timings: those live in the ledger), so the
same episodes and fixtures give byte-identical Parquet.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from trajectory_platform.curation.verify.cascade import (
    CascadeConfig,
    CascadeResult,
    FixturesLookup,
    lookup_context,
    verify_batches,
)
from trajectory_platform.curation.verify.context import apply_to_fixture, build_diff_view
from trajectory_platform.curation.verify.delta import screen_diff
from trajectory_platform.curation.verify.ledger import count_flakes
from trajectory_platform.curation.verify.verdicts import EpisodeVerdict
from trajectory_platform.traces.parquet import ROW_GROUP_ROWS, ParquetAppender
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
"""DuckDB's memory limit while it sorts a verdicts file whose batches came out of id order (it
spills past it): the bound :class:`VerdictsFile` keeps on an unsorted input."""


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
                _sort_verdicts(self._unsorted, self.path)
        finally:
            self._unsorted.unlink(missing_ok=True)

    def __enter__(self) -> VerdictsFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self._appender.abort()


def _sort_verdicts(source: Path, path: Path) -> None:
    """``source``'s rows sorted by episode id (then file order) into ``path``, through DuckDB's
    external sort, a row group at a time into :class:`ParquetAppender`."""
    import duckdb

    with (
        tempfile.TemporaryDirectory(prefix=".sort-", dir=path.parent) as spill,
        duckdb.connect(config={"memory_limit": SORT_MEMORY, "threads": 1, "temp_directory": spill}) as con,
        ParquetAppender(path, VERDICTS_SCHEMA) as out,
    ):
        result = con.sql(
            "SELECT * EXCLUDE (file_row_number) FROM read_parquet(?, file_row_number = true) "
            "ORDER BY episode_id, file_row_number",
            params=[str(source)],
        )
        for batch in result.to_arrow_reader(ROW_GROUP_ROWS):
            out.write(pa.Table.from_batches([batch]).cast(VERDICTS_SCHEMA))


def verify_table(
    traces: pa.Table, fixtures_lookup: FixturesLookup | None, config: CascadeConfig
) -> tuple[pa.Table, CascadeResult]:
    """A trace table (a day's ``raw_traces``) through the cascade ``config.batch_rows`` episodes at a
    time: its verified table, sorted by episode_id, and the run's result. Each batch becomes Python
    episodes only while it is verified, and its verdicts leave as that batch's Arrow rows (no
    verdict is kept), so the stage holds the day's Arrow input and output, not the day's episodes
    and verdicts as objects. The bytes of :func:`verified_table` over the whole day."""
    ordered = traces.take(pc.sort_indices(traces, [("episode_id", "ascending")]))
    size = config.batch_rows

    def batches() -> Iterator[list[Episode]]:
        return (table_to_episodes(ordered.slice(start, size)) for start in range(0, ordered.num_rows, size))

    pieces: list[pa.Table] = []
    result = verify_batches(
        batches, fixtures_lookup, config, lambda b, v: pieces.append(verified_batch(b, v))
    )
    return pa.concat_tables([VERIFIED_SCHEMA.empty_table(), *pieces]).combine_chunks(), result


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


def flake_counts(table: pa.Table) -> tuple[int, int]:
    """(inconsistent, judged) re-derived from a verdict table's stored stage-3 data."""
    datas: list[dict[str, Any]] = []
    for row in table.select(["stage_verdicts_json"]).to_pylist():
        stages = json.loads(row["stage_verdicts_json"] or "[]")
        datas.extend(s["data"] for s in stages if s["stage"] == "dynamic")
    inconsistent, judged, _ = count_flakes(datas)
    return inconsistent, judged


def admitted_with_tamper_evidence(table: pa.Table, fixtures_lookup: FixturesLookup | None) -> list[str]:
    """Admitted episode ids on which the diff tamper screen, re-run from scratch, finds evidence.

    An independent re-derivation for the asset check: it reads the stored episodes, not the
    cascade's bookkeeping, so a routing bug upstream cannot hide a tampered admission.
    """
    admitted = table.filter(pc.equal(table["sink"], "admitted")).select(EPISODE_SCHEMA.names)
    flagged = []
    for episode in table_to_episodes(admitted):
        fixture = lookup_context(fixtures_lookup, episode.task.fixture_id)
        diff = build_diff_view(episode)
        if fixture is not None:
            apply_to_fixture(diff, fixture)
        if screen_diff(episode, diff, fixture):
            flagged.append(episode.episode_id)
    return flagged
