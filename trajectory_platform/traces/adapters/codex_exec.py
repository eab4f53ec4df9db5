"""What ``codex exec --json`` prints (and the Codex SDK streams): one JSON event per line,
``{"type": "thread.started" | "turn.started" | "item.completed" | "turn.completed" | ..., ...}``.

A record is one file, one thread (``thread.started``'s ``thread_id`` is the episode's id). Each
``item.completed`` item becomes events; ``item.started`` / ``item.updated`` repeat an item before it
completes and are counted only:

- ``reasoning`` (``text``) and ``agent_message`` (``text``): the model's turn, its reasoning and
  text in one assistant event, as a response writes them;
- ``command_execution``: a ``shell`` call (``{"command": ...}``) and its result, the
  ``aggregated_output``; its ``exit_code``, and ``failed`` status -> ``error``;
- ``file_change``: an ``apply_patch`` call naming each changed path and kind, its result the
  item's status;
- ``mcp_tool_call``: a call named ``<server>.<tool>`` with its ``arguments``, its ``result``;
- ``web_search``: a ``web_search`` call with its ``query``;
- ``todo_list`` and ``error`` items: what the interface showed, counted in ``extra_json``.

``turn.completed``'s ``usage`` gives the turn's last assistant event its tokens; ``turn.failed`` (or
an ``error`` event) ends the episode ``error``. The stream does not repeat the prompt, which
``codex exec`` takes as an argument: the task the run had is named by a ``task_ids.json`` beside
the logs, and its prompt is the environment's.
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
    expect,
    name_tool_results,
    object_field,
    optional_str,
)
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

EVENT_TYPES = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
        "error",
    }
)
SHOWN_ONLY = frozenset({"todo_list", "error"})
"""Items the interface showed that were never a model turn or a tool's result."""


def _is_event(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in EVENT_TYPES


def _call(name: str, arguments: Any, item: dict[str, Any], result: str | None, failed: bool) -> list[Event]:
    """A call the agent made (the turn's) and its result."""
    call_id = optional_str(item.get("id"), "item.id")
    ask = Event(
        kind="assistant", tool_calls=[ToolCall(id=call_id, name=name, arguments=arguments_text(arguments))]
    )
    answer = Event(kind="tool", content=result, tool_call_id=call_id, status="error" if failed else None)
    return [ask, answer]


def _events_of(item: dict[str, Any], where: str) -> list[Event]:
    """The events one completed item is (see the module docstring)."""
    kind = item.get("type")
    failed = item.get("status") == "failed"
    if kind == "reasoning":
        return [Event(kind="assistant", reasoning=optional_str(item.get("text"), f"{where}.text"))]
    if kind == "agent_message":
        return [Event(kind="assistant", content=optional_str(item.get("text"), f"{where}.text"))]
    if kind == "command_execution":
        output = optional_str(item.get("aggregated_output"), f"{where}.aggregated_output")
        events = _call("shell", {"command": item.get("command")}, item, output, failed)
        exit_code = item.get("exit_code")
        events[1].exit_code = (
            exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None
        )
        events[1].status = "error" if failed or (events[1].exit_code or 0) != 0 else None
        return events
    if kind == "file_change":
        changes = expect(item.get("changes") or [], list, f"{where}.changes")
        return _call(
            "apply_patch",
            {"changes": changes},
            item,
            optional_str(item.get("status"), f"{where}.status"),
            failed,
        )
    if kind == "mcp_tool_call":
        name = f"{item.get('server')}.{item.get('tool')}"
        result = item.get("result")
        text = result if isinstance(result, str) or result is None else canonical_json(result)
        return _call(name, item.get("arguments"), item, text, failed or item.get("error") is not None)
    if kind == "web_search":
        return _call("web_search", {"query": item.get("query")}, item, None, failed)
    raise RecordError("unknown item type", f"{where}.type is {named(kind)}")


def _merged(events: list[Event], new: list[Event]) -> None:
    """Append ``new``, merging a model turn's reasoning, text and calls into one assistant event as a
    response writes them (reasoning, then text, then calls; anything out of that order starts a turn)."""
    for event in new:
        last = events[-1] if events else None
        fits = (
            last is not None
            and last.kind == event.kind == "assistant"
            and not last.tool_calls
            and (event.reasoning is None or (last.reasoning is None and last.content is None))
            and (event.content is None or last.content is None)
        )
        if fits and last is not None:
            last.reasoning = last.reasoning or event.reasoning
            last.content = last.content or event.content
            last.tool_calls = event.tool_calls
        else:
            events.append(event)


class CodexExecAdapter(Adapter):
    """``codex exec --json`` output: one thread per file."""

    name = "codex-exec"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_event(record) and ("thread_id" in record or "item" in record or "usage" in record)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        lines = [RawRecord(1, None, value=src.document[0])] if src.is_document else list(src.lines())
        events = []
        for record in lines:
            if record.error is not None:
                yield record
            elif _is_event(record.value):
                events.append(record)
            else:
                yield RawRecord(record.line, None, error=RecordError("wrong type", "not a codex exec event"))
        if events:
            yield RawRecord(events[0].line, "$", value={"events": events})

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        lines: list[RawRecord] = record.value["events"]
        thread = next((e.value.get("thread_id") for e in lines if e.value["type"] == "thread.started"), None)
        episode = self.new_episode(
            record, src, adapter_episode_id(self.name, thread, [e.value for e in lines])
        )
        shown: Counter[str] = Counter()
        for line in lines:
            event, where = line.value, f"line {line.line}"
            kind = event["type"]
            if kind == "item.completed":
                item = expect(event.get("item"), dict, f"{where}.item")
                if item.get("type") in SHOWN_ONLY:
                    shown[str(item["type"])] += 1
                else:
                    _merged(episode.events, _events_of(item, f"{where}.item"))
            elif kind == "turn.completed":
                usage = object_field(event, "usage")
                turn = next((e for e in reversed(episode.events) if e.kind == "assistant"), None)
                if turn is not None:
                    turn.input_tokens, turn.output_tokens = (
                        usage.get("input_tokens"),
                        usage.get("output_tokens"),
                    )
            elif kind in ("turn.failed", "error"):
                episode.outcome.terminal_status = "error"
                shown[kind] += 1
            elif kind != "thread.started":
                shown[kind] += 1
        if not any(e.kind == "assistant" for e in episode.events):
            raise RecordError("no model turn", "the thread holds no completed item the model wrote")
        name_tool_results(episode.events)
        last = episode.events[-1]
        if last.kind == "assistant" and not last.tool_calls and last.content:
            episode.outcome.final_answer = last.content
            episode.outcome.terminal_status = episode.outcome.terminal_status or "completed"
        episode.extra_json = (
            canonical_json({"skipped_events": dict(sorted(shown.items()))}) if shown else None
        )
        return episode
