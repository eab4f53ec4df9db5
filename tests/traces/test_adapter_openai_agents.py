"""OpenAI Agents SDK traces (traces/adapters/openai_agents.py), written by hand after the SDK's span
and trace exports: one export per line, the exporter's batch, spans without their trace, and the
traces a Responses API model, an unknown message or a missing generation reject while the rest goes
on."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import AGENTS_SDK_TRACE
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_trace_with_its_spans_becomes_one_episode(tmp_path: Path):
    path = write_jsonl(tmp_path, "spans.jsonl", AGENTS_SDK_TRACE)
    assert detect_format(SourceFile.read(path)).name == "openai-agents"
    episode = one_episode(path)
    assert episode.episode_id == "openai-agents:trace_1"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert [c.id for c in turn.tool_calls] == ["call_a", "call_b"]
    assert (turn.input_tokens, turn.output_tokens) == (80, 20)
    assert turn.timestamp == "2026-11-04T09:30:01.900000+00:00", "the generation span's end"
    assert [(r.tool_call_id, r.tool_name, r.status) for r in episode.events[3:5]] == [
        ("call_a", "read_file", None),
        ("call_b", "read_file", "error"),
    ], "the second function span failed: it ran the second open call"
    assert [(d.event_indices, d.response_event_index) for d in episode.delivered_inputs] == [
        ([0, 1], 2),
        ([0, 1, 2, 3, 4], 5),
    ]
    assert (episode.task.fixture_id, episode.task.prompt) == ("fix-parser-7", "Fix the parser.")
    assert (episode.outcome.final_answer, episode.outcome.terminal_status) == ("Fixed.", None)
    assert episode.lineage.model == "gpt-4o" and [t.name for t in episode.tools] == ["read_file"]
    assert json.loads(episode.lineage.sampling_params_json or "") == {"temperature": 0}, (
        "unset settings and the serving address are not sampling parameters"
    )


def test_the_exporters_batch_and_spans_without_their_trace(tmp_path: Path):
    batch = one_episode(write_json(tmp_path, "batch.json", {"data": list(reversed(AGENTS_SDK_TRACE))}))
    lines = one_episode(write_jsonl(tmp_path, "spans.jsonl", AGENTS_SDK_TRACE))
    assert [(e.kind, e.content, e.status) for e in batch.events] == [
        (e.kind, e.content, e.status) for e in lines.events
    ], "start times order the spans, not the file"
    alone = one_episode(write_jsonl(tmp_path, "only_spans.jsonl", AGENTS_SDK_TRACE[1:]))
    assert alone.task.fixture_id is None, "the task id lives on the trace, which this export lacks"


def test_an_error_at_the_root_ends_the_episode_error(tmp_path: Path):
    records = copy.deepcopy(AGENTS_SDK_TRACE)
    records[1]["error"] = {"message": "Max turns (10) exceeded", "data": None}
    episode = one_episode(write_jsonl(tmp_path, "t.jsonl", records))
    assert episode.outcome.terminal_status == "error"


def _renamed(trace_id: str) -> list[dict]:
    records = copy.deepcopy(AGENTS_SDK_TRACE)
    records[0]["id"] = trace_id
    for span in records[1:]:
        span["trace_id"] = trace_id
    return records


def test_the_traces_that_reject_while_the_rest_goes_on(tmp_path: Path):
    odd = _renamed("trace_odd")
    odd[2]["span_data"]["input"][0]["role"] = "narrator"
    responses = [
        *_renamed("trace_resp")[:2],
        {
            **AGENTS_SDK_TRACE[2],
            "trace_id": "trace_resp",
            "span_data": {"type": "response", "response_id": "r"},
        },
    ]
    no_model = [*_renamed("trace_none")[:2]]
    lone = {**AGENTS_SDK_TRACE[0], "id": "trace_lone"}
    stray = {"object": "trace.span", "span_data": "not an object"}
    path = write_jsonl(tmp_path, "day.jsonl", [*AGENTS_SDK_TRACE, *odd, *responses, *no_model, lone, stray])
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["openai-agents:trace_1"]
    assert sorted((r.source_path or "", r.source_line or 0, r.reason) for r in result.rejects) == [
        ("", 18, "no model call"),
        ("", 19, "wrong type"),
        ("trace_id=trace_none", 16, "no model call"),
        ("trace_id=trace_odd", 7, "unknown role"),
        ("trace_id=trace_resp", 13, "no model messages"),
    ], "a trace is located at the line it begins, one without spans by that line only, not its id"
    said = next(r.detail for r in result.rejects if r.reason == "no model messages")
    assert "response id" in (said or "")
