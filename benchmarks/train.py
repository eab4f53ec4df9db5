"""Benchmark: packed vs padded training throughput on the same agent-like data, plus memory.

Both layouts train the same model on the same examples with the same optimizer step code
(:func:`trajectory_platform.training.optim.sft.accumulate_gradients`); only the memory layout differs:

- ``padded``: one row per example, padded to the longest example of the step (dynamic padding);
- ``packed``: best-fit-decreasing buffers of ``--capacity`` tokens with per-example position reset
  (:func:`trajectory_platform.training.optim.packing.collate_packed`) and variable-length attention
  (:mod:`trajectory_platform.training.optim.attention`: one causal sdpa per example, no dense mask).

The length distribution is agent-like: mostly short exchanges with a heavy tail of long
multi-turn trajectories (log-normal, clipped to the capacity), targets ~20% of each example. The
report gives stored tokens/s for each layout, their occupancy, and the parameter-state inventory
against the measured peak (CUDA allocator peak, or sampled RSS on CPU). On CUDA the step runs
under bf16 autocast (sdpa's flash kernels per example).

Usage: ``.venv/bin/python benchmarks/train.py [--steps 4] [--examples-per-step 16] [--capacity 1024]
[--hidden 128 --layers 3]``; JSON last line.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time

import torch

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.loop import OptimizerSettings, make_optimizer
from trajectory_platform.training.optim.memory import FP32_ADAMW, PeakMemory, inventory_for_model
from trajectory_platform.training.optim.model import TinyLlamaShape, resolve_device, tiny_llama
from trajectory_platform.training.optim.packing import occupancy, pack_lengths, padded_occupancy
from trajectory_platform.training.optim.sft import accumulate_gradients, collate_micro_batches, step_examples

VOCAB = 4096


def agent_lengths(count: int, capacity: int, seed: int) -> list[int]:
    """Log-normal lengths (median ~capacity/8, long tail), clipped to [32, capacity]."""
    rng = random.Random(seed)
    median = capacity / 8
    return [max(32, min(capacity, int(rng.lognormvariate(math.log(median), 0.9)))) for _ in range(count)]


def make_examples(lengths: list[int], seed: int) -> list[dict]:
    rng = random.Random(seed)
    examples = []
    for length in lengths:
        ids = [rng.randrange(8, VOCAB) for _ in range(length)]
        targets = max(1, length // 5)
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
        self.model.set_attn_implementation(VARLEN_ATTENTION if name == "packed" else "sdpa")
        self.optimizer, _ = make_optimizer(self.model, OptimizerSettings(), args.steps + 2)
        self.autocast = torch.bfloat16 if device.type == "cuda" else None
        self.device = device
        self.inventory = inventory_for_model(self.model, FP32_ADAMW)
        self.tokens = self.allocated = 0
        self.seconds = 0.0

    def batches(self, step: int) -> list[dict]:
        args = self.args
        chosen = [
            self.examples[i]
            for i in step_examples(len(self.examples), step, args.examples_per_step, args.seed)
        ]
        if self.name == "packed":
            return collate_micro_batches(chosen, args.micro_batches, args.capacity)
        bounds = [round(i * len(chosen) / args.micro_batches) for i in range(args.micro_batches + 1)]
        return [collate_padded(chosen[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]

    def step(self, index: int, timed: bool = True) -> None:
        batches = self.batches(index)
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        started = time.perf_counter()
        self.optimizer.zero_grad(set_to_none=True)
        stats = accumulate_gradients(self.model, batches, "token", self.autocast)
        self.optimizer.step()
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        if timed:
            self.seconds += time.perf_counter() - started
            self.tokens += stats.stored_tokens
            self.allocated += sum(b["input_ids"].numel() for b in batches)

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
            "occupancy": self.tokens / self.allocated,
            "inventory": self.inventory.as_dict(),
        }


def measure(examples: list[dict], args: argparse.Namespace, device: torch.device) -> dict[str, dict]:
    """Interleave the layouts step by step (alternating which goes first), so a machine shared with
    other work slows both alike; a warm-up step each is not timed."""
    layouts = [Layout(name, examples, args, device) for name in ("padded", "packed")]
    for layout in layouts:
        layout.step(0, timed=False)
    for index in range(1, args.steps + 1):
        for layout in layouts if index % 2 else reversed(layouts):
            layout.step(index)
    results = {layout.name: layout.result() for layout in layouts}
    for layout in layouts:
        results[layout.name]["memory"] = layout.peak_memory(args.steps + 1)
    print(layouts[1].inventory.render(), file=sys.stderr)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=4)
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
    lengths = agent_lengths(args.examples, args.capacity, args.seed)
    examples = make_examples(lengths, args.seed)
    print(
        f"device {device}; {len(lengths)} examples, mean length {sum(lengths) / len(lengths):.0f}, "
        f"max {max(lengths)}, capacity {args.capacity}; dataset occupancy packed "
        f"{occupancy(lengths, pack_lengths(lengths, args.capacity), args.capacity):.3f} vs padded-to-max "
        f"{padded_occupancy(lengths):.3f}",
        file=sys.stderr,
    )
    results = measure(examples, args, device)
    print(f"{'layout':<8}{'tokens/s':>12}{'occupancy':>11}{'seconds':>9}{'peak MB':>10}{'inventory MB':>14}")
    for name, result in results.items():
        print(
            f"{name:<8}{result['tokens_per_s']:>12,.0f}{result['occupancy']:>11.3f}{result['seconds']:>9.2f}"
            f"{result['memory']['peak_bytes'] / 1e6:>10.1f}{result['inventory']['total'] / 1e6:>14.3f}"
        )
    speedup = results["packed"]["tokens_per_s"] / results["padded"]["tokens_per_s"]
    print(f"packed / padded tokens/s: {speedup:.2f}x (target >= 2x)")
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
        "threads": torch.get_num_threads(),
        "packed_tokens_per_s": round(results["packed"]["tokens_per_s"], 1),
        "padded_tokens_per_s": round(results["padded"]["tokens_per_s"], 1),
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
