"""Learning curve of the default model on the gym's learnable family: held-out acceptance against
examples seen (issue 17: does the default learn, and how much data and time does it need?).

Three learnable families train on ``--tasks`` generated tasks (ids past the library's, so never
an evaluation task), each a distinct task dealt round-robin over the families and the familiar
tool families, so an example is seen about once when ``--steps x --batch`` is about ``--tasks``.
The fourth family is held out: ``--items`` of its tasks in the familiar tool families (new
*combinations* of covered name pieces, never an unseen piece). Every exact speed-up is on: the
head skips positions with no target, the tool block and system prompt are computed once per
batch (shared prefix, varlen attention) and the tools are read in their signature view. Every
``--eval-every`` steps the model runs closed loop on the held-out items, next to the untrained
base (step 0), and what it wrote is kept: the path it read first and the answer it gave, against
the right ones, so copying and guessing can be told apart. Next to it, the teacher-forced accuracy
of the expert's targets by category (file name, constant name, value, protocol) on the held-out
tasks and on fresh tasks of the training families: it shows copying start long before acceptance
can. The generated corpus is cached as Parquet in ``--workdir``.

Usage: ``.venv/bin/python benchmarks/learning_curve.py [--tasks 4000] [--steps 500] [--batch 8]
[--lr 3e-3] [--eval-every 125] [--items 48] [--kinds report_value] [--preamble-warmup 600] [--seed 0]
[--threads 1]``.
Prints one row per evaluation and a final JSON line.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import torch
from ablation.corpus import (
    HELD_OUT_FAMILY,
    RENAMED_TOOL_FAMILIES,
    TRAIN_FAMILIES,
    TRAIN_TOOL_FAMILIES,
    compact_tool,
    declared_keys,
    expert_corpus,
    expert_table,
    masked_table,
    regime_of,
    task_numbers,
    training_fixtures,
)

from trajectory_platform.evaluation.budget import evaluation_budget
from trajectory_platform.evaluation.calls import ScoredCall, by_regime
from trajectory_platform.evaluation.episodes import EpisodeMeasure, measure_episode
from trajectory_platform.evaluation.harness import evaluation_runtime
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import (
    LEARN_FILE_PIECES,
    LEARN_KINDS,
    LEARN_NAME_PIECES,
    LEARN_TASKS_PER_FAMILY,
    LEARN_VALUES,
    learnable_fixture,
)
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.training.data.dataset import rows_from_table, split_examples
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.loop import run_loop
from trajectory_platform.training.optim.model import build_default_model, load_model
from trajectory_platform.training.optim.settings import OptimizerSettings
from trajectory_platform.training.optim.sft import StepStats, sft_step_function


def held_out_fixtures(
    count: int, seed: int, kinds: tuple[str, ...], tool_families: tuple[str, ...] = TRAIN_TOOL_FAMILIES
) -> list[Fixture]:
    """``count`` distinct tasks of ``kinds`` of the held-out family, round-robin over
    ``tool_families`` (the familiar ones unless asked: :data:`RENAMED_TOOL_FAMILIES` gives the
    renamed-schema items the release gate reads PRE on)."""
    return [
        learnable_fixture(HELD_OUT_FAMILY, task, tool_families[index % len(tool_families)], seed)
        for index, task in enumerate(task_numbers(0, count, kinds))
    ]


def fresh_training_family_fixtures(
    count: int, tasks: int, seed: int, kinds: tuple[str, ...]
) -> list[Fixture]:
    """``count`` tasks of the training families past the ``tasks`` trained on: names from
    combinations training saw, in episodes it did not (the copy-or-recall comparison)."""
    trained = task_numbers(LEARN_TASKS_PER_FAMILY, -(-tasks // len(TRAIN_FAMILIES)), kinds)
    numbers = task_numbers(trained[-1] + 1, count, kinds)
    return [
        learnable_fixture(family, task, TRAIN_TOOL_FAMILIES[index % len(TRAIN_TOOL_FAMILIES)], seed)
        for index, (task, family) in enumerate(zip(numbers, itertools.cycle(TRAIN_FAMILIES), strict=False))
    ]


def _first_path(arguments: dict | None) -> str | None:
    """The path-like argument of a call, whatever the tool family names its key."""
    for value in (arguments or {}).values():
        if isinstance(value, str) and ("." in value or "/" in value or value == "data"):
            return value
    return None


def _signature(call: ScoredCall) -> str:
    """``tool(key, ...)`` of a call: which interface it used, recalled or read (``?`` unparsed)."""
    keys = "?" if call.arguments is None else ",".join(sorted(call.arguments))
    return f"{call.tool}({keys})"


def _category(token: str) -> str:
    """What a target token is: a piece of a file name, of a constant name, a value, or protocol."""
    piece = token.removeprefix("_")
    if any(piece in pieces for pieces in LEARN_FILE_PIECES):
        return "file_name"
    if any(piece in pieces for pieces in LEARN_NAME_PIECES):
        return "constant_name"
    return "value" if token in LEARN_VALUES else "protocol"


@torch.no_grad()
def target_accuracy(model: torch.nn.Module, table: pa.Table, tokenizer: Any) -> dict[str, str]:
    """Teacher-forced next-token accuracy on the scripted expert's targets by category: far more
    sensitive than acceptance, it shows whether names and values are copied or guessed."""
    was_training = model.training
    model.eval()
    hits: dict[str, list[bool]] = {}
    rows = zip(table.column("input_ids").to_pylist(), table.column("labels").to_pylist(), strict=True)
    for ids, labels in rows:
        inputs = torch.tensor([ids])
        logits = model(input_ids=inputs, position_ids=torch.arange(len(ids))[None]).logits[0]
        predicted = logits[:-1].argmax(-1).tolist()
        for position, label in enumerate(labels[1:]):
            if label >= 0:
                category = _category(tokenizer.decode([label]))
                hits.setdefault(category, []).append(predicted[position] == label)
    model.train(was_training)
    return {k: f"{sum(v)}/{len(v)}" for k, v in sorted(hits.items())}


def evaluate(
    path: Path, fixtures: list[Fixture], budget: tuple[int, int], seed: int, training_keys: set[str]
) -> dict[str, Any]:
    """Closed loop on every held-out fixture; acceptance per kind, what the model wrote, and SFA and
    PRE per schema regime (PRE charging ``training_keys``, the keys the training data declares:
    the release gate's clause, read along the curve)."""
    policy = ModelPolicy(path, decoding=Decoding(max_new_tokens=budget[0]), tool_view=compact_tool)
    runtime = evaluation_runtime(max_steps=6, max_generated_tokens=budget[1])
    by_kind: dict[str, list[bool]] = {}
    written: list[dict[str, Any]] = []
    measures: list[EpisodeMeasure] = []
    for index, fixture in enumerate(fixtures):
        result = run_episode(
            fixture, policy, seed=seed, config=runtime, episode_id=f"curve-{index:04d}", source_file="curve"
        )
        measure = measure_episode(
            result,
            item_id=f"{fixture.fixture_id}#0",
            suite="acceptance",
            regime=regime_of(fixture),
            seed=seed,
            task_kind=fixture.task_kind,
            fault_kinds=[],
        )
        measures.append(measure)
        by_kind.setdefault(fixture.task_kind, []).append(measure.accepted)
        first = _first_path(measure.calls[0].arguments) if measure.calls else None
        written.append(
            {
                "task": fixture.fixture_id,
                "accepted": measure.accepted,
                "call": _signature(measure.calls[0]) if measure.calls else None,
                "path": first,
                "right_path": fixture.plan[0].path,
                "answer": (result.final_answer or "")[:40],
                "right_answer": fixture.reference_answer,
            }
        )
    report = [w for w in written if w["task"].split("/")[1].startswith("report_value")]
    answers = collections.Counter(w["answer"] for w in report)
    regimes = by_regime([c for m in measures for c in m.calls], training_keys)
    return {
        "sfa": {r: v["sfa"] for r, v in regimes.items()},
        "pre": {r: v["pre"] for r, v in regimes.items()},
        "first_calls": dict(collections.Counter(str(w["call"]) for w in written).most_common(3)),
        "accepted": sum(w["accepted"] for w in written),
        "items": len(written),
        "by_kind": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_kind.items())},
        "right_path": sum(w["path"] == w["right_path"] for w in written),
        "distinct_paths": len({w["path"] for w in written}),
        "report_value_top_answer": answers.most_common(1)[0] if answers else None,
        "report_value_right_answer": sum(w["answer"].strip() == w["right_answer"] for w in report),
        "written": written,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=4000, help="distinct generated training tasks")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--eval-every", type=int, default=125)
    parser.add_argument("--items", type=int, default=48, help="held-out tasks evaluated closed loop")
    parser.add_argument(
        "--renamed-items",
        type=int,
        default=12,
        help="held-out tasks also evaluated in the renamed tool family (the gate's PRE clause; 0: none)",
    )
    parser.add_argument(
        "--kinds",
        default=",".join(sorted(set(LEARN_KINDS))),
        help="task kinds trained and evaluated, comma-separated (report_value alone: the shortest examples)",
    )
    parser.add_argument(
        "--preamble-warmup",
        type=int,
        default=0,
        help="steps trained without the tool block and system prompt first (the context warm-up)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    kinds = tuple(args.kinds.split(","))
    if unknown := set(kinds) - set(LEARN_KINDS):
        parser.error(
            f"--kinds: {', '.join(sorted(unknown))} is not a learnable task kind "
            f"({', '.join(sorted(set(LEARN_KINDS)))})"
        )
    torch.set_num_threads(args.threads)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="learning-curve-"))
    started = time.monotonic()
    base = build_default_model(workdir)
    tokenizer = load_tokenizer(base)
    table = expert_table(workdir, base, training_fixtures(args.tasks, args.seed, kinds), args.seed)
    budget = evaluation_budget([table])
    held_out = held_out_fixtures(args.items, args.seed, kinds)
    renamed = held_out_fixtures(args.renamed_items, args.seed, kinds, RENAMED_TOOL_FAMILIES)
    keys = declared_keys(table)
    model = load_model(base, device="cpu")
    model.set_attn_implementation(VARLEN_ATTENTION)
    vocab = cast(int, model.get_input_embeddings().num_embeddings)
    examples = split_examples(rows_from_table(table, source="curve"), capacity=2048, vocab_size=vocab).train
    tokens = sum(map(len, table.column("input_ids").to_pylist())) / max(1, table.num_rows)
    setup_s = round(time.monotonic() - started)
    print(f"{len(examples)} examples, mean {tokens:.0f} tokens, setup {setup_s} s", file=sys.stderr)
    step = sft_step_function(
        model,
        examples,
        examples_per_step=args.batch,
        micro_batches=1,
        capacity=2048,
        normalization="token",
        seed=args.seed,
        head="targets",
        shared_prefix=True,
        preamble_warmup_steps=args.preamble_warmup,
    )
    probes = {
        "held_out": masked_table(expert_corpus(held_out, seed=args.seed), tokenizer),
        "fresh_training_family": masked_table(
            expert_corpus(
                fresh_training_family_fixtures(args.items, args.tasks, args.seed, kinds), seed=args.seed
            ),
            tokenizer,
        ),
    }

    def accuracy() -> dict[str, dict[str, str]]:
        return {name: target_accuracy(model, probe, tokenizer) for name, probe in probes.items()}

    def closed_loop(path: Path) -> dict[str, Any]:
        row = evaluate(path, held_out, budget, args.seed, keys)
        return {**row, "renamed": evaluate(path, renamed, budget, args.seed, keys)} if renamed else row

    curve = [
        {
            "step": 0,
            "examples_seen": 0,
            "target_accuracy": accuracy(),
            **closed_loop(base),
        }
    ]
    print(json.dumps(curve[-1]), file=sys.stderr)  # the log keeps every row
    out = workdir / "curve-checkpoint"
    steps_done = [0]
    losses: list[float] = []

    def counted_step(index: int) -> StepStats:
        steps_done[0] = index + 1
        stats = step(index)
        losses.append(stats.loss)
        return stats

    def checkpoint_eval() -> dict[str, Any]:
        if curve[-1]["step"] == steps_done[0]:  # the loop's final evaluation may repeat the last one
            return {}
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
        recent = losses[-args.eval_every :]
        row = {
            "step": steps_done[0],
            "examples_seen": steps_done[0] * args.batch,
            "train_loss": round(sum(recent) / max(1, len(recent)), 4),
            "target_accuracy": accuracy(),
            **closed_loop(out),
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
                "examples": len(examples),
                "mean_tokens": round(tokens),
                "setup_s": setup_s,
                "curve": curve,
                "seconds": round(time.monotonic() - started),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
