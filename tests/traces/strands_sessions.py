"""Strands Agents ``FileSessionManager`` session folders written as Strands writes them (one message a
file, ``json.dump(..., indent=2)``), for ``adapters/strands_session.py``'s tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STAMP = "2025-08-01T10:00:{:02d}+00:00"


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False), encoding="utf-8")


def agent_folder(
    root: Path, session: str, agent: str, messages: list[dict[str, Any]], **redacted: Any
) -> Path:
    """``root/session_<session>/agents/agent_<agent>/`` holding ``agent.json`` and one file per
    message (``redacted``: ``m<n>`` -> the ``redact_message`` of message ``n``); the session's
    ``session.json`` too. The agent's folder."""
    folder = root / f"session_{session}"
    _write(
        folder / "session.json",
        {"session_id": session, "session_type": "AGENT", "created_at": STAMP.format(0)},
    )
    agent_dir = folder / "agents" / f"agent_{agent}"
    _write(
        agent_dir / "agent.json",
        {
            "agent_id": agent,
            "state": {},
            "conversation_manager_state": {
                "__name__": "SlidingWindowConversationManager",
                "removed_message_count": 0,
            },
            "created_at": STAMP.format(0),
            "updated_at": STAMP.format(0),
        },
    )
    for index, message in enumerate(messages):
        stored = {
            "message": message,
            "message_id": index,
            "redact_message": redacted.get(f"m{index}"),
            "created_at": STAMP.format(index % 60),
            "updated_at": STAMP.format(index % 60),
        }
        _write(agent_dir / "messages" / f"message_{index}.json", stored)
    return agent_dir


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"text": text}]}


def assistant(text: str | None, *calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": text}] if text else []
    content += [{"toolUse": {"toolUseId": cid, "name": name, "input": args}} for cid, name, args in calls]
    return {"role": "assistant", "content": content}


def result(cid: str, text: str, status: str = "success") -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"toolResult": {"toolUseId": cid, "status": status, "content": [{"text": text}]}}],
    }


def long_conversation(turns: int) -> list[dict[str, Any]]:
    """A question, a call and its result, then ``turns`` exchanges numbered in order (so eleven or
    more messages, whose file names sort out of order)."""
    head = [
        user("Weather in Paris?"),
        assistant("Checking.", ("t1", "get_weather", {"city": "Paris"})),
        result("t1", "18C"),
    ]
    rest = [assistant(f"answer {i}") if i % 2 == 0 else user(f"follow-up {i}") for i in range(turns)]
    return head + rest
