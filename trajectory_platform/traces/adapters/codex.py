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

A command's output holds its exit code only as the text Codex wrote for the model (the structured
``{"output", "metadata": {"exit_code"}}`` or a freeform ``Exit code: N`` header): it is read from
there (:func:`exit_code_of`), non-zero making the result an ``error``.

An item type the Responses reader does not know rejects the session with its line and type. The
format records no task id: a ``task_ids.json`` beside the sessions names it.

Codex wrote an older layout until mid-2025, the same session unwrapped: a first line holding the
session's ``id``, ``timestamp``, ``instructions`` and ``git``, then each Responses item bare on its
line, with ``{"record_type": "state"}`` snapshot lines between them. Each such line is read as the
entry the current layout writes for it (:func:`_legacy_entry`), so both layouts give the same
episode; the state snapshots are counted in ``extra_json`` (``skipped_entries``), never events.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
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
    timestamp_of,
)
from trajectory_platform.traces.adapters.openai_responses import ITEM_TYPES, ItemTurns
from trajectory_platform.traces.record import Episode, Event, canonical_json

ENTRY_TYPES = frozenset({"session_meta", "response_item", "turn_context", "event_msg", "compacted"})
NOT_MODEL_INPUT = frozenset({"ghost_snapshot"})
"""``response_item`` payloads that record the session, not what the model saw."""
CODEX_CONTEXT = ("<environment_context>", "<user_instructions>")
"""The openings of the user messages Codex writes itself."""
META_FIELDS = ("cwd", "cli_version", "originator", "source")


EXIT_CODE_LINES = (re.compile(r"Exit code: (-?\d+)"), re.compile(r"Process exited with code (-?\d+)"))
"""The header lines of a command's output as Codex writes it for the model that state its exit code
(``shell``'s freeform output; ``exec_command``'s)."""
HEADER_LINES = re.compile(
    r"Wall time: [0-9.]+ seconds|Total output lines: \d+|Chunk ID: \S+|Original token count: \d+"
    r"|Process running with session ID \S+|Process terminated without exit code"
)
"""Codex's other header lines: any line before ``Output:`` outside these and the exit code's makes
the text a tool's own output, not Codex's header (it is then read for no exit code)."""
OUTPUT_LINE = "Output:"


def exit_code_of(output: str | None) -> int | None:
    """The exit code Codex wrote into a command's output for the model (the rollout keeps only that
    text): the structured form's ``{"output", "metadata": {"exit_code"}}``, or the freeform header
    (``Exit code: 1`` / ``Process exited with code 1``, then ``Wall time: ...``, ``Output:``). Read
    only from a whole header: every line before ``Output:`` one Codex writes, so a command that
    prints "Exit code: 1" itself is not taken for its own exit code. ``None`` when none is stated."""
    if not output:
        return None
    if output.startswith("{"):
        try:
            value = json.loads(output)
        except ValueError:
            return None
        metadata = value.get("metadata") if isinstance(value, dict) else None
        code = metadata.get("exit_code") if isinstance(metadata, dict) and "output" in value else None
        return code if isinstance(code, int) and not isinstance(code, bool) else None
    header = _header(output)
    if header is None:
        return None
    codes = [int(m.group(1)) for line in header for p in EXIT_CODE_LINES if (m := p.fullmatch(line))]
    return codes[0] if len(codes) == 1 else None


def _header(output: str) -> list[str] | None:
    """The header lines Codex wrote before a command's ``Output:``, when every one is Codex's own
    (:data:`EXIT_CODE_LINES`, :data:`HEADER_LINES`); ``None`` for any other text."""
    header, found, _ = output.partition(f"\n{OUTPUT_LINE}")
    if not found and not output.startswith(OUTPUT_LINE):
        return None
    lines = header.splitlines() if found else []
    ok = all(
        HEADER_LINES.fullmatch(line) or any(p.fullmatch(line) for p in EXIT_CODE_LINES) for line in lines
    )
    return lines if ok else None


RUNNING = re.compile(r"Process running with session ID (\S+)")
"""The header line of a command still running when its call returned: the session later
``write_stdin`` calls feed and poll (unified exec)."""
EXEC_TOOL = "exec_command"
STDIN_TOOL = "write_stdin"


def _session_of(output: str | None) -> str | None:
    """The session id a command's output says it still runs in (read from Codex's header only)."""
    header = _header(output) if output else None
    return next((m.group(1) for line in header or [] if (m := RUNNING.fullmatch(line))), None)


@dataclass
class CommandSession:
    """One command's run across calls: the ``exec_command`` that started it, the ``write_stdin``
    calls that fed or polled it, its exit code (``None`` while the log shows it running)."""

    session_id: str
    command: str
    writes: list[str] = field(default_factory=list)
    exit_code: int | None = None


