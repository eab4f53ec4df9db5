"""``trajectory-platform mask IN --out OUT.jsonl``: curated episodes -> input_ids / labels + manifest.

IN must prove it was verified and redacted (:mod:`trajectory_platform.training.data.provenance`):
``trajectory-platform curate`` writes such tables (and masks them itself). Anything else is refused
before a tokenizer loads, unless ``--unsafe-unverified-input``, which the manifest records.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._files import PARQUET, binary_kind
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args
from trajectory_platform.workdir import default_workdir

if TYPE_CHECKING:
    import pyarrow as pa


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``mask`` subcommand."""
    from trajectory_platform.training.data.mask_settings import DatasetSettings
    from trajectory_platform.training.data.provenance import UNSAFE_FLAG

    parser = subparsers.add_parser(
        "mask",
        help="serialize traces with a chat template and write selected-target masks",
        description="Render each episode with the tokenizer's own chat template (one example per model "
        "call where history was compacted, else one transcript), mask everything but the selected "
        "assistant turns (curation target_turns, else the OpenAI weight field, else every assistant "
        "turn except refused proposals), verify offsets, and write one JSON object per example "
        "(example_id, episode_id, split, input_ids, labels, n_tokens, n_targets) to OUT.jsonl plus "
        "OUT.jsonl.manifest.json. Labels use the Hugging Face convention: aligned with input_ids, "
        "-100 = no loss. IN must be verified and redacted (a training_mixture.parquet written by "
        "`trajectory-platform curate`); raw logs, ingest output or OpenAI JSONL are refused unless "
        f"{UNSAFE_FLAG}. The last stdout line is a JSON summary.",
    )
    parser.add_argument(
        "input",
        type=Path,
        metavar="IN",
        help="native trace JSONL, OpenAI chat JSONL, or an episode Parquet table",
    )
    parser.add_argument("--out", required=True, type=Path, metavar="OUT.jsonl", help="output JSONL")
    parser.add_argument("--workdir", type=Path, help="where the default tokenizer is cached")
    add_settings_arguments(
        parser, DatasetSettings, {"tokenizer_path": ("--tokenizer",), "augment_seed": ("--seed",)}
    )
    parser.add_argument(
        UNSAFE_FLAG,
        dest="unsafe_unverified_input",
        action="store_true",
        help="mask IN although nothing says it was verified and redacted: failing calls may be "
        "supervised and secrets kept; the manifest records provenance verified: false",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar on stderr")
    parser.set_defaults(func=run)


def input_provenance(args: argparse.Namespace) -> dict[str, Any] | str:
    """IN's provenance, the opt-out's when the user passed it, or the refusal message."""
    from trajectory_platform.training.data.provenance import (
        CURATE_HINT,
        UNSAFE_FLAG,
        is_curated,
        provenance_or_refusal,
    )

    found = provenance_or_refusal(
        args.input,
        opt_out=args.unsafe_unverified_input,
        by="mask",
        instead=f"Run `{CURATE_HINT}` (it writes OUT/dataset.jsonl)",
    )
    if isinstance(found, str):
        return found
    if is_curated(found):
        return {**found, "input": str(args.input)}
    print(
        f"trajectory-platform: WARNING: {UNSAFE_FLAG}: masking {args.input}, which nothing verified "
        "or redacted; its failing calls may be supervised and its secrets kept. The manifest says so.",
        file=sys.stderr,
    )
    return found


DATASET_COLUMNS = ("example_id", "episode_id", "split", "input_ids", "labels", "n_tokens", "n_targets")
WRITE_BATCH_ROWS = 1024
"""Rows turned into Python objects at once while writing OUT.jsonl."""


def write_dataset(table: pa.Table, manifest: dict[str, Any], out: Path) -> Path:
    """``out`` (one JSON row per example) and its manifest ``out.manifest.json``, which ``train``
    reads; returns the manifest's path."""
    from trajectory_platform.training.data.manifest_files import sidecar_manifest

    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        # Batch by batch: the whole table as Python lists would take several times its Arrow size.
        for batch in table.select(list(DATASET_COLUMNS)).to_batches(max_chunksize=WRITE_BATCH_ROWS):
            handle.writelines(json.dumps(row, separators=(",", ":")) + "\n" for row in batch.to_pylist())
    manifest_path = sidecar_manifest(out)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return manifest_path


def run(args: argparse.Namespace) -> int:
    """Mask, write OUT.jsonl and its manifest, print the summary."""
    if not args.input.is_file():
        return fail(f"{args.input}: no such file")
    if (kind := binary_kind(args.input)) not in (None, PARQUET):
        return fail(f"{args.input}: this file is {kind}, not episodes (trace JSONL, OpenAI JSONL or Parquet)")
    import pyarrow.parquet as pq

    from trajectory_platform.training.data.dataset_stage import run_dataset_stage
    from trajectory_platform.training.data.mask_settings import DatasetSettings
    from trajectory_platform.training.data.masked_dataset import read_inputs
    from trajectory_platform.training.data.tokenizer import build_default_tokenizer

    provenance = input_provenance(args)
    if isinstance(provenance, str):
        return fail(provenance)
    try:
        settings = settings_from_args(DatasetSettings, args)
    except ValueError as exc:  # a value the settings refuse (--augment-copies 0)
        return fail(f"mask: {exc}")
    if settings.tokenizer_path and not (Path(settings.tokenizer_path) / "tokenizer_config.json").is_file():
        return fail(f"{settings.tokenizer_path}: not a tokenizer directory (no tokenizer_config.json)")
    # A Parquet mixture stays in Arrow form: the stage turns it into episodes one batch at a time.
    parquet = args.input.suffix == ".parquet"  # as read_inputs decides
    inputs, read_rejects = (pq.read_table(args.input), {}) if parquet else read_inputs(args.input)
    if not len(inputs):
        return fail(f"{args.input}: no readable episodes ({read_rejects or 'empty'})")
    tokenizer_path = settings.tokenizer_path or build_default_tokenizer(args.workdir or default_workdir())
    try:
        stage = run_dataset_stage(
            inputs,
            tokenizer_path,
            settings.mask_config(),
            augmentation=settings.augmentation(),
            batch_rows=settings.batch_rows,
            source=str(args.input),
            provenance=provenance,
            progress=not args.no_progress,
        )
    except ValueError as exc:
        return fail(str(exc))
    manifest = {**stage.manifest, "read_rejects": read_rejects}
    manifest_path = write_dataset(stage.table, manifest, args.out)
    stats = manifest["stats"]
    emit_summary(
        {
            **manifest["counts"],
            "read_rejects": sum(read_rejects.values()),
            "drop_reasons": manifest["drop_reasons"],
            "stored_tokens": stats["stored_tokens"],
            "selected_targets": stats["selected_targets"],
            "target_share": round(stats["target_share"], 6),
            "dilution_factor": round(stats["dilution_factor"], 4),
            "observation_share": round(stats["observation_share"], 6),
            "expansion_factor": manifest["serialization"]["expansion_factor"],
            "augmentation": manifest["augmentation"],
            "out": str(args.out),
            "manifest": str(manifest_path),
            "tokenizer_path": manifest["tokenizer_path"],
            "provenance": provenance,
        }
    )
    return 0 if stage.table.num_rows else 1
