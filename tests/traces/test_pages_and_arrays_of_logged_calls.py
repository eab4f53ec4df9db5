"""Logged calls exported as one JSON document rather than JSON Lines: an array whose first element
is a record no format reads (a tracer's root op, W&B Weave's ``run_agent`` call, before its model
calls), and a list API's page (Helicone's ``{"data": [...]}``, ``{"object": "list", "data",
"has_more"}``). Detection judged the array by its whole and the page as one record, and the file was
an ``unrecognized format``; the array's elements are now probed as a JSONL file's lines
(``SourceFile.samples``), the page read as its list (``SourceFile.listed``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from log_files import one_episode, write_json

from trajectory_platform.traces.ingest import ingest_paths

SYSTEM = {"role": "system", "content": "You are a weather agent."}
USER = {"role": "user", "content": "Weather in Paris?"}
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
}
CALLING = {"role": "assistant", "content": None, "tool_calls": [CALL]}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "18C"}


def _response(message: dict[str, Any]) -> dict[str, Any]:
    return {"object": "chat.completion", "model": "gpt-4o", "choices": [{"index": 0, "message": message}]}


def _calls(request: str, response: str, extra: dict[str, Any]) -> list[dict[str, Any]]:
    """The two model calls of one agent run, each logged under ``request`` / ``response`` keys."""
    answer = {"role": "assistant", "content": "It is 18C."}
    first, second = [SYSTEM, USER], [SYSTEM, USER, CALLING, RESULT]
    return [
        {**extra, request: {"model": "gpt-4o", "messages": first}, response: _response(CALLING)},
        {**extra, request: {"model": "gpt-4o", "messages": second}, response: _response(answer)},
    ]


def _read_as_the_run(path: Path) -> None:
    episode = one_episode(path)
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    assert episode.events[3].tool_call_id == episode.events[2].tool_calls[0].id == "call_1"
    assert episode.events[-1].content == "It is 18C."


def test_an_array_led_by_a_record_no_format_reads_is_probed_element_by_element(tmp_path: Path):
    root = {
        "id": "root",
        "op_name": "run_agent",
        "trace_id": "t",
        "inputs": {"question": "Weather in Paris?"},
    }
    calls = _calls("inputs", "output", {"trace_id": "t", "parent_id": "root", "op_name": "openai.chat"})
    _read_as_the_run(write_json(tmp_path, "weave.json", [root, *calls]))


def test_a_list_apis_page_of_logged_calls_is_read_as_its_list(tmp_path: Path):
    for name, page in (
        ("helicone.json", {"data": _calls("request_body", "response_body", {"provider": "OPENAI"})}),
        ("paged.json", {"object": "list", "has_more": False, "results": _calls("request", "response", {})}),
    ):
        _read_as_the_run(write_json(tmp_path, name, page))


def test_pages_a_format_reads_whole_or_none_reads_stay_as_they_were(tmp_path: Path):
    """Controls: a page of thread messages is one conversation, as before; a page of records no
    format reads is still one ``unrecognized format`` reject."""
    messages = [
        {"role": "user", "content": "Hi", "created_at": 1},
        {"role": "assistant", "content": "Hello", "created_at": 2},
    ]
    episode = one_episode(write_json(tmp_path, "thread.json", {"object": "list", "data": messages}))
    assert [e.kind for e in episode.events] == ["user", "assistant"]
    odd = write_json(tmp_path, "odd.json", {"data": [{"sku": 1, "price": 2}], "next": None})
    result = ingest_paths([odd])
    assert [r.reason for r in result.rejects] == ["unrecognized format"] and not result.episodes


def test_a_stored_sessions_runs_are_each_an_episode(tmp_path: Path):
    """Agno stores a session as ``{"session_id", "memory": {"runs": [...]}}``, each run's response
    holding the messages of its model calls: each run is read as the record it is."""
    answer = {"role": "assistant", "content": "It is 18C."}
    run = {
        "message": USER,
        "response": {"content": "It is 18C.", "messages": [SYSTEM, USER, CALLING, RESULT, answer]},
    }
    again = {"role": "user", "content": "And tomorrow?"}
    later = {
        "message": again,
        "response": {"messages": [SYSTEM, again, {"role": "assistant", "content": "Rain."}]},
    }
    session = {
        "session_id": "s1",
        "agent_id": "a1",
        "memory": {"runs": [run, later]},
        "agent_data": {"name": "w"},
    }
    result = ingest_paths([write_json(tmp_path, "session.json", session)])
    assert result.rejects == [] and result.records_in == 2
    assert sorted(e.events[-1].content or "" for e in result.episodes) == ["It is 18C.", "Rain."]


def test_a_document_wrapping_two_lists_is_not_taken_for_a_page(tmp_path: Path):
    """Control: which list holds the records cannot be told; the file stays one reject."""
    odd = write_json(
        tmp_path, "two.json", {"runs": [{"response": {"messages": [USER]}}], "users": [{"id": 1}]}
    )
    assert [r.reason for r in ingest_paths([odd]).rejects] == ["unrecognized format"]
