"""``trajectory-platform export SOURCE --out DIR``: the admitted, redacted corpus in the ecosystem's forms.

SOURCE is what produced the training mixture: a ``curate`` output folder (its
``split/training_mixture.parquet`` and the other stages' tables beside it), a workdir after
``run`` (the ``training_mixture`` asset's Parquet and the asset metadata in its Dagster instance),
or a ``training_mixture.parquet`` file. The mixture must carry curated provenance (verified and
redacted); anything else is refused before work starts. Writes ``DIR/chat.jsonl`` and the
Hugging Face dataset folder ``DIR/hf/`` with its card (:mod:`trajectory_platform.training.data.export_stage`).
The last stdout line is a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args
from trajectory_platform.traces.drops import Tally
from trajectory_platform.training.data.export_settings import ExportSettings

if TYPE_CHECKING:
    import pyarrow as pa

    from trajectory_platform.training.data.export_stage import CorpusRecord

CURATE_MIXTURE = Path("split") / "training_mixture.parquet"
WORKDIR_MIXTURE = Path("parquet") / "training_mixture"
WORKDIR_STAGES = (
    "raw_traces",
    "verified_traces",
    "redacted_corpus",
    "split_assignments",
    "training_mixture",
    "token_masked_dataset",
)
"""The assets whose reported accounting (records in / kept / dropped by reason) the card shows."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` subcommand."""
    parser = subparsers.add_parser(
        "export",
        help="the admitted, redacted corpus as chat JSONL (TRL / Axolotl) and a Hugging Face dataset",
        description="Write the training mixture (verified, redacted episodes with their selected target "
        "turns) as DIR/chat.jsonl: one example per line with `messages` (system/user/assistant/tool, "
        "OpenAI-shaped tool_calls, tool_call_id, `weight` 1 on target turns and 0 on context) and `tools`; "
        "and as a Hugging Face dataset folder DIR/hf/ (data/<split>.parquet + README.md dataset card with "
        "provenance, licences, per-stage yields, the leak rate and splits). SOURCE: a `curate` output "
        "folder, a workdir after `run`, or a training_mixture.parquet. "
        "The last stdout line is a JSON summary.",
    )
    parser.add_argument(
        "source",
        type=Path,
        metavar="SOURCE",
        help="a curate OUT folder, a workdir after `run`, or a training_mixture.parquet",
    )
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    add_settings_arguments(parser, ExportSettings)
    parser.set_defaults(func=run)


@dataclass
class Source:
    """The mixture to export and what the earlier stages left about it."""

    mixture: pa.Table
    provenance: dict[str, Any] | None
    corpus: dict[str, CorpusRecord] = field(default_factory=dict)
    yields: dict[str, dict[str, Any]] = field(default_factory=dict)
    leak: dict[str, Any] | None = None


def _corpus_records(table: pa.Table | None) -> dict[str, CorpusRecord]:
    from trajectory_platform.training.data.export_stage import CorpusRecord

    if table is None:
        return {}
    names = [n for n in ("episode_id", "lineage_id", "license_tier") if n in table.column_names]
    return {
        r["episode_id"]: CorpusRecord(r.get("lineage_id"), r.get("license_tier"))
        for r in table.select(names).to_pylist()
    }


def _read(path: Path, columns: list[str] | None = None) -> pa.Table | None:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=columns) if path.is_file() else None


def _count(table: pa.Table | None, column: str) -> Counter[str]:
    return Counter() if table is None else Counter(str(v) for v in table.column(column).to_pylist())


def curate_source(root: Path, mixture_path: Path) -> Source:
    """A ``curate`` output folder: the stages' tables and the dataset manifest beside the mixture."""
    import pyarrow.parquet as pq

    from trajectory_platform.curation.leak_report import LeakReport
    from trajectory_platform.training.data.provenance import table_provenance

    mixture = pq.read_table(mixture_path)
    provenance = table_provenance(mixture.schema)
    yields: dict[str, dict[str, Any]] = {}
    traces = _read(root / "ingest" / "traces.parquet", ["episode_id"])
    if traces is not None:
        rejects = _count(_read(root / "ingest" / "rejects.parquet", ["reason"]), "reason")
        yields["ingest"] = Tally.of(traces.num_rows, rejects).metadata()
    sinks = _count(_read(root / "verify" / "verdicts.parquet", ["sink"]), "sink")
    if sinks:
        admitted = sinks.pop("admitted", 0)
        yields["verify"] = Tally.of(admitted, sinks).metadata()
    corpus = _read(root / "redacted" / "corpus.parquet", ["episode_id", "lineage_id", "license_tier"])
    if corpus is not None:
        blocked = _count(_read(root / "redacted" / "license_audit.parquet", ["reason"]), "reason")
        yields["redact"] = Tally.of(corpus.num_rows, blocked).metadata()
    split = _read(root / "split" / "split_assignments.parquet", ["split", "reason"])
    if split is not None:
        rows = split.to_pylist()
        excluded = Counter(str(r["reason"]) for r in rows if r["split"] == "excluded")
        yields["split"] = Tally.of(len(rows) - sum(excluded.values()), excluded).metadata()
    manifest_path = root / "dataset.jsonl.manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        yields["dataset (token_masked)"] = Tally.of(
            manifest["counts"]["examples_out"], manifest.get("drop_reasons") or {}
        ).metadata()
    leak = None
    if provenance and provenance.get("canaries_injected") is not None:
        leak = LeakReport(
            injected=int(provenance["canaries_injected"]), leaked=int(provenance["canaries_leaked"])
        ).as_dict()
    return Source(mixture, provenance, _corpus_records(corpus), yields, leak)


