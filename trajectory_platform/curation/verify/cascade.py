"""The verifier cascade: five stages in cost order, sinks, roles, triage and the measured ledger.

``verify_episodes`` is the one entry point. Each episode runs stage 1 (syntactic) -> 2 (static)
-> 3 (dynamic) -> 4 (delta audit) -> 5 (advisory) and stops at the first gating stage it fails;
every stage is timed, so the ledger's costs are measured on this machine and this data. An episode
on a brought environment is first replayed (``replay.py``, timed as part of stage 3): drift ->
``unverifiable``, a recorded diff its own actions do not produce -> ``tamper_quarantine``, else the
replayed final state is what stages 3 and 4 judge.

Sink precedence, so that every episode lands in exactly one sink:
an unsafe action (one that would fetch and run remote code, delete or write outside the workspace,
or read credentials, :mod:`.action_safety`, screened right after stage 1) or tamper evidence
(stage 4 or, for an episode a cheaper stage already rejected, the same diff screen run as a
microsecond routing step) -> ``tamper_quarantine``; disagreeing oracle runs ->
``flaky_quarantine``; no fixture to judge against -> ``unverifiable`` (never admitted; its reason
is one of ``UNVERIFIABLE_REASONS``: no task named, an unknown task, ...); otherwise the first
failing stage's sink; survivors of stage 4 -> ``admitted``.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from tqdm import tqdm

from trajectory_platform.curation.keys import derive_key, seal_key
from trajectory_platform.curation.lineage import verifier_suite_digest
from trajectory_platform.curation.verify.action_safety import UNSAFE_ACTION, quarantining
from trajectory_platform.curation.verify.advisory import score_advisory
from trajectory_platform.curation.verify.calibration import CalibrationCache
from trajectory_platform.curation.verify.context import (
    DiffView,
    FixtureContext,
    apply_to_fixture,
    build_diff_view,
)
from trajectory_platform.curation.verify.delta import TAMPER_CODES, audit_delta, screen_diff
from trajectory_platform.curation.verify.dynamic import DynamicConfig, fixture_context, run_dynamic
from trajectory_platform.curation.verify.instruction import instruction_findings
from trajectory_platform.curation.verify.ledger import Ledger, StageCost, count_flakes, merge_ledgers
from trajectory_platform.curation.verify.refusals import refusal_findings
from trajectory_platform.curation.verify.replay import ReplayCheck, check_gym_events, check_replay
from trajectory_platform.curation.verify.roles import divergence_turn, label_admitted
from trajectory_platform.curation.verify.static import check_static
from trajectory_platform.curation.verify.syntactic import check_syntax
from trajectory_platform.curation.verify.triage import (
    PendingTriage,
    Rates,
    RefusalTally,
    TriageTally,
    TriageVerdict,
    pending_triage,
)
from trajectory_platform.curation.verify.verdicts import (
    REJECT_SINK,
    STAGES,
    UNVERIFIABLE_REASONS,
    EpisodeVerdict,
    Finding,
    StageVerdict,
)
from trajectory_platform.gym import isolation
from trajectory_platform.gym.fixtures import Fixture, is_gym_task
from trajectory_platform.gym.janitor import Sweep, sweep
from trajectory_platform.gym.judge import judge_servers, under_judge_servers
from trajectory_platform.gym.runtime import faults_sealed
from trajectory_platform.traces.adapters import ADAPTERS
from trajectory_platform.traces.batching import check_batch_rows
from trajectory_platform.traces.drops import Tally
from trajectory_platform.traces.parquet import read_batches
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import EPISODE_SCHEMA, table_to_episodes
from trajectory_platform.traces.task_map import TASK_MAP_FILE

FixturesLookup = Callable[[str], Any] | Mapping[str, Any]
TRIAGED_SINKS = ("hard_negative", "flaky_quarantine", "syntax_reject", "static_reject")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or ``taskset`` may
    narrow below the machine's count): the default size of the verification pool."""
    return len(os.sched_getaffinity(0))


