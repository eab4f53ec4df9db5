"""LangSmith runs: what an agent built on LangChain or LangGraph (or any client LangSmith traces)
leaves in its project.

A run is ``{"id", "trace_id", "parent_run_id", "run_type", "name", "inputs", "outputs", "error",
"start_time", "end_time", "extra", "child_runs"}``; an export is a JSONL of runs (``list_runs``), a
JSON array of them, or a run tree (a root with its ``child_runs`` nested). A record is one trace:
every run sharing a ``trace_id``, in every file of one ingest (a trace exported a file per batch or
per day is joined: ``call_trace.joined_trace``; a run two files hold in different versions rejects
the trace).

Each ``llm`` run is one model call: its ``inputs.messages`` (a batch of one, or a flat list) is what
the model saw, its ``outputs`` what it answered (``generations[0][0].message``, or a Chat
Completions response when an OpenAI client was traced); the episode and its delivered inputs are
built from the calls as :mod:`~trajectory_platform.traces.adapters.call_trace` says. Messages come
in any of LangChain's serializations (``{"lc": 1, "type": "constructor", "id": [...,
"AIMessage"], "kwargs"}``, ``{"type": "ai", "data"}``, ``{"type": "ai", "content", ...}``) or as
role dicts. A failed ``tool`` run names its call by the ``tool_call_id`` of the ``ToolMessage`` it
returned, if any. The root run's ``error`` ends the episode ``error``; its string
``outputs.output`` is the final answer.

The task a trace ran against is the root run's ``extra.metadata.task_id`` (LangSmith metadata; or
``environment_id``, ``instance_id``).
"""

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
    task_id_in,
    timestamp_of,
)
from trajectory_platform.traces.adapters.call_trace import (
    TRACE_FILE,
    ModelCall,
    ToolRun,
    joined_trace,
    mark_failed_tools,
    run_episodes,
)
from trajectory_platform.traces.adapters.chat_payloads import messages_seen, replies_of
from trajectory_platform.traces.adapters.openai import choice_taken, tool_specs_of
from trajectory_platform.traces.adapters.openai_responses import is_response
from trajectory_platform.traces.record import Episode, Event, canonical_json

TRACE_AT = "trace_id="
"""How a trace's record is located (and known as one: :meth:`LangSmithAdapter.group_of`)."""
TASK_ID_SOURCE = "the root run's `extra.metadata.task_id` (or `environment_id`, `instance_id`)"


def _is_run(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("run_type"), str) and "inputs" in value


def _runs(value: Any) -> Iterator[dict[str, Any]]:
    """A run and every run nested under it in ``child_runs``, depth first."""
    yield value
    for child in value.get("child_runs") or []:
        if _is_run(child):
            yield from _runs(child)


def _inputs(run: dict[str, Any], where: str) -> list[Event]:
    return messages_seen(expect(run.get("inputs"), dict, f"{where}.inputs"), f"{where}.inputs")


def _answer(run: dict[str, Any], where: str) -> list[Event]:
    """The model's reply (``generations[0][0]``, a Chat Completions response's first choice, or the
    assistant message itself: an Anthropic Message, as ``wrap_anthropic`` records it, or an OpenAI
    Responses response, as ``wrap_openai`` records ``responses.create``) as its events
    (``chat_payloads.replies_of``); none when the call failed before answering."""
    outputs = run.get("outputs")
    if outputs is None:
        return []
    read = expect(outputs, dict, f"{where}.outputs")
    if (
        not {"generations", "choices"} & set(read)
        and read.get("role") != "assistant"
        and not is_response(read)
    ):
        raise RecordError(
            "unknown output",
            f"{where}.outputs holds neither generations, choices, a response nor an assistant message",
        )
    return replies_of(outputs, f"{where}.outputs")


