"""Scripted rollouts: realistic raw logs whose ground truth is known.

``rollout`` runs a deterministic mix of behaviours (every class of :data:`policies.BEHAVIOURS`
first, then a weighted draw) over the fixture library and writes:

- native JSONL logs (one ``Episode.to_dict()`` per line) under ``out_dir/<YYYY-MM-DD>/``, the
  dated layout the ``raw_traces`` trace source reads, spread over a few days;
- ``out_dir/truth.jsonl``: one row per episode with what really happened (behaviour, faults,
  solved by the sealed oracle, tampered, flaky, planted secrets that appear in the episode...).

The pipeline never reads ``truth.jsonl``; it exists to measure the pipeline. Logs leave
``verifier_results_json`` empty so curation has to earn its verdicts. Episodes are byte-identical
for the same seed, flaky fixtures included (their timing test draws from the sandbox's schedule seed).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from trajectory_platform.gym.faults import FAULT_KINDS, FaultSpec, applicable_kinds
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.judge import judge_servers, under_judge_servers
from trajectory_platform.gym.library import (
    LEARN_TASKS_PER_FAMILY,
    LEARNABLE_FAMILIES,
    build_library,
    learnable_fixture,
)
from trajectory_platform.gym.policies import BEHAVIOURS, make_policy
from trajectory_platform.gym.policy import Policy
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.rollout_logs import rollout_log
from trajectory_platform.gym.runtime import EpisodeResult, RuntimeConfig, run_episode
from trajectory_platform.gym.tools import TOOL_FAMILIES
from trajectory_platform.traces.record import canonical_json

START_DATE = dt.date(2026, 11, 1)
_WEIGHTS = {
    "expert_pristine": 30,
    "expert_recovery": 16,
    "flaky_fixture": 3,
    "never_recover": 3,
    "wrong_fix": 4,
}
_FAULTED = ("expert_recovery", "never_recover")


@dataclass
class RolloutSummary:
    """Counts a person (and CI) reads after a rollout; ``to_dict`` is the CLI's JSON line."""

    episodes: int
    out_dir: str
    files: list[str]
    truth_path: str
    behaviours: dict[str, int]
    terminal_status: dict[str, int]
    faults: dict[str, int]
    solved: int
    tampered: int
    flaky: int
    with_secrets: int
    compacted: int
    mean_reset_ms: float
    wall_s: float
    days: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def _eligible(behaviour: str, fixture: Fixture) -> bool:
    if behaviour == "flaky_fixture":
        return fixture.flaky
    if fixture.flaky:
        return False
    if behaviour.startswith("tamper_"):
        return any(t.partition("::")[0] in fixture.s0_files for t in fixture.fail_to_pass) and any(
            s.op == "edit" for s in fixture.plan
        )
    if behaviour in ("lucky_pass", "wrong_fix"):
        return any(s.op == "edit" for s in fixture.plan)
    if behaviour == "secret_echo":
        return bool(fixture.secret_files)
    if behaviour in _FAULTED:
        return bool(applicable_kinds(fixture, before_fix=True))
    return True


@dataclass(frozen=True)
class _Planned:
    index: int
    behaviour: str
    fault_kind: str | None
    day: dt.date
    rel: str
    line: int
    fixture: Fixture | None = None
    """A fixed fixture (a generated learnable training task); ``None``: drawn from the library."""


