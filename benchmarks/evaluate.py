"""Benchmark: closed-loop evaluation speed with the prompt cache reused vs every prompt encoded anew.

The same model, held-out items, budgets and decoding run four ways
(:class:`~trajectory_platform.evaluation.policy.ModelPolicy` settings):

- ``legacy``: the policy's turn as it was before the cache (:class:`LegacyPolicy`, a verbatim copy):
  ``generate`` encodes the whole prompt in one pass every turn, under ``no_grad``;
- ``uncached``: every prompt prefilled from position 0 in whole aligned chunks (``reuse_cache=False``),
  the reference the exactness tests compare against;
- ``cached``: keys and values of earlier turns and of other trials' shared tool block and system
  prompt are reused (``evaluation/decoding.py``), one trial at a time;
- ``batched``: the default. As ``cached``, with ``--batch`` trials in flight on threads and their
  turns decoded together, one row each (``evaluation/batching.py``).

``uncached``, ``cached`` and ``batched`` decode with the policy's own row decoder; ``legacy`` with
``generate``, so ``cached`` vs ``legacy`` includes the leaner decode loop as well as the cache.

Two models: the untrained default base, which runs away to the token budget every turn, and a
briefly trained checkpoint (the ablations' recipe, ``--train-steps``, or ``--trained DIR``), which
ends some of its turns. Each repeat builds fresh policies, so every method starts with a cold
cache, and the order of the methods rotates between repeats so a machine shared with other work
slows each alike. A trial is one held-out episode through ``run_arm`` (runtime, sandbox, oracle
included), so trials per second is what a scorecard gets.

Prints a table (trials/s per method and model, the share of the run spent in chunked prefill, the
share of prompt tokens reused), paired speed ratios (``cached`` vs ``uncached`` and ``legacy``,
``batched`` vs ``cached`` and ``legacy``), whether ``cached``, ``uncached`` and ``batched`` measured
every trial identically (they must) and how many trials ``legacy`` measured identically, then a JSON
line with the ratios.

Usage: ``.venv/bin/python benchmarks/evaluate.py [--episodes 8] [--repeats 3] [--train-steps 120]
[--trained DIR] [--base-tool-view full|compact] [--batch 8] [--threads 1]``; JSON last line.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from ablation.corpus import compact_tool, expert_corpus, learnable_split, masked_table
from ablation.run import VariantSettings, train_variant

from trajectory_platform.evaluation.decoding import PREFILL_CHUNK
from trajectory_platform.evaluation.harness import EvalItem, build_items, evaluation_runtime, run_arm
from trajectory_platform.evaluation.policy import ModelPolicy, _pinned_seed
from trajectory_platform.evaluation.settings import Decoding, EvaluationSettings, SuiteSpec
from trajectory_platform.gym.policy import PolicyInput, PolicyTurn
from trajectory_platform.gym.runtime import RuntimeConfig
from trajectory_platform.training.data.tokenizer import build_default_tokenizer, load_tokenizer
from trajectory_platform.training.optim.model import build_default_model

METHODS: dict[str, dict[str, Any]] = {
    "legacy": {},
    "uncached": {"reuse_cache": False},
    "cached": {},
    "batched": {},
}
RATIOS = (("cached", "uncached"), ("cached", "legacy"), ("batched", "cached"), ("batched", "legacy"))
"""(method, baseline) pairs whose paired speed ratios are reported."""


class LegacyPolicy(ModelPolicy):
    """``ModelPolicy.act`` before the prompt cache (the baseline): one-pass prompt, ``no_grad``."""

    @torch.no_grad()
    def act(self, inp: PolicyInput) -> PolicyTurn:
        ids = self.prompt_ids(inp)
        input_ids = torch.tensor([ids], device=self.device)
        kwargs: dict[str, Any] = {
            "max_new_tokens": self.decoding.max_new_tokens,
            "eos_token_id": self.stop_ids,
            "pad_token_id": self.tokenizer.pad_token_id,
            "attention_mask": torch.ones_like(input_ids),
            "do_sample": self.decoding.do_sample,
        }
        if self.decoding.do_sample:
            kwargs.update(temperature=self.decoding.temperature, top_p=self.decoding.top_p)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        seed = _pinned_seed(self.decoding.seed, self.episode_seed, inp.step)
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
            torch.manual_seed(seed)
            output = self.model.generate(input_ids, **kwargs)
        new = output[0, len(ids) :].tolist()
        finish = "stop" if new and new[-1] in self.stop_ids else "length"
        if finish == "stop" and new[-1] == self.tokenizer.eos_token_id:
            new = new[:-1]
        text = self.tokenizer.decode(new, skip_special_tokens=False)
        return PolicyTurn(text=text, finish_reason=finish, output_tokens=len(output[0]) - len(ids))


def trained_checkpoint(workdir: Path, steps: int, seed: int) -> Path:
    """A checkpoint trained ``steps`` steps at batch 8 on the learnable family's expert episodes."""
    train, _ = learnable_split()
    tokenizer = load_tokenizer(build_default_tokenizer(workdir))
    table = masked_table(expert_corpus(train, seed=seed), tokenizer)
    settings = VariantSettings(steps=steps, examples_per_step=8, capacity=1024)
    return train_variant(table, workdir / f"trained-{steps}", workdir, seed, settings).checkpoint_dir


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (the sandbox's test runs): less
    disturbed than wall time by other work on a shared machine, so the ratios are steadier."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_method(
    model_dir: Path,
    method: str,
    items: list[EvalItem],
    decoding: Decoding,
    runtime: RuntimeConfig,
    view: bool,
    chunk: int,
    batch: int,
) -> dict[str, Any]:
    """One method over every item with a fresh policy (cold cache); seconds cover ``run_arm`` only.
    ``batched`` keeps ``batch`` trials in flight, their turns decoded together; the others one."""
    kind = LegacyPolicy if method == "legacy" else ModelPolicy
    settings = {"prefill_chunk": chunk, **METHODS[method]}
    policy = kind(model_dir, decoding=decoding, tool_view=compact_tool if view else None, **settings)
    cpu_started, started = cpu_seconds(), time.perf_counter()
    arm = run_arm(method, policy, items, runtime, progress=False, batch=batch if method == "batched" else 1)
    seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
    stats = policy.prefix.stats
    return {
        "seconds": seconds,
        "trials_per_s": len(items) / seconds,
        "trials_per_cpu_s": len(items) / cpu,
        "prefill_share": stats.prefill_s / seconds,
        "reused_share": stats.reused_tokens / max(1, stats.prompt_tokens),
        "generated_tokens": sum(m.generated_tokens for m in arm.measures),
        "runaway_turns": sum(m.runaway_turns for m in arm.measures),
        "turns": sum(m.turns for m in arm.measures),
        "measures": [m.to_dict() | {"wall_s": None} for m in arm.measures],
    }


