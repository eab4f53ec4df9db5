"""MLflow traces: what an agent traced with MLflow (its autologging of OpenAI, LangChain, and other
clients, or a Databricks agent) leaves, as ``Trace.to_json()`` writes it.

A record is one trace, ``{"info": {...}, "data": {"spans": [...]}}`` (one per line, an array, or a
document). MLflow 2 spans carry ``context.span_id``, ``parent_id``, ``start_time`` / ``end_time``
(nanoseconds) and ``status_code``; MLflow 3 spans are OTLP-like (``span_id``, ``parent_span_id``,
``start_time_unix_nano``, ``status.code``). Either way every attribute value is JSON text
(``"mlflow.spanType": "\\"CHAT_MODEL\\""``).

Each ``CHAT_MODEL`` or ``LLM`` span is one model call: ``mlflow.chat.messages`` (the call's messages
with its answer last) when present, else ``mlflow.spanInputs`` (a message list, ``{"messages"}`` or
a prompt) and ``mlflow.spanOutputs`` (a message, a Chat Completions response, a LangChain result,
or text); ``mlflow.chat.tokenUsage`` gives its tokens, ``mlflow.chat.tools`` (or the inputs'
``tools``) the tools. The episode and its delivered inputs are built from the calls as
:mod:`~trajectory_platform.traces.adapters.call_trace` says. A ``TOOL`` span that ended in error
marks its call's result ``error`` (by name among open calls). A trace whose status is ``ERROR``
ends ``error``.

The task a trace ran against is ``task_id`` (or ``environment_id``, ``instance_id``) in its
``info`` metadata (``request_metadata`` in MLflow 2, ``trace_metadata`` in MLflow 3) or its tags.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    SourceFile,
    adapter_episode_id,
    expect,
    name_tool_results,
    object_field,
    optional_str,
    task_id_in,
)
from trajectory_platform.traces.adapters.call_trace import (
    ModelCall,
    ToolRun,
    mark_failed_tools,
    run_episodes,
)
from trajectory_platform.traces.adapters.chat_payloads import events_of, messages_seen, replies_of
from trajectory_platform.traces.adapters.openai import choice_taken, tool_specs_of
from trajectory_platform.traces.record import Episode

MODEL_CALLS = ("CHAT_MODEL", "LLM")
ERROR_STATUSES = ("ERROR", "STATUS_CODE_ERROR")
METADATA_FIELDS = ("request_metadata", "trace_metadata", "tags")
TASK_ID_SOURCE = "`task_id` (or `environment_id`, `instance_id`) in the trace info's metadata or tags"


def _is_trace(value: Any) -> bool:
    data = value.get("data") if isinstance(value, dict) else None
    return isinstance(value.get("info") if isinstance(value, dict) else None, dict) and isinstance(
        data.get("spans") if isinstance(data, dict) else None, list
    )


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    """A span's attributes, each JSON text decoded (a value that is not JSON stays as it is)."""
    decoded = {}
    for key, value in object_field(span, "attributes").items():
        try:
            decoded[key] = json.loads(value) if isinstance(value, str) else value
        except json.JSONDecodeError:
            decoded[key] = value
    return decoded


def _start(span: dict[str, Any]) -> int:
    return int(span.get("start_time_unix_nano") or span.get("start_time") or 0)


def _failed(span: dict[str, Any]) -> bool:
    return (span.get("status_code") or object_field(span, "status").get("code")) in ERROR_STATUSES


def _call(span: dict[str, Any], attrs: dict[str, Any], where: str) -> ModelCall:
    messages = attrs.get("mlflow.chat.messages")
    choice = None
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        last = messages[-1].get("role") == "assistant"
        seen = messages_seen(messages[:-1] if last else messages, f"{where}.mlflow.chat.messages")
        answers = events_of(messages[-1], f"{where}.mlflow.chat.messages[-1]") if last else []
    else:
        seen = messages_seen(attrs.get("mlflow.spanInputs"), f"{where}.mlflow.spanInputs")
        answers = replies_of(attrs.get("mlflow.spanOutputs"), f"{where}.mlflow.spanOutputs")
        choice = choice_taken(attrs.get("mlflow.spanOutputs"))
    call = ModelCall.answering(seen, answers, choice)
    answer = call.answer
    if answer is not None:
        usage = object_field(attrs, "mlflow.chat.tokenUsage")
        answer.input_tokens = answer.input_tokens or usage.get("input_tokens")
        answer.output_tokens = answer.output_tokens or usage.get("output_tokens")
        end = int(span.get("end_time_unix_nano") or span.get("end_time") or 0)
        answer.timestamp = dt.datetime.fromtimestamp(end / 1e9, tz=dt.UTC).isoformat() if end else None
    return call


class MLflowAdapter(Adapter):
    """MLflow ``Trace.to_json()`` records: one trace per record."""

    name = "mlflow"
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_trace(record)

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """One episode per conversation of the trace; the trace's status is the main one's."""
        trace = expect(record.value, dict, "record")
        info = expect(trace.get("info"), dict, "info")
        own_id = info.get("trace_id", info.get("request_id"))
        spans = [expect(s, dict, "data.spans[]") for s in expect(trace["data"]["spans"], list, "data.spans")]
        ordered = sorted(enumerate(spans), key=lambda numbered: (_start(numbered[1]), numbered[0]))
        read = [(i, span, _attributes(span)) for i, span in ordered]
        model_spans = [
            (i, span, attrs) for i, span, attrs in read if attrs.get("mlflow.spanType") in MODEL_CALLS
        ]
        calls = [_call(span, attrs, f"data.spans[{i}]") for i, span, attrs in model_spans]
        runs = [
            ToolRun(None, span.get("name"), _failed(span))
            for _, span, attrs in read
            if attrs.get("mlflow.spanType") == "TOOL"
        ]
        conversations = run_episodes(
            lambda episode_id: self.new_episode(record, src, episode_id),
            adapter_episode_id(self.name, own_id, trace),
            calls,
        )
        for conversation in conversations:
            episode = conversation.episode
            _, _, chosen = model_spans[conversation.chosen]
            inputs = object_field(chosen, "mlflow.spanInputs")
            tools = chosen.get("mlflow.chat.tools", inputs.get("tools"))
            if tools is not None:
                episode.tools = tool_specs_of(tools, "mlflow.chat.tools")
            episode.lineage.model = optional_str(inputs.get("model"), "mlflow.spanInputs.model")
            mark_failed_tools(episode.events, runs)
            name_tool_results(episode.events)
            self._info(info, episode, conversation.main)
            episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        return [conversation.episode for conversation in conversations]

    @staticmethod
    def _info(info: dict[str, Any], episode: Episode, main: bool) -> None:
        """The task the trace names; its status when ``episode`` is the main conversation."""
        episode.task.fixture_id = task_id_in((info.get(field), f"info.{field}.") for field in METADATA_FIELDS)
        if main and info.get("status", info.get("state")) == "ERROR":
            episode.outcome.terminal_status = "error"
