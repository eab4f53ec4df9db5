"""The message payloads tracing platforms store (LangSmith, Langfuse, MLflow): LangChain messages in
each of their serializations or role dicts, what a model call saw (a message list, an object
holding one, or a prompt string), and what it answered (a message, a Chat Completions response, or
text), each read into events. Content parts are read by their shape (``content_parts.py``): an
unknown one rejects the record, never vanishes from the text.
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.anthropic import system_events
from trajectory_platform.traces.adapters.base import (
    RecordError,
    arguments_text,
    expect,
    object_field,
    optional_str,
    text_of,
)
from trajectory_platform.traces.adapters.content_parts import pieces_of, steps_of
from trajectory_platform.traces.adapters.message_roles import (
    CLASS_NAMES,
    LANGCHAIN_ROLES,
    take_call_facts,
)
from trajectory_platform.traces.adapters.openai import (
    ROLE_KINDS,
    events_of_message,
    taken_choice,
    tool_call_of,
)
from trajectory_platform.traces.adapters.openai_responses import (
    is_item_list,
    is_request,
    is_response,
    request_events,
    response_events,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Event, ToolCall

KINDS = {kind: ROLE_KINDS[role] for kind, role in LANGCHAIN_ROLES.items()}
"""A LangChain message type (``HumanMessage`` and its ``Chunk`` by their short name) -> event kind."""
CHAT_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "tool": "tool"}


def _message_events(kind: str, fields: dict[str, Any], where: str) -> list[Event]:
    """One LangChain message (its type and its fields) as events: one, or, for an AI message whose
    content holds the results of tools its provider ran within the turn (Anthropic's web search or
    code execution, as ``langchain-anthropic`` keeps them), a turn per model step, each followed by
    its results (``content_parts.steps_of``: the text after a result was written after the model saw
    it, as every reader of such a message reads it). The calls ``tool_calls`` lists are those the
    message ended with, so they go with its last step."""
    content = fields.get("content")
    steps = steps_of(content) if kind == "ai" and isinstance(content, list) else []
    if len(steps) <= 1:
        return _message_parts(kind, fields, where)
    last = len(steps) - 1
    events: list[Event] = []
    for number, (start, parts) in enumerate(steps):
        step: dict[str, Any] = {**fields} if number == 0 else {}
        step |= {key: fields.get(key) if number == last else None for key in LISTED_CALLS}
        at = where if number == 0 else f"{where}.content[{start}:]"
        events += _message_parts(kind, {**step, "content": parts}, at)
    return events


LISTED_CALLS = ("tool_calls", "invalid_tool_calls")
"""An AI message's fields listing its calls (:func:`_calls`)."""


def _message_parts(kind: str, fields: dict[str, Any], where: str) -> list[Event]:
    """One LangChain message (its type and its fields) as an event, then the results its content
    holds where it is an AI message's step (:func:`_message_events`)."""
    if kind == "chat":
        role = fields.get("role")
        if role not in CHAT_ROLES:
            raise RecordError(
                "unknown role", f"{where}.role is {named(role)}; expected one of {list(CHAT_ROLES)}"
            )
        kind = {"user": "human", "assistant": "ai"}.get(role, role)
    if kind not in KINDS:
        raise RecordError("unknown role", f"{where}.type is {named(kind)}; expected one of {list(KINDS)}")
    content, output = fields.get("content"), KINDS[kind] == "tool"
    pieces = pieces_of(content, f"{where}.content", output) if isinstance(content, list) else []
    read = {piece: [v for k, v in pieces if k == piece] for piece in ("text", "reasoning", "call", "result")}
    if (read["result"] and not output and kind != "ai") or (
        kind != "ai" and (read["call"] or read["reasoning"])
    ):
        raise RecordError("misplaced content part", f"{where}.content holds a part no {kind} message has")
    results = read["result"] if kind == "ai" else []
    said = [*read["text"], *(r.content for r in read["result"] if r.content is not None and not results)]
    text = "\n".join(said) if pieces else text_of(content, f"{where}.content")
    event = Event(kind=KINDS[kind], content=text)
    if kind == "ai":
        extra = object_field(fields, "additional_kwargs")
        reasoning = [t for t in (*read["reasoning"], extra.get("reasoning_content")) if isinstance(t, str)]
        event.reasoning = "\n".join(reasoning) or None
        event.tool_calls = _calls(fields, read["call"], where)
        take_call_facts(event, fields, where)
    elif KINDS[kind] == "tool":
        event.tool_call_id = optional_str(fields.get("tool_call_id"), f"{where}.tool_call_id")
        event.tool_name = optional_str(fields.get("name"), f"{where}.name")
        event.status = "error" if fields.get("status") == "error" else "ok"
    return [event, *results]


