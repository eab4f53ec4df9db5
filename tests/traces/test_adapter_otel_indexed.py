"""OTel spans whose instrumentation flattens messages into indexed attributes (traces/adapters/otel.py),
written by hand after OpenLLMetry / Traceloop's ``gen_ai.prompt.<i>.*`` and OpenInference / Arize
Phoenix's ``llm.input_messages.<i>.message.*`` layouts: each trace reads as one episode with its
model calls delivered, its tools and usage, like the conventions' own layouts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trajectory_platform.traces.adapters.otel_messages import unflatten
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode


def _value(value: Any) -> dict[str, Any]:
    return {"intValue": str(value)} if isinstance(value, int) else {"stringValue": value}


def _span(trace: str, span_id: str, start: int, attrs: dict[str, Any]) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span_id,
        "name": "chat",
        "startTimeUnixNano": str(start * 10**9),
        "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
    }


def _episode(tmp_path: Path, spans: list[dict[str, Any]]) -> Episode:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    result = ingest_paths([path])
    assert result.rejects == [], [(r.reason, r.detail) for r in result.rejects]
    (episode,) = result.episodes
    return episode


def _prompt(prefix: str, index: int, role: str, **fields: Any) -> dict[str, Any]:
    return {f"{prefix}.{index}.role": role, **{f"{prefix}.{index}.{k}": v for k, v in fields.items()}}


ASK = {
    "tool_calls.0.id": "call_a",
    "tool_calls.0.name": "read_file",
    "tool_calls.0.arguments": '{"path": "p.py"}',
}


def test_openllmetry_indexed_prompts_and_completions(tmp_path: Path):
    tools = {
        "llm.request.functions.0.name": "read_file",
        "llm.request.functions.0.description": "read",
        "llm.request.functions.0.parameters": '{"type": "object"}',
    }
    seen = {
        **_prompt("gen_ai.prompt", 0, "system", content="You are a careful coding agent."),
        **_prompt("gen_ai.prompt", 1, "user", content="Fix the parser."),
    }
    first = {
        "gen_ai.request.model": "gpt-4o",
        **tools,
        **seen,
        **_prompt("gen_ai.completion", 0, "assistant", finish_reason="tool_calls", **ASK),
        "gen_ai.usage.prompt_tokens": 80,
        "gen_ai.usage.completion_tokens": 20,
    }
    second = {
        **tools,
        **seen,
        **_prompt("gen_ai.prompt", 2, "assistant", **ASK),
        **_prompt("gen_ai.prompt", 3, "tool", tool_call_id="call_a", content="def parse(): ..."),
        **_prompt("gen_ai.completion", 0, "assistant", content="Fixed.", finish_reason="stop"),
    }
    episode = _episode(tmp_path, [_span("t1", "s1", 1, first), _span("t1", "s2", 3, second)])
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    turn = episode.events[2]
    assert [(c.id, c.name) for c in turn.tool_calls] == [("call_a", "read_file")]
    assert (turn.finish_reason, turn.input_tokens, turn.output_tokens) == ("tool_calls", 80, 20)
    assert (episode.events[3].tool_call_id, episode.events[3].content) == ("call_a", "def parse(): ...")
    assert episode.events[-1].content == "Fixed." and len(episode.delivered_inputs) == 2
    assert episode.delivered_inputs[1].event_indices == [0, 1, 2, 3]
    assert episode.lineage.model == "gpt-4o"
    (tool,) = episode.tools
    assert (tool.name, json.loads(tool.parameters_json or "")) == ("read_file", {"type": "object"})


def test_openinference_messages_tools_and_token_counts(tmp_path: Path):
    schema = {"type": "function", "function": {"name": "calc", "parameters": {"type": "object"}}}
    call = {
        "message.tool_calls.0.tool_call.id": "c1",
        "message.tool_calls.0.tool_call.function.name": "calc",
        "message.tool_calls.0.tool_call.function.arguments": '{"e": "2+2"}',
    }
    user = {"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "2+2?"}
    first = {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o-mini",
        "llm.tools.0.tool.json_schema": json.dumps(schema),
        "llm.token_count.prompt": 12,
        **user,
        "llm.output_messages.0.message.role": "assistant",
        **{f"llm.output_messages.0.{k}": v for k, v in call.items()},
    }
    tool_span = {"openinference.span.kind": "TOOL", "tool.name": "calc", "output.value": "4"}
    second = {
        "openinference.span.kind": "LLM",
        **user,
        "llm.input_messages.1.message.role": "assistant",
        **{f"llm.input_messages.1.{k}": v for k, v in call.items()},
        "llm.input_messages.2.message.role": "tool",
        "llm.input_messages.2.message.tool_call_id": "c1",
        "llm.input_messages.2.message.content": "4",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.contents.0.message_content.type": "text",
        "llm.output_messages.0.message.contents.0.message_content.text": "It is 4.",
    }
    spans = [_span("t2", "a", 1, first), _span("t2", "b", 2, tool_span), _span("t2", "c", 3, second)]
    episode = _episode(tmp_path, spans)
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"], (
        "the TOOL span adds none"
    )
    assert episode.events[1].tool_calls[0].name == "calc" and episode.events[1].input_tokens == 12
    assert (episode.events[2].tool_call_id, episode.events[2].content) == ("c1", "4")
    assert episode.events[-1].content == "It is 4."
    assert episode.lineage.model == "gpt-4o-mini" and [t.name for t in episode.tools] == ["calc"]


def test_indexed_attributes_unflatten_in_numeric_order():
    attrs = {"p.10.role": "c", "p.2.role": "b", "p.0.role": "a", "p.0.calls.1.n": "y", "p.0.calls.0.n": "x"}
    assert unflatten(attrs, "p") == [
        {"role": "a", "calls": [{"n": "x"}, {"n": "y"}]},
        {"role": "b"},
        {"role": "c"},
    ]
    assert unflatten(attrs, "q") == []


def test_vercel_ai_sdk_calls_and_tool_runs(tmp_path: Path):
    seen = [
        {"role": "system", "content": "Answer with tools."},
        {"role": "user", "content": "Weather in Paris?"},
    ]
    ask = {
        "role": "assistant",
        "content": [
            {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}}
        ],
    }
    answer = {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "toolName": "weather",
                "output": {"type": "text", "value": "sunny"},
            }
        ],
    }
    tools = [json.dumps({"type": "function", "name": "weather", "inputSchema": {"type": "object"}})]
    outer = {
        "ai.operationId": "ai.generateText",
        "ai.prompt": json.dumps({"prompt": "Weather in Paris?"}),
        "ai.response.text": "It is sunny.",
    }
    first = {
        "ai.operationId": "ai.generateText.doGenerate",
        "ai.model.id": "gpt-4o",
        "ai.prompt.messages": json.dumps(seen),
        "ai.prompt.tools": tools,
        "ai.response.toolCalls": json.dumps(
            [{"toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}}]
        ),
        "ai.response.finishReason": "tool-calls",
        "ai.usage.inputTokens": 50,
    }
    run = {
        "ai.operationId": "ai.toolCall",
        "ai.toolCall.name": "weather",
        "ai.toolCall.id": "c1",
        "ai.toolCall.result": "sunny",
    }
    second = {
        "ai.operationId": "ai.generateText.doGenerate",
        "ai.prompt.messages": json.dumps([*seen, ask, answer]),
        "ai.response.text": "It is sunny.",
        "ai.response.finishReason": "stop",
    }
    spans = [
        _span("t3", "o", 1, outer),
        _span("t3", "a", 2, first),
        _span("t3", "b", 3, run),
        _span("t3", "c", 4, second),
    ]
    episode = _episode(tmp_path, spans)
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    turn = episode.events[2]
    assert [(c.id, c.name, json.loads(c.arguments or "")) for c in turn.tool_calls] == [
        ("c1", "weather", {"city": "Paris"})
    ]
    assert (turn.finish_reason, turn.input_tokens) == ("tool-calls", 50)
    assert (episode.events[3].tool_call_id, episode.events[3].content) == ("c1", "sunny")
    assert episode.events[-1].content == "It is sunny." and len(episode.delivered_inputs) == 2, (
        "the outer span is no call"
    )
    assert episode.lineage.model == "gpt-4o" and [t.name for t in episode.tools] == ["weather"]


HELLO = {
    **_prompt("gen_ai.prompt", 0, "user", content="hi"),
    **_prompt("gen_ai.completion", 0, "assistant", content="hello"),
}
"""One OpenLLMetry chat span's messages."""


@pytest.mark.parametrize(
    "attribute",
    [
        {"task_id": "fix-parser-7"},
        {"ai.telemetry.metadata.task_id": "fix-parser-7"},
        {"traceloop.association.properties.task_id": "fix-parser-7"},
        {"metadata": json.dumps({"task_id": "fix-parser-7", "user": "u1"})},
    ],
    ids=["bare", "ai_sdk", "openllmetry", "openinference"],
)
def test_a_span_names_the_task_its_trace_ran_against(tmp_path: Path, attribute: dict[str, Any]):
    root = {"openinference.span.kind": "AGENT", **attribute}
    episode = _episode(tmp_path, [_span("t4", "r", 1, root), _span("t4", "c", 2, HELLO)])
    assert episode.task.fixture_id == "fix-parser-7"


def test_a_trace_that_names_no_task_has_none(tmp_path: Path):
    assert _episode(tmp_path, [_span("t5", "c", 1, HELLO)]).task.fixture_id is None
