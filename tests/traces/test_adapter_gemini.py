"""Gemini API contents (traces/adapters/gemini.py), written by hand after the published REST and
Python SDK shapes: a logged request with its response, the SDK's snake_case, a bare contents list,
and the record an unknown part rejects with its path while the rest of the file goes on."""

from __future__ import annotations

import json
from pathlib import Path

from handwritten_records import GEMINI_REQUEST as REQUEST
from log_files import write_json, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_logged_request_and_response_become_one_episode(tmp_path: Path):
    result = ingest_paths([write_jsonl(tmp_path, "run.jsonl", [REQUEST])])
    assert result.rejects == []
    (episode,) = result.episodes
    assert episode.source_format == "gemini" and episode.episode_id == "gemini:gem-run-1"
    assert episode.task.fixture_id == "fix-parser-7"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert turn.reasoning == "Read both files." and turn.content is None
    # arguments are the tool's own data: their keys keep the case they were written in
    assert [json.loads(c.arguments or "") for c in turn.tool_calls] == [
        {"filePath": "p.py"},
        {"filePath": "t.py"},
    ]
    results = episode.events[3:5]
    assert [(e.tool_name, e.status) for e in results] == [("read_file", None), ("read_file", "error")]
    assert json.loads(results[0].content or "") == {"content": "def parse(): ..."}
    assert (episode.events[-1].content, episode.events[-1].finish_reason) == ("Fixed.", "STOP")
    assert [t.name for t in episode.tools] == ["read_file", "code_execution"]
    assert json.loads(episode.tools[0].parameters_json or "")["required"] == ["path"]


def test_the_python_sdk_snake_case_and_a_bare_contents_list(tmp_path: Path):
    contents = [
        {"role": "user", "parts": [{"text": "Run it."}]},
        {"role": "model", "parts": [{"executable_code": {"language": "PYTHON", "code": "print(1)"}}]},
        {
            "role": "model",
            "parts": [{"code_execution_result": {"outcome": "OUTCOME_FAILED", "output": "boom"}}],
        },
        {
            "role": "model",
            "parts": [{"inline_data": {"mime_type": "image/png", "data": "AAAA"}}, {"text": "Plot."}],
        },
    ]
    path = write_json(tmp_path, "contents.json", contents)
    adapter = detect_format(SourceFile.read(path))
    assert adapter is not None and adapter.name == "gemini"
    (episode,) = ingest_paths([path]).episodes
    # the code tool's result comes back as a model turn: a tool event, not an empty assistant turn
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    assert episode.events[1].tool_calls[0].name == "code_execution"
    assert (episode.events[2].content, episode.events[2].status) == ("boom", "error")
    assert episode.events[-1].content == "[inline_data]\nPlot."


def test_an_unknown_part_rejects_its_record_with_the_path_and_the_rest_goes_on(tmp_path: Path):
    broken = {**REQUEST, "id": "gem-run-2", "contents": [{"role": "user", "parts": [{"hologram": {}}]}]}
    path = write_jsonl(tmp_path, "mixed.jsonl", [REQUEST, broken])
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["gemini:gem-run-1"]
    (reject,) = result.rejects
    assert reject.source_line == 2 and "contents[0].parts[0]" in (reject.detail or "")
    assert "hologram" in (reject.detail or "")


def test_an_unset_role_is_the_api_default_and_malformed_records_are_rejects(tmp_path: Path):
    records = [
        {
            "contents": [{"parts": [{"text": "What is 2+2?"}]}],
            "candidates": [{"content": {"parts": [{"text": "4"}]}}],
        },
        {"contents": [{"role": ["user"], "parts": []}]},
        {"contents": [{"role": "model", "parts": [{"functionCall": "read_file"}]}]},
        {"contents": [{"role": "user", "parts": [{"text": 5}]}]},
    ]
    path = write_jsonl(tmp_path, "records.jsonl", records)
    result = ingest_paths([path])
    (episode,) = result.episodes
    assert [(e.kind, e.content) for e in episode.events] == [("user", "What is 2+2?"), ("assistant", "4")]
    assert [(r.source_line, r.reason) for r in result.rejects] == [
        (2, "unknown role"),
        (3, "wrong type"),
        (4, "wrong type"),
    ]
