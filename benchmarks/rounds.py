"""Rounds of the policy's own rollouts against a compute-matched control and DAgger (issue 19 item 6).

From a round-0 checkpoint trained on the learnable family's scripted-expert corpus (trained here per
seed, or ``--checkpoint DIR``), each arm runs ``--rounds`` rounds; every round trains the next
checkpoint from the previous one for the same ``--round-steps`` on the arm's mix:

- ``rounds``: the checkpoint samples k attempts on the training tasks whose P_inform lies in the band
  (estimated from the previous round's verified outcomes, or from a pilot when there are none), the
  full cascade admits, and ``next_mix`` (staleness R, action-sequence dedup, per-task cap) forms the
  next mix;
- ``control``: the same steps on the round-0 corpus only, so an improvement of ``rounds`` is not just
  more compute;
- ``dagger``: the checkpoint, mixed with the expert at beta_i, rolls out once per task; the expert
  labels the states it visited, only oracle-verified labels (``training_candidates``) join the mix.

The round-0 corpus stays in every mix as anchors: without them staleness (R rounds) would retire it
by round R+1 and the ``rounds`` arm would train on its own few admitted samples alone while the
control trains on the corpus, a difference of data size rather than of data source.

Each checkpoint is evaluated closed loop on held-out-family tasks (familiar schemas; the acceptance
suite plus ``count_files`` as retention), with the same items and seeds for every arm, so the
comparisons are paired: score and paired bootstrap intervals, McNemar score p (``evaluation.stats``) pooled
over (seed, item), against round 0 and against the control at the same round. Per round and arm the
JSON also holds admitted counts, the cascade's staged/monolithic ledger on the model's own samples,
DAgger's learner-state disagreement and the collapse watch's figures and verdict.

Usage: ``.venv/bin/python benchmarks/rounds.py [--quick] [--seeds 3] [--workers 2] [--out FILE]``.
An estimate prints first; a one-screen summary goes to stderr, the JSON to stdout (and ``--out``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import torch
from ablation.corpus import compact_tool, expert_corpus, learnable_split, masked_table
from ablation.run import evaluate, worker_pool

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.evaluation.budget import evaluation_budget
from trajectory_platform.evaluation.harness import EvalItem, build_items, evaluation_runtime
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding, SuiteSpec
from trajectory_platform.evaluation.stats import paired_comparison
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.rounds.collapse import RoundHealth, collapse_decision, round_health
from trajectory_platform.rounds.dagger import label_states, mixed_sampler, training_candidates
from trajectory_platform.rounds.mix import next_mix, source_token_shares
from trajectory_platform.rounds.model_sampler import model_sampler
from trajectory_platform.rounds.sampling import RoundSample, Sampler, sample_round
from trajectory_platform.rounds.selection import select_tasks, selected_fixtures
from trajectory_platform.rounds.settings import CollapseSettings, DaggerSettings, RoundSettings
from trajectory_platform.training.data.masked_dataset import EpisodeInput
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.model import build_default_model
from trajectory_platform.training.optim.runner import TrainRequest, run_training
from trajectory_platform.training.optim.settings import OptimizerSettings

ARMS = ("rounds", "control", "dagger")
EVALUATION_TURNS = 6


@dataclass(frozen=True)
class BenchSettings:
    """The benchmark's sizes (the default fits about an hour on 2 idle cores; see :func:`estimate`)."""

    seeds: int = 3
    rounds: int = 3
    base_steps: int = 200
    round_steps: int = 60
    batch: int = 8
    lr: float = 3e-3
    tasks: int = 24
    """training tasks a round considers (band selection picks among them; DAgger rolls out on all)"""
    attempts: int = 4
    pilot_attempts: int = 2
    band_low: float = 0.5
    staleness: int = 2
    temperature: float = 1.0
    states: int = 2
    beta0: float = 1.0
    beta_decay: float = 0.5
    items: int = 24
    """held-out acceptance trials (plus a quarter as many ``count_files`` retention trials)"""

    def round_settings(self, seed: int) -> RoundSettings:
        return RoundSettings(
            attempts=self.attempts, band_low=self.band_low, staleness_rounds=self.staleness, seed=seed
        )

    def dagger_settings(self) -> DaggerSettings:
        return DaggerSettings(states_per_trajectory=self.states, beta0=self.beta0, beta_decay=self.beta_decay)


