"""Benchmark: packed vs padded training throughput, and the LM head only where targets are scored.

All layouts train the same model on the same examples with the same optimizer step code
(:func:`trajectory_platform.training.optim.sft.accumulate_gradients`); only the memory layout and
where the LM head runs differ:

- ``padded``: one row per example, padded to the longest example of the step (dynamic padding),
  the head at every position;
- ``packed``: best-fit-decreasing buffers of ``--capacity`` tokens with per-example position reset
  (:func:`trajectory_platform.training.optim.packing.collate_packed`) and variable-length attention
  (:mod:`trajectory_platform.training.optim.attention`: one causal sdpa per example, no dense mask),
  the head at every position (``head="all"``, the reference path);
- ``packed+skip``: the same packed batches with the head and log-softmax only at the positions that
  predict a scored target (``head="targets"``, the product default; the same loss up to rounding);
- ``packed+skip+prefix`` (only with ``--shared-prefix`` or ``--examples-json``): as ``packed+skip``,
  with the context prefix that examples of a micro-batch share stored once per buffer
  (:func:`trajectory_platform.training.optim.packing.collate_shared_prefix`);
- ``...+free``: the last packed layout with each micro-batch's buffers laid end to end in one row
  without their padding (:func:`trajectory_platform.training.optim.packing.flatten_buffers`, the
  product default; the same loss up to rounding). The other packed layouts keep padded buffers.

The length distribution is agent-like: mostly short exchanges with a heavy tail of long
multi-turn trajectories (log-normal, clipped to the capacity), targets ``--target-share`` of each
example (the closing part); ``--shared-prefix N`` opens every example with one of
``--prefix-variants`` constant context prefixes of about N tokens (a tool block and system prompt),
and ``--examples-json`` reads real token rows (``input_ids``, ``labels``; a JSON list, or the
JSONL ``trajectory-platform mask`` writes) instead. Layouts are
interleaved step by step, and the whole measurement is repeated ``--repeats`` times with fresh
models, so a machine shared with other work slows all alike; ratios are reported per repeat and as
their median. The report gives stored tokens/s (a shared prefix counts once) and examples/s (the
comparable figure) for each layout, their occupancy, and the parameter-state inventory against the
measured peak (CUDA allocator peak, or sampled RSS on CPU). On CUDA the step runs under bf16
autocast (sdpa's flash kernels per example).

Usage: ``.venv/bin/python benchmarks/train.py [--steps 4] [--repeats 3] [--examples-per-step 16]
[--capacity 1024] [--target-share 0.2] [--shared-prefix 0 --prefix-variants 3] [--examples-json F]
[--hidden 128 --layers 3]``; JSON last line.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

import torch

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.loop import make_optimizer
from trajectory_platform.training.optim.loss import HeadPositions
from trajectory_platform.training.optim.memory import FP32_ADAMW, PeakMemory, inventory_for_model
from trajectory_platform.training.optim.model import TinyLlamaShape, resolve_device, tiny_llama
from trajectory_platform.training.optim.packing import occupancy, pack_lengths, padded_occupancy
from trajectory_platform.training.optim.settings import OptimizerSettings
from trajectory_platform.training.optim.sft import accumulate_gradients, collate_micro_batches, step_examples

VOCAB = 4096


def agent_lengths(count: int, capacity: int, seed: int) -> list[int]:
    """Log-normal lengths (median ~capacity/8, long tail), clipped to [32, capacity]."""
    rng = random.Random(seed)
    median = capacity / 8
    return [max(32, min(capacity, int(rng.lognormvariate(math.log(median), 0.9)))) for _ in range(count)]


def make_examples(
    lengths: list[int], seed: int, target_share: float = 0.2, prefix: int = 0, variants: int = 3
) -> list[dict]:
    """Random tokens, the closing ``target_share`` scored; with ``prefix``, each example opens with one
    of ``variants`` constant context prefixes (lengths within 0.7-1.3 x ``prefix``) that count
    toward its length."""
    rng = random.Random(seed)
    prefixes = [
        [rng.randrange(8, VOCAB) for _ in range(int(prefix * (0.7 + 0.6 * k / max(1, variants - 1))))]
        for k in range(variants if prefix else 0)
    ]
    examples = []
    for length in lengths:
        opening = prefixes[rng.randrange(len(prefixes))] if prefixes else []
        length = max(length, len(opening) + 32)
        ids = opening[:length] + [rng.randrange(8, VOCAB) for _ in range(length - len(opening))]
        targets = min(length - len(opening) - 1, max(1, int(length * target_share)))
        examples.append({"input_ids": ids, "labels": [IGNORE_INDEX] * (length - targets) + ids[-targets:]})
    return examples


def collate_padded(examples: list[dict]) -> dict[str, torch.Tensor]:
    """The baseline layout: one row per example, right-padded to the step's longest example."""
    width = max(len(e["input_ids"]) for e in examples)
    rows = len(examples)
    batch = {
        "input_ids": torch.zeros(rows, width, dtype=torch.long),
        "labels": torch.full((rows, width), IGNORE_INDEX, dtype=torch.long),
        "attention_mask": torch.zeros(rows, width, dtype=torch.long),
        "position_ids": torch.arange(width).repeat(rows, 1),
    }
    for row, example in enumerate(examples):
        n = len(example["input_ids"])
        batch["input_ids"][row, :n] = torch.as_tensor(example["input_ids"])
        batch["labels"][row, :n] = torch.as_tensor(example["labels"])
        batch["attention_mask"][row, :n] = 1
    batch["stored_tokens"] = batch["attention_mask"].sum()
    return batch


