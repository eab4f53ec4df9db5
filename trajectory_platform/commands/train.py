"""``trajectory-platform train``: SFT (full or LoRA) or span DPO on a token-masked dataset.

Writes a checkpoint transformers loads (peft for an adapter, plus a merged dense copy), with
``training_manifest.json`` beside the weights, and prints the run summary as the last line.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from trajectory_platform.commands import emit_summary, fail
from trajectory_platform.training.loop import OptimizerSettings
from trajectory_platform.training.lora import DEFAULT_TARGETS, LoraSettings


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
    parser.add_argument("--objective", choices=("sft", "dpo"), default="sft")
    parser.add_argument("--lora", action="store_true", help="train a LoRA adapter instead of all weights")
    parser.add_argument("--lora-rank", type=int, default=8)
    parser.add_argument("--lora-alpha", type=float, default=16.0)
    parser.add_argument(
        "--lora-targets", default=",".join(DEFAULT_TARGETS), help="comma-separated module names"
    )
    parser.add_argument("--max-steps", type=int, default=200)
    parser.add_argument(
        "--model", type=Path, default=None, help="local HF causal-LM directory (default: embedded)"
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where the default model and caches live")
    parser.add_argument("--normalization", choices=("token", "example"), default="token")
    parser.add_argument("--capacity", type=int, default=1024, help="tokens per packed buffer")
    parser.add_argument(
        "--batch-examples", type=int, default=16, help="examples (or pairs) per optimizer step"
    )
    parser.add_argument("--micro-batches", type=int, default=1, help="sequential micro-batches per step")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--warmup-steps", type=int, default=10)
    parser.add_argument("--clip-norm", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-every", type=int, default=50)
    parser.add_argument(
        "--save-every", type=int, default=0, help="also checkpoint every N steps (0: end only)"
    )
    parser.add_argument("--resume", action="store_true", help="continue from trainer_state.pt in --out")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    parser.add_argument("--threads", type=int, default=None, help="CPU intra-op threads (default: torch's)")
    parser.add_argument("--beta", type=float, default=0.1, help="DPO preference scale")
    parser.add_argument(
        "--sft-weight", type=float, default=0.0, help="DPO auxiliary SFT term on the chosen record"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from trajectory_platform.training.runner import TrainRequest, run_training

    if not args.dataset.exists():
        return fail(f"{args.dataset}: dataset not found")
    if args.max_steps < 1:
        return fail("--max-steps must be at least 1")
    lora = (
        LoraSettings(
            rank=args.lora_rank,
            alpha=args.lora_alpha,
            target_modules=tuple(t for t in args.lora_targets.split(",") if t),
        )
        if args.lora
        else None
    )
    request = TrainRequest(
        out=args.out,
        objective=args.objective,
        model_path=args.model,
        workdir=args.workdir,
        lora=lora,
        max_steps=args.max_steps,
        normalization=args.normalization,
        capacity=args.capacity,
        examples_per_step=args.batch_examples,
        micro_batches=args.micro_batches,
        optimizer=OptimizerSettings(
            learning_rate=args.lr, warmup_steps=args.warmup_steps, clip_norm=args.clip_norm
        ),
        seed=args.seed,
        eval_every=args.eval_every,
        save_every=args.save_every,
        resume=args.resume,
        device=args.device,
        threads=args.threads,
        beta=args.beta,
        sft_weight=args.sft_weight,
    )
    try:
        outcome = run_training(request, args.dataset)
    except (ValueError, FileNotFoundError) as error:
        return fail(str(error))
    emit_summary(outcome.summary())
    return 0
