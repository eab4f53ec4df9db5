"""OpenAI Agents SDK traces: what an agent built on the SDK (Python ``openai-agents`` or JS
``@openai/agents``) leaves when a trace processor writes its traces and spans out.

Records are the SDK's own exports: a trace ``{"object": "trace", "id", "workflow_name",
"group_id", "metadata"}`` and spans ``{"object": "trace.span", "id", "trace_id", "parent_id",
"started_at", "ended_at", "span_data": {"type", ...}, "error"}``, one per line, in an array, or in
the exporter's batch ``{"data": [...]}``. A record is one trace: its spans grouped by
``trace_id``, in start order.

Each ``generation`` span is one model call (a Chat Completions model: the SDK's default for
providers other than OpenAI's Responses API): ``input`` is the message list the model saw,
``output`` the messages it answered (the last is the answer), ``usage`` its tokens, ``model`` and
``model_config`` the model and its settings. The episode and its delivered inputs are built from the
calls as :mod:`~trajectory_platform.traces.adapters.call_trace` says. A ``function`` span with an
``error`` marks its call's result ``error`` (by name among open calls: the span names no call id).
The agent span's ``tools`` name the tools (the trace records no schemas). A root span with an
``error`` (a run that hit its turn limit or a guardrail) ends the episode ``error``; the last
answer, when it calls no tool, is the final answer.

A Responses model's ``generation`` output is the answer's Responses items (a tool the API ran is
the call and its result, the message after it a turn of its own: ``chat_payloads.replies_of``). A
``response`` span is a model call where a processor kept its request and response (the JS SDK's
``_input`` / ``_response``); the SDK's own export holds its response id only, so a trace whose
model calls are all such bare ``response`` spans cannot become an episode: it is a ``no model
messages`` reject saying so, and so is a trace whose last model calls are (no later call's input
shows what they answered: the episode would silently end before them). A bare ``response`` span
before a call that kept its messages loses nothing: that call saw its answer. The task a trace
ran against is its ``metadata.task_id`` (``RunConfig(trace_metadata=...)``; or ``environment_id``,
``instance_id``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    expect,
    frame_json,
    name_tool_results,
    object_field,
    optional_str,
    sampling_params_json,
    task_id_in,
    timestamp_of,
)
from trajectory_platform.traces.adapters.call_trace import (
    ModelCall,
    ToolRun,
    mark_failed_tools,
    run_episodes,
)
from trajectory_platform.traces.adapters.chat_payloads import messages_seen, replies_of
from trajectory_platform.traces.adapters.openai import choice_taken
from trajectory_platform.traces.adapters.openai_responses import is_item_list
from trajectory_platform.traces.record import Episode, ToolSpec

TASK_ID_SOURCE = (
    "the trace's `metadata.task_id` (`RunConfig(trace_metadata=...)`; or `environment_id`, `instance_id`)"
)


def _is_span(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("object") == "trace.span"
        and isinstance(value.get("span_data"), dict)
    )


def _is_trace(value: Any) -> bool:
    return isinstance(value, dict) and value.get("object") == "trace" and "workflow_name" in value


def _batch(value: Any) -> list[Any] | None:
    """The items of the exporter's batch ``{"data": [...]}``, when ``value`` is one."""
    items = value.get("data") if isinstance(value, dict) else None
    if isinstance(items, list) and items and (_is_span(items[0]) or _is_trace(items[0])):
        return items
    return None


def _kind(span: dict[str, Any]) -> Any:
    return span["span_data"].get("type")


RESPONSE_KEYS = (("_input", "_response"), ("input", "response"))
"""Where a ``response`` span keeps what the call saw and answered, when a processor writes them: the
JS SDK's ``_input`` / ``_response`` ("helpful for other tracing providers"; its own exporter drops
them), the Python SDK's ``input`` / ``response`` attributes."""


def _call_data(span: dict[str, Any]) -> dict[str, Any] | None:
    """A model call's ``input``, ``output``, ``model``, ``model_config`` and ``usage``: a
    ``generation`` span's own, or a ``response`` span's request and Responses API response where
    it kept them (:data:`RESPONSE_KEYS`); ``None`` for other spans and a response id alone."""
    data = span["span_data"]
    if data.get("type") == "generation":
        return data
    if data.get("type") != "response":
        return None
    for seen, said in RESPONSE_KEYS:
        response = data.get(said)
        if isinstance(response, dict):
            return {
                "input": data.get(seen),
                "output": response,
                "model": response.get("model"),
                "model_config": {},
                "usage": response.get("usage"),
            }
    return None


