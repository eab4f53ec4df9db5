"""Agent2Agent (A2A) protocol tasks as a client or a remote agent logs them: a ``Task``
(``{"kind": "task", "id", "contextId", "status", "history", "artifacts"}``), bare, as a JSON-RPC
response's ``result`` (``message/send``, ``tasks/get``), one a line or in a list.

A task's ``history`` holds the messages the client and the remote agent exchanged
(``{"role": "user" | "agent", "parts", "messageId"}``); each part names its kind under ``kind``
(``text``; ``data``, a JSON object; ``file``, by name or URI). Read by the chat readers, the parts'
``kind`` was no part type they knew (the Gemini reader claimed ``parts`` and rejected the record as
an ``unknown part``) and the protocol's ``agent`` role is no chat role: in A2A it is the remote
agent answering, the model side (in a support desk's chat log ``agent`` is a person, so the role
is read so only here, where the protocol defines it).

Read: ``user`` messages are user events, ``agent`` messages assistant events (``text`` parts their
text; a ``data`` part canonical JSON; a ``file`` part a ``[file <name>]`` marker); the artifacts'
text (what the task produced) is the final answer and, when the history does not end on it, the
last assistant turn; ``status.state`` ``completed`` -> completed, ``failed`` / ``rejected`` ->
error, ``canceled`` -> abandoned. A remote agent's own tool calls are not in the protocol, so the
episode holds none. A part of another kind or a role of another name rejects the record naming it.
"""

from __future__ import annotations

import json
from typing import Any

from trajectory_platform.traces.adapters.base import (
    Adapter,
    RawRecord,
    RecordError,
    SourceFile,
    adapter_episode_id,
    expect,
    optional_str,
)
from trajectory_platform.traces.adapters.openai import extra_of
from trajectory_platform.traces.drops import named
from trajectory_platform.traces.record import Episode, Event, canonical_json

ROLES = {"user": "user", "agent": "assistant"}
STATES = {"completed": "completed", "failed": "error", "rejected": "error", "canceled": "abandoned"}
READ = ("kind", "id", "contextId", "status", "history", "artifacts")


def _task(value: Any) -> dict[str, Any] | None:
    """The task a record holds: itself, or a JSON-RPC response's ``result``."""
    if isinstance(value, dict) and value.get("jsonrpc") == "2.0":
        value = value.get("result")
    is_task = isinstance(value, dict) and value.get("kind") == "task"
    return value if is_task and isinstance(value.get("history", []), list) else None


def _text(parts: Any, where: str) -> str | None:
    """A message's or an artifact's parts as text (see the module docstring)."""
    texts = []
    for index, part in enumerate(expect(parts, list, where)):
        at = f"{where}[{index}]"
        kind = expect(part, dict, at).get("kind")
        if kind == "text":
            texts.append(optional_str(part.get("text"), f"{at}.text") or "")
        elif kind == "data":
            texts.append(canonical_json(part.get("data")))
        elif kind == "file":
            file = part.get("file") if isinstance(part.get("file"), dict) else {}
            texts.append(f"[file {file.get('name') or file.get('uri') or ''}]".replace(" ]", "]"))
        else:
            raise RecordError(
                "unknown content part", f"{at}.kind is {named(kind)}; expected text, data or file"
            )
    return "\n".join(texts) or None


class A2AAdapter(Adapter):
    """A2A protocol tasks, one per record."""

    name = "a2a"
    task_id_source = None

    def claims_record(self, record: dict[str, Any]) -> bool:
        return _task(record) is not None

    def parse(self, record: RawRecord, src: SourceFile) -> Episode:
        value = expect(record.value, dict, "record")
        task = _task(value)
        where = "result" if task is not value else "task"
        task = expect(task, dict, where)
        episode = self.new_episode(record, src, adapter_episode_id(self.name, task.get("id"), value))
        for index, message in enumerate(expect(task.get("history") or [], list, f"{where}.history")):
            at = f"{where}.history[{index}]"
            role = expect(message, dict, at).get("role")
            if role not in ROLES:
                raise RecordError("unknown role", f"{at}.role is {named(role)}; expected user or agent")
            episode.events.append(Event(kind=ROLES[role], content=_text(message.get("parts"), f"{at}.parts")))
        produced = [
            _text(
                expect(artifact, dict, f"{where}.artifacts[{i}]").get("parts"),
                f"{where}.artifacts[{i}].parts",
            )
            for i, artifact in enumerate(expect(task.get("artifacts") or [], list, f"{where}.artifacts"))
        ]
        answer = "\n".join(text for text in produced if text) or None
        last = episode.events[-1] if episode.events else None
        if answer is not None and not (
            last is not None and last.kind == "assistant" and last.content == answer
        ):
            episode.events.append(Event(kind="assistant", content=answer))
        episode.outcome.final_answer = answer
        status = task.get("status") if isinstance(task.get("status"), dict) else {}
        episode.outcome.terminal_status = STATES.get(str(status.get("state")))
        episode.task.prompt = next((e.content for e in episode.events if e.kind == "user"), None)
        rest = extra_of(task, READ)  # a field holding conversation content rejects the record
        episode.extra_json = canonical_json({"status": status, **(json.loads(rest) if rest else {})})
        return episode
