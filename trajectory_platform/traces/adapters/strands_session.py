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

A multi-agent session (a ``Swarm`` or ``Graph`` given the session manager, ``session_type``
``MULTI_AGENT``) keeps no messages: its orchestrator's state is one file,
``session_<session id>/multi_agents/multi_agent_<id>/multi_agent.json`` (``serialize_state()``:
``type`` ``swarm`` / ``graph``, ``current_task``, the nodes run in order (a swarm's
``node_history``, a graph's ``execution_order``) and ``node_results``, each node's last
``AgentResult`` ``{"type": "agent_result", "message", "stop_reason"}``, a nested orchestrator's
``{"type": "multiagent_result", "results"}``, or a failure ``{"type": "exception", "message"}``). Such a
file is a record: the task is the user's turn, each node's last message an assistant turn named by
the node (nested nodes ``outer/inner``), in the order the nodes ran (a node run twice shows its
last result, where the orchestrator keeps it: the runs whose result it did not keep are counted in
``extra_json.node_runs_not_kept``); a failed node is no turn (the orchestrator's error, not the
model's words): its id is in ``extra_json.failed_nodes``. The orchestrator's type, id, status and
``context`` (a swarm's shared context and handoff) are kept in ``extra_json``.

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
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, canonical_json

AGENT_FILE, SESSION_FILE, MESSAGES, AGENTS = "agent.json", "session.json", "messages", "agents"
AGENT_PREFIX, SESSION_PREFIX = "agent_", "session_"
MULTI_AGENT_FILE, MULTI_AGENTS, MULTI_AGENT_PREFIX = "multi_agent.json", "multi_agents", "multi_agent_"
ORCHESTRATORS = {"swarm": "node_history", "graph": "execution_order"}
"""A multi-agent orchestrator's ``type`` -> the field listing its nodes in the order they ran."""
AGENT_RESULT, NESTED_RESULT, FAILED_RESULT = "agent_result", "multiagent_result", "exception"
MULTI_AGENT = "multi_agent"
"""The framed record of a ``multi_agent.json``: ``{MULTI_AGENT: its state, "session": session.json}``."""
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


def _is_multi_agent_file(sample: Any, path: Path) -> bool:
    return (
        path.name == MULTI_AGENT_FILE
        and path.parent.name.startswith(MULTI_AGENT_PREFIX)
        and path.parent.parent.name == MULTI_AGENTS
        and isinstance(sample, dict)
        and sample.get("type") in ORCHESTRATORS
        and isinstance(sample.get("node_results"), dict)
    )


def _agents_of_session(sample: Any, path: Path) -> list[Path] | None:
    """The ``agent.json`` and ``multi_agent.json`` files of a session file's agents and
    orchestrators (sorted), or ``None`` for any other file."""
    if not (
        path.name == SESSION_FILE
        and path.parent.name.startswith(SESSION_PREFIX)
        and isinstance(sample, dict)
        and "session_id" in sample
        and ((path.parent / AGENTS).is_dir() or (path.parent / MULTI_AGENTS).is_dir())
    ):
        return None
    return sorted(
        [
            *path.parent.glob(f"{AGENTS}/{AGENT_PREFIX}*/{AGENT_FILE}"),
            *path.parent.glob(f"{MULTI_AGENTS}/{MULTI_AGENT_PREFIX}*/{MULTI_AGENT_FILE}"),
        ]
    )


class StrandsSessionAdapter(Adapter):
    """A Strands Agents ``FileSessionManager`` session folder, an agent's conversation a record."""

    name = "strands-session"
    task_id_source = None

    def sniff(self, sample: Any, path: Path) -> bool:
        return (
            _is_agent_file(sample, path)
            or _is_multi_agent_file(sample, path)
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
        if _is_multi_agent_file(document, path):
            session = _session_of(path.parent.parent.parent / SESSION_FILE)
            yield RawRecord(None, "$", value={MULTI_AGENT: document, "session": session})
            return
        agent = _agent_of_message(document, path)
        owners = [agent] if agent is not None else _agents_of_session(document, path) or []
        owner = next((o for o in owners if src.in_run(o)), owners[0] if owners else path)
        yield companion_record(src, owner, _display(src, owner))

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        if MULTI_AGENT in value:
            return self._multi_agent(record, src, value)
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

    def _multi_agent(self, record: RawRecord, src: SourceFile, value: dict[str, Any]) -> Episode:
        """A ``multi_agent.json``: the task, then each node's last message (module docstring)."""
        state = expect(value[MULTI_AGENT], dict, MULTI_AGENT_FILE)
        stored = value.get("session")
        session: dict[str, Any] = stored if isinstance(stored, dict) else {}
        session_id = optional_str(session.get("session_id"), "session.json session_id")
        own_id = optional_str(state.get("id"), f"{MULTI_AGENT_FILE} id")
        folder = Path(src.path).parent
        key = f"{session_id or folder.parent.parent.name}/{own_id or folder.name}"
        episode = self.new_episode(record, src, adapter_episode_id(self.name, key, value))
        task = state.get("current_task")
        if isinstance(task, str):
            episode.events.append(Event(kind="user", content=task))
        elif task is not None:
            episode.events.extend(events_of_messages([{"role": "user", "content": task}], "current_task"))
        ran = expect(state.get(ORCHESTRATORS[state["type"]]) or [], list, ORCHESTRATORS[state["type"]])
        read = _NodeResults()
        read.nodes(ran, expect(state["node_results"], dict, "node_results"), "node_results", "")
        episode.events.extend(read.events)
        name_tool_results(episode.events)
        episode.task.prompt = next(
            (e.content for e in episode.events if e.kind == "user" and e.content), None
        )
        extra: dict[str, Any] = {"session_id": session_id, "type": state["type"], "id": own_id}
        extra |= {k: state[k] for k in ("status", "context") if state.get(k)}
        extra |= {"failed_nodes": read.failed} if read.failed else {}
        extra |= {"node_runs_not_kept": read.not_kept} if read.not_kept else {}
        episode.extra_json = canonical_json(extra)
        return episode


class _NodeResults:
    """The nodes' last messages as events, nested orchestrators' nodes in place, and what was not
    read as a turn (failed nodes, runs whose result the orchestrator did not keep)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.failed: list[str] = []
        self.not_kept = 0

    def nodes(self, ran: list[Any], results: dict[str, Any], where: str, prefix: str) -> None:
        """Each node of ``results`` once, at its last run in ``ran``; nodes that never show in
        ``ran`` after them, in the orchestrator's order."""
        last = {node: index for index, node in enumerate(ran) if isinstance(node, str)}
        order = sorted((n for n in results if n in last), key=last.__getitem__)
        order += [n for n in results if n not in last]
        self.not_kept += sum(1 for node in ran if node in results) - len([n for n in order if n in last])
        for node in order:
            self._node(node, expect(results[node], dict, f"{where}.<node>"), f"{where}.<node>", prefix)

    def _node(self, node: str, stored: dict[str, Any], where: str, prefix: str) -> None:
        result = expect(stored.get("result"), dict, f"{where}.result")
        kind = result.get("type")
        name = f"{prefix}{node}"
        if kind == AGENT_RESULT:
            message = expect(result.get("message"), dict, f"{where}.result.message")
            events = events_of_messages([message], f"{where}.result.message")
            for event in events:
                event.name = event.name or name
            if events:
                events[-1].finish_reason = optional_str(
                    result.get("stop_reason"), f"{where}.result.stop_reason"
                )
            self.events.extend(events)
        elif kind == NESTED_RESULT:
            nested = expect(result.get("results"), dict, f"{where}.result.results")
            self.nodes([], nested, f"{where}.result.results", f"{name}/")
        elif kind == FAILED_RESULT:
            self.failed.append(name)
        else:
            raise RecordError(
                "unknown node result",
                f"{where}.result.type is {named(kind)}; expected one of "
                f"{[AGENT_RESULT, NESTED_RESULT, FAILED_RESULT]}",
            )


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
    return {"messages": messages, "session": _session_of(agent_file.parent.parent.parent / SESSION_FILE)}


def _session_of(session_file: Path) -> Any:
    """A session's ``session.json`` (``None`` when absent or unreadable)."""
    try:
        return json.loads(session_file.read_text(encoding="utf-8")) if session_file.is_file() else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