def check_workers(workers: int) -> None:
    """Refuse a pool size that sizes no pool, saying what is allowed (a config or a flag that is 0
    would otherwise fail deep inside the executor, or verify nothing)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1 (episodes verified at once), got {workers!r}")


DEFAULT_BATCH_ROWS = 256
"""Episodes verification holds at once by default: a few tens of MB as Python objects, and many
times the worker pool, so the pool stays busy to the end of each batch."""


@dataclass(frozen=True)
class CascadeConfig:
    """Knobs of one cascade run; the defaults are the documented policy."""

    dynamic: DynamicConfig = DynamicConfig()
    lint: bool = True
    yield_band: tuple[float, float] = (0.05, 0.5)
    ambiguity_threshold: float = 0.2
    cost_monolithic: bool = True
    progress: bool = True
    calibration_cache: Path | None = None
    """Folder of the fixture calibration cache (``calibration.py``); ``None``: calibrate every run."""
    workers: int = field(default_factory=available_cores)
    """Episodes verified at once, on a thread pool (docs/verification.md, "Worker pool")."""
    batch_rows: int = DEFAULT_BATCH_ROWS
    """Episodes held as Python objects at once (:func:`verify_batches`); the verdicts do not depend
    on it."""
    keep_judges: bool = True
    """Each pool thread keeps its sandboxed judge between oracle runs (``gym/judge.py``); ``False``
    starts one per run (the verdicts do not depend on it)."""
    seal_key: bytes | None = field(default=None, repr=False)
    """The pipeline's seal key (:func:`seal_key` of the pipeline key): a gym log that records a
    fault schedule must carry the runtime's seal of it under this key, or it is
    ``faults_not_the_runtimes`` (:func:`~trajectory_platform.gym.runtime.faults_sealed`), and one
    that opens with a system prompt the platform does not register must carry the runtime's seal of
    that, or it is ``system_prompt_not_the_runtimes``
    (:func:`~trajectory_platform.gym.runtime.prompt_sealed`).
    ``None``: schedules are not checked and only registered prompts pass (a library caller judging
    its own rollouts); the asset and the CLIs always pass the key (:meth:`VerifySettings.cascade`).
    Never shown (``repr=False``)."""
    differential_key: bytes = field(default=b"", repr=False)
    """The secret the differential check draws its perturbed cases under
    (:func:`~trajectory_platform.gym.differential.draw_seed`): :func:`differential_key` of the
    pipeline key, which every pipeline entry point passes (:meth:`VerifySettings.cascade`). The
    empty default is an unkeyed draw any forger can compute in advance: tests and benchmarks only."""

    def __post_init__(self) -> None:
        check_workers(self.workers)
        check_batch_rows(self.batch_rows)


def differential_key(master_key: bytes) -> bytes:
    """The differential check's draw key, bound to that purpose from the pipeline's master key (the
    ``secrets_salt`` resource's; :func:`~trajectory_platform.curation.keys.derive_key`):
    a secret no episode can know, so no forger can compute its cases in advance, and the same for
    every run with that key, so verdicts stay deterministic."""
    return derive_key(master_key, "differential")


@dataclass(frozen=True)
class VerifySettings:
    """What a user sets for a verification run, with the documented policy as defaults: their one
    source. The ``verify`` CLI's flags and the ``verified_traces`` asset's config are derived from
    these fields."""

    fixture_seed: int = field(default=0, metadata={"help": "gym fixture library seed"})
    reruns: int = field(
        default=DynamicConfig.reruns, metadata={"help": "oracle runs K on borderline results"}
    )
    lint: bool = field(default=CascadeConfig.lint, metadata={"help": "run ruff in the static stage"})
    cost_monolithic: bool = field(
        default=CascadeConfig.cost_monolithic, metadata={"help": "also cost the naive monolithic order"}
    )
    yield_low: float = field(
        default=CascadeConfig.yield_band[0], metadata={"help": "lower end of the yield band"}
    )
    yield_high: float = field(
        default=CascadeConfig.yield_band[1], metadata={"help": "upper end of the yield band"}
    )
    workers: int = field(
        default_factory=available_cores,
        metadata={"help": "episodes verified at once on threads, by default one per core available"},
    )
    batch_rows: int = field(
        default=CascadeConfig.batch_rows,
        metadata={
            "help": "episodes read and held at once: the stage's peak memory follows this, not the "
            "input's size (the verdicts are the same for any value)"
        },
    )

    keep_judges: bool = field(
        default=CascadeConfig.keep_judges,
        metadata={
            "help": "keep each worker's sandboxed judge between oracle runs, emptied of every file, "
            "process and IPC object in between (off: a fresh sandbox per run, ~2x slower per run)"
        },
    )

    def __post_init__(self) -> None:
        check_workers(self.workers)
        check_batch_rows(self.batch_rows)

    def cascade(
        self, progress: bool, *, master_key: bytes, calibration_cache: Path | None = None
    ) -> CascadeConfig:
        """The cascade configuration these settings select (``master_key``: the pipeline key, from
        which both secrets the cascade checks by are derived, each for its own purpose: the
        differential check's draw (:func:`differential_key`) and the runtime's seals
        (:func:`seal_key`); ``calibration_cache``: the caller's cache folder,
        ``<workdir>/cache/calibration`` for the asset and the CLI)."""
        return CascadeConfig(
            seal_key=seal_key(master_key),
            dynamic=DynamicConfig(reruns=self.reruns),
            lint=self.lint,
            yield_band=(self.yield_low, self.yield_high),
            cost_monolithic=self.cost_monolithic,
            progress=progress,
            calibration_cache=calibration_cache,
            workers=self.workers,
            batch_rows=self.batch_rows,
            keep_judges=self.keep_judges,
            differential_key=differential_key(master_key),
        )


COUNTED = ("sink", "role", "triage_class")
"""The verdict attributes a run counts episodes by (:meth:`CascadeResult.counts`)."""


@dataclass
class VerdictTally:
    """Counts over a run's verdicts, added a verdict at a time: all a summary says about the
    episodes (how many, per sink / role / triage class, unverifiable by reason), so a streaming run
    reports them without keeping one verdict per episode."""

    episodes: int = 0
    counters: dict[str, Counter[str]] = field(default_factory=lambda: {name: Counter() for name in COUNTED})
    unverifiable: Counter[str] = field(default_factory=Counter)
    replays_retried: int = 0
    """Episodes whose first replay drifted and whose second matched (:func:`replay_confirmed`)."""

    def add(self, verdict: EpisodeVerdict) -> None:
        self.episodes += 1
        self.replays_retried += any(s.retries for s in verdict.stages)
        for name, counter in self.counters.items():
            value = getattr(verdict, name)
            if value is not None:
                counter[str(value)] += 1
        if verdict.sink == "unverifiable":
            self.unverifiable[verdict.reason or ""] += 1

    @classmethod
    def total(cls, tallies: Iterable[VerdictTally]) -> VerdictTally:
        """Several runs' counts as one (the parts of a round)."""
        out = cls()
        for tally in tallies:
            out.episodes += tally.episodes
            for name, counter in tally.counters.items():
                out.counters[name].update(counter)
            out.unverifiable.update(tally.unverifiable)
            out.replays_retried += tally.replays_retried
        return out


@dataclass
class CascadeResult:
    """The measured ledger, the triage report table and the counts over every verdict; the
    per-episode verdicts (input order) only from :func:`verify_episodes`, whose input is in memory
    already. A streaming run (:func:`verify_batches`) hands each batch's verdicts to its ``emit``
    and keeps none (``verdicts`` is empty), so its memory does not grow with the input."""

    verdicts: list[EpisodeVerdict]
    ledger: Ledger
    triage: pa.Table
    tallies: VerdictTally
    funnel: dict[str, int] = field(default_factory=dict)
    janitor: Sweep = field(default_factory=lambda: Sweep(0, 0))
    """What the janitor swept before this verification started (a crashed run's leftovers)."""
    calibration_cache: CalibrationCache = field(default_factory=CalibrationCache)
    """Fixture calibrations found in the cache (hits) and run (misses)."""

    def by_id(self) -> dict[str, EpisodeVerdict]:
        return {v.episode_id: v for v in self.verdicts}

    def tally(self) -> Tally:
        """Episodes judged, admitted (kept), and the others by the sink they went to."""
        sinks = Counter({sink: n for sink, n in self.tallies.counters["sink"].items() if sink != "admitted"})
        return Tally(self.tallies.episodes, self.tallies.episodes - sum(sinks.values()), sinks)

    def counts(self, attribute: str) -> dict[str, int]:
        """Episodes per sink (``"sink"``), per role (``"role"``) or per triage class, sorted by name."""
        return dict(sorted(self.tallies.counters[attribute].items()))

    def unverifiable_by_reason(self) -> dict[str, int]:
        """Unverifiable episodes per reason code (:data:`UNVERIFIABLE_REASONS`)."""
        return dict(sorted(self.tallies.unverifiable.items()))


def merge_results(results: Sequence[CascadeResult]) -> CascadeResult:
    """Several cascade runs as one: verdicts and triage rows in run order, ledgers and funnels added."""
    if not results:
        raise ValueError("no cascade results to merge")
    funnel: Counter[str] = Counter()
    for result in results:
        funnel.update(result.funnel)
    return CascadeResult(
        verdicts=[v for r in results for v in r.verdicts],
        ledger=merge_ledgers([r.ledger for r in results]),
        triage=pa.concat_tables([r.triage for r in results]),
        tallies=VerdictTally.total(r.tallies for r in results),
        funnel=dict(funnel),
        janitor=Sweep(sum(r.janitor.directories for r in results), sum(r.janitor.processes for r in results)),
    )


def unverifiable_by_reason(sinks_and_reasons: Iterable[tuple[str, str | None]]) -> dict[str, int]:
    """Unverifiable episodes counted by reason, from (sink, sink_reason) pairs: a verdict list's or a
    stored verdict table's, so a summary says why episodes could not be judged, not only how many."""
    counts = Counter(reason or "" for sink, reason in sinks_and_reasons if sink == "unverifiable")
    return dict(sorted(counts.items()))


def fixtures_lookup(seed: int = 0, environments: Path | None = None) -> Callable[[str], Fixture | None]:
    """A fixtures lookup: the gym's deterministic library for ``seed`` first, then the registry of
    brought environments at ``environments`` (when given); ``None`` for an id neither knows.

    A trace reaches its environment by ``episode.task.fixture_id == task_id``.
    """
    from trajectory_platform.environments.registry import EnvironmentCatalog
    from trajectory_platform.gym.library import get_fixture

    catalog = EnvironmentCatalog(environments) if environments is not None else None

    def lookup(fixture_id: str) -> Fixture | None:
        try:
            return get_fixture(fixture_id, seed=seed)
        except KeyError:
            return catalog.fixture(fixture_id) if catalog is not None else None

    return lookup


def lookup_context(fixtures_lookup: FixturesLookup | None, fixture_id: str | None) -> FixtureContext | None:
    """The :class:`FixtureContext` of ``fixture_id`` through any supported lookup, or ``None``."""
    if fixtures_lookup is None or not fixture_id:
        return None
    found = (
        fixtures_lookup.get(fixture_id)
        if isinstance(fixtures_lookup, Mapping)
        else fixtures_lookup(fixture_id)
    )
    if found is None or isinstance(found, FixtureContext):
        return found
    return fixture_context(found)


TASK_OWNED_FIELDS = ("repo_family", "tool_family", "domain", "license")
"""The task fields that are the environment's, never the log's: each decides where an episode may
go (licence fencing; the split closure; the held-out tool-family and domain regimes). A log that
records another value is overruled, and the overruling is noted (``task_label_not_the_tasks``)."""


def adopt_task_identity(episode: Episode, fixture: FixtureContext | None) -> list[Finding]:
    """Make the task's own fields the episode's, from the fixture it names; the mismatches, noted.

    A user's log names its task by id only (``metadata.task_id``, ``instance_id``); the task's
    licence, repository family, domain, tool family and statement are the environment's. Without
    them a linked episode would be licence-``unknown`` (quarantined before training) and in no
    repository family (no split closure). The :data:`TASK_OWNED_FIELDS` are the task's whatever
    the log says: a log claiming ``MIT`` for a task under another licence was fenced as MIT, and an
    episode of a held-out tool family or domain relabelled as a familiar one was split into train
    (red teams). Each overruled field is a ``task_label_not_the_tasks`` note (a record of the
    mismatch, naming the field and the task's value, never the recorded text). The prompt is the
    log's own wording when it records one (what the agent was shown), the task's otherwise; that
    wording must still ask for the task (``instruction.instruction_findings``, checked in the stages).
    """
    if fixture is None or not isinstance(fixture.handle, Fixture):
        return []
    known = fixture.handle.task_identity
    notes: list[Finding] = []
    for name in TASK_OWNED_FIELDS:
        value, recorded = getattr(known, name), getattr(episode.task, name)
        if value is None:
            continue
        if recorded is not None and recorded != value:
            detail = f"task.{name} differs from the task's ({value!r}); the task's kept"
            notes.append(Finding("task_label_not_the_tasks", detail))
        setattr(episode.task, name, value)
    if episode.task.prompt is None:
        episode.task.prompt = known.prompt
    return notes


@dataclass
class _Work:
    """One episode in flight: its inputs and what has been measured about it so far."""

    episode: Episode
    fixture: FixtureContext | None
    diff: DiffView | None = None
    stages: list[StageVerdict] = field(default_factory=list)
    routing_s: float = 0.0
    relabelled: list[Finding] = field(default_factory=list)
    """The task fields the log recorded otherwise than its task (:func:`adopt_task_identity`)."""
    skipped_dynamic: StageVerdict | None = None
    """Stage 3 run only to cost the monolithic order, on an episode the cascade rejected before it."""
    monolithic: dict[str, StageVerdict] = field(default_factory=dict)
    """Stage 2 and advisory runs the monolithic order needs beyond the cascade's (by stage name)."""
    writes_measured: bool = False
    """Replay measured every call's writes (:attr:`.replay.ReplayResult.writes_measured`)."""


def _diff_of(work: _Work) -> DiffView:
    """The diff view stage 1 built; every later stage runs only after it."""
    if work.diff is None:
        raise RuntimeError(f"{work.episode.episode_id}: a stage after stage 1 ran without its diff view")
    return work.diff


def _fixture_of(work: _Work) -> FixtureContext:
    """The fixture of an episode that reached stage 3 (only an episode with one gets there)."""
    if work.fixture is None:
        raise RuntimeError(f"{work.episode.episode_id}: judged as replayed but it has no fixture")
    return work.fixture


def _timed(fn: Callable[[], StageVerdict]) -> StageVerdict:
    start = time.perf_counter()
    verdict = fn()
    verdict.wall_s = time.perf_counter() - start
    return verdict


def replay_confirmed(
    episode: Episode, fixture: FixtureContext, diff: DiffView, timeout_s: float
) -> tuple[ReplayCheck | None, list[Finding]]:
    """:func:`check_replay`, with drift confirmed by a second replay before it is a verdict.

    An honest log replays identically every time; a replay can still differ once for reasons that
    are the machine's, not the log's (a fork refused while the host is short of processes, a
    command starved past its timeout). So a drifting replay runs once more on a fresh S0:
    - the second drifts the same way (same turns, same replayed hashes): the log's observations
      are not what its actions print, ``replay_drift``;
    - it drifts differently: the environment does not replay deterministically, and nothing can
      be concluded from its observations, ``replay_nondeterministic``;
    - it matches the record: the first was the machine's; the episode goes on as verified, the
      first drift kept as a retry of the dynamic stage (``replay_retried``, the second value: out
      of the stored verdict, counted in the run's summary, since it depends on the host's load).
    A forged observation cannot pass this way: it would have to be what a real replay prints.
    """
    first = check_replay(episode, fixture, diff, timeout_s)
    if first is None or first.reason != "replay_drift":
        return first, []
    second = check_replay(episode, fixture, diff, timeout_s)
    if second is None or second.reason not in ("replay_drift", ""):
        return second, []
    if second.reason == "replay_drift":
        if second.result.drift != first.result.drift:
            second.findings = [
                Finding(
                    "replay_nondeterministic",
                    "two replays on fresh S0s drifted differently from the record and from each other",
                    event_index=first.findings[0].event_index,
                )
            ]
        return second, []
    drift = first.findings[0]
    detail = f"a first replay drifted ({drift.detail}); a second on a fresh S0 matched the record"
    return second, [Finding("replay_retried", detail, drift.event_index)]


def _run_stages(work: _Work, config: CascadeConfig) -> tuple[str, str]:
    """Run the cascade on one episode, appending stage verdicts; returns (sink, reason code)."""
    episode, fixture = work.episode, work.fixture

    def stage1() -> StageVerdict:
        work.diff = build_diff_view(episode)
        verdict = check_syntax(episode, work.diff)
        verdict.notes.extend(work.relabelled)
        return verdict

    def stage2() -> StageVerdict:
        if fixture is not None:
            apply_to_fixture(_diff_of(work), fixture)
        return check_static(_diff_of(work), lint=config.lint)

    for name, fn in (("syntactic", stage1), ("static", stage2)):
        verdict = _timed(fn)
        work.stages.append(verdict)
        unsafe = quarantining(episode, work.diff) if name == "syntactic" else []
        if unsafe:  # what an action would do outside the sandbox outranks every other verdict
            verdict.notes.extend(unsafe)
            return "tamper_quarantine", UNSAFE_ACTION
        if not verdict.passed:
            return _route(work, REJECT_SINK[name], verdict.reason or name)
    recorded = episode.lineage.environment_digest
    if fixture is None or fixture.handle is None:
        return _unverifiable(work, _unmatched(episode, fixture))
    if recorded and fixture.s0_digest and recorded != fixture.s0_digest:
        return _unverifiable(
            work,
            Finding("s0_digest_mismatch", f"episode ran on {recorded}, fixture S0 is {fixture.s0_digest}"),
        )
    gym = fixture.handle
    in_gym = is_gym_task(gym)
    brought = isinstance(gym, Fixture) and gym.source == "environment"
    # the oracle would judge another task, or a refusal's text is the log's, not its harness's
    unbound = (instruction_findings(episode, gym) or refusal_findings(episode)) if brought else []
    if unbound:
        return _unverifiable(work, unbound[0])
    if in_gym and episode.source_format != "native":
        return _unverifiable(  # a record's own label decides nothing here: the replay would not run
            work,
            Finding("gym_log_not_replayable", "a gym task's log in another format than the runtime's own"),
        )
    if in_gym and config.seal_key is not None and not faults_sealed(episode, config.seal_key):
        # the replay injects the schedule the log records: one its runtime did not seal is the log's
        unsealed = Finding("faults_not_the_runtimes", "a fault schedule without the runtime's seal")
        work.stages.append(StageVerdict("dynamic", passed=False, findings=[unsealed]))
        return "tamper_quarantine", unsealed.code
    replay, retried = replay_confirmed(episode, fixture, _diff_of(work), config.dynamic.oracle_timeout_s)
    work.writes_measured = replay is not None and replay.result.writes_measured
    if replay is not None and replay.sink is not None:
        work.stages.append(replay.verdict())
        if replay.sink == "tamper_quarantine":
            return replay.sink, replay.reason
        return _route(work, replay.sink, replay.reason)
    if replay is not None:
        work.diff = replay.view
        if episode.outcome.workspace_diff is None:
            # stage 2 judged an empty recorded diff: the replayed state must pass it as a diff would
            static = _timed(lambda: check_static(replay.view, lint=config.lint))
            work.stages = [static if s.stage == "static" else s for s in work.stages]
            if not static.passed:
                return _route(work, REJECT_SINK["static"], static.reason or "static")
    diff = _diff_of(work)
    answer = episode.outcome.final_answer
    dynamic = _timed(lambda: run_dynamic(fixture, diff, answer, config.dynamic))
    if replay is not None:
        replay.record(dynamic)
        dynamic.retries += retried
    work.stages.append(dynamic)
    if not dynamic.passed:
        if dynamic.data["inconsistent"]:
            return _route(work, "flaky_quarantine", dynamic.reason or "flaky_quarantine")
        sink, reason = _route(work, "hard_negative", dynamic.reason or "hard_negative")
        if sink == "hard_negative":  # the rejected side of preference pairs: its events must be real
            events = check_gym_events(episode, fixture, diff, config.seal_key)
            _confirm_events(dynamic, events)
            if events is not None and events.findings:
                return (events.sink or "tamper_quarantine"), events.reason
        return sink, reason
    delta = _timed(
        lambda: audit_delta(
            episode,
            diff,
            fixture,
            config.dynamic.oracle_timeout_s,
            config.differential_key,
            work.writes_measured,
        )
    )
    events = check_gym_events(episode, fixture, diff, config.seal_key) if delta.passed else None
    _confirm_events(delta, events)
    work.stages.append(delta)
    if events is not None and events.sink == "unverifiable":
        return _route(work, events.sink, events.reason)
    if not delta.passed:
        return "tamper_quarantine", delta.reason or "tamper"
    work.stages.append(_timed(lambda: score_advisory(episode, fixture.min_tool_calls)))
    return "admitted", "passed_stages_1_to_4"


def _confirm_events(stage: StageVerdict, events: ReplayCheck | None) -> None:
    """Fold the gym replay (:func:`.replay.check_gym_events`) into the stage that ran it (stage 4
    for an admission, stage 3 for a hard negative): its time, its record and, where the events do
    not give the recorded observations and diff, its findings."""
    if events is None:
        return
    stage.wall_s += events.result.wall_s
    stage.timings["replay_s"] = events.result.wall_s
    stage.data["replay"] = events.result.data()
    if events.findings:
        stage.passed = None if events.sink == "unverifiable" else False
        stage.findings.extend(events.findings)


def _gym_replay(verdict: EpisodeVerdict) -> dict[str, Any]:
    """The replay data of a gym episode (:func:`.replay.check_gym_events`, run in stage 4)."""
    delta = verdict.stage("delta")
    return delta.data.get("replay", {}) if delta else {}


def checked_observations(episode: Episode, replayed: dict[str, Any]) -> list[int] | None:
    """The observations of an admitted episode whose text the verifier checked, the only ones a
    turn may quote (:func:`.fabrication.fabricated_turns`): the answers replay re-derived
    (``verified_answers``), and in a gym log, whose every refusal and compaction passed the
    runtime's checks (:func:`.replay.check_gym_events`), those too. ``None`` when no replay data
    was recorded at all. A brought log's compaction or refusal is the log's own text."""
    if not replayed:
        return None
    checked = list(replayed.get("verified_answers", []))
    if replayed.get("mode") == "gym":
        checked += [i for i, e in enumerate(episode.events) if e.kind in ("refusal", "compaction")]
    return sorted(checked)


def _unverifiable(work: _Work, why: Finding) -> tuple[str, str]:
    """Stage 3 cannot replay the episode: record why and route it to ``unverifiable``."""
    if why.code not in UNVERIFIABLE_REASONS:
        raise ValueError(f"{why.code!r} is not an unverifiable reason {UNVERIFIABLE_REASONS}")
    work.stages.append(StageVerdict("dynamic", passed=None, notes=[why]))
    return _route(work, "unverifiable", why.code)


SHOWN_ID_CHARS = 120
"""How much of an unknown task id a finding repeats (the id comes from the log, and may be long)."""


def _unmatched(episode: Episode, fixture: FixtureContext | None) -> Finding:
    """Why no oracle can judge ``episode``, worded so a person knows what to fix: the log names no
    task (and where its format would name one), names a task nobody registered, or its fixture
    has no oracle."""
    task_id = episode.task.fixture_id
    if not task_id:
        return Finding("no_task_identity", f"the log names no task: {_task_id_hint(episode.source_format)}")
    shown = task_id if len(task_id) <= SHOWN_ID_CHARS else task_id[:SHOWN_ID_CHARS] + "..."
    if fixture is None:
        return Finding("unknown_task", f"task id {shown!r} matches no gym fixture or registered environment")
    return Finding("no_oracle", f"fixture {shown!r} has no oracle to replay against")


def _task_id_hint(source_format: str) -> str:
    """Where a log of ``source_format`` would name its task (the adapter says), for the finding."""
    adapter = ADAPTERS.get(source_format)
    if adapter is not None and adapter.task_id_source:
        return (
            f"{adapter.name} records name it in {adapter.task_id_source}, or a {TASK_MAP_FILE} beside "
            "the logs does (docs/formats.md)"
        )
    recorded = f"{adapter.name} logs record no task id; " if adapter is not None else ""
    return (
        f"{recorded}name it in a {TASK_MAP_FILE} beside the logs, or write native records with "
        "task.fixture_id, or OpenAI / Anthropic records with metadata.task_id (docs/formats.md)"
    )


def _route(work: _Work, sink: str, reason: str) -> tuple[str, str]:
    """An episode leaving early still gets the diff tamper screen: gaming evidence outranks any
    reject (untidiness such as a stray file only matters for an episode about to be admitted)."""
    start = time.perf_counter()
    diff = work.diff
    screen = screen_diff(work.episode, diff, work.fixture, work.writes_measured) if diff is not None else []
    findings = [f for f in screen if f.code in TAMPER_CODES]
    work.routing_s = time.perf_counter() - start
    if findings:
        work.stages[-1].notes.extend(findings)
        return "tamper_quarantine", findings[0].code
    return sink, reason


def _skipped_dynamic(work: _Work, config: CascadeConfig) -> StageVerdict | None:
    """Stage 3 on an episode the cascade rejected before it, run and timed for the monolithic
    costing (on the pool, with the episode's own stages: it is an oracle run like theirs)."""
    fixture = work.fixture
    if fixture is None or fixture.handle is None or any(v.stage == "dynamic" for v in work.stages):
        return None
    diff = work.diff if work.diff is not None and work.diff.post is not None else DiffView(text="")
    answer = work.episode.outcome.final_answer
    return _timed(partial(run_dynamic, fixture, diff, answer, config.dynamic))


def _monolithic_extras(work: _Work, config: CascadeConfig) -> None:
    """The stage 2 and advisory runs the monolithic order needs and the cascade skipped, measured
    while the episode and its diff are at hand (its batch), so the costing after the last batch
    needs neither. Only an episode the cascade stopped short needs them; the flaky quarantine
    later only turns a passed stage 3 into a failed one, which needs less, never more."""
    measured = {v.stage: v for v in work.stages}
    judged = measured.get("dynamic") or work.skipped_dynamic
    if judged is None or not judged.passed:
        return
    static = measured.get("static") or _timed(partial(check_static, _diff_of(work), lint=config.lint))
    work.monolithic["static"] = static
    if static.passed and "advisory" not in measured:
        work.monolithic["advisory"] = _timed(
            partial(score_advisory, work.episode, _fixture_of(work).min_tool_calls)
        )


def _calibrate_fixtures(
    fixtures: dict[str, FixtureContext], config: CascadeConfig, pool: ThreadPoolExecutor
) -> tuple[dict[str, list[bool]], float, CalibrationCache]:
    """Calibrate every timing-sensitive fixture of the input once (stage-3 work, timed), through the
    cache when the config names one; fixtures in parallel on the pool, each counted in its own
    :class:`CalibrationCache` (its counters are not shared between threads), then summed."""
    start = time.perf_counter()
    caches = [CalibrationCache(config.calibration_cache) for _ in fixtures]
    outcomes = pool.map(
        under_judge_servers(lambda cache, fixture: cache.calibrate(fixture, config.dynamic)),
        caches,
        fixtures.values(),
    )
    calibration = dict(zip(fixtures, outcomes, strict=True))
    return calibration, time.perf_counter() - start, CalibrationCache.summed(config.calibration_cache, caches)


def _mark_retired(work: _Work, retired: set[str]) -> None:
    """Stage 3 on a fixture whose reference disagreed with itself in calibration is marked
    ``fixture_retired`` (counted apart from R_flake: calibration explained it beforehand)."""
    dynamic = next((s for s in work.stages if s.stage == "dynamic"), None)
    if dynamic is not None and dynamic.data.get("runs") and _fixture_of(work).fixture_id in retired:
        dynamic.data["fixture_retired"] = True


def _disagreed(verdict: EpisodeVerdict) -> bool:
    """Did the episode's repeated oracle runs disagree?"""
    dynamic = verdict.stage("dynamic")
    return dynamic is not None and bool(dynamic.data.get("inconsistent"))


def _quarantine_flaky(record: _Kept, flaky: set[str]) -> None:
    """An episode on a flaky fixture goes to flaky quarantine, whichever way its own runs went.

    A fixture is flaky when its reference disagrees with itself in calibration. A fixture on which an
    episode's repeated runs disagreed (that counts in R_flake: nothing explained it beforehand) has
    its reference calibrated after pass 2, if it was not already: a solution can disagree with itself
    too (``random() < 0.5``, a read of the run's schedule seed), and one such episode took every
    honest episode of its fixture into quarantine with it. Only a fixture without a reference to
    calibrate is judged by its episodes' runs alone. So this is decided after the last batch
    (:func:`verify_batches`' pass 3). An
    admitted episode flipped here keeps its stage-3 verdict as the last one (now failed); the delta
    and advisory work already spent on it is added to stage 3's measured cost, so the ledger's chain
    (entered_i+1 = passed_i) still holds. A flipped episode is marked ``rejudge``: what follows from
    its new sink (triage) is decided again, with the episode.
    """
    verdict = record.verdict
    if verdict.sink not in ("admitted", "hard_negative") or record.fixture_id not in flaky:
        return
    index = next(i for i, s in enumerate(verdict.stages) if s.stage == "dynamic")
    dynamic = verdict.stages[index]
    dynamic.timings["own_wall_s"] = dynamic.wall_s
    dynamic.wall_s += sum(s.wall_s for s in verdict.stages[index + 1 :])
    del verdict.stages[index + 1 :]
    dynamic.passed = False
    dynamic.data["fixture_oracle_flaky"] = True
    dynamic.findings.append(Finding("fixture_oracle_flaky", "this fixture's oracle disagrees with itself"))
    verdict.sink, verdict.reason = "flaky_quarantine", "fixture_oracle_flaky"
    record.rejudge = True


def _judge(work: _Work, sink: str, reason: str) -> EpisodeVerdict:
    """What follows from the sink: role and targets, divergence (triage follows in the last pass,
    :func:`_triage`)."""
    verdict = EpisodeVerdict(work.episode.episode_id, sink, reason, stages=work.stages)
    if work.fixture is not None and isinstance(work.fixture.handle, Fixture):
        verdict.verifier_suite_digest = verifier_suite_digest(work.fixture.handle)
    advisory, dynamic = verdict.stage("advisory"), verdict.stage("dynamic")
    verdict.advisory_score = advisory.data["score"] if advisory else None
    verdict.oracle_runs = dynamic.data.get("runs", 0) if dynamic else 0
    if sink == "admitted":
        replayed = dynamic.data.get("replay", {}) if dynamic else {}
        statuses_verified = replayed.get("mode") != "none"  # a spec-less environment re-ran nothing
        unreplayed = replayed.get("unreplayed_answers", [])  # answers of calls replay did not re-run
        checked = checked_observations(work.episode, replayed or _gym_replay(verdict))
        label = label_admitted(
            work.episode, _fixture_of(work).min_tool_calls, statuses_verified, unreplayed, checked
        )
        verdict.role, verdict.t_div, verdict.t_rec = label.role, label.t_div, label.t_rec
        verdict.t_div_reason = label.t_div_reason
        verdict.target_turns, verdict.turn_reasons = label.target_turns, label.turn_reasons
    elif sink == "hard_negative":
        verdict.role = "hard_negative"
        verdict.t_div, verdict.t_div_reason = divergence_turn(work.episode)
    return verdict


def _pending_triage(work: _Work, verdict: EpisodeVerdict, config: CascadeConfig) -> PendingTriage | None:
    """A failing episode's triage gates (:func:`pending_triage`), decided on the episode as
    verification left it (replay establishes statuses a log left out); resolved in the last pass,
    once the batch's refusal rates are known (:class:`RefusalTally`)."""
    ended_badly = work.episode.outcome.terminal_status not in (None, "completed")
    if verdict.sink not in TRIAGED_SINKS and not (verdict.sink == "unverifiable" and ended_badly):
        return None
    dynamic = verdict.stage("dynamic")
    return pending_triage(
        work.episode, work.fixture, dynamic.data if dynamic else {}, verdict.t_div, config.seal_key
    )


def _triage(
    verdict: EpisodeVerdict, pending: PendingTriage | None, config: CascadeConfig, rates: Rates
) -> None:
    """``verdict``'s triage fields, from its pending gates and the batch's refusal rates."""
    if pending is None:
        return
    tri = pending.resolve(rates, config.ambiguity_threshold)
    verdict.triage_class, verdict.triage_subject = tri.failure_class, tri.subject
    verdict.triage_evidence = tri.evidence


def _verify_one(work: _Work, config: CascadeConfig) -> tuple[str, str]:
    """One episode's share of the pool: its stages, then (when the monolithic order is costed) the
    stage runs the cascade skipped for it."""
    outcome = _run_stages(work, config)
    if config.cost_monolithic:
        work.skipped_dynamic = _skipped_dynamic(work, config)
        _monolithic_extras(work, config)
    return outcome


def _run_pool(
    works: list[_Work], config: CascadeConfig, pool: ThreadPoolExecutor, progress: tqdm
) -> list[tuple[str, str]]:
    """Every episode of a batch on the pool of ``config.workers`` threads; outcomes in input order.

    Threads suffice: an episode's time is almost all spent waiting on its sandboxed processes
    (blocking waits release the GIL), and its Python-side work is a few percent of it. Each episode
    touches only its own ``_Work``; what they share (fixture contexts, the gym library) is read
    only. The progress bar advances as episodes finish. The first exception raised in an episode
    is raised here, unchanged except for a note naming the episode, once the episodes already
    running have finished; episodes not started yet are dropped.
    """
    futures: dict[Future[tuple[str, str]], _Work] = {
        pool.submit(under_judge_servers(_verify_one), work, config): work for work in works
    }
    pending: set[Future[tuple[str, str]]] = set(futures)
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                error = future.exception()
                if error is not None:
                    error.add_note(f"while verifying episode {futures[future].episode.episode_id}")
                    raise error
                progress.update()
    except BaseException:  # an episode's error, or Ctrl-C: start no further episode
        pool.shutdown(cancel_futures=True)
        raise
    return [future.result() for future in futures]


EpisodeBatches = Callable[[], Iterable[list[Episode]]]
"""The episodes to verify, as batches in a fixed order, read afresh on every call (a Parquet file
read ``batch_rows`` rows at a time, or slices of a list): verification passes over its input up to
three times and holds one batch of :class:`Episode` objects at a time."""
EmitBatch = Callable[[list[Episode], list[EpisodeVerdict]], None]
"""Receives each batch's episodes (their task identity adopted from the fixture) with their final
verdicts, in input order: how a caller writes the verified table without holding the corpus."""


def parquet_batches(path: Path, batch_rows: int) -> EpisodeBatches:
    """A trace table's episodes (``EPISODE_SCHEMA`` columns of a Parquet file), ``batch_rows`` at a
    time, read afresh on each call."""

    def batches() -> Iterable[list[Episode]]:
        return (table_to_episodes(t) for t in read_batches(path, batch_rows, EPISODE_SCHEMA.names))

    return batches


@dataclass
class _Kept:
    """What outlives an episode's batch until pass 3 (on disk, :class:`_Spill`): its verdict, its
    fixture's id (advisory ranking, flaky quarantine), the measured work the ledger costs and its
    triage gates awaiting the batch's refusal rates. The episode and its diff are dropped."""

    verdict: EpisodeVerdict
    fixture_id: str | None
    routing_s: float
    skipped_dynamic: StageVerdict | None
    monolithic: dict[str, StageVerdict]
    triage: PendingTriage | None = None
    rejudge: bool = False


@dataclass
class _Survey:
    """The first, light pass: what the cascade needs to know about the whole input before it
    judges any episode (the fixtures to calibrate)."""

    episodes: int = 0
    judged: bool = False
    calibrate: dict[str, FixtureContext] = field(default_factory=dict)


def _adopted(episodes: list[Episode], lookup: Callable[[str | None], FixtureContext | None]) -> list[_Work]:
    """The batch's works: each episode with its fixture, its task identity adopted from it."""
    works = [_Work(e, lookup(e.task.fixture_id)) for e in episodes]
    for work in works:
        work.relabelled = adopt_task_identity(work.episode, work.fixture)
    return works


def _shared_lookup(fixtures_lookup: FixturesLookup | None) -> Callable[[str | None], FixtureContext | None]:
    """A lookup that builds each fixture's context once, for the passes that only read it (the
    survey, the last pass); the cascade's pass gives every episode its own, as stage 2 writes to it."""
    contexts: dict[str | None, FixtureContext | None] = {}

    def lookup(fixture_id: str | None) -> FixtureContext | None:
        if fixture_id not in contexts:
            contexts[fixture_id] = lookup_context(fixtures_lookup, fixture_id)
        return contexts[fixture_id]

    return lookup


def _survey(batches: EpisodeBatches, fixtures_lookup: FixturesLookup | None) -> _Survey:
    """Pass 1: the whole input's size and its timing-sensitive fixtures."""
    survey, lookup = _Survey(), _shared_lookup(fixtures_lookup)
    for batch in batches():
        # no adoption here: pass 2 notes the task fields a log records otherwise, and adopting now
        # would rewrite an in-memory input before it could see them
        works = [_Work(e, lookup(e.task.fixture_id)) for e in batch]
        survey.episodes += len(works)
        for work in works:
            fixture = work.fixture
            survey.judged |= fixture is not None
            if fixture is not None and fixture.handle is not None and fixture.timing_sensitive:
                survey.calibrate.setdefault(fixture.fixture_id, fixture)
    return survey


class _Spill:
    """Pass 2's records (:class:`_Kept`), a batch at a time, in an anonymous temporary file.

    A record is a few KB (the verdict with its stage verdicts and findings, the work the ledger
    costs); kept in memory for the whole input they were the stage's peak (~0.9 GB at 100k
    episodes). They wait here until what needs every batch (the flaky quarantine, the advisory
    ranking) is decided, and pass 3 reads them back a batch at a time beside the same input batch.
    Pickled: they are this process's own objects, written and read back by this run only; the file
    (:func:`verify_batches` opens it) is gone when the run ends, whichever way.
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file = file

    def write(self, records: list[_Kept]) -> None:
        pickle.dump(records, self._file, protocol=pickle.HIGHEST_PROTOCOL)

    def read(self) -> Iterator[list[_Kept]]:
        self._file.seek(0)
        while True:
            try:
                yield pickle.load(self._file)
            except EOFError:
                return


@dataclass
class _Across:
    """What pass 2 learns about the whole input that pass 3 needs to finish any episode's verdict:
    the fixtures whose oracle disagreed with itself on some episode, and the admitted episodes'
    ranking keys (fixture, -advisory score, id) as Arrow columns, about 60 bytes an admitted
    episode: the one per-episode term verification keeps in memory (a rank is a position among
    every admitted episode of its fixture, in any batch)."""

    episodes: int = 0
    flaky: set[str] = field(default_factory=set)
    keys: list[pa.Table] = field(default_factory=list)
    refusals: RefusalTally = field(default_factory=RefusalTally)

    def add(self, records: list[_Kept]) -> None:
        admitted = [r for r in records if r.verdict.sink == "admitted"]
        self.keys.append(
            pa.table(
                {
                    "fixture_id": pa.array([r.fixture_id for r in admitted], pa.string()),
                    "neg_score": pa.array(
                        [-(r.verdict.advisory_score or 0.0) for r in admitted], pa.float64()
                    ),
                    "episode_id": pa.array([r.verdict.episode_id for r in admitted], pa.string()),
                    "position": pa.array(range(self.episodes, self.episodes + len(admitted)), pa.int64()),
                }
            )
        )
        self.episodes += len(records)
        self.flaky.update(record.fixture_id or "" for record in records if _disagreed(record.verdict))

    def ranks(self, flaky: set[str]) -> np.ndarray:
        """Advisory ranks of the episodes still admitted once ``flaky``'s are quarantined, in input
        order: 1 = preferred among the admitted episodes of its fixture (higher score, then id)."""
        if not self.keys:
            return np.zeros(0, np.int64)
        keys, self.keys = pa.concat_tables(self.keys), []
        flaky_ids = pa.array(sorted(flaky), pa.string())
        keys = keys.filter(pc.invert(pc.fill_null(pc.is_in(keys["fixture_id"], value_set=flaky_ids), False)))
        keys = keys.set_column(0, "fixture_id", pc.fill_null(keys["fixture_id"], ""))
        if not keys.num_rows:
            return np.zeros(0, np.int64)
        order = pc.sort_indices(
            keys,
            sort_keys=[(name, "ascending") for name in ("fixture_id", "neg_score", "episode_id", "position")],
        ).to_numpy()
        groups = pc.dictionary_encode(keys["fixture_id"].take(order)).combine_chunks().indices.to_numpy()
        first = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        starts = np.repeat(first, np.diff(np.r_[first, len(groups)]))
        ranks = np.empty(len(order), np.int64)
        ranks[order] = np.arange(len(order)) - starts + 1
        return ranks


@dataclass
class _Totals:
    """Pass 3's running sums over final verdicts: the ledger's counters, the counts a summary
    reports, the triage groups; everything the run returns, none of it per episode."""

    calibration_s: float
    stages: dict[str, StageCost] = field(default_factory=lambda: {name: StageCost(name) for name in STAGES})
    monolithic: list[StageCost] = field(
        default_factory=lambda: [StageCost("dynamic"), StageCost("static"), StageCost("advisory")]
    )
    routing_s: float = 0.0
    oracle_runs: int = 0
    inconsistent: int = 0
    judged: int = 0
    tallies: VerdictTally = field(default_factory=VerdictTally)
    triage: TriageTally = field(default_factory=TriageTally)

    def add(self, record: _Kept) -> None:
        verdict = record.verdict
        for stage in verdict.stages:
            cost = self.stages[stage.stage]
            cost.entered += 1
            cost.passed += bool(stage.passed)
            cost.wall_s += stage.wall_s
        self._monolithic(record)
        self.routing_s += record.routing_s
        self.oracle_runs += verdict.oracle_runs
        dynamic = verdict.stage("dynamic")
        inconsistent, judged, _ = count_flakes([dynamic.data] if dynamic else [])
        self.inconsistent += inconsistent
        self.judged += judged
        self.tallies.add(verdict)
        if verdict.triage_class is not None:
            self.triage.add(
                verdict.episode_id,
                TriageVerdict(verdict.triage_class, verdict.triage_subject or "", verdict.triage_evidence),
            )

    def _monolithic(self, record: _Kept) -> None:
        """Cost the episode in the naive order (napkin math 0.2): dynamic first, then static, then
        the advisory stage. Only the order differs: stage 3 is the same stage (re-runs and fixture
        calibration included). Work the cascade already measured is reused; work it skipped was run
        and timed on the pool: stage 3 for an episode stage 1 or 2 rejected (:func:`_skipped_dynamic`),
        stage 2 for one stage 1 rejected and the advisory stage where the cascade stopped short
        (:func:`_monolithic_extras`)."""
        dynamic_cost, static_cost, advisory_cost = self.monolithic
        measured = {**record.monolithic, **{v.stage: v for v in record.verdict.stages}}
        dynamic_cost.entered += 1
        judged = measured.get("dynamic") or record.skipped_dynamic
        if judged is None or judged.passed is None:
            return
        dynamic_cost.wall_s += judged.timings.get("own_wall_s", judged.wall_s)
        if not judged.passed:
            return
        dynamic_cost.passed += 1
        static_cost.entered += 1
        static = measured["static"]
        static_cost.wall_s += static.wall_s
        if not static.passed:
            return
        static_cost.passed += 1
        advisory = measured.get("advisory")
        if advisory is None:  # stopped at stage 4 in a run that does not cost the naive order
            return
        advisory_cost.entered += 1
        advisory_cost.wall_s += advisory.wall_s
        advisory_cost.passed += 1

    def ledger(self, config: CascadeConfig, retired: set[str]) -> Ledger:
        stages = [self.stages[name] for name in STAGES]
        stages[STAGES.index("dynamic")].wall_s += self.calibration_s
        if config.cost_monolithic:
            self.monolithic[0].wall_s += self.calibration_s
        return Ledger(
            attempts=self.tallies.episodes,
            stages=stages,
            monolithic=self.monolithic if config.cost_monolithic else [],
            routing_wall_s=self.routing_s,
            oracle_runs=self.oracle_runs,
            dynamic_verified=self.judged,
            inconsistent=self.inconsistent,
            retired_fixtures=sorted(retired),
            yield_band=config.yield_band,
        )


def verify_episodes(
    episodes: list[Episode], fixtures_lookup: FixturesLookup | None, config: CascadeConfig | None = None
) -> CascadeResult:
    """Run the cascade over ``episodes`` (already in memory: a day's partition, a round's samples);
    ``fixtures_lookup`` maps fixture_id -> gym fixture (or a :class:`FixtureContext`; see
    :func:`fixtures_lookup`), ``None`` for none. Every episode gets exactly one verdict, in input
    order, kept in the result (the input is in memory already; a corpus read from a file goes
    through :func:`verify_batches`, which keeps none); ``episodes`` get their task identity adopted
    (:func:`adopt_task_identity`)."""
    config = config or CascadeConfig()
    size = config.batch_rows
    verdicts: list[EpisodeVerdict] = []

    def batches() -> Iterable[list[Episode]]:
        return (episodes[start : start + size] for start in range(0, len(episodes), size))

    result = verify_batches(batches, fixtures_lookup, config, lambda _, batch: verdicts.extend(batch))
    result.verdicts = verdicts
    return result


def verify_batches(
    batches: EpisodeBatches,
    fixtures_lookup: FixturesLookup | None,
    config: CascadeConfig | None = None,
    emit: EmitBatch | None = None,
) -> CascadeResult:
    """The cascade over an input read in batches, in bounded memory (docs/operations.md, "Batch
    sizes and the memory bound"); the verdicts are the same for any batch size. The result keeps
    no verdict: ``emit`` receives every batch with its final verdicts (to write them), and the
    result holds the ledger, the triage report and the counts.

    Pass 1 (light) gathers what judging needs about the whole input (its size, the
    timing-sensitive fixtures to calibrate); pass 2 runs the stages a batch at a time on the pool,
    spills each episode's record to disk (:class:`_Spill`, with its triage gates pending) and keeps
    only what spans batches (:class:`_Across`: the flaky fixtures, the advisory ranking keys, the
    refusal rates of what was verified); pass 3 re-reads the input and the spill batch by batch,
    finishes each verdict (flaky quarantine, advisory rank, the moved episodes judged again, triage
    with the whole input's refusal rates), sums the ledger and counts (:class:`_Totals`), and emits it.
    """
    config = config or CascadeConfig()
    swept = sweep()
    survey = _survey(batches, fixtures_lookup)
    if survey.judged:
        isolation.require()  # refuse before any stage runs, not halfway through the input
    across = _Across()
    progress = tqdm(
        total=survey.episodes, desc="verify", unit="ep", file=sys.stderr, disable=not config.progress or None
    )
    with tempfile.TemporaryFile(prefix="tp-verify-") as file:
        spill = _Spill(file)
        pool = ThreadPoolExecutor(config.workers, thread_name_prefix="verify")
        with progress, judge_servers() if config.keep_judges else contextlib.nullcontext(), pool:
            calibration, calibration_s, calibration_cache = _calibrate_fixtures(
                survey.calibrate, config, pool
            )
            retired = {fid for fid, runs in calibration.items() if len(set(runs)) > 1}
            suspects: dict[str, FixtureContext] = {}
            for batch in batches():
                works = _adopted(batch, partial(lookup_context, fixtures_lookup))
                records = []
                for work, (sink, reason) in zip(works, _run_pool(works, config, pool, progress), strict=True):
                    _mark_retired(work, retired)
                    verdict = _judge(work, sink, reason)
                    dynamic = verdict.stage("dynamic")
                    across.refusals.add(work.episode, work.fixture, dynamic.data if dynamic else {})
                    triage = _pending_triage(work, verdict, config)
                    fixture_id = work.fixture.fixture_id if work.fixture is not None else None
                    records.append(
                        _Kept(
                            verdict, fixture_id, work.routing_s, work.skipped_dynamic, work.monolithic, triage
                        )
                    )
                    if _disagreed(verdict) and work.fixture is not None and work.fixture.handle is not None:
                        suspects.setdefault(work.fixture.fixture_id, work.fixture)
                across.add(records)
                spill.write(records)
            checked, checked_s, checked_cache = _calibrate_fixtures(
                {fid: f for fid, f in sorted(suspects.items()) if fid not in calibration}, config, pool
            )
        calibration_s += checked_s
        calibration_cache = CalibrationCache.summed(
            config.calibration_cache, [calibration_cache, checked_cache]
        )
        calibrated = {**calibration, **checked}
        flaky = {fid for fid, runs in calibrated.items() if len(set(runs)) > 1} | (
            across.flaky - set(calibrated)
        )
        if across.episodes != survey.episodes:
            raise RuntimeError("the episodes to verify changed between passes over the input")
        totals = _Totals(calibration_s)
        _last_pass(batches, spill, across, flaky, fixtures_lookup, config, totals, emit)
    ledger = totals.ledger(config, retired)
    funnel = {"attempts": totals.tallies.episodes, **{f"passed_{s.stage}": s.passed for s in ledger.stages}}
    return CascadeResult([], ledger, totals.triage.table(), totals.tallies, funnel, swept, calibration_cache)


def _last_pass(
    batches: EpisodeBatches,
    spill: _Spill,
    across: _Across,
    flaky: set[str],
    fixtures_lookup: FixturesLookup | None,
    config: CascadeConfig,
    totals: _Totals,
    emit: EmitBatch | None,
) -> None:
    """Pass 3: each batch beside its spilled records; every verdict finished (flaky quarantine,
    advisory rank, judged again when the quarantine moved it), counted in ``totals`` and handed,
    with its batch, to ``emit``. A source that gives other episodes than pass 2 saw is refused."""
    ranks, ranked, rates = across.ranks(flaky), 0, across.refusals.rates()
    lookup, stored = _shared_lookup(fixtures_lookup), spill.read()
    for batch in batches():
        records = next(stored, [])
        if [e.episode_id for e in batch] != [r.verdict.episode_id for r in records]:
            raise RuntimeError("the episodes to verify changed between passes over the input")
        for work, record in zip(_adopted(batch, lookup), records, strict=True):
            _quarantine_flaky(record, flaky)
            if record.verdict.sink == "admitted":
                record.verdict.advisory_rank, ranked = int(ranks[ranked]), ranked + 1
            if record.rejudge:
                work.stages = record.verdict.stages
                record.verdict = _judge(work, record.verdict.sink, record.verdict.reason)
                record.triage = _pending_triage(work, record.verdict, config)
            _triage(record.verdict, record.triage, config, rates)
            totals.add(record)
        if emit is not None:
            emit(batch, [r.verdict for r in records])
    if next(stored, None) is not None:
        raise RuntimeError("the episodes to verify changed between passes over the input")
