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
``llm.token_count.prompt``).

Spans are read in start-time order. Each model-call span is one delivered input; its new input
messages and its output extend the episode. ``execute_tool`` spans give the order in which calls
actually ran and their status (span status ERROR -> ``error``): each becomes the tool event for
its ``gen_ai.tool.call.id``, and a later input message answering the same id only fills in its
content. An input that does not extend the previous call's input + output (history was
rewritten) is kept verbatim as a compacted delivered input.
"""

from __future__ import annotations

import datetime as dt
import json
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
    arguments_text,
    events_json,
    expect,
    name_tool_results,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import (
    DeliveredInput,
    Episode,
    Event,
    ToolCall,
    ToolSpec,
    canonical_json,
)

EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
CHOICE_EVENT = "gen_ai.choice"
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


def _json_attr(value: Any) -> Any:
    """GenAI structured attributes are JSON strings; tolerate already-structured values."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise RecordError("malformed JSON", f"GenAI attribute is not valid JSON: {exc.msg}") from exc
    return value


@dataclass
class Message:
    """Layout-independent message: what both convention versions can say."""

    role: str
    text: str | None = None
    reasoning: str | None = None
    calls: list[ToolCall] = field(default_factory=list)
    call_id: str | None = None
    finish_reason: str | None = None

    def key(self) -> tuple:
        return (self.role, self.text, self.call_id, tuple((c.id, c.name, c.arguments) for c in self.calls))


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return canonical_json(value)


def message_of_parts(raw: dict[str, Any]) -> Message:
    """A newer-layout ChatMessage / OutputMessage (``role`` + ``parts``)."""
    role = raw.get("role")
    if not isinstance(role, str) or role not in ("system", "user", "assistant", "tool"):
        raise RecordError("unknown role", f"GenAI message role {named(role)}")
    message = Message(role=role, finish_reason=raw.get("finish_reason"))
    texts, thoughts = [], []
    for part in raw.get("parts") or []:
        kind = part.get("type")
        if kind == "text":
            texts.append(part.get("content") or "")
        elif kind == "reasoning":
            thoughts.append(part.get("content") or "")
        elif kind == "tool_call":
            message.calls.append(
                ToolCall(part.get("id"), part.get("name"), arguments_text(part.get("arguments")))
            )
        elif kind == "tool_call_response":
            message.role, message.call_id = "tool", part.get("id")
            texts.append(_text(part.get("response")) or "")
        else:
            texts.append(f"[{kind}]")
    message.text = "\n".join(texts) if texts else None
    message.reasoning = "\n".join(thoughts) if thoughts else None
    return message


def message_of_event(name: str, attrs: dict[str, Any]) -> Message:
    """An event-per-message span event (conventions <= 1.36)."""
    body = attrs
    if name == CHOICE_EVENT:
        inner = _json_attr(attrs.get("message")) or {}
        body = {**inner, "finish_reason": attrs.get("finish_reason")}
        role = "assistant"
    else:
        role = EVENT_ROLES[name]
    calls = []
    for raw in _json_attr(body.get("tool_calls")) or []:
        function = raw.get("function") or {}
        calls.append(ToolCall(raw.get("id"), function.get("name"), arguments_text(function.get("arguments"))))
    return Message(
        role=role,
        text=_text(body.get("content")),
        calls=calls,
        call_id=body.get("id") if role == "tool" else None,
        finish_reason=body.get("finish_reason"),
    )


INDEXED_LAYOUTS = (("gen_ai.prompt", "gen_ai.completion"), ("llm.input_messages", "llm.output_messages"))
"""(input, output) attribute prefixes of OpenLLMetry and of OpenInference."""
ROLE_ALIASES = {
    "developer": "system",
    "human": "user",
    "ai": "assistant",
    "model": "assistant",
    "function": "tool",
}
"""Roles some instrumentations write for the four the conventions name."""
ATTRIBUTE_ALIASES = {
    "gen_ai.usage.input_tokens": ("gen_ai.usage.prompt_tokens", "llm.token_count.prompt"),
    "gen_ai.usage.output_tokens": ("gen_ai.usage.completion_tokens", "llm.token_count.completion"),
    "gen_ai.request.model": ("llm.model_name",),
}
"""A convention attribute and the names OpenLLMetry and OpenInference give it."""


def unflatten(attrs: dict[str, Any], prefix: str) -> list[Any]:
    """Attributes flattened under ``prefix`` with numeric indices (``gen_ai.prompt.0.role``,
    ``gen_ai.prompt.0.tool_calls.1.name``) back into lists and objects, indices in numeric order (so
    ``10`` follows ``2``). A key that is both a value and a container keeps the value."""
    root: dict[str, Any] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix + "."):
            continue
        *path, last = key[len(prefix) + 1 :].split(".")
        node: Any = root
        for step in path:
            node = node.setdefault(step, {}) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node[last] = value
    listed = _listed(root)
    return listed if isinstance(listed, list) else []


