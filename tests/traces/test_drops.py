"""The one accounting every stage reports: records in = kept + dropped by reason."""

from __future__ import annotations

from trajectory_platform.traces.drops import Tally


def test_a_tally_of_a_finished_stage_balances_and_names_every_reason():
    tally = Tally.of(kept=3, drops=["license", "license", "too_long"])
    assert tally.balanced
    assert tally.metadata() == {
        "records_in": 6,
        "kept": 3,
        "dropped": 3,
        "dropped_by_reason": {"license": 2, "too_long": 1},
    }
    assert Tally.of(kept=1, drops={"split test": 2}).metadata()["records_in"] == 3


def test_an_unbalanced_tally_is_seen():
    tally = Tally(records_in=4, kept=2)
    tally.dropped["duplicate"] += 1
    assert not tally.balanced
