"""``trajectory-platform train``: SFT (full or LoRA) or span DPO on a token-masked dataset.

Writes a checkpoint transformers loads (peft for an adapter, plus a merged dense copy), with
``training_manifest.json`` beside the weights, and prints the run summary as the last line.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.commands._settings import add_settings_arguments, settings_from_args
from trajectory_platform.training.optim.loop import OptimizerSettings
from trajectory_platform.training.optim.runner import TrainSettings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="fine-tune a causal LM on token-masked data (SFT / LoRA / DPO)",
        description="Train on a token_masked_dataset Parquet or `trajectory-platform mask` JSONL "
        "(rows with input_ids and labels; for --objective dpo, rows with chosen_input_ids, chosen_selected, "
        "rejected_input_ids, rejected_selected). Writes an HF checkpoint + training_manifest.json.",
    )
    parser.add_argument("--dataset", required=True, type=Path, help="Parquet or JSONL of training rows")
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
    parser.add_argument("--warmup-steps", type=int, default=OptimizerSettings.warmup_steps)
    parser.add_argument("--clip-norm", type=float, default=OptimizerSettings.clip_norm)
    parser.add_argument(
        "--save-every", type=int, default=0, help="also checkpoint every N steps (0: end only)"
    )
    parser.add_argument("--resume", action="store_true", help="continue from trainer_state.pt in --out")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from trajectory_platform.training.optim.runner import run_training

    if not args.dataset.exists():
        return fail(f"{args.dataset}: dataset not found")
    if args.max_steps < 1:
        return fail("--max-steps must be at least 1")
    settings = settings_from_args(TrainSettings, args)
    optimizer = OptimizerSettings(
        learning_rate=settings.learning_rate, warmup_steps=args.warmup_steps, clip_norm=args.clip_norm
    )
    request = settings.request(
        args.out,
        workdir=args.workdir,
        optimizer=optimizer,
        save_every=args.save_every,
        resume=args.resume,
        device=args.device,
    )
    try:
        outcome = run_training(request, args.dataset)
    except (ValueError, FileNotFoundError) as error:
        return fail(str(error))
    emit_summary(outcome.summary())
    return 0
