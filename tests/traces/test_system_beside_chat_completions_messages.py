"""A record with a top-level ``system`` beside messages that speak Chat Completions (a ``tool`` role,
``tool_calls``): Letta's agent file (``.af``) keeps the agent's prompt so, its messages opening with
that prompt compiled with its memory. The top-level ``system`` made the record Anthropic's, whose
reader rejected the OpenAI fields; it is now OpenAI's, and its ``system`` is read once
(``openai._said_system``)."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json

from trajectory_platform.traces.ingest import ingest_paths

PROMPT = "You are a weather agent."
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
}
TURNS = [
    {"role": "user", "content": [{"type": "text", "text": "Paris?"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Looking."}], "tool_calls": [CALL]},
    {
        "role": "tool",
        "content": [{"type": "text", "text": "18C"}],
        "tool_call_id": "call_1",
        "name": "get_weather",
    },
    {"role": "assistant", "content": [{"type": "text", "text": "It is 18C."}]},
]


def test_an_agent_files_prompt_is_its_compiled_system_message_read_once(tmp_path: Path):
    compiled = {
        "role": "system",
        "content": [{"type": "text", "text": f"{PROMPT}\n<memory>likes sun</memory>"}],
    }
    agent = {"agent_type": "memgpt_agent", "system": PROMPT, "messages": [compiled, *TURNS]}
    episode = one_episode(write_json(tmp_path, "agent.af.json", agent))
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    assert episode.events[0].content == f"{PROMPT}\n<memory>likes sun</memory>"
    assert episode.events[3].tool_call_id == "call_1"


def test_a_prompt_the_messages_do_not_say_opens_them(tmp_path: Path):
    episode = one_episode(write_json(tmp_path, "bare.json", {"system": PROMPT, "messages": TURNS}))
    assert [(e.kind, e.content) for e in episode.events[:2]] == [("system", PROMPT), ("user", "Paris?")]


def test_a_prompt_other_than_the_opening_system_message_is_still_refused(tmp_path: Path):
    """Control: two different system prompts cannot both be the conversation's; never one dropped."""
    other = {"role": "system", "content": "You are a poet."}
    path = write_json(tmp_path, "two.json", {"system": PROMPT, "messages": [other, *TURNS]})
    assert [r.reason for r in ingest_paths([path]).rejects] == ["unread conversation content"]
