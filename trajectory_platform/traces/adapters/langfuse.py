"""Langfuse traces: what an agent instrumented with Langfuse (its OpenAI, LangChain or SDK
integrations) leaves in its project.

A trace is ``{"id", "name", "input", "output", "metadata", "observations": [...]}`` (the public
API's trace with its observations, one per line or a JSON array); observations may also come on
their own, each naming its ``traceId`` (the observations API). An observation is ``{"id",
"traceId", "type", "name", "startTime", "endTime", "input", "output", "model", "modelParameters",
"usageDetails", "level", "statusMessage", "parentObservationId"}``. A record is one trace, in every
file of one ingest (a trace exported a file per batch or per day is joined:
``call_trace.joined_trace``; an observation two files hold in different versions rejects the trace).

Each ``GENERATION`` is one model call: its ``input`` is what the model saw (a message list, an
object holding ``messages`` and ``tools``, or a prompt string), its ``output`` what it answered (a
message, a Chat Completions response, or text); the episode and its delivered inputs are built from
the calls as :mod:`~trajectory_platform.traces.adapters.call_trace` says. Messages are role dicts or
LangChain serializations, read as the LangSmith adapter reads them. A ``TOOL`` observation (or a
``SPAN`` named after a called tool) at level ``ERROR`` marks its call's result ``error``. A root
observation at level ``ERROR`` ends the episode ``error``; the trace's string ``output`` is the
final answer.

The task a trace ran against is its ``metadata.task_id`` (or ``environment_id``, ``instance_id``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    frame_json,
    name_tool_results,
    object_field,
    optional_str,
    sampling_params_json,
    task_id_in,
    timestamp_of,
)
from trajectory_platform.traces.adapters.call_trace import (
    CONFLICT,
    TRACE_FILE,
    ModelCall,
    ToolRun,
    joined_trace,
    mark_failed_tools,
    run_episodes,
)
from trajectory_platform.traces.adapters.chat_payloads import messages_seen, replies_of
from trajectory_platform.traces.adapters.openai import choice_taken, tool_specs_of
from trajectory_platform.traces.record import Episode, canonical_json

OBSERVATION_TYPES = frozenset(
    {
        "GENERATION",
        "SPAN",
        "EVENT",
        "AGENT",
        "TOOL",
        "CHAIN",
        "RETRIEVER",
        "EVALUATOR",
        "EMBEDDING",
        "GUARDRAIL",
    }
)
TRACE_AT = "traceId="
"""How a trace's record is located (and known as one: :meth:`LangfuseAdapter.group_of`)."""
TASK_ID_SOURCE = "the trace's `metadata.task_id` (or `environment_id`, `instance_id`)"


def _is_observation(value: Any) -> bool:
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and kind in OBSERVATION_TYPES and "traceId" in value


def _is_trace(value: Any) -> bool:
    observations = value.get("observations") if isinstance(value, dict) else None
    return isinstance(observations, list) and any(_is_observation(o) for o in observations)


def _call(observation: dict[str, Any], where: str) -> ModelCall:
    call = ModelCall.answering(
        messages_seen(observation.get("input"), f"{where}.input"),
        replies_of(observation.get("output"), f"{where}.output"),
        choice_taken(observation.get("output")),
    )
    answer = call.answer
    if answer is not None:
        answer.timestamp = timestamp_of(observation.get("endTime"), f"{where}.endTime")
        usage = object_field(observation, "usageDetails") or object_field(observation, "usage")
        answer.input_tokens = answer.input_tokens or usage.get("input", usage.get("promptTokens"))
        answer.output_tokens = answer.output_tokens or usage.get("output", usage.get("completionTokens"))
    return call


