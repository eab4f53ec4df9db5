"""A traced call's answer holding a tool its provider ran within the call is read as its turns
(``traced_provider_tools.py``). Development half and controls; the validation half is
``test_traced_provider_tools_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from traced_provider_tools import AFTER, ASK, CONTROLS, DEV, SAVED, Case

from trajectory_platform.traces.ingest import ingest_paths


def assert_read(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in case.record) + "\n")
    result = ingest_paths([path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert episode.source_format == case.fmt
    events = episode.events
    said = [(e.kind, e.content or None, [c.id for c in e.tool_calls]) for e in events]
    own = ["toolu_2"] if case.two_calls else []
    answer = [("assistant", AFTER, own)]
    if case.provider_tool:
        answer = [("assistant", case.lead, ["srvtoolu_1"]), ("tool", said[3][1], []), *answer]
    tail = [("tool", said[-2][1], []), ("assistant", SAVED, [])] if case.two_calls else []
    assert said == [("system", "Be brief.", []), ("user", ASK, []), *answer, *tail]
    if case.provider_tool:
        assert events[3].tool_call_id == "srvtoolu_1" and said[3][1]
    first, *rest = episode.delivered_inputs
    assert (first.event_indices, first.response_event_index) == ([0, 1], 2)
    if case.two_calls:
        (second,) = rest
        last = len(events) - 1
        assert (second.event_indices, second.response_event_index) == (list(range(last)), last)
    assert "answers_not_kept" not in episode.extra()
    turn = events[1 + len(answer)]
    assert turn.content == AFTER and turn.timestamp is not None


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_traced_answer_holding_a_provider_run_tool_is_its_turns(case: Case, tmp_path: Path):
    assert_read(case, tmp_path)


@pytest.mark.parametrize("case", CONTROLS, ids=lambda case: case.name)
def test_a_traced_answer_without_a_provider_run_tool_is_one_turn(case: Case, tmp_path: Path):
    """Control: the same runs with no provider-run tool read one turn per answer, as before."""
    assert_read(case, tmp_path)
