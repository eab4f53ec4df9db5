"""The collapse watch: per-round health figures and the halt decision against the previous round.

Curation §Collapse: a model trained on its own outputs loses the tails of its distribution; for an
agent the symptoms are fewer distinct action sequences per task, and (fine-tuning's failure modes)
more fabricated observations and runaway turns. Each figure is read from the round's logged
trajectories and verdicts, never from a policy's telemetry, so a scripted sampler and a checkpoint
are watched by the same code. Two more come from the round's release scorecard: acceptance on the
held-out families (its ``acceptance`` suite, split-disjoint from training) and on the retention
suite (task kinds outside the training focus), because a loop can keep raising the training
families' pass rate while those stall or fall (curation §Collapse: stop the loop when held-out
families stall even if the training-family pass rate still rises). A drop beyond a declared
tolerance is a halt with a reason a person can read; the loop does not continue past it.

The per-round audit (:func:`audit_sample`) draws a seeded random sample of the admitted
trajectories for a person to read: a shortcut the cascade misses is admitted, trained on and
produced more often each round, so a sample is audited every round, not only the first.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.dedup import action_sequence
from trajectory_platform.curation.verify.fabrication import fabricated_turns
from trajectory_platform.rounds.sampling import RoundSample
from trajectory_platform.rounds.settings import CollapseSettings
from trajectory_platform.traces.record import Episode


@dataclass(frozen=True)
class RoundHealth:
    """What the collapse watch measures on one round's attempts (rates are shares of attempts)."""

    round_index: int
    attempts: int
    distinct_sequences: int
    distinct_per_task: float
    acceptance: float
    fabricated_rate: float
    runaway_rate: float
    heldout_acceptance: float | None = None
    retention_acceptance: float | None = None

    def to_dict(self) -> dict[str, float | int | None]:
        return asdict(self)


@dataclass(frozen=True)
class CollapseDecision:
    """``halt`` with every reason that tripped, or continue (``reasons`` empty)."""

    halt: bool
    reasons: tuple[str, ...]


def _fabricated(episode: Episode) -> bool:
    """Whether a turn of ``episode`` writes a tool's output itself, by the verifier's one rule
    (:func:`~trajectory_platform.curation.verify.fabrication.fabricated_turns`): a wire-form result,
    or a tally or transcript no tool printed. A round whose policy learned to quote ``2 passed``
    instead of running the tests is the collapse this figure watches for."""
    return bool(fabricated_turns(episode))


def _runaway(episode: Episode) -> bool:
    return any(e.kind == "assistant" and e.finish_reason == "length" for e in episode.events)


