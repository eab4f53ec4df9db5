"""Proof of value on the gym's learnable family (issue 9 item 8): paired ablations, closed loop.

``--quick`` (CI, a couple of minutes): mechanics only, never which variant wins. Scripted policies
with exactly predictable scores go through the real evaluator (expert 100% acceptance; stale-key
stub PRE 100% and SFA 0 on renamed schemas; fabricating stub 100% fabrication; never-recovering
stub 0% recovery; no-end-token stub 100% runaway), then a seconds-long training run must lower its
loss and reproduce itself bit for bit.

``--full``: three learnable families train on ``--tasks`` generated tasks (the learning curve's
data, cached), the fourth is held out; each variant is trained with the same data budget, steps,
seeds and recipe (the curve's: shared prefix, a context warm-up over ``--preamble-warmup-share`` of
the steps), then evaluated closed loop on the same held-out items and seeds. Before any variant
trains, one calibration per distinct training cost (the reference, the all-token loop, renamed
copies, the recovery corpus) measures seconds per step (at ``--batch``, ``--threads``, side by side
as the runs will be) and a bound on a run's evaluation on this machine; the plan reads the mean step
time over the variants, the steps are derived from ``--budget-minutes`` under the evaluation bound
(or, given with ``--steps``, checked against it), the estimate is printed as a range (runs packed
without evaluation, to whole rounds with every evaluation at its bound), a plan whose lower bound
is over budget is refused unless ``--allow-over-budget``, one between the bounds goes on with a
caution;
``--plan-only`` stops after the plan (minutes, not hours).

The reference (selected-target masks on pristine episodes) starts first, on every seed. A seed
counts only if its reference reaches the competence gate: acceptance on the familiar-schema
held-out items >= ``--gate`` (what every variant trains for; the renamed items measure (B)). As
each seed passes, its other variants queue, the costliest first (``ablation.schedule``). If no
seed passes, the run stops there with a report of each seed's figure and what to raise, and exits
1; otherwise it compares over the seeds that passed:

- (A) selected-target masks vs all-token loss, plus the compute-matched control (all-token loss
  reweighted so the actions keep the masked objective's weight): acceptance, fabrication;
- (B) schema augmentation (renamed copies) vs none: SFA and PRE on renamed schemas (``alias``);
- (C) recovery-augmented mixture (β of target tokens near 0.27) vs pristine-only: recovery on
  fault-injected held-out tasks, split into fault kinds the corpus showed and kinds it never did.

Each comparison is a paired score interval (Tango; McNemar score p) over (gated seed, item) at a
Bonferroni-corrected level (alpha / 3).

One claim again, planned before it runs: ``--full --claims C --first-seed 10 --seeds 10`` trains only
the reference and the recovery variant on fresh seeds, and reads (C) as its own test at alpha 0.05
(the family is the claims the run tests); ``--recovery-episodes`` draws more fault-injected trials
per seed than the default half of ``--episodes``, as many as the held-out pool has focus tasks.

More seeds without redoing the first ones: ``--full --first-seed 3`` runs seeds 3, 4, 5 (a
replication), and ``--pool A.json B.json`` reads results of one recipe on disjoint seeds as one
experiment (each comparison's 2x2 tables summed, its interval recomputed: what one run over every
seed would report; ``ablation.compare.pool``).

The steps live in the ``ablation`` package beside this script (calibrate, plan, run, compare);
this file only strings them together and prints.

Usage: ``.venv/bin/python benchmarks/ablations.py --quick`` or
``--full [--claims ABC] [--seeds 3] [--first-seed 0] [--recovery-episodes N] [--batch 8] [--threads 1]
[--budget-minutes 90] [--steps N] [--tasks 4000] [--plan-only]`` or ``--pool RESULT RESULT [...]``.
The last stdout line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import torch
from ablation.calibrate import (
    calibrated,
    evaluation_sample,
    mean_step_seconds,
    measure_costs,
    smoke_training,
    stub_deviations,
    stub_mechanics,
)
from ablation.compare import (
    REFERENCE,
    SUMMARY_COLUMNS,
    Runs,
    claim_variants,
    competence,
    familiar_acceptance,
    pool,
    reaches_gate,
    read_ablation,
)
from ablation.corpus import (
    declared_keys,
    expert_table,
    learnable_split,
    mean_tokens,
    training_fixtures,
)
from ablation.plan import BudgetPlan, plan_budget
from ablation.run import VARIANTS, VariantSettings, run_variant, worker_pool
from ablation.schedule import Key, RunQueue, costliest_first, drain

from trajectory_platform.evaluation.budget import evaluation_budget
from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.evaluation.harness import build_items
from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.library import LEARN_KINDS
from trajectory_platform.training.optim.model import build_default_model

STOPPED_EARLY = (
    "stopped early: no seed's reference reached the competence gate, so no variant is trained and "
    "nothing is compared. The reference did not learn the familiar-schema held-out tasks at this "
    "budget: raise --steps (the learning curve needs about 3,000 steps at batch 8 with a 2,000-step "
    "context warm-up, benchmarks/results/learning_curve_make_run_2026-12-02.json), --tasks, or run "
    "with --device cuda where a GPU is lent."
)


def quick(workdir: Path) -> dict[str, Any]:
    """Mechanics: stubs measure exactly what they must; a smoke run learns and reproduces itself."""
    started = time.monotonic()
    rows = stub_deviations(stub_mechanics())
    failures = [f"{name} {key}: expected {want}, got {got}" for name, key, want, got in rows if got != want]
    print(f"{'stub':<18}{'measure':<32}{'expected':>10}{'measured':>10}", file=sys.stderr)
    for name, key, want, got in rows:
        print(f"{name:<18}{key:<32}{want:>10.2f}{got:>10.2f}", file=sys.stderr)
    first, second = smoke_training(workdir, workdir / "smoke", steps=6, tasks=6)["runs"]
    losses = first["losses"]
    if not (losses[-1] < losses[0] and first == second):
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
        "stubs": {name: {key: got for n, key, _, got in rows if n == name} for name, *_ in rows},
        "smoke": {"loss_first": losses[0], "loss_last": losses[-1], "deterministic": first == second},
        "seconds": round(time.monotonic() - started, 1),
    }


def _print_plan(plan: BudgetPlan, settings: VariantSettings, threads: int, tokens: dict[str, float]) -> None:
    print(
        f"budget plan: {plan.runs} runs on {plan.workers} workers x {threads} threads, each "
        f"{plan.steps} steps x {plan.seconds_per_step:.3f} s at batch {settings.examples_per_step} + "
        f"{plan.outside_seconds_per_run:.0f} s I/O + at most {plan.evaluation_seconds_per_run:.0f} s "
        f"evaluation, + {plan.setup_seconds:.0f} s setup = {plan.training_seconds / 60:.1f} min "
        f"(packed, no evaluation) to {plan.projected_seconds / 60:.1f} min ({plan.rounds} whole "
        f"rounds, every evaluation at its bound); budget {plan.budget_seconds / 60:g} min, which "
        f"fits {plan.fitting_steps} steps under the bound; mean tokens per "
        "example " + ", ".join(f"{k} {v:.0f}" for k, v in tokens.items()),
        file=sys.stderr,
    )


def full(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Calibrate, plan, train every seed's reference and, as each passes the gate, its seed's
    other variants on a worker pool, then compare. The calibration and the runs share the pool:
    each spawned worker imports torch and the package (seconds of CPU) once, not once per pool."""
    with worker_pool(args.workers) as executor:
        return _full(args, workdir, executor)


