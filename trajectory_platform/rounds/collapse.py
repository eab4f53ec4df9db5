"""The collapse watch: per-round health figures and the halt decision against the previous round.

Curation §Collapse: a model trained on its own outputs loses the tails of its distribution; for an
agent the symptoms are fewer distinct action sequences per task, and (fine-tuning's failure modes)
more fabricated observations and runaway turns. Each figure is read from the round's logged
trajectories and verdicts, never from a policy's telemetry, so a scripted sampler and a checkpoint
are watched by the same code. A drop beyond a declared tolerance is a halt with a reason a person
can read; the loop does not continue past it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass

from trajectory_platform.curation.dedup import action_sequence
from trajectory_platform.gym.protocol import TOOL_OPEN
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

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


@dataclass(frozen=True)
class CollapseDecision:
    """``halt`` with every reason that tripped, or continue (``reasons`` empty)."""

    halt: bool
    reasons: tuple[str, ...]


def _fabricated(episode: Episode) -> bool:
    return any(e.kind == "assistant" and TOOL_OPEN in (e.content or "") for e in episode.events)


def _runaway(episode: Episode) -> bool:
    return any(e.kind == "assistant" and e.finish_reason == "length" for e in episode.events)


def round_health(sample: RoundSample) -> RoundHealth:
    """The round's diversity, acceptance, fabrication and runaway figures."""
    episodes = sample.episodes
    if not episodes:
        raise ValueError(f"round {sample.round_index} has no attempts to watch")
    per_task: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for episode in episodes:
        per_task[episode.task.fixture_id or episode.episode_id].add(action_sequence(episode))
    n = len(episodes)
    return RoundHealth(
        round_index=sample.round_index,
        attempts=n,
        distinct_sequences=len({action_sequence(e) for e in episodes}),
        distinct_per_task=sum(len(s) for s in per_task.values()) / len(per_task),
        acceptance=sum(1 for c in sample.candidates if c.sink == "admitted") / n,
        fabricated_rate=sum(map(_fabricated, episodes)) / n,
        runaway_rate=sum(map(_runaway, episodes)) / n,
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
    checks = (
        ("acceptance", previous.acceptance - current.acceptance, settings.max_acceptance_drop, "fell"),
        (
            "fabricated-observation rate",
            current.fabricated_rate - previous.fabricated_rate,
            settings.max_fabrication_rise,
            "rose",
        ),
        ("runaway rate", current.runaway_rate - previous.runaway_rate, settings.max_runaway_rise, "rose"),
    )
    for name, change, tolerance, verb in checks:
        if change > tolerance:
            reasons.append(
                f"{name} {verb} by {change:.3f} from round {previous.round_index} to round "
                f"{current.round_index}, beyond the {tolerance:.3f} tolerance"
            )
    return CollapseDecision(bool(reasons), tuple(reasons))
