"""Validation half of the Assistants API threads (``test_assistants_run_steps.py`` is the
development half): variants held out while the reader was written, measured once after (2 of 2;
both failed before: an ``unrecognized format`` and an ``unknown role`` reject)."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl
from test_assistants_run_steps import ANSWER, ASK, OUTPUT, calls, created, function_call, message, step


def test_streamed_events_with_a_file_search_and_its_results(tmp_path: Path):
    search = {
        "id": "call_fs",
        "type": "file_search",
        "file_search": {
            "ranking_options": {"ranker": "default_2024_08_21", "score_threshold": 0.0},
            "results": [
                {
                    "file_id": "file-1",
                    "file_name": "handbook.pdf",
                    "score": 0.9,
                    "content": [{"type": "text", "text": "Staff get 25 days of leave."}],
                }
            ],
        },
    }
    events = [
        {"event": "thread.message.completed", "data": message("msg_1", "user", "Leave?", 1000)},
        {
            "event": "thread.run.step.created",
            "data": step("step_1", 1001, calls(search), status="in_progress"),
        },
        {"event": "thread.run.step.completed", "data": step("step_1", 1001, calls(search))},
        {"event": "thread.run.step.completed", "data": step("step_2", 1003, created("msg_2"))},
        {
            "event": "thread.message.completed",
            "data": message("msg_2", "assistant", "25 days.", 1003, "run_1"),
        },
    ]
    episode = one_episode(write_jsonl(tmp_path, "stream.jsonl", events))
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert [c.name for c in episode.events[1].tool_calls] == ["file_search"]
    assert (episode.events[2].tool_call_id, episode.events[2].content) == (
        "call_fs",
        "Staff get 25 days of leave.",
    )


def test_two_runs_of_one_thread_in_a_json_array(tmp_path: Path):
    objects = [
        message("msg_1", "user", ASK, 1000),
        step("s1", 1001, calls(function_call("c1", "get_weather", {"city": "Paris"}, OUTPUT))),
        step("s2", 1002, created("msg_2")),
        message("msg_2", "assistant", ANSWER, 1002, "run_1"),
        message("msg_3", "user", "And in Rome?", 1010),
        step("s3", 1011, calls(function_call("c2", "get_weather", {"city": "Rome"}, "25C")), "run_2"),
        step("s4", 1012, created("msg_4"), "run_2"),
        message("msg_4", "assistant", "It is 25C in Rome.", 1012, "run_2"),
    ]
    episode = one_episode(write_json(tmp_path, "thread.json", objects))
    assert [e.kind for e in episode.events] == [
        "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant",
    ]  # fmt: skip
    assert [json.loads(c.arguments or "null") for e in episode.events for c in e.tool_calls] == [
        {"city": "Paris"},
        {"city": "Rome"},
    ]
    assert [e.tool_call_id for e in episode.events if e.kind == "tool"] == ["c1", "c2"]