def _calls(fields: dict[str, Any], in_content: list[ToolCall], where: str) -> list[ToolCall]:
    """``tool_calls`` and ``invalid_tool_calls`` (arguments the model wrote that did not parse, kept
    as written); the calls of the content parts (Anthropic-style ``tool_use``) when no
    ``tool_calls`` were filled in (LangChain fills both with the same calls); else the provider's
    own calls LangChain below 0.2 kept only in ``additional_kwargs`` (:func:`_legacy_calls`)."""
    calls = []
    for key in ("tool_calls", "invalid_tool_calls"):
        for index, call in enumerate(expect(fields.get(key) or [], list, f"{where}.{key}")):
            expect(call, dict, f"{where}.{key}[{index}]")
            calls.append(
                ToolCall(
                    id=optional_str(call.get("id"), f"{where}.{key}[{index}].id"),
                    name=optional_str(call.get("name"), f"{where}.{key}[{index}].name"),
                    arguments=arguments_text(call.get("args")),
                )
            )
    return calls or in_content or _legacy_calls(object_field(fields, "additional_kwargs"), where)


def _legacy_calls(extra: dict[str, Any], where: str) -> list[ToolCall]:
    """The calls of an AI message from LangChain below 0.2, which had no ``tool_calls`` field of its
    own and kept the provider's: OpenAI ``tool_calls`` (``{"id", "function": {"name", "arguments"}}``)
    or the legacy ``function_call``, under ``additional_kwargs``. Left unread, the tool message
    answering them was an ``orphan tool result``. Read as the OpenAI reader reads those fields."""
    at = f"{where}.additional_kwargs"
    calls = expect(extra.get("tool_calls") or [], list, f"{at}.tool_calls")
    read = [tool_call_of(call, f"{at}.tool_calls[{i}]") for i, call in enumerate(calls)]
    legacy = extra.get("function_call")
    if legacy is not None:
        expect(legacy, dict, f"{at}.function_call")
        read.append(tool_call_of({"function": legacy}, f"{at}.function_call"))
    return read


def events_of(message: Any, where: str) -> list[Event]:
    """A message in any shape tracing platforms store: a LangChain serialization (``lc``
    constructor, ``{"type", "data"}``, ``{"type", "content", ...}``) or a role dict, as its events
    (an AI message holding its provider's tools' results is a turn per step: :func:`_message_events`)."""
    expect(message, dict, where)
    if message.get("lc") == 1 and message.get("type") == "constructor":
        path = expect(message.get("id"), list, f"{where}.id")
        name = str(path[-1]).removesuffix("Chunk") if path else ""
        if name not in CLASS_NAMES:
            raise RecordError("unknown role", f"{where}.id names {named(name)}; expected a LangChain message")
        return _message_events(
            CLASS_NAMES[name], expect(message.get("kwargs", {}), dict, f"{where}.kwargs"), where
        )
    if isinstance(message.get("data"), dict) and isinstance(message.get("type"), str):
        return _message_events(message["type"].removesuffix("Chunk"), message["data"], f"{where}.data")
    if "role" in message:
        return events_of_message(message, where)
    return _message_events(str(message.get("type")).removesuffix("Chunk"), message, where)


