"""The Vercel AI SDK's ``steps``: what ``generateText`` / ``streamText`` return for an agent loop.

A run with tools is a list of steps, one model call each: its text, reasoning and tool calls, the
results of the tools the SDK ran after it, its finish reason and token counts. Logged as the
result object (``{"steps": [...], "text", "finishReason", ...}``), it was an ``unrecognized
format`` reject. The steps saved alone (``JSON.stringify(result.steps)``, a list) or logged one a
line as each finishes (``onStepFinish``) are one run's steps too; they were read by ``chat-log`` as
the first step's request alone, every later step a ``missing field`` reject. Two releases write a
step differently:

- v4: ``text``, ``reasoning`` (a string), ``toolCalls`` (``{"toolCallId", "toolName", "args"}``),
  ``toolResults`` (``{"toolCallId", "toolName", "args", "result"}``), ``usage``
  (``promptTokens`` / ``completionTokens``);
- v5 on: ``content``, the step's parts in order (``text``, ``reasoning``, ``tool-call`` with
  ``input``, ``tool-result`` with ``output``, ``tool-error`` with ``error``, ``source``, ``file``),
  ``usage`` (``inputTokens`` / ``outputTokens``).

Each step is one assistant event (reasoning, text and calls) then a tool event per result, a
``tool-error`` an ``error`` result (read by its shape it was a second call). A result repeats its
call's input, so results are read by their kind, never as calls. The prompt is not in the steps:
the first step's ``request.body`` (the provider request the SDK sent, JSON text or an object)
holds it when the SDK kept it; its ``system`` and ``messages`` are read as the Messages and Chat
Completions readers read them, a Responses API request's ``instructions`` and ``input`` (what the
SDK's ``openai`` provider sends from v5 on) as the Responses reader reads them, a Gemini request's
``systemInstruction`` and ``contents`` (the ``google`` provider) as the Gemini reader does. Without
it the episode says so (``request_missing``, as an answer read alone does). A step's
``response.messages`` repeats the steps and is not read again; sources (citations) are counted in
``extra_json.sources``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.anthropic import system_events
from trajectory_platform.traces.adapters.base import (
    CHAT_TASK_ID_SOURCE,
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    chat_task_id,
    event_stream_records,
    expect,
    name_tool_results,
    object_field,
    optional_str,
    parse_json,
    text_of,
)
from trajectory_platform.traces.adapters.content_parts import (
    REDACTED,
    AssistantParts,
    call_of,
    piece_of,
    result_of,
)
from trajectory_platform.traces.adapters.gemini import is_request as is_gemini_request
from trajectory_platform.traces.adapters.gemini import request_events as gemini_request_events
from trajectory_platform.traces.adapters.lone_answer import REQUEST_MISSING
from trajectory_platform.traces.adapters.openai import events_of_messages
from trajectory_platform.traces.adapters.openai_responses import is_request as is_responses_request
from trajectory_platform.traces.adapters.openai_responses import (
    request_events as responses_request_events,
)
from trajectory_platform.traces.record import Episode, Event, canonical_json

STEP_KEYS = ("toolCalls", "toolResults", "content", "stepType")
"""Fields a step of either release holds beside its ``finishReason``."""
SOURCE = "source"
MISSING = "the prompt: the first step kept no request body (request.body) to read it from"
READERS = (
    (is_responses_request, responses_request_events),
    (is_gemini_request, gemini_request_events),
)
"""Request bodies read by their provider's reader: a Responses API request (the SDK's ``openai``
provider), a Gemini API request (its ``google`` provider); any other body is read for ``messages``."""


def _is_step(step: Any) -> bool:
    return isinstance(step, dict) and "finishReason" in step and any(k in step for k in STEP_KEYS)


def _is_logged_step(value: Any) -> bool:
    """A step logged on its own (``onStepFinish``'s step, a list element): a step whose parts are
    a v5 ``content`` list or v4's ``stepType`` / ``toolCalls`` (a Gemini candidate, whose ``content``
    is one object beside its ``finishReason``, is not)."""
    return _is_step(value) and (
        isinstance(value.get("content"), list) or "stepType" in value or "toolCalls" in value
    )


def is_steps_record(record: Any) -> bool:
    """A result holding its steps (every one a step of either release)."""
    steps = record.get("steps") if isinstance(record, dict) else None
    return isinstance(steps, list) and bool(steps) and all(_is_step(s) for s in steps)


def _error_result(part: dict[str, Any], where: str) -> Event:
    """A ``tool-error`` part: the failed run of its call, the error its content."""
    error = part.get("error")
    return Event(
        kind="tool",
        content=error if isinstance(error, str) else canonical_json(error),
        tool_call_id=optional_str(part.get("toolCallId"), f"{where}.toolCallId"),
        tool_name=optional_str(part.get("toolName"), f"{where}.toolName"),
        status="error",
    )


def _step_parts(step: dict[str, Any]) -> list[tuple[str, Any]]:
    """A step's parts with their paths: v5's ``content``, else v4's fields as parts."""
    if isinstance(step.get("content"), list):
        return [(f"content[{i}]", p) for i, p in enumerate(step["content"])]
    parts: list[tuple[str, Any]] = []
    if step.get("reasoning"):
        parts.append(("reasoning", {"type": "reasoning", "text": step["reasoning"]}))
    if step.get("text"):
        parts.append(("text", {"type": "text", "text": step["text"]}))
    for key, kind in (("toolCalls", "tool-call"), ("toolResults", "tool-result")):
        listed = step.get(key) or []
        parts += [(f"{key}[{i}]", {**p, "type": kind}) for i, p in enumerate(expect(listed, list, key))]
    return parts


