"""Traced model calls (LangSmith runs, Langfuse observations, MLflow spans) whose *answer* holds a
tool the provider ran within the call (an Anthropic server tool, an MCP connector tool): the call's
turn, the tool's result, then the words the model wrote after it (a turn of its own, as every reader
reads the same message in a later call's input). They were a ``misplaced content part`` reject: a
traced call's answer was one event.

Generated over the shape the platform logged (its inputs and outputs as LangChain messages, as an
Anthropic SDK call, as a gateway's Chat Completions call keeping Claude's blocks, as MLflow's chat
messages), the tool, a leading sentence or none, and one call or two (the answer's last turn also
calls a tool the caller runs; a second call, seeing it and its result, answers). :data:`DEV` is what
the reading was developed against, :data:`VALIDATION` was held out (a case is in one half by a hash
of its name). :data:`CONTROLS` are the same runs with no provider-run tool: one turn per answer, as
before."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import Any

from provider_tool_turns import ASK, TOOLS, _blocks

AFTER = "It is 18C and sunny."
SAVED = "Saved."
SHAPES = (
    "langsmith-langchain",
    "langsmith-anthropic",
    "langfuse-anthropic",
    "langfuse-chat",
    "mlflow-messages",
    "mlflow-outputs",
    "langsmith-responses",
    "langfuse-responses",
    "mlflow-responses",
)
RESPONSES_TOOLS = {
    "web_search": {
        "type": "web_search_call",
        "status": "completed",
        "action": {"type": "search", "query": "paris weather"},
    },
    "bash_code_execution": {
        "type": "code_interpreter_call",
        "status": "completed",
        "code": "print('Mon')",
        "container_id": "cntr_1",
        "outputs": [{"type": "logs", "logs": "Mon"}],
    },
    "mcp": {
        "type": "mcp_call",
        "name": "weather",
        "server_label": "forecasts",
        "arguments": '{"city": "Paris"}',
        "output": "18C",
    },
}
"""A tool the Responses API runs, as its one output item (the call and its result)."""


@dataclass(frozen=True)
class Case:
    name: str
    fmt: str
    record: Any
    lead: str | None
    two_calls: bool
    provider_tool: bool


def _answer_blocks(tool: str | None, lead: bool, client_call: bool) -> list[dict[str, Any]]:
    if tool is not None:
        return _blocks(tool, lead, AFTER, client_call)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": AFTER}]
    if client_call:
        blocks.append({"type": "tool_use", "id": "toolu_2", "name": "save", "input": {"text": AFTER}})
    return blocks


def _lc(kind: str, **kwargs: Any) -> dict[str, Any]:
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", kind], "kwargs": kwargs}


def _langchain(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    calls = [
        {"name": b["name"], "args": b["input"], "id": b["id"]} for b in blocks if b["type"] == "tool_use"
    ]
    return _lc(
        "AIMessage", content=blocks, tool_calls=calls, usage_metadata={"input_tokens": 9, "output_tokens": 4}
    )


def _anthropic(blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": blocks,
        "stop_reason": stop,
        "usage": {"input_tokens": 9, "output_tokens": 4},
    }


RESULT = {"type": "tool_result", "tool_use_id": "toolu_2", "content": "saved"}


def _said(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def _responses_calls(tool: str | None, lead: bool, two: bool) -> list[tuple[Any, Any]]:
    """An OpenAI Responses call (its request, its response) or two: the tool the API ran is an
    output item holding the call and its result, the message after it the model's next words."""
    items = [*([_said("Let me look.")] if lead and tool else [])]
    if tool is not None:
        items.append({"id": "srvtoolu_1", **RESPONSES_TOOLS[tool]})
    items.append(_said(AFTER))
    if two:
        items.append({"type": "function_call", "call_id": "toolu_2", "name": "save", "arguments": "{}"})
    asked = [{"role": "user", "content": ASK}]
    usage = {"input_tokens": 9, "output_tokens": 4}
    calls = [
        (
            {"instructions": "Be brief.", "input": asked},
            {"object": "response", "output": items, "usage": usage},
        )
    ]
    if two:
        seen = [*asked, *items, {"type": "function_call_output", "call_id": "toolu_2", "output": "saved"}]
        calls.append(
            ({"instructions": "Be brief.", "input": seen}, {"object": "response", "output": [_said(SAVED)]})
        )
    return calls


