"""Gemini CLI sessions: the conversation files the Gemini CLI records under
``~/.gemini/tmp/<project hash>/chats/session-*.json``.

A record is one file: ``{"sessionId", "projectHash", "startTime", "lastUpdated", "messages",
"summary"}``. Each message has an ``id``, a ``timestamp``, ``content`` (text, or a list of parts)
and a ``type``:

- ``user``: a user event;
- ``gemini``: one model turn, an assistant event: ``thoughts`` (``subject``: ``description``) ->
  reasoning, ``toolCalls`` -> calls (``args`` as canonical JSON), ``tokens`` (``input`` /
  ``output``) and ``model`` -> the turn's counts and the episode's model; each tool call's
  ``result`` (its ``functionResponse`` parts: ``response.output``, else ``response.error``, else the
  response as JSON) is a tool event after the turn, ``error`` or ``cancelled`` status -> ``error``,
  ``success`` -> ``ok``;
- ``info``, ``error``, ``warning``: what the interface showed, never model input: counted in
  ``extra_json``.

The format records no task id: a ``task_ids.json`` beside the sessions names it.
"""

from __future__ import annotations

from collections import Counter
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
    optional_str,
    text_of,
    timestamp_of,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

UI_TYPES = frozenset({"info", "error", "warning"})
FAILED = frozenset({"error", "cancelled"})
SUCCEEDED = "success"
"""A call's status when the tool ran and answered without error: the tool event's status is ``ok``."""


def _is_session(value: Any) -> bool:
    messages = value.get("messages") if isinstance(value, dict) else None
    return (
        isinstance(messages, list)
        and "sessionId" in value
        and any(isinstance(m, dict) and m.get("type") in ("user", "gemini") for m in messages)
    )


def _result_text(call: dict[str, Any], where: str) -> tuple[str | None, bool]:
    """The text of a tool call's result and whether it says it failed: the ``functionResponse``
    parts' ``response.output`` (else ``error``, else the response as JSON), else its display text."""
    result = call.get("result")
    parts = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
    texts, failed = [], False
    for index, part in enumerate(parts):
        response = object_field(
            object_field(expect(part, dict, f"{where}.result[{index}]"), "functionResponse"), "response"
        )
        if "output" in response:
            texts.append(optional_str(response["output"], f"{where}.result[{index}].output"))
        elif "error" in response:
            failed = True
            texts.append(optional_str(response["error"], f"{where}.result[{index}].error"))
        elif response:
            texts.append(canonical_json(response))
    display = call.get("resultDisplay")
    text = "\n".join(t for t in texts if t) or (display if isinstance(display, str) else None)
    return text, failed


class GeminiCliAdapter(Adapter):
    """``~/.gemini/tmp/<project hash>/chats/session-*.json``: one session per file."""

    name = "gemini-cli"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_session(record)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, value.get("sessionId"), value))
        skipped: Counter[str] = Counter()
        for index, message in enumerate(expect(value.get("messages"), list, "messages")):
            where = f"messages[{index}]"
            expect(message, dict, where)
            kind = message.get("type")
            if kind in UI_TYPES:
                skipped[str(kind)] += 1
                continue
            stamp = timestamp_of(message.get("timestamp"), f"{where}.timestamp")
            content = text_of(message.get("content"), f"{where}.content")
            if kind == "user":
                episode.events.append(Event(kind="user", content=content, timestamp=stamp))
            elif kind == "gemini":
                self._turn(message, content, stamp, where, episode)
            else:
                raise RecordError(
                    "unknown role",
                    f"{where}.type is {named(kind)}; expected user, gemini, info, error or warning",
                )
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        extra = {k: value[k] for k in ("projectHash", "startTime", "lastUpdated", "summary") if k in value}
        if skipped:
            extra["skipped_messages"] = dict(sorted(skipped.items()))
        episode.extra_json = canonical_json(extra) if extra else None
        return episode

    @staticmethod
    def _turn(
        message: dict[str, Any], content: str | None, stamp: str | None, where: str, episode: Episode
    ) -> None:
        """One model turn: the assistant event, then a tool event per call it made."""
        thoughts = expect(message.get("thoughts") or [], list, f"{where}.thoughts")
        reasoning = [
            ": ".join(t for t in (thought.get("subject"), thought.get("description")) if isinstance(t, str))
            for thought in thoughts
            if isinstance(thought, dict)
        ]
        tokens = object_field(message, "tokens")
        turn = Event(
            kind="assistant",
            content=content or None,
            reasoning="\n".join(r for r in reasoning if r) or None,
            timestamp=stamp,
            input_tokens=tokens.get("input"),
            output_tokens=tokens.get("output"),
        )
        episode.events.append(turn)
        episode.lineage.model = episode.lineage.model or optional_str(message.get("model"), f"{where}.model")
        for number, call in enumerate(expect(message.get("toolCalls") or [], list, f"{where}.toolCalls")):
            at = f"{where}.toolCalls[{number}]"
            expect(call, dict, at)
            call_id = optional_str(call.get("id"), f"{at}.id")
            turn.tool_calls.append(
                ToolCall(
                    id=call_id,
                    name=optional_str(call.get("name"), f"{at}.name"),
                    arguments=arguments_text(call.get("args")),
                )
            )
            text, failed = _result_text(call, at)
            status = "error" if failed or call.get("status") in FAILED else None
            status = "ok" if status is None and call.get("status") == SUCCEEDED else status
            timestamp = timestamp_of(call.get("timestamp"), f"{at}.timestamp")
            episode.events.append(
                Event(kind="tool", content=text, tool_call_id=call_id, status=status, timestamp=timestamp)
            )
