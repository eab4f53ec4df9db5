"""LangGraph streams whose items name their namespace or mode (``subgraphs=True``, several stream
modes, the server's ``updates|<namespace>`` events, typed stream parts) are read as one run
(``langgraph_subgraphs.py``): each message once, in conversation order (a parent's update repeating
its subgraph's output puts the run's input first), the subgraph that streamed it kept as provenance;
a subgraph that kept a conversation of its own is a ``several conversations`` reject."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

NS = ["agent:6b2a9d3e"]


def _ai(text: str, own_id: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "ai", "content": text, "id": own_id, "tool_calls": calls or [], "response_metadata": {}}


ASK = {"type": "human", "content": "Weather in Paris?", "id": "h1"}
CALL = _ai("", "run-1", [{"name": "weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}])
RESULT = {"type": "tool", "content": "Sunny", "tool_call_id": "call_1", "name": "weather", "id": None}
ANSWER = _ai("Sunny in Paris.", "run-2")
READ = [("user", "Weather in Paris?"), ("assistant", ""), ("tool", "Sunny"), ("assistant", "Sunny in Paris.")]


def _read(path: Path) -> tuple[list[tuple[str, str | None]], dict[str, Any]]:
    episode = one_episode(path)
    return [(e.kind, e.content) for e in episode.events], json.loads(episode.extra_json or "{}")


def test_updates_of_a_subgraph_and_its_parent_are_one_conversation_in_order(tmp_path: Path):
    lines = [
        [NS, {"agent": {"messages": [CALL]}}],
        [NS, {"tools": {"messages": [RESULT]}}],
        [NS, {"agent": {"messages": [ANSWER]}}],
        [[], {"agent": {"messages": [ASK, CALL, {**RESULT, "id": "tm-1"}, ANSWER]}}],
    ]
    events, extra = _read(write_jsonl(tmp_path, "run.jsonl", lines))
    assert events == READ
    assert extra["subgraph_events"] == {"agent:6b2a9d3e": [1, 2, 3]}


def test_several_modes_with_subgraphs_are_read_from_the_values(tmp_path: Path):
    lines = [
        [[], "values", {"messages": [ASK]}],
        [NS, "updates", {"agent": {"messages": [CALL]}}],
        [NS, "values", {"messages": [ASK, CALL]}],
        [NS, "custom", {"progress": "calling"}],
        [NS, "values", {"messages": [ASK, CALL, {**RESULT, "id": "tm-1"}, ANSWER]}],
        [[], "values", {"messages": [ASK, CALL, {**RESULT, "id": "tm-1"}, ANSWER]}],
    ]
    events, extra = _read(write_jsonl(tmp_path, "run.jsonl", lines))
    assert events == READ
    assert (extra["read_mode"], extra["items_by_mode"]) == (
        "values",
        {"custom": 1, "updates": 1, "values": 4},
    )


def test_the_servers_namespaced_events_and_typed_stream_parts_are_items(tmp_path: Path):
    server = [
        {"event": "metadata", "data": {"run_id": "r1"}},
        {"event": "updates|" + NS[0], "data": {"agent": {"messages": [CALL]}}},
        {"event": "updates|" + NS[0], "data": {"tools": {"messages": [RESULT]}}},
        {"event": "updates", "data": {"agent": {"messages": [ASK, CALL, {**RESULT, "id": "tm-1"}, ANSWER]}}},
    ]
    typed = [{"type": "updates", "ns": ns, "data": data} for ns, data in ([NS, {"a": {"messages": [CALL]}}],)]
    assert _read(write_jsonl(tmp_path, "server.jsonl", server))[0] == READ
    assert _read(write_jsonl(tmp_path, "typed.jsonl", typed))[0] == [("assistant", "")]


def test_a_subgraph_with_a_conversation_of_its_own_is_rejected_naming_it(tmp_path: Path):
    lines = [
        [[], {"supervisor": {"messages": [ASK, _ai("Delegating.", "s-1")]}}],
        [["researcher:77"], {"model": {"messages": [CALL]}}],
        [["researcher:77"], {"tools": {"messages": [RESULT]}}],
        [[], {"researcher": {"messages": [_ai("Researcher says sunny.", "s-2")]}}],
    ]
    result = ingest_paths([write_jsonl(tmp_path, "run.jsonl", lines)])
    (reject,) = result.rejects
    assert reject.reason == "several conversations" and "researcher" in (reject.detail or "")
    assert result.episodes == []
