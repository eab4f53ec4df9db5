"""OpenAI Codex CLI sessions: the rollout files Codex writes under ``~/.codex/sessions/`` (also
what ``codex exec`` leaves), one JSON line per entry ``{"timestamp", "type", "payload"}``.

A record is one file, one session. The entries:

- ``session_meta`` (first): the session's ``id`` (the episode's), ``cwd``, ``cli_version``,
  ``originator``, and ``instructions`` when the session had some (a system event);
- ``response_item``: what the model saw and wrote, a Responses API item (a message, reasoning, a
  function, custom-tool or local-shell call and its output, ...), read as the ``openai-responses``
  format reads items: in recorded order, one assistant event per model turn. The user messages
  Codex adds itself (``<environment_context>``, ``<user_instructions>``) were in the model's input
  and stay user events; the task prompt is the first user message that is not one of them;
- ``turn_context``: the turn's ``model`` (the episode's is the first) and reasoning ``effort``;
- ``compacted``: the history was summarized; a compaction event with the summary, replacing the
  events before it;
- ``event_msg``: what the interface showed (echoes of the items, token counts): counted in
  ``extra_json``, never events. So are ``ghost_snapshot`` items (Codex's undo snapshots, never
  model input).

An item type the Responses reader does not know rejects the session with its line and type. The
format records no task id: a ``task_ids.json`` beside the sessions names it.
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
    name_tool_results,
    object_field,
    one_record_per_file,
    optional_str,
    sampling_params_json,
)
from trajectory_platform.traces.adapters.openai_responses import ItemTurns
from trajectory_platform.traces.record import Episode, Event, canonical_json

ENTRY_TYPES = frozenset({"session_meta", "response_item", "turn_context", "event_msg", "compacted"})
NOT_MODEL_INPUT = frozenset({"ghost_snapshot"})
"""``response_item`` payloads that record the session, not what the model saw."""
CODEX_CONTEXT = ("<environment_context>", "<user_instructions>")
"""The openings of the user messages Codex writes itself."""
META_FIELDS = ("cwd", "cli_version", "originator", "source")


def _is_entry(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") in ENTRY_TYPES
        and isinstance(value.get("payload"), dict)
    )


class CodexAdapter(Adapter):
    """``~/.codex/sessions/**/rollout-*.jsonl``: one session per file."""

    name = "codex"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_entry(record)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        return one_record_per_file(src, _is_entry, "a Codex entry ({timestamp, type, payload})")

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        entries: list[RawRecord] = record.value["entries"]
        meta: dict[str, Any] = next(
            (e.value["payload"] for e in entries if e.value["type"] == "session_meta"), {}
        )
        own_id = adapter_episode_id(self.name, meta.get("id"), [e.value for e in entries])
        episode = self.new_episode(record, src, own_id)
        turns = ItemTurns()
        if meta.get("instructions") is not None:
            turns.events.append(
                Event(kind="system", content=optional_str(meta["instructions"], "instructions"))
            )
        skipped: Counter[str] = Counter()
        for entry in entries:
            kind, payload, where = entry.value["type"], entry.value["payload"], f"line {entry.line}.payload"
            if kind == "response_item" and payload.get("type") not in NOT_MODEL_INPUT:
                before = len(turns.events)
                turns.add(payload, where)
                stamp = optional_str(entry.value.get("timestamp"), f"line {entry.line}.timestamp")
                for event in turns.events[before:]:
                    event.timestamp = stamp
            elif kind == "turn_context":
                episode.lineage.model = episode.lineage.model or optional_str(payload.get("model"), where)
                if payload.get("effort") is not None and episode.lineage.sampling_params_json is None:
                    episode.lineage.sampling_params_json = sampling_params_json({"effort": payload["effort"]})
            elif kind == "compacted":
                summary = optional_str(payload.get("message"), f"{where}.message")
                through = len(turns.events) - 1 if turns.events else None
                turns.events.append(Event(kind="compaction", content=summary, replaces_through=through))
            elif kind != "session_meta":
                skipped[
                    f"{kind}:{payload.get('type')}" if kind == "event_msg" else str(payload.get("type"))
                ] += 1
        episode.events = turns.events
        name_tool_results(episode.events)
        episode.task.prompt = next(
            (
                e.content
                for e in episode.events
                if e.kind == "user" and e.content and not e.content.lstrip().startswith(CODEX_CONTEXT)
            ),
            None,
        )
        extra: dict[str, Any] = {k: meta[k] for k in META_FIELDS if k in meta}
        git = object_field(meta, "git")
        if git:
            extra["git"] = git
        if skipped:
            extra["skipped_entries"] = dict(sorted(skipped.items()))
        episode.extra_json = canonical_json(extra) if extra else None
        if not any(e.kind == "assistant" for e in episode.events):
            raise RecordError("no model turn", "the session holds no response item the model wrote")
        return episode
