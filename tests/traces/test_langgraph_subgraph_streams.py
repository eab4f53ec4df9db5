"""LangGraph streams whose items name their namespace or mode (``subgraphs=True``, several stream
modes, the server's ``updates|<namespace>`` events, typed stream parts) are read as one run
(``langgraph_subgraphs.py``): each message once, in conversation order (a parent's update repeating
its subgraph's output puts the run's input first), the subgraph that streamed it kept as provenance;
a subgraph that kept a conversation of its own (a sub-agent the parent never merges) is an episode of
its own, linked to the parent's (it was a ``several conversations`` reject)."""

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


def test_a_subgraph_with_a_conversation_of_its_own_is_split_off_as_its_own_episode(tmp_path: Path):
    lines = [
        [[], {"supervisor": {"messages": [ASK, _ai("Delegating.", "s-1")]}}],
        [["researcher:77"], {"model": {"messages": [CALL]}}],
        [["researcher:77"], {"tools": {"messages": [RESULT]}}],
        [[], {"researcher": {"messages": [_ai("Researcher says sunny.", "s-2")]}}],
    ]
    result = ingest_paths([write_jsonl(tmp_path, "run.jsonl", lines)])
    assert result.rejects == [] and (result.records_in, result.normalized) == (2, 2)
    parent, worker = result.episodes
    assert [(e.kind, e.content) for e in parent.events] == [
        ("user", "Weather in Paris?"),
        ("assistant", "Delegating."),
        ("assistant", "Researcher says sunny."),
    ]
    assert [(e.kind, e.content) for e in worker.events] == [("assistant", ""), ("tool", "Sunny")]
    assert worker.episode_id == f"{parent.episode_id}/2"
    assert worker.source_path == f"{parent.source_path}/2"
    links = [json.loads(e.extra_json or "{}")["run_conversation"] for e in (parent, worker)]
    assert [(link["number"], link["main"], link["graph"]) for link in links] == [
        (1, True, []),
        (2, False, ["researcher"]),
    ]
    assert json.loads(worker.extra_json or "{}")["subgraph_events"] == {"researcher:77": [0, 1]}


def test_two_sub_agents_of_the_servers_events_are_an_episode_each(tmp_path: Path):
    def worker(name: str, text: str) -> list[dict[str, Any]]:
        said = _ai(text, f"{name}-1")
        return [{"event": f"updates|{name}:9", "data": {"model": {"messages": [said]}}}]

    events = [
        {"event": "updates", "data": {"router": {"messages": [ASK]}}},
        *worker("math", "4"),
        *worker("search", "3 hits"),
        {"event": "updates", "data": {"router": {"messages": [_ai("Both done.", "r-2")]}}},
    ]
    result = ingest_paths([write_jsonl(tmp_path, "server.jsonl", events)])
    assert result.rejects == [] and result.records_in == result.normalized == 3
    assert [[e.content for e in episode.events] for episode in result.episodes] == [
        ["Weather in Paris?", "Both done."],
        ["4"],
        ["3 hits"],
    ]
