"""Task selection in the informative band: sample where P_inform(p, k) says the signal lives.

Curation eq. 3: a task solved with probability ``p`` yields a mix of passes and failures among ``k``
attempts with probability ``1 - (1-p)^k - p^k``. Tasks the sampler never solves give no successes and
tasks it always solves give trajectories it already produces, so the round's budget goes to tasks
whose P_inform lies in the declared band. ``p`` is estimated from verified outcomes: the previous
round's, or a pilot round of the same sampler (``pilot_estimates``); the per-task statistics are
curation's (``dedup.fixture_signal``), not recomputed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.dedup import FixtureSignal, fixture_signal
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.rounds.sampling import Sampler, sample_round
from trajectory_platform.rounds.settings import RoundSettings


@dataclass(frozen=True)
class TaskChoice:
    """One task's estimate and whether the round samples it; ``reason`` says why not when it is out."""

    signal: FixtureSignal
    selected: bool
    reason: str


def select_tasks(verified: Iterable[Candidate], settings: RoundSettings) -> list[TaskChoice]:
    """Every task with a verified outcome among ``verified``, in task order, with the band's verdict.

    A task whose attempts the oracle never decided (all quarantined or unverifiable) has no estimate
    and is left out with that reason rather than treated as unsolved.
    """
    choices = []
    for signal in fixture_signal(verified, k=settings.attempts, band=settings.band_low):
        if signal.attempts == 0:
            choices.append(TaskChoice(signal, False, "no oracle-decided attempt to estimate p from"))
        elif signal.p_inform < settings.band_low:
            side = "rarely solved" if signal.pass_rate < 0.5 else "nearly always solved"
            why = f"P_inform {signal.p_inform:.3f} < {settings.band_low} ({side}, p={signal.pass_rate:.2f})"
            choices.append(TaskChoice(signal, False, why))
        elif signal.p_inform > settings.band_high:
            why = f"P_inform {signal.p_inform:.3f} > {settings.band_high}"
            choices.append(TaskChoice(signal, False, why))
        else:
            choices.append(TaskChoice(signal, True, ""))
    return choices


def selected_fixtures(choices: Iterable[TaskChoice], fixtures: Sequence[Fixture]) -> list[Fixture]:
    """The fixtures the choices select, in the order ``fixtures`` lists them."""
    chosen = {c.signal.fixture_id for c in choices if c.selected}
    return [f for f in fixtures if f.fixture_id in chosen]


def pilot_estimates(
    sampler: Sampler,
    fixtures: Sequence[Fixture],
    pilot_attempts: int,
    round_index: int,
    settings: RoundSettings,
) -> list[TaskChoice]:
    """Band choices from a pilot of ``pilot_attempts`` judged attempts per task, for a round with no
    previous round's outcomes to estimate from (P_inform is still evaluated at the planned k)."""
    pilot = sample_round(sampler, fixtures, round_index, replace(settings, attempts=pilot_attempts))
    return select_tasks(pilot.candidates, settings)
