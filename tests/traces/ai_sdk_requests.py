"""The Vercel AI SDK's steps whose first step kept the request its provider was sent, generated over
the shapes a provider's request body takes: the SDK's ``openai`` provider (v5 on) sends a Responses
API request, its prompt in ``instructions`` and ``input`` (a string, or items: role messages whose
content is a string or ``input_text`` parts, earlier calls as ``function_call`` /
``function_call_output`` items), never ``messages``. Such a run read its prompt as missing
(``request_missing``).

:data:`DEV` is what the reading was developed against, :data:`VALIDATION` was held out (a case is in
one half by a hash of its name); :data:`CONTROLS` are bodies read before and read the same
(Chat Completions ``messages``, an Anthropic ``system`` beside them) or holding no prompt."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    name: str
    body: Any
    system: str | None
    prompt: str | None
    earlier: int
    """Events the body holds before the prompt's user turn beyond the system turn (an earlier
    exchange)."""


QUESTIONS = ("Weather in Paris?", "¿Qué tiempo hace en Madrid?", "Summarize the report\nin two lines.")


def _user(question: str, parts: bool) -> dict[str, Any]:
    content: Any = [{"type": "input_text", "text": question}] if parts else question
    return {"role": "user", "content": content}


def _earlier() -> list[dict[str, Any]]:
    """An exchange before the prompt: a question, a call and its output, the answer."""
    return [
        _user("Time in Rome?", True),
        {"type": "function_call", "call_id": "c0", "name": "clock", "arguments": '{"city": "Rome"}'},
        {"type": "function_call_output", "call_id": "c0", "output": "10:00"},
        {"role": "assistant", "content": [{"type": "output_text", "text": "It is 10:00."}]},
    ]


def _case(question: str, system: str, user: str, history: bool, text: bool) -> Case:
    said = "Be brief."
    body: dict[str, Any] = {"model": "gpt-4o", "tools": [{"type": "function", "name": "weather"}]}
    items: list[dict[str, Any]] = []
    if system == "instructions":
        body["instructions"] = said
    elif system != "none":
        items.append({"role": system, "content": said})
    items += _earlier() if history else []
    if user == "string" and not items:  # the shorthand: the question alone
        body["input"] = question
    else:
        body["input"] = [*items, _user(question, user == "parts")]
    shape = f"{'history' if history else 'first'}-{'text' if text else 'object'}"
    name = f"{system}-{user}-{shape}-q{QUESTIONS.index(question)}"
    return Case(
        name,
        json.dumps(body) if text else body,
        None if system == "none" else said,
        question,
        4 if history else 0,
    )


def _gemini_earlier() -> list[dict[str, Any]]:
    """The same earlier exchange as Gemini ``contents``."""
    return [
        {"role": "user", "parts": [{"text": "Time in Rome?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "clock", "args": {"city": "Rome"}}}]},
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "clock", "response": {"content": "10:00"}}}],
        },
        {"role": "model", "parts": [{"text": "It is 10:00."}]},
    ]


def _gemini_case(question: str, system: bool, history: bool, text: bool) -> Case:
    """The SDK's ``google`` provider's request: ``systemInstruction`` and ``contents`` (camelCase)."""
    said = "Be brief."
    body: dict[str, Any] = {"generationConfig": {"temperature": 0}, "tools": [{"functionDeclarations": []}]}
    if system:
        body["systemInstruction"] = {"parts": [{"text": said}]}
    earlier = _gemini_earlier() if history else []
    body["contents"] = [*earlier, {"role": "user", "parts": [{"text": question}]}]
    shape = f"{'history' if history else 'first'}-{'text' if text else 'object'}"
    name = f"gemini-{'system' if system else 'none'}-{shape}-q{QUESTIONS.index(question)}"
    return Case(
        name, json.dumps(body) if text else body, said if system else None, question, 4 if history else 0
    )


CASES = [
    _case(*combo)
    for combo in itertools.product(
        QUESTIONS,
        ("instructions", "system", "developer", "none"),
        ("parts", "string"),
        (False, True),
        (True, False),
    )
]


GEMINI = [
    _gemini_case(*combo)
    for combo in itertools.product(QUESTIONS, (True, False), (False, True), (True, False))
]
"""Added after the Responses requests were measured: the ``google`` provider's bodies, one class with
them (a provider's request, read by that provider's reader), split the same way."""


def _bedrock_earlier() -> list[dict[str, Any]]:
    """The same earlier exchange as Bedrock Converse ``messages`` (content blocks keyed by kind)."""
    return [
        {"role": "user", "content": [{"text": "Time in Rome?"}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "tooluse_c0", "name": "clock", "input": {"city": "Rome"}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "tooluse_c0", "content": [{"text": "10:00"}]}}],
        },
        {"role": "assistant", "content": [{"text": "It is 10:00."}]},
    ]


def _chat_call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "clock", "arguments": '{"city": "Rome"}'}}


def _cohere_earlier() -> list[dict[str, Any]]:
    """The same earlier exchange as the SDK's ``cohere`` provider writes it (Cohere v2 chat: a
    ``tool_plan`` beside the calls, the result a ``tool`` message)."""
    return [
        {"role": "user", "content": "Time in Rome?"},
        {"role": "assistant", "tool_plan": "I will check the clock.", "tool_calls": [_chat_call("c0")]},
        {"role": "tool", "content": '"10:00"', "tool_call_id": "c0"},
        {"role": "assistant", "content": "It is 10:00."},
    ]


def _mistral_earlier() -> list[dict[str, Any]]:
    """The same earlier exchange as the SDK's ``mistral`` provider writes it (user content parts,
    the tool message naming its tool)."""
    return [
        {"role": "user", "content": [{"type": "text", "text": "Time in Rome?"}]},
        {"role": "assistant", "content": "", "tool_calls": [_chat_call("Ab3dE5gH7")]},
        {"role": "tool", "name": "clock", "content": '"10:00"', "tool_call_id": "Ab3dE5gH7"},
        {"role": "assistant", "content": "It is 10:00."},
    ]


def _other_case(provider: str, question: str, system: bool, history: bool, text: bool) -> Case:
    """The request bodies of the SDK's ``amazon-bedrock`` (Converse: ``system`` blocks beside
    ``messages`` of content blocks), ``cohere`` and ``mistral`` providers."""
    said = "Be brief."
    body: dict[str, Any]
    if provider == "bedrock":
        body = {
            "inferenceConfig": {"maxTokens": 512, "temperature": 0},
            "toolConfig": {"tools": [{"toolSpec": {"name": "clock", "inputSchema": {"json": {}}}}]},
            **({"system": [{"text": said}]} if system else {}),
            "messages": [
                *(_bedrock_earlier() if history else []),
                {"role": "user", "content": [{"text": question}]},
            ],
        }
    else:
        earlier = (_cohere_earlier() if provider == "cohere" else _mistral_earlier()) if history else []
        user: Any = question if provider == "cohere" else [{"type": "text", "text": question}]
        body = {
            "model": "command-r-plus" if provider == "cohere" else "mistral-large-latest",
            "messages": [
                *([{"role": "system", "content": said}] if system else []),
                *earlier,
                {"role": "user", "content": user},
            ],
            "tools": [{"type": "function", "function": {"name": "clock", "parameters": {}}}],
        }
    shape = f"{'history' if history else 'first'}-{'text' if text else 'object'}"
    name = f"{provider}-{'system' if system else 'none'}-{shape}-q{QUESTIONS.index(question)}"
    return Case(
        name, json.dumps(body) if text else body, said if system else None, question, 4 if history else 0
    )


OTHERS = [
    _other_case(*combo)
    for combo in itertools.product(
        ("bedrock", "cohere", "mistral"), QUESTIONS, (True, False), (False, True), (True,)
    )
]
"""The SDK's other providers' bodies (``amazon-bedrock``, ``cohere``, ``mistral``), generated after
the Responses and Gemini ones to check they are read as the prompt, split the same way; as JSON text
only (the step's body as an object is the same reading, measured 36/36 when generated)."""


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]
GEMINI_DEV = [c for c in GEMINI if _half(c) == 0]
GEMINI_VALIDATION = [c for c in GEMINI if _half(c) == 1]
OTHERS_DEV = [c for c in OTHERS if _half(c) == 0]
OTHERS_VALIDATION = [c for c in OTHERS if _half(c) == 1]

