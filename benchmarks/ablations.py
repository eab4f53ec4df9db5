"""Proof of value on the gym's learnable family (issue 9 item 8): paired ablations, closed loop.

``--quick`` (CI, a couple of minutes): mechanics only, never which variant wins. Scripted policies
with exactly predictable scores go through the real evaluator (expert 100% acceptance; stale-key
stub PRE 100% and SFA 0 on renamed schemas; fabricating stub 100% fabrication; never-recovering
stub 0% recovery; no-end-token stub 100% runaway), then a seconds-long training run must lower its
loss and reproduce itself bit for bit.

``--full`` (about 45 minutes on 2 cores, or a GPU): three learnable families train, the fourth is
held out; each variant is trained with the same data budget, steps and seeds, then evaluated closed
loop on the same held-out items and seeds. Before any variant trains, a calibration run measures
seconds per step (at ``--batch``, ``--threads``) and seconds per evaluation on this machine; the
steps are then derived from ``--budget-minutes`` (or, given with ``--steps``, checked against it),
the estimate is printed, and a plan over budget is refused unless ``--allow-over-budget``.

- (A) selected-target masks vs all-token loss, plus the compute-matched control (all-token loss
  reweighted so the actions keep the masked objective's weight): acceptance, fabrication;
- (B) schema augmentation (renamed copies) vs none: SFA and PRE on renamed schemas (``alias``);
- (C) recovery-augmented mixture (β of target tokens near 0.27) vs pristine-only: recovery on
  fault-injected held-out tasks, split into fault kinds the corpus showed and kinds it never did.

Variants are compared only on seeds where the reference reaches the competence gate (canonical
acceptance >= ``--gate``); other seeds are reported as not resolved. Each comparison is a paired
exact McNemar interval over (seed, item) at a Bonferroni-corrected level (alpha / 3).

Usage: ``.venv/bin/python benchmarks/ablations.py --quick`` or
``--full [--seeds 3] [--batch 8] [--threads 2] [--budget-minutes 45] [--steps N]``.
The last stdout line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from trajectory_platform.evaluation.ablation import (
    MIN_STEPS,
    TRAINING_FAULT_KINDS,
    TrainSettings,
    all_token_labels,
    compact_tool,
    expert_corpus,
    learnable_split,
    masked_table,
    plan_budget,
    smoke_training,
    stub_mechanics,
    train_compute_matched,
    train_variant,
    training_keys,
)
from trajectory_platform.evaluation.budget import evaluation_budget
from trajectory_platform.evaluation.calls import classify_call
from trajectory_platform.evaluation.harness import SuiteSpec, build_items, evaluation_runtime, run_arm
from trajectory_platform.evaluation.policy import Decoding, ModelPolicy
from trajectory_platform.evaluation.scorecard import CostModel, arm_summary
from trajectory_platform.evaluation.stats import bonferroni_alpha, paired_comparison
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.model import build_default_model

EXPECTED_STUBS = {
    "expert": {"acceptance": 1.0, "recovery": 1.0},
    "stale_key": {("pre", "renamed"): 1.0, ("sfa", "renamed"): 0.0},
    "fabricating": {"fabricated_observation_rate": 1.0},
    "never_recovering": {"recovery": 0.0},
    "no_end_token": {"runaway_rate": 1.0},
}


def _value(summary: dict, key: Any) -> Any:
    return summary[key[0]][key[1]] if isinstance(key, tuple) else summary[key]


def quick(workdir: Path) -> dict[str, Any]:
    started = time.monotonic()
    stubs = stub_mechanics()
    rows, failures = [], []
    for name, expected in EXPECTED_STUBS.items():
        for key, want in expected.items():
            got = _value(stubs[name], key)
            rows.append((name, "/".join(key) if isinstance(key, tuple) else key, want, got))
            if got != want:
                failures.append(f"{name} {key}: expected {want}, got {got}")
    print(f"{'stub':<18}{'measure':<32}{'expected':>10}{'measured':>10}", file=sys.stderr)
    for name, key, want, got in rows:
        print(f"{name:<18}{key:<32}{want:>10.2f}{got:>10.2f}", file=sys.stderr)
    smoke = smoke_training(workdir, workdir / "smoke", steps=6, tasks=6)
    first, second = smoke["runs"]
    losses = first["losses"]
    smoke_ok = losses[-1] < losses[0] and first == second
    if not smoke_ok:
        failures.append("smoke training: loss did not fall or the two runs differ")
    print(
        f"smoke training: loss {losses[0]:.4f} -> {losses[-1]:.4f} ({losses[-1] / losses[0]:.3f}x), "
        f"runs identical: {first == second}",
        file=sys.stderr,
    )
    return {
        "tier": "quick",
        "ok": not failures,
        "failures": failures,
        "stubs": {name: {key: got for n, key, _, got in rows if n == name} for name in EXPECTED_STUBS},
        "smoke": {"loss_first": losses[0], "loss_last": losses[-1], "deterministic": first == second},
        "seconds": round(time.monotonic() - started, 1),
    }


VARIANTS = ("selected", "all_token", "augmented", "recovery", "compute_matched")
CALIBRATION_STEPS = 4
CALIBRATION_ITEMS = 6


def _evaluate(path: Path, items, seed: int, device: str | None, budget: tuple[int, int]) -> list:
    """Closed loop with the compact tool view the variants were trained on; ``budget`` is
    (max new tokens per turn, max generated tokens per trial) from ``evaluation_budget``."""
    decoding = Decoding(max_new_tokens=budget[0], seed=seed)
    policy = ModelPolicy(path, decoding=decoding, device=device or "cpu", tool_view=compact_tool)
    runtime = evaluation_runtime(max_steps=6, max_generated_tokens=budget[1])
    return run_arm(path.name, policy, items, runtime, progress=False).measures


def _calibrate(
    index: int, table, items, workdir: Path, settings: TrainSettings, budget: tuple[int, int], threads: int
) -> tuple[float, float]:
    """(seconds per training step, fixed seconds of one run), measured on this machine.

    A few steps of the reference variant give the step time (every variant trains on examples of
    the same length, at the same batch). The barely trained checkpoint then runs a few items: it
    mostly runs away to the token budget, so scaling its time to the whole suite is an upper bound
    on a trained variant's evaluation. The fixed part adds the run's time outside its steps
    (loading, saving the checkpoint and its manifest).
    """
    torch.set_num_threads(threads)
    out = workdir / "runs" / f"calibration-{index}"
    started = time.monotonic()
    outcome = train_variant(table, out, workdir, 0, replace(settings, steps=CALIBRATION_STEPS))
    outside_steps = time.monotonic() - started - outcome.loop.train_seconds
    sample = items[:CALIBRATION_ITEMS]
    started = time.monotonic()
    _evaluate(out, sample, 0, settings.device, budget)
    evaluation = (time.monotonic() - started) * len(items) / len(sample)
    return outcome.loop.train_seconds / CALIBRATION_STEPS, outside_steps + evaluation


def _run(
    variant: str,
    seed: int,
    table,
    items,
    workdir: Path,
    settings: TrainSettings,
    budget: tuple[int, int],
    threads: int,
) -> tuple[list, dict[str, float]]:
    """Train one (variant, seed) and evaluate it closed loop: one job of the worker pool."""
    torch.set_num_threads(threads)
    out = workdir / "runs" / f"{variant}-{seed}"
    tick = time.monotonic()
    if variant == "compute_matched":
        train_compute_matched(table, workdir, out, seed, settings)
    else:
        train_variant(table, out, workdir, seed, settings)
    tock = time.monotonic()
    measures = _evaluate(out, items, seed, settings.device, budget)
    return measures, {"train_s": round(tock - tick, 1), "eval_s": round(time.monotonic() - tock, 1)}


def _pool(workers: int) -> Executor:
    """Worker processes, one run each at a time: generation is bound by per-token overhead, not by
    threads, so two single-thread runs side by side beat one two-thread run on two cores. Fresh
    (spawned) interpreters keep torch's thread pools out of a fork."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


