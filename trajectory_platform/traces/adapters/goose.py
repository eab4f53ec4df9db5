"""Goose (Block's agent) sessions: the session files under ``~/.local/share/goose/sessions/*.jsonl``,
what ``goose session export`` writes, and what ``goose run --output-format stream-json`` prints.

A record is one file, one session:

- a session file: its first line the session's metadata (``working_dir``, ``description``,
  ``message_count``, an ``id``...), then one message per line;
- an export: one document ``{"id", "working_dir", "conversation": [messages], ...}``;
- a stream: ``{"type": "message", "message": {...}}`` lines, a ``complete`` line with the run's
  token counts, ``notification`` lines (counted) and an ``error`` line (the run ended ``error``).

A message is ``{"id", "role": "user" | "assistant", "created", "content", "metadata"}``; a message
whose ``metadata.agentVisible`` is false was never model input and is counted, not kept. Its
``content`` is text, or a list of items by ``type``:

- ``text`` -> the event's text; ``thinking`` -> the assistant event's reasoning;
- ``toolRequest`` (assistant): ``toolCall.value`` ``{name, arguments}`` -> a call (arguments as
  canonical JSON); a request Goose could not parse (``toolCall.status`` ``error``) is counted;
- ``toolResponse`` (in a user message): ``toolResult.value`` (a list of content items, or
  ``{"content": [...], "isError"}``) -> a tool event answering the call ``id``, ``error`` when the
  status or ``isError`` says so;
- ``image``, ``redactedThinking``, ``toolConfirmationRequest``, ``frontendToolRequest``,
  ``contextLengthExceeded``, ``summarizationRequested``, ``systemNotification``: counted.

Any other item type rejects the session with its path. The format records no task id: a
``task_ids.json`` beside the sessions names it. ``working_dir`` is kept in ``extra_json`` as
``cwd``, the folder the session ran in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    arguments_text,
    expect,
    name_tool_results,
    object_field,
    one_record_per_file,
    optional_str,
    timestamp_of,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

ROLES = frozenset({"user", "assistant"})
COUNTED_ITEMS = frozenset(
    {
        "image",
        "redactedThinking",
        "toolConfirmationRequest",
        "frontendToolRequest",
        "contextLengthExceeded",
        "summarizationRequested",
        "systemNotification",
    }
)
"""Content items that are neither text the model read or wrote nor a tool call or its result."""
HEADER_KEYS = ("id", "description", "working_dir", "created_at", "updated_at", "schedule_id")
STREAM_TYPES = frozenset({"message", "complete", "notification", "error"})


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in ROLES
        and isinstance(value.get("created"), int | float)
        and isinstance(value.get("content"), list | str)
    )


def _is_header(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "role" not in value
        and "type" not in value
        and ("message_count" in value or ("working_dir" in value and "description" in value))
    )


def _is_stream_line(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") in STREAM_TYPES
        and (value["type"] != "message" or _is_message(value.get("message")))
    )


def _is_export(value: Any) -> bool:
    conversation = value.get("conversation") if isinstance(value, dict) else None
    return isinstance(conversation, list) and any(_is_message(m) for m in conversation)


def _belongs(value: Any) -> bool:
    return _is_header(value) or _is_message(value) or _is_stream_line(value) or _is_export(value)


class GooseAdapter(Adapter):
    """Goose session files, exports and ``stream-json`` runs: one session per file."""

    name = "goose"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return (
            _is_header(record)
            or _is_message(record)
            or _is_export(record)
            or (record.get("type") == "message" and _is_message(record.get("message")))
        )

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        return one_record_per_file(
            src, _belongs, "a Goose session line (metadata, a message or a stream event)"
        )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        header: dict[str, Any] = {}
        messages: list[tuple[dict[str, Any], str]] = []
        skipped: Counter[str] = Counter()
        usage: dict[str, Any] = {}
        failed = False
        for entry in record.value["entries"]:
            value, where = entry.value, f"line {entry.line}" if entry.line is not None else "$"
            if _is_export(value):
                header = value
                messages += [(m, f"conversation[{i}]") for i, m in enumerate(value["conversation"])]
            elif _is_header(value):
                header = value
            elif _is_message(value):
                messages.append((value, where))
            elif value["type"] == "message":
                messages.append((value["message"], f"{where}.message"))
            elif value["type"] == "complete":
                usage = {k: v for k, v in value.items() if k != "type"}
            else:
                failed = failed or value["type"] == "error"
                skipped[f"stream:{value['type']}"] += 1
        episode = self.new_episode(
            record,
            src,
            adapter_episode_id(self.name, header.get("id"), [e.value for e in record.value["entries"]]),
        )
        for message, where in messages:
            if object_field(message, "metadata").get("agentVisible") is False:
                skipped["not_agent_visible"] += 1
                continue
            episode.events += _events(message, where, skipped)
        if not any(e.kind == "assistant" for e in episode.events):
            raise RecordError("no model turn", "the session holds no message the model wrote")
        name_tool_results(episode.events)
        episode.task.prompt = next(
            (e.content for e in episode.events if e.kind == "user" and e.content), None
        )
        if failed:
            episode.outcome.terminal_status = "error"
        extra: dict[str, Any] = {k: header[k] for k in HEADER_KEYS if header.get(k) is not None}
        if "working_dir" in extra:
            extra["cwd"] = extra.pop("working_dir")
        if usage:
            extra["usage"] = usage
        if skipped:
            extra["skipped"] = dict(sorted(skipped.items()))
        episode.extra_json = canonical_json(extra) if extra else None
        return episode


def _events(message: dict[str, Any], where: str, skipped: Counter[str]) -> list[Event]:
    """One message's events: a user or assistant event for its text (with the assistant's calls and
    reasoning), then a tool event per tool response it carries."""
    role, stamp = message["role"], timestamp_of(message.get("created"), f"{where}.created")
    content = message["content"]
    items = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    results: list[Event] = []
    for index, item in enumerate(items):
        at = f"{where}.content[{index}]"
        kind = expect(item, dict, at).get("type")
        if kind == "text":
            texts.append(optional_str(item.get("text"), f"{at}.text") or "")
        elif kind == "thinking":
            thoughts.append(optional_str(item.get("thinking"), f"{at}.thinking") or "")
        elif kind == "toolRequest":
            call = object_field(item, "toolCall")
            if call.get("status") == "error":
                skipped["tool_request_error"] += 1
                continue
            value = object_field(call, "value")
            name = optional_str(value.get("name"), f"{at}.toolCall.value.name")
            calls.append(
                ToolCall(
                    optional_str(item.get("id"), f"{at}.id"), name, arguments_text(value.get("arguments"))
                )
            )
        elif kind == "toolResponse":
            results.append(_tool_result(item, at, stamp))
        elif kind in COUNTED_ITEMS:
            skipped[str(kind)] += 1
        else:
            raise RecordError("unknown content type", f"{at}.type is {named(kind)}")
    events: list[Event] = []
    text = "\n".join(t for t in texts if t) or None
    if role == "assistant" and (text or calls or thoughts):
        reasoning = "\n".join(t for t in thoughts if t) or None
        events.append(
            Event(kind="assistant", content=text, reasoning=reasoning, tool_calls=calls, timestamp=stamp)
        )
    elif role == "user" and text:
        events.append(Event(kind="user", content=text, timestamp=stamp))
    return events + results


def _tool_result(item: dict[str, Any], at: str, stamp: str | None) -> Event:
    """A ``toolResponse``: its content items' text, ``error`` when Goose or the tool says it failed."""
    result = object_field(item, "toolResult")
    failed = result.get("status") == "error"
    value = result.get("value")
    if isinstance(value, dict):
        failed = failed or value.get("isError") is True
        value = value.get("content")
    parts = value if isinstance(value, list) else []
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    text = "\n".join(texts) if texts else optional_str(result.get("error"), f"{at}.toolResult.error")
    return Event(
        kind="tool",
        content=text,
        tool_call_id=optional_str(item.get("id"), f"{at}.id"),
        status="error" if failed else "ok",
        timestamp=stamp,
    )
