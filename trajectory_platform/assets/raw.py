"""``raw_traces`` and ``ingest_rejects``: one day of trace-source logs, normalized.

Thin by design: list the day's files from the trace-source resource, call
:func:`trajectory_platform.traces.ingest.ingest_paths` once per day, attach what a person wants
to see in the UI (counts per format, top reject reasons, a preview) and return both tables.

Backfills run as one run per partition range (``BackfillPolicy.single_run``); the warehouse
IO manager replaces each day's rows, so a rerun or a resumed backfill never duplicates.
"""

import datetime as dt
import hashlib

import pyarrow as pa
import pyarrow.parquet as pq
from dagster import (
    AssetExecutionContext,
    AssetOut,
    BackfillPolicy,
    DataVersion,
    MetadataValue,
    Output,
    multi_asset,
)

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.checks.raw import CONSERVATION_CHECK, conservation_result
from trajectory_platform.curation.redact.engine import mask_secrets
from trajectory_platform.resources import TraceSourceResource
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.ingest import IngestResult, ingest_paths
from trajectory_platform.traces.parquet import PARQUET_OPTIONS
from trajectory_platform.traces.schema import EPISODE_SCHEMA, REJECT_SCHEMA

PREVIEW_ROWS = 8
TOP_REASONS = 5


@multi_asset(
    outs={
        "raw_traces": AssetOut(
            description="Normalized episodes (EPISODE_SCHEMA), one row per agent attempt, by log day.",
            is_required=False,
            **declared("traces", EPISODE_SCHEMA, partition_expr="partition_date"),
        ),
        "ingest_rejects": AssetOut(
            description="Unreadable records (REJECT_SCHEMA): file, line and a reason a person understands.",
            is_required=False,
            **declared("traces", REJECT_SCHEMA, partition_expr="partition_date"),
        ),
    },
    partitions_def=DAILY_PARTITIONS,
    backfill_policy=BackfillPolicy.single_run(),
    check_specs=[CONSERVATION_CHECK],
    can_subset=True,
)
def raw_traces(context: AssetExecutionContext, trace_source: TraceSourceResource):
    """Ingest the trace-source folders of the run's day(s); every record is kept or rejected.

    A backfill runs a range in one run, and Output metadata would land on every day of it; each
    day's figures are attached to that day's materialization instead (``add_asset_metadata``).

    Subsettable: a backfill of ``raw_traces`` alone (or ``ingest_rejects`` alone) writes only the
    selected table. Each table carries a content data version, so re-ingesting identical files
    is no change to what reads it (``sensors/automation.py``).
    """
    selected = context.selected_output_names
    results: list[IngestResult] = []
    for key in context.partition_keys:
        folder = trace_source.partition_dir(key)
        folders = [folder] if folder.is_dir() else []  # a folder: its unread files are counted too
        day = dt.date.fromisoformat(key)
        results.append(
            ingest_paths(folders, partition_date=day, relative_to=trace_source.root_path, shown=mask_secrets)
        )
        context.log.info(f"{key}: {results[-1].summary()}")
    tables = [r.to_tables() for r in results]
    for key, result, day_tables in zip(context.partition_keys, results, tables, strict=True):
        for name, metadata in _day_metadata(result, *day_tables).items():
            if name in selected:
                context.add_asset_metadata(metadata, asset_key=name, partition_key=key)
    episodes = pa.concat_tables([t[0] for t in tables])
    rejects = pa.concat_tables([t[1] for t in tables])
    for name, table in (("raw_traces", episodes), ("ingest_rejects", rejects)):
        if name in selected:
            yield Output(table, output_name=name, data_version=content_version(table))
    if CONSERVATION_CHECK.key in context.selected_asset_check_keys:
        records_in = sum(r.records_in for r in results)
        yield conservation_result(records_in, episodes.num_rows, rejects.num_rows)


