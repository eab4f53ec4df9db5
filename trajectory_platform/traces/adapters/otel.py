"""OpenTelemetry GenAI spans exported as OTLP/JSON (``{"resourceSpans": [...]}``, as a document or
one export request per JSONL line; ``{"resourceLogs": [...]}`` requests may sit beside them). A
record is one trace: all spans and GenAI log events sharing a ``traceId``.

Two layouts of the GenAI semantic conventions are read into one internal message shape:

- conventions <= 1.36, event per message: span events ``gen_ai.system.message``,
  ``gen_ai.user.message``, ``gen_ai.assistant.message``, ``gen_ai.tool.message`` (the input) and
  ``gen_ai.choice`` (the output), their body fields (``content``, ``tool_calls``, ``id``,
  ``message``, ``finish_reason``) carried as span-event attributes, or as the body of log records
  (``eventName`` / ``event.name``) linked to their span by ``traceId`` / ``spanId``;
- newer conventions: span attributes ``gen_ai.input.messages`` / ``gen_ai.output.messages`` /
  ``gen_ai.system_instructions`` (JSON; parts ``text``, ``reasoning``, ``tool_call``,
  ``tool_call_response``) and ``gen_ai.tool.definitions``.

Two instrumentations flatten messages into indexed span attributes instead, and are read too:
OpenLLMetry / Traceloop (``gen_ai.prompt.<i>.role`` / ``.content`` / ``.tool_call_id``,
``gen_ai.completion.<i>.tool_calls.<j>.name``, tools in ``llm.request.functions.<i>``, usage as
``gen_ai.usage.prompt_tokens``) and OpenInference / Arize Phoenix (``llm.input_messages.<i>.message
.role`` / ``.content`` / ``.contents`` / ``.tool_calls.<j>.tool_call.function.name``,
``llm.output_messages``, tools in ``llm.tools.<i>.tool.json_schema``, ``llm.model_name``,
``llm.token_count.prompt``). The Vercel AI SDK writes its own: each provider call is an
``ai.*.doGenerate`` / ``doStream`` span with ``ai.prompt.messages`` and ``ai.response.text`` /
``.toolCalls``, each tool run an ``ai.toolCall`` span (read as ``execute_tool``). The layouts live
in :mod:`~trajectory_platform.traces.adapters.otel_messages`.

Spans are read in start-time order. Each model-call span is one delivered input; its new input
messages and its output extend the episode. ``execute_tool`` spans give the order in which calls
actually ran and their status (span status ERROR -> ``error``): each becomes the tool event for
its ``gen_ai.tool.call.id``, and a later input message answering the same id only fills in its
content. An input that does not extend the previous call's input + output (history was
rewritten) is kept verbatim as a compacted delivered input.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    events_json,
    expect,
    name_tool_results,
    sampling_params_json,
)
from trajectory_platform.traces.adapters.otel_messages import (
    CHOICE_EVENT,
    EVENT_ROLES,
    INDEXED_LAYOUTS,
    TASK_ID_SOURCE,
    Message,
    ai_sdk_messages,
    json_attr,
    message_of_parts,
    messages_of_event,
    messages_of_indexed,
    task_id_of_span,
    text_of_value,
    tool_definitions,
    unflatten,
    with_aliases,
)
from trajectory_platform.traces.adapters.otel_rows import is_span_row, row_fields, span_rows
from trajectory_platform.traces.record import (
    DeliveredInput,
    Episode,
    Event,
    ToolSpec,
    canonical_json,
)

MESSAGE_EVENTS = (*EVENT_ROLES, CHOICE_EVENT)
STATUS_ERROR = (2, "2", "STATUS_CODE_ERROR")
SAMPLING_KEYS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "seed",
    "frequency_penalty",
    "presence_penalty",
)


def any_value(value: Any) -> Any:
    """Decode an OTLP/JSON ``AnyValue`` (``intValue`` is a string in OTLP/JSON)."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return attributes_of((value["kvlistValue"] or {}).get("values", []))
    return None


def attributes_of(raw: Any) -> dict[str, Any]:
    """OTLP ``[{"key", "value": AnyValue}]`` -> plain dict."""
    if not isinstance(raw, list):
        return {}
    return {a["key"]: any_value(a.get("value")) for a in raw if isinstance(a, dict) and "key" in a}


