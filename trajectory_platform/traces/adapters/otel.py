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

A trace may hold more than one conversation (two chats under one trace, a supervisor's sub-agent
with its own instructions and history): the model-call spans are split into conversations as every
run of calls is (``call_trace.conversations``), each an episode of its own (``call_trace
.run_episodes``: the main one keeps the trace's id and outcome, the others are
``otel:<trace>/<k>``). A tool span goes with the conversation whose answer made the call it ran
(``gen_ai.tool.call.id``), else with that of the model call before it. A trace exported over several
files (a file per span batch) is joined first (``call_trace.joined_trace``): each span once (by
``spanId``), message log records attached wherever they were exported; a span two files hold in
different versions rejects the trace, naming both files.

Within a conversation, spans are read in start-time order. Each model-call span is one delivered
input; its new input messages and its output extend the episode. ``execute_tool`` spans give the
order in which calls actually ran and their status (span status ERROR -> ``error``): each becomes
the tool event for its ``gen_ai.tool.call.id``, and a later input message answering the same id only
fills in its content. An input that does not extend the previous call's input + output (history was
rewritten) is kept verbatim as a compacted delivered input.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
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
from trajectory_platform.traces.adapters.call_trace import (
    TRACE_FILE,
    ModelCall,
    joined_trace,
    run_episodes,
)
from trajectory_platform.traces.adapters.otel_messages import (
    CHOICE_EVENT,
    EVENT_ROLES,
    INDEXED_LAYOUTS,
    TASK_ID_SOURCE,
    Message,
    ai_sdk_messages,
    json_attr,
    messages_of_event,
    messages_of_indexed,
    messages_of_parts,
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
TRACE_AT = "traceId="
"""How a trace's record is located (and known as one: :meth:`OTelAdapter.group_of`)."""
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
    def logged_only(self) -> bool:
        """Known only from message log records naming it (the span itself was not exported here)."""
        return set(self.raw) <= {"traceId", "spanId"}

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
            inputs = [
                m
                for raw in json_attr(self.attrs.get("gen_ai.input.messages")) or []
                for m in messages_of_parts(raw)
            ]
            outputs = [
                m
                for raw in json_attr(self.attrs.get("gen_ai.output.messages")) or []
                for m in messages_of_parts(raw)
            ]
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
            value = {"trace_id": trace_id, "spans": spans, TRACE_FILE: src.display}
            yield RawRecord(None, f"{TRACE_AT}{trace_id}", value=value)

    def group_of(self, record: RawRecord) -> str | None:
        """A trace's id: one trace may be exported over several files (a file per span batch)."""
        return record.value["trace_id"] if (record.json_path or "").startswith(TRACE_AT) else None

    def merged(self, parts: list[RawRecord]) -> RawRecord:
        """One trace's spans from several files, each once (by ``spanId``; file order breaks time
        ties); message log records join their span wherever either was exported."""
        order = count()
        for part in parts:
            for span in part.value["spans"]:
                span.order = next(order)
        exported = [
            RawRecord(p.line, p.json_path, value={**p.value, "spans": _exported(p.value["spans"])})
            for p in parts
        ]
        joined = joined_trace(exported, "spans", _span_id, "span", lambda span: span.raw)
        if joined.error is not None:
            return joined
        by_id = {_span_id(span): span for span in joined.value["spans"]}
        for part in parts:
            for logged in (s for s in part.value["spans"] if s.logged_only):
                span = by_id.setdefault(_span_id(logged), logged)
                if span is not logged:
                    span.messages += logged.messages
                    if span.logged_only:
                        span.start = min(span.start, logged.start)
        for span in by_id.values():  # a log record exported twice is one message
            known: dict[tuple[int, str, str], tuple[int, int, str, dict[str, Any]]] = {}
            for message in span.messages:
                known.setdefault((message[0], message[2], canonical_json(message[3])), message)
            span.messages = list(known.values())
        joined.value["spans"] = list(by_id.values())
        return joined

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """One episode per conversation of the trace (module docstring); the root span's outcome is
        the main one's, the task every one's."""
        trace_id = record.value["trace_id"]
        spans = sorted(record.value["spans"], key=lambda s: (s.start, s.order))
        model_spans = [
            (span, io) for span in spans if span.operation != "execute_tool" and (io := span.io()) is not None
        ]
        if not model_spans:
            raise RecordError("no GenAI messages", "the trace has no model-call span with messages")
        calls = [
            ModelCall([_event_of(m) for m in inputs], _event_of(outputs[0]) if outputs else None)
            for _, (inputs, outputs) in model_spans
        ]
        tools_of = _tool_spans_by_call(spans, model_spans)
        task_id = next(filter(None, (task_id_of_span(s.attrs) for s in spans)), None)
        root = next((s for s in spans if not s.raw.get("parentSpanId")), spans[0])

        def fill(episode: Episode, group: list[int]) -> int:
            builder = _Builder(episode)
            own = {id(model_spans[number][0]): number for number in group}
            for span in spans:
                if span.operation == "execute_tool":
                    if tools_of.get(id(span)) in own.values():
                        builder.tool_span(span)
                elif id(span) in own:
                    builder.model_span(span, *model_spans[own[id(span)]][1])
            return max(group, key=lambda number: (len(calls[number].seen), number))

        def new_episode(episode_id: str) -> Episode:
            return self.new_episode(record, src, episode_id)

        read = run_episodes(new_episode, f"{self.name}:{trace_id}", calls, fill)
        for conversation in read:
            episode = conversation.episode
            episode.task.fixture_id = task_id
            if conversation.main and root.failed:
                episode.outcome.terminal_status = "error"
            episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
            name_tool_results(episode.events)
        return [conversation.episode for conversation in read]


def _exported(spans: list[Span]) -> list[Span]:
    return [span for span in spans if not span.logged_only]


def _span_id(span: Span) -> str:
    return str(span.raw.get("spanId"))


def _tool_spans_by_call(
    spans: list[Span], model_spans: list[tuple[Span, tuple[list[Message], list[Message]]]]
) -> dict[int, int]:
    """Each tool span's model call (by number): the call whose answer made the call the tool ran
    (``gen_ai.tool.call.id``), else the last model call started before it (else the first)."""
    made_by: dict[str | None, int] = {
        call.id: number
        for number, (_, (_, outputs)) in enumerate(model_spans)
        for message in outputs
        for call in message.calls
        if call.id
    }
    number_of = {id(span): number for number, (span, _) in enumerate(model_spans)}
    owner, last = {}, 0
    for span in spans:
        last = number_of.get(id(span), last)
        if span.operation == "execute_tool":
            owner[id(span)] = made_by.get(span.attrs.get("gen_ai.tool.call.id"), last)
    return owner


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
            if not message.step:
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
        status=message.status,
    )