QUICK = BenchSettings(
    seeds=1, base_steps=4, round_steps=2, tasks=3, attempts=2, pilot_attempts=1, states=1, items=4
)


def arm_schedule(settings: BenchSettings) -> dict[str, list[dict[str, Any]]]:
    """Per arm, what each round adds to the mix and how many steps it trains: every arm trains the
    same steps per round from its own previous checkpoint, so the arms differ only in their data."""
    adds = {
        "rounds": "the checkpoint's own admitted samples (band selection, k attempts)",
        "control": "nothing: round-0 corpus only",
        "dagger": "verified expert labels on states the learner visited",
    }
    return {
        arm: [
            {"round": r, "steps": settings.round_steps, "adds": adds[arm]}
            for r in range(1, settings.rounds + 1)
        ]
        for arm in ARMS
    }


def extra_steps(schedule: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    """Training steps past round 0 per arm (equal for a compute-matched schedule)."""
    return {arm: sum(row["steps"] for row in rows) for arm, rows in schedule.items()}


def estimate(
    settings: BenchSettings, workers: int, step_s: float, episode_s: float, setup_s: float
) -> dict[str, Any]:
    """Projected wall time: steps at ``step_s``, episodes (closed loop, sampled, labelled) at
    ``episode_s`` and ``setup_s`` per job (the expert corpus and its masking), seeds spread over
    ``workers`` processes (round 0 first, then each (seed, arm))."""
    evals = settings.items + settings.items // 4
    rounds_eps = (
        settings.tasks * settings.pilot_attempts + settings.rounds * settings.tasks * settings.attempts
    )
    dagger_eps = settings.rounds * settings.tasks * (1 + settings.states)
    per_arm = {
        "rounds": setup_s
        + settings.rounds * (settings.round_steps * step_s + evals * episode_s)
        + rounds_eps * episode_s,
        "control": setup_s + settings.rounds * (settings.round_steps * step_s + evals * episode_s),
        "dagger": setup_s
        + settings.rounds * (settings.round_steps * step_s + evals * episode_s)
        + dagger_eps * episode_s,
    }
    round0 = setup_s + settings.base_steps * step_s + evals * episode_s
    jobs = sorted([round0] * settings.seeds, reverse=True)
    waves0 = sum(jobs[::workers])
    arm_jobs = sorted([s for s in per_arm.values() for _ in range(settings.seeds)], reverse=True)
    waves = sum(arm_jobs[::workers])  # longest-first greedy, an upper-ish bound
    return {
        "step_s": step_s,
        "episode_s": episode_s,
        "setup_s": setup_s,
        "workers": workers,
        "minutes": round((waves0 + waves) / 60, 1),
        "steps_per_seed": settings.base_steps + len(ARMS) * settings.rounds * settings.round_steps,
    }


def eval_items(settings: BenchSettings) -> list[EvalItem]:
    """Held-out-family trials in the familiar tool families, identical for every arm and round."""
    _, pool = learnable_split()
    familiar = [(f, regime) for f, regime in pool if regime == "familiar"]
    spec = SuiteSpec(
        episodes=settings.items,
        recovery_episodes=0,
        retention_episodes=settings.items // 4,
        retention_kinds=("count_files",),
    )
    return build_items(familiar, spec)


def round_tasks(seed: int, count: int) -> list[Fixture]:
    """The training tasks rounds sample on: a seeded draw from the learnable training side."""
    train, _ = learnable_split()
    return random.Random(f"round-tasks:{seed}").sample(train, min(count, len(train)))


def anchors(inputs: Sequence[EpisodeInput]) -> list[Candidate]:
    """Expert episodes as admitted anchors: staleness never retires them (module docstring)."""
    return [Candidate(item.episode, sink="admitted", role=item.role, anchor=True) for item in inputs]


def corpus_candidates(seed: int) -> list[Candidate]:
    """The round-0 corpus: the scripted expert on the learnable family's training side."""
    train, _ = learnable_split()
    return anchors(expert_corpus(train, seed=seed))


def mix_table(mix: Sequence[Candidate], tokenizer: Any) -> pa.Table:
    """The mix as the trainer's masked table: each candidate with the target turns curation gave it."""
    inputs = [EpisodeInput(c.episode, c.target_turns, split="train", role=c.role) for c in mix]
    return masked_table(inputs, tokenizer)


def train(
    table: pa.Table, start: Path, out: Path, workdir: Path, steps: int, seed: int, s: BenchSettings
) -> Path:
    """``steps`` steps from the checkpoint ``start`` on ``table`` with the platform's runner."""
    request = TrainRequest(
        out=out,
        model_path=start,
        workdir=workdir,
        max_steps=steps,
        examples_per_step=s.batch,
        optimizer=OptimizerSettings(learning_rate=s.lr),
        seed=seed,
        eval_every=max(1, steps),
        threads=1,
    )
    run_training(request, table, source_name=f"rounds:{out.name}")
    return out


def held_out(path: Path, items: list[EvalItem], seed: int, budget: tuple[int, int]) -> list[bool]:
    """Closed-loop outcomes of ``path`` on ``items`` (in item order: paired across arms)."""
    return [m.accepted for m in evaluate(path, items, seed, None, budget)]


def checkpoint_sampler(path: Path, seed: int, budget: tuple[int, int], s: BenchSettings) -> Sampler:
    """The checkpoint sampling (k attempts must differ) with the tool view it was trained on."""
    decoding = Decoding(max_new_tokens=budget[0], do_sample=True, temperature=s.temperature, seed=seed)
    return model_sampler(ModelPolicy(path, decoding=decoding, tool_view=compact_tool))


def round_zero(seed: int, s: BenchSettings, workdir: Path, checkpoint: Path | None) -> dict[str, Any]:
    """Train (or take) the round-0 checkpoint of ``seed`` and evaluate it: one pool job."""
    torch.set_num_threads(1)
    tick = time.monotonic()
    base = build_default_model(workdir)
    tokenizer = load_tokenizer(base)
    table = mix_table(corpus_candidates(seed), tokenizer)
    out = checkpoint or train(table, base, workdir / f"seed{seed}" / "round0", workdir, s.base_steps, seed, s)
    trained = time.monotonic()
    budget = evaluation_budget([table])
    outcomes = held_out(out, eval_items(s), seed, budget)
    return {
        "checkpoint": str(out),
        "budget": list(budget),
        "examples": table.num_rows,
        "held_out": outcomes,
        "train_s": round(trained - tick, 1),
        "eval_s": round(time.monotonic() - trained, 1),
    }


def _health(sample: RoundSample, heldout: float) -> RoundHealth:
    return round_health(sample, {"acceptance": {"candidate": heldout}})


def latest_outcomes(
    history: dict[str, list[Candidate]], fresh: Sequence[Candidate]
) -> dict[str, list[Candidate]]:
    """Each task's most recent verified attempts: a task sampled again replaces its older estimate,
    the others keep theirs (as ``run_round`` estimates from every earlier verified outcome)."""
    updated = dict(history)
    for fixture_id in {c.fixture_id or "" for c in fresh}:
        updated[fixture_id] = [c for c in fresh if (c.fixture_id or "") == fixture_id]
    return updated


def _sample_rounds_arm(
    ckpt: Path, r: int, history: dict[str, list[Candidate]], seed: int, s: BenchSettings, ctx: dict[str, Any]
) -> tuple[list[Candidate], RoundSample | None, dict[str, Any], dict[str, list[Candidate]]]:
    """Round ``r`` of the ``rounds`` arm: band selection (after a pilot when ``history`` is empty),
    k attempts on the chosen tasks, judged. Returns (admitted, sample, report, history for the
    next round: empty when no task was in the band, so the next checkpoint is piloted afresh)."""
    settings = s.round_settings(seed)
    sampler = checkpoint_sampler(ckpt, seed, ctx["budget"], s)
    report: dict[str, Any] = {}
    if not history:
        # selection.pilot_estimates, but under the evaluation runtime: its default budget (40 turns,
        # 12,000 tokens) lets a runaway checkpoint cost minutes per attempt.
        pilot = sample_round(
            sampler,
            ctx["tasks"],
            r,
            replace(settings, attempts=s.pilot_attempts),
            runtime=ctx["runtime"],
            cascade=ctx["cascade"],
        )
        history = latest_outcomes({}, pilot.candidates)
        report["pilot"] = pilot.summary()
    choices = select_tasks([c for outcomes in history.values() for c in outcomes], settings)
    chosen = selected_fixtures(choices, ctx["tasks"])
    report["tasks_selected"] = len(chosen)
    report["tasks_considered"] = len(choices)
    report["left_out"] = dict(Counter(c.why for c in choices if not c.selected))
    if not chosen:
        return [], None, report, {}
    sample = sample_round(sampler, chosen, r, settings, runtime=ctx["runtime"], cascade=ctx["cascade"])
    return sample.admitted, sample, report, latest_outcomes(history, sample.candidates)


def _sample_dagger_arm(
    ckpt: Path, r: int, seed: int, s: BenchSettings, ctx: dict[str, Any]
) -> tuple[list[Candidate], RoundSample, dict[str, Any]]:
    """Round ``r`` of the ``dagger`` arm: one mixed rollout per task at beta_r, every visited state
    labelled by the resumed expert, the verified labels judged into SFT records."""
    learner = checkpoint_sampler(ckpt, seed, ctx["budget"], s)
    mixed = mixed_sampler(learner, r, s.dagger_settings())
    settings = replace(s.round_settings(seed), attempts=1)
    sample = sample_round(mixed, ctx["tasks"], r, settings, runtime=ctx["runtime"], cascade=ctx["cascade"])
    labelled = label_states(sample.episodes, ctx["tasks"], s.dagger_settings(), ctx["runtime"])
    records = training_candidates(labelled, ctx["tasks"], ctx["cascade"])
    return (
        records,
        sample,
        {"beta": s.dagger_settings().beta(r), **labelled.summary(), "records": len(records)},
    )


def run_arm(arm: str, seed: int, s: BenchSettings, workdir: Path, zero: dict[str, Any]) -> dict[str, Any]:
    """Every round of one (arm, seed) from its round-0 checkpoint: one pool job."""
    torch.set_num_threads(1)
    started = time.monotonic()
    home = workdir / f"seed{seed}" / arm
    tokenizer = load_tokenizer(Path(zero["checkpoint"]))
    budget = (zero["budget"][0], zero["budget"][1])
    ctx = {
        "budget": budget,
        "tasks": round_tasks(seed, s.tasks),
        "runtime": evaluation_runtime(EVALUATION_TURNS, budget[1]),
        "cascade": CascadeConfig(progress=False, workers=1, calibration_cache=home / "calibration"),
    }
    items = eval_items(s)
    ckpt, mix = Path(zero["checkpoint"]), corpus_candidates(seed)
    heldout = sum(zero["held_out"]) / len(zero["held_out"])
    history: dict[str, list[Candidate]] = {}
    previous: RoundHealth | None = None
    rows = []
    for r in range(1, s.rounds + 1):
        row: dict[str, Any] = {"round": r}
        added: list[Candidate] = []
        sample: RoundSample | None = None
        if arm == "rounds":
            added, sample, row["selection"], history = _sample_rounds_arm(ckpt, r, history, seed, s, ctx)
        elif arm == "dagger":
            added, sample, row["dagger"] = _sample_dagger_arm(ckpt, r, seed, s, ctx)
        if sample is not None:
            row["sample"] = sample.summary()
            health = _health(sample, heldout)
            row["collapse"] = health.to_dict()
            if previous is not None:
                decision = collapse_decision(previous, health, CollapseSettings())
                row["collapse_halt"], row["collapse_reasons"] = decision.halt, list(decision.reasons)
            previous = health
        mixed = next_mix(mix, added, r, s.round_settings(seed))
        mix = mixed.kept
        row["admitted"] = len(added)
        row["joined_mix"] = len({c.episode_id for c in added} & {c.episode_id for c in mix})
        tally = mixed.tally()
        row["mix"] = {
            "in": tally.records_in,
            "kept": tally.kept,
            "dropped": dict(sorted(tally.dropped.items())),
        }
        row["source_token_shares"] = {k: round(v, 4) for k, v in source_token_shares(mix).items()}
        ckpt = train(
            mix_table(mix, tokenizer), ckpt, home / f"round{r}", workdir, s.round_steps, seed * 100 + r, s
        )
        row["held_out"] = held_out(ckpt, items, seed, budget)
        heldout = sum(row["held_out"]) / len(row["held_out"])
        rows.append(row)
    return {"arm": arm, "seed": seed, "rounds": rows, "seconds": round(time.monotonic() - started, 1)}


def comparisons(
    zero: dict[int, list[bool]], arms: dict[tuple[str, int], list[list[bool]]]
) -> list[dict[str, Any]]:
    """Per arm and round, paired intervals pooled over (seed, item): against round 0, and (for the
    other arms) against the control at the same round."""
    seeds = sorted(zero)
    rows = []
    for arm in ARMS:
        if not all((arm, seed) in arms for seed in seeds):
            continue
        for index in range(len(arms[(arm, seeds[0])])):
            candidate = [x for seed in seeds for x in arms[(arm, seed)][index]]
            baselines = {"round0": [x for seed in seeds for x in zero[seed]]}
            if arm != "control" and all(("control", seed) in arms for seed in seeds):
                baselines["control"] = [x for seed in seeds for x in arms[("control", seed)][index]]
            for against, baseline in baselines.items():
                row = {"arm": arm, "round": index + 1, "against": against}
                rows.append({**row, **paired(candidate, baseline)})
    return rows


def paired(candidate: list[bool], baseline: list[bool]) -> dict[str, Any]:
    """One comparison row's figures: estimate, score interval, McNemar score p, n and the paired
    bootstrap interval of the same difference."""
    exact = paired_comparison(candidate, baseline)
    boot = paired_comparison(candidate, baseline, method="bootstrap")
    return {
        **{k: v for k, v in exact.to_dict().items() if k != "method"},
        "bootstrap_ci": [boot.ci_low, boot.ci_high],
    }


def paired_text(row: dict[str, Any]) -> str:
    """A :func:`paired` row as a person reads it: estimate, interval, p and n."""
    return (
        f"{row['estimate']:+.3f} [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}] "
        f"p={row['p_value']:.3f} (n={row['n']})"
    )


def assemble(
    s: BenchSettings,
    plan: dict[str, Any],
    zero: dict[int, dict[str, Any]],
    runs: dict[tuple[str, int], dict[str, Any]],
) -> dict[str, Any]:
    """The result JSON: settings, schedule, per-seed rounds and the paired comparisons."""
    outcomes = {(arm, seed): [row["held_out"] for row in run["rounds"]] for (arm, seed), run in runs.items()}
    schedule = arm_schedule(s)
    return {
        "settings": asdict(s),
        "estimate": plan,
        "schedule": schedule,
        "extra_steps": extra_steps(schedule),
        "round0": {str(seed): z for seed, z in sorted(zero.items())},
        "runs": {f"{arm}-{seed}": run for (arm, seed), run in sorted(runs.items())},
        "comparisons": comparisons({seed: z["held_out"] for seed, z in zero.items()}, outcomes),
    }


def summary_lines(result: dict[str, Any]) -> list[str]:
    """One screen: held-out acceptance per arm and round, admitted counts, the comparisons."""
    zero = result["round0"]
    rate = sum(sum(z["held_out"]) for z in zero.values()) / max(
        1, sum(len(z["held_out"]) for z in zero.values())
    )
    lines = [f"round 0: held-out acceptance {rate:.3f} over {len(zero)} seed(s)"]
    lines.append(
        f"{'arm':<9}{'round':>6}{'held-out':>10}{'admitted/joined':>17}{'disagree':>10}{'collapse':>10}"
    )
    for arm in ARMS:
        runs = [run for key, run in result["runs"].items() if key.rsplit("-", 1)[0] == arm]
        for index in range(len(runs[0]["rounds"]) if runs else 0):
            rows = [run["rounds"][index] for run in runs]
            acc = sum(sum(r["held_out"]) for r in rows) / sum(len(r["held_out"]) for r in rows)
            admitted = f"{sum(r['admitted'] for r in rows)}/{sum(r.get('joined_mix', 0) for r in rows)}"
            disagreement = [r["dagger"]["learner_state_disagreement"] for r in rows if "dagger" in r]
            known = [d for d in disagreement if d is not None]
            dis = f"{sum(known) / len(known):.2f}" if known else "-"
            halt = "halt" if any(r.get("collapse_halt") for r in rows) else "ok"
            lines.append(f"{arm:<9}{index + 1:>6}{acc:>10.3f}{admitted:>17}{dis:>10}{halt:>10}")
    for row in result["comparisons"]:
        lines.append(f"{row['arm']} r{row['round']} vs {row['against']}: {paired_text(row)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="a few-minute smoke run (mechanics only)")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2, help="processes side by side (one thread each)")
    parser.add_argument(
        "--checkpoint", type=Path, default=None, help="round-0 checkpoint (skips its training)"
    )
    parser.add_argument("--step-s", type=float, default=1.0, help="seconds per step assumed by the estimate")
    parser.add_argument(
        "--episode-s", type=float, default=1.5, help="seconds per episode assumed by the estimate"
    )
    parser.add_argument(
        "--setup-s", type=float, default=20.0, help="seconds per job for the expert corpus, for the estimate"
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    s = QUICK if args.quick else BenchSettings()
    if args.seeds is not None:
        s = replace(s, seeds=args.seeds)
    started = time.monotonic()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="rounds-bench-"))
    plan = estimate(s, args.workers, args.step_s, args.episode_s, args.setup_s)
    print(
        f"estimate: {plan['minutes']} min on {args.workers} workers ({s.seeds} seeds, "
        f"{plan['steps_per_seed']} steps per seed at {args.step_s} s, episodes at {args.episode_s} s; "
        "idle-machine figures)",
        file=sys.stderr,
    )
    build_default_model(workdir)  # once, before the workers share the cache
    zero: dict[int, dict[str, Any]] = {}
    with worker_pool(args.workers) as pool:
        jobs = {pool.submit(round_zero, seed, s, workdir, args.checkpoint): seed for seed in range(s.seeds)}
        for job in as_completed(jobs):
            zero[jobs[job]] = job.result()
            print(f"round 0 seed {jobs[job]}: {zero[jobs[job]]['train_s']} s train", file=sys.stderr)
        arm_jobs = {
            pool.submit(run_arm, arm, seed, s, workdir, zero[seed]): (arm, seed)
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


def arm_results(arm_jobs: dict[Future, tuple[str, int]], started: float) -> dict[tuple[str, int], Any]:
    """Each (arm, seed) job's result as it completes, with the elapsed time on stderr."""
    runs: dict[tuple[str, int], Any] = {}
    for job in as_completed(arm_jobs):
        runs[arm_jobs[job]] = job.result()
        elapsed = (time.monotonic() - started) / 60
        print(f"{'-'.join(map(str, arm_jobs[job]))}: done, elapsed {elapsed:.1f} min", file=sys.stderr)
    return runs


def emit(result: dict[str, Any], summary: list[str], out: Path | None) -> None:
    """The one-screen summary to stderr, the JSON to stdout (and to ``out``)."""
    print("\n".join(summary), file=sys.stderr)
    text = json.dumps(result, sort_keys=True, default=str)
    if out:
        out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    sys.exit(main())
