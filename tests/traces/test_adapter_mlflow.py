"""MLflow traces (traces/adapters/mlflow.py), written by hand after ``Trace.to_json()`` in MLflow 3
(OTLP-like spans) and MLflow 2 (``context`` / ``status_code``): an OpenAI-autologged agent's trace,
its chat messages or its inputs and outputs, a failed tool span, and the traces a missing model
call or an odd role reject while the rest goes on."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import MLFLOW_TRACE
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_an_mlflow_3_trace_becomes_one_episode(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "traces.jsonl", [MLFLOW_TRACE]))
    assert episode.source_format == "mlflow" and episode.episode_id == "mlflow:tr-5b8e"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert [c.id for c in turn.tool_calls] == ["call_a", "call_b"]
    assert (turn.finish_reason, turn.input_tokens, turn.output_tokens) == ("tool_calls", 80, 20)
    assert turn.timestamp == "2025-11-04T09:30:01.500000+00:00"
    assert [(e.tool_call_id, e.status) for e in episode.events[3:5]] == [
        ("call_a", None),
        ("call_b", "error"),
    ]
    assert episode.events[-1].content == "Fixed."
    assert [(d.event_indices, d.response_event_index) for d in episode.delivered_inputs] == [
        ([0, 1], 2),
        ([0, 1, 2, 3, 4], 5),
    ]
    assert episode.task.fixture_id == "fix-parser-7" and [t.name for t in episode.tools] == ["read_file"]


def test_an_mlflow_2_trace_reads_the_same(tmp_path: Path):
    trace = copy.deepcopy(MLFLOW_TRACE)
    trace["info"] = {
        "request_id": "tr-5b8e",
        "status": "ERROR",
        "request_metadata": {"task_id": "fix-parser-7"},
    }
    for span in trace["data"]["spans"]:
        span["context"] = {"span_id": span.pop("span_id"), "trace_id": span.pop("trace_id")}
        span["parent_id"] = span.pop("parent_span_id")
        span["start_time"], span["end_time"] = (
            span.pop("start_time_unix_nano"),
            span.pop("end_time_unix_nano"),
        )
        span["status_code"] = span.pop("status")["code"].removeprefix("STATUS_CODE_")
    two = one_episode(write_json(tmp_path, "trace.json", trace))
    three = one_episode(write_jsonl(tmp_path, "traces.jsonl", [MLFLOW_TRACE]))
    assert [(e.kind, e.content, e.status) for e in two.events] == [
        (e.kind, e.content, e.status) for e in three.events
    ]
    assert two.outcome.terminal_status == "error" and two.task.fixture_id == "fix-parser-7"


def test_detection_and_the_traces_that_reject_while_the_rest_goes_on(tmp_path: Path):
    no_model = copy.deepcopy(MLFLOW_TRACE)
    no_model["info"]["trace_id"] = "tr-none"
    no_model["data"]["spans"] = no_model["data"]["spans"][:1]
    odd = copy.deepcopy(MLFLOW_TRACE)
    odd["info"]["trace_id"] = "tr-odd"
    inputs = json.loads(odd["data"]["spans"][1]["attributes"]["mlflow.spanInputs"])
    inputs["messages"][0]["role"] = "narrator"
    odd["data"]["spans"][1]["attributes"]["mlflow.spanInputs"] = json.dumps(inputs)
    path = write_jsonl(tmp_path, "day.jsonl", [MLFLOW_TRACE, no_model, odd])
    assert detect_format(SourceFile.read(path)).name == "mlflow"
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["mlflow:tr-5b8e"]
    assert [(r.source_line, r.reason) for r in result.rejects] == [(2, "no model call"), (3, "unknown role")]
