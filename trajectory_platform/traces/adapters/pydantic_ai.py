"""Pydantic AI message histories: what ``result.all_messages_json()`` writes (a bare list), or a
record holding that list under ``messages``.

A message is a ``request`` (what the model was sent) or a ``response`` (what it answered), and its
parts name their own kind (``part_kind``), which is what says who spoke:

- ``system-prompt`` -> a system event, ``user-prompt`` -> a user event (media as a marker); a
  request's ``instructions`` -> a system event before it, where first given or changed;
- ``tool-return`` -> a tool event answering ``tool_call_id``, named by ``tool_name``;
  ``retry-prompt`` (the framework telling the model its call or output was invalid) -> a tool event
  of status ``error`` when it answers a call, else a user event;
- a ``response`` is one assistant event: ``text``, ``thinking`` -> reasoning, ``tool-call`` /
  ``builtin-tool-call`` -> calls (``args`` as written); a ``builtin-tool-return`` (a tool the
  provider ran) follows it as a tool event, and what the response says after it is the next turn;
  ``usage``, ``model_name``, ``finish_reason`` (of the turn the response ended on).

A part of another kind is read by its shape (``content_parts.py``), or rejects the record with its
path: never text, never dropped. The task is named where every chat format names it.
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
    object_field,
    optional_str,
    timestamp_of,
)
from trajectory_platform.traces.adapters.content_parts import REDACTED, AssistantParts, output_text, piece_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

MESSAGE_KINDS = ("request", "response")
INSTRUCTIONS = "instructions"
"""A request's instructions (``Agent(instructions=...)``, Pydantic AI 0.2 on): the system prompt
that request was sent with, kept on the request rather than as a ``system-prompt`` part. Read as a
system event where they are first given and wherever they change (it was dropped without a word:
the model's system prompt missing from the episode)."""
CALL_PARTS = ("tool-call", "builtin-tool-call")
RESULT_PARTS = ("tool-return", "builtin-tool-return")
MEDIA_KINDS = ("image-url", "audio-url", "video-url", "document-url", "binary")
"""What a ``user-prompt`` may show besides text (Pydantic AI's ``ImageUrl``, ``BinaryContent``...)."""


def _is_history(value: Any) -> bool:
    first = value[0] if isinstance(value, list) and value else None
    return (
        isinstance(first, dict)
        and first.get("kind") in MESSAGE_KINDS
        and isinstance(first.get("parts"), list)
        and all(isinstance(p, dict) and "part_kind" in p for p in first["parts"])
    )


def _prompt(content: Any, where: str) -> str | None:
    """A user prompt: text, or a list of text and media (each media item as a marker of its kind)."""
    if content is None or isinstance(content, str):
        return content
    pieces = []
    for index, item in enumerate(expect(content, list, where)):
        if isinstance(item, str):
            pieces.append(item)
        elif isinstance(item, dict) and item.get("kind") in MEDIA_KINDS:
            pieces.append(f"[{item['kind']}]")
        else:
            kind = item.get("kind") if isinstance(item, dict) else type(item).__name__
            raise RecordError(
                "unknown content part", f"{where}[{index}] is a prompt item of kind {named(kind)}"
            )
    return "\n".join(pieces)


def _result(part: dict[str, Any], where: str, status: str = "ok") -> Event:
    return Event(
        kind="tool",
        content=output_text(part.get("content"), f"{where}.content"),
        tool_call_id=optional_str(part.get("tool_call_id"), f"{where}.tool_call_id"),
        tool_name=optional_str(part.get("tool_name"), f"{where}.tool_name"),
        status=status,
    )


def _request(message: dict[str, Any], where: str) -> list[Event]:
    """What the model was sent, one event per part, in order."""
    events = []
    stamp = timestamp_of(message.get("timestamp"), f"{where}.timestamp")
    for index, part in enumerate(expect(message.get("parts"), list, f"{where}.parts")):
        at = f"{where}.parts[{index}]"
        kind = expect(part, dict, at).get("part_kind")
        if kind == "system-prompt":
            event = Event(kind="system", content=optional_str(part.get("content"), f"{at}.content"))
        elif kind == "user-prompt":
            event = Event(kind="user", content=_prompt(part.get("content"), f"{at}.content"))
        elif kind in RESULT_PARTS:
            event = _result(part, at)
        elif kind == "retry-prompt" and part.get("tool_name") is not None:
            event = _result(part, at, status="error")
        elif kind == "retry-prompt":
            event = Event(kind="user", content=output_text(part.get("content"), f"{at}.content"))
        else:
            found = piece_of(part, at)
            if any(piece in ("call", "reasoning") for piece, _ in found):
                raise RecordError("misplaced content part", f"{at} holds a model's part in a request")
            events += [
                value if piece == "result" else Event(kind="user", content=value) for piece, value in found
            ]
            continue
        event.timestamp = timestamp_of(part.get("timestamp"), f"{at}.timestamp") or stamp
        events.append(event)
    return events


def _response(message: dict[str, Any], where: str) -> list[Event]:
    """What the model answered: an assistant event, then the results of tools its provider ran;
    what the model wrote after such a result (it had seen it) is a turn of its own, as the Messages
    API reader reads an Anthropic server tool's (``anthropic.assistant_events``). The message's
    usage and finish reason are said of the step it ended on."""
    stamp = timestamp_of(message.get("timestamp"), f"{where}.timestamp")
    steps = [AssistantParts(Event(kind="assistant", timestamp=stamp))]
    for index, part in enumerate(expect(message.get("parts"), list, f"{where}.parts")):
        at = f"{where}.parts[{index}]"
        kind = expect(part, dict, at).get("part_kind")
        if steps[-1].results and kind not in RESULT_PARTS:  # the model goes on after a result
            steps.append(AssistantParts(Event(kind="assistant", timestamp=stamp)))
        parts, turn = steps[-1], steps[-1].turn
        if kind == "text":
            parts.texts.append(expect(part.get("content"), str, f"{at}.content"))
        elif kind == "thinking":
            thought = part.get("content")
            parts.thoughts.append(thought if isinstance(thought, str) and thought else REDACTED)
        elif kind in CALL_PARTS:
            turn.tool_calls.append(
                ToolCall(
                    id=optional_str(part.get("tool_call_id"), f"{at}.tool_call_id"),
                    name=optional_str(part.get("tool_name"), f"{at}.tool_name"),
                    arguments=arguments_text(part.get("args")),
                )
            )
        elif kind in RESULT_PARTS:
            parts.results.append(_result(part, at))
        else:
            parts.take(piece_of(part, at))
    last = steps[-1].turn
    usage = object_field(message, "usage")
    last.input_tokens = usage.get("input_tokens", usage.get("request_tokens"))
    last.output_tokens = usage.get("output_tokens", usage.get("response_tokens"))
    last.finish_reason = optional_str(message.get("finish_reason"), f"{where}.finish_reason")
    return [event for parts in steps for event in parts.events()]


class PydanticAIAdapter(Adapter):
    """Pydantic AI message histories (a bare list, or under ``messages``)."""

    name = "pydantic-ai"
    task_id_source = CHAT_TASK_ID_SOURCE
    bare_list_key = "messages"

    def is_bare_list(self, document: Any) -> bool:
        return _is_history(document)

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_history(record.get("messages"))

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, value.get("id"), value))
        episode.task.fixture_id = chat_task_id(value)
        instructions: str | None = None
        for index, message in enumerate(expect(value.get("messages"), list, "messages")):
            where = f"messages[{index}]"
            kind = expect(message, dict, where).get("kind")
            if kind not in MESSAGE_KINDS:
                raise RecordError(
                    "unknown message type", f"{where}.kind is {named(kind)}; expected request or response"
                )
            given = (
                optional_str(message.get(INSTRUCTIONS), f"{where}.{INSTRUCTIONS}")
                if kind == "request"
                else None
            )
            if given is not None and given != instructions:
                episode.events.append(Event(kind="system", content=given))
                instructions = given
            episode.events += _request(message, where) if kind == "request" else _response(message, where)
            if kind == "response":
                model = optional_str(message.get("model_name"), f"{where}.model_name")
                episode.lineage.model = episode.lineage.model or model
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        extra = {k: v for k, v in value.items() if k not in ("id", "messages")}
        episode.extra_json = canonical_json(extra) if extra else None
        return episode