def _listed(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    items = {key: _listed(value) for key, value in node.items()}
    if items and all(key.isdigit() for key in items):
        return [items[key] for key in sorted(items, key=int)]
    return items


def _role(value: Any) -> str:
    role = ROLE_ALIASES.get(value, value) if isinstance(value, str) else value
    if role not in ("system", "user", "assistant", "tool"):
        raise RecordError("unknown role", f"GenAI message role {named(value)}")
    return role


def message_of_indexed(raw: Any) -> Message:
    """An OpenLLMetry ``gen_ai.prompt.<i>`` / ``gen_ai.completion.<i>`` message, or an OpenInference
    ``llm.input_messages.<i>`` one (its fields under ``message``)."""
    body = raw.get("message", raw) if isinstance(raw, dict) else {}
    role = _role(body.get("role"))
    contents = body.get("contents")
    text: str | None
    if isinstance(contents, list):  # OpenInference's multi-part content
        parts = [c.get("message_content") for c in contents if isinstance(c, dict)]
        text = "\n".join(_text(p.get("text")) or "" for p in parts if isinstance(p, dict))
    else:
        text = _text(body.get("content"))
    calls = []
    for entry in body.get("tool_calls") or []:
        call: dict[str, Any] = entry.get("tool_call", entry) if isinstance(entry, dict) else {}
        function = call["function"] if isinstance(call.get("function"), dict) else call
        calls.append(
            ToolCall(call.get("id"), function.get("name"), arguments_text(function.get("arguments")))
        )
    return Message(
        role=role,
        text=text,
        calls=calls,
        call_id=body.get("tool_call_id") if role == "tool" else None,
        finish_reason=body.get("finish_reason"),
    )


def tool_definitions(attrs: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A span's tools: ``gen_ai.tool.definitions``, else OpenLLMetry's ``llm.request.functions`` or
    OpenInference's ``llm.tools`` (each a JSON schema, flat or under ``function``)."""
    if "gen_ai.tool.definitions" in attrs:
        return _json_attr(attrs["gen_ai.tool.definitions"])
    functions = unflatten(attrs, "llm.request.functions")
    if functions:
        return [
            {**f, "parameters": _json_attr(f.get("parameters", f.get("arguments")))}
            for f in functions
            if isinstance(f, dict)
        ]
    tools = [_json_attr((t.get("tool") or {}).get("json_schema")) for t in unflatten(attrs, "llm.tools")]
    return [t.get("function", t) for t in tools if isinstance(t, dict)] or None


def with_aliases(attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` with the convention's names filled in from the ones OpenLLMetry and OpenInference
    use (:data:`ATTRIBUTE_ALIASES`), where the convention's own is absent. Tool definitions, which
    hold JSON to decode, are read per record instead (:func:`tool_definitions`), where a malformed
    one rejects its trace."""
    out = dict(attrs)
    for name, aliases in ATTRIBUTE_ALIASES.items():
        found = next((attrs[a] for a in aliases if a in attrs), None)
        if name not in out and found is not None:
            out[name] = found
    return out


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
                Message("system", text=_text(p.get("content")) if p.get("type") == "text" else None)
                for p in _json_attr(self.attrs.get("gen_ai.system_instructions")) or []
            ]
            inputs = [message_of_parts(m) for m in _json_attr(self.attrs.get("gen_ai.input.messages")) or []]
            outputs = [
                message_of_parts(m) for m in _json_attr(self.attrs.get("gen_ai.output.messages")) or []
            ]
            return system + inputs, outputs
        for inputs_key, outputs_key in INDEXED_LAYOUTS:
            indexed_inputs, indexed_outputs = (
                unflatten(self.attrs, inputs_key),
                unflatten(self.attrs, outputs_key),
            )
            if indexed_inputs or indexed_outputs:
                return (
                    [message_of_indexed(m) for m in indexed_inputs],
                    [message_of_indexed(m) for m in indexed_outputs],
                )
        if not self.messages:
            return None
        events = sorted(self.messages, key=lambda m: (m[0], m[1]))
        return (
            [message_of_event(name, body) for _, _, name, body in events if name != CHOICE_EVENT],
            [message_of_event(name, body) for _, _, name, body in events if name == CHOICE_EVENT],
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

    def sniff(self, sample: Any, path: Path) -> bool:
        return isinstance(sample, dict) and (
            isinstance(sample.get("resourceSpans"), list) or isinstance(sample.get("resourceLogs"), list)
        )

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        documents = []
        lines = [RawRecord(None, "$", value=src.document[0])] if src.is_document else list(src.lines())
        for record in lines:
            if record.error is not None or not isinstance(record.value, dict):
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
        for trace_id, spans in sorted(spans_by_trace(documents).items()):
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
            content=_text(result),
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
            lineage.sampling_params_json = canonical_json(sampling)
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
