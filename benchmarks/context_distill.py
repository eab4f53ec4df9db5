"""Context distillation against a compute-matched control (issue 19 item 3, fine-tuning 16.9.1).

From a round-0 checkpoint of the rounds benchmark (trained here per seed as ``rounds.round_zero``
does, or ``--checkpoint DIR`` once per seed), per seed:

1. **The gap.** Held-out acceptance of the checkpoint under the short prompt (the one it was trained
   and is served with) and under the long procedural prompt (``gym.prompts.long_prompt``: the short one
   plus a checklist), on the same items and seeds, so the two are paired. Distillation can only
   close a gap the long prompt opens; a checkpoint trained from scratch on short-prompt episodes may
   not read the checklist at all, so this is measured and reported before anything else.
2. **The teacher.** The checkpoint samples ``attempts`` per training task under the long prompt
   (``distill.prompted_sampler``), the full cascade judges, and the admitted trajectories are
   rewritten to the short prompt and judged again (``distill.context_distill``).
3. **Student and control.** The student trains ``round_steps`` from the checkpoint on the round-0
   corpus plus the distilled records (``mix.next_mix``: dedup by action sequence, per-task cap; the
   corpus stays as anchors, as in ``rounds.py``); the control trains the same steps from the same
   checkpoint on the round-0 corpus only, so a gain is not just more compute.
4. **Measured.** Both under the short prompt on the held-out items; paired comparisons
   (``evaluation.stats.paired_comparison``, score and paired bootstrap intervals) pooled over (seed,
   item) of the student against round 0 and against the control, and the fraction of the gap
   closed (:func:`gap_closed`).

Usage: ``.venv/bin/python benchmarks/context_distill.py [--quick] [--seeds 1] [--workers 2]
[--checkpoint DIR ...] [--out FILE]``. An estimate prints first; a summary goes to stderr, the JSON
to stdout (and ``--out``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import as_completed
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import torch
from ablation.corpus import compact_tool
from ablation.run import EVALUATION_TURNS, worker_pool
from rounds import (
    QUICK,
    BenchSettings,
    arm_results,
    checkpoint_sampler,
    corpus_candidates,
    emit,
    eval_items,
    held_out,
    mix_table,
    paired,
    paired_text,
    round_tasks,
    round_zero,
    train,
)

from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.evaluation.harness import EvalItem, evaluation_runtime, run_arm
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policy import Policy, PolicyInput, PolicyTurn
from trajectory_platform.gym.prompts import long_prompt
from trajectory_platform.rounds.distill import context_distill, prompted_sampler
from trajectory_platform.rounds.mix import next_mix, source_token_shares
from trajectory_platform.rounds.sampling import sample_round
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.model import build_default_model

ARMS = ("student", "control")
DEFAULT = replace(BenchSettings(), seeds=1, rounds=1)
"""One seed in about half an hour on a loaded 2-core machine with round 0 trained here (see
:func:`estimate`); with ``--checkpoint`` the round-0 training drops out."""
SMOKE = replace(QUICK, rounds=1)


class UnderPrompt(Policy):
    """``base`` shown ``system_prompt`` in place of the delivered system message: how the held-out
    harness, which runs every trial under the short prompt, measures a checkpoint under the long
    one. Only the model's input changes; the trial's log keeps the harness's prompt."""

    def __init__(self, base: Policy, system_prompt: str):
        self.base, self.system_prompt = base, system_prompt
        self.name = f"{base.name}+prompt"

    def start(self, fixture: Fixture, seed: int) -> None:
        self.base.start(fixture, seed)

    def act(self, inp: PolicyInput) -> PolicyTurn:
        messages = [
            replace(event, content=self.system_prompt) if event.kind == "system" else event
            for event in inp.messages
        ]
        return self.base.act(replace(inp, messages=messages))

    def sampling_params(self) -> dict:
        return self.base.sampling_params()

    def describe(self) -> dict:
        return {"policy": "under-prompt", "base": self.base.describe(), "system_prompt": self.system_prompt}


def held_out_under(
    path: Path, items: list[EvalItem], seed: int, budget: tuple[int, int], system_prompt: str
) -> list[bool]:
    """``rounds.held_out`` with the checkpoint shown ``system_prompt``: same items, seeds, decoding
    and budget, so the outcomes pair with the short-prompt ones item by item."""
    policy = ModelPolicy(path, decoding=Decoding(max_new_tokens=budget[0], seed=seed), tool_view=compact_tool)
    runtime = evaluation_runtime(max_steps=EVALUATION_TURNS, max_generated_tokens=budget[1])
    arm = run_arm(path.name, UnderPrompt(policy, system_prompt), items, runtime, progress=False)
    return [m.accepted for m in arm.measures]


def schedule(s: BenchSettings) -> dict[str, dict[str, Any]]:
    """What each arm trains on, from the same round-0 checkpoint for the same steps: the arms differ
    only in the distilled records, so the comparison is compute-matched."""
    return {
        "student": {"steps": s.round_steps, "data": "round-0 corpus + context-distilled records"},
        "control": {"steps": s.round_steps, "data": "round-0 corpus only"},
    }


