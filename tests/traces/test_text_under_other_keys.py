"""Text a message or a logged call writes under a key other than the usual ones is read, or the record
is refused naming the key; never admitted as empty turns with the text nowhere (traces/adapters/
openai.py, validate.py). Also: a multi-agent chat writing every agent as ``user`` is refused."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def _call(call_id: str, name: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _reasons(path: Path) -> list[str]:
    result = ingest_paths([path])
    assert result.episodes == []
    return [r.reason for r in result.rejects]


def test_a_voice_agent_log_writing_message_is_read(tmp_path: Path):
    log = {
        "call_id": "c9",
        "messages": [
            {"role": "system", "message": "You take pizza orders."},
            {"role": "assistant", "message": "Hi! What would you like?"},
            {"role": "user", "message": "A large margherita."},
        ],
    }
    episode = one_episode(write_json(tmp_path, "call.json", log))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("system", "You take pizza orders."),
        ("assistant", "Hi! What would you like?"),
        ("user", "A large margherita."),
    ]


def test_a_tool_output_under_output_and_reasoning_under_thought_are_read(tmp_path: Path):
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [_call("c", "f")]},
        {"role": "tool", "tool_call_id": "c", "output": "RESULT"},
        {"role": "assistant", "content": "done", "thought": "the result says so"},
    ]
    episode = one_episode(write_jsonl(tmp_path, "run.jsonl", [{"messages": messages}]))
    assert episode.events[2].content == "RESULT"
    assert episode.events[3].reasoning == "the result says so"


def test_an_empty_turn_beside_text_under_an_unknown_key_is_refused(tmp_path: Path):
    messages = [{"role": "user", "utterance": "Hello there"}, {"role": "assistant", "content": "Hi"}]
    assert _reasons(write_jsonl(tmp_path, "chat.jsonl", [{"messages": messages}])) == ["unread message text"]


def test_an_empty_turn_beside_only_its_facts_is_kept(tmp_path: Path):
    messages = [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "", "id": "msg_1", "created_at": "2025-01-01T00:00:00Z"},
    ]
    assert one_episode(write_jsonl(tmp_path, "chat.jsonl", [{"messages": messages}])).events[1].content == ""


def test_an_episode_of_empty_turns_is_refused(tmp_path: Path):
    messages = [{"role": "user", "content": ""}, {"role": "assistant", "content": ""}]
    assert _reasons(write_jsonl(tmp_path, "chat.jsonl", [{"messages": messages}])) == ["empty conversation"]


def test_a_string_answer_beside_messages_is_the_calls_answer(tmp_path: Path):
    for key in ("response", "generated_text"):
        record = {"model": "local-7b", "messages": [{"role": "user", "content": "Say OK"}], key: "OK"}
        episode = one_episode(write_jsonl(tmp_path, f"{key}.jsonl", [record]))
        assert [(e.kind, e.content) for e in episode.events] == [("user", "Say OK"), ("assistant", "OK")]
        assert key not in json.loads(episode.extra_json or "{}")


def test_a_group_chat_writing_every_agent_as_user_is_refused(tmp_path: Path):
    messages = [
        {"content": "Plot NVDA", "role": "user", "name": "Admin"},
        {"content": "Plan: fetch, plot", "role": "user", "name": "Planner"},
        {"content": "import yfinance", "role": "user", "name": "Engineer"},
    ]
    assert _reasons(write_json(tmp_path, "gc.json", {"messages": messages})) == ["no model turn"]


def test_a_prompt_without_its_answer_stays_admitted(tmp_path: Path):
    record = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]}
    assert [e.kind for e in one_episode(write_jsonl(tmp_path, "p.jsonl", [record])).events] == [
        "system",
        "user",
    ]


def test_a_structured_answer_wins_over_its_text_restated(tmp_path: Path):
    record = {
        "messages": [{"role": "user", "content": "Hello"}],
        "output": "Arr, ahoy!",
        "output_message": {"role": "assistant", "content": "Arr, ahoy!"},
    }
    episode = one_episode(write_jsonl(tmp_path, "humanloop.jsonl", [record]))
    assert [(e.kind, e.content) for e in episode.events] == [("user", "Hello"), ("assistant", "Arr, ahoy!")]
    assert json.loads(episode.extra_json)["read_from"]["response"] == "output_message"
