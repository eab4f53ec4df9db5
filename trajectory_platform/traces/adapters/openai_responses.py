"""OpenAI Responses API items: what an agent built on the Responses API or the OpenAI Agents SDK logs.

A conversation there is a list of typed items rather than role messages: ``message`` (role and
content parts ``input_text`` / ``output_text`` / ``refusal``; a bare ``{"role", "content"}`` is a
message too), ``reasoning`` (summary parts), ``function_call`` / ``function_call_output`` paired
by ``call_id``, the custom, local-shell and computer tools' call / output pairs, and the
server-side tools (web search, file search, code interpreter, image generation, MCP), whose one
item holds both the call and its result.

A record is a logged turn or run, ``{"instructions", "input": [...], "output": [...], "tools"}``
(the request's fields with the response's ``output``), a ``response`` object alone, or a whole file
that is a bare item list (``result.to_input_list()`` of the Agents SDK). Items become events in
recorded order: an assistant turn's reasoning, text and calls merge into one assistant event, as the
model produced them in one response. An item type this adapter does not know rejects the record
with its path and type (never dropped silently); fields no event takes are kept in ``extra_json``.
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
    name_tool_results,
    optional_str,
    read_chat_outcome,
    text_of,
)
from trajectory_platform.traces.adapters.openai import ROLE_KINDS, extra_of, tool_specs_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

CLIENT_CALLS = {
    "function_call": ("name", "arguments"),
    "custom_tool_call": ("name", "input"),
    "local_shell_call": ("local_shell", "action"),
    "computer_call": ("computer", "action"),
}
"""Calls the client runs, answered by a ``<type>_output`` item: (name field or fixed name, arguments
field)."""
SERVER_CALLS = {
    "web_search_call": "action",
    "file_search_call": "queries",
    "code_interpreter_call": "code",
    "image_generation_call": "result",
    "mcp_call": "arguments",
}
"""Tools the API runs itself: one item holds the call (this field) and its result."""
ITEM_TYPES = {"message", "reasoning", *CLIENT_CALLS, *(f"{t}_output" for t in CLIENT_CALLS), *SERVER_CALLS}
RANK = {"reasoning": 0, "content": 1, "tool_calls": 2}
"""The order a response writes an assistant turn's fields in."""
RECORD_KEYS = ("id", "instructions", "input", "output", "tools", "object")


def is_item_list(value: Any) -> bool:
    """A list holding at least one typed Responses item (role messages alone are Chat Completions)."""
    return isinstance(value, list) and any(
        isinstance(item, dict)
        and (
            isinstance(item.get("type"), str)
            and item["type"] in ITEM_TYPES
            or isinstance(item.get("content"), list)
            and any(
                isinstance(p, dict)
                and isinstance(p.get("type"), str)
                and p["type"] in ("input_text", "output_text")
                for p in item["content"]
            )
        )
        for item in value
    )


def _content_text(content: Any, where: str) -> str | None:
    """Message content: a string, or parts whose ``text`` (or ``refusal``) is kept in order."""
    if isinstance(content, list):
        content = [{"text": p["refusal"]} if isinstance(p, dict) and "refusal" in p else p for p in content]
    return text_of(content, where)


def _output_text(output: Any, where: str) -> str | None:
    """A tool output: a string, parts, or any JSON value (kept as canonical JSON)."""
    if output is None or isinstance(output, str | list):
        return text_of(output, where)
    return canonical_json(output)


