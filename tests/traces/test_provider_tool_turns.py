"""What the model writes after a tool its provider ran within the turn is a turn of its own, in every
reader (``provider_tool_turns.py``). Development half and controls; the validation half is
``test_provider_tool_turns_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from provider_tool_turns import ASK, DEV, Case

from trajectory_platform.traces.ingest import ingest_paths


def assert_turns(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in case.record) + "\n")
    result = ingest_paths([path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert episode.source_format == case.fmt
    said = [(e.kind, e.content or None) for e in episode.events if e.kind != "system"]
    assert said[0] == ("user", ASK)
    turn, tool, answer = said[1:]
    assert turn == ("assistant", case.lead) and tool[0] == "tool" and answer == ("assistant", case.after)
    if case.shown is not None:
        assert tool[1] == case.shown
    called, shown = episode.events[-3], episode.events[-2]
    assert len(called.tool_calls) == 1 and shown.tool_call_id == called.tool_calls[0].id
    assert episode.events[-1].tool_calls == []


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_the_words_after_a_provider_run_tool_are_the_next_turn(case: Case, tmp_path: Path):
    assert_turns(case, tmp_path)


@pytest.mark.parametrize("fmt", ["anthropic", "langgraph"])
def test_a_message_without_a_provider_run_tool_is_one_turn(fmt: str, tmp_path: Path):
    """Control: text then a call the caller runs stays one turn."""
    blocks = [
        {"type": "text", "text": "Saving."},
        {"type": "tool_use", "id": "toolu_2", "name": "save", "input": {}},
    ]
    if fmt == "anthropic":
        record = {"messages": [{"role": "user", "content": ASK}, {"role": "assistant", "content": blocks}]}
    else:
        ai = {"type": "ai", "content": blocks, "tool_calls": [{"name": "save", "args": {}, "id": "toolu_2"}]}
        record = {"values": {"messages": [{"type": "human", "content": ASK}, ai]}, "next": [], "tasks": []}
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (episode,) = ingest_paths([path]).episodes
    (turn,) = [e for e in episode.events if e.kind == "assistant"]
    assert (turn.content, [c.id for c in turn.tool_calls]) == ("Saving.", ["toolu_2"])
