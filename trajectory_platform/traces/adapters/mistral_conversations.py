"""Mistral's Agents and Conversations API: a conversation's entries, as the API lists them
(``GET /v1/conversations/{id}/history``: ``{"object": "conversation.history", "conversation_id",
"entries"}``; ``/messages`` and a run's response, ``{"outputs"}``, hold the same entries).

Each entry names its ``type``: ``message.input`` (a user's message, or a prefix the caller gave the
assistant), ``message.output`` (what the model said: text, or chunks: ``text``, ``thinking`` ->
reasoning, a ``tool_reference`` citing a built-in tool's source -> a marker, the reference kept
in ``extra_json.references``),
``function.call`` (a call of a function the caller runs: ``tool_call_id``, ``name``, ``arguments``),
``function.result`` (its answer), ``tool.execution`` (a built-in tool the API ran itself: web search,
code interpreter; its call and what it returned, ``info``) and ``agent.handoff`` (one agent passing
the conversation to another, counted in ``extra_json.handoffs``). The outputs of one model response
(a message and the calls after it, with nothing between) are one assistant turn; an output after a
built-in tool's result was written after the model saw it, so it opens the next turn (as every
reader reads a provider-run tool's result inside a turn). The model is the
first ``model`` an output names; the episode's id the ``conversation_id``. An entry of another type rejects
the record with its index.
"""

from __future__ import annotations

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
    optional_str,
    timestamp_of,
)
from trajectory_platform.traces.adapters.content_parts import AssistantParts, piece_of
from trajectory_platform.traces.adapters.openai import events_of_message
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, ToolCall, canonical_json

ENTRY_TYPES = frozenset(
    {"message.input", "message.output", "function.call", "function.result", "tool.execution", "agent.handoff"}
)
REFERENCE_MARKER = "[tool_reference]"
"""What a ``tool_reference`` chunk is in the turn's text: a marker, as a media part is (the model cited
a built-in tool's source there; the reference itself is data, kept in ``extra_json.references``,
never trained on as text the model wrote)."""
LIST_KEYS = ("entries", "outputs", "messages")
"""Where the API's listings keep the entries (history, a run's response, the messages alone)."""


def _entries(value: Any) -> list[Any] | None:
    if not isinstance(value, dict):
        return None
    for key in LIST_KEYS:
        entries = value.get(key)
        if (
            isinstance(entries, list)
            and any(isinstance(e, dict) and e.get("type") in ENTRY_TYPES for e in entries)
            and all(isinstance(e, dict) and "." in str(e.get("type")) for e in entries)
        ):
            return entries  # an entry of a type not read here is a reject naming it, not a stranger
    return None


class MistralConversationsAdapter(Adapter):
    """Mistral Conversations API entries."""

    name = "mistral-conversations"
    task_id_source = None

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _entries(record) is not None

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        entries = _entries(value)
        if entries is None:
            raise RecordError("missing field", "record holds no list of conversation entries")
        key = next(k for k in LIST_KEYS if value.get(k) is entries)
        episode = self.new_episode(
            record, src, adapter_episode_id(self.name, value.get("conversation_id"), value)
        )
        turn: AssistantParts | None = None
        handoffs = 0
        references: list[Any] = []
        for index, entry in enumerate(entries):
            where = f"{key}[{index}]"
            kind = entry["type"]
            stamp = timestamp_of(entry.get("created_at"), f"{where}.created_at")
            if kind in ("message.output", "function.call", "tool.execution"):
                if turn is not None and turn.results and kind != "tool.execution":
                    episode.events.extend(turn.events())  # the model goes on after a built-in tool's result
                    turn = None
                if turn is None:
                    turn = AssistantParts(Event(kind="assistant", timestamp=stamp))
                model = optional_str(entry.get("model"), f"{where}.model")
                episode.lineage.model = episode.lineage.model or model
                self._output(entry, kind, where, turn, references)
                continue
            if turn is not None:
                episode.events.extend(turn.events())
                turn = None
            if kind == "message.input":
                read = events_of_message(
                    {"role": entry.get("role", "user"), "content": entry.get("content")}, where
                )
                for event in read:
                    event.timestamp = stamp
                episode.events.extend(read)
            elif kind == "function.result":
                episode.events.append(
                    Event(
                        kind="tool",
                        content=optional_str(entry.get("result"), f"{where}.result"),
                        tool_call_id=optional_str(entry.get("tool_call_id"), f"{where}.tool_call_id"),
                        timestamp=stamp,
                    )
                )
            elif kind == "agent.handoff":
                handoffs += 1
            else:
                raise RecordError("unknown entry", f"{where}.type is {named(kind)}")
        if turn is not None:
            episode.events.extend(turn.events())
        name_tool_results(episode.events)
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        rest = {k: v for k, v in value.items() if k not in (key, "conversation_id")}
        episode.extra_json = canonical_json(
            {**rest, "handoffs": handoffs, **({"references": references} if references else {})}
        )
        return episode

    @staticmethod
    def _output(
        entry: dict[str, Any], kind: str, where: str, turn: AssistantParts, references: list[Any]
    ) -> None:
        """Add one output entry to the assistant turn it belongs to."""
        if kind == "message.output":
            content = entry.get("content")
            chunks = content if isinstance(content, list) else [content] if content is not None else []
            for number, chunk in enumerate(chunks):
                at = f"{where}.content[{number}]"
                if isinstance(chunk, dict) and chunk.get("type") == "tool_reference":
                    turn.take([("text", REFERENCE_MARKER)])
                    references.append(chunk)
                else:
                    turn.take(piece_of(chunk, at))
            return
        call = ToolCall(
            id=optional_str(entry.get("tool_call_id", entry.get("id")), f"{where}.tool_call_id"),
            name=optional_str(entry.get("name"), f"{where}.name"),
            arguments=arguments_text(entry.get("arguments")),
        )
        turn.take([("call", call)])
        if kind == "tool.execution":
            info = entry.get("info")
            turn.results.append(
                Event(
                    kind="tool",
                    content=None if info is None else canonical_json(info),
                    tool_call_id=call.id,
                    tool_name=call.name,
                )
            )
