"""Closed-loop evaluation (fine-tuning 16.11): build the paired suites, run both arms, keep every trial.

The suites come from the held-out side of the same split plan curation uses (closure-disjoint test
fixtures, their transfer regime from :meth:`SplitPlan.regime`), so nothing scored here was trained
on. Three suites, each run by the candidate *and* the baseline on identical items (fixture, seed,
fault schedule, runtime budgets), so every comparison is paired:

- ``acceptance``: focus task kinds, pristine, ``attempts`` seeds per task (pass@k / pass^k when > 1);
- ``recovery``: focus tasks under a reachable fault schedule that fires before the expert's first
  edit (``gym.reachability.reachable_schedule``), cycling through the fault classes so kinds the
  training corpus never showed are reached too;
- ``retention``: task kinds outside the training focus (default: the gym's ``count_files`` and
  diagnostic ``report`` tasks, which answer instead of repairing).

Task environments users brought join the acceptance suite when the same split plan puts them on
the test side (:func:`held_out`): each is one more acceptance task (``attempts`` seeds), tagged
``source = "environment"``, run by both arms through the environment's own tools executed live in
the sandbox (:mod:`~trajectory_platform.evaluation.env_tools`) and judged by its sealed oracle as a
gym fixture is. One without a runnable tool surface is skipped with its reason, never silently.

Every initiated trial is recorded: a stall, a runaway or a timeout is a failed trial, never a
dropped one.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from trajectory_platform.curation.split_mixture_stage import SplitSettings
from trajectory_platform.curation.splits import (
    REGIME_FAMILIAR_SCHEMA,
    REGIME_RENAMED_SCHEMA,
    REGIME_UNFAMILIAR_TOOLS,
    TEST,
    SplitPlan,
    SplitPolicy,
    plan_with_environments,
)
from trajectory_platform.evaluation.env_tools import EnvironmentTools, surface_problem
from trajectory_platform.evaluation.episodes import EpisodeMeasure, measure_episode
from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.faults import FaultSpec
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.judge import judge_servers, under_judge_servers
from trajectory_platform.gym.library import build_library, get_fixture
from trajectory_platform.gym.reachability import reachable_schedule
from trajectory_platform.gym.runtime import EpisodeResult, RuntimeConfig, run_episode

if TYPE_CHECKING:
    from trajectory_platform.gym.policy import Policy
    from trajectory_platform.traces.record import Episode

REGIME_NAMES = {
    REGIME_FAMILIAR_SCHEMA: "familiar",
    REGIME_RENAMED_SCHEMA: "renamed",
    REGIME_UNFAMILIAR_TOOLS: "unfamiliar_tool_family",
}
"""Short names of the split plan's transfer regimes, used as the SFA / PRE keys."""

SUITES = ("acceptance", "recovery", "retention")


def evaluation_runtime(max_steps: int = 8, max_generated_tokens: int = 600) -> RuntimeConfig:
    """The declared evaluation budget: tight enough that a runaway policy fails quickly."""
    return RuntimeConfig(max_steps=max_steps, max_generated_tokens=max_generated_tokens, wall_timeout_s=120.0)


@dataclass(frozen=True)
class EvalItem:
    """One trial both arms run identically."""

    item_id: str
    fixture_id: str
    suite: str
    regime: str
    seed: int
    task_kind: str
    faults: tuple[FaultSpec, ...] = ()
    source: str = "gym"
    """``gym`` (the generated library) or ``environment`` (a task environment a user brought)."""

    def to_dict(self) -> dict:
        """JSON-ready form for the evaluation manifest."""
        row = asdict(self)
        row["faults"] = [f.to_dict() for f in self.faults]
        return row


@dataclass(frozen=True)
class SkippedEnvironment:
    """A held-out environment no trial was run on, and why (:data:`env_tools.SKIP_REASONS`)."""

    task_id: str
    reason: str
    detail: str


@dataclass
class HeldOut:
    """The held-out pools of one split plan: gym fixtures and brought environments with their
    regime, each environment's split, and the held-out environments that had to be skipped."""

    gym: list[tuple[Fixture, str]]
    environments: list[tuple[Fixture, str]] = field(default_factory=list)
    environment_splits: dict[str, str] = field(default_factory=dict)
    skipped: list[SkippedEnvironment] = field(default_factory=list)

    def fixtures(self) -> dict[str, Fixture]:
        """The held-out environments by task id (what :func:`run_arm` looks them up in)."""
        return {f.fixture_id: f for f, _ in self.environments}

    def summary(self) -> dict:
        """The scorecard's account of brought environments: how many on each side of the plan,
        how many evaluated, and every skip with its reason."""
        return {
            "registered": len(self.environment_splits),
            "by_split": dict(sorted(Counter(self.environment_splits.values()).items())),
            "evaluated": len(self.environments),
            "skipped": [asdict(s) for s in self.skipped],
            "skipped_by_reason": dict(sorted(Counter(s.reason for s in self.skipped).items())),
        }


