"""ToolBench DFSDT answer files: ``{"answer_generation": {...}, "tree": {...}, ...}``.

- With ``train_messages`` (a valid run): the record is the file; ``train_messages[i]`` is exactly
  what model call ``i`` saw plus its reply, so the events are the last (longest) list and each call
  gets a delivered-input manifest (a prefix of the events, or verbatim when it differs).
- Without (``valid_data: false``): the file is a search tree of several attempts and each
  root-to-leaf path is one record (JSON path ``tree.tree.children[i]...``): a linear attempt whose
  Thought / Action / Action Input nodes become assistant turns and observations.

Calls use the legacy ``function_call`` format (no call ids). An observation is an error when its
JSON ``error`` field is non-empty, refused when that error says the tool does not exist.
``Finish`` with ``give_answer`` completes the episode; ``give_up_and_restart`` abandons it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    delivered_input,
    expect,
    frame_json,
)
from trajectory_platform.traces.adapters.openai import events_of_messages, tool_specs_of
from trajectory_platform.traces.record import DeliveredInput, Episode, Event, ToolCall, canonical_json

UNDECLARED = "No such function name"
"""The ToolBench runtime's answer to a call of a tool that was not delivered: refused, not run."""
FINISH_STATUS = {"give_answer": "completed", "give_up": "abandoned", "give_up_and_restart": "abandoned"}


def _mark_observations(events: list[Event]) -> None:
    for event in events:
        if event.kind != "tool":
            continue
        try:
            payload = json.loads(event.content or "")
        except json.JSONDecodeError:
            payload = None
        error = payload.get("error") if isinstance(payload, dict) else None
        if not error:
            event.status = "ok"
        else:
            event.status = "refused" if str(error).startswith(UNDECLARED) else "error"


def _leaf_paths(node: dict[str, Any], where: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    children = node.get("children") or []
    if not children:
        yield where, [node]
        return
    for index, child in enumerate(children):
        for path, nodes in _leaf_paths(child, f"{where}.children[{index}]"):
            yield path, [node, *nodes]


def _events_of_path(nodes: list[dict[str, Any]]) -> list[Event]:
    """Thought -> assistant content, Action -> call name, Action Input -> arguments + observation."""
    events: list[Event] = []
    for node in nodes:
        kind, text = node.get("node_type"), node.get("description")
        if kind == "Thought":
            events.append(Event(kind="assistant", content=text))
        elif kind == "Action":
            if not events or events[-1].kind != "assistant" or events[-1].tool_calls:
                events.append(Event(kind="assistant"))
            events[-1].tool_calls.append(ToolCall(id=None, name=text, arguments=None))
        elif kind == "Action Input" and events and events[-1].tool_calls:
            call = events[-1].tool_calls[-1]
            call.arguments = text
            if node.get("observation") is not None:
                events.append(Event(kind="tool", content=str(node["observation"]), tool_name=call.name))
    return events


class ToolBenchAdapter(Adapter):
    """DFSDT answer trees (ChatGPT function calling)."""

    name = "toolbench"

    def sniff(self, sample: Any, path: Path) -> bool:
        return isinstance(sample, dict) and isinstance(sample.get("answer_generation"), dict)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        doc, error = src.document
        generation = doc.get("answer_generation") if error is None and isinstance(doc, dict) else None
        if not isinstance(generation, dict) or generation.get("train_messages"):
            yield from frame_json(src, split_document=False)
            return
        tree = (doc.get("tree") or {}).get("tree") if isinstance(doc.get("tree"), dict) else None
        if not isinstance(tree, dict):
            yield RawRecord(
                None, "$", error=RecordError("missing field", "no train_messages and no search tree")
            )
            return
        for leaf, (path, nodes) in enumerate(_leaf_paths(tree, "tree.tree")):
            value = {"answer_generation": generation, "path_nodes": nodes, "leaf": leaf}
            yield RawRecord(None, path, value=value)

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        generation = expect(value.get("answer_generation"), dict, "answer_generation")
        group = src.path.parent.name
        own_id = f"{group}/{src.path.name.removesuffix('.json')}"
        if "leaf" in value:
            own_id += f"@leaf-{value['leaf']}"
        episode = self.new_episode(record, src, f"{self.name}:{own_id}")
        episode.tools = tool_specs_of(generation.get("function") or [], "answer_generation.function")
        episode.task.prompt = generation.get("query")
        episode.task.tool_family = "toolbench-rapidapi"
        episode.task.license = "Apache-2.0"
        if "path_nodes" in value:
            episode.events = [
                Event(kind="user", content=generation.get("query")),
                *_events_of_path(value["path_nodes"]),
            ]
            finish = _finish_of(episode.events)
            episode.outcome.terminal_status = FINISH_STATUS.get(finish or "")
        else:
            calls = expect(generation.get("train_messages"), list, "answer_generation.train_messages")
            episode.events = events_of_messages(
                calls[-1], f"answer_generation.train_messages[{len(calls) - 1}]"
            )
            episode.delivered_inputs = _delivered(episode.events, calls)
            episode.outcome.terminal_status = FINISH_STATUS.get(str(generation.get("finish_type")))
            episode.outcome.final_answer = _final_answer(generation.get("final_answer"))
        _mark_observations(episode.events)
        extra = {k: generation.get(k) for k in ("valid_data", "query_count", "total_tokens", "finish_type")}
        extra["win"] = value.get("win")
        episode.extra_json = canonical_json(extra)
        return episode


def _finish_of(events: list[Event]) -> str | None:
    for event in reversed(events):
        for call in event.tool_calls:
            if call.name == "Finish":
                try:
                    return json.loads(call.arguments or "").get("return_type")
                except (json.JSONDecodeError, AttributeError):
                    return None
    return None


def _final_answer(raw: Any) -> str | None:
    """``final_answer`` is the Finish call's JSON arguments; keep its answer text when it parses."""
    if not isinstance(raw, str) or not raw:
        return None
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    return parsed.get("final_answer", raw) if isinstance(parsed, dict) else raw


def _delivered(events: list[Event], calls: list[Any]) -> list[DeliveredInput]:
    """``train_messages[i]`` = what call ``i`` saw, then its reply."""
    manifests = []
    for index, messages in enumerate(calls):
        seen = events_of_messages(messages, f"answer_generation.train_messages[{index}]")
        response = len(seen) - 1 if seen[-1:] == events[len(seen) - 1 : len(seen)] else None
        manifests.append(delivered_input(index, seen[:-1], events, response))
    return manifests
