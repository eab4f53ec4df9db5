"""``trajectory-platform train``: SFT (full or LoRA) or span DPO on a token-masked dataset.

Writes a checkpoint transformers loads (peft for an adapter, plus a merged dense copy), with
``training_manifest.json`` beside the weights, and prints the run summary as the last line. For
``--objective dpo`` on curation's episode pairs (``preference_pairs.parquet``), the command first
turns them into token rows with the preference dataset stage (the ``preference_dataset`` asset's
one call, with the run's tokenizer), since the optimizer reads token rows only.

The dataset must prove it was verified and redacted (its manifest's ``provenance``, see
:mod:`trajectory_platform.training.data.provenance`): what ``trajectory-platform curate`` writes
does, and so does the warehouse copy of the ``token_masked_dataset`` asset
(``<workdir>/parquet/token_masked_dataset/all.parquet``), read with the manifest the asset wrote
when that manifest records the copy's rows
(:func:`~trajectory_platform.training.data.manifest_files.manifest_places`). Anything else is refused
before a model is built, unless ``--unsafe-unverified-input``, which the training manifest records.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._files import PARQUET, binary_kind
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args

if TYPE_CHECKING:
    import pyarrow as pa

    from trajectory_platform.training.optim.settings import TrainSettings


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``train`` subcommand."""
    from trajectory_platform.training.data.provenance import UNSAFE_FLAG
    from trajectory_platform.training.optim.settings import OptimizerSettings, TrainSettings

    parser = subparsers.add_parser(
        "train",
        help="fine-tune a causal LM on token-masked data (SFT / LoRA / DPO)",
        description="Train on a token_masked_dataset Parquet or `trajectory-platform mask` JSONL "
        "(rows with input_ids and labels; for --objective dpo, rows with chosen_input_ids, chosen_selected, "
        "rejected_input_ids, rejected_selected, or curation's preference_pairs episode rows, tokenized "
        "first by the preference dataset stage). Writes an HF checkpoint + training_manifest.json. "
        "The dataset must be verified and redacted (its manifest's provenance: what `trajectory-platform "
        f"curate` writes); anything else is refused unless {UNSAFE_FLAG}.",
    )
    parser.add_argument(
        "--dataset",
        required=True,
        type=Path,
        help="Parquet or JSONL of training rows, read with its manifest: FILE.manifest.json beside it, or "
        "for a warehouse copy (WORKDIR/parquet/ASSET/all.parquet) the one the asset wrote, "
        "WORKDIR/artifacts/ASSET/manifest.json, which must record that file's rows",
    )
    parser.add_argument("--out", required=True, type=Path, help="checkpoint directory to write")
    add_settings_arguments(
        parser,
        TrainSettings,
        aliases={
            "model_path": ("--model",),
            "examples_per_step": ("--batch-examples",),
            "learning_rate": ("--lr",),
        },
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where the default model and caches live")
    parser.add_argument(
        "--warmup-steps",
        type=int,
        default=OptimizerSettings.warmup_steps,
        help="steps of linear learning-rate warmup before the cosine decay (default: %(default)s)",
    )
    parser.add_argument(
        "--clip-norm",
        type=float,
        default=OptimizerSettings.clip_norm,
        help="gradient norm clipped to this each step (default: %(default)s)",
    )
    parser.add_argument(
        "--save-every", type=int, default=0, help="also checkpoint every N steps (0: end only)"
    )
    parser.add_argument("--resume", action="store_true", help="continue from trainer_state.pt in --out")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    parser.add_argument(
        UNSAFE_FLAG,
        dest="unsafe_unverified_input",
        action="store_true",
        help="train on a dataset nothing says was verified and redacted; the training manifest "
        "records provenance verified: false",
    )
    parser.set_defaults(func=run)


ROW_COLUMNS: dict[str, tuple[frozenset[str], ...]] = {
    "sft": (frozenset({"input_ids", "labels"}),),
    "dpo": (
        frozenset({"chosen_input_ids", "chosen_selected", "rejected_input_ids", "rejected_selected"}),
        frozenset({"chosen", "rejected"}),
    ),
}
"""The columns a training row needs, per objective (any one set): checked on the file's schema or
first row before a model is built."""


def _first_row_keys(path: Path) -> list[str] | str:
    """The keys of a JSONL file's first record, or why its first record is not one."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as error:
                return f"{path}:{number}: not JSON ({error}), so not a JSONL of training rows"
            if not isinstance(row, dict):
                return f"{path}:{number}: a JSON {type(row).__name__}, not a training row object"
            return sorted(row)
    return f"{path}: empty, no training rows"


def dataset_refusal(path: Path, objective: str) -> str | None:
    """Why ``path`` cannot be this objective's training rows, from its content (kind, then the
    schema or first row), before anything is built; ``None`` when it can."""
    from trajectory_platform.training.data.provenance import CURATE_HINT

    if path.is_dir():
        return None
    kind = binary_kind(path)
    parquet_named = path.suffix == ".parquet"
    if kind is None and parquet_named:
        return f"{path}: this file is text, not a Parquet file (name JSONL rows .jsonl)"
    if kind not in (None, PARQUET):
        return f"{path}: this file is {kind}, not training rows (Parquet or JSONL)"
    if kind == PARQUET and not parquet_named:
        return f"{path}: this file is a Parquet file, but its name has it read as JSONL: name it .parquet"
    if kind == PARQUET:
        import pyarrow.parquet as pq

        try:
            columns: list[str] | str = list(pq.read_schema(path).names)
        except Exception as error:  # noqa: BLE001 - pyarrow raises several types for a damaged footer
            return f"{path}: an unreadable Parquet file ({error})"
    else:
        columns = _first_row_keys(path)
    if isinstance(columns, str):
        return columns
    if any(needed <= set(columns) for needed in ROW_COLUMNS[objective]):
        return None
    wanted = " or ".join(", ".join(sorted(needed)) for needed in ROW_COLUMNS[objective])
    return (
        f"{path}: its rows have no {wanted} (columns: {', '.join(columns)}), so they are not "
        f"{objective} training rows; train on what `{CURATE_HINT}` writes (OUT/dataset.jsonl)"
    )


def dataset_provenance(args: argparse.Namespace) -> dict[str, Any] | str:
    """The dataset's provenance, the opt-out's when the user passed it, or the refusal message."""
    from trajectory_platform.training.data.provenance import (
        CURATE_HINT,
        UNSAFE_FLAG,
        is_curated,
        provenance_or_refusal,
    )

    found = provenance_or_refusal(
        args.dataset,
        opt_out=args.unsafe_unverified_input,
        by="train",
        instead=f"Run `{CURATE_HINT}` and train on OUT/dataset.jsonl",
    )
    if not isinstance(found, str) and not is_curated(found):
        print(
            f"trajectory-platform: WARNING: {UNSAFE_FLAG}: training on {args.dataset}, which nothing "
            "verified or redacted. The training manifest says so.",
            file=sys.stderr,
        )
    return found


def _preference_tokens(
    args: argparse.Namespace, settings: TrainSettings, provenance: dict[str, Any]
) -> tuple[pa.Table, dict] | None:
    """For DPO on curation's episode pairs: their token rows and manifest from the preference
    dataset stage, tokenized with the tokenizer the run will use; ``None`` for token rows."""
    from trajectory_platform.training.data.dataset import read_rows
    from trajectory_platform.training.data.preference_dataset import run_preference_stage
    from trajectory_platform.training.data.preference_tokens import is_episode_pair
    from trajectory_platform.training.data.provenance import MANIFEST_KEY
    from trajectory_platform.training.optim.model import build_default_model
    from trajectory_platform.workdir import default_workdir

    loaded = read_rows(args.dataset)
    if not loaded.rows or not all(is_episode_pair(row) for row in loaded.rows):
        return None
    base = Path(settings.model_path) if settings.model_path else None
    tokenizer = (
        loaded.manifest.get("tokenizer_path")
        or base
        or build_default_model(args.workdir or default_workdir())
    )
    stage = run_preference_stage(loaded.rows, tokenizer, source=str(args.dataset))
    for where, refusal in stage.refused[:20]:
        print(
            f"refused {args.dataset}: {where}: {refusal.drop.reason} {refusal.drop.detail}", file=sys.stderr
        )
    for rejection in loaded.rejected:
        print(rejection.describe(), file=sys.stderr)
    read_rejects = dict(sorted(Counter(r.drop.reason for r in loaded.rejected).items()))
    return stage.table, {**stage.manifest, "read_rejects": read_rejects, MANIFEST_KEY: provenance}


def _vouched(args: argparse.Namespace, provenance: dict[str, Any]) -> dict | None:
    """The manifest to train under: the file's own, unless the opt-out's provenance must replace
    what it said (``None``: the runner reads the file's manifest itself)."""
    from trajectory_platform.training.data.manifest_files import find_manifest
    from trajectory_platform.training.data.provenance import MANIFEST_KEY

    if provenance.get("verified") is True:
        return None
    return {**find_manifest(args.dataset)[1], MANIFEST_KEY: provenance}


def run(args: argparse.Namespace) -> int:
    """Check the dataset (content, columns, provenance) before anything is built, then train."""
    if not args.dataset.exists():
        return fail(f"{args.dataset}: dataset not found")
    if refusal := dataset_refusal(args.dataset, args.objective):
        return fail(refusal)
    from trajectory_platform.training.optim.runner import TrainRequest, run_training
    from trajectory_platform.training.optim.settings import OptimizerSettings, TrainSettings

    provenance = dataset_provenance(args)
    if isinstance(provenance, str):
        return fail(provenance)
    if args.max_steps < 1:
        return fail("--max-steps must be at least 1")
    settings = settings_from_args(TrainSettings, args)
    optimizer = OptimizerSettings(
        learning_rate=settings.learning_rate, warmup_steps=args.warmup_steps, clip_norm=args.clip_norm
    )
    request = TrainRequest.from_settings(
        settings,
        args.out,
        workdir=args.workdir,
        optimizer=optimizer,
        save_every=args.save_every,
        resume=args.resume,
        device=args.device,
    )
    try:
        tokens = _preference_tokens(args, settings, provenance) if settings.objective == "dpo" else None
        if tokens is None:
            outcome = run_training(request, args.dataset, dataset_manifest=_vouched(args, provenance))
        else:
            outcome = run_training(
                request, tokens[0], dataset_manifest=tokens[1], source_name=str(args.dataset)
            )
    except (ValueError, FileNotFoundError) as error:
        return fail(str(error))
    summary = outcome.summary()
    if tokens is not None:  # the pairs the stage refused never reach the run's own counts
        manifest = tokens[1]
        summary["preference_dataset"] = {
            **manifest["counts"],
            "drop_reasons": manifest["drop_reasons"],
            "read_rejects": manifest["read_rejects"],
        }
    emit_summary(summary)
    return 0
