"""Task selection in the informative band: sample where P_inform(p, k) says the signal lives.

Curation eq. 3: a task solved with probability ``p`` yields a mix of passes and failures among ``k``
attempts with probability ``1 - (1-p)^k - p^k``. Tasks the sampler never solves give no successes and
tasks it always solves give trajectories it already produces, so the round's budget goes to tasks
whose P_inform lies in the declared band. ``p`` is estimated from verified outcomes of a learned
sampler only (:func:`learned_outcomes`: attempts a round sampled), or from a pilot of the round's own
sampler (:func:`pilot_estimates`); the per-task statistics are curation's (``dedup.fixture_signal``),
not recomputed here. The corpus's outcomes never estimate it: they are the scripted policies', whose
success says nothing about the checkpoint's (on the embedded default they are all-or-nothing per
task, so every task read as outside the band).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.dedup import FixtureSignal, fixture_signal
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.runtime import RuntimeConfig
from trajectory_platform.rounds.sampling import RoundSample, Sampler, round_of, sample_round
from trajectory_platform.rounds.settings import RoundSettings

PILOT_STREAM = "pilot"
"""The pilot's stream name: hashed into its attempt seeds and written into its episode ids
(``sampling.pinned_seed``), so a pilot never replays the main sampling's attempts."""


@dataclass(frozen=True)
class TaskChoice:
    """One task's estimate and whether the round samples it; ``reason`` says why not when it is out."""

    signal: FixtureSignal
    selected: bool
    reason: str

    @property
    def why(self) -> str:
        """The reason's words without its figures: what counts per reason group by."""
        return self.reason.split(" (")[0]


def select_tasks(verified: Iterable[Candidate], settings: RoundSettings) -> list[TaskChoice]:
    """Every task with a verified outcome among ``verified``, in task order, with the band's verdict.

    A task whose attempts the oracle never decided (all quarantined or unverifiable) has no estimate
    and is left out with that reason rather than treated as unsolved. A reason starts with its
    words and ends with its figures in parentheses (:attr:`TaskChoice.why` groups by the words).
    """
    choices = []
    for signal in fixture_signal(verified, k=settings.attempts, band=settings.band_low):
        figures = f"P_inform {signal.p_inform:.3f}, p={signal.pass_rate:.2f}"
        if signal.attempts == 0:
            choices.append(TaskChoice(signal, False, "no oracle-decided attempt to estimate p from"))
        elif signal.p_inform < settings.band_low:
            side = "rarely solved" if signal.pass_rate < 0.5 else "nearly always solved"
            choices.append(TaskChoice(signal, False, f"{side} ({figures} < {settings.band_low})"))
        elif signal.p_inform > settings.band_high:
            choices.append(TaskChoice(signal, False, f"above the band ({figures} > {settings.band_high})"))
        else:
            choices.append(TaskChoice(signal, True, ""))
    return choices


def selected_fixtures(choices: Iterable[TaskChoice], fixtures: Sequence[Fixture]) -> list[Fixture]:
    """The fixtures the choices select, in the order ``fixtures`` lists them."""
    chosen = {c.signal.fixture_id for c in choices if c.selected}
    return [f for f in fixtures if f.fixture_id in chosen]


def learned_outcomes(verified: Iterable[Candidate]) -> list[Candidate]:
    """The outcomes that may estimate a learned sampler's p: attempts a round sampled (its round is
    recorded, ``sampling.round_of``). A scripted policy's corpus outcome is left out: it measures
    that policy, not the checkpoint about to sample."""
    return [c for c in verified if round_of(c.episode) is not None]


@dataclass
class Pilot:
    """A pilot: the round's sampler judged on a few attempts per task, and the band choices they give."""

    sample: RoundSample
    choices: list[TaskChoice]

    def summary(self) -> dict[str, Any]:
        """Attempts, tasks piloted and estimated (an oracle-decided attempt), verdicts per sink."""
        return {
            "attempts": len(self.sample.episodes),
            "tasks_piloted": len({e.task.fixture_id for e in self.sample.episodes}),
            "tasks_estimated": sum(c.signal.attempts > 0 for c in self.choices),
            "tasks_in_band": sum(c.selected for c in self.choices),
            "sinks": self.sample.cascade.counts("sink"),
        }


def pilot_fixtures(fixtures: Sequence[Fixture], tasks: int, seed: int, round_index: int) -> list[Fixture]:
    """The tasks a pilot samples: all of ``fixtures`` (``tasks`` 0 or at least their number), else a
    draw of ``tasks`` of them seeded by (seed, round), in catalogue order, so a rerun pilots the same
    tasks and each round looks at a different subset."""
    if tasks <= 0 or tasks >= len(fixtures):
        return list(fixtures)
    drawn = set(random.Random(f"{seed}:{round_index}:{PILOT_STREAM}").sample(range(len(fixtures)), tasks))
    return [f for i, f in enumerate(fixtures) if i in drawn]


def pilot_estimates(
    sampler: Sampler,
    fixtures: Sequence[Fixture],
    pilot_attempts: int,
    round_index: int,
    settings: RoundSettings,
    *,
    runtime: RuntimeConfig,
    cascade: CascadeConfig | None = None,
) -> Pilot:
    """Band choices from a pilot of ``pilot_attempts`` attempts per task, judged by the full cascade,
    for a round with no learned outcome to estimate from (P_inform is still evaluated at the planned
    k). ``runtime`` bounds every attempt as the round's own sampling is bounded: the runtime's default
    budget (40 turns, 12,000 tokens) lets a runaway checkpoint spend minutes per attempt. The
    attempts are the :data:`PILOT_STREAM` stream: their own seeds and episode ids."""
    sample = sample_round(
        sampler,
        fixtures,
        round_index,
        replace(settings, attempts=pilot_attempts),
        runtime=runtime,
        cascade=cascade,
        stream=PILOT_STREAM,
    )
    return Pilot(sample, select_tasks(sample.candidates, settings))
