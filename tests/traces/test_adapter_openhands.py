"""OpenHands event streams (traces/adapters/openhands.py): not every action is the model's. A
command the user ran in the terminal (``source: user``) and its output are user context, never an
assistant call; a ``condensation`` (the condenser forgetting events) is a compaction event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from log_files import one_episode, write_json

from trajectory_platform.traces.ingest import ingest_paths


def _agent_run(event_id: int, call_id: str, command: str) -> dict:
    response = {
        "id": f"resp-{call_id}",
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": "execute_bash", "arguments": f'{{"command": "{command}"}}'},
                        }
                    ],
                }
            }
        ],
    }
    metadata = {"function_name": "execute_bash", "tool_call_id": call_id, "model_response": response}
    return {
        "id": event_id,
        "source": "agent",
        "action": "run",
        "args": {"command": command, "thought": ""},
        "tool_call_metadata": metadata,
    }


def _output(event_id: int, cause: int, content: str, source: str, call_id: str | None = None) -> dict:
    event = {
        "id": event_id,
        "source": source,
        "cause": cause,
        "observation": "run",
        "content": content,
        "extras": {"metadata": {"exit_code": 0, "working_dir": "/workspace"}},
    }
    if call_id:
        event["tool_call_metadata"] = {"function_name": "execute_bash", "tool_call_id": call_id}
    return event


def test_a_command_the_user_ran_is_user_context_not_an_agent_call(tmp_path: Path):
    history = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "Fix the failing test"}},
        {"id": 1, "source": "user", "action": "run", "args": {"command": "git log -1", "thought": ""}},
        _output(2, 1, "commit abc", "user"),
        _agent_run(3, "toolu_1", "pytest -q"),
        _output(4, 3, "1 passed", "agent", "toolu_1"),
    ]
    episode = one_episode(write_json(tmp_path, "events.json", history))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Fix the failing test"),
        ("user", "git log -1"),
        ("user", "commit abc"),
        ("assistant", None),
        ("tool", "1 passed"),
    ]
    calls = [c for e in episode.events for c in e.tool_calls]
    assert [c.id for c in calls] == ["toolu_1"]
    assert episode.task.prompt == "Fix the failing test"


def test_a_condensation_is_a_compaction_replacing_what_it_forgot(tmp_path: Path):
    history = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "Fix the failing test"}},
        _agent_run(1, "toolu_1", "pytest -q"),
        _output(2, 1, "1 failed", "agent", "toolu_1"),
        {"id": 3, "source": "environment", "observation": "agent_state_changed", "content": ""},
        {
            "id": 4,
            "source": "agent",
            "action": "condensation",
            "args": {
                "forgotten_event_ids": None,
                "forgotten_events_start_id": 1,
                "forgotten_events_end_id": 3,
                "summary": "Ran tests; test_add fails.",
                "summary_offset": 1,
            },
        },
        _agent_run(5, "toolu_2", "sed -i s/-/+/ calc.py"),
        _output(6, 5, "", "agent", "toolu_2"),
        {"id": 7, "source": "agent", "action": "condensation", "args": {"forgotten_event_ids": [5, 6]}},
    ]
    episode = one_episode(write_json(tmp_path, "events.json", history))
    assert [e.kind for e in episode.events] == [
        "user", "assistant", "tool", "compaction", "assistant", "tool", "compaction"
    ]  # fmt: skip
    summary, forgetting = episode.events[3], episode.events[6]
    assert (summary.content, summary.replaces_through) == ("Ran tests; test_add fails.", 2)
    assert (forgetting.content, forgetting.replaces_through) == (None, 5)
    assert not any(c.name == "condensation" for e in episode.events for c in e.tool_calls)


@pytest.mark.parametrize("field", ["id", "cause", "action", "observation"])
def test_an_event_field_the_index_keys_on_that_is_an_object_is_a_wrong_type_reject(
    field: str, tmp_path: Path
):
    """An event's ``id`` / ``cause`` (keys of the session's index) and its ``action`` / ``observation``
    kind are looked up; an object there was an ``unexpected structure`` reject (``unhashable type``),
    now a ``wrong type`` reject naming the field."""
    events = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "Fix calc.py"}},
        {"id": 1, "source": "agent", "cause": 0, "observation": "run", "content": "ok", "extras": {}},
    ]
    events[1 if field in ("cause", "observation") else 0][field] = {"value": "x"}
    path = tmp_path / "events.json"
    path.write_text(json.dumps(events))
    (reject,) = ingest_paths([path], fmt="openhands").rejects
    assert reject.reason == "wrong type" and f".{field} is dict" in reject.detail