def _full(args: argparse.Namespace, workdir: Path, executor: Executor) -> dict[str, Any]:
    """:func:`full` on ``executor``'s workers."""
    started = time.monotonic()
    seeds = tuple(range(args.first_seed, args.first_seed + args.seeds))
    variants = tuple(v for v in VARIANTS if v in claim_variants(args.claims))
    settings = VariantSettings(
        steps=args.steps or VariantSettings.steps,  # the plan sets it when undeclared
        examples_per_step=args.batch,
        learning_rate=args.lr,
        device=args.device,
        preamble_warmup_share=args.preamble_warmup_share,
    )
    base = build_default_model(workdir)
    _, pool = learnable_split()
    train = training_fixtures(args.tasks, 0, tuple(sorted(set(LEARN_KINDS))))
    spec = SuiteSpec(
        episodes=args.episodes,
        recovery_episodes=args.episodes // 2 if args.recovery_episodes is None else args.recovery_episodes,
        retention_episodes=args.episodes // 4,
        retention_kinds=("count_files",),
    )
    items = build_items(pool, spec)
    tables = {
        "selected": expert_table(workdir, base, train, 0),
        "augmented": expert_table(workdir, base, train, 0, augment=True),
        "recovery": expert_table(workdir, base, train, 0, recovery_share=0.35),
    }
    # Every variant's data sets the token budget, so a run of some claims evaluates as a whole one.
    budget = evaluation_budget(list(tables.values()))
    # Ablation A's variants train on the selected table: each step builds its all-token labels
    # (ablation.run.train_all_token), so the context warm-up cuts the same preamble for every variant.
    tables["all_token"] = tables["compute_matched"] = tables["selected"]
    # One calibration per distinct training cost, side by side as the runs will be (contention).
    measured = calibrated(variants)
    jobs = {
        v: executor.submit(
            measure_costs,
            i,
            v,
            tables[v],
            *evaluation_sample(items, v, measured[0]),
            workdir,
            settings,
            budget,
            args.threads,
        )
        for i, v in enumerate(measured)
    }
    costs = {v: job.result() for v, job in jobs.items()}
    step_by_variant = {v: cost.step_seconds for v, cost in costs.items()}
    plan = plan_budget(
        mean_step_seconds(step_by_variant, variants),
        max(cost.outside_seconds for cost in costs.values()),
        max(cost.evaluation_seconds for cost in costs.values()),
        time.monotonic() - started,
        args.seeds * len(variants),
        args.budget_minutes * 60,
        args.steps,
        workers=args.workers,
    )
    tokens = {name: mean_tokens(tables[name]) for name in ("selected", "augmented", "recovery")}
    _print_plan(plan, settings, args.threads, tokens)
    print(
        "seconds per step by variant: " + ", ".join(f"{v} {s:.3f}" for v, s in step_by_variant.items()),
        file=sys.stderr,
    )
    head = {
        "tier": "full",
        "plan": {**plan.to_dict(), "seconds_per_step_by_variant": step_by_variant},
        "mean_tokens_per_example": tokens,
        "tasks": len(train),
    }
    problem = plan.problem(steps_declared=args.steps is not None)
    if problem is None and (caution := plan.caution()):
        print(f"caution: {caution}", file=sys.stderr)
    if problem and not args.allow_over_budget:
        print(
            f"refused: {problem}; raise --budget-minutes, lower --steps/--seeds/--episodes, "
            "or pass --allow-over-budget",
            file=sys.stderr,
        )
        return {**head, "ok": False, "refused": problem}
    if problem:
        print(f"warning: {problem}; going on (--allow-over-budget)", file=sys.stderr)
    if args.plan_only:
        return {**head, "ok": problem is None, "plan_only": True}
    settings = replace(settings, steps=plan.steps)
    recipe = {
        "seeds": args.seeds,
        "first_seed": args.first_seed,
        "steps": settings.steps,
        "preamble_warmup_steps": settings.preamble_warmup_steps,
        "batch": settings.examples_per_step,
        "lr": settings.learning_rate,
        "episodes": args.episodes,
        "recovery_episodes": spec.recovery_episodes,
        "claims": args.claims,
        "max_new_tokens": budget[0],
        "max_generated_tokens": budget[1],
        "workers": args.workers,
        "threads": args.threads,
    }
    others = [v for v in variants if v != REFERENCE]
    queue = RunQueue(seeds, REFERENCE, costliest_first(step_by_variant, others))
    runs, timings = _train_gated(
        queue,
        args,
        started,
        executor,
        lambda key: (*key, tables[key[0]], items, workdir, settings, budget, args.threads),
    )
    gate = competence(runs, seeds, args.gate)
    if not gate["gated_seeds"]:
        print(STOPPED_EARLY, file=sys.stderr)
        return {
            **head,
            **recipe,
            **gate,
            "ok": False,
            "stopped_early": STOPPED_EARLY,
            "timings": dict(sorted(timings.items())),
            "seconds": round(time.monotonic() - started, 1),
        }
    return {
        **head,
        **recipe,
        "timings": dict(sorted(timings.items())),
        **read_ablation(runs, seeds, args.gate, {v: declared_keys(tables[v]) for v in variants}, args.claims),
        "seconds": round(time.monotonic() - started, 1),
    }


