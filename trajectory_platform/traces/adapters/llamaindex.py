"""LlamaIndex agent workflows: the events a ``FunctionAgent`` / ``ReActAgent`` / ``AgentWorkflow``
run streams (``handler.stream_events()``), saved one a line as the workflow's JSON serializer writes
them: ``{"qualified_name": "llama_index.core.agent.workflow.workflow_events.AgentOutput", "value":
{...}}``, or as a deployment's own logger dumps them: the class under ``type`` / ``event_type`` /
``event`` / ``__class__`` / ``class_name``, the fields (``ev.model_dump()``) beside it or under
``data`` / ``value`` (:func:`event_of`; a class so named is an agent event only with its fields).

A file of such events is one run, read by the event's class (the last name of ``qualified_name``):

- ``AgentInput`` holds the chat history the agent is called with (``ChatMessage``: ``role``,
  ``blocks`` or ``content``, ``additional_kwargs``); the first one opens the episode. A later one
  repeats that history grown by the turns and results the episode already holds from the events
  between, so of the messages past those an earlier input held it adds only the user's (a new
  question), and the input is counted as not read;
- ``AgentOutput`` is one model turn: its ``response`` message and the ``tool_calls`` it selected
  (``{"tool_id", "tool_name", "tool_kwargs"}``; calls the response message already carries are not
  repeated);
- ``ToolCallResult`` is a tool's answer (``tool_output.content``, ``is_error`` -> ``error``);
- ``StopEvent``'s ``result`` is the final answer (a string, or the last output's response);
- ``AgentStream`` (a token delta the ``AgentOutput`` after it repeats whole), ``ToolCall`` (the
  announcement of a call its ``AgentOutput`` holds), ``AgentSetup`` and start events are counted
  by class in ``extra_json.events_not_read``, as is any event of a workflow's own class.
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
    event_list_or_stream,
    expect,
    name_tool_results,
    object_field,
    optional_str,
)
from trajectory_platform.traces.adapters.content_parts import output_text
from trajectory_platform.traces.adapters.message_roles import FOLDED, spoken_role
from trajectory_platform.traces.adapters.openai import events_of_messages
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

PACKAGE = "llama_index."
CLASS_KEYS = ("event_type", "type", "event", "__class__", "class_name")
"""Where a run's own logger names an event's class when it dumps the event itself
(``{"type": type(ev).__name__, **ev.model_dump()}``, or its fields under ``data`` / ``value``)."""
AGENT_EVENTS = {
    "AgentInput": frozenset({"input", "current_agent_name"}),
    "AgentSetup": frozenset({"input", "current_agent_name"}),
    "AgentStream": frozenset({"delta", "current_agent_name"}),
    "AgentOutput": frozenset({"response", "current_agent_name"}),
    "ToolCall": frozenset({"tool_name", "tool_kwargs", "tool_id"}),
    "ToolCallResult": frozenset({"tool_output", "tool_id"}),
}
"""The agent workflow's event classes and the fields each holds: a class named by a logger's own key
is one of these only with its fields (another framework's ``ToolCall`` is not)."""
RUN_EVENTS = frozenset({"StartEvent", "AgentWorkflowStartEvent", "StopEvent"})
"""The workflow's start and stop events, read in a file another line shows to be an agent run."""


def event_of(value: Any) -> tuple[str, dict[str, Any]] | None:
    """A serialised workflow event as (its class, its fields): the workflow's JSON serializer's
    ``{"qualified_name": "llama_index....AgentOutput", "value": {...}}``, or a logger's dump naming the
    class under one of :data:`CLASS_KEYS`, its fields beside it or under ``data`` / ``value``; ``None``
    for anything else."""
    if not isinstance(value, dict):
        return None
    qualified = value.get("qualified_name")
    if isinstance(qualified, str) and qualified.startswith(PACKAGE) and isinstance(value.get("value"), dict):
        return qualified.rsplit(".", 1)[-1], value["value"]
    key = next((k for k in CLASS_KEYS if isinstance(value.get(k), str)), None)
    if key is None:
        return None
    kind = value[key].rsplit(".", 1)[-1]
    inner = next((value[k] for k in ("data", "value") if isinstance(value.get(k), dict)), None)
    fields = inner if inner is not None else {k: v for k, v in value.items() if k != key}
    if kind in RUN_EVENTS or (kind in AGENT_EVENTS and AGENT_EVENTS[kind] <= fields.keys()):
        return kind, fields
    return None


def is_event(value: Any) -> bool:
    """A serialised workflow event (:func:`event_of`)."""
    return event_of(value) is not None


def _is_agent_event(value: Any) -> bool:
    """An event only an agent workflow writes (what claims a file: a bare start or stop event names
    no agent run)."""
    event = event_of(value)
    return event is not None and (event[0] in AGENT_EVENTS or "qualified_name" in value)


class LlamaIndexAdapter(Adapter):
    """LlamaIndex agent workflow event streams."""

    name = "llamaindex"
    task_id_source = None

    def sniff(self, sample: Any, path: Any) -> bool:
        if isinstance(sample, list):
            return (
                bool(sample) and all(is_event(e) for e in sample) and any(_is_agent_event(e) for e in sample)
            )
        return _is_agent_event(sample)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        yield from event_list_or_stream(
            src, is_event, "a LlamaIndex workflow event ({qualified_name, value}, or its class and fields)"
        )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        events = expect(expect(record.value, dict, "record").get("events"), list, "events")
        episode = self.new_episode(record, src, adapter_episode_id(self.name, None, events))
        not_read: Counter[str] = Counter()
        history_read = 0
        for index, raw in enumerate(events):
            where = f"events[{index}].value"
            read = event_of(expect(raw, dict, f"events[{index}]"))
            if read is None:
                raise RecordError("wrong type", f"events[{index}] is not a LlamaIndex workflow event")
            kind, value = read
            if kind == "AgentInput":
                history = expect(value.get("input"), list, f"{where}.input")
                fresh = [FOLDED if i < history_read else m for i, m in enumerate(history)]
                if history_read:  # a repeat of the history: only a new question of the user's is new
                    fresh = [m if spoken_role(m) == "user" else FOLDED for m in fresh]
                    not_read[kind] += 1
                episode.events.extend(events_of_messages(fresh, f"{where}.input"))
                history_read = max(history_read, len(history))
            elif kind == "AgentOutput":
                episode.events.append(self._turn(value, where))
            elif kind == "ToolCallResult":
                output = object_field(value, "tool_output")
                episode.events.append(
                    Event(
                        kind="tool",
                        content=output_text(output.get("content"), f"{where}.tool_output.content"),
                        tool_call_id=optional_str(value.get("tool_id"), f"{where}.tool_id"),
                        tool_name=optional_str(value.get("tool_name"), f"{where}.tool_name"),
                        status="error" if output.get("is_error") else "ok",
                    )
                )
            elif kind == "StopEvent":
                result = value.get("result")
                answer = result if isinstance(result, str) else None
                if isinstance(result, dict):
                    answer = self._turn(result, f"{where}.result").content
                episode.outcome.final_answer = answer
                episode.outcome.terminal_status = "completed"
            else:
                not_read[kind] += 1
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        episode.extra_json = canonical_json({"events_not_read": dict(sorted(not_read.items()))})
        return episode

    @staticmethod
    def _turn(value: dict[str, Any], where: str) -> Event:
        """An ``AgentOutput``: its response message as a turn, with the tools it selected."""
        response = value.get("response")
        turn = (
            events_of_messages([response], f"{where}.response")[0]
            if isinstance(response, dict)
            else Event(kind="assistant", content=optional_str(response, f"{where}.response"))
        )
        made = {call.id for call in turn.tool_calls}
        for number, raw in enumerate(expect(value.get("tool_calls") or [], list, f"{where}.tool_calls")):
            selection = expect(raw, dict, f"{where}.tool_calls[{number}]")
            call_id = optional_str(selection.get("tool_id"), f"{where}.tool_calls[{number}].tool_id")
            if call_id is None or call_id not in made:
                name = optional_str(selection.get("tool_name"), f"{where}.tool_calls[{number}].tool_name")
                turn.tool_calls.append(ToolCall(call_id, name, arguments_text(selection.get("tool_kwargs"))))
        return turn
