"""``raw_traces`` and ``ingest_rejects``: one day of trace-source logs, normalized.

Thin by design: list the day's files from the trace-source resource, call
:func:`trajectory_platform.traces.ingest.ingest_paths` once per day, attach what a person wants
to see in the UI (counts per format, top reject reasons, a preview) and return both tables.

Backfills run as one run per partition range (``BackfillPolicy.single_run``); the warehouse
IO manager replaces each day's rows, so a rerun or a resumed backfill never duplicates.
"""

import datetime as dt
from collections import Counter

import pyarrow as pa
from dagster import (
    AssetExecutionContext,
    AssetOut,
    BackfillPolicy,
    MetadataValue,
    Output,
    multi_asset,
)

from trajectory_platform.assets._house import declared, tally_metadata
from trajectory_platform.checks.raw import CONSERVATION_CHECK, conservation_result
from trajectory_platform.resources import TraceSourceResource
from trajectory_platform.resources.partitions import DAILY_PARTITIONS
from trajectory_platform.traces.drops import Tally
from trajectory_platform.traces.ingest import IngestResult, discover_log_files, ingest_paths
from trajectory_platform.traces.schema import EPISODE_SCHEMA, REJECT_SCHEMA

PREVIEW_ROWS = 8
TOP_REASONS = 5


@multi_asset(
    outs={
        "raw_traces": AssetOut(
            description="Normalized episodes (EPISODE_SCHEMA), one row per agent attempt, by log day.",
            **declared("traces", EPISODE_SCHEMA, partition_expr="partition_date"),
        ),
        "ingest_rejects": AssetOut(
            description="Unreadable records (REJECT_SCHEMA): file, line and a reason a person understands.",
            **declared("traces", REJECT_SCHEMA, partition_expr="partition_date"),
        ),
    },
    partitions_def=DAILY_PARTITIONS,
    backfill_policy=BackfillPolicy.single_run(),
    check_specs=[CONSERVATION_CHECK],
)
def raw_traces(context: AssetExecutionContext, trace_source: TraceSourceResource):
    """Ingest the trace-source folders of the run's day(s); every record is kept or rejected."""
    results: list[IngestResult] = []
    for key in context.partition_keys:
        folder = trace_source.partition_dir(key)
        paths = discover_log_files(folder) if folder.is_dir() else []
        results.append(
            ingest_paths(paths, partition_date=dt.date.fromisoformat(key), relative_to=trace_source.root_path)
        )
        context.log.info(f"{key}: {results[-1].summary()}")
    tables = [r.to_tables() for r in results]
    episodes = pa.concat_tables([t[0] for t in tables])
    rejects = pa.concat_tables([t[1] for t in tables])
    summary = _merged_summary(results)
    metadata = _episode_metadata(episodes, summary)
    metadata.update(
        rejected=rejects.num_rows,
        top_reject_reasons=MetadataValue.json(summary["top_reject_reasons"]),
        **tally_metadata(Tally.total(r.tally() for r in results)),
    )
    yield Output(episodes, output_name="raw_traces", metadata=metadata)
    yield Output(rejects, output_name="ingest_rejects", metadata=_reject_metadata(rejects, summary))
    yield conservation_result(summary["records_in"], episodes.num_rows, rejects.num_rows)


def _merged_summary(results: list[IngestResult]) -> dict:
    """Add up the per-day ingestion summaries of a (possibly multi-day) run."""
    formats: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for result in results:
        formats.update(result.counts_by_format)
        reasons.update(result.reject_reasons())
    return {
        "records_in": sum(r.records_in for r in results),
        "files": sum(r.files_read for r in results),
        "bytes": sum(r.bytes_read for r in results),
        "counts_by_format": dict(sorted(formats.items())),
        "top_reject_reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_REASONS]),
    }


def _episode_metadata(episodes: pa.Table, summary: dict) -> dict:
    return {
        "records_in": summary["records_in"],
        "normalized": episodes.num_rows,
        "files": summary["files"],
        "bytes": summary["bytes"],
        "counts_by_format": MetadataValue.json(summary["counts_by_format"]),
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
    text = "" if value is None else str(value).replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def _episode_preview(episodes: pa.Table) -> str:
    """A markdown table of the first episodes: id, format, events, status, prompt."""
    if episodes.num_rows == 0:
        return "_no episodes in this partition_"
    rows = ["| episode_id | format | events | status | prompt |", "|---|---|---|---|---|"]
    for row in episodes.slice(0, PREVIEW_ROWS).to_pylist():
        task, outcome = row.get("task") or {}, row.get("outcome") or {}
        rows.append(
            f"| {_cell(row['episode_id'], 40)} | {row['source_format']} | {len(row.get('events') or [])} "
            f"| {_cell(outcome.get('terminal_status'))} | {_cell(task.get('prompt'))} |"
        )
    return "\n".join(rows)


def _reject_preview(rejects: pa.Table) -> str:
    if rejects.num_rows == 0:
        return "_no rejects_"
    rows = ["| file | line | reason | detail |", "|---|---|---|---|"]
    for row in rejects.slice(0, PREVIEW_ROWS).to_pylist():
        where = f"{_cell(row['source_file'], 50)} | {row['source_line']}"
        rows.append(f"| {where} | {row['reason']} | {_cell(row['detail'])} |")
    return "\n".join(rows)
