"""OpenAI Chat Completions messages: ``tool_calls`` / ``tool`` role, legacy ``function_call`` /
``function`` role, the fine-tuning ``weight`` on assistant messages, and a ``tools`` /
``functions`` list.

A record is one conversation: ``{"messages": [...], "tools": [...], ...}`` (a JSONL line or an
array element), or a whole file that is a bare list of messages. The task it ran against is
``metadata.task_id`` (see :data:`~trajectory_platform.traces.adapters.base.TASK_ID_KEYS`). The
message conversion is shared with formats that embed OpenAI messages (tau-bench, ToolBench).
"""

from __future__ import annotations

from typing import Any

from trajectory_platform.traces.adapters.base import (
    CHAT_TASK_ID_SOURCE,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    arguments_text,
    chat_task_id,
    expect,
    optional_str,
    read_chat_outcome,
    text_of,
)
from trajectory_platform.traces.adapters.reasoning_fields import reasoning_of_message
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, ToolSpec, canonical_json

ROLE_KINDS = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
CONVERSATION_KEYS = ("messages", "tools", "functions")


def is_message_list(value: Any) -> bool:
    """A non-empty list whose first element looks like a chat message."""
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict) and "role" in value[0]


def tool_call_of(raw: Any, where: str) -> ToolCall:
    """One entry of ``tool_calls`` (``{"id", "function": {"name", "arguments"}}``, or flat, or with
    LangChain's ``args``, as tracing platforms store a LangChain message as a role dict)."""
    expect(raw, dict, where)
    function = expect(raw.get("function") or {}, dict, f"{where}.function")
    return ToolCall(
        id=optional_str(raw.get("id"), f"{where}.id"),
        name=optional_str(function.get("name", raw.get("name")), f"{where}.function.name"),
        arguments=arguments_text(function.get("arguments", raw.get("arguments", raw.get("args")))),
    )


def event_of_message(message: Any, where: str) -> Event:
    """Convert one OpenAI message; malformed argument strings are kept verbatim (they are data)."""
    expect(message, dict, where)
    role = message.get("role")
    if not isinstance(role, str) or role not in ROLE_KINDS:
        raise RecordError(
            "unknown role", f"{where}.role is {named(role)}; expected one of {sorted(ROLE_KINDS)}"
        )
    event = Event(kind=ROLE_KINDS[role], content=text_of(message.get("content"), f"{where}.content"))
    event.name = optional_str(message.get("name"), f"{where}.name") if role != "function" else None
    if role == "assistant":
        calls = expect(message.get("tool_calls") or [], list, f"{where}.tool_calls")
        event.tool_calls = [tool_call_of(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(calls)]
        if message.get("function_call") is not None:
            legacy = expect(message["function_call"], dict, f"{where}.function_call")
            event.tool_calls.append(tool_call_of({"function": legacy}, f"{where}.function_call"))
        event.reasoning = reasoning_of_message(message, where)
        if message.get("refusal") is not None and event.content is None:
            event.content = optional_str(message["refusal"], f"{where}.refusal")
        weight = message.get("weight")
        if weight is not None:
            event.weight = float(expect(weight, int | float, f"{where}.weight"))
    elif role in ("tool", "function"):
        event.tool_call_id = optional_str(message.get("tool_call_id"), f"{where}.tool_call_id")
        event.tool_name = optional_str(message.get("name"), f"{where}.name")
    return event


def events_of_messages(messages: Any, where: str) -> list[Event]:
    """Convert a message list in recorded order (never re-sorted)."""
    expect(messages, list, where)
    return [event_of_message(m, f"{where}[{i}]") for i, m in enumerate(messages)]


def tool_specs_of(raw: Any, where: str) -> list[ToolSpec]:
    """``tools`` (``{"type": "function", "function": {...}}``, or flat as the Responses API writes
    them) or legacy ``functions`` entries; a built-in tool (``{"type": "web_search"}``) is named by
    its type."""
    expect(raw, list, where)
    specs = []
    for index, entry in enumerate(raw):
        expect(entry, dict, f"{where}[{index}]")
        function = entry.get("function", entry) if isinstance(entry.get("function"), dict) else entry
        built_in = entry.get("type") if entry.get("type") != "function" else None
        name = expect(function.get("name", built_in), str, f"{where}[{index}].name")
        parameters = function.get("parameters")
        specs.append(
            ToolSpec(
                name=name,
                description=optional_str(function.get("description"), f"{where}[{index}].description"),
                parameters_json=None if parameters is None else canonical_json(parameters),
                version=optional_str(entry.get("version"), f"{where}[{index}].version"),
            )
        )
    return specs


def extra_of(value: dict[str, Any], consumed: tuple[str, ...]) -> str | None:
    """Top-level fields no adapter field consumed, kept as canonical JSON (nothing dropped)."""
    rest = {k: v for k, v in value.items() if k not in consumed}
    return canonical_json(rest) if rest else None


class OpenAIAdapter(Adapter):
    """Chat conversations in the OpenAI message format (the fine-tuning JSONL shape included)."""

    name = "openai"
    task_id_source = CHAT_TASK_ID_SOURCE

    bare_list_key = "messages"

    def is_bare_list(self, document: Any) -> bool:
        return is_message_list(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        return isinstance(record.get("messages"), list)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if "messages" not in value:
            raise RecordError("missing field", "record has no 'messages' list")
        own_id = optional_str(value.get("id", value.get("conversation_id")), "id")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, value))
        episode.task.fixture_id = chat_task_id(value)
        read_chat_outcome(value, episode)
        episode.events = events_of_messages(value["messages"], "messages")
        for key in ("tools", "functions"):
            if value.get(key) is not None:
                episode.tools.extend(tool_specs_of(value[key], key))
        episode.extra_json = extra_of(value, ("id", "conversation_id", *CONVERSATION_KEYS))
        return episode
