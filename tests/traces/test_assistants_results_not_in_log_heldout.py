"""Validation half of an Assistants API call whose output its step does not hold: a code
interpreter and a function saved without output, the stream's ``in_progress`` then ``completed``
copies of a search saved without results, an expired step, and a step still running (its call
left unanswered). Held out while the reading was written."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl
from test_assistants_results_not_in_log import results, search, thread
from test_assistants_run_steps import calls, message, step


def test_a_code_interpreter_and_a_function_saved_without_output(tmp_path: Path):
    code = {"id": "call_ci", "type": "code_interpreter", "code_interpreter": {"input": "print(25)"}}
    assert results(write_json(tmp_path, "ci.json", thread(code))) == [("call_ci", None, "truncated")]
    function = {"id": "call_fn", "type": "function", "function": {"name": "leave", "arguments": "{}"}}
    assert results(write_json(tmp_path, "fn.json", thread(function))) == [("call_fn", None, "truncated")]


def test_the_streams_copies_of_a_search_saved_without_results(tmp_path: Path):
    running = step("step_1", 1001, calls(search(None)), status="in_progress")
    objects = thread(search(None))
    events = [{"event": f"thread.{o['object'].split('.', 1)[1]}.completed", "data": o} for o in objects]
    events.insert(1, {"event": "thread.run.step.created", "data": running})
    path = write_jsonl(tmp_path, "stream.jsonl", events)
    assert results(path) == [("call_fs", None, "truncated")]
    assert json.loads(one_episode(path).extra_json or "{}")["results_not_in_log"] == 1


def test_an_expired_step_is_an_error_and_a_running_one_leaves_the_call_open(tmp_path: Path):
    assert results(write_jsonl(tmp_path, "expired.jsonl", thread(search(None), "expired"))) == [
        ("call_fs", None, "error")
    ]
    running = [
        message("msg_1", "user", "How many days of leave?", 1000),
        step("step_1", 1001, calls(search(None)), status="in_progress"),
    ]
    episode = one_episode(write_json(tmp_path, "running.json", running))
    assert [(e.kind, [c.name for c in e.tool_calls]) for e in episode.events] == [
        ("user", []),
        ("assistant", ["file_search"]),
    ]
