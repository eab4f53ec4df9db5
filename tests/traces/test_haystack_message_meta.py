"""Haystack serialises a ``ChatMessage`` with the facts of the call that wrote it under ``meta``
(``_meta`` in its older dataclass fields): the model, the finish reason and the token usage. The
reader kept the turn and lost them; they are now the turn's (``message_roles.take_call_facts``) and
the episode's model where the record names none (``message_roles.answering_model``)."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json

CALL = {"tool_name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}
USAGE = {"prompt_tokens": 20, "completion_tokens": 5}


def _messages(private: bool, model: str | None = "gpt-4o-mini") -> list[dict]:
    role, content, meta = ("_role", "_content", "_meta") if private else ("role", "content", "meta")
    named = {"model": model} if model else {}
    called = {**named, "finish_reason": "tool_calls", "usage": USAGE}
    result = {"tool_call_result": {"result": "18C", "origin": CALL, "error": False}}
    return [
        {role: "user", content: [{"text": "Weather in Paris?"}], meta: {}},
        {role: "assistant", content: [{"tool_call": CALL}], meta: called},
        {role: "tool", content: [result], meta: {}},
        {role: "assistant", content: [{"text": "Paris is 18C."}], meta: {**named, "finish_reason": "stop"}},
    ]


def test_a_haystack_messages_meta_is_its_turns_and_names_the_model(tmp_path: Path):
    for private in (True, False):
        episode = one_episode(write_json(tmp_path, f"h{private}.json", {"messages": _messages(private)}))
        turns = [e for e in episode.events if e.kind == "assistant"]
        assert [(e.finish_reason, e.input_tokens, e.output_tokens) for e in turns] == [
            ("tool_calls", 20, 5),
            ("stop", None, None),
        ]
        assert episode.lineage.model == "gpt-4o-mini"


def test_the_records_own_model_wins_and_no_model_is_invented(tmp_path: Path):
    """Controls: a record naming its model keeps it; messages naming none leave it unknown."""
    own = one_episode(write_json(tmp_path, "own.json", {"model": "m-1", "messages": _messages(False)}))
    assert own.lineage.model == "m-1"
    unnamed = one_episode(write_json(tmp_path, "none.json", {"messages": _messages(False, model=None)}))
    assert unnamed.lineage.model is None
    assert unnamed.events[1].finish_reason == "tool_calls"
