"""Model calls traced as spans whose answer holds a tool the provider ran within the call (web
search, code interpreter, file search, an MCP server's tool): the call's turn, the tool's result,
then the words the model wrote after it (a turn of their own, as every other reader reads them).

Generated over the span layout, the tool, a leading sentence or none, and one call or two (the
answer's last turn also calls a tool the caller runs; a second call, seeing it and its result,
answers):

- OTel GenAI spans (semantic conventions >= 1.37: ``gen_ai.output.messages`` parts
  ``server_tool_call`` / ``server_tool_call_response``, each holding a typed payload), as the
  OpenAI instrumentation writes a Responses call's built-in tools (``{"type": "code_interpreter",
  "code", "container_id"}`` then ``{"type": "code_interpreter", "outputs"}``), as the Anthropic one
  writes Claude's server and MCP blocks (``{"type": "server_tool_use", "arguments"}`` then the
  ``*_tool_result`` block) and as the Google GenAI one writes Gemini's code execution
  (``{"type": "code_execution", "arguments"}`` then ``{"result", "is_error"}``). They were an
  ``unknown content part`` reject.
- OpenAI Agents SDK spans: a ``generation`` span whose ``output`` (and a later one's ``input``) is a
  list of Responses items (``reasoning``, ``web_search_call``, ``code_interpreter_call``,
  ``file_search_call``, ``mcp_call``, ``message``), whose provider-run items were silently dropped
  (only the last item was read); a JS SDK ``response`` span keeping the call's ``_input`` and
  ``_response`` for other tracing providers, which was a ``no model messages`` reject.

:data:`DEV` is what the reading was developed against, :data:`VALIDATION` was held out (a case is in
one half by a hash of its name). :data:`CONTROLS` are the same runs with no provider-run tool: one
turn per answer (the OTel ones read so before; the Responses-item ones lost nothing but were not
read through the Responses items either)."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import Any

ASK = "Weather in Paris?"
LEAD = "Let me look."
AFTER = "It is 18C and sunny."
SAVED = "Saved."
SERVER_ID = "srv_1"
OWN_ID = "call_2"

OTEL_OPENAI = {
    "web_search": (
        {"type": "web_search", "action": {"type": "search", "query": "paris weather"}},
        {"type": "web_search", "status": "completed"},
    ),
    "code_interpreter": (
        {"type": "code_interpreter", "code": "print(6 * 7)", "container_id": "cntr_1"},
        {"type": "code_interpreter", "outputs": [{"type": "logs", "logs": "42"}]},
    ),
    "file_search": (
        {"type": "file_search", "queries": ["paris forecast"]},
        {
            "type": "file_search",
            "results": [{"file_id": "file_1", "filename": "fc.md", "score": 0.9, "text": "18C"}],
        },
    ),
    "mcp": (
        {"type": "mcp", "server_label": "forecasts", "arguments": '{"city": "Paris"}'},
        {"type": "mcp", "output": "18C"},
    ),
}
OTEL_ANTHROPIC = {
    "web_search": (
        {"type": "server_tool_use", "arguments": {"query": "paris weather"}},
        {
            "type": "web_search_tool_result",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://w.example/p",
                    "title": "Forecast",
                    "encrypted_content": "Eq8x",
                }
            ],
        },
    ),
    "bash_code_execution": (
        {"type": "server_tool_use", "arguments": {"command": "date"}},
        {
            "type": "bash_code_execution_tool_result",
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "Mon\n",
                "stderr": "",
                "return_code": 0,
                "content": [],
            },
        },
    ),
    "mcp": (
        {"type": "mcp_tool_use", "arguments": {"city": "Paris"}, "server_name": "forecasts"},
        {"type": "mcp_tool_result", "content": [{"type": "text", "text": "18C"}]},
    ),
}
OTEL_GOOGLE = {
    "code_execution": (
        {"type": "code_execution", "arguments": {"code": "print(6 * 7)", "language": "PYTHON"}},
        {"type": "code_execution", "result": "42\n", "is_error": False},
    ),
}
RESPONSES = {
    "web_search": {
        "type": "web_search_call",
        "status": "completed",
        "action": {"type": "search", "query": "paris weather"},
    },
    "code_interpreter": {
        "type": "code_interpreter_call",
        "status": "completed",
        "code": "print(6 * 7)",
        "container_id": "cntr_1",
        "outputs": [{"type": "logs", "logs": "42"}],
    },
    "file_search": {
        "type": "file_search_call",
        "status": "completed",
        "queries": ["paris forecast"],
        "results": [{"file_id": "file_1", "filename": "fc.md", "score": 0.9, "text": "18C"}],
    },
    "mcp": {
        "type": "mcp_call",
        "name": "forecast",
        "server_label": "forecasts",
        "arguments": '{"city": "Paris"}',
        "output": "18C",
        "error": None,
    },
}
"""A tool the Responses API runs, as its one output item (the call and its result)."""
SHAPES: dict[str, dict[str, Any]] = {
    "otel-openai": OTEL_OPENAI,
    "otel-anthropic": OTEL_ANTHROPIC,
    "otel-google": OTEL_GOOGLE,
    "otel-split": OTEL_OPENAI,
    "agents-generation": RESPONSES,
    "agents-response": RESPONSES,
}


@dataclass(frozen=True)
class Case:
    name: str
    fmt: str
    record: list[Any]
    lead: str | None
    two_calls: bool
    provider_tool: bool
    system: bool
    """Whether the trace shows a system prompt (the OTel spans' ``gen_ai.system_instructions``)."""


def _otel_parts(shape: str, tool: str | None, lead: bool, two: bool) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "text", "content": LEAD}] if lead and tool else []
    if tool is not None:
        call, result = SHAPES[shape][tool]
        name = "forecast" if tool == "mcp" else tool
        parts.append({"type": "server_tool_call", "id": SERVER_ID, "name": name, "server_tool_call": call})
        parts.append(
            {"type": "server_tool_call_response", "id": SERVER_ID, "server_tool_call_response": result}
        )
    parts.append({"type": "text", "content": AFTER})
    if two:
        parts.append({"type": "tool_call", "id": OWN_ID, "name": "save", "arguments": {"text": AFTER}})
    return parts