def _train_gated(
    queue: RunQueue,
    args: argparse.Namespace,
    started: float,
    executor: Executor,
    run_args: Callable[[Key], tuple[Any, ...]],
) -> tuple[Runs, dict[str, dict[str, float]]]:
    """Every run ``queue`` releases (``run_variant(*run_args(key))``) on ``executor`` (``args.workers``
    workers); each reference's gate verdict is printed as it lands and queues its seed's other
    variants (:mod:`ablation.schedule`)."""
    runs: Runs = {}
    timings: dict[str, dict[str, float]] = {}

    def finished(key: Key, result: tuple[list[EpisodeMeasure], dict[str, float]]) -> None:
        variant, seed = key
        runs[key], timings[f"{variant}-{seed}"] = result
        timing = timings[f"{variant}-{seed}"]
        print(
            f"{variant}-{seed}: train {timing['train_s']} s, evaluate {timing['eval_s']} s"
            f"{' (reused from an earlier run)' if timing.get('reused') else ''}, "
            f"elapsed {(time.monotonic() - started) / 60:.1f} min",
            file=sys.stderr,
        )
        if variant == REFERENCE:
            rate = familiar_acceptance(runs[key])
            passed = reaches_gate(rate, args.gate)
            print(
                f"competence gate: {REFERENCE}-{seed} accepts {rate:.3f} of the familiar-schema "
                f"held-out items, {'passes' if passed else 'misses'} the gate {args.gate:.3f}",
                file=sys.stderr,
            )
            queue.reference_finished(seed, passed)

    drain(queue, args.workers, lambda key: executor.submit(run_variant, *run_args(key)), finished)
    return runs, timings