class ItemTurns:
    """Events in recorded order, with one assistant event per model turn: the reasoning, text and
    calls of one response merge until a non-assistant event, or a field out of order, starts the next."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def assistant(self, field: str) -> Event:
        """The open assistant event for ``field``, or a new one: a response writes its reasoning,
        then its text, then its calls, so a field at or before one already filled starts a turn."""
        last = self.events[-1] if self.events else None
        if last is not None and last.kind == "assistant":
            filled = [RANK[f] for f in RANK if getattr(last, f)]
            if RANK[field] > max(filled, default=-1) or field == "tool_calls" and last.tool_calls:
                return last
        self.events.append(Event(kind="assistant"))
        return self.events[-1]

    def add(self, item: Any, where: str) -> None:
        expect(item, dict, where)
        kind = item.get("type", "message")
        if not isinstance(kind, str):
            raise RecordError("wrong type", f"{where}.type is {type(kind).__name__}, expected string")
        if kind == "message":
            self._message(item, where)
        elif kind == "reasoning":
            parts = item.get("summary") or item.get("content") or []
            text = text_of(expect(parts, list, f"{where}.summary"), f"{where}.summary")
            encrypted = "[encrypted reasoning]" if item.get("encrypted_content") else None
            self.assistant("reasoning").reasoning = text or encrypted
        elif kind in CLIENT_CALLS:
            name_field, arguments_field = CLIENT_CALLS[kind]
            name = item.get(name_field) if name_field == "name" else name_field
            self.assistant("tool_calls").tool_calls.append(
                ToolCall(
                    id=optional_str(item.get("call_id", item.get("id")), f"{where}.call_id"),
                    name=optional_str(name, f"{where}.{name_field}"),
                    arguments=arguments_text(item.get(arguments_field)),
                )
            )
        elif kind.endswith("_output") and kind[: -len("_output")] in CLIENT_CALLS:
            self.events.append(
                Event(
                    kind="tool",
                    content=_output_text(item.get("output"), f"{where}.output"),
                    tool_call_id=optional_str(item.get("call_id"), f"{where}.call_id"),
                    status="error" if item.get("status") == "incomplete" else None,
                )
            )
        elif kind in SERVER_CALLS:
            self._server_call(item, kind, where)
        else:
            raise RecordError(
                "unknown item type", f"{where}.type is {named(kind)}; expected one of {sorted(ITEM_TYPES)}"
            )

    def _message(self, item: dict[str, Any], where: str) -> None:
        role = item.get("role")
        if not isinstance(role, str) or ROLE_KINDS.get(role) not in ("system", "user", "assistant"):
            raise RecordError(
                "unknown role",
                f"{where}.role is {named(role)}; expected system, developer, user or assistant",
            )
        content = _content_text(item.get("content"), f"{where}.content")
        if role == "assistant":
            self.assistant("content").content = content
        else:
            self.events.append(Event(kind=ROLE_KINDS[role], content=content))

    def _server_call(self, item: dict[str, Any], kind: str, where: str) -> None:
        call_id = optional_str(item.get("id"), f"{where}.id")
        name = item.get("name") if kind == "mcp_call" else kind[: -len("_call")]
        arguments = item.get(SERVER_CALLS[kind])
        self.assistant("tool_calls").tool_calls.append(
            ToolCall(
                id=call_id, name=optional_str(name, f"{where}.name"), arguments=arguments_text(arguments)
            )
        )
        result = {k: v for k, v in item.items() if k not in ("type", "id", "name", SERVER_CALLS[kind])}
        failed = item.get("status") == "failed" or item.get("error") is not None
        self.events.append(
            Event(
                kind="tool",
                content=canonical_json(result),
                tool_call_id=call_id,
                status="error" if failed else None,
            )
        )


class OpenAIResponsesAdapter(Adapter):
    """Runs logged as OpenAI Responses API items (request ``input`` plus response ``output``)."""

    name = "openai-responses"
    task_id_source = CHAT_TASK_ID_SOURCE

    bare_list_key = "input"

    def is_bare_list(self, document: Any) -> bool:
        return is_item_list(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        return (
            record.get("object") == "response"
            or is_item_list(record.get("input"))
            or is_item_list(record.get("output"))
        )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if not isinstance(value.get("input"), list | str) and not isinstance(value.get("output"), list):
            raise RecordError("missing field", "record has neither an 'input' nor an 'output' item list")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, value.get("id"), value))
        episode.task.fixture_id = chat_task_id(value)
        read_chat_outcome(value, episode)
        turns = ItemTurns()
        if value.get("instructions") is not None:
            turns.events.append(
                Event(kind="system", content=_content_text(value["instructions"], "instructions"))
            )
        request = value.get("input")
        if isinstance(request, str):  # the shorthand: one user message
            turns.events.append(Event(kind="user", content=request))
        for key in ("input", "output"):
            items = value.get(key)
            for index, item in enumerate(items if isinstance(items, list) else []):
                turns.add(item, f"{key}[{index}]")
        episode.events = turns.events
        name_tool_results(episode.events)
        if value.get("tools") is not None:
            episode.tools = tool_specs_of(value["tools"], "tools")
        episode.extra_json = extra_of(value, RECORD_KEYS)
        return episode
