"""When the loop starts the next round: only after a promote without a collapse halt, once."""

from __future__ import annotations

from trajectory_platform.rounds.loop import ScoredRound, rounds_to_start


def test_a_promoted_round_starts_its_successor_once() -> None:
    decision = rounds_to_start([ScoredRound(7, 1, "promote")], existing={1})
    assert decision.start == [2] and decision.last_event == 7
    again = rounds_to_start([ScoredRound(9, 1, "promote")], existing={1, 2})  # a backfill of round 1
    assert again.start == [] and again.skipped == ["round 2 already started"]


def test_hold_and_collapse_start_nothing_and_say_why() -> None:
    held = ScoredRound(3, 2, "hold", reasons=("acceptance interval includes 0",))
    halted = ScoredRound(4, 3, "promote", collapse_halt=True, collapse_reasons=("runaway rate rose",))
    decision = rounds_to_start([halted, held], existing={1, 2, 3})
    assert decision.start == [] and decision.last_event == 4
    assert decision.skipped == [
        "round 2 decided hold, not promote: acceptance interval includes 0",
        "round 3 halted by the collapse watch: runaway rate rose",
    ]
