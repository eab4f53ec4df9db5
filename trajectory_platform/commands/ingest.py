"""``trajectory-platform ingest PATH... --out DIR``: agent logs -> traces.parquet + rejects.parquet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._files import not_text
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args
from trajectory_platform.traces.adapters import FORMAT_NAMES

if TYPE_CHECKING:
    from trajectory_platform.traces.ingest import IngestResult

LOGS = "agent logs (JSON, JSONL or text)"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``ingest`` subcommand."""
    parser = subparsers.add_parser(
        "ingest",
        help="normalize agent logs into the trace record (traces.parquet, rejects.parquet)",
        description="Read agent logs (files or folders), normalize every record into the trace record "
        "and write DIR/traces.parquet and DIR/rejects.parquet. Records in = normalized + rejected; "
        "each reject names its file, line or JSON path, and reason. A task_ids.json in a log folder names "
        "the task of the logs below it that name none (docs/formats.md). The last stdout line is a JSON "
        "summary (records_in, normalized, rejected, counts_by_format, top_reject_reasons).",
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="log files or folders (searched recursively)"
    )
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    parser.add_argument(
        "--format",
        default="auto",
        choices=("auto", *FORMAT_NAMES),
        help="input format (default: detected per file)",
    )
    parser.add_argument(
        "--max-field-chars",
        type=int,
        default=None,
        help="reject records with a text field longer than this many characters (default: the trace "
        "validator's limit, DEFAULT_MAX_FIELD_CHARS in traces/validate.py)",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="exit 0 even when no record was normalized (default: that is an error, so a CI step "
        "cannot pass on zero data)",
    )
    from trajectory_platform.traces.ingest_settings import IngestSettings

    add_settings_arguments(parser, IngestSettings)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar on stderr")
    parser.set_defaults(func=run)


SHOWN_REJECTS = 10


def _show_rejects(result: IngestResult) -> None:
    """Name the first rejects on stderr (all of them are in rejects.parquet). A file name or a
    record's locator can hold a secret (a token in a log's name, a record id): known formats are
    masked (:attr:`IngestResult.shown`), since a terminal's or a CI job's log is no redaction's input."""
    from trajectory_platform.traces.ingest import Reject

    for reject in sorted(result.rejects, key=Reject.sort_key)[:SHOWN_REJECTS]:
        where = f":{reject.source_line}" if reject.source_line else f" {reject.source_path or ''}"
        print(
            f"reject {result.shown(reject.source_file + where)}: {reject.reason} ({reject.detail})",
            file=sys.stderr,
        )
    if len(result.rejects) > SHOWN_REJECTS:
        print(f"... and {len(result.rejects) - SHOWN_REJECTS} more in rejects.parquet", file=sys.stderr)


def nothing_normalized(result: IngestResult, fmt: str) -> str:
    """Why zero records came out: how many were read, the top reject reasons, and the usual cause."""
    reasons = ", ".join(f"{reason} ({count})" for reason, count in list(result.reject_reasons().items())[:3])
    hint = (
        f"; --format {fmt} was forced: try --format auto"
        if fmt != "auto"
        else f"; formats read: {', '.join(FORMAT_NAMES)}"
    )
    return (
        f"0 of {result.records_in} record(s) in {result.files_read} file(s) normalized "
        f"(rejected: {reasons or 'none'}){hint}"
    )


def run(args: argparse.Namespace) -> int:
    """Ingest (``--batch-rows`` episodes in memory at a time), write both tables, print the summary;
    non-zero when nothing could be read or nothing was normalized (unless ``--allow-empty``)."""
    from trajectory_platform.curation.redact.engine import mask_secrets
    from trajectory_platform.traces.adapters.inspect_archive import is_archive
    from trajectory_platform.traces.ingest import ingest_to, is_compressed_log
    from trajectory_platform.traces.ingest_settings import IngestSettings
    from trajectory_platform.traces.validate import DEFAULT_MAX_FIELD_CHARS

    # a log named so (``day.jsonl.gz``) is read decompressed, an Inspect ``.eval`` zip opened as its
    # JSON log; any other gzip or zip file is refused here
    named = [Path(p) for p in args.paths if not is_compressed_log(Path(p)) and not is_archive(Path(p))]
    if refusal := not_text(named, LOGS):
        return fail(refusal)
    try:
        settings = settings_from_args(IngestSettings, args)
    except ValueError as exc:
        return fail(f"ingest: {exc}")
    try:
        result, digests = ingest_to(
            args.paths,
            args.out,
            args.format,
            settings=settings,
            max_field_chars=DEFAULT_MAX_FIELD_CHARS if args.max_field_chars is None else args.max_field_chars,
            progress=not args.no_progress,
            shown=mask_secrets,  # rejects.parquet, stderr and the summary are no redaction's input
        )
    except FileNotFoundError as exc:
        return fail(str(exc))
    if result.records_in == 0:
        return fail(f"no log records found in {', '.join(map(str, args.paths))}")
    _show_rejects(result)
    if result.files_skipped:
        kinds = ", ".join(f"{suffix} ({count})" for suffix, count in result.files_skipped.items())
        print(
            f"skipped {sum(result.files_skipped.values())} file(s) not named as logs: {kinds}",
            file=sys.stderr,
        )
    emit_summary({**result.summary(), "out": str(args.out), "sha256": digests})
    if not result.normalized and not args.allow_empty:
        return fail(f"{nothing_normalized(result, args.format)}; --allow-empty accepts an empty output", 1)
    return 0
