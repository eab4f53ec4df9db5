"""The OpenAI Assistants API's thread with its run steps (``adapters/assistants.py``): a run's calls
and their outputs sit in ``thread.run.step`` objects apart from the thread's messages. Read as
messages alone the calls were lost (a listing page beside the steps' page), and a file of objects
one a line was an ``unrecognized format``.

Development cases here; the validation half (streamed events, file search, two runs in one JSON
array) is ``test_assistants_run_steps_heldout.py``, measured after these were fixed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import call_rows, one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

ASK, ANSWER, OUTPUT = "What is the weather in Paris?", "It is 18C and sunny in Paris.", "18C and sunny"


def message(mid: str, role: str, text: str, at: int, run: str | None = None) -> dict[str, Any]:
    return {
        "id": mid,
        "object": "thread.message",
        "created_at": at,
        "thread_id": "thread_abc",
        "role": role,
        "content": [{"type": "text", "text": {"value": text, "annotations": []}}],
        "assistant_id": "asst_1" if role == "assistant" else None,
        "run_id": run,
    }


def step(
    sid: str, at: int, details: dict[str, Any], run: str = "run_1", status: str = "completed"
) -> dict[str, Any]:
    return {
        "id": sid,
        "object": "thread.run.step",
        "created_at": at,
        "run_id": run,
        "thread_id": "thread_abc",
        "type": details["type"],
        "status": status,
        "step_details": details,
        "last_error": None,
    }


def function_call(cid: str, name: str, args: dict[str, Any], output: str | None) -> dict[str, Any]:
    return {
        "id": cid,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args), "output": output},
    }


def calls(*tool_calls: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_calls", "tool_calls": list(tool_calls)}


def created(mid: str) -> dict[str, Any]:
    return {"type": "message_creation", "message_creation": {"message_id": mid}}


def thread() -> list[dict[str, Any]]:
    """A question, a run calling one function (its output submitted), the answer: in time order."""
    return [
        message("msg_1", "user", ASK, 1000),
        step("step_1", 1000, calls(function_call("call_1", "get_weather", {"city": "Paris"}, OUTPUT))),
        step("step_2", 1001, created("msg_2")),
        message("msg_2", "assistant", ANSWER, 1001, "run_1"),
    ]


EXPECTED = [
    ("user", ASK, [], None),
    ("assistant", None, [("call_1", "get_weather", {"city": "Paris"})], None),
    ("tool", OUTPUT, [], "call_1"),
    ("assistant", ANSWER, [], None),
]


def test_objects_one_a_line_are_the_thread_with_its_calls_and_results(tmp_path: Path):
    assert call_rows(write_jsonl(tmp_path, "thread.jsonl", thread())) == EXPECTED


def test_list_pages_newest_first_beside_each_other_are_read_together(tmp_path: Path):
    """``messages.list`` and ``runs.steps.list`` pages (newest first, the API's default) saved in one
    document: the steps' page was silently left out, the answer following the question directly."""
    objects = thread()
    document = {
        "messages": {"object": "list", "data": [objects[3], objects[0]], "has_more": False},
        "run_steps": {"object": "list", "data": [objects[2], objects[1]], "has_more": False},
    }
    assert call_rows(write_json(tmp_path, "thread.json", document)) == EXPECTED


def test_code_interpreter_and_a_function_in_one_step_are_two_calls_each_answered(tmp_path: Path):
    objects = thread()
    objects[1] = step(
        "step_1",
        1000,
        calls(
            {
                "id": "call_ci",
                "type": "code_interpreter",
                "code_interpreter": {
                    "input": "print(2**10)",
                    "outputs": [{"type": "logs", "logs": "1024\n"}],
                },
            },
            function_call("call_1", "get_weather", {"city": "Paris"}, OUTPUT),
        ),
    )
    episode = one_episode(write_jsonl(tmp_path, "thread.jsonl", objects))
    (turn,) = [e for e in episode.events if e.tool_calls]
    assert [(c.name, json.loads(c.arguments or "null")) for c in turn.tool_calls] == [
        ("code_interpreter", {"input": "print(2**10)"}),
        ("get_weather", {"city": "Paris"}),
    ]
    assert [(e.tool_call_id, e.tool_name, e.content) for e in episode.events if e.kind == "tool"] == [
        ("call_ci", "code_interpreter", "1024\n"),
        ("call_1", "get_weather", OUTPUT),
    ]


def test_a_run_gives_the_system_prompt_model_and_outcome_and_a_failed_run_is_an_error(tmp_path: Path):
    run = {
        "id": "run_1",
        "object": "thread.run",
        "created_at": 1000,
        "thread_id": "thread_abc",
        "status": "completed",
        "model": "gpt-4o",
        "instructions": "You are a weather bot.",
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
        ],
    }
    episode = one_episode(write_jsonl(tmp_path, "thread.jsonl", [run, *thread()]))
    assert (episode.events[0].kind, episode.events[0].content) == ("system", "You are a weather bot.")
    assert episode.lineage.model == "gpt-4o" and [t.name for t in episode.tools] == ["get_weather"]
    assert episode.outcome.terminal_status == "completed"
    failed = {**run, "status": "failed", "last_error": {"code": "server_error", "message": "x"}}
    episode = one_episode(write_jsonl(tmp_path, "failed.jsonl", [failed, *thread()]))
    assert episode.outcome.terminal_status == "error"


def test_an_answer_the_log_does_not_hold_is_a_named_reject(tmp_path: Path):
    objects = [o for o in thread() if o["id"] != "msg_2"]
    (reject,) = ingest_paths([write_jsonl(tmp_path, "steps.jsonl", objects)]).rejects
    assert reject.reason == "item kept on the server" and "msg_2" in (reject.detail or "")


def test_two_threads_in_one_file_are_two_episodes(tmp_path: Path):
    other = [{**o, "thread_id": "thread_xyz", "id": o["id"] + "x"} for o in thread()]
    other[2]["step_details"] = created("msg_2x")
    result = ingest_paths([write_jsonl(tmp_path, "threads.jsonl", [*thread(), *other])])
    assert result.rejects == [] and len(result.episodes) == 2


def test_control_a_listing_of_thread_messages_alone_is_read_as_before(tmp_path: Path):
    """Thread messages without run steps stay the ``openai`` reader's (newest first, reversed)."""
    listing = [message("msg_2", "assistant", ANSWER, 1001, "run_1"), message("msg_1", "user", ASK, 1000)]
    episode = one_episode(write_json(tmp_path, "messages.json", listing))
    assert episode.source_format == "openai"
    assert [(e.kind, e.content) for e in episode.events] == [("user", ASK), ("assistant", ANSWER)]