class LangfuseAdapter(Adapter):
    """Langfuse trace exports (traces with observations, or observations alone): one trace per record."""

    name = "langfuse"
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_trace(record) or _is_observation(record)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        traces: dict[str, dict[str, Any]] = {}

        def trace_of(trace_id: Any) -> dict[str, Any]:
            return traces.setdefault(str(trace_id), {"trace": None, "observations": []})

        for record in frame_json(src):
            value = record.value
            if record.error is None and _is_trace(value):
                trace_of(value.get("id"))["trace"] = value
                trace_of(value.get("id"))["observations"].extend(
                    o for o in value["observations"] if isinstance(o, dict)
                )
            elif record.error is None and _is_observation(value):
                trace_of(value["traceId"])["observations"].append(value)
            elif record.error is not None:
                yield record
            else:
                error = RecordError("wrong type", "neither a Langfuse trace nor an observation")
                yield RawRecord(record.line, record.json_path, error=error)
        for trace_id, trace in traces.items():
            value = {"trace_id": trace_id, **trace, TRACE_FILE: src.display}
            yield RawRecord(None, f"{TRACE_AT}{trace_id}", value=value)

    def group_of(self, record: RawRecord) -> str | None:
        """A trace's id: one trace may be exported over several files."""
        return record.value["trace_id"] if (record.json_path or "").startswith(TRACE_AT) else None

    def merged(self, parts: list[RawRecord]) -> RawRecord:
        """One trace's observations from several files, each once (by its ``id``); the trace
        itself (its name, output, metadata) from the file that holds it (two that differ: a
        conflict, like two versions of an observation)."""
        heads = [
            (part.value[TRACE_FILE], {k: v for k, v in part.value["trace"].items() if k != "observations"})
            for part in parts
            if part.value["trace"] is not None
        ]
        for (file, head), (other_file, other) in zip(heads, heads[1:], strict=False):
            if head != other:
                detail = f"the trace is written differently in {file} and in {other_file}"
                error = RecordError(CONFLICT, detail)
                return RawRecord(parts[0].line, parts[0].json_path, error=error)
        joined = joined_trace(parts, "observations", _observation_id, "observation")
        if joined.error is None and heads:
            joined.value["trace"] = next(p.value["trace"] for p in parts if p.value["trace"] is not None)
        return joined

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """One episode per conversation of the trace; the trace's outcome is the main one's."""
        numbered = list(enumerate(record.value["observations"]))
        numbered.sort(key=lambda pair: (str(pair[1].get("startTime") or ""), pair[0]))
        observations = [o for _, o in numbered]
        generations = [(i, o) for i, o in enumerate(observations) if o.get("type") == "GENERATION"]
        calls = [_call(o, f"observations[{i}]") for i, o in generations]
        read = run_episodes(
            lambda episode_id: self.new_episode(record, src, episode_id),
            f"{self.name}:{record.value['trace_id']}",
            calls,
        )
        for conversation in read:
            self._conversation(
                conversation.episode, generations[conversation.chosen][1], generations, observations
            )
            self._trace(record.value["trace"] or {}, observations, conversation.episode, conversation.main)
        return [conversation.episode for conversation in read]

    @staticmethod
    def _conversation(
        episode: Episode,
        chosen: dict[str, Any],
        generations: list[tuple[int, dict[str, Any]]],
        observations: list[dict[str, Any]],
    ) -> None:
        """What the conversation's chosen call says of its tools, model and parameters; its failed
        tool runs; its prompt."""
        if "tools" in object_field(chosen, "input"):
            episode.tools = tool_specs_of(chosen["input"]["tools"], "input.tools")
        # the chosen call's model and parameters, else the first another call recorded
        ordered = [chosen, *(o for _, o in generations)]
        episode.lineage.model = optional_str(
            next((o["model"] for o in ordered if o.get("model")), None), "model"
        )
        parameters = next((p for o in ordered if (p := object_field(o, "modelParameters"))), {})
        episode.lineage.sampling_params_json = sampling_params_json(parameters)
        called = {c.name for e in episode.events for c in e.tool_calls}
        runs = [
            o
            for o in observations
            if o.get("type") == "TOOL" or (o.get("type") == "SPAN" and o.get("name") in called)
        ]
        mark_failed_tools(
            episode.events, [ToolRun(None, o.get("name"), o.get("level") == "ERROR") for o in runs]
        )
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)

    @staticmethod
    def _trace(
        trace: dict[str, Any], observations: list[dict[str, Any]], episode: Episode, main: bool
    ) -> None:
        """The task the trace names; its outcome when ``episode`` is the main conversation."""
        roots = [o for o in observations if not o.get("parentObservationId")]
        metadata = object_field(trace, "metadata") or next(
            (object_field(o, "metadata") for o in roots if object_field(o, "metadata")), {}
        )
        episode.task.fixture_id = task_id_in([(metadata, "metadata.")])
        if not main:
            return
        if any(o.get("level") == "ERROR" for o in roots):
            episode.outcome.terminal_status = "error"
        if isinstance(trace.get("output"), str):
            episode.outcome.final_answer = trace["output"]


def _observation_id(observation: dict[str, Any]) -> str:
    """An observation's ``id``; one exported without it is known by its whole content."""
    return str(observation["id"]) if observation.get("id") is not None else canonical_json(observation)
