"""Generators of the logs behind the rt-fmt5 leftovers (docs/formats.md, "Read or rejected
clearly"), each a small variant of a format as its tool writes it, shared by the development half
(test_read_or_rejected_clearly.py) and the validation half (``..._heldout.py``)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any


def langgraph_pair(message: dict[str, Any], node: str, step: int, **metadata: Any) -> list[Any]:
    """One ``stream_mode="messages"`` pair as ``graph.stream`` yields it, saved as JSON."""
    return [message, {"langgraph_step": step, "langgraph_node": node, **metadata}]


def ai_chunk(message_id: str | None, content: Any = "", **fields: Any) -> dict[str, Any]:
    """An ``AIMessageChunk`` as ``model_dump()`` writes it (its ``type`` is its class)."""
    return {
        "content": content,
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "AIMessageChunk",
        "id": message_id,
        "tool_calls": [],
        "tool_call_chunks": [],
        **fields,
    }


def call_piece(index: int, args: str, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    """A ``tool_call_chunks`` item: the arguments' next fragment, the id and name on the first."""
    return {"name": name, "args": args, "id": call_id, "index": index, "type": "tool_call_chunk"}


def tool_message(call_id: str, name: str, content: str, status: str = "success") -> dict[str, Any]:
    return {
        "content": content,
        "type": "tool",
        "name": name,
        "id": f"tm-{call_id}",
        "tool_call_id": call_id,
        "status": status,
    }


def gemini_call(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """A Gemini request with its response holding ``candidates`` (``candidateCount`` > 1)."""
    return {
        "contents": [{"role": "user", "parts": [{"text": "Name a colour"}]}],
        "generationConfig": {"candidateCount": len(candidates)},
        "response": {"candidates": candidates, "modelVersion": "gemini-2.5-flash"},
    }


def gemini_candidate(text: str, index: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
    return out if index is None else {**out, "index": index}


def codex_rollout(folder: Path, outputs: list[Any], call_type: str = "function_call") -> Path:
    """A Codex rollout whose one command call is answered by each of ``outputs`` in turn."""
    session = "0199b000-0000-7000-8000-000000000001"

    def entry(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2025-10-01T09:00:00.000Z", "type": kind, "payload": payload}

    lines = [
        entry("session_meta", {"id": session, "cwd": "/repo", "cli_version": "0.46.0"}),
        entry(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Run the tests"}]},
        ),
    ]
    for number, output in enumerate(outputs):
        call_id = f"call_{number}"
        arguments = {"command": ["bash", "-lc", "pytest -q"]}
        call = (
            {"type": call_type, "name": "shell", "arguments": json.dumps(arguments), "call_id": call_id}
            if call_type == "function_call"
            else {"type": call_type, "name": "exec_command", "input": "pytest -q", "call_id": call_id}
        )
        lines.append(entry("response_item", call))
        lines.append(
            entry("response_item", {"type": f"{call_type}_output", "call_id": call_id, "output": output})
        )
    lines.append(
        entry(
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
        )
    )
    path = folder / f"rollout-2025-10-01T09-00-00-{session}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def claude_code_split_response(
    folder: Path, usages: list[dict[str, Any] | None], stops: list[str | None]
) -> Path:
    """A Claude Code session whose one response is written a content block a line (one
    ``message.id``), each line with the usage and stop reason given for it."""
    session = "33333333-4444-4555-8666-777777777777"
    base = {
        "userType": "external",
        "cwd": "/p",
        "sessionId": session,
        "version": "2.0.14",
        "isSidechain": False,
    }
    blocks = [
        {"type": "thinking", "thinking": "Check the divisors.", "signature": "Eq"},
        {"type": "text", "text": "97 is prime."},
        {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "factor 97"}},
    ]
    lines = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2025-09-01T10:00:00Z",
            "message": {"role": "user", "content": "Is 97 prime?"},
        }
    ]
    parent = "u1"
    for number, (usage, stop) in enumerate(zip(usages, stops, strict=True)):
        message: dict[str, Any] = {
            "id": "msg_split",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [blocks[number % len(blocks)]],
            "stop_reason": stop,
        }
        if usage is not None:
            message["usage"] = usage
        uuid = f"a{number}"
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": uuid,
                "parentUuid": parent,
                "requestId": "req_1",
                "timestamp": "2025-09-01T10:00:02Z",
                "message": message,
            }
        )
        parent = uuid
    path = folder / f"{session}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def inspect_archive(path: Path, samples: dict[str, Any], header: dict[str, Any] | None = None) -> Path:
    """An Inspect ``.eval`` zip log: ``header.json`` and ``samples/<id>_epoch_<n>.json`` members
    (``samples`` by member name; a string member is written as it is)."""
    header = header or {
        "version": 2,
        "status": "success",
        "eval": {
            "run_id": "run-1",
            "task": "arith",
            "task_id": "t1",
            "model": "openai/gpt-4o",
            "created": "2025-09-01T10:00:00+00:00",
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_journal/start.json", json.dumps({"version": 2, "eval": header.get("eval")}))
        archive.writestr("header.json", json.dumps(header))
        for name, sample in samples.items():
            archive.writestr(name, sample if isinstance(sample, str) else json.dumps(sample))
        archive.writestr("summaries.json", json.dumps([]))
    return path


def inspect_sample(sample_id: Any, epoch: int, question: str, answer: str) -> dict[str, Any]:
    return {
        "id": sample_id,
        "epoch": epoch,
        "input": question,
        "target": answer,
        "messages": [{"role": "user", "content": question}, {"role": "assistant", "content": answer}],
    }


def otel_chat_span(
    trace: str, span: str, start: int, seen: list[dict[str, Any]], answer: str
) -> dict[str, Any]:
    """An OTel GenAI ``chat`` span (the conventions' JSON message attributes)."""

    def parts(message: dict[str, Any]) -> dict[str, Any]:
        return {"role": message["role"], "parts": [{"type": "text", "content": message["content"]}]}

    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.input.messages": json.dumps([parts(m) for m in seen]),
        "gen_ai.output.messages": json.dumps(
            [{**parts({"role": "assistant", "content": answer}), "finish_reason": "stop"}]
        ),
    }
    return {
        "traceId": trace,
        "spanId": span,
        "name": "chat gpt-4o",
        "startTimeUnixNano": str(start * 10**9),
        "endTimeUnixNano": str(start * 10**9 + 5),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }


def otel_trace(path: Path, spans: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    return path


def gateway_call(session: str, messages: list[dict[str, Any]], answer: str) -> dict[str, Any]:
    """One call as a gateway logs it (request and response bodies), naming its session."""
    return {
        "metadata": {"session_id": session},
        "request": {"body": {"model": "gpt-4o", "messages": messages}},
        "response": {
            "body": {
                "object": "chat.completion",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
                ],
            }
        },
    }