def measure_model(
    model_dir: Path, items: list[EvalItem], args: argparse.Namespace, view: bool
) -> dict[str, Any]:
    """Every method ``--repeats`` times, rotating which goes first; medians and paired ratios."""
    decoding = Decoding(max_new_tokens=args.max_new_tokens, seed=args.seed)
    runtime = evaluation_runtime(args.max_steps, args.max_generated_tokens)
    names = list(METHODS)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for repeat in range(args.repeats):
        order = names[repeat % len(names) :] + names[: repeat % len(names)]
        for name in order:
            runs[name].append(
                run_method(model_dir, name, items, decoding, runtime, view, args.chunk, args.batch)
            )
            print(
                f"  repeat {repeat + 1}/{args.repeats} {name:<9} {runs[name][-1]['seconds']:7.2f} s",
                file=sys.stderr,
            )
    reference = runs["uncached"][0]["measures"]
    result: dict[str, Any] = {
        "exact": all(
            run["measures"] == reference for run in runs["cached"] + runs["uncached"] + runs["batched"]
        ),
        "legacy_same_trials": sum(
            a == b for a, b in zip(runs["legacy"][0]["measures"], reference, strict=True)
        ),
        "trials": len(items),
    }
    for name in names:
        first = runs[name][0]
        result[name] = {
            "trials_per_s": statistics.median(r["trials_per_s"] for r in runs[name]),
            "trials_per_s_repeats": [round(r["trials_per_s"], 4) for r in runs[name]],
            "trials_per_cpu_s": statistics.median(r["trials_per_cpu_s"] for r in runs[name]),
            "prefill_share": statistics.median(r["prefill_share"] for r in runs[name]),
            "reused_share": first["reused_share"],
            "generated_tokens": first["generated_tokens"],
            "runaway_turns": first["runaway_turns"],
            "turns": first["turns"],
        }
    for method, other in RATIOS:
        for clock in ("trials_per_s", "trials_per_cpu_s"):
            paired = [c[clock] / o[clock] for c, o in zip(runs[method], runs[other], strict=True)]
            key = f"{method}_vs_{other}" + ("_cpu" if clock == "trials_per_cpu_s" else "")
            result[key] = {"median": statistics.median(paired), "min": min(paired), "max": max(paired)}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=8, help="acceptance trials (recovery: half as many)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-new-tokens", type=int, default=Decoding.max_new_tokens)
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--max-generated-tokens", type=int, default=600)
    parser.add_argument("--train-steps", type=int, default=120)
    parser.add_argument(
        "--trained", type=Path, help="a trained checkpoint (compact tool view) instead of training"
    )
    parser.add_argument(
        "--base-tool-view",
        choices=("full", "compact"),
        default="full",
        help="how the untrained base sees the tools (full: the scorecard's path); the trained model "
        "always sees the compact view it was trained on",
    )
    parser.add_argument("--workdir", type=Path, help="default: a temporary directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=PREFILL_CHUNK, help="prefill chunk of cached / uncached")
    parser.add_argument(
        "--batch", type=int, default=EvaluationSettings.batch, help="trials in flight for `batched`"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU intra-op threads (default 1: generation is bound by per-token overhead; 0 keeps "
        "torch's default)",
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="tp-bench-evaluate-"))
    base = build_default_model(workdir)
    _, pool = learnable_split()
    items = build_items(
        pool, SuiteSpec(episodes=args.episodes, recovery_episodes=args.episodes // 2, retention_episodes=0)
    )
    started = time.perf_counter()
    trained = args.trained or trained_checkpoint(workdir, args.train_steps, args.seed)
    train_s = time.perf_counter() - started
    print(
        f"{len(items)} held-out trials per method; trained checkpoint {trained} ({train_s:.0f} s)",
        file=sys.stderr,
    )
    models = {
        "base": measure_model(base, items, args, view=args.base_tool_view == "compact"),
        "trained": measure_model(trained, items, args, view=True),
    }
    print(
        f"{'model':<8}{'method':<10}{'trials/s':>10}{'per cpu s':>10}{'prefill':>9}{'reused':>8}{'tokens':>8}"
    )
    for model, result in models.items():
        for name in METHODS:
            row = result[name]
            print(
                f"{model:<8}{name:<10}{row['trials_per_s']:>10.3f}{row['trials_per_cpu_s']:>10.3f}"
                f"{row['prefill_share']:>9.1%}{row['reused_share']:>8.1%}{row['generated_tokens']:>8}"
                f"   runaway {row['runaway_turns']}/{row['turns']}"
            )
        for method, other in RATIOS:
            wall, cpu = result[f"{method}_vs_{other}"], result[f"{method}_vs_{other}_cpu"]
            print(
                f"{model}: {method} vs {other}: {wall['median']:.2f}x wall "
                f"({wall['min']:.2f}-{wall['max']:.2f}), {cpu['median']:.2f}x per CPU second"
            )
        print(
            f"{model}: cached, uncached and batched measured every trial identically: {result['exact']}; "
            f"legacy (one-pass prompt, generate) identical on "
            f"{result['legacy_same_trials']}/{result['trials']}"
        )
    summary = {
        "trials": len(items),
        "repeats": args.repeats,
        "threads": torch.get_num_threads(),
        "budget": {
            "max_new_tokens": args.max_new_tokens,
            "max_steps": args.max_steps,
            "max_generated_tokens": args.max_generated_tokens,
        },
        "base_tool_view": args.base_tool_view,
        "prefill_chunk": args.chunk,
        "batch": args.batch,
        "train_steps": None if args.trained else args.train_steps,
        **{
            model: {
                "exact": result["exact"],
                "legacy_same_trials": result["legacy_same_trials"],
                **{
                    key: {k: round(v, 3) for k, v in result[key].items()}
                    for method, other in RATIOS
                    for key in (f"{method}_vs_{other}", f"{method}_vs_{other}_cpu")
                },
                **{
                    name: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in result[name].items()}
                    for name in METHODS
                },
            }
            for model, result in models.items()
        },
    }
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
