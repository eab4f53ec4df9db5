"""OpenAI Responses API items (traces/adapters/openai_responses.py), written by hand after the
published item types: a logged run, an Agents SDK item list, a response object alone, and the
record an unknown item type rejects with its path while the rest of the file goes on."""

from __future__ import annotations

import json
from pathlib import Path

from handwritten_records import RESPONSES_RUN as RUN
from log_files import write_json, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_logged_run_becomes_one_episode_with_turns_calls_and_results(tmp_path: Path):
    result = ingest_paths([write_jsonl(tmp_path, "run.jsonl", [RUN])])
    assert result.rejects == []
    (episode,) = result.episodes
    assert episode.source_format == "openai-responses" and episode.episode_id == "openai-responses:resp_run_1"
    assert episode.task.fixture_id == "fix-parser-7"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert turn.reasoning == "Read it first." and turn.content is None
    assert [(c.id, c.name) for c in turn.tool_calls] == [("call_a", "read_file"), ("call_b", "read_file")]
    # results kept in arrival order, each paired with its call by call_id
    assert [(e.tool_call_id, e.tool_name, e.content) for e in episode.events[3:5]] == [
        ("call_b", "read_file", "def test(): ..."),
        ("call_a", "read_file", "def parse(): ..."),
    ]
    assert episode.events[-1].content == "Fixed."
    assert [t.name for t in episode.tools] == ["read_file", "web_search"]
    assert json.loads(episode.extra_json or "{}") == {"metadata": RUN["metadata"], "usage": RUN["usage"]}


def test_an_agents_sdk_item_list_with_custom_and_server_side_tools(tmp_path: Path):
    items = [
        {"role": "user", "content": "Search, then patch."},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "parser bug"}},
        {"type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": "*** Begin Patch"},
        {"type": "custom_tool_call_output", "call_id": "call_p", "output": "applied"},
        {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "No more."}]},
    ]
    path = write_json(tmp_path, "items.json", items)
    adapter = detect_format(SourceFile.read(path))
    assert adapter is not None and adapter.name == "openai-responses"
    (episode,) = ingest_paths([path]).episodes
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    search = episode.events[1].tool_calls[0]
    assert (search.id, search.name, json.loads(search.arguments or "")) == (
        "ws_1",
        "web_search",
        {"query": "parser bug"},
    )
    assert json.loads(episode.events[2].content or "") == {"status": "completed"}
    assert (episode.events[3].tool_calls[0].arguments, episode.events[4].tool_name) == (
        "*** Begin Patch",
        "apply_patch",
    )
    assert episode.events[-1].content == "No more."


def test_chat_completions_messages_still_read_as_openai(tmp_path: Path):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    adapter = detect_format(SourceFile.read(write_json(tmp_path, "chat.json", messages)))
    assert adapter is not None and adapter.name == "openai"


def test_a_response_object_alone_is_read(tmp_path: Path):
    response = {"id": "resp_2", "object": "response", "output": RUN["output"], "status": "completed"}
    (episode,) = ingest_paths([write_json(tmp_path, "response.json", response)]).episodes
    assert [e.kind for e in episode.events] == ["assistant"] and episode.events[0].content == "Fixed."


def test_an_unknown_item_type_rejects_its_record_with_the_path_and_the_rest_goes_on(tmp_path: Path):
    # an item no reader knows (``item_reference``, which was this example, has a reject of its own:
    # test_responses_items_and_typed_outputs.py)
    unknown = {**RUN, "id": "resp_3", "input": [RUN["input"][0], {"type": "hologram_call", "id": "x"}]}
    path = write_jsonl(tmp_path, "mixed.jsonl", [RUN, unknown])
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["openai-responses:resp_run_1"]
    (reject,) = result.rejects
    assert reject.source_line == 2 and reject.source_format == "openai-responses"
    assert "input[1].type" in (reject.drop.detail or "") and "hologram_call" in (reject.drop.detail or "")


def test_malformed_items_are_rejects_naming_the_reason(tmp_path: Path):
    records = [
        RUN,  # detection reads the first line; the ill-typed ones follow
        {"input": [{"type": ["function_call"]}]},
        {"input": [{"type": "message", "role": ["user"], "content": "hi"}, {"type": "function_call"}]},
        {"output": [{"type": "reasoning", "summary": "not a list"}], "input": [{"type": "function_call"}]},
    ]
    path = write_jsonl(tmp_path, "bad.jsonl", records)
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["openai-responses:resp_run_1"]
    assert [(r.source_line, r.reason) for r in result.rejects] == [
        (2, "wrong type"),
        (3, "unknown role"),
        (4, "wrong type"),
    ]