def _plan(
    library: Sequence[Fixture], spec: SuiteSpec, split: SplitPolicy | None, environments: Sequence[Fixture]
) -> SplitPlan:
    """The plan of ``split`` (the policy ``split_assignments`` ran with), else the default policy
    with the suite's reserved families, over the library and the environments, as curation plans."""
    policy = split or SplitSettings(reserved_tool_families=spec.reserved_tool_families).policy()
    return plan_with_environments(library, environments, policy)


def held_out(
    spec: SuiteSpec,
    fixtures: Sequence[Fixture] | None = None,
    split: SplitPolicy | None = None,
    environments: Sequence[Fixture] = (),
) -> HeldOut:
    """Test-split gym fixtures and brought environments of one split plan, with their regimes.

    The plan is the one ``split_assignments`` computes over the same library and environments
    (:func:`~trajectory_platform.curation.splits.plan_with_environments`), and an environment is
    placed by its repository family, tool family and domain exactly as an episode recorded on it
    (:meth:`SplitPlan.place`), so a task the pool scores is one whose logs the mixture holds out,
    and one whose logs are trained on is never scored.
    """
    library = list(fixtures) if fixtures is not None else build_library(spec.library_seed)
    plan = _plan(library, spec, split, environments)
    held = HeldOut(
        gym=[
            (f, REGIME_NAMES[plan.regime(f.tool_family, f.domain)])
            for f in library
            if plan.fixture_split(f.fixture_id) == TEST and (f.learnable or not spec.learnable_only)
        ]
    )
    for env in sorted(environments, key=lambda e: e.fixture_id):
        side = plan.place(env.repo_family, env.tool_family, env.domain)[0]
        held.environment_splits[env.fixture_id] = side
        if side != TEST:
            continue
        problem = surface_problem(env)
        if problem is not None:
            held.skipped.append(SkippedEnvironment(env.fixture_id, *problem))
            continue
        held.environments.append((env, REGIME_NAMES[plan.regime(env.tool_family, env.domain)]))
    return held


def heldout_pool(
    spec: SuiteSpec, fixtures: Sequence[Fixture] | None = None, split: SplitPolicy | None = None
) -> list[tuple[Fixture, str]]:
    """Test-split gym fixtures of the split plan and their regime (:func:`held_out`'s gym pool)."""
    return held_out(spec, fixtures, split).gym


def _seeded_order(pool: Iterable[tuple[Fixture, str]], seed: int) -> list[tuple[Fixture, str]]:
    """Deterministic shuffle, then interleave regimes so every regime gets items early."""
    ranked = sorted(pool, key=lambda p: hashlib.sha256(f"{seed}:{p[0].fixture_id}".encode()).hexdigest())
    by_regime: dict[str, list[tuple[Fixture, str]]] = {}
    for entry in ranked:
        by_regime.setdefault(entry[1], []).append(entry)
    lanes = [by_regime[r] for r in sorted(by_regime)]
    out: list[tuple[Fixture, str]] = []
    for depth in range(max((len(lane) for lane in lanes), default=0)):
        out.extend(lane[depth] for lane in lanes if depth < len(lane))
    return out


