"""``trajectory-platform verify TRACES --out DIR``: the verifier cascade over a trace table or logs.

Writes ``DIR/verdicts.parquet`` (one row per episode: sink, role, t_div, t_rec, target turns, ...),
``DIR/triage_report.parquet`` and ``DIR/ledger.json``, and prints the ledger as the JSON last line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._files import PARQUET, binary_kind
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args
from trajectory_platform.workdir import default_workdir


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``verify`` subcommand."""
    from trajectory_platform.curation.verify.cascade import VerifySettings
    from trajectory_platform.environments.registry import REGISTRY_DIR

    parser = subparsers.add_parser(
        "verify",
        help="run the verifier cascade: sinks, roles, target turns, triage, cost ledger",
        description="Run every episode through the five-stage verifier cascade (syntactic, static, "
        "dynamic replay on the gym fixture's sealed oracle, state-delta audit, advisory score). "
        "Writes DIR/verdicts.parquet, DIR/triage_report.parquet and DIR/ledger.json; the last stdout "
        "line is the ledger as JSON (c_attempt, yield, c_accepted, monolithic_c_attempt, r_flake, ...). "
        "Episodes no fixture judges end unverifiable or rejected, never admitted; the summary's "
        "'unverifiable' counts them by reason (no_task_identity: the log names no task; unknown_task: "
        "its task id matches no fixture or environment; s0_digest_mismatch).",
    )
    parser.add_argument("traces", type=Path, metavar="TRACES", help="a traces.parquet, or a log file/folder")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    parser.add_argument(
        "--envs",
        type=Path,
        metavar="DIR",
        help="registry of brought task environments, looked up after the gym library by the episode's "
        f"task.fixture_id (default: <workdir>/{REGISTRY_DIR}; see `trajectory-platform env import`)",
    )
    add_settings_arguments(parser, VerifySettings)
    parser.add_argument(  # the flag's name before the settings were derived, kept for scripts
        "--no-monolithic", dest="cost_monolithic", action="store_false", help=argparse.SUPPRESS
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar on stderr")
    parser.set_defaults(func=run)


def traces_refusal(path: Path) -> str | None:
    """Why ``path`` is neither a trace table nor logs, from its content; read by its name after
    (``.parquet``: a trace table, else logs), so the two must agree."""
    kind = binary_kind(path)
    if path.suffix == ".parquet" and path.is_file() and kind != PARQUET:
        return f"{path}: this file is {kind or 'text'}, not a Parquet trace table"
    if kind == PARQUET and path.suffix != ".parquet":
        return f"{path}: this file is a Parquet file, but its name has it read as logs: name it .parquet"
    if kind not in (None, PARQUET):
        return f"{path}: this file is {kind}, not a traces.parquet or agent logs"
    return None


def _episodes(path: Path, out: Path, batch_rows: int) -> tuple[Path, int, int]:
    """The trace table to verify (``path``, or the logs at ``path`` ingested into ``out``), its
    episode count and the ingest rejects; ``ValueError`` when it is no trace table."""
    import pyarrow.parquet as pq

    from trajectory_platform.traces.ingest import ingest_to
    from trajectory_platform.traces.ingest_settings import IngestSettings
    from trajectory_platform.traces.schema import EPISODE_SCHEMA

    rejects = 0
    if path.suffix != ".parquet":
        result, _ = ingest_to([path], out, settings=IngestSettings(batch_rows=batch_rows))
        for reject in result.rejects[:5]:
            print(
                f"ingest reject: {reject.source_file}:{reject.source_line}: {reject.reason}", file=sys.stderr
            )
        if not result.normalized:
            return path, 0, len(result.rejects)
        path, rejects = out / "traces.parquet", len(result.rejects)
    missing = sorted(set(EPISODE_SCHEMA.names) - set(pq.read_schema(path).names))
    if missing:
        raise ValueError(f"not a trace table: no column {', '.join(missing)}")
    return path, pq.ParquetFile(path).metadata.num_rows, rejects


def run(args: argparse.Namespace) -> int:
    """Verify (``--batch-rows`` episodes in memory at a time; each batch's verdict rows written as
    it is finished, none kept), write the triage report and the ledger, print the ledger summary."""
    import tempfile

    from trajectory_platform.curation.verify.calibration import CALIBRATION_CACHE_DIR
    from trajectory_platform.curation.verify.cascade import (
        VerifySettings,
        fixtures_lookup,
        parquet_batches,
        verify_batches,
    )
    from trajectory_platform.curation.verify.tables import VerdictsFile
    from trajectory_platform.environments.format import EnvironmentFormatError
    from trajectory_platform.environments.registry import REGISTRY_DIR
    from trajectory_platform.gym.isolation import IsolationUnavailable
    from trajectory_platform.resources.secrets import workdir_salt
    from trajectory_platform.traces.parquet import write_parquet

    if not args.traces.exists():
        return fail(f"{args.traces}: no such file or folder")
    if refusal := traces_refusal(args.traces):
        return fail(refusal)
    if args.envs is not None and not args.envs.is_dir():
        return fail(f"{args.envs}: no such environment registry")
    try:
        settings = settings_from_args(VerifySettings, args)
    except ValueError as exc:  # a value the settings refuse (--workers 0)
        return fail(f"verify: {exc}")
    workdir = default_workdir()
    envs = args.envs if args.envs is not None else workdir / REGISTRY_DIR
    with tempfile.TemporaryDirectory(prefix="tp-verify-") as ingested:
        try:
            traces, episodes, ingest_rejects = _episodes(args.traces, Path(ingested), settings.batch_rows)
        except (OSError, ValueError, KeyError) as exc:
            return fail(f"{args.traces}: cannot read traces: {exc}")
        if not episodes:
            return fail(f"{args.traces}: no episodes to verify")
        try:
            with VerdictsFile(args.out / "verdicts.parquet") as verdicts:
                result = verify_batches(
                    parquet_batches(traces, settings.batch_rows),
                    fixtures_lookup(settings.fixture_seed, envs),
                    settings.cascade(
                        not args.no_progress,
                        master_key=workdir_salt(workdir).key(),
                        calibration_cache=workdir / CALIBRATION_CACHE_DIR,
                    ),
                    lambda _, batch: verdicts.write(batch),
                )
        except (IsolationUnavailable, EnvironmentFormatError) as exc:
            return fail(str(exc))
    write_parquet(result.triage, args.out / "triage_report.parquet")
    ledger = {**result.ledger.summary(), "calibration_cache": result.calibration_cache.to_dict()}
    (args.out / "ledger.json").write_text(
        json.dumps(ledger, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    for warning in ledger["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    headline = {k: v for k, v in ledger.items() if k not in ("stages", "monolithic_stages")}
    emit_summary(
        {
            **headline,
            "episodes": episodes,
            "ingest_rejects": ingest_rejects,
            "sinks": result.counts("sink"),
            "unverifiable": result.unverifiable_by_reason(),
            "replays_retried": result.tallies.replays_retried,
            "roles": result.counts("role"),
            "triage": result.counts("triage_class"),
            **result.janitor.to_dict(),
            "out": str(args.out),
        }
    )
    return 0