@dataclass
class Span:
    attrs: dict[str, Any]
    start: int
    order: int
    raw: dict[str, Any]
    messages: list[tuple[int, int, str, dict[str, Any]]] = field(default_factory=list)
    """Message events of the <= 1.36 layout: (time, file order, event name, body fields)."""

    @property
    def operation(self) -> str | None:
        return self.attrs.get("gen_ai.operation.name")

    @property
    def timestamp(self) -> str | None:
        """Start time as ISO-8601 UTC (OTLP records Unix nanoseconds)."""
        if not self.start:
            return None
        return dt.datetime.fromtimestamp(self.start / 1e9, tz=dt.UTC).isoformat()

    @property
    def failed(self) -> bool:
        return (self.raw.get("status") or {}).get("code") in STATUS_ERROR

    def io(self) -> tuple[list[Message], list[Message]] | None:
        """(input, output) messages of a model-call span in either layout, else ``None``."""
        if "gen_ai.input.messages" in self.attrs or "gen_ai.output.messages" in self.attrs:
            system = [
                Message("system", text=text_of_value(p.get("content")) if p.get("type") == "text" else None)
                for p in json_attr(self.attrs.get("gen_ai.system_instructions")) or []
            ]
            inputs = [message_of_parts(m) for m in json_attr(self.attrs.get("gen_ai.input.messages")) or []]
            outputs = [message_of_parts(m) for m in json_attr(self.attrs.get("gen_ai.output.messages")) or []]
            return system + inputs, outputs
        if (sdk := ai_sdk_messages(self.attrs)) is not None:
            return sdk
        for inputs_key, outputs_key in INDEXED_LAYOUTS:
            indexed_inputs, indexed_outputs = (
                unflatten(self.attrs, inputs_key),
                unflatten(self.attrs, outputs_key),
            )
            if indexed_inputs or indexed_outputs:
                return (
                    [
                        m
                        for i, raw in enumerate(indexed_inputs)
                        for m in messages_of_indexed(raw, f"{inputs_key}.{i}")
                    ],
                    [
                        m
                        for i, raw in enumerate(indexed_outputs)
                        for m in messages_of_indexed(raw, f"{outputs_key}.{i}")
                    ],
                )
        if not self.messages:
            return None
        events = sorted(self.messages, key=lambda m: (m[0], m[1]))
        return (
            [m for _, _, name, body in events if name != CHOICE_EVENT for m in messages_of_event(name, body)],
            [m for _, _, name, body in events if name == CHOICE_EVENT for m in messages_of_event(name, body)],
        )


def spans_by_trace(documents: list[Any]) -> dict[str, list[Span]]:
    """Group every span of the export requests by trace id (file order breaks time ties), and
    attach each GenAI message event to its span: span events, or log records (the Events API
    emitted them as logs carrying the trace and span ids; a span missing from the file is
    represented by its events alone)."""
    traces: dict[str, list[Span]] = defaultdict(list)
    by_id: dict[tuple[str, str], Span] = {}
    order = 0
    for doc in documents:
        for resource in doc.get("resourceSpans") or []:
            for scope in resource.get("scopeSpans") or []:
                for raw in scope.get("spans") or []:
                    span = Span(
                        with_aliases(attributes_of(raw.get("attributes"))),
                        int(raw.get("startTimeUnixNano") or 0),
                        order,
                        raw,
                    )
                    for event in raw.get("events") or []:
                        if event.get("name") in MESSAGE_EVENTS:
                            when = int(event.get("timeUnixNano") or 0)
                            span.messages.append(
                                (when, order, event["name"], attributes_of(event.get("attributes")))
                            )
                            order += 1
                    traces[str(raw.get("traceId"))].append(span)
                    by_id[(str(raw.get("traceId")), str(raw.get("spanId")))] = span
                    order += 1
    for doc in documents:
        for resource in doc.get("resourceLogs") or []:
            for scope in resource.get("scopeLogs") or []:
                for log in scope.get("logRecords") or []:
                    attrs = attributes_of(log.get("attributes"))
                    name = log.get("eventName") or attrs.get("event.name")
                    if name not in MESSAGE_EVENTS:
                        continue
                    body = any_value(log.get("body"))
                    fields = {**attrs, **(body if isinstance(body, dict) else {"content": body})}
                    when = int(log.get("timeUnixNano") or log.get("observedTimeUnixNano") or 0)
                    key = (str(log.get("traceId")), str(log.get("spanId")))
                    if key not in by_id:
                        by_id[key] = Span({}, when, order, {"traceId": key[0], "spanId": key[1]})
                        traces[key[0]].append(by_id[key])
                    by_id[key].messages.append((when, order, name, fields))
                    order += 1
    return traces


class OTelAdapter(Adapter):
    """OTLP/JSON trace exports with GenAI spans."""

    name = "otel"
    task_id_source = TASK_ID_SOURCE

    def sniff(self, sample: Any, path: Path) -> bool:
        return (
            (
                isinstance(sample, dict)
                and (
                    isinstance(sample.get("resourceSpans"), list)
                    or isinstance(sample.get("resourceLogs"), list)
                )
            )
            or is_span_row(sample)
            or span_rows(sample) is not None
        )

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        documents: list[Any] = []
        lines = [RawRecord(None, "$", value=src.document[0])] if src.is_document else list(src.lines())
        rows: list[Any] = []
        for record in lines:
            found = [record.value] if is_span_row(record.value) else span_rows(record.value)
            if found is not None:  # spans written as rows (Phoenix): otel_rows.py
                rows += found
            elif record.error is not None or not isinstance(record.value, dict):
                yield (
                    record
                    if record.error
                    else RawRecord(
                        record.line,
                        record.json_path,
                        error=RecordError("wrong type", "export is not an object"),
                    )
                )
            else:
                documents.append(record.value)
        traces = spans_by_trace(documents)
        for order, row in enumerate(rows):
            attributes, start, raw = row_fields(row)
            traces[str(raw["traceId"])].append(Span(with_aliases(attributes), start, order, raw))
        for trace_id, spans in sorted(traces.items()):
            yield RawRecord(None, f"traceId={trace_id}", value={"trace_id": trace_id, "spans": spans})

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        trace_id, spans = (
            record.value["trace_id"],
            sorted(record.value["spans"], key=lambda s: (s.start, s.order)),
        )
        episode = self.new_episode(record, src, f"{self.name}:{trace_id}")
        builder = _Builder(episode)
        for span in spans:
            if span.operation == "execute_tool":
                builder.tool_span(span)
            elif (io := span.io()) is not None:
                builder.model_span(span, *io)
        if not any(s.io() is not None for s in spans):
            raise RecordError("no GenAI messages", "the trace has no model-call span with messages")
        episode.task.fixture_id = next(filter(None, (task_id_of_span(s.attrs) for s in spans)), None)
        root = next((s for s in spans if not s.raw.get("parentSpanId")), spans[0])
        if root.failed:
            episode.outcome.terminal_status = "error"
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        name_tool_results(episode.events)
        return episode