def content_version(table: pa.Table) -> DataVersion:
    """The table's data version: a digest of its Parquet bytes under the pinned writer options,
    so the same rows give the same version whichever run ingested them (Dagster's default, a hash
    of the run id, changes every run and makes every re-ingestion look like new data)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **PARQUET_OPTIONS)
    return DataVersion(hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest())


def _day_metadata(result: IngestResult, episodes: pa.Table, rejects: pa.Table) -> dict[str, dict]:
    """One day's ``raw_traces`` and ``ingest_rejects`` metadata, from that day's result alone."""
    summary = result.summary(top=TOP_REASONS)  # the CLI's figures: one source of truth
    metadata = _episode_metadata(episodes, summary)
    metadata.update(
        rejected=rejects.num_rows,
        top_reject_reasons=MetadataValue.json(summary["top_reject_reasons"]),
        **tally_metadata(result.tally()),
    )
    return {"raw_traces": metadata, "ingest_rejects": _reject_metadata(rejects, summary)}


def _episode_metadata(episodes: pa.Table, summary: dict) -> dict:
    return {
        "records_in": summary["records_in"],
        "normalized": episodes.num_rows,
        "files": summary["files"],
        "bytes": summary["bytes"],
        "counts_by_format": MetadataValue.json(summary["counts_by_format"]),
        "skipped_files": MetadataValue.json(summary["skipped_files"]),
        "read_with_other_records": MetadataValue.json(summary["read_with_other_records"]),
        "lone_surrogates_replaced": summary["lone_surrogates_replaced"],
        "markup_kept_as_text": MetadataValue.json(summary["markup_kept_as_text"]),
        "preview": MetadataValue.md(_episode_preview(episodes)),
    }


def _reject_metadata(rejects: pa.Table, summary: dict) -> dict:
    top = summary["top_reject_reasons"]
    lines = ["| reason | count |", "|---|---|", *(f"| {r} | {n} |" for r, n in top.items())]
    return {
        "rejected": rejects.num_rows,
        "top_reject_reasons": MetadataValue.json(top),
        "top_reject_reasons_table": MetadataValue.md("\n".join(lines) if top else "_no rejects_"),
        "preview": MetadataValue.md(_reject_preview(rejects)),
    }


def _cell(value: object, width: int = 60) -> str:
    """``value`` for a preview's cell: secrets of a known format masked (a log's name or a record's
    own id can hold one, and metadata is no redaction's input), one line, cut to ``width``."""
    text = "" if value is None else mask_secrets(str(value)).replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def _episode_preview(episodes: pa.Table) -> str:
    """A markdown table of the first episodes: id, format, events, status, prompt length.

    Never the prompt's text: these tables are not redacted yet, and metadata lands in Dagster's
    event log, which no redaction reaches (a prompt that held a key showed it in the UI). The text
    is read where it is safe to: the redacted corpus."""
    if episodes.num_rows == 0:
        return "_no episodes in this partition_"
    rows = ["| episode_id | format | events | status | prompt chars |", "|---|---|---|---|---|"]
    for row in episodes.slice(0, PREVIEW_ROWS).to_pylist():
        task, outcome = row.get("task") or {}, row.get("outcome") or {}
        cells = [
            _cell(row["episode_id"], 40),
            _cell(row["source_format"]),
            str(len(row.get("events") or [])),
            _cell(outcome.get("terminal_status")),
            str(len(task.get("prompt") or "")),
        ]
        rows.append(f"| {' | '.join(cells)} |")
    return "\n".join(rows)


def _reject_preview(rejects: pa.Table) -> str:
    if rejects.num_rows == 0:
        return "_no rejects_"
    rows = ["| file | line | reason | detail |", "|---|---|---|---|"]
    for row in rejects.slice(0, PREVIEW_ROWS).to_pylist():
        where = f"{_cell(row['source_file'], 50)} | {row['source_line']}"
        rows.append(f"| {where} | {row['reason']} | {_cell(row['detail'])} |")
    return "\n".join(rows)