def scorecard_acceptance(scorecard: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """Held-out and retention acceptance of a scorecard's candidate arm (the checkpoint the round
    trained); ``None`` for a suite the scorecard did not run."""
    acceptance = scorecard.get("acceptance") or {}
    retention = scorecard.get("retention") or {}
    return acceptance.get("candidate"), retention.get("candidate")


def round_health(sample: RoundSample, scorecard: Mapping[str, Any] | None = None) -> RoundHealth:
    """The round's diversity, acceptance, fabrication and runaway figures, and with ``scorecard``
    (the release scorecard of the checkpoint that sampled this round) held-out and retention
    acceptance."""
    episodes = sample.episodes
    if not episodes:
        raise ValueError(f"round {sample.round_index} has no attempts to watch")
    per_task: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for episode in episodes:
        per_task[episode.task.fixture_id or episode.episode_id].add(action_sequence(episode))
    n = len(episodes)
    heldout, retention = scorecard_acceptance(scorecard) if scorecard is not None else (None, None)
    return RoundHealth(
        round_index=sample.round_index,
        attempts=n,
        distinct_sequences=len({action_sequence(e) for e in episodes}),
        distinct_per_task=sum(len(s) for s in per_task.values()) / len(per_task),
        acceptance=sum(1 for c in sample.candidates if c.sink == "admitted") / n,
        fabricated_rate=sum(map(_fabricated, episodes)) / n,
        runaway_rate=sum(map(_runaway, episodes)) / n,
        heldout_acceptance=heldout,
        retention_acceptance=retention,
    )


def collapse_decision(
    previous: RoundHealth, current: RoundHealth, settings: CollapseSettings
) -> CollapseDecision:
    """Halt when any figure moved the wrong way by more than its tolerance since ``previous``."""
    reasons = []
    if previous.distinct_per_task > 0:
        drop = 1.0 - current.distinct_per_task / previous.distinct_per_task
        if drop > settings.max_diversity_drop:
            reasons.append(
                f"distinct action sequences per task fell {drop:.0%} ({previous.distinct_per_task:.2f} -> "
                f"{current.distinct_per_task:.2f}), beyond the {settings.max_diversity_drop:.0%} tolerance"
            )
    checks: list[tuple[str, float, float, str]] = [
        ("acceptance", previous.acceptance - current.acceptance, settings.max_acceptance_drop, "fell"),
        (
            "fabricated-observation rate",
            current.fabricated_rate - previous.fabricated_rate,
            settings.max_fabrication_rise,
            "rose",
        ),
        ("runaway rate", current.runaway_rate - previous.runaway_rate, settings.max_runaway_rise, "rose"),
    ]
    suites = (
        (
            "held-out acceptance",
            previous.heldout_acceptance,
            current.heldout_acceptance,
            settings.max_heldout_drop,
        ),
        (
            "retention acceptance",
            previous.retention_acceptance,
            current.retention_acceptance,
            settings.max_retention_drop,
        ),
    )
    for name, before, after, tolerance in suites:
        if before is None:
            continue  # nothing to compare against yet
        if after is None:
            reasons.append(
                f"{name} was measured in round {previous.round_index} but not in round "
                f"{current.round_index}: the watch cannot pass a figure it did not see"
            )
        else:
            checks.append((name, before - after, tolerance, "fell"))
    for name, change, tolerance, verb in checks:
        if change > tolerance:
            reasons.append(
                f"{name} {verb} by {change:.3f} from round {previous.round_index} to round "
                f"{current.round_index}, beyond the {tolerance:.3f} tolerance"
            )
    return CollapseDecision(bool(reasons), tuple(reasons))


@dataclass(frozen=True)
class AuditEntry:
    """One admitted trajectory drawn for the audit, summarized for a person: which task, the role
    the cascade gave it, and the tools it called in order (names only: arguments can carry file
    content, and the audit report must not copy a secret the redaction stage has not seen yet)."""

    episode_id: str
    fixture_id: str | None
    role: str | None
    assistant_turns: int
    tools: tuple[str, ...]
    terminal_status: str | None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tools": list(self.tools)}


def audit_sample(admitted: Sequence[Candidate], size: int, seed: int, round_index: int) -> list[AuditEntry]:
    """A seeded random sample of ``size`` admitted trajectories (all when fewer), by episode id.

    The draw depends on the seed, the round and the set of ids, never on the input order, so a
    rerun of the round audits the same trajectories."""
    refused = [c.episode_id for c in admitted if c.sink != "admitted"]
    if refused:
        raise ValueError(f"the audit samples admitted trajectories only; not admitted: {refused[:5]}")
    pool = sorted(admitted, key=lambda c: c.episode_id)
    drawn = random.Random(f"{seed}:audit:{round_index}").sample(pool, min(size, len(pool)))
    return [
        AuditEntry(
            episode_id=c.episode_id,
            fixture_id=c.fixture_id,
            role=c.role,
            assistant_turns=sum(1 for e in c.episode.events if e.kind == "assistant"),
            tools=tuple(
                call.name or "?" for e in c.episode.events if e.kind == "assistant" for call in e.tool_calls
            ),
            terminal_status=c.episode.outcome.terminal_status,
        )
        for c in sorted(drawn, key=lambda c: c.episode_id)
    ]
