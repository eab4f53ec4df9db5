"""Langfuse traces (traces/adapters/langfuse.py), written by hand after Langfuse's public API shapes:
a trace with its observations, the same observations exported on their own, a prompt-string
generation, and the traces an unknown message or a missing generation reject while the rest goes
on."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import LANGFUSE_TRACE
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_trace_with_its_observations_becomes_one_episode(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "traces.jsonl", [LANGFUSE_TRACE]))
    assert episode.source_format == "langfuse" and episode.episode_id == "langfuse:lf-1"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert [c.id for c in turn.tool_calls] == ["call_a", "call_b"]
    assert (turn.input_tokens, turn.output_tokens, turn.timestamp) == (80, 20, "2026-11-04T09:30:02.000Z")
    results = episode.events[3:5]
    assert [(r.tool_call_id, r.tool_name, r.status) for r in results] == [
        ("call_a", "read_file", None),
        ("call_b", "read_file", "error"),
    ], "the second read_file observation failed: it ran the second open call"
    assert episode.events[-1].content == "Fixed." and episode.events[-1].input_tokens == 140
    assert [(d.event_indices, d.response_event_index) for d in episode.delivered_inputs] == [
        ([0, 1], 2),
        ([0, 1, 2, 3, 4], 5),
    ]
    assert (episode.task.fixture_id, episode.outcome.final_answer) == ("fix-parser-7", "Fixed.")
    assert episode.lineage.model == "gpt-4o" and [t.name for t in episode.tools] == ["read_file"]
    assert json.loads(episode.lineage.sampling_params_json or "") == {"temperature": 0}


def test_observations_exported_alone_group_by_trace(tmp_path: Path):
    observations = copy.deepcopy(LANGFUSE_TRACE["observations"])
    episode = one_episode(write_jsonl(tmp_path, "observations.jsonl", list(reversed(observations))))
    whole = one_episode(write_jsonl(tmp_path, "traces.jsonl", [LANGFUSE_TRACE]))
    assert [(e.kind, e.content, e.status) for e in episode.events] == [
        (e.kind, e.content, e.status) for e in whole.events
    ], "start times order them, not the file"
    assert episode.task.fixture_id is None, "the task id lives on the trace, which this export lacks"


def test_a_prompt_string_generation_and_an_error_at_the_root(tmp_path: Path):
    trace = {
        "id": "lf-2",
        "observations": [
            {"id": "r", "traceId": "lf-2", "type": "SPAN", "name": "run", "level": "ERROR", "startTime": "1"},
            {
                "id": "g",
                "traceId": "lf-2",
                "type": "GENERATION",
                "parentObservationId": "r",
                "startTime": "2",
                "input": "Say hi.",
                "output": "hi",
            },
        ],
    }
    episode = one_episode(write_jsonl(tmp_path, "t.jsonl", [trace]))
    assert [(e.kind, e.content) for e in episode.events] == [("user", "Say hi."), ("assistant", "hi")]
    assert episode.outcome.terminal_status == "error"


def test_detection_and_the_traces_that_reject_while_the_rest_goes_on(tmp_path: Path):
    odd = copy.deepcopy(LANGFUSE_TRACE)
    odd["id"] = "lf-odd"
    for observation in odd["observations"]:
        observation["traceId"] = "lf-odd"
    odd["observations"][1]["input"]["messages"][0]["role"] = "narrator"
    no_generation = {
        "id": "lf-none",
        "observations": [LANGFUSE_TRACE["observations"][2] | {"traceId": "lf-none"}],
    }
    path = write_jsonl(tmp_path, "day.jsonl", [LANGFUSE_TRACE, odd, no_generation])
    assert detect_format(SourceFile.read(path)).name == "langfuse"
    result = ingest_paths([path])
    assert [e.episode_id for e in result.episodes] == ["langfuse:lf-1"]
    assert sorted((r.source_path, r.reason) for r in result.rejects) == [
        ("traceId=lf-none", "no model call"),
        ("traceId=lf-odd", "unknown role"),
    ]


def test_a_langchain_message_logged_as_a_role_dict_keeps_its_call_arguments(tmp_path: Path):
    trace = {
        "id": "lf-3",
        "observations": [
            {
                "id": "g",
                "traceId": "lf-3",
                "type": "GENERATION",
                "startTime": "1",
                "input": [{"role": "user", "content": "Read p.py."}],
                "output": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"name": "read_file", "args": {"path": "p.py"}, "id": "call_x", "type": "tool_call"}
                    ],
                },
            }
        ],
    }
    (call,) = one_episode(write_jsonl(tmp_path, "t.jsonl", [trace])).events[-1].tool_calls
    assert (call.id, call.name, json.loads(call.arguments or "")) == ("call_x", "read_file", {"path": "p.py"})
