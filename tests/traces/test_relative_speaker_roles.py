"""A chat history whose roles are relative to one agent (traces/adapters/openai.py's
``_speaker_roles``): AutoGen 0.2's ``ChatResult`` records the chat from the user proxy's point of
view, and when its tool-call message carries no ``name`` nothing showed a speaker in both roles, so
the proxy's task became an assistant turn and the agent's answer a user turn. The proxy running the
tools while it speaks as ``assistant`` is the sign now."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json

CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}


def test_a_proxys_history_with_an_unnamed_tool_call_trains_the_agent(tmp_path: Path):
    history = [
        {"content": "Weather in Paris?", "role": "assistant", "name": "user_proxy"},
        {"tool_calls": [CALL], "content": None, "role": "assistant"},
        {
            "content": "18C",
            "tool_responses": [{"tool_call_id": "c1", "role": "tool", "content": "18C"}],
            "role": "tool",
            "name": "user_proxy",
        },
        {"content": "18C in Paris. TERMINATE", "role": "user", "name": "assistant"},
    ]
    episode = one_episode(write_json(tmp_path, "chat.json", {"chat_id": None, "chat_history": history}))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Weather in Paris?"),
        ("assistant", None),
        ("tool", "18C"),
        ("assistant", "18C in Paris. TERMINATE"),
    ]
    assert [c.id for c in episode.events[1].tool_calls] == ["c1"]
