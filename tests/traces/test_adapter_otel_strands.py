"""OTel GenAI message events whose content is a JSON list of Bedrock Converse blocks, as Strands
Agents' tracer writes them (``[{"text": ...}, {"toolUse": {...}}]``): the choice crashed the
adapter (a list where an object belongs) and the other events kept that JSON as the turn's text,
their calls lost. Traces written by hand after Strands' ``strands.telemetry.tracer`` output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_adapter_otel_indexed import _episode, _span

from trajectory_platform.traces.ingest import ingest_paths

ASK = [{"text": "What time is it?"}]
USE = {"toolUse": {"toolUseId": "tooluse_1", "name": "current_time", "input": {"timezone": "UTC"}}}
RESULT = {"toolResult": {"toolUseId": "tooluse_1", "status": "success", "content": [{"text": "12:00"}]}}


def _event(name: str, **attrs: Any) -> dict[str, Any]:
    values = {k: v if isinstance(v, str) else json.dumps(v) for k, v in attrs.items()}
    return {"name": name, "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in values.items()]}


def _chat(span_id: str, start: int, *events: dict[str, Any]) -> dict[str, Any]:
    span = _span("t1", span_id, start, {"gen_ai.operation.name": "chat", "gen_ai.system": "strands-agents"})
    span["events"] = list(events)
    return span


def _turns(episode) -> list[tuple]:
    return [
        (e.kind, e.content, e.reasoning, [(c.id, c.name, c.arguments) for c in e.tool_calls], e.tool_call_id)
        for e in episode.events
    ]


def test_strands_converse_blocks_become_turns_calls_and_results(tmp_path: Path):
    episode = _episode(
        tmp_path,
        [
            _chat(
                "s1",
                1,
                _event("gen_ai.user.message", content=ASK),
                _event("gen_ai.choice", message=[{"text": "Checking."}, USE], finish_reason="tool_use"),
            ),
            _chat(
                "s2",
                3,
                _event("gen_ai.user.message", content=ASK),
                _event("gen_ai.assistant.message", content=[{"text": "Checking."}, USE]),
                _event("gen_ai.tool.message", content=[RESULT]),
                _event("gen_ai.choice", message=[{"text": "It is 12:00 UTC."}], finish_reason="end_turn"),
            ),
        ],
    )
    assert _turns(episode) == [
        ("user", "What time is it?", None, [], None),
        ("assistant", "Checking.", None, [("tooluse_1", "current_time", '{"timezone":"UTC"}')], None),
        ("tool", "12:00", None, [], "tooluse_1"),
        ("assistant", "It is 12:00 UTC.", None, [], None),
    ]
    assert [e.finish_reason for e in episode.events if e.kind == "assistant"] == ["tool_use", "end_turn"]


def test_strands_reasoning_and_system_blocks_are_read(tmp_path: Path):
    thought = {"reasoningContent": {"reasoningText": {"text": "A clock tool answers this."}}}
    episode = _episode(
        tmp_path,
        [
            _chat(
                "s1",
                1,
                _event("gen_ai.system.message", content=[{"text": "Be brief."}]),
                _event("gen_ai.user.message", content=ASK),
                _event("gen_ai.choice", message=[thought, {"text": "Noon."}], finish_reason="end_turn"),
            )
        ],
    )
    assert _turns(episode) == [
        ("system", "Be brief.", None, [], None),
        ("user", "What time is it?", None, [], None),
        ("assistant", "Noon.", "A clock tool answers this.", [], None),
    ]


def test_a_block_kind_converse_does_not_name_is_a_reject_not_text(tmp_path: Path):
    path = tmp_path / "trace.json"
    span = _chat("s1", 1, _event("gen_ai.choice", message=[{"text": "a"}, {"hologram": {"x": 1}}]))
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    result = ingest_paths([path])
    assert [r.reason for r in result.rejects] == ["unknown block"]
    assert "hologram" in (result.rejects[0].detail or "")