def step_events(step: dict[str, Any], where: str, sources: list[int]) -> list[Event]:
    """One step: its model turn, then its tools' results (module docstring)."""
    parts = AssistantParts(Event(kind="assistant"))
    for path, part in _step_parts(step):
        at = f"{where}.{path}"
        expect(part, dict, at)
        kind = part.get("type")
        if kind == "tool-call":
            parts.turn.tool_calls.append(call_of(part, at))
        elif kind == "tool-result":
            parts.results.append(result_of(part, at))
        elif kind == "tool-error":
            parts.results.append(_error_result(part, at))
        elif kind == SOURCE:
            sources[0] += 1
        elif kind == "reasoning" and not part.get("text"):
            parts.thoughts.append(REDACTED)  # a provider's redacted reasoning
        else:
            parts.take(piece_of(part, at))
    turn, *results = parts.events()
    usage = object_field(step, "usage")
    turn.input_tokens = next(
        (usage[k] for k in ("inputTokens", "promptTokens") if isinstance(usage.get(k), int)), None
    )
    turn.output_tokens = next(
        (usage[k] for k in ("outputTokens", "completionTokens") if isinstance(usage.get(k), int)), None
    )
    turn.finish_reason = optional_str(step.get("finishReason"), f"{where}.finishReason")
    return [turn, *results]


def _prompt(step: dict[str, Any]) -> list[Event] | None:
    """The events of the first step's request body (its system prompt and messages), or None where
    the step kept no body holding messages."""
    body = object_field(step, "request").get("body")
    if isinstance(body, str):
        try:
            body = parse_json(body)
        except (ValueError, RecordError):
            return None
    where = "steps[0].request.body"
    for is_request, request_events in READERS:
        if is_request(body):
            return request_events(body, where)
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return None
    system = system_events(body, where) if isinstance(body.get("system"), str | list) else []
    return [*system, *events_of_messages(body["messages"], f"{where}.messages")]


class AISDKStepsAdapter(Adapter):
    """A Vercel AI SDK result with its ``steps`` per record (line, element or document)."""

    name = "ai-sdk-steps"
    task_id_source = CHAT_TASK_ID_SOURCE

    bare_list_key = "steps"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return is_steps_record(record) or _is_logged_step(record)

    def is_bare_list(self, document: Any) -> bool:
        """``result.steps`` saved alone (``JSON.stringify(result.steps)``)."""
        return isinstance(document, list) and bool(document) and all(_is_logged_step(s) for s in document)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """A result a record (a line, an element, the document); the steps saved alone (a list, or
        one a line as ``onStepFinish`` logs them) one run's record ``{"steps": [...]}``."""
        document, error = src.document
        if error is None and _is_logged_step(document):  # one step, its file's one line
            yield RawRecord(src.document_line, "$", value={"steps": [document]})
            return
        if error is not None and _is_logged_step(src.first_value()):
            for record in event_stream_records(src, _is_logged_step, "an AI SDK step"):
                value = record.value
                yield (
                    record if value is None else dataclasses.replace(record, value={"steps": value["events"]})
                )
            return
        yield from super().frame(src)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if not is_steps_record(value):
            raise RecordError("missing field", "record holds no 'steps' list of the AI SDK's steps")
        steps = value["steps"]
        response = object_field(value, "response")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, response.get("id"), value))
        prompt = _prompt(steps[0])
        sources = [0]
        episode.events = [*(prompt or [])]
        for index, step in enumerate(steps):
            episode.events.extend(step_events(step, f"steps[{index}]", sources))
        name_tool_results(episode.events)
        episode.task.fixture_id = chat_task_id(value)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        model = response.get("modelId") or object_field(steps[-1], "response").get("modelId")
        episode.lineage.model = optional_str(model, "response.modelId")
        extra: dict[str, Any] = {"steps": len(steps)}
        if sources[0]:
            extra["sources"] = sources[0]
        if prompt is None:
            extra[REQUEST_MISSING] = MISSING
        if isinstance(value.get("text"), str) and value["text"]:
            episode.outcome.final_answer = text_of(value["text"], "text")
        episode.extra_json = canonical_json(extra)
        return episode