def workdir_source(root: Path) -> Source:
    """A workdir after ``run``: the assets' Parquet and what each reported in the Dagster instance."""
    from trajectory_platform.curation.leak_report import LeakReport
    from trajectory_platform.resources.warehouse import read_asset_table
    from trajectory_platform.training.data.provenance import curated

    mixture = read_asset_table(root, "training_mixture")
    if mixture is None:
        raise ValueError(
            f"{root}: no training_mixture was materialized (run `trajectory-platform run` first)"
        )
    corpus = read_asset_table(root, "redacted_corpus", columns=["episode_id", "lineage_id", "license_tier"])
    yields: dict[str, dict[str, Any]] = {}
    leak = None
    home = root / "dagster_home"
    if (home / "dagster.yaml").is_file():
        from dagster import DagsterInstance

        from trajectory_platform.resources.facts import reported_figures

        os.environ["DAGSTER_HOME"] = str(home)  # the workdir's dagster.yaml reads its storage from it
        with DagsterInstance.from_config(str(home)) as instance:
            reported = {stage: reported_figures(instance, stage) for stage in WORKDIR_STAGES}
        for stage, values in reported.items():
            if "records_in" in values and "kept" in values:
                keys = ("records_in", "kept", "dropped", "dropped_by_reason")
                yields[stage] = {key: values.get(key) for key in keys}
        canaries = reported["redacted_corpus"].get("canaries") or {}  # LeakReport.as_dict()
        if "injected" in canaries:
            leak = LeakReport(injected=canaries["injected"], leaked=canaries["leaked"]).as_dict()
    # Only the asset graph writes these tables, and it feeds the mixture from the cascade and redaction.
    provenance = curated("dagster", upstream="redacted_corpus <- verified_traces")
    return Source(mixture, provenance, _corpus_records(corpus), yields, leak)


def load_source(path: Path) -> Source:
    """The export's input from ``path`` (module docstring); ``ValueError`` naming what is missing."""
    if path.is_file():
        if path.suffix != ".parquet":
            raise ValueError(f"{path}: not a Parquet table (expected a training_mixture.parquet)")
        root = path.parent.parent
        return curate_source(root, path)
    if (path / CURATE_MIXTURE).is_file():
        return curate_source(path, path / CURATE_MIXTURE)
    if (path / WORKDIR_MIXTURE).is_dir():
        return workdir_source(path)
    raise ValueError(
        f"{path}: neither a curate output folder ({CURATE_MIXTURE}) nor a workdir after `run` "
        f"({WORKDIR_MIXTURE}/) nor a training_mixture.parquet"
    )


def run(args: argparse.Namespace) -> int:
    """Check the source, export, print the summary; exit 1 when no example came out."""
    import pyarrow as pa

    from trajectory_platform.training.data.export_stage import write_export
    from trajectory_platform.training.data.masked_dataset import inputs_from_table
    from trajectory_platform.training.data.provenance import CURATE_HINT, is_curated

    if not args.source.exists():
        return fail(f"{args.source}: no such file or folder")
    settings = settings_from_args(ExportSettings, args)
    try:
        source = load_source(args.source)
    except (ValueError, OSError, pa.ArrowInvalid) as exc:
        return fail(str(exc))
    if not is_curated(source.provenance):
        said = json.dumps(source.provenance, sort_keys=True) if source.provenance else "no provenance"
        return fail(
            f"{args.source}: not a verified and redacted training mixture ({said}); only admitted, redacted "
            f"episodes are exported. Run `{CURATE_HINT}` first"
        )
    if "target_turns" not in source.mixture.column_names:
        return fail(f"{args.source}: no target_turns column: not a training mixture")
    result = write_export(
        inputs_from_table(source.mixture),
        args.out,
        settings=settings,
        corpus=source.corpus,
        yields=source.yields,
        leak=source.leak,
        provenance=source.provenance,
    )
    emit_summary(result.summary())
    return 0 if result.export.rows else 1
