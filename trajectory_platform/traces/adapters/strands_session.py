"""Strands Agents sessions as its ``FileSessionManager`` stores them: a folder tree, one message a
file.

::

    session_<session id>/session.json                       the session (id, type, times)
    session_<session id>/agents/agent_<agent id>/agent.json  an agent (id, state)
        .../agent_<agent id>/messages/message_<n>.json       one message: {"message", "message_id",
                                                              "redact_message", "created_at"}

A record is one agent's conversation, read from its ``agent.json``: the messages under its
``messages`` folder in the order of their index ``n`` (the number in the file name, as Strands lists
them: ``message_10`` after ``message_9``, never a file-name sort), each a Bedrock Converse message
(``text``, ``toolUse``, ``toolResult``, ``reasoningContent`` blocks) read as every message's content
parts are (``content_parts.py``), its ``created_at`` the events' time. Where a guardrail redacted a
message, ``redact_message`` is what the agent went on with (what Strands restores): that is read, and
counted in ``extra_json.redacted_messages``. The session's id and type are the ``session.json``
beside the agents, the agent's state is kept in ``extra_json``.

The message files and ``session.json`` are read with the agent, not as records of their own: ingest
counts each as read with the ``agent.json`` (``RawRecord.read_with``) while the same run reads it; a
message given without its agent's ``agent.json`` is a ``companion not ingested`` reject naming that
file. A message file that cannot be read, or an index missing from the sequence (a message lost),
rejects the agent's record naming the file and why: the conversation is not whole
(``numbered_files.py``, shared with OpenHands' file store).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    expect,
    name_tool_results,
    optional_str,
    timestamp_of,
)
from trajectory_platform.traces.adapters.numbered_files import companion_record, read_numbered
from trajectory_platform.traces.adapters.openai import events_of_messages
from trajectory_platform.traces.record import Episode, canonical_json

AGENT_FILE, SESSION_FILE, MESSAGES, AGENTS = "agent.json", "session.json", "messages", "agents"
AGENT_PREFIX, SESSION_PREFIX = "agent_", "session_"
MESSAGE_FILE = re.compile(r"message_(\d+)\.json")


def _is_agent_file(sample: Any, path: Path) -> bool:
    return (
        path.name == AGENT_FILE
        and path.parent.name.startswith(AGENT_PREFIX)
        and path.parent.parent.name == AGENTS
        and isinstance(sample, dict)
        and "agent_id" in sample
    )


def _agent_of_message(sample: Any, path: Path) -> Path | None:
    """The ``agent.json`` a message file belongs to, or ``None`` for any other file."""
    if (
        MESSAGE_FILE.fullmatch(path.name)
        and path.parent.name == MESSAGES
        and isinstance(sample, dict)
        and isinstance(sample.get("message"), dict)
        and "message_id" in sample
    ):
        return path.parent.parent / AGENT_FILE
    return None


def _agents_of_session(sample: Any, path: Path) -> list[Path] | None:
    """The ``agent.json`` files of a session file's agents (sorted), or ``None`` for any other file."""
    if not (
        path.name == SESSION_FILE
        and path.parent.name.startswith(SESSION_PREFIX)
        and isinstance(sample, dict)
        and "session_id" in sample
        and (path.parent / AGENTS).is_dir()
    ):
        return None
    return sorted(path.parent.glob(f"{AGENTS}/{AGENT_PREFIX}*/{AGENT_FILE}"))


class StrandsSessionAdapter(Adapter):
    """A Strands Agents ``FileSessionManager`` session folder, an agent's conversation a record."""

    name = "strands-session"
    task_id_source = None

    def sniff(self, sample: Any, path: Path) -> bool:
        return (
            _is_agent_file(sample, path)
            or _agent_of_message(sample, path) is not None
            or bool(_agents_of_session(sample, path))
        )

    def frame(self, src: SourceFile) -> Iterator[RawRecord]:
        """An ``agent.json`` is the agent's record (its messages read from its folder); a message
        file or ``session.json`` none while the run reads the agent it belongs to, else one reject
        saying so."""
        path = Path(src.path)
        document, error = src.document
        if error is not None:
            yield RawRecord(None, "$", error=error, excerpt=src.fingerprint())
            return
        if _is_agent_file(document, path):
            try:
                conversation = _conversation(path)
            except RecordError as exc:
                yield RawRecord(None, "$", error=exc, excerpt=src.fingerprint())
                return
            yield RawRecord(None, "$", value={"agent": document, **conversation})
            return
        agent = _agent_of_message(document, path)
        owners = [agent] if agent is not None else _agents_of_session(document, path) or []
        owner = next((o for o in owners if src.in_run(o)), owners[0] if owners else path)
        yield companion_record(src, owner, _display(src, owner))

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        agent = expect(value.get("agent"), dict, "agent.json")
        folder = Path(src.path).parent
        session = value.get("session") if isinstance(value.get("session"), dict) else {}
        session_id = optional_str(session.get("session_id"), "session.json session_id")
        agent_id = optional_str(agent.get("agent_id"), "agent.json agent_id")
        own_id = f"{session_id or folder.parent.parent.name}/{agent_id or folder.name}"
        episode = self.new_episode(record, src, adapter_episode_id(self.name, own_id, value))
        redacted = 0
        for index, stored in value["messages"]:
            where = f"{MESSAGES}/message_{index}.json"
            entry = expect(stored, dict, where)
            shown = entry.get("redact_message")
            redacted += shown is not None
            message = shown if shown is not None else entry.get("message")
            events = events_of_messages([expect(message, dict, f"{where} message")], where)
            stamp = timestamp_of(entry.get("created_at"), f"{where} created_at")
            for event in events:
                event.timestamp = stamp
            episode.events.extend(events)
        name_tool_results(episode.events)
        episode.task.prompt = next(
            (e.content for e in episode.events if e.kind == "user" and e.content), None
        )
        extra: dict[str, Any] = {"session_id": session_id, "agent_id": agent_id}
        extra |= {"session_type": session["session_type"]} if "session_type" in session else {}
        extra |= {"agent_state": agent["state"]} if agent.get("state") else {}
        extra |= {"redacted_messages": redacted} if redacted else {}
        episode.extra_json = canonical_json(extra)
        return episode


def _display(src: SourceFile, owner: Path) -> str:
    """How ``owner`` (an ``agent.json`` above ``src``'s folder or below it) is named where ``src``'s
    name is shown: the session folder's display, then the owner's path inside it."""
    session_folder = owner.parent.parent.parent
    inside = Path(src.path).relative_to(session_folder)
    head = src.display[: -len(str(inside))] if src.display.endswith(str(inside)) else ""
    return head + str(owner.relative_to(session_folder))


def _conversation(agent_file: Path) -> dict[str, Any]:
    """The agent's messages in index order (``[(index, stored message), ...]``, or a reject naming a
    message file that cannot be read or an index missing: ``numbered_files.read_numbered``) and its
    session's ``session.json`` (``None`` when absent or unreadable)."""
    messages = read_numbered(agent_file.parent / MESSAGES, MESSAGE_FILE, MESSAGES)
    session_file = agent_file.parent.parent.parent / SESSION_FILE
    try:
        session = json.loads(session_file.read_text(encoding="utf-8")) if session_file.is_file() else None
    except (OSError, UnicodeDecodeError, ValueError):
        session = None
    return {"messages": messages, "session": session}