def _history(shape: str, answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The first answer as the second call's input holds it: as answered, or (``otel-split``) as
    messages of their own, the provider's result a ``tool`` message between two assistant ones."""
    if shape != "otel-split":
        return [answer]
    parts = answer["parts"]
    at = next(i for i, p in enumerate(parts) if p["type"] == "server_tool_call_response")
    return [
        {"role": "assistant", "parts": parts[:at]},
        {"role": "tool", "parts": [parts[at]]},
        {"role": "assistant", "parts": parts[at + 1 :]},
    ]


def _attribute(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)}}


def _otel(shape: str, tool: str | None, lead: bool, two: bool) -> list[Any]:
    user = {"role": "user", "parts": [{"type": "text", "content": ASK}]}
    answer = {
        "role": "assistant",
        "parts": _otel_parts(shape, tool, lead, two),
        "finish_reason": "tool_call" if two else "stop",
    }
    calls = [([user], answer)]
    if two:
        saved = {"role": "tool", "parts": [{"type": "tool_call_response", "id": OWN_ID, "response": "saved"}]}
        said = {"role": "assistant", "parts": [{"type": "text", "content": SAVED}], "finish_reason": "stop"}
        calls.append(([user, *_history(shape, answer), saved], said))
    spans = []
    for index, (seen, said_back) in enumerate(calls):
        attributes = [
            _attribute("gen_ai.operation.name", "chat"),
            _attribute("gen_ai.request.model", "m-1"),
            _attribute("gen_ai.system_instructions", [{"type": "text", "content": "Be brief."}]),
            _attribute("gen_ai.input.messages", seen),
            _attribute("gen_ai.output.messages", [said_back]),
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": str(20 + index)}},
            {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "9"}},
        ]
        spans.append(
            {
                "traceId": "5b8efff798038103d269b633813fc60c",
                "spanId": f"c00000000000000{index + 1}",
                "name": "chat m-1",
                "kind": 3,
                "startTimeUnixNano": f"17500000{index}1000000000",
                "endTimeUnixNano": f"17500000{index}2000000000",
                "attributes": attributes,
            }
        )
    return [{"resourceSpans": [{"scopeSpans": [{"scope": {"name": shape}, "spans": spans}]}]}]