def estimate(
    s: BenchSettings, workers: int, step_s: float, episode_s: float, trained_here: bool
) -> dict[str, Any]:
    """Projected wall time (seconds per step and per episode as measured under load): round 0 per
    seed (when trained here), then per seed a student job (long-prompt evaluation, the teacher's
    samples, training, evaluation) beside a control job (training, evaluation)."""
    evals = s.items + s.items // 4
    round0 = (s.base_steps * step_s if trained_here else 0) + evals * episode_s
    student = (
        evals * episode_s + s.tasks * s.attempts * episode_s + s.round_steps * step_s + evals * episode_s
    )
    control = s.round_steps * step_s + evals * episode_s
    zero = sorted([round0] * s.seeds, reverse=True)
    jobs = sorted([student, control] * s.seeds, reverse=True)
    seconds = sum(zero[::workers]) + sum(jobs[::workers])
    return {"step_s": step_s, "episode_s": episode_s, "workers": workers, "minutes": round(seconds / 60, 1)}


def rate(outcomes: list[bool]) -> float:
    return sum(outcomes) / len(outcomes) if outcomes else 0.0


def gap_closed(short: float, long: float, student: float) -> float | None:
    """The fraction of the long prompt's gain the short-prompt student recovers:
    (student - short) / (long - short). None when the long prompt opens no gap (it does not beat
    the short prompt): there is then nothing to close, and a ratio would only amplify noise."""
    gap = long - short
    return None if gap <= 0 else (student - short) / gap


def _context(seed: int, s: BenchSettings, home: Path, budget: tuple[int, int]) -> dict[str, Any]:
    return {
        "tasks": round_tasks(seed, s.tasks),
        "runtime": evaluation_runtime(EVALUATION_TURNS, budget[1]),
        "cascade": CascadeConfig(progress=False, workers=1, calibration_cache=home / "calibration"),
    }


def run_student(seed: int, s: BenchSettings, workdir: Path, zero: dict[str, Any]) -> dict[str, Any]:
    """The long-prompt evaluation, the teacher's samples, their distillation, the student's training
    and its short-prompt evaluation: one pool job."""
    torch.set_num_threads(1)
    started = time.monotonic()
    home = workdir / f"seed{seed}" / "student"
    ckpt, budget = Path(zero["checkpoint"]), (zero["budget"][0], zero["budget"][1])
    items, prompt = eval_items(s), long_prompt()
    long_outcomes = held_out_under(ckpt, items, seed, budget, prompt)
    ctx = _context(seed, s, home, budget)
    teacher = prompted_sampler(checkpoint_sampler(ckpt, seed, budget, s), prompt)
    settings = s.round_settings(seed)
    sample = sample_round(teacher, ctx["tasks"], 1, settings, runtime=ctx["runtime"], cascade=ctx["cascade"])
    distilled = context_distill(sample.admitted, ctx["tasks"], cascade=ctx["cascade"])
    mixed = next_mix(corpus_candidates(seed), distilled, 1, settings)
    tally = mixed.tally()
    table = mix_table(mixed.kept, load_tokenizer(ckpt))
    out = train(table, ckpt, home / "round1", workdir, s.round_steps, seed * 100 + 1, s)
    return {
        "long_prompt_held_out": long_outcomes,
        "teacher": sample.summary(),
        "admitted": len(sample.admitted),
        "distilled": len(distilled),
        "joined_mix": len({c.episode_id for c in distilled} & {c.episode_id for c in mixed.kept}),
        "mix": {"in": tally.records_in, "kept": tally.kept, "dropped": dict(sorted(tally.dropped.items()))},
        "source_token_shares": {k: round(v, 4) for k, v in source_token_shares(mixed.kept).items()},
        "held_out": held_out(out, items, seed, budget),
        "seconds": round(time.monotonic() - started, 1),
    }


def run_control(seed: int, s: BenchSettings, workdir: Path, zero: dict[str, Any]) -> dict[str, Any]:
    """The same steps from the same checkpoint on the round-0 corpus only: one pool job."""
    torch.set_num_threads(1)
    started = time.monotonic()
    ckpt, budget = Path(zero["checkpoint"]), (zero["budget"][0], zero["budget"][1])
    table = mix_table(corpus_candidates(seed), load_tokenizer(ckpt))
    out = train(
        table, ckpt, workdir / f"seed{seed}" / "control" / "round1", workdir, s.round_steps, seed * 100 + 1, s
    )
    return {
        "held_out": held_out(out, eval_items(s), seed, budget),
        "seconds": round(time.monotonic() - started, 1),
    }