CONTROLS = [
    Case(
        "chat-completions",
        json.dumps(
            {
                "model": "gpt-4o",
                "messages": [{"role": "system", "content": "Be brief."}, _user(QUESTIONS[0], False)],
            }
        ),
        "Be brief.",
        QUESTIONS[0],
        0,
    ),
    Case(
        "anthropic",
        {
            "model": "claude",
            "system": [{"type": "text", "text": "Be brief."}],
            "messages": [_user(QUESTIONS[0], False)],
        },
        "Be brief.",
        QUESTIONS[0],
        0,
    ),
    Case("no-prompt", {"model": "gpt-4o", "temperature": 0}, None, None, 0),
    Case("empty-input", {"model": "gpt-4o", "input": []}, None, None, 0),
]


def steps(case: Case) -> list[dict[str, Any]]:
    """Two v5 steps (a call and its result, then the answer), the first keeping ``case``'s body."""
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": {"city": "Paris"}}
    return [
        {
            "content": [call, {**call, "type": "tool-result", "output": {"temp": 18}}],
            "finishReason": "tool-calls",
            "usage": {"inputTokens": 10},
            "request": {"body": case.body},
        },
        {
            "content": [{"type": "text", "text": "It is 18C."}],
            "finishReason": "stop",
            "usage": {"inputTokens": 20},
        },
    ]
