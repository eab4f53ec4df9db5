"""``trajectory-platform redact IN --out OUT [--format native|openai|text]``: secrets out, format kept."""

from __future__ import annotations

import argparse
from pathlib import Path

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._files import not_text
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``redact`` subcommand."""
    from trajectory_platform.curation.redact.settings import RedactSettings

    parser = subparsers.add_parser(
        "redact",
        help="remove secrets and personal data, keeping the file's format and its JSON valid",
        description="Three-pass redaction (known secret formats and per-alphabet entropy; personal data "
        "and internal infrastructure; syntax-preserving keyed pseudonyms <REDACTED_KIND:hmac12>) of every "
        "string, including JSON carried inside strings. The salt comes from $TRAJECTORY_PLATFORM_SALT "
        "(--dev-salt uses the embedded development key instead). Canaries are planted in a copy of each "
        "record of a declared sample (--leak-sample-fraction, at least --leak-min-canaries) to measure "
        "Λ_leak; if any survives, nothing is written and the exit code is 3. The last stdout line is a "
        "JSON summary with finding counts by kind and Λ_leak with its 95% interval and sample size.",
    )
    parser.add_argument(
        "input", type=Path, metavar="IN", help="native trace JSONL, OpenAI chat JSONL, or text"
    )
    parser.add_argument(
        "--out", required=True, type=Path, metavar="OUT", help="output file, same format as IN"
    )
    parser.add_argument(
        "--format", choices=("native", "openai", "text"), help="input format (default: detected from IN)"
    )
    parser.add_argument("--dev-salt", action="store_true", help="allow the embedded development key")
    # a file is redacted record by record already: the corpus stage's batch size has no meaning here
    add_settings_arguments(parser, RedactSettings, skip=("batch_rows",))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Redact IN into OUT and print the summary; refuse to keep OUT when a canary leaked."""
    from trajectory_platform.curation.redact import RedactSettings, derive_key, resolve_master_key
    from trajectory_platform.curation.redact.files import detect_format, redact_file

    if not args.input.is_file():
        return fail(f"{args.input}: no such file")
    if refusal := not_text([args.input], "native trace JSONL, OpenAI chat JSONL or text"):
        return fail(refusal)
    try:
        salt = derive_key(resolve_master_key(allow_dev_default=args.dev_salt), "redaction")
    except RuntimeError as exc:
        return fail(f"{exc} (or pass --dev-salt for a development run)")
    try:
        settings = settings_from_args(RedactSettings, args)
    except ValueError as exc:
        return fail(str(exc))
    fmt = args.format or detect_format(args.input)
    partial = args.out.with_name(args.out.name + ".partial")
    result = redact_file(args.input, partial, fmt, salt, settings=settings)
    leaked = result.leak.leaked > 0
    if leaked:
        partial.unlink(missing_ok=True)
    else:
        partial.replace(args.out)
    emit_summary(
        {
            "format": fmt,
            "out": None if leaked else str(args.out),
            "records_in": result.records_in,
            "records_out": result.records_out,
            "rejected": len(result.rejected),
            "rejected_by_reason": dict(sorted(result.tally().dropped.items())),
            "findings": dict(sorted(result.findings_by_kind.items())),
            "findings_total": sum(result.findings_by_kind.values()),
            "canaries_injected": result.leak.injected,
            "canaries_leaked": result.leak.leaked,
            "leak_rate": result.leak.rate,
            "leak_rate_interval": result.leak.as_dict()["interval"],
            "leak_sample_records": result.leak.records_planted,
        }
    )
    return 3 if leaked else 0
