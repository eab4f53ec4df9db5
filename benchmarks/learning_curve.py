"""Learning curve of the default model on the gym's learnable family: held-out acceptance against
examples seen (issue 17: does the default learn, and how much data and time does it need?).

Three learnable families train on as many generated tasks as ``--tasks`` asks (ids past the
library's, so never an evaluation task), in the familiar tool families; the fourth family's
library tasks are the held-out items, familiar schemas only (a new *combination* of covered name
pieces, never an unseen piece). One run trains with the platform's SFT step and loop; every
``--eval-every`` steps the model is saved and run closed loop on the held-out items, next to the
untrained base (step 0).

Usage: ``.venv/bin/python benchmarks/learning_curve.py [--tasks 600] [--steps 600] [--batch 8]
[--eval-every 150] [--items 42] [--seed 0]``. Prints one row per evaluation and a final JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import torch
from ablation.corpus import TRAIN_TOOL_FAMILIES, compact_tool, expert_corpus, masked_table

from trajectory_platform.evaluation.budget import evaluation_budget
from trajectory_platform.evaluation.harness import EvalItem, evaluation_runtime, run_arm
from trajectory_platform.evaluation.policy import Decoding, ModelPolicy
from trajectory_platform.gym.library import (
    LEARN_TASKS_PER_FAMILY,
    LEARNABLE_FAMILIES,
    learnable_fixture,
)
from trajectory_platform.training.data.dataset import rows_from_table, split_examples
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.loop import OptimizerSettings, run_loop
from trajectory_platform.training.optim.model import build_default_model, load_model
from trajectory_platform.training.optim.sft import StepStats, sft_step_function

HELD_OUT = LEARNABLE_FAMILIES[-1]


def training_fixtures(tasks: int, seed: int) -> list:
    """``tasks`` generated tasks per training family and familiar tool family (ids past the library's)."""
    return [
        learnable_fixture(family, LEARN_TASKS_PER_FAMILY + task, tool_family, seed)
        for task in range(tasks)
        for family in LEARNABLE_FAMILIES[:-1]
        for tool_family in TRAIN_TOOL_FAMILIES
    ]


def held_out_items(count: int, seed: int) -> list[EvalItem]:
    """The held-out family's library tasks in the familiar tool families, one attempt each."""
    fixtures = [
        learnable_fixture(HELD_OUT, task, tool_family, seed)
        for task in range(LEARN_TASKS_PER_FAMILY)
        for tool_family in TRAIN_TOOL_FAMILIES
    ]
    return [
        EvalItem(f"{f.fixture_id}#0", f.fixture_id, "acceptance", "familiar", 0, f.task_kind)
        for f in fixtures
    ][:count]


def evaluate(path: Path, items: list[EvalItem], budget: tuple[int, int]) -> dict[str, Any]:
    policy = ModelPolicy(path, decoding=Decoding(max_new_tokens=budget[0]), tool_view=compact_tool)
    runtime = evaluation_runtime(max_steps=6, max_generated_tokens=budget[1])
    measures = run_arm(path.name, policy, items, runtime, progress=False).measures
    by_kind: dict[str, list[bool]] = {}
    for m in measures:
        by_kind.setdefault(m.fixture_id.split("/")[1].split("-")[0], []).append(m.accepted)
    return {
        "accepted": sum(m.accepted for m in measures),
        "items": len(measures),
        "by_kind": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_kind.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=200, help="generated tasks per family and tool family")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--eval-every", type=int, default=150)
    parser.add_argument("--items", type=int, default=42)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="learning-curve-"))
    started = time.monotonic()
    base = build_default_model(workdir)
    tokenizer = load_tokenizer(base)
    table = masked_table(expert_corpus(training_fixtures(args.tasks, args.seed), seed=args.seed), tokenizer)
    budget = evaluation_budget([table])
    items = held_out_items(args.items, args.seed)
    model = load_model(base, device="cpu")
    vocab = cast(int, model.get_input_embeddings().num_embeddings)
    examples = split_examples(rows_from_table(table, source="curve"), capacity=2048, vocab_size=vocab).train
    tokens = sum(map(len, table.column("input_ids").to_pylist())) / max(1, table.num_rows)
    print(
        f"{len(examples)} examples, mean {tokens:.0f} tokens, setup {time.monotonic() - started:.0f} s",
        file=sys.stderr,
    )
    step = sft_step_function(
        model,
        examples,
        examples_per_step=args.batch,
        micro_batches=1,
        capacity=2048,
        normalization="token",
        seed=args.seed,
    )
    curve = [{"step": 0, "examples_seen": 0, **evaluate(base, items, budget)}]
    print(json.dumps(curve[-1]), file=sys.stderr)
    out = workdir / "curve-checkpoint"
    steps_done = [0]

    def counted_step(index: int) -> StepStats:
        steps_done[0] = index + 1
        return step(index)

    def checkpoint_eval() -> dict[str, Any]:
        if curve[-1]["step"] == steps_done[0]:  # the loop's final evaluation may repeat the last one
            return {}
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
        row = {
            "step": steps_done[0],
            "examples_seen": steps_done[0] * args.batch,
            **evaluate(out, items, budget),
        }
        row["elapsed_s"] = round(time.monotonic() - started)
        curve.append(row)
        print(json.dumps(row), file=sys.stderr)
        model.train()
        return {}

    run_loop(
        model,
        counted_step,
        max_steps=args.steps,
        settings=OptimizerSettings(learning_rate=args.lr),
        eval_fn=checkpoint_eval,
        eval_every=args.eval_every,
        description="curve",
    )
    print(
        json.dumps(
            {
                "args": {k: str(v) for k, v in vars(args).items()},
                "curve": curve,
                "seconds": round(time.monotonic() - started),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