def _items(tool: str | None, lead: bool, two: bool) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"type": "reasoning", "id": "rs_1", "summary": []}]
    if lead and tool:
        items.append(_said(LEAD, "msg_0"))
    if tool is not None:
        items.append({**RESPONSES[tool], "id": SERVER_ID})
    items.append(_said(AFTER, "msg_1"))
    if two:
        items.append({"type": "function_call", "call_id": OWN_ID, "name": "save", "arguments": "{}"})
    return items


def _said(text: str, item_id: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}]
    return {"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": content}


def _agents(shape: str, tool: str | None, lead: bool, two: bool) -> list[Any]:
    user = {"role": "user", "content": ASK}
    answer = _items(tool, lead, two)
    calls = [([user], answer)]
    if two:
        saved = {"type": "function_call_output", "call_id": OWN_ID, "output": "saved"}
        calls.append(([user, *answer, saved], [_said(SAVED, "msg_2")]))
    trace = "trace_8c1e4a"
    records: list[Any] = [
        {"object": "trace", "id": trace, "workflow_name": "Agent workflow", "group_id": None, "metadata": {}},
        {
            "object": "trace.span",
            "id": "span_agent",
            "trace_id": trace,
            "parent_id": None,
            "started_at": "2025-06-01T10:00:00.000Z",
            "ended_at": "2025-06-01T10:00:09.000Z",
            "span_data": {"type": "agent", "name": "Forecaster", "tools": ["save"]},
            "error": None,
        },
    ]
    for index, (seen, said_back) in enumerate(calls):
        usage = {"input_tokens": 20 + index, "output_tokens": 9}
        if shape == "agents-generation":
            data = {
                "type": "generation",
                "input": seen,
                "output": said_back,
                "model": "gpt-4.1",
                "model_config": {"temperature": 0.2},
                "usage": usage,
            }
        else:
            response = {"id": f"resp_{index}", "object": "response", "model": "gpt-4.1", "output": said_back}
            data = {
                "type": "response",
                "response_id": f"resp_{index}",
                "_input": seen,
                "_response": {**response, "usage": usage},
            }
        records.append(
            {
                "object": "trace.span",
                "id": f"span_call_{index}",
                "trace_id": trace,
                "parent_id": "span_agent",
                "started_at": f"2025-06-01T10:00:0{2 * index + 1}.000Z",
                "ended_at": f"2025-06-01T10:00:0{2 * index + 2}.000Z",
                "span_data": data,
                "error": None,
            }
        )
    return records


def _case(shape: str, tool: str | None, lead: bool, two: bool) -> Case:
    name = f"{shape}-{tool or 'none'}-{'lead' if lead else 'bare'}-{'two' if two else 'one'}"
    otel = shape.startswith("otel")
    record = _otel(shape, tool, lead, two) if otel else _agents(shape, tool, lead, two)
    fmt = "otel" if otel else "openai-agents"
    return Case(name, fmt, record, LEAD if lead and tool else None, two, tool is not None, otel)


CASES = [
    _case(shape, tool, lead, two)
    for shape, tools in SHAPES.items()
    for tool, lead, two in itertools.product(tools, (True, False), (False, True))
    if two or shape != "otel-split"
]
"""``otel-split`` (a later call's input holding the provider's result as a ``tool`` message, as the
conventions' own examples write it) was added after the other shapes were measured."""
CONTROLS = [
    _case(shape, None, False, two) for shape in SHAPES for two in (False, True) if shape != "otel-split"
]


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]