def _link_command_sessions(events: list[Event]) -> list[CommandSession]:
    """Each ``exec_command`` whose command outlived its call (:data:`RUNNING`) and the
    ``write_stdin`` calls that fed or polled its session (by their ``session_id``, in order, until an
    answer says the process exited): one command's run, which replay and verification read as one
    (``extra_json.command_sessions``). The exit is the command's: its code and status go on the
    ``exec_command``'s result, and the write that saw it succeeded (its status ``ok``, no exit code
    of its own). A write to a session the log never started (a resumed session's) is left as read."""
    calls = {c.id: c for e in events for c in e.tool_calls if c.id}
    command_results: dict[str, Event] = {}
    running: dict[str, CommandSession] = {}
    sessions: list[CommandSession] = []
    for event in events:
        call = calls.get(event.tool_call_id or "") if event.kind == "tool" else None
        if call is None or call.id is None:
            continue
        if call.name == EXEC_TOOL and (session_id := _session_of(event.content)) is not None:
            running[session_id] = CommandSession(session_id, call.id)
            sessions.append(running[session_id])
            command_results[call.id] = event
        elif call.name == STDIN_TOOL and (session := running.get(_fed_session(call.arguments))) is not None:
            session.writes.append(call.id)
            if event.exit_code is None:
                continue
            session.exit_code = event.exit_code
            command = command_results[session.command]
            command.exit_code, command.status = event.exit_code, event.status
            event.exit_code, event.status = None, "ok"
            del running[session.session_id]
    return sorted(sessions, key=lambda s: s.command)


def _fed_session(arguments: str | None) -> str:
    """The ``session_id`` a ``write_stdin`` call names, as text (Codex writes a number)."""
    try:
        value = json.loads(arguments or "")
    except ValueError:
        return ""
    session_id = value.get("session_id") if isinstance(value, dict) else None
    return str(session_id) if isinstance(session_id, int | str) and not isinstance(session_id, bool) else ""


def _take_exit_codes(events: list[Event]) -> None:
    """Each command result's exit code from its text (:func:`exit_code_of`), non-zero an ``error``."""
    for event in events:
        if event.kind == "tool" and event.exit_code is None:
            event.exit_code = exit_code_of(event.content)
            if event.exit_code is not None and event.status is None:
                event.status = "ok" if event.exit_code == 0 else "error"


LEGACY_META_KEYS = frozenset({"id", "timestamp", "instructions", "git"})
"""The fields of the first line of a rollout in the older layout (the session's meta, unwrapped)."""
LEGACY_STATE = "state"


def _is_entry(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") in ENTRY_TYPES
        and isinstance(value.get("payload"), dict)
    )


def _is_legacy_meta(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and "timestamp" in value
        and "instructions" in value
        and value.keys() <= LEGACY_META_KEYS
    )


def _legacy_entry(value: Any) -> dict[str, Any] | None:
    """A line of the older rollout layout as the entry the current one writes for it: the meta line
    as ``session_meta``, a bare Responses item as ``response_item``, a state snapshot as an entry
    counted, not read; None for anything else."""
    if _is_legacy_meta(value):
        return {"type": "session_meta", "timestamp": value.get("timestamp"), "payload": value}
    if not isinstance(value, dict) or "payload" in value:
        return None
    if value.get("record_type") == LEGACY_STATE:
        return {"type": LEGACY_STATE, "payload": {"type": LEGACY_STATE}}
    if isinstance(value.get("type"), str) and value["type"] in ITEM_TYPES:
        return {"type": "response_item", "payload": value}
    return None


def _as_entry(value: Any) -> dict[str, Any] | None:
    """A rollout line as an entry of the current layout (itself when it is one), else None."""
    return value if _is_entry(value) else _legacy_entry(value)


class CodexAdapter(Adapter):
    """``~/.codex/sessions/**/rollout-*.jsonl``: one session per file."""

    name = "codex"

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _is_entry(record) or _is_legacy_meta(record)

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        return one_record_per_file(
            src, lambda value: _as_entry(value) is not None, "a Codex entry ({timestamp, type, payload})"
        )

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        entries = [RawRecord(e.line, e.json_path, value=_as_entry(e.value)) for e in record.value["entries"]]
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
                stamp = timestamp_of(entry.value.get("timestamp"), f"line {entry.line}.timestamp")
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
        _take_exit_codes(episode.events)
        sessions = _link_command_sessions(episode.events)
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
        if sessions:
            extra["command_sessions"] = [asdict(session) for session in sessions]
        episode.extra_json = canonical_json(extra) if extra else None
        if not any(e.kind == "assistant" for e in episode.events):
            raise RecordError("no model turn", "the session holds no response item the model wrote")
        return episode