class _Builder:
    """Extends one episode span by span (see the module docstring for the rules)."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.by_call_id: dict[str, int] = {}
        self.previous: list[tuple] = []
        self.previous_indices: list[int] | None = []

    def _append(self, event: Event) -> int:
        self.episode.events.append(event)
        return len(self.episode.events) - 1

    def tool_span(self, span: Span) -> None:
        call_id = span.attrs.get("gen_ai.tool.call.id")
        result = span.attrs.get("gen_ai.tool.call.result")
        event = Event(
            kind="tool",
            content=text_of_value(result),
            tool_call_id=call_id,
            tool_name=span.attrs.get("gen_ai.tool.name"),
            status="error" if span.failed else "ok",
            timestamp=span.timestamp,
        )
        if span.failed and event.content is None:
            event.content = (span.raw.get("status") or {}).get("message") or span.attrs.get("error.type")
        index = self._append(event)
        if call_id:
            self.by_call_id[call_id] = index

    def model_span(self, span: Span, inputs: list[Message], outputs: list[Message]) -> None:
        keys = [m.key() for m in inputs]
        extends = keys[: len(self.previous)] == self.previous
        fresh = inputs[len(self.previous) :] if extends else _since_last_assistant(inputs)
        fresh_indices = [self._input_event(m) for m in fresh]
        output_indices = []
        for message in outputs:
            event = _event_of(message)
            event.input_tokens = span.attrs.get("gen_ai.usage.input_tokens")
            event.output_tokens = span.attrs.get("gen_ai.usage.output_tokens")
            event.timestamp = span.timestamp
            output_indices.append(self._append(event))
        manifest = DeliveredInput(
            len(self.episode.delivered_inputs), output_indices[0] if output_indices else None
        )
        previous_indices = self.previous_indices if extends else None
        exact_indices = None if previous_indices is None else [*previous_indices, *fresh_indices]
        if exact_indices is not None:
            manifest.event_indices = exact_indices
        else:
            manifest.messages_json = events_json([_event_of(m) for m in inputs])
            manifest.compacted = True
        self.episode.delivered_inputs.append(manifest)
        self.previous = keys + [m.key() for m in outputs]
        self.previous_indices = None if exact_indices is None else [*exact_indices, *output_indices]
        self._lineage(span)

    def _input_event(self, message: Message) -> int:
        if message.role == "tool" and message.call_id in self.by_call_id:
            index = self.by_call_id[message.call_id]
            existing = self.episode.events[index]
            existing.content = existing.content if existing.content is not None else message.text
            return index
        index = self._append(_event_of(message))
        if message.role == "tool" and message.call_id:
            self.by_call_id[message.call_id] = index
        return index

    def _lineage(self, span: Span) -> None:
        lineage = self.episode.lineage
        lineage.model = (
            lineage.model or span.attrs.get("gen_ai.response.model") or span.attrs.get("gen_ai.request.model")
        )
        sampling = {
            k: span.attrs[f"gen_ai.request.{k}"] for k in SAMPLING_KEYS if f"gen_ai.request.{k}" in span.attrs
        }
        if sampling and lineage.sampling_params_json is None:
            lineage.sampling_params_json = sampling_params_json(sampling)
        if not self.episode.tools:
            for index, tool in enumerate(tool_definitions(span.attrs) or []):
                parameters = tool.get("parameters")
                self.episode.tools.append(
                    ToolSpec(
                        name=expect(tool.get("name"), str, f"tool definition {index}.name"),
                        description=tool.get("description"),
                        parameters_json=None if parameters is None else canonical_json(parameters),
                    )
                )


def _since_last_assistant(inputs: list[Message]) -> list[Message]:
    last = max((i for i, m in enumerate(inputs) if m.role == "assistant"), default=-1)
    return inputs[last + 1 :]


def _event_of(message: Message) -> Event:
    return Event(
        kind=message.role,
        content=message.text,
        reasoning=message.reasoning,
        tool_calls=list(message.calls),
        tool_call_id=message.call_id,
        finish_reason=message.finish_reason,
    )
