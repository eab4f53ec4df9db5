"""AutoGen AgentChat: the messages a team or an agent run returns (``TaskResult.messages``, each
``model_dump()``-ed), as an application logs them.

A record is ``{"messages": [...], "stop_reason"}`` (a ``TaskResult``; one per line, an array, or a
document) or a whole file that is a bare message list. Every message names its ``type`` and its
``source`` (the agent, or ``user``):

- ``TextMessage``, ``MultiModalMessage`` (images as a marker), ``HandoffMessage``,
  ``StructuredMessage``: a user event from ``user`` or from an agent that asked a person for input
  (a ``UserProxyAgent``: its source emits ``UserInputRequestedEvent``), else an assistant event
  named by its source,
  with ``models_usage`` as its token counts;
- ``ThoughtEvent``: the reasoning of that source's next assistant event;
- ``ToolCallRequestEvent``: an assistant event with its calls (``id``, ``name``, ``arguments``);
  ``ToolCallExecutionEvent``: one tool event per result (``call_id``, ``is_error`` -> ``error``),
  named by its source (the agent that ran the tool), as every event is;
- ``ToolCallSummaryMessage``: the framework's summary of tool results, not the model's words: an
  assistant event of weight 0 (context, never a target);
- ``CodeGenerationEvent`` / ``CodeExecutionEvent``: an assistant turn and its execution's result
  (``exit_code``, non-zero -> ``error``);
- ``StopMessage`` and the bookkeeping events (memory queries, speaker selection, streaming chunks,
  user-input requests) are no turn: they are counted, and stop messages kept, in ``extra_json``.

A message type this adapter does not know rejects the record with its path. The task is named
where every chat format names it.
"""

from __future__ import annotations

from collections import Counter
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
    object_field,
    optional_str,
)
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

HUMAN_INPUT_REQUEST = "UserInputRequestedEvent"
SPOKEN = ("TextMessage", "MultiModalMessage", "HandoffMessage", "StructuredMessage")
BOOKKEEPING = (
    "MemoryQueryEvent",
    HUMAN_INPUT_REQUEST,
    "ModelClientStreamingChunkEvent",
    "SelectSpeakerEvent",
    "StopMessage",
)
TURNS = (
    *SPOKEN,
    "ThoughtEvent",
    "ToolCallRequestEvent",
    "ToolCallExecutionEvent",
    "ToolCallSummaryMessage",
    "CodeGenerationEvent",
    "CodeExecutionEvent",
)
MESSAGE_TYPES = frozenset((*TURNS, *BOOKKEEPING))


def _is_message_list(value: Any) -> bool:
    first = value[0] if isinstance(value, list) and value else None
    if not isinstance(first, dict):
        return False
    kind = first.get("type")
    return isinstance(kind, str) and kind in MESSAGE_TYPES and "source" in first


