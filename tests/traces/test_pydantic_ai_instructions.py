"""A Pydantic AI request's ``instructions`` (the system prompt ``Agent(instructions=...)`` sends,
kept on the request, not as a ``system-prompt`` part) were dropped without a word: the episode lacked
the system prompt its model saw. Now a system event where first given and wherever they change."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json


def _request(text: str, instructions: str | None) -> dict:
    part = {"content": text, "timestamp": "2025-05-01T00:00:00Z", "part_kind": "user-prompt"}
    return {"parts": [part], "instructions": instructions, "kind": "request"}


def _response(text: str) -> dict:
    return {"parts": [{"content": text, "part_kind": "text"}], "model_name": "gpt-4o", "kind": "response"}


def test_instructions_are_the_system_prompt_once_and_again_when_they_change(tmp_path: Path):
    history = [
        _request("Weather?", "Be brief."),
        _response("Sunny."),
        _request("And tomorrow?", "Be brief."),
        _response("Rain."),
        _request("Thanks", "Say goodbye."),
        _response("Bye."),
    ]
    episode = one_episode(write_json(tmp_path, "history.json", history))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("system", "Be brief."),
        ("user", "Weather?"),
        ("assistant", "Sunny."),
        ("user", "And tomorrow?"),
        ("assistant", "Rain."),
        ("system", "Say goodbye."),
        ("user", "Thanks"),
        ("assistant", "Bye."),
    ]
    assert episode.task.prompt == "Weather?"


def test_a_request_without_instructions_reads_as_before(tmp_path: Path):
    episode = one_episode(write_json(tmp_path, "history.json", [_request("Hi", None), _response("Hello.")]))
    assert [e.kind for e in episode.events] == ["user", "assistant"]