def event_of(message: Any, where: str) -> Event:
    """A message read by :func:`events_of` where one event must stand for it (an agent action's
    turn): a
    message that reads as several (its provider ran tools within it) is a reject saying so."""
    events = events_of(message, where)
    if len(events) > 1:
        raise RecordError(
            "misplaced content part",
            f"{where}.content holds the results of tools run within the message, where one message is read",
        )
    return events[0]


def first_choice(response: dict[str, Any], where: str) -> list[Event]:
    """A Chat Completions response's taken choice (:func:`taken_choice`: the lowest ``index``) as its
    events (:func:`events_of`: a provider-run tool round within it is several), the last with its
    finish reason and the response's usage."""
    position, choice = taken_choice(response, where)
    at = f"{where}.choices[{position}]"
    events = events_of_message(choice.get("message"), f"{at}.message")
    event = events[-1]
    event.finish_reason = optional_str(choice.get("finish_reason"), f"{at}.finish_reason")
    usage = object_field(response, "usage")
    event.input_tokens = usage.get("prompt_tokens", usage.get("input_tokens"))
    event.output_tokens = usage.get("completion_tokens", usage.get("output_tokens"))
    return events


def messages_seen(value: Any, where: str) -> list[Event]:
    """What a model call saw: a message list, a prompt string, or the call's arguments
    ``{"messages": [...]}``, with the system prompt an Anthropic SDK call passes beside them
    (:func:`system_events`, the one reading of it the ``anthropic`` and ``chat-log`` readers share),
    or a Responses API request (``instructions`` + ``input``: ``openai_responses.request_events``),
    or its ``input`` alone, a list of Responses items (what the Agents SDK logs a call's input as)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [Event(kind="user", content=value)]
    if is_item_list(value):
        value = {"input": value}
    if is_request(value) and "messages" not in value:
        return request_events(value, where)
    system: list[Event] = []
    if isinstance(value, dict):
        system, value, where = system_events(value, where), value.get("messages"), f"{where}.messages"
    if isinstance(value, list) and value and isinstance(value[0], list):
        value = value[0]  # a batch of one conversation (LangChain's chat model inputs)
    messages = expect(value, list, where)
    return [*system, *(e for i, m in enumerate(messages) for e in events_of(m, f"{where}[{i}]"))]


def first_generation(result: dict[str, Any], where: str) -> list[Event]:
    """A LangChain chat result's ``generations[0][0]`` as its events: its message, else its text,
    the last with the generation's finish reason."""
    batch = expect(result["generations"], list, f"{where}.generations")
    first = expect(
        batch[0][0] if batch and isinstance(batch[0], list) else None, dict, f"{where}.generations"
    )
    if first.get("message") is not None:
        events = events_of(first["message"], f"{where}.generations[0][0].message")
    else:
        events = [
            Event(kind="assistant", content=optional_str(first.get("text"), f"{where}.generations[0][0]"))
        ]
    info = object_field(first, "generation_info")
    event = events[-1]
    event.finish_reason = event.finish_reason or optional_str(
        info.get("finish_reason"), f"{where}.generations"
    )
    return events


def replies_of(value: Any, where: str) -> list[Event]:
    """What a model call answered, as its events: a message, a Chat Completions response's first
    choice, a LangChain chat result's first generation, a Responses API response's output items
    (``openai_responses.response_events``; a list of them alone, as the Agents SDK logs a
    generation's ``output``), or text; none when nothing was recorded (the call failed before
    answering). An answer in which the provider ran a tool (a server tool's call
    and result, then the words written after it) is a turn per step, as the same message is read
    where a later call's input holds it (:func:`events_of`): the shared reading of the answers of
    every traced call (LangSmith, Langfuse, MLflow, the Agents SDK)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [Event(kind="assistant", content=value)]
    if is_item_list(value):
        value = {"output": value}
    expect(value, dict, where)
    if "choices" in value:
        return first_choice(value, where)
    if "generations" in value:
        return first_generation(value, where)
    if is_response(value):
        return response_events(value, where)
    if "role" not in value and "type" not in value and "lc" not in value:
        value = {"role": "assistant", **value}
    return events_of(value, where)
