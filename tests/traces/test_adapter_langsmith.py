"""LangSmith run exports (traces/adapters/langsmith.py), written by hand after LangSmith's Run schema
and LangChain's message serialization: a LangChain agent's trace as list_runs exports it, the same
trace as a nested run tree, a traced OpenAI client (role dicts and a Chat Completions response),
and the traces an unknown message or a missing model call reject while the rest goes on."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import LANGSMITH_RUNS
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_an_agent_trace_becomes_one_episode_with_each_model_call_delivered(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "runs.jsonl", LANGSMITH_RUNS))
    assert episode.source_format == "langsmith" and episode.episode_id == "langsmith:tr-1"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert [(c.id, json.loads(c.arguments or "")) for c in turn.tool_calls] == [
        ("call_a", {"path": "p.py"}),
        ("call_b", {"path": "t.py"}),
    ]
    assert (turn.finish_reason, turn.input_tokens, turn.output_tokens) == ("tool_calls", 80, 20)
    results = episode.events[3:5]
    assert [(r.tool_call_id, r.tool_name, r.status) for r in results] == [
        ("call_a", "read_file", "ok"),
        ("call_b", "read_file", "error"),
    ]
    final = episode.events[-1]
    assert (final.content, final.finish_reason, final.timestamp) == (
        "Fixed.",
        "stop",
        "2026-11-04T09:30:06.000000",
    )
    assert [(d.event_indices, d.response_event_index) for d in episode.delivered_inputs] == [
        ([0, 1], 2),
        ([0, 1, 2, 3, 4], 5),
    ]
    assert episode.task.fixture_id == "fix-parser-7" and episode.outcome.final_answer == "Fixed."
    assert episode.lineage.model == "gpt-4o" and [t.name for t in episode.tools] == ["read_file"]
    assert episode.partition_date is not None and episode.partition_date.isoformat() == "2026-11-04"


def test_a_failed_tool_run_without_a_tool_message_marks_its_call_by_name(tmp_path: Path):
    runs = copy.deepcopy(LANGSMITH_RUNS)
    last = runs[-1]["inputs"]["messages"][0]
    last[-1]["kwargs"].pop("status")  # the model saw the error text, the message carried no status
    episode = one_episode(write_jsonl(tmp_path, "runs.jsonl", runs))
    assert [e.status for e in episode.events if e.kind == "tool"] == ["ok", "error"], "the failed tool run"


def test_a_nested_run_tree_reads_as_the_flat_export(tmp_path: Path):
    root, *children = copy.deepcopy(LANGSMITH_RUNS)
    tree = {**root, "child_runs": children}
    flat = one_episode(write_jsonl(tmp_path, "flat.jsonl", LANGSMITH_RUNS))
    nested = one_episode(write_json(tmp_path, "tree.json", tree))
    assert [(e.kind, e.content, e.tool_call_id, e.status) for e in nested.events] == [
        (e.kind, e.content, e.tool_call_id, e.status) for e in flat.events
    ]


def test_a_traced_openai_client_with_role_messages_and_a_chat_completion(tmp_path: Path):
    run = {
        "id": "r-9",
        "trace_id": "r-9",
        "run_type": "llm",
        "name": "ChatOpenAI",
        "inputs": {
            "messages": [{"role": "user", "content": "What is 2+2?"}],
            "model": "gpt-4o-mini",
            "tools": [{"type": "function", "function": {"name": "calc", "parameters": {"type": "object"}}}],
        },
        "outputs": {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "calc", "arguments": '{"e": "2+2"}'},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 12, "completion_tokens": 7},
        },
        "extra": {"metadata": {"ls_model_name": "gpt-4o-mini"}},
    }
    episode = one_episode(write_jsonl(tmp_path, "openai.jsonl", [run]))
    assert [e.kind for e in episode.events] == ["user", "assistant"]
    answer = episode.events[-1]
    assert answer.tool_calls[0].name == "calc" and (answer.input_tokens, answer.output_tokens) == (12, 7)
    assert episode.lineage.model == "gpt-4o-mini" and episode.tools[0].name == "calc"


def test_detection_and_the_traces_that_reject_while_the_rest_goes_on(tmp_path: Path):
    path = write_jsonl(tmp_path, "runs.jsonl", LANGSMITH_RUNS)
    assert detect_format(SourceFile.read(path)).name == "langsmith"
    odd = copy.deepcopy(LANGSMITH_RUNS[1])
    odd.update(id="x", trace_id="tr-2", parent_run_id=None)
    odd["inputs"]["messages"][0][1]["id"][-1] = "HologramMessage"
    only_chain = {**LANGSMITH_RUNS[0], "id": "tr-3", "trace_id": "tr-3"}
    result = ingest_paths([write_jsonl(tmp_path, "day.jsonl", [*LANGSMITH_RUNS, odd, only_chain])])
    assert [e.episode_id for e in result.episodes] == ["langsmith:tr-1"]
    assert sorted((r.source_path, r.reason) for r in result.rejects) == [
        ("trace_id=tr-2", "unknown role"),
        ("trace_id=tr-3", "no model call"),
    ]
    detail = next(r.detail for r in result.rejects if r.source_path == "trace_id=tr-2")
    assert detail.startswith("runs[0].inputs.messages[1].id names")
