"""ShareGPT conversations with tool calls: the fine-tuning format of LLaMA-Factory, Axolotl and
the Glaive / ToolACE-style function-calling sets, which teams also log agents in.

A record is ``{"conversations": [{"from", "value"}, ...], "system", "tools"}``. ``from`` is
``human`` / ``user``, ``gpt`` / ``assistant``, ``system``, ``function_call`` (the value is JSON:
one ``{"name", "arguments"}`` call or a list of them, made in one turn) or ``observation`` /
``tool`` / ``function`` (a tool's result, ToolLLaMA's spelling too; after several calls, the
results follow in call order). ``tools`` is a
JSON list (or its text) of ``{"name", "description", "parameters"}``. Calls carry no ids: a result
is paired with its call by position, as the format implies. A ``from`` this adapter does not know
or a ``function_call`` that is not JSON rejects the record with its path.
"""

from __future__ import annotations

import json
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
)
from trajectory_platform.traces.adapters.openai import extra_of, tool_specs_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall

SPEAKERS = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "system": "system",
    "function_call": "call",
    "observation": "tool",
    "tool": "tool",
    "function": "tool",
}
RECORD_KEYS = ("id", "conversations", "system", "tools")


def _is_conversation(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(t, dict) and "from" in t and "value" in t for t in value)
    )


def _calls_of(value: Any, where: str) -> list[ToolCall]:
    """A ``function_call`` turn's value: one call or a list of calls, as JSON (or its text)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as error:
            raise RecordError("malformed function_call", f"{where} is not JSON ({error.msg})") from None
    calls = value if isinstance(value, list) else [value]
    return [
        ToolCall(
            id=None,
            name=optional_str(expect(call, dict, f"{where}[{index}]").get("name"), f"{where}[{index}].name"),
            arguments=arguments_text(call.get("arguments", call.get("parameters"))),
        )
        for index, call in enumerate(calls)
    ]


def events_of_conversation(turns: Any, where: str) -> list[Event]:
    """Turns in recorded order; results after a call turn take its calls' names in order."""
    expect(turns, list, where)
    events: list[Event] = []
    pending: list[str | None] = []  # names of the calls whose results have not come back yet
    for index, turn in enumerate(turns):
        at = f"{where}[{index}]"
        expect(turn, dict, at)
        speaker = turn.get("from")
        if not isinstance(speaker, str) or speaker not in SPEAKERS:
            raise RecordError(
                "unknown speaker", f"{at}.from is {named(speaker)}; expected one of {sorted(SPEAKERS)}"
            )
        kind = SPEAKERS[speaker]
        if kind == "call":
            calls = _calls_of(turn.get("value"), f"{at}.value")
            last = events[-1] if events else None
            if last is not None and last.kind == "assistant" and not last.tool_calls:
                last.tool_calls = calls  # text then calls of one turn (Glaive writes both)
            else:
                events.append(Event(kind="assistant", tool_calls=calls))
            pending = [call.name for call in calls]
            continue
        value = turn.get("value")
        content = value if isinstance(value, str) or value is None else json.dumps(value, sort_keys=True)
        event = Event(kind=kind, content=content)
        if kind == "tool":
            event.tool_name = pending.pop(0) if pending else None
        events.append(event)
    return events


class ShareGPTAdapter(Adapter):
    """ShareGPT ``conversations`` with ``function_call`` / ``observation`` turns."""

    name = "sharegpt"
    task_id_source = CHAT_TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_conversation(record.get("conversations"))

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if not isinstance(value.get("conversations"), list):
            raise RecordError("missing field", "record has no 'conversations' list")
        own_id = (
            optional_str(value.get("id"), "id") if not isinstance(value.get("id"), int) else str(value["id"])
        )
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, value))
        episode.task.fixture_id = chat_task_id(value)
        read_chat_outcome(value, episode)
        system = optional_str(value.get("system"), "system")
        events = events_of_conversation(value["conversations"], "conversations")
        episode.events = ([Event(kind="system", content=system)] if system else []) + events
        tools = value.get("tools")
        if isinstance(tools, str) and tools.strip():
            try:
                tools = json.loads(tools)
            except json.JSONDecodeError as error:
                raise RecordError("malformed tools", f"tools is not JSON ({error.msg})") from None
        if tools:
            episode.tools = tool_specs_of(tools, "tools")
        episode.extra_json = extra_of(value, RECORD_KEYS)
        return episode