def _text(content: Any, where: str) -> str | None:
    """A message's content: text, a multimodal list (images as a marker), or structured data."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part if isinstance(part, str) else "[image]" for part in content)
    return canonical_json(expect(content, dict, where))


class _Reader:
    """Builds one episode message by message (see the module docstring)."""

    def __init__(self, humans: set[str]) -> None:
        self.humans = humans
        self.events: list[Event] = []
        self.thoughts: dict[str, list[str]] = {}
        self.skipped: Counter[str] = Counter()
        self.stops: list[str] = []

    def assistant(self, source: str, message: dict[str, Any], content: str | None) -> Event:
        usage = object_field(message, "models_usage")
        event = Event(
            kind="assistant",
            content=content,
            name=source,
            reasoning="\n".join(self.thoughts.pop(source, [])) or None,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
        )
        self.events.append(event)
        return event

    def read(self, message: Any, where: str) -> None:
        expect(message, dict, where)
        kind = expect(message.get("type"), str, f"{where}.type")
        source = optional_str(message.get("source"), f"{where}.source") or "assistant"
        content = message.get("content")
        if kind in BOOKKEEPING:
            self.skipped[kind] += 1
            if kind == "StopMessage":
                self.stops.append(_text(content, f"{where}.content") or "")
        elif kind in SPOKEN and source in self.humans:
            name = None if source == "user" else source
            self.events.append(Event(kind="user", content=_text(content, f"{where}.content"), name=name))
        elif kind in (*SPOKEN, "CodeGenerationEvent"):
            self.assistant(source, message, _text(content, f"{where}.content"))
        elif kind == "ThoughtEvent":
            self.thoughts.setdefault(source, []).append(expect(content, str, f"{where}.content"))
        elif kind == "ToolCallRequestEvent":
            turn = self.assistant(source, message, None)
            for index, call in enumerate(expect(content, list, f"{where}.content")):
                at = f"{where}.content[{index}]"
                expect(call, dict, at)
                turn.tool_calls.append(
                    ToolCall(
                        id=optional_str(call.get("id"), f"{at}.id") or None,
                        name=optional_str(call.get("name"), f"{at}.name"),
                        arguments=arguments_text(call.get("arguments")),
                    )
                )
        elif kind == "ToolCallExecutionEvent":
            for index, result in enumerate(expect(content, list, f"{where}.content")):
                at = f"{where}.content[{index}]"
                expect(result, dict, at)
                self.events.append(
                    Event(
                        kind="tool",
                        content=_text(result.get("content"), f"{at}.content"),
                        tool_call_id=optional_str(result.get("call_id"), f"{at}.call_id") or None,
                        tool_name=optional_str(result.get("name"), f"{at}.name"),
                        status="error" if result.get("is_error") else "ok",
                        name=source,
                    )
                )
        elif kind == "ToolCallSummaryMessage":
            self.assistant(source, message, _text(content, f"{where}.content")).weight = 0.0
        elif kind == "CodeExecutionEvent":
            result = object_field(message, "result")
            code = expect(result.get("exit_code"), int | None, f"{where}.result.exit_code")
            self.events.append(
                Event(
                    kind="tool",
                    content=optional_str(result.get("output"), f"{where}.result.output"),
                    tool_name="code_execution",
                    exit_code=code,
                    status="error" if code else "ok",
                    name=source,
                )
            )
        else:
            raise RecordError("unknown message type", f"{where}.type is not an AgentChat message type")

    def finish(self) -> None:
        """Reasoning no later turn of its source took is a turn of its own."""
        for source, thoughts in self.thoughts.items():
            self.events.append(Event(kind="assistant", name=source, reasoning="\n".join(thoughts)))


def _humans(messages: list[Any]) -> set[str]:
    """The sources whose messages a person wrote: ``user`` (the task), and every agent that asked a
    person for input (a ``UserProxyAgent`` emits a :data:`HUMAN_INPUT_REQUEST` before each reply it
    relays). Their words are user turns, never the model's: trained as assistant turns, a person's
    feedback ("make it about snow") would be taught as what the model says."""
    asked = {
        m["source"]
        for m in messages
        if isinstance(m, dict) and m.get("type") == HUMAN_INPUT_REQUEST and isinstance(m.get("source"), str)
    }
    return {"user", *asked}


class AutoGenAdapter(Adapter):
    """AutoGen AgentChat task results (or bare message lists)."""

    name = "autogen"
    records_tool_calls = False  # a CodeExecutionEvent runs the code block the turn before wrote
    task_id_source = CHAT_TASK_ID_SOURCE
    bare_list_key = "messages"

    def is_bare_list(self, document: Any) -> bool:
        return _is_message_list(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_message_list(record.get("messages"))

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, value.get("id"), value))
        episode.task.fixture_id = chat_task_id(value)
        messages = expect(value.get("messages"), list, "messages")
        reader = _Reader(_humans(messages))
        for index, message in enumerate(messages):
            reader.read(message, f"messages[{index}]")
        reader.finish()
        episode.events = reader.events
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        extra = {k: v for k, v in value.items() if k not in ("id", "messages")}
        if reader.skipped:
            extra["skipped_messages"] = dict(sorted(reader.skipped.items()))
        if reader.stops:
            extra["stop_messages"] = reader.stops
        episode.extra_json = canonical_json(extra) if extra else None
        return episode