LAYOUTS = ("padded", "packed", "packed+skip", "packed+skip+prefix", "packed+skip+prefix+free")
"""Each layout's batches and head: padded / packed with the head everywhere, packed with the head
only before scored targets, that with shared prefixes stored once per buffer, and that without the
buffers' padding."""


class Layout:
    """One layout's model, optimizer and batches; ``step`` trains one step and returns its stats."""

    def __init__(
        self, name: str, examples: list[dict], args: argparse.Namespace, device: torch.device
    ) -> None:
        shape = TinyLlamaShape(
            hidden_size=args.hidden,
            intermediate_size=2 * args.hidden,
            num_hidden_layers=args.layers,
            num_attention_heads=max(1, args.hidden // 32),
            num_key_value_heads=max(1, args.hidden // 32),
            max_position_embeddings=args.capacity,
        )
        self.name, self.examples, self.args = name, examples, args
        self.model = tiny_llama(VOCAB, seed=0, shape=shape).to(device).train()
        # packed: one causal attention per example (no dense mask); padded: sdpa with the 2D padding mask.
        self.packed = name.startswith("packed")
        self.model.set_attn_implementation(VARLEN_ATTENTION if self.packed else "sdpa")
        self.head: HeadPositions = "targets" if name.startswith("packed+skip") else "all"
        self.shared_prefix = "+prefix" in name
        self.padding_free = name.endswith("+free")
        self.optimizer, _ = make_optimizer(self.model, OptimizerSettings(), args.steps + 2)
        self.autocast = torch.bfloat16 if device.type == "cuda" else None
        self.device = device
        self.inventory = inventory_for_model(self.model, FP32_ADAMW)
        self.tokens = self.allocated = self.examples_seen = 0
        self.seconds = 0.0

    def batches(self, step: int) -> list[dict]:
        args = self.args
        chosen = [
            self.examples[i]
            for i in step_examples(len(self.examples), step, args.examples_per_step, args.seed)
        ]
        if self.packed:
            return collate_micro_batches(
                chosen,
                args.micro_batches,
                args.capacity,
                shared_prefix=self.shared_prefix,
                padding_free=self.padding_free,
            )
        bounds = [round(i * len(chosen) / args.micro_batches) for i in range(args.micro_batches + 1)]
        return [collate_padded(chosen[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]

    def step(self, index: int, timed: bool = True) -> None:
        batches = self.batches(index)
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        started = time.perf_counter()
        self.optimizer.zero_grad(set_to_none=True)
        stats = accumulate_gradients(self.model, batches, "token", self.autocast, head=self.head)
        self.optimizer.step()
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        if timed:
            self.seconds += time.perf_counter() - started
            self.tokens += stats.stored_tokens
            self.allocated += sum(b["input_ids"].numel() for b in batches)
            self.examples_seen += self.args.examples_per_step

    def peak_memory(self, index: int) -> dict:
        """One more step under the peak meter (after the timed ones, so timing is not perturbed)."""
        with PeakMemory(self.device) as peak:
            self.step(index, timed=False)
        return peak.report(self.inventory)

    def result(self) -> dict:
        return {
            "tokens": self.tokens,
            "seconds": round(self.seconds, 3),
            "tokens_per_s": self.tokens / self.seconds,
            "examples_per_s": self.examples_seen / self.seconds,
            "occupancy": self.tokens / self.allocated,
            "inventory": self.inventory.as_dict(),
        }


def measure(
    examples: list[dict], args: argparse.Namespace, device: torch.device, *, memory: bool = True
) -> dict[str, dict]:
    """Interleave the layouts step by step (rotating which goes first), so a machine shared with
    other work slows all alike; a warm-up step each is not timed."""
    layouts = [Layout(name, examples, args, device) for name in layout_names(args)]
    for layout in layouts:
        layout.step(0, timed=False)
    for index in range(1, args.steps + 1):
        shift = index % len(layouts)
        for layout in layouts[shift:] + layouts[:shift]:
            layout.step(index)
    results = {layout.name: layout.result() for layout in layouts}
    if memory:
        for layout in layouts:
            results[layout.name]["memory"] = layout.peak_memory(args.steps + 1)
        print(layouts[1].inventory.render(), file=sys.stderr)
    return results


def layout_names(args: argparse.Namespace) -> tuple[str, ...]:
    """The shared-prefix layout only where the data has shared prefixes (else it is ``packed+skip``,
    and the padding-free layout is ``packed+skip+free``)."""
    return LAYOUTS if args.shared_prefix or args.examples_json else (*LAYOUTS[:3], "packed+skip+free")


RATIOS = {
    "packed / padded": ("packed", "padded"),
    "head skip / full head": ("packed+skip", "packed"),
    "shared prefix / head skip": ("packed+skip+prefix", "packed+skip"),
    "prefix + skip / full head": ("packed+skip+prefix", "packed"),
    "padding-free / padded buffers": ("packed+skip+prefix+free", "packed+skip+prefix"),
    "padding-free / padded buffers (no prefix)": ("packed+skip+free", "packed+skip"),
}
"""The comparisons reported, each as a throughput ratio per repeat: packing against padding, the
head skip against the full head (both packed), shared prefixes on top of the head skip, and the
padding-free layout against the same buffers padded."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3, help="fresh interleaved measurements (>= 3)")
    parser.add_argument("--target-share", type=float, default=0.2, help="share of each example scored")
    parser.add_argument("--shared-prefix", type=int, default=0, help="tokens of a constant opening (0: none)")
    parser.add_argument("--prefix-variants", type=int, default=3, help="distinct openings (tool sets)")
    parser.add_argument(
        "--examples-json", default=None, help="real token rows (input_ids, labels): a JSON list or JSONL"
    )
    parser.add_argument("--examples-per-step", type=int, default=16)
    parser.add_argument("--micro-batches", type=int, default=2)
    parser.add_argument("--capacity", type=int, default=1024)
    parser.add_argument("--examples", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default=None)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU intra-op threads (default 1: on a shared machine OpenMP barriers between descheduled "
        "threads cost more than a second core gives; 0 keeps torch's default)",
    )
    args = parser.parse_args(argv)
    device = resolve_device(args.device)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.examples_json:
        text = Path(args.examples_json).read_text()
        rows = (
            json.loads(text)
            if text.lstrip().startswith("[")
            else [json.loads(x) for x in text.splitlines() if x]
        )
        examples = [
            {"input_ids": e["input_ids"], "labels": e["labels"]}
            for e in rows
            if len(e["input_ids"]) <= args.capacity
        ]
        lengths = [len(e["input_ids"]) for e in examples]
    else:
        lengths = agent_lengths(args.examples, args.capacity, args.seed)
        examples = make_examples(
            lengths, args.seed, args.target_share, args.shared_prefix, args.prefix_variants
        )
        lengths = [len(e["input_ids"]) for e in examples]
    scored = sum(sum(label != IGNORE_INDEX for label in e["labels"]) for e in examples) / sum(lengths)
    print(
        f"device {device}; {len(lengths)} examples, mean length {sum(lengths) / len(lengths):.0f}, "
        f"max {max(lengths)}, capacity {args.capacity}, scored share {scored:.3f}; dataset occupancy "
        f"packed {occupancy(lengths, pack_lengths(lengths, args.capacity), args.capacity):.3f} vs "
        f"padded-to-max {padded_occupancy(lengths):.3f}",
        file=sys.stderr,
    )
    repeats = [
        measure(examples, args, device, memory=index == args.repeats - 1) for index in range(args.repeats)
    ]
    results = repeats[-1]
    print(
        f"{'layout':<24}{'tokens/s':>12}{'examples/s':>12}{'occupancy':>11}{'seconds':>9}"
        f"{'peak MB':>10}{'inventory MB':>14}   (last repeat)"
    )
    for name, result in results.items():
        print(
            f"{name:<24}{result['tokens_per_s']:>12,.0f}{result['examples_per_s']:>12.2f}"
            f"{result['occupancy']:>11.3f}{result['seconds']:>9.2f}"
            f"{result['memory']['peak_bytes'] / 1e6:>10.1f}{result['inventory']['total'] / 1e6:>14.3f}"
        )
    ratios: dict[str, dict] = {}
    medians: dict[str, float] = {}
    names = layout_names(args)
    for label, (faster, slower) in RATIOS.items():
        if faster not in names:
            continue
        # tokens/s and examples/s give the same ratio: both layouts train the same examples per step.
        per_repeat = [r[faster]["examples_per_s"] / r[slower]["examples_per_s"] for r in repeats]
        medians[label] = statistics.median(per_repeat)
        ratios[label] = {"per_repeat": [round(v, 3) for v in per_repeat], "median": round(medians[label], 3)}
        print(
            f"{label} examples/s: median {medians[label]:.2f}x, repeats "
            + ", ".join(f"{v:.2f}x" for v in per_repeat)
        )
    speedup = medians["packed / padded"]
    summary = {
        "device": str(device),
        "model": {
            "hidden": args.hidden,
            "layers": args.layers,
            "parameters": results["packed"]["inventory"]["trainable_parameters"],
        },
        "capacity": args.capacity,
        "examples_per_step": args.examples_per_step,
        "steps": args.steps,
        "repeats": args.repeats,
        "target_share": round(scored, 4),
        "threads": torch.get_num_threads(),
        "examples_per_s": {name: [round(r[name]["examples_per_s"], 2) for r in repeats] for name in names},
        "tokens_per_s": {name: [round(r[name]["tokens_per_s"], 1) for r in repeats] for name in names},
        "ratios": ratios,
        "speedup": round(speedup, 3),
        "target_met": speedup >= 2.0,
        "occupancy": {k: round(v["occupancy"], 4) for k, v in results.items()},
        "memory": {
            k: {**v["memory"], "inventory_bytes": v["inventory"]["total"]} for k, v in results.items()
        },
    }
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
