"""ShareGPT conversations with tool calls (traces/adapters/sharegpt.py), written by hand after
LLaMA-Factory's documented tool-use layout: calls without ids paired with their results by
position, tools given as JSON text, and the record a malformed call rejects with its path."""

from __future__ import annotations

import json
from pathlib import Path

from handwritten_records import SHAREGPT_RECORD as RECORD

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_calls_without_ids_take_their_results_in_order(tmp_path: Path):
    path = tmp_path / "sharegpt.jsonl"
    path.write_text(json.dumps(RECORD) + "\n")
    adapter = detect_format(SourceFile.read(path))
    assert adapter is not None and adapter.name == "sharegpt"
    result = ingest_paths([path])
    assert result.rejects == []
    (episode,) = result.episodes
    assert episode.episode_id == "sharegpt:sg-1" and episode.task.fixture_id == "fix-parser-7"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert turn.content == "Reading both files."  # the text and the calls of one turn stay one event
    assert [(c.name, json.loads(c.arguments or "")) for c in turn.tool_calls] == [
        ("read_file", {"path": "p.py"}),
        ("grep", {"q": "def"}),
    ]
    assert [(e.tool_name, e.content) for e in episode.events[3:5]] == [
        ("read_file", "def parse(): ..."),
        ("grep", "p.py:1"),
    ]
    assert [t.name for t in episode.tools] == ["read_file"]


def test_a_malformed_call_or_an_unknown_speaker_rejects_its_record_and_the_rest_goes_on(tmp_path: Path):
    bad_call = {**RECORD, "id": "sg-2", "conversations": [{"from": "function_call", "value": "{name: x"}]}
    bad_speaker = {**RECORD, "id": "sg-3", "conversations": [{"from": "narrator", "value": "Meanwhile"}]}
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (RECORD, bad_call, bad_speaker)) + "\n")
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["sharegpt:sg-1"]
    assert [(r.source_line, r.reason) for r in result.rejects] == [
        (2, "malformed function_call"),
        (3, "unknown speaker"),
    ]
    assert "conversations[0].value" in (result.rejects[0].detail or "")
    assert "'narrator'" in (result.rejects[1].detail or "")


def test_calls_and_tools_of_the_wrong_shape_are_rejects(tmp_path: Path):
    records = [
        {"conversations": [{"from": ["human"], "value": "x"}]},
        {"conversations": [{"from": "function_call", "value": "[1]"}]},
        {"conversations": [{"from": "human", "value": "x"}], "tools": "{not json"},
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    result = ingest_paths([path])
    assert result.episodes == []
    assert [(r.source_line, r.reason) for r in result.rejects] == [
        (1, "unknown speaker"),
        (2, "wrong type"),
        (3, "malformed tools"),
    ]
