"""Letta's human-in-the-loop messages (``approval_request_message``, ``approval_response_message``),
written after Letta's message schemas: a call awaiting approval is the model's turn with its call;
a refusal is that call's result, ``refused``, its reason what the model was told; a client-side
tool's return in ``approvals`` is the call's result; an approval alone is no turn (the tool's own
return follows). Both were ``unknown role`` rejects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_json

USER = {"id": "message-1", "message_type": "user_message", "content": "Delete the temp folder, then list it."}


def _request(message_id: str, call_id: str, command: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "date": "2025-10-01T00:00:01Z",
        "message_type": "approval_request_message",
        "tool_call": {
            "name": "run_shell",
            "arguments": f'{{"command": "{command}"}}',
            "tool_call_id": call_id,
        },
    }


def _answer(text: str) -> dict[str, Any]:
    return {"id": "message-9", "message_type": "assistant_message", "content": text}


def _shape(path: Path) -> list[tuple[str, str | None, str | None, str | None]]:
    episode = one_episode(path)
    return [
        (e.kind, e.content, e.tool_call_id, e.status)
        if e.kind != "assistant"
        else (e.kind, e.content, ",".join(c.id or "" for c in e.tool_calls) or None, None)
        for e in episode.events
    ]


def test_a_refused_call_is_its_result_refused_with_the_reason(tmp_path: Path) -> None:
    messages = [
        USER,
        _request("message-2", "call_1", "rm -rf /tmp/x"),
        {
            "id": "message-3",
            "message_type": "approval_response_message",
            "approvals": [
                {"type": "approval", "tool_call_id": "call_1", "approve": False, "reason": "Too risky."}
            ],
        },
        _answer("I did not delete it."),
    ]
    assert _shape(write_json(tmp_path, "letta.json", {"messages": messages})) == [
        ("user", USER["content"], None, None),
        ("assistant", None, "call_1", None),
        ("tool", "Too risky.", "call_1", "refused"),
        ("assistant", "I did not delete it.", None, None),
    ]


def test_an_approved_call_is_followed_by_its_own_return_and_the_approval_folds_away(tmp_path: Path) -> None:
    messages = [
        USER,
        _request("message-2", "call_1", "rm -rf /tmp/x"),
        {
            "id": "message-3",
            "message_type": "approval_response_message",
            "approvals": [{"type": "approval", "tool_call_id": "call_1", "approve": True, "reason": None}],
        },
        {
            "id": "message-4",
            "message_type": "tool_return_message",
            "tool_return": "removed",
            "status": "success",
            "tool_call_id": "call_1",
        },
        _answer("Deleted."),
    ]
    assert _shape(write_json(tmp_path, "letta.json", messages)) == [
        ("user", USER["content"], None, None),
        ("assistant", None, "call_1", None),
        ("tool", "removed", "call_1", None),
        ("assistant", "Deleted.", None, None),
    ]


def test_a_client_side_tool_return_and_the_older_single_decision(tmp_path: Path) -> None:
    messages = [
        USER,
        _request("message-2", "call_1", "ls /tmp"),
        {
            "id": "message-3",
            "message_type": "approval_response_message",
            "approvals": [
                {"type": "tool", "tool_call_id": "call_1", "tool_return": "x y", "status": "success"}
            ],
        },
        _request("message-4", "call_2", "rm -rf /tmp/x"),
        {
            "id": "message-5",
            "message_type": "approval_response_message",
            "approve": False,
            "approval_request_id": "message-4",
            "reason": "Not now.",
        },
        _answer("Listed; not deleted."),
    ]
    assert _shape(write_json(tmp_path, "letta.json", {"messages": messages})) == [
        ("user", USER["content"], None, None),
        ("assistant", None, "call_1", None),
        ("tool", "x y", "call_1", "ok"),
        ("assistant", None, "call_2", None),
        ("tool", "Not now.", "call_2", "refused"),
        ("assistant", "Listed; not deleted.", None, None),
    ]
