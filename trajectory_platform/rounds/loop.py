"""When the loop starts the next round: round i's scorecard promoted and its collapse watch passed.

Curation §The self-improvement loop: a round's checkpoint samples the next round only once the
release gate has promoted it (it beats the sampler it was trained from), and never after the
collapse watch halted the round. The sensor that launches rounds hands its facts to
:func:`rounds_to_start`; nothing here knows about Dagster.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

PROMOTE = "promote"


@dataclass(frozen=True)
class ScoredRound:
    """One materialization of a round's scorecard, with its round's collapse verdict."""

    event_id: int
    """Orders the events; the caller's cursor remembers the last one handled."""
    round_index: int
    decision: str | None
    reasons: tuple[str, ...] = ()
    collapse_halt: bool = False
    collapse_reasons: tuple[str, ...] = ()


@dataclass
class LoopDecision:
    """Rounds to start (in order), why the others were not, and the last event handled."""

    start: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    last_event: int | None = None


def rounds_to_start(scored: Sequence[ScoredRound], existing: Collection[int]) -> LoopDecision:
    """For each new scorecard (``scored``, oldest first): start round i+1 when round i promoted and
    did not collapse, unless round i+1 already exists (``existing``: it was started once; a backfill
    of round i replays round i and does not start its successor a second time)."""
    decision = LoopDecision()
    for event in sorted(scored, key=lambda e: e.event_id):
        decision.last_event = event.event_id
        following = event.round_index + 1
        if event.collapse_halt:
            why = "; ".join(event.collapse_reasons) or "no reason recorded"
            decision.skipped.append(f"round {event.round_index} halted by the collapse watch: {why}")
        elif event.decision != PROMOTE:
            why = "; ".join(event.reasons) or "no reason recorded"
            decision.skipped.append(f"round {event.round_index} decided {event.decision}, not promote: {why}")
        elif following in existing or following in decision.start:
            decision.skipped.append(f"round {following} already started")
        else:
            decision.start.append(following)
    return decision