def _compare(
    name: str, metric: str, runs: dict, reference: str, variant: str, gated: list[int], alpha: float, outcome
) -> dict[str, Any]:
    """Paired comparison of ``variant`` vs ``reference`` over (gated seed, item)."""
    ref = [outcome(m) for s in gated for m in runs[(reference, s)]]
    var = [outcome(m) for s in gated for m in runs[(variant, s)]]
    head = {"ablation": name, "metric": metric, "variant": variant, "reference": reference}
    if not ref:
        return {**head, "resolved": False, "reason": "no seed passed the competence gate"}
    return {
        **head,
        "resolved": True,
        "gated_seeds": gated,
        **paired_comparison(var, ref, alpha=alpha).to_dict(),
    }


def full(
    workdir: Path,
    seeds: int,
    steps: int | None,
    settings: TrainSettings,
    gate: float,
    episodes: int,
    budget_minutes: float,
    allow_over_budget: bool,
    workers: int,
    threads: int,
) -> dict[str, Any]:
    started = time.monotonic()
    build_default_model(workdir)
    tokenizer = load_tokenizer(workdir / "models" / "default_tokenizer")
    train, pool = learnable_split()
    spec = SuiteSpec(
        episodes=episodes,
        recovery_episodes=episodes // 2,
        retention_episodes=episodes // 4,
        retention_kinds=("count_files",),
    )
    items = build_items(pool, spec)
    pristine = expert_corpus(train, seed=0)
    recovery = expert_corpus(train, seed=0, recovery_share=0.35, fault_kinds=TRAINING_FAULT_KINDS)
    tables = {
        "selected": masked_table(pristine, tokenizer),
        "augmented": masked_table(pristine, tokenizer, augment=True),
        "recovery": masked_table(recovery, tokenizer),
    }
    budget = evaluation_budget(list(tables.values()))  # before all_token: its "turn" is the example
    tables["all_token"] = all_token_labels(tables["selected"])
    with _pool(workers) as pool:
        # As many calibrations side by side as there will be runs: the step time under contention.
        calibrations = [
            pool.submit(_calibrate, i, tables["selected"], items, workdir, settings, budget, threads)
            for i in range(workers)
        ]
        step_s = max(c.result()[0] for c in calibrations)
        fixed_s = max(c.result()[1] for c in calibrations)
    plan = plan_budget(
        step_s,
        fixed_s,
        time.monotonic() - started,
        seeds * len(VARIANTS),
        budget_minutes * 60,
        steps,
        workers=workers,
    )
    tokens = {name: _mean_tokens(table) for name, table in tables.items()}
    print(
        f"budget plan: {plan.runs} runs on {workers} workers x {threads} threads = {plan.rounds} rounds x "
        f"({plan.steps} steps x {step_s:.3f} s at batch "
        f"{settings.examples_per_step} + {fixed_s:.0f} s evaluation and I/O) + "
        f"{plan.setup_seconds:.0f} s setup = "
        f"{plan.projected_seconds / 60:.1f} min (budget {budget_minutes:g} min, which fits "
        f"{plan.fitting_steps} steps); mean tokens per example "
        + ", ".join(f"{k} {v:.0f}" for k, v in tokens.items()),
        file=sys.stderr,
    )
    head = {"tier": "full", "plan": plan.to_dict(), "mean_tokens_per_example": tokens}
    problem = None
    if steps is None and plan.steps < MIN_STEPS:
        problem = f"only {plan.steps} steps per run fit the budget (minimum {MIN_STEPS})"
    elif plan.projected_seconds > plan.budget_seconds:
        problem = f"projected {plan.projected_seconds / 60:.1f} min exceeds the {budget_minutes:g} min budget"
    if problem and not allow_over_budget:
        print(
            f"refused: {problem}; raise --budget-minutes, lower --steps/--seeds/--episodes, "
            "or pass --allow-over-budget",
            file=sys.stderr,
        )
        return {**head, "ok": False, "refused": problem}
    if problem:
        print(f"warning: {problem}; going on (--allow-over-budget)", file=sys.stderr)
    settings = replace(settings, steps=plan.steps)
    runs: dict[tuple[str, int], list] = {}
    timings: dict[str, dict[str, float]] = {}
    keys = training_keys()
    with _pool(workers) as pool:
        jobs = {
            pool.submit(
                _run,
                variant,
                seed,
                tables["selected" if variant == "compute_matched" else variant],
                items,
                workdir,
                settings,
                budget,
                threads,
            ): (variant, seed)
            for seed in range(seeds)
            for variant in VARIANTS
        }
        for job in as_completed(jobs):
            variant, seed = jobs[job]
            runs[(variant, seed)], timing = job.result()
            timings[f"{variant}-{seed}"] = timing
            print(
                f"{variant}-{seed}: train {timing['train_s']} s, evaluate {timing['eval_s']} s, "
                f"elapsed {(time.monotonic() - started) / 60:.1f} min ({len(runs)}/{len(jobs)})",
                file=sys.stderr,
            )
    summaries = {
        f"{v}-{s}": arm_summary(
            ms, training_keys=keys, cost_model=CostModel(), training_fault_kinds=set(TRAINING_FAULT_KINDS)
        )
        for (v, s), ms in runs.items()
    }
    gated = [s for s in range(seeds) if (summaries[f"selected-{s}"]["acceptance"] or 0) >= gate]
    alpha = bonferroni_alpha(0.05, 3)

    def first_call_follows_schema(m) -> bool:
        return bool(m.calls) and classify_call(m.calls[0]) in ("valid", "tool_execution_error")

    comparisons = [
        _compare(
            "A",
            "acceptance",
            _only(runs, "acceptance"),
            "selected",
            "all_token",
            gated,
            alpha,
            lambda m: m.accepted,
        ),
        _compare(
            "A",
            "acceptance",
            _only(runs, "acceptance"),
            "selected",
            "compute_matched",
            gated,
            alpha,
            lambda m: m.accepted,
        ),
        _compare(
            "A",
            "fabricated_observation",
            runs,
            "selected",
            "all_token",
            gated,
            alpha,
            lambda m: m.fabricated_turns > 0,
        ),
        _compare(
            "B",
            "renamed_first_call_sfa",
            _only(runs, "acceptance", regime="renamed"),
            "selected",
            "augmented",
            gated,
            alpha,
            first_call_follows_schema,
        ),
        _compare(
            "B",
            "renamed_acceptance",
            _only(runs, "acceptance", regime="renamed"),
            "selected",
            "augmented",
            gated,
            alpha,
            lambda m: m.accepted,
        ),
        _compare(
            "C",
            "recovery",
            _only(runs, "recovery"),
            "selected",
            "recovery",
            gated,
            alpha,
            lambda m: m.recovered,
        ),
    ]
    table = {
        name: {
            k: summary[k]
            for k in (
                "acceptance",
                "recovery",
                "recovery_unseen_kinds",
                "retention",
                "fabricated_observation_rate",
                "runaway_rate",
                "sfa",
                "pre",
            )
        }
        for name, summary in summaries.items()
    }
    return {
        **head,
        "seeds": seeds,
        "steps": settings.steps,
        "batch": settings.examples_per_step,
        "max_new_tokens": budget[0],
        "max_generated_tokens": budget[1],
        "workers": workers,
        "threads": threads,
        "timings": dict(sorted(timings.items())),
        "gate": gate,
        "gated_seeds": gated,
        "not_resolved_seeds": [s for s in range(seeds) if s not in gated],
        "bonferroni_alpha": alpha,
        "variants": table,
        "comparisons": comparisons,
        "seconds": round(time.monotonic() - started, 1),
    }