def _calls(shape: str, blocks: list[dict[str, Any]], two: bool) -> list[tuple[Any, Any]]:
    """Each call's input and output, in the shape the platform recorded them."""
    stop = "tool_use" if two else "end_turn"
    if shape == "langsmith-langchain":
        asked = [_lc("SystemMessage", content="Be brief."), _lc("HumanMessage", content=ASK)]
        answer = _langchain(blocks)
        out = {"generations": [[{"text": "", "message": answer, "generation_info": {"finish_reason": stop}}]]}
        calls = [({"messages": [asked]}, out)]
        if two:
            seen = [*asked, answer, _lc("ToolMessage", content="saved", tool_call_id="toolu_2", name="save")]
            last = _lc("AIMessage", content=SAVED)
            calls.append(({"messages": [seen]}, {"generations": [[{"text": SAVED, "message": last}]]}))
        return calls
    if shape == "langfuse-chat":
        asked = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": ASK}]
        message = {"role": "assistant", "content": blocks}
        out = {
            "choices": [{"index": 0, "message": message, "finish_reason": stop}],
            "usage": {"prompt_tokens": 9},
        }
        calls = [({"messages": asked}, out)]
        if two:
            seen = [*asked, message, {"role": "tool", "tool_call_id": "toolu_2", "content": "saved"}]
            calls.append(
                (
                    {"messages": seen},
                    {"choices": [{"index": 0, "message": {"role": "assistant", "content": SAVED}}]},
                )
            )
        return calls
    asked_a = [{"role": "user", "content": ASK}]
    message = _anthropic(blocks, stop)
    calls = [({"system": "Be brief.", "messages": asked_a}, message)]
    if two:
        seen = [*asked_a, {"role": "assistant", "content": blocks}, {"role": "user", "content": [RESULT]}]
        calls.append(
            (
                {"system": "Be brief.", "messages": seen},
                _anthropic([{"type": "text", "text": SAVED}], "end_turn"),
            )
        )
    return calls


def _record(shape: str, calls: list[tuple[Any, Any]]) -> Any:
    platform = shape.split("-")[0]
    if platform == "langsmith":
        runs = [
            {
                "id": "tr-1",
                "trace_id": "tr-1",
                "parent_run_id": None,
                "run_type": "chain",
                "name": "agent",
                "inputs": {"input": ASK},
                "outputs": {"output": "done"},
                "start_time": "2026-11-04T09:30:00.000000",
            }
        ]
        for i, (given, out) in enumerate(calls):
            runs.append(
                {
                    "id": f"llm-{i}",
                    "trace_id": "tr-1",
                    "parent_run_id": "tr-1",
                    "run_type": "llm",
                    "name": "ChatAnthropic",
                    "inputs": given,
                    "outputs": out,
                    "start_time": f"2026-11-04T09:30:0{2 * i + 1}.000000",
                    "end_time": f"2026-11-04T09:30:0{2 * i + 2}.000000",
                }
            )
        return runs
    if platform == "langfuse":
        observations = [
            {
                "id": "root",
                "traceId": "lf-1",
                "type": "AGENT",
                "name": "agent",
                "startTime": "2026-11-04T09:30:00.000Z",
            }
        ]
        for i, (given, out) in enumerate(calls):
            observations.append(
                {
                    "id": f"g{i}",
                    "traceId": "lf-1",
                    "type": "GENERATION",
                    "parentObservationId": "root",
                    "name": "generation",
                    "startTime": f"2026-11-04T09:30:0{2 * i + 1}.000Z",
                    "endTime": f"2026-11-04T09:30:0{2 * i + 2}.000Z",
                    "model": "claude-sonnet-4-5",
                    "input": given,
                    "output": out,
                }
            )
        return [
            {
                "id": "lf-1",
                "name": "agent-run",
                "timestamp": "2026-11-04T09:30:00.000Z",
                "observations": observations,
            }
        ]
    spans = [_span("root", "AGENT", 0, {"mlflow.spanInputs": {"task": ASK}})]
    for i, (given, out) in enumerate(calls):
        if shape == "mlflow-messages":
            said = [
                {"role": "system", "content": "Be brief."},
                *given["messages"],
                {"role": "assistant", "content": out["content"]},
            ]
            attributes = {"mlflow.chat.messages": said}
        else:
            attributes = {"mlflow.spanInputs": given, "mlflow.spanOutputs": out}
        spans.append(_span(f"c{i}", "CHAT_MODEL", 2 * i + 1, attributes))
    return [{"info": {"trace_id": "tr-5b8e", "state": "OK"}, "data": {"spans": spans}}]


def _span(span_id: str, kind: str, start: int, attributes: dict[str, Any]) -> dict[str, Any]:
    """An MLflow 3 span: OTLP-like fields, every attribute value JSON text."""
    return {
        "trace_id": "tr-5b8e",
        "span_id": span_id,
        "parent_span_id": None if kind == "AGENT" else "root",
        "name": kind.lower(),
        "start_time_unix_nano": (1762248600 + start) * 10**9,
        "end_time_unix_nano": (1762248600 + start) * 10**9 + 5 * 10**8,
        "status": {"code": "STATUS_CODE_OK", "message": ""},
        "attributes": {
            "mlflow.spanType": json.dumps(kind),
            **{k: json.dumps(v) for k, v in attributes.items()},
        },
        "events": [],
    }


def _case(shape: str, tool: str | None, lead: bool, two: bool) -> Case:
    name = f"{shape}-{tool or 'none'}-{'lead' if lead else 'bare'}-{'two' if two else 'one'}"
    if shape.endswith("-responses"):
        calls = _responses_calls(tool, lead, two)
    else:
        calls = _calls(shape, _answer_blocks(tool, lead, two), two)
    record = _record(shape, calls)
    return Case(
        name, shape.split("-")[0], record, "Let me look." if lead and tool else None, two, tool is not None
    )


CASES = [_case(*combo) for combo in itertools.product(SHAPES, TOOLS, (True, False), (False, True))]


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]
CONTROLS = [_case(shape, None, False, two) for shape in SHAPES for two in (False, True)]