def comparisons(outcomes: dict[str, dict[int, list[bool]]]) -> list[dict[str, Any]]:
    """Paired intervals pooled over (seed, item): the long prompt against the short (the gap), the
    student against round 0 and against the control, all under the short prompt but the first."""
    seeds = sorted(outcomes["round0"])

    def pooled(name: str) -> list[bool]:
        return [x for seed in seeds for x in outcomes[name][seed]]

    return [
        {"candidate": candidate, "against": against, **paired(pooled(candidate), pooled(against))}
        for candidate, against in (("long_prompt", "round0"), ("student", "round0"), ("student", "control"))
    ]


def assemble(
    s: BenchSettings,
    plan: dict[str, Any],
    zero: dict[int, dict[str, Any]],
    runs: dict[tuple[str, int], dict[str, Any]],
) -> dict[str, Any]:
    """The result JSON: settings, schedule, per-seed runs, the comparisons and the gap closed."""
    outcomes = {
        "round0": {seed: z["held_out"] for seed, z in zero.items()},
        "long_prompt": {seed: runs[("student", seed)]["long_prompt_held_out"] for seed in zero},
        "student": {seed: runs[("student", seed)]["held_out"] for seed in zero},
        "control": {seed: runs[("control", seed)]["held_out"] for seed in zero},
    }
    rates = {
        name: rate([x for seed in sorted(per_seed) for x in per_seed[seed]])
        for name, per_seed in outcomes.items()
    }
    return {
        "settings": asdict(s),
        "estimate": plan,
        "schedule": schedule(s),
        "round0": {str(seed): z for seed, z in sorted(zero.items())},
        "runs": {f"{arm}-{seed}": run for (arm, seed), run in sorted(runs.items())},
        "acceptance": rates,
        "gap": rates["long_prompt"] - rates["round0"],
        "gap_closed": {
            "over_round0": gap_closed(rates["round0"], rates["long_prompt"], rates["student"]),
            "over_control": gap_closed(rates["control"], rates["long_prompt"], rates["student"]),
        },
        "comparisons": comparisons(outcomes),
    }


def summary_lines(result: dict[str, Any]) -> list[str]:
    """One screen: acceptance per arm, the gap, the records distilled, the comparisons."""
    acc = result["acceptance"]
    lines = [
        f"held-out acceptance: round0 short {acc['round0']:.3f}, round0 long {acc['long_prompt']:.3f} "
        f"(gap {result['gap']:+.3f}), student {acc['student']:.3f}, control {acc['control']:.3f}",
        f"gap closed: {result['gap_closed']}",
    ]
    for key, run in result["runs"].items():
        if key.startswith("student"):
            lines.append(
                f"{key}: admitted {run['admitted']}, distilled {run['distilled']}, joined mix "
                f"{run['joined_mix']}, token shares {run['source_token_shares']}"
            )
    for row in result["comparisons"]:
        lines.append(f"{row['candidate']} vs {row['against']}: {paired_text(row)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="a few-minute smoke run (mechanics only)")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2, help="processes side by side (one thread each)")
    parser.add_argument(
        "--checkpoint",
        type=Path,
        nargs="+",
        default=None,
        help="round-0 checkpoint per seed (skips training)",
    )
    parser.add_argument("--step-s", type=float, default=3.3, help="seconds per step assumed by the estimate")
    parser.add_argument(
        "--episode-s", type=float, default=2.0, help="seconds per episode assumed by the estimate"
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    s = SMOKE if args.quick else DEFAULT
    if args.seeds is not None:
        s = replace(s, seeds=args.seeds)
    if args.checkpoint is not None and len(args.checkpoint) != s.seeds:
        parser.error(f"--checkpoint needs one directory per seed ({s.seeds})")
    started = time.monotonic()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="context-distill-"))
    plan = estimate(s, args.workers, args.step_s, args.episode_s, trained_here=args.checkpoint is None)
    print(
        f"estimate: {plan['minutes']} min on {args.workers} workers ({s.seeds} seed(s), steps at "
        f"{args.step_s} s, episodes at {args.episode_s} s)",
        file=sys.stderr,
    )
    build_default_model(workdir)  # once, before the workers share the cache
    zero: dict[int, dict[str, Any]] = {}
    with worker_pool(args.workers) as pool:
        ckpts = args.checkpoint or [None] * s.seeds
        jobs = {pool.submit(round_zero, seed, s, workdir, ckpts[seed]): seed for seed in range(s.seeds)}
        for job in as_completed(jobs):
            zero[jobs[job]] = job.result()
            print(f"round 0 seed {jobs[job]}: ready, short prompt evaluated", file=sys.stderr)
        arm_jobs = {
            pool.submit(run_student if arm == "student" else run_control, seed, s, workdir, zero[seed]): (
                arm,
                seed,
            )
            for seed in range(s.seeds)
            for arm in ARMS
        }
        runs = arm_results(arm_jobs, started)
    result = {
        **assemble(s, plan, zero, runs),
        "quick": args.quick,
        "seconds": round(time.monotonic() - started),
    }
    emit(result, summary_lines(result), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