def _mean_tokens(table) -> float:
    lengths = [len(ids) for ids in table.column("input_ids").to_pylist()]
    return sum(lengths) / len(lengths)


def _only(runs: dict, suite: str, regime: str | None = None) -> dict:
    return {
        key: [m for m in ms if m.suite == suite and (regime is None or m.regime == regime)]
        for key, ms in runs.items()
    }


def _print_variants(variants: dict[str, dict]) -> None:
    """Per variant and seed, the headline measures side by side (n/a = no denominator)."""
    columns = (
        "acceptance",
        "recovery",
        "recovery_unseen_kinds",
        "retention",
        "fabricated_observation_rate",
        "runaway_rate",
    )
    print(
        f"{'variant-seed':<22}" + "".join(f"{c[:14]:>16}" for c in columns) + f"{'PRE renamed':>14}",
        file=sys.stderr,
    )
    for name, row in sorted(variants.items()):
        cells = "".join(f"{row[c]:>16.3f}" if row[c] is not None else f"{'n/a':>16}" for c in columns)
        pre = row["pre"].get("renamed")
        print(f"{name:<22}{cells}{'n/a' if pre is None else f'{pre:.3f}':>14}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    tier = parser.add_mutually_exclusive_group(required=True)
    tier.add_argument("--quick", action="store_true")
    tier.add_argument("--full", action="store_true")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per variant (the pilot's minimum)")
    parser.add_argument(
        "--steps", type=int, default=None, help="steps per run (default: the most that fit the budget)"
    )
    parser.add_argument("--batch", type=int, default=8, help="examples per step")
    parser.add_argument(
        "--workers", type=int, default=2, help="runs side by side (--full; the budget assumes 2 cores)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads per run")
    parser.add_argument("--budget-minutes", type=float, default=45.0)
    parser.add_argument("--allow-over-budget", action="store_true", help="warn instead of refusing")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--episodes", type=int, default=24, help="acceptance trials per variant and seed")
    parser.add_argument(
        "--gate", type=float, default=0.15, help="competence gate on the reference's acceptance"
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--device", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ablations-"))
    if args.quick:
        result = quick(workdir)
    else:
        settings = TrainSettings(examples_per_step=args.batch, learning_rate=args.lr, device=args.device)
        budget = (args.budget_minutes, args.allow_over_budget, args.workers, args.threads)
        result = full(workdir, args.seeds, args.steps, settings, args.gate, args.episodes, *budget)
        if "variants" in result:
            _print_variants(result["variants"])
            for row in result["comparisons"]:
                print(json.dumps(row, default=str), file=sys.stderr)
    print(json.dumps(result, sort_keys=True, default=str))
    return 0 if result.get("ok", True) else 1


if __name__ == "__main__":
    sys.exit(main())