def _print_variants(variants: dict[str, dict]) -> None:
    """Per variant and seed, the headline measures side by side (n/a = no denominator)."""
    columns = tuple(c for c in SUMMARY_COLUMNS if c not in ("sfa", "pre"))  # per regime: PRE below
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
    tier.add_argument(
        "--pool",
        nargs="+",
        type=Path,
        metavar="RESULT",
        help="read --full result JSON files of one recipe on disjoint seeds as one experiment",
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds per variant (the pilot's minimum)")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="seeds run from this one up (--full): new seeds replicate an earlier result, --pool adds them",
    )
    parser.add_argument(
        "--steps", type=int, default=None, help="steps per run (default: the most that fit the budget)"
    )
    parser.add_argument("--batch", type=int, default=8, help="examples per step")
    parser.add_argument(
        "--workers", type=int, default=2, help="runs side by side (--full; the budget assumes 2 cores)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads per run")
    parser.add_argument("--budget-minutes", type=float, default=90.0)
    parser.add_argument(
        "--tasks", type=int, default=4000, help="distinct generated training tasks (--full; cached)"
    )
    parser.add_argument(
        "--preamble-warmup-share",
        type=float,
        default=2 / 3,
        help="share of the steps trained without the tool block and system prompt first (the curve's recipe)",
    )
    parser.add_argument("--allow-over-budget", action="store_true", help="warn instead of refusing")
    parser.add_argument(
        "--plan-only", action="store_true", help="calibrate, print the plan and stop (--full; nothing trains)"
    )
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--episodes", type=int, default=48, help="acceptance trials per variant and seed")
    parser.add_argument(
        "--recovery-episodes",
        type=int,
        default=None,
        help="fault-injected trials per variant and seed (default: half of --episodes)",
    )
    parser.add_argument(
        "--claims",
        default="ABC",
        help="the claims to test (--full), e.g. C: only their variants train, and alpha is 0.05 over them",
    )
    parser.add_argument(
        "--gate", type=float, default=0.15, help="the reference's familiar-schema acceptance a seed needs"
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--device", default=None)
    args = parser.parse_args(argv)
    if args.first_seed < 0:
        parser.error("--first-seed: a seed is a non-negative integer")
    try:
        claim_variants(args.claims)
    except ValueError as error:
        parser.error(f"--claims: {error}")
    args.claims = "".join(sorted(set(args.claims)))  # one Bonferroni family however it was spelled
    if args.pool:
        try:
            result = pool([_read_result(path) for path in args.pool])
        except ValueError as error:
            parser.error(f"--pool: {error}")
        _print_comparisons(result)
        print(json.dumps(result, sort_keys=True, default=str))
        return 0
    torch.set_num_threads(args.threads)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ablations-"))
    if args.quick:
        result = quick(workdir)
    else:
        result = full(args, workdir)
        _print_comparisons(result)
    print(json.dumps(result, sort_keys=True, default=str))
    return 0 if result.get("ok", True) else 1


def _read_result(path: Path) -> dict[str, Any]:
    """One result JSON file (the last line of ``--full``'s output, or a committed result)."""
    try:
        return cast(dict[str, Any], json.loads(path.read_text()))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a readable result JSON ({error})") from error


def _print_comparisons(result: dict[str, Any]) -> None:
    """The variant table (when the result has one) and each comparison, for a person to read."""
    if "variants" in result:
        _print_variants(result["variants"])
        for row in result["comparisons"]:
            print(json.dumps(row, default=str), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