class LangSmithAdapter(Adapter):
    """LangSmith run exports: one trace per record."""

    name = "langsmith"
    task_id_source = TASK_ID_SOURCE

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_run(record)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        traces: dict[str, list[dict[str, Any]]] = {}
        for record in frame_json(src):
            if record.error is not None or not _is_run(record.value):
                yield (
                    record
                    if record.error is not None
                    else RawRecord(
                        record.line, record.json_path, error=RecordError("wrong type", "not a LangSmith run")
                    )
                )
                continue
            for run in _runs(record.value):
                trace = run.get("trace_id") or record.value.get("id")
                traces.setdefault(str(trace), []).append(run)
        for trace_id, runs in traces.items():
            value = {"trace_id": trace_id, "runs": runs, TRACE_FILE: src.display}
            yield RawRecord(None, f"{TRACE_AT}{trace_id}", value=value)

    def group_of(self, record: RawRecord) -> str | None:
        """A trace's id: one trace may be exported over several files."""
        return record.value["trace_id"] if (record.json_path or "").startswith(TRACE_AT) else None

    def merged(self, parts: list[RawRecord]) -> RawRecord:
        """One trace's runs from several files, each run once (by its ``id``)."""
        return joined_trace(parts, "runs", _run_id, "run")

    def parse_all(self, record: RawRecord, src: SourceFile) -> list[Episode]:
        """One episode per conversation of the trace (a sub-agent's is its own); the root run's
        outcome is the main conversation's, its task every conversation's."""
        runs = sorted(
            record.value["runs"],
            key=lambda r: (str(r.get("start_time") or ""), str(r.get("dotted_order") or "")),
        )
        llm_runs = [(i, run) for i, run in enumerate(runs) if run.get("run_type") == "llm"]
        calls = [
            ModelCall.answering(
                _inputs(run, at := f"runs[{i}]"), _answer(run, at), choice_taken(run.get("outputs"))
            )
            for i, run in llm_runs
        ]
        for (i, run), call in zip(llm_runs, calls, strict=True):
            if call.answer is not None:
                call.answer.timestamp = timestamp_of(run.get("end_time"), f"runs[{i}].end_time")
        root = next((r for r in runs if not r.get("parent_run_id")), runs[0])
        tool_runs = [_tool_run(run) for run in runs if run.get("run_type") == "tool"]
        read = run_episodes(
            lambda episode_id: self.new_episode(record, src, episode_id),
            f"{self.name}:{record.value['trace_id']}",
            calls,
        )
        for conversation in read:
            episode = conversation.episode
            self._tools_and_model(llm_runs[conversation.chosen][1], episode)
            mark_failed_tools(episode.events, tool_runs)
            name_tool_results(episode.events)
            self._root(root, episode, conversation.main)
            episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        return [conversation.episode for conversation in read]

    @staticmethod
    def _tools_and_model(run: dict[str, Any], episode: Episode) -> None:
        extra = object_field(run, "extra")
        params = object_field(extra, "invocation_params")
        tools = params.get("tools", run["inputs"].get("tools"))
        if tools is not None:
            episode.tools = tool_specs_of(tools, "invocation_params.tools")
        metadata = object_field(extra, "metadata")
        model = params.get("model", params.get("model_name", metadata.get("ls_model_name")))
        episode.lineage.model = optional_str(model, "invocation_params.model")

    @staticmethod
    def _root(root: dict[str, Any], episode: Episode, main: bool) -> None:
        """The task the root run names; its outcome when ``episode`` is the main conversation."""
        extra = object_field(root, "extra")
        metadata = object_field(extra, "metadata")
        episode.task.fixture_id = task_id_in([(metadata, "extra.metadata.")])
        if not main:
            return
        if root.get("error"):
            episode.outcome.terminal_status = "error"
        outputs = object_field(root, "outputs")
        if isinstance(outputs.get("output"), str):
            episode.outcome.final_answer = outputs["output"]


def _tool_run(run: dict[str, Any]) -> ToolRun:
    """A ``tool`` run: the ``tool_call_id`` of the ToolMessage it returned, if it returned one."""
    output = object_field(run, "outputs").get("output")
    fields = output.get("kwargs", output.get("data", output)) if isinstance(output, dict) else None
    call_id = fields.get("tool_call_id") if isinstance(fields, dict) else None
    return ToolRun(call_id, run.get("name"), bool(run.get("error")))


def _run_id(run: dict[str, Any]) -> str:
    """A run's ``id``; a run exported without one is known by its whole content."""
    return str(run["id"]) if run.get("id") is not None else canonical_json(run)