def build_items(
    pool: Sequence[tuple[Fixture, str]],
    spec: SuiteSpec,
    environments: Sequence[tuple[Fixture, str]] = (),
) -> list[EvalItem]:
    """The paired trial list: acceptance (tasks x attempts), recovery, retention, then every
    held-out environment as an acceptance task (module docstring)."""
    ordered = _seeded_order(pool, spec.seed)
    retention = [p for p in ordered if p[0].task_kind in spec.retention_kinds]
    focus = [p for p in ordered if p[0].task_kind not in spec.retention_kinds]
    items: list[EvalItem] = []
    tasks = -(-spec.episodes // max(1, spec.attempts))
    for fixture, regime in focus[:tasks]:
        for attempt in range(spec.attempts):
            if sum(1 for i in items if i.suite == "acceptance") < spec.episodes:
                items.append(_item("acceptance", fixture, regime, spec.seed + attempt))
    kinds = list(spec.fault_kinds)
    cursor = 0
    for fixture, regime in focus:
        if sum(1 for i in items if i.suite == "recovery") >= spec.recovery_episodes or not kinds:
            break
        for offset in range(len(kinds)):  # the next kind in the cycle this fixture can reach
            kind = kinds[(cursor + offset) % len(kinds)]
            rng = random.Random(f"{spec.seed}:{fixture.fixture_id}:{kind}")
            schedule = reachable_schedule(fixture, rng, kinds=[kind])
            if schedule:
                cursor += offset + 1
                items.append(_item("recovery", fixture, regime, spec.seed, tuple(schedule)))
                break
    for fixture, regime in retention[: spec.retention_episodes]:
        items.append(_item("retention", fixture, regime, spec.seed))
    for fixture, regime in _seeded_order(environments, spec.seed):
        items.extend(_item("acceptance", fixture, regime, spec.seed + a) for a in range(spec.attempts))
    return items


def _item(
    suite: str, fixture: Fixture, regime: str, seed: int, faults: tuple[FaultSpec, ...] = ()
) -> EvalItem:
    fault_tag = "+".join(f"{f.kind}@{f.at_call}" for f in faults)
    return EvalItem(
        item_id=f"{suite}:{fixture.fixture_id}:s{seed}" + (f":{fault_tag}" if fault_tag else ""),
        fixture_id=fixture.fixture_id,
        suite=suite,
        regime=regime,
        seed=seed,
        task_kind=fixture.task_kind,
        faults=faults,
        source=fixture.source,
    )


@dataclass
class ArmRun:
    """One arm's trials, in item order: what each measured, and the episode logged (for transcripts)."""

    name: str
    measures: list[EpisodeMeasure] = field(default_factory=list)
    episodes: list[Episode] = field(default_factory=list)


def run_arm(
    name: str,
    policy: Policy,
    items: Sequence[EvalItem],
    config: RuntimeConfig,
    *,
    library_seed: int = 0,
    progress: bool = True,
    environments: Mapping[str, Fixture] | None = None,
    batch: int = 1,
) -> ArmRun:
    """Run ``policy`` on every item under the same budgets; every trial is kept. An environment
    item's fixture comes from ``environments`` (:meth:`HeldOut.fixtures`) and the policy acts
    through that environment's own tools.

    ``batch`` trials run at once on threads when the policy batches its turns (a ``batcher``, as
    :class:`~trajectory_platform.evaluation.policy.ModelPolicy` has): their turns are decoded
    together, each with the tokens it would get alone (``evaluation/batching.py``). Results keep the
    items' order, so the arm is the same whatever ``batch`` is."""
    arm = ArmRun(name)
    batcher = getattr(policy, "batcher", None) if batch > 1 else None

    def one(indexed: tuple[int, EvalItem]) -> EpisodeResult:
        index, item = indexed
        with batcher.trial() if batcher is not None else contextlib.nullcontext():
            if item.source != "environment":
                return _trial(get_fixture(item.fixture_id, library_seed), policy, item, config, name, index)
            fixture = (environments or {})[item.fixture_id]
            with EnvironmentTools(fixture, config.test_timeout_s) as tools:
                return _trial(fixture, policy, item, config, name, index, tools)

    # one sandboxed judge per thread for all the arm's oracle runs (gym/judge.py)
    with judge_servers(), ThreadPoolExecutor(max_workers=batch) as pool:
        trials = enumerate(items, 1)
        results = map(one, trials) if batcher is None else pool.map(under_judge_servers(one), trials)
        for index, (item, result) in enumerate(zip(items, results, strict=True), 1):
            arm.episodes.append(result.episode)
            arm.measures.append(
                measure_episode(
                    result,
                    item_id=item.item_id,
                    suite=item.suite,
                    regime=item.regime,
                    seed=item.seed,
                    task_kind=item.task_kind,
                    fault_kinds=[f.kind for f in item.faults],
                )
            )
            if progress and (index % 5 == 0 or index == len(items)):
                accepted = sum(m.accepted for m in arm.measures)
                print(f"evaluate[{name}]: {index}/{len(items)} trials, {accepted} accepted", file=sys.stderr)
    return arm


def _trial(
    fixture: Fixture,
    policy: Policy,
    item: EvalItem,
    config: RuntimeConfig,
    arm: str,
    index: int,
    tools: EnvironmentTools | None = None,
) -> EpisodeResult:
    return run_episode(
        fixture,
        policy,
        seed=item.seed,
        config=config,
        faults=list(item.faults),
        episode_id=f"eval-{arm}-{index:04d}",
        source_file=f"evaluation:{arm}",
        tools=tools,
    )