def learnable_training_tasks(
    count: int, seed: int = 0, keep: Callable[[Fixture], bool] | None = None
) -> list[Fixture]:
    """``count`` generated learnable tasks past the library's, dealt round-robin over the families
    and tool families; with ``keep`` (e.g. "its split plan trains on it"), only tasks it accepts
    count, so every episode spent is one the training can use."""
    combos = [(family, tool) for family in LEARNABLE_FAMILIES for tool in TOOL_FAMILIES]
    tasks: list[Fixture] = []
    k = 0
    while len(tasks) < count:
        family, tool = combos[k % len(combos)]
        task = learnable_fixture(family, LEARN_TASKS_PER_FAMILY + k // len(combos), tool, seed)
        if keep is None or keep(task):
            tasks.append(task)
        k += 1
        if keep is not None and k > 100 * (count + len(combos)):
            raise ValueError("the learnable task filter accepts (almost) no generated task")
    return tasks


def _plan(
    episodes: int, seed: int, names: list[str], days: int, start_date: dt.date, learnable: list[Fixture]
) -> list[_Planned]:
    """Behaviours, fault classes, files and line numbers: cheap, sequential, seed-determined; the
    ``learnable`` training tasks follow as expert episodes, three in ten of them recovering from a
    reachable fault (so the token-budgeted mixture can keep them inside its pristine/recovery
    bounds)."""
    rng = random.Random(f"rollout:{seed}")
    weights = [_WEIGHTS.get(b, 2) for b in names]
    lines: Counter[str] = Counter()
    planned = []
    faulted = 0
    for i in range(episodes + len(learnable)):
        fixed = learnable[i - episodes] if i >= episodes else None
        if fixed is not None:  # as the mixture's declared shares want: about 3 in 10 recover from a fault
            behaviour = "expert_recovery" if (i - episodes) % 10 in (3, 6, 9) else "expert_pristine"
        else:
            behaviour = names[i] if i < len(names) else rng.choices(names, weights)[0]
        kind = None
        if behaviour in _FAULTED:
            kind = FAULT_KINDS[faulted % len(FAULT_KINDS)]
            faulted += 1
        day = start_date + dt.timedelta(days=i % max(1, days))
        rel = rollout_log(day, seed)
        lines[rel] += 1
        planned.append(_Planned(i, behaviour, kind, day, rel, lines[rel], fixed))
    return planned


def _run_one(
    plan: _Planned, seed: int, library: list[Fixture], config: RuntimeConfig | None, seal_key: bytes | None
) -> tuple[_Planned, Fixture, list[FaultSpec], Policy, EpisodeResult]:
    """Pick the fixture (and a reachable fault schedule) with the episode's own RNG, then run it."""
    rng = random.Random(f"rollout:{seed}:{plan.index}")
    pool = (
        [f for f in library if _eligible(plan.behaviour, f)] or [f for f in library if not f.flaky] or library
    )
    fixture = plan.fixture or rng.choice(pool)
    schedule: list[FaultSpec] = []
    if plan.fault_kind is not None:
        start = FAULT_KINDS.index(plan.fault_kind)
        for attempt in range(len(FAULT_KINDS)):
            kind = FAULT_KINDS[(start + attempt) % len(FAULT_KINDS)]
            candidates = [plan.fixture] if plan.fixture else pool
            candidates = [f for f in candidates if kind in applicable_kinds(f, before_fix=True)]
            if not candidates:
                continue
            fixture = rng.choice(candidates)
            found = reachable_schedule(fixture, rng, [kind])
            if found:
                schedule = found
                break
    policy = make_policy(plan.behaviour)
    result = run_episode(
        fixture,
        policy,
        seed=seed * 100_003 + plan.index,
        config=config,
        faults=schedule,
        episode_id=f"gym-s{seed}-{plan.index:05d}",
        partition_date=plan.day,
        source_file=plan.rel,
        source_line=plan.line,
        verify=True,
        seal_key=seal_key,
    )
    return plan, fixture, schedule, policy, result


def rollout(
    episodes: int,
    seed: int,
    out_dir: Path | str,
    *,
    library_seed: int = 0,
    days: int = 3,
    start_date: dt.date = START_DATE,
    config: RuntimeConfig | None = None,
    fixture_filter: Callable[[Fixture], bool] | None = None,
    behaviours: list[str] | None = None,
    workers: int | None = None,
    progress: bool = True,
    learnable_tasks: int = 0,
    learnable_filter: Callable[[Fixture], bool] | None = None,
    seal_key: bytes | None = None,
) -> RolloutSummary:
    """Run ``episodes`` scripted episodes and write the dated logs plus ``truth.jsonl``.

    ``fixture_filter`` restricts the fixtures (e.g. the learnable family for the proof of value);
    ``behaviours`` restricts the behaviour mix (default: all of :data:`policies.BEHAVIOURS`).
    ``learnable_tasks`` appends that many expert episodes on generated learnable tasks
    (:func:`learnable_training_tasks`, those ``learnable_filter`` keeps): the training data a small
    model needs to learn the family. ``seal_key``: the pipeline's seal key (the verifier's), with
    which each faulted episode seals its schedule; without it the verifier refuses the faults.
    Episodes run on ``workers`` threads (default: the CPU count, at most 4); each draws from its
    own seeded RNG and results are written in episode order, so the output does not depend on it.
    """
    start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    library = [f for f in build_library(library_seed) if fixture_filter is None or fixture_filter(f)]
    if not library:
        raise ValueError("no fixture matches the rollout's fixture filter")
    names = list(behaviours or BEHAVIOURS)
    unknown = [b for b in names if b not in BEHAVIOURS]
    if unknown:
        raise ValueError(f"unknown behaviours: {', '.join(unknown)}")
    planned = _plan(
        episodes,
        seed,
        names,
        days,
        start_date,
        learnable_training_tasks(learnable_tasks, library_seed, learnable_filter),
    )
    handles: dict[str, TextIO] = {}
    truth_rows: list[str] = []
    stats: dict[str, Counter] = {k: Counter() for k in ("behaviour", "terminal", "faults")}
    solved = tampered = flaky = with_secrets = compacted = 0
    resets: list[float] = []
    pool_size = workers or min(4, os.cpu_count() or 1)
    try:
        with judge_servers(), ThreadPoolExecutor(max_workers=pool_size) as pool:
            run_one = under_judge_servers(lambda p: _run_one(p, seed, library, config, seal_key))
            results = pool.map(run_one, planned)
            for plan, fixture, schedule, policy, result in tqdm(
                results, total=len(planned), desc="gym rollout", file=sys.stderr, disable=not progress
            ):
                record = canonical_json(result.episode.to_dict())
                if plan.rel not in handles:
                    (out / plan.day.isoformat()).mkdir(parents=True, exist_ok=True)
                    handles[plan.rel] = (out / plan.rel).open("w", encoding="utf-8")
                handles[plan.rel].write(record + "\n")
                planted = sorted(s for s in fixture.secrets if s in record)
                is_tampered = plan.behaviour.startswith("tamper_")
                passed = bool(result.oracle and result.oracle.passed)
                truth = {
                    "episode_id": result.episode.episode_id,
                    "behaviour": plan.behaviour,
                    "policy": policy.name,
                    "fixture_id": fixture.fixture_id,
                    "repo_family": fixture.repo_family,
                    "tool_family": fixture.tool_family,
                    "domain": fixture.domain,
                    "learnable": fixture.learnable,
                    "fault_schedule": [s.to_dict() for s in schedule],
                    "faults": result.faults,
                    "solved": passed,
                    "tampered": is_tampered,
                    "tamper_kind": plan.behaviour.removeprefix("tamper_") if is_tampered else None,
                    "flaky": fixture.flaky,
                    "lucky": plan.behaviour == "lucky_pass",
                    "planted_secrets": planted,
                    "terminal_status": result.terminal_status,
                    "min_tool_calls": fixture.min_tool_calls,
                    "tool_calls": result.tool_calls,
                    "refusals": result.refusals,
                    "compacted": result.compactions > 0,
                    "oracle": {
                        "fail_to_pass": result.oracle.fail_to_pass,
                        "pass_to_pass": result.oracle.pass_to_pass,
                    }
                    if result.oracle
                    else None,
                    "partition_date": plan.day.isoformat(),
                    "source_file": plan.rel,
                    "source_line": plan.line,
                }
                truth_rows.append(canonical_json(truth))
                stats["behaviour"][plan.behaviour] += 1
                stats["terminal"][result.terminal_status] += 1
                for fault in result.faults:
                    stats["faults"][fault["kind"]] += 1
                solved += passed
                tampered += is_tampered
                flaky += fixture.flaky
                with_secrets += bool(planted)
                compacted += result.compactions > 0
                resets.append(result.reset_s)
    finally:
        for handle in handles.values():
            handle.close()
    truth_path = out / "truth.jsonl"
    truth_path.write_text("".join(row + "\n" for row in truth_rows), encoding="utf-8")
    return RolloutSummary(
        episodes=len(planned),
        out_dir=str(out),
        files=sorted(handles),
        truth_path=str(truth_path),
        behaviours=dict(sorted(stats["behaviour"].items())),
        terminal_status=dict(sorted(stats["terminal"].items())),
        faults=dict(sorted(stats["faults"].items())),
        solved=solved,
        tampered=tampered,
        flaky=flaky,
        with_secrets=with_secrets,
        compacted=compacted,
        mean_reset_ms=round(1000 * sum(resets) / max(1, len(resets)), 3),
        wall_s=round(time.perf_counter() - start, 2),
        days=sorted({rel.split("/")[0] for rel in handles}),
    )


def read_truth(out_dir: Path | str) -> list[dict]:
    """The truth sidecar's rows (for benchmarks and tests; never for the pipeline)."""
    path = Path(out_dir) / "truth.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
