"""Held-out validation of reading JSON text of content parts in OTel message content (kept apart
from test_otel_json_text_content.py): the event layout, OpenInference's attributes and other
frameworks' part spellings. Written before they were run; on first measure 3 of 3 read as expected
(one fixture first answered a call it never made, a mistake of the fixture; docs/formats.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_adapter_otel_indexed import _episode, _prompt, _span


def _turns(episode) -> list[tuple]:
    return [
        (e.kind, e.content, e.reasoning, [(c.id, c.name) for c in e.tool_calls], e.tool_call_id)
        for e in episode.events
    ]


def _event(name: str, **attrs: Any) -> dict[str, Any]:
    return {"name": name, "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]}


def test_event_layout_anthropic_thinking_and_tool_use_in_json_text(tmp_path: Path):
    blocks = [
        {"type": "thinking", "thinking": "Need the weather tool.", "signature": "sig"},
        {"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {"city": "Rome"}},
    ]
    result = [{"type": "tool_result", "tool_use_id": "toolu_9", "content": [{"type": "text", "text": "25C"}]}]
    span = _span("t", "s1", 1, {"gen_ai.operation.name": "chat"})
    span["events"] = [
        _event("gen_ai.user.message", content="Rome weather?"),
        _event("gen_ai.assistant.message", content=json.dumps(blocks)),
        _event("gen_ai.user.message", content=json.dumps(result)),
        _event("gen_ai.choice", message=json.dumps({"content": "25C in Rome."}), finish_reason="end_turn"),
    ]
    assert _turns(_episode(tmp_path, [span])) == [
        ("user", "Rome weather?", None, [], None),
        ("assistant", None, "Need the weather tool.", [("toolu_9", "get_weather")], None),
        ("tool", "25C", None, [], "toolu_9"),
        ("assistant", "25C in Rome.", None, [], None),
    ]


def test_openinference_vercel_tool_call_and_tool_result_parts_in_json_text(tmp_path: Path):
    call = [{"type": "tool-call", "toolCallId": "c1", "toolName": "search", "args": {"q": "otel"}}]
    answer = [{"type": "tool-result", "toolCallId": "c1", "toolName": "search", "result": "spec found"}]
    attrs = {
        "llm.model_name": "gpt-4o",
        **_prompt(
            "llm.input_messages", 0, "user", **{"message.role": "user", "message.content": "Find the spec"}
        ),
        **_prompt(
            "llm.input_messages",
            1,
            "assistant",
            **{"message.role": "assistant", "message.content": json.dumps(call)},
        ),
        **_prompt(
            "llm.input_messages", 2, "tool", **{"message.role": "tool", "message.content": json.dumps(answer)}
        ),
        **_prompt(
            "llm.output_messages",
            0,
            "assistant",
            **{"message.role": "assistant", "message.content": "Found it."},
        ),
    }
    assert _turns(_episode(tmp_path, [_span("t", "s1", 1, attrs)])) == [
        ("user", "Find the spec", None, [], None),
        ("assistant", None, None, [("c1", "search")], None),
        ("tool", "spec found", None, [], "c1"),
        ("assistant", "Found it.", None, [], None),
    ]


def test_converse_wrappers_in_openllmetry_json_text(tmp_path: Path):
    use = [
        {"text": "Looking."},
        {"toolUse": {"toolUseId": "tu1", "name": "ls", "input": {"path": "."}}},
        {"toolUse": {"toolUseId": "tu2", "name": "tree", "input": {}}},
    ]
    result = [{"toolResult": {"toolUseId": "tu1", "status": "success", "content": [{"text": "a.py"}]}}]
    listing = json.dumps([{"type": "file", "name": "a.py"}])
    attrs = {
        **_prompt("gen_ai.prompt", 0, "user", content="List files"),
        **_prompt("gen_ai.prompt", 1, "assistant", content=json.dumps(use)),
        **_prompt("gen_ai.prompt", 2, "user", content=json.dumps(result)),
        **_prompt("gen_ai.prompt", 3, "tool", content=listing, tool_call_id="tu2"),
        **_prompt("gen_ai.completion", 0, "assistant", content="a.py"),
    }
    turns = _turns(_episode(tmp_path, [_span("t", "s1", 1, attrs)]))
    assert turns[1:3] == [
        ("assistant", "Looking.", None, [("tu1", "ls"), ("tu2", "tree")], None),
        ("tool", "a.py", None, [], "tu1"),
    ]
    assert turns[3][1] == listing, "a tool's JSON output is its data, not parts"
