"""A span-traced call's answer holding a tool its provider ran within the call is read as its turns
(``span_provider_tools.py``). Development half and controls; the validation half is
``test_span_provider_tools_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from span_provider_tools import AFTER, ASK, CONTROLS, DEV, LEAD, OWN_ID, SAVED, SERVER_ID, Case

from trajectory_platform.traces.ingest import ingest_paths


def assert_read(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in case.record) + "\n")
    result = ingest_paths([path])
    assert [r.reason for r in result.rejects] == []
    (episode,) = result.episodes
    assert episode.source_format == case.fmt
    events = episode.events
    said = [(e.kind, e.content or None, [c.id for c in e.tool_calls]) for e in events]
    own = [OWN_ID] if case.two_calls else []
    system = [("system", "Be brief.", [])] if case.system else []
    asked = len(system) + 1
    answer = [("assistant", AFTER, own)]
    if case.provider_tool:
        answer = [("assistant", case.lead, [SERVER_ID]), ("tool", said[asked + 1][1], []), *answer]
    tail = [("tool", "saved", []), ("assistant", SAVED, [])] if case.two_calls else []
    assert said == [*system, ("user", ASK, []), *answer, *tail]
    if case.provider_tool:
        shown = events[asked + 1]
        assert shown.tool_call_id == SERVER_ID and shown.content and shown.status != "error"
        assert events[asked].content in (None, "", LEAD) and events[asked].output_tokens is None
    first, *rest = episode.delivered_inputs
    assert (first.event_indices, first.response_event_index) == (list(range(asked)), asked)
    if case.two_calls:
        (second,) = rest
        last = len(events) - 1
        assert (second.event_indices, second.response_event_index) == (list(range(last)), last)
    assert "answers_not_kept" not in episode.extra()
    turn = events[asked + len(answer) - 1]
    assert turn.content == AFTER and turn.output_tokens == 9


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_span_answer_holding_a_provider_run_tool_is_its_turns(case: Case, tmp_path: Path):
    assert_read(case, tmp_path)


@pytest.mark.parametrize("case", CONTROLS, ids=lambda case: case.name)
def test_a_span_answer_without_a_provider_run_tool_is_one_turn(case: Case, tmp_path: Path):
    """Control: the same runs with no provider-run tool read one turn per answer."""
    assert_read(case, tmp_path)