def _call(data: dict[str, Any], ended_at: Any, where: str) -> ModelCall:
    """One model call. A ``generation`` span's ``output`` is the messages the model answered (the
    last is the answer), or, for a Responses model, the answer's Responses items (reasoning, a tool
    the API ran with its result, the message after it: all of them the answer); a ``response``
    span's is the response."""
    reply = data.get("output")
    if isinstance(reply, list) and not is_item_list(reply):
        reply = reply[-1] if reply else None
    call = ModelCall.answering(
        messages_seen(data.get("input"), f"{where}.input"),
        replies_of(reply, f"{where}.output"),
        choice_taken(reply),
    )
    answer = call.answer
    if answer is not None:
        answer.timestamp = timestamp_of(ended_at, f"{where}.ended_at")
        usage = object_field(data, "usage")
        answer.input_tokens = answer.input_tokens or usage.get("input_tokens")
        answer.output_tokens = answer.output_tokens or usage.get("output_tokens")
    return call


class OpenAIAgentsAdapter(Adapter):
    """OpenAI Agents SDK trace and span exports: one trace per record."""

    name = "openai-agents"
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_span(record) or _is_trace(record) or _batch(record) is not None

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        traces: dict[str, dict[str, Any]] = {}

        def trace_of(trace_id: Any, record: RawRecord) -> dict[str, Any]:
            empty: dict[str, Any] = {
                "trace": None,
                "spans": [],
                "line": record.line,
                "json_path": record.json_path,
            }
            return traces.setdefault(str(trace_id), empty)

        for record in frame_json(src):
            if record.error is not None:
                yield record
                continue
            items = _batch(record.value)
            for item in [record.value] if items is None else items:
                if _is_trace(item):
                    trace_of(item.get("id"), record)["trace"] = item
                elif _is_span(item):
                    trace_of(item.get("trace_id"), record)["spans"].append(item)
                else:
                    error = RecordError("wrong type", "neither an Agents SDK trace nor a span")
                    yield RawRecord(record.line, record.json_path, error=error)
        for trace_id, trace in traces.items():
            # located at the line it was first met; a trace object alone by that line only (its id
            # is the record's own text), one with spans also by its id (its spans span lines)
            where = f"trace_id={trace_id}" if trace["spans"] else trace["json_path"]
            yield RawRecord(
                trace["line"],
                where,
                value={"trace_id": trace_id, "trace": trace["trace"], "spans": trace["spans"]},
            )

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """One episode per conversation of the trace (an agent handing off to another with its own
        instructions starts one); the trace's end is the main conversation's."""
        numbered = sorted(
            enumerate(record.value["spans"]), key=lambda p: (str(p[1].get("started_at") or ""), p[0])
        )
        spans = [span for _, span in numbered]
        generations = [(i, d) for i, s in enumerate(spans) if (d := _call_data(s)) is not None]
        bare = [i for i, s in enumerate(spans) if _kind(s) == "response" and _call_data(s) is None]
        last = generations[-1][0] if generations else -1
        if unseen := [i for i in bare if i > last]:
            # no later call saw what these answered: the episode would end before them, unmarked
            raise RecordError(
                "no model messages",
                f"its last {len(unseen)} of {len(generations) + len(bare)} model call(s) are "
                "Responses API `response` spans, which the SDK exports with a response id only, "
                "and no later call shows what they saw or answered; trace a Chat Completions model "
                "to log what it saw",
            )
        calls = [_call(d, spans[i].get("ended_at"), f"spans[{i}].span_data") for i, d in generations]
        runs = [
            ToolRun(None, s["span_data"].get("name"), s.get("error") is not None)
            for s in spans
            if _kind(s) == "function"
        ]
        trace = record.value["trace"] or {}
        conversations = run_episodes(
            lambda episode_id: self.new_episode(record, src, episode_id),
            f"{self.name}:{record.value['trace_id']}",
            calls,
        )
        for conversation in conversations:
            episode = conversation.episode
            chosen = generations[conversation.chosen][1]
            ordered = [chosen, *(d for _, d in generations)]
            episode.lineage.model = optional_str(
                next((d["model"] for d in ordered if d.get("model")), None), "model"
            )
            episode.lineage.sampling_params_json = sampling_params_json(object_field(chosen, "model_config"))
            mark_failed_tools(episode.events, runs)
            name_tool_results(episode.events)
            self._agents(spans, episode, conversation.main)
            episode.task.fixture_id = task_id_in([(object_field(trace, "metadata"), "metadata.")])
            episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        return [conversation.episode for conversation in conversations]

    @staticmethod
    def _agents(spans: list[dict[str, Any]], episode: Episode, main: bool) -> None:
        """The tools the agents declared; the run's end when ``episode`` is the main conversation;
        its final answer."""
        names = [
            expect(name, str, f"spans[{i}].span_data.tools[{j}]")
            for i, s in enumerate(spans)
            if _kind(s) == "agent"
            for j, name in enumerate(
                expect(s["span_data"].get("tools") or [], list, f"spans[{i}].span_data.tools")
            )
        ]
        episode.tools = [ToolSpec(name=name) for name in dict.fromkeys(names)]
        if main and any(s.get("error") is not None for s in spans if not s.get("parent_id")):
            episode.outcome.terminal_status = "error"
        last = episode.events[-1] if episode.events else None
        if last is not None and last.kind == "assistant" and not last.tool_calls and last.content:
            episode.outcome.final_answer = last.content
