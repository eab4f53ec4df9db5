"""Cohere's v1 Chat API logs a conversation as ``chat_history``: roles in capitals (``USER``,
``CHATBOT``, ``SYSTEM``, ``TOOL``), the text under ``message``, calls as ``{"name", "parameters"}``
without an id and a ``TOOL`` message's ``tool_results`` as ``{"call", "outputs"}``, each result
naming the call it answers by its tool and input. Such a log was an ``unrecognized format``; it is
read as the OpenAI messages it is (``message_roles._role_synonym``, ``openai.COHERE_RESULTS``)."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json

PARIS = {"name": "get_weather", "parameters": {"city": "Paris"}}
OSLO = {"name": "get_weather", "parameters": {"city": "Oslo"}}


def _history(results: list[dict]) -> list[dict]:
    return [
        {"role": "SYSTEM", "message": "You are a weather agent."},
        {"role": "USER", "message": "Weather in Paris and Oslo?"},
        {"role": "CHATBOT", "message": "I will look it up.", "tool_calls": [PARIS, OSLO]},
        {"role": "TOOL", "tool_results": results},
        {"role": "CHATBOT", "message": "Paris 18C, Oslo 4C."},
    ]


def test_a_cohere_v1_chat_history_reads_roles_calls_and_results(tmp_path: Path):
    results = [{"call": PARIS, "outputs": [{"temp": "18C"}]}, {"call": OSLO, "outputs": [{"temp": "4C"}]}]
    response = {"text": "Paris 18C, Oslo 4C.", "finish_reason": "COMPLETE", "chat_history": _history(results)}
    for name, document in (
        ("history.json", {"chat_history": _history(results), "response_id": "r1"}),
        ("response.json", response),
    ):
        episode = one_episode(write_json(tmp_path, name, document))
        assert [e.kind for e in episode.events] == [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
        ]
        calls = episode.events[2].tool_calls
        assert [(c.name, c.arguments) for c in calls] == [
            ("get_weather", '{"city":"Paris"}'),
            ("get_weather", '{"city":"Oslo"}'),
        ]
        assert [(e.tool_name, e.content) for e in episode.events[3:5]] == [
            ("get_weather", '[{"temp":"18C"}]'),
            ("get_weather", '[{"temp":"4C"}]'),
        ]
        assert episode.events[-1].content == "Paris 18C, Oslo 4C."


def test_role_words_in_capitals_are_read_and_unknown_ones_still_rejected(tmp_path: Path):
    """``Assistant`` or ``USER`` names an OpenAI role; a word that names none stays ``unknown role``."""
    from trajectory_platform.traces.ingest import ingest_paths

    caps = [{"role": "User", "content": "hi"}, {"role": "ASSISTANT", "content": "hello"}]
    episode = one_episode(write_json(tmp_path, "caps.json", {"messages": caps}))
    assert [e.kind for e in episode.events] == ["user", "assistant"]
    odd = write_json(
        tmp_path,
        "odd.json",
        {"messages": [{"role": "user", "content": "hi"}, {"role": "WIZARD", "content": "x"}]},
    )
    assert [r.reason for r in ingest_paths([odd]).rejects] == ["unknown role"]


def test_a_response_with_calls_pending_says_them_once(tmp_path: Path):
    """Cohere v1's response to a turn that calls tools repeats its calls at the top (``tool_calls``)
    beside the history holding that turn: said again, not unread content. Calls the history's last
    turn does not hold are still refused, never dropped."""
    from trajectory_platform.traces.ingest import ingest_paths

    history = [
        {"role": "USER", "message": "Weather in Paris?"},
        {"role": "CHATBOT", "message": "Looking.", "tool_calls": [PARIS]},
    ]
    pending = {
        "text": "Looking.",
        "finish_reason": "COMPLETE",
        "tool_calls": [PARIS],
        "chat_history": history,
    }
    episode = one_episode(write_json(tmp_path, "pending.json", pending))
    assert [(c.name, c.arguments) for c in episode.events[-1].tool_calls] == [
        ("get_weather", '{"city":"Paris"}')
    ]
    other = write_json(tmp_path, "other.json", {**pending, "tool_calls": [OSLO]})
    assert [r.reason for r in ingest_paths([other]).rejects] == ["unread conversation content"]
