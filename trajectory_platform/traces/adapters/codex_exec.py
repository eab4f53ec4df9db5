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
    one_record_per_file,
    optional_str,
)
from trajectory_platform.traces.adapters.openai_responses import ItemTurns
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


def _tool_run(item: dict[str, Any], where: str) -> tuple[str, Any, str | None, bool]:
    """A tool item as (call name, arguments, result text, failed); see the module docstring."""
    kind = item.get("type")
    failed = item.get("status") == "failed"
    if kind == "command_execution":
        output = optional_str(item.get("aggregated_output"), f"{where}.aggregated_output")
        return "shell", {"command": item.get("command")}, output, failed
    if kind == "file_change":
        changes = expect(item.get("changes") or [], list, f"{where}.changes")
        return (
            "apply_patch",
            {"changes": changes},
            optional_str(item.get("status"), f"{where}.status"),
            failed,
        )
    if kind == "mcp_tool_call":
        # a failed call has no result; its error (``{"message"}``) is what the model was told
        error = item.get("error")
        result = item.get("result")
        if result is None:
            result = error.get("message") if isinstance(error, dict) else error
        text = result if isinstance(result, str) or result is None else canonical_json(result)
        return (
            f"{item.get('server')}.{item.get('tool')}",
            item.get("arguments"),
            text,
            failed or item.get("error") is not None,
        )
    if kind == "web_search":
        return "web_search", {"query": item.get("query")}, None, failed
    raise RecordError("unknown item type", f"{where}.type is {named(kind)}")


def _add(turns: ItemTurns, item: dict[str, Any], where: str) -> None:
    """One completed item into the events: a model turn's reasoning, text and calls merge into one
    assistant event as a response writes them (:class:`ItemTurns`), each call's result a tool event."""
    if item.get("type") == "reasoning":
        turns.assistant("reasoning").reasoning = optional_str(item.get("text"), f"{where}.text")
        return
    if item.get("type") == "agent_message":
        turns.assistant("content").content = optional_str(item.get("text"), f"{where}.text")
        return
    name, arguments, result, failed = _tool_run(item, where)
    call_id = optional_str(item.get("id"), f"{where}.id")
    turns.assistant("tool_calls").tool_calls.append(ToolCall(call_id, name, arguments_text(arguments)))
    ran = Event(kind="tool", content=result, tool_call_id=call_id)
    exit_code = item.get("exit_code")
    ran.exit_code = exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None
    ran.status = "error" if failed or (ran.exit_code or 0) != 0 else None
    turns.events.append(ran)


class CodexExecAdapter(Adapter):
    """``codex exec --json`` output: one thread per file."""

    name = "codex-exec"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_event(record) and ("thread_id" in record or "item" in record or "usage" in record)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        return one_record_per_file(src, _is_event, "a codex exec event")

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        lines: list[RawRecord] = record.value["entries"]
        thread = next((e.value.get("thread_id") for e in lines if e.value["type"] == "thread.started"), None)
        episode = self.new_episode(
            record, src, adapter_episode_id(self.name, thread, [e.value for e in lines])
        )
        shown: Counter[str] = Counter()
        turns = ItemTurns()
        episode.events = turns.events
        for line in lines:
            event, where = line.value, f"line {line.line}"
            kind = event["type"]
            if kind == "item.completed":
                item = expect(event.get("item"), dict, f"{where}.item")
                if item.get("type") in SHOWN_ONLY:
                    shown[str(item["type"])] += 1
                else:
                    _add(turns, item, f"{where}.item")
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
