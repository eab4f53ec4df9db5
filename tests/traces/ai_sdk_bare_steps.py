"""The Vercel AI SDK's steps saved without their result object: ``JSON.stringify(result.steps)`` (a
list) or one step a line as ``onStepFinish`` logs them. Each was read by ``chat-log`` as the first
step's request alone, every later step a ``missing field`` reject.

:data:`DEV` (v4 and v5 lists) is what the reading was developed against; :data:`VALIDATION` (one a
line in both releases, a lone step, a v5 ``tool-error``) was held out."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

BODY = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "Weather in Paris?"}]})


def v4(failed: bool = False) -> list[dict[str, Any]]:
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "args": {"city": "Paris"}}
    result = {**call, "type": "tool-result", "result": {"temp": 18}}
    first = {"stepType": "initial", "text": "", "toolCalls": [call], "toolResults": [result]}
    last = {"stepType": "tool-result", "text": "It is 18C.", "toolCalls": [], "toolResults": []}
    return [
        {**first, "finishReason": "tool-calls", "usage": {"promptTokens": 10}, "request": {"body": BODY}},
        {**last, "finishReason": "stop", "usage": {"promptTokens": 20, "completionTokens": 5}},
    ]


def v5(failed: bool = False) -> list[dict[str, Any]]:
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}}
    done = (
        {
            "type": "tool-error",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": {"city": "Paris"},
            "error": "timeout",
        }
        if failed
        else {**call, "type": "tool-result", "output": {"temp": 18}}
    )
    return [
        {
            "content": [call, done],
            "finishReason": "tool-calls",
            "usage": {"inputTokens": 10},
            "request": {"body": BODY},
        },
        {
            "content": [{"type": "text", "text": "It is 18C."}],
            "finishReason": "stop",
            "usage": {"inputTokens": 20},
        },
    ]


@dataclass(frozen=True)
class Case:
    name: str
    steps: list[dict[str, Any]]
    lines: bool
    failed: bool = False


DEV = [Case("v4-list", v4(), False), Case("v5-list", v5(), False)]
VALIDATION = [
    Case("v4-lines", v4(), True),
    Case("v5-lines", v5(), True),
    Case("v5-lines-tool-error", v5(failed=True), True, failed=True),
    Case("v5-list-tool-error", v5(failed=True), False, failed=True),
]
GEMINI_CANDIDATES = [
    {"content": {"role": "model", "parts": [{"text": "Hi"}]}, "finishReason": "STOP", "index": 0},
]
"""A control: a Gemini candidate holds ``content`` and ``finishReason`` too, its content one object."""
