"""Amazon Bedrock (traces/adapters/bedrock.py), written by hand after the published Converse API and
model invocation log shapes: a logged Converse request with its response, the invocation log
Bedrock writes for it, Claude's Messages body through InvokeModel, and the records a body stored in
S3, an unknown block or an embedding call reject while the rest of the file goes on."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import BEDROCK_CONVERSE, BEDROCK_INVOCATION_LOG, BEDROCK_RESPONSE
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_converse_request_and_its_response_become_one_episode(tmp_path: Path):
    episode = one_episode(
        write_jsonl(tmp_path, "converse.jsonl", [{**BEDROCK_CONVERSE, "response": BEDROCK_RESPONSE}])
    )
    assert episode.source_format == "bedrock" and episode.task.fixture_id == "fix-parser-7"
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[2]
    assert turn.reasoning == "Read both files." and turn.content is None
    assert [(c.id, json.loads(c.arguments or "")) for c in turn.tool_calls] == [
        ("tooluse_a", {"path": "p.py"}),
        ("tooluse_b", {"path": "t.py"}),
    ]
    # results kept in the order recorded, each named by the call it answers
    results = episode.events[3:5]
    assert [(r.tool_call_id, r.tool_name, r.status) for r in results] == [
        ("tooluse_b", "read_file", "error"),
        ("tooluse_a", "read_file", "ok"),
    ]
    assert json.loads(results[1].content or "") == {"source": "def parse(): ..."}
    final = episode.events[-1]
    assert (final.content, final.finish_reason, final.input_tokens, final.output_tokens) == (
        "Fixed.",
        "end_turn",
        120,
        9,
    )
    (tool,) = episode.tools
    assert tool.name == "read_file" and json.loads(tool.parameters_json or "")["required"] == ["path"]
    assert episode.lineage.model == "anthropic.claude-3-5-sonnet-20240620-v1:0"
    assert json.loads(episode.lineage.sampling_params_json or "") == {"maxTokens": 512, "temperature": 0.0}
    extra = json.loads(episode.extra_json or "")
    assert extra["response"] == {"metrics": {"latencyMs": 812}}
    assert extra["toolConfig"] == {"toolChoice": {"auto": {}}}, "what no event takes is kept"
    assert extra["requestMetadata"] == {"task_id": "fix-parser-7", "team": "agents"}


def test_the_invocation_log_bedrock_writes_reads_as_the_same_conversation(tmp_path: Path):
    logged = one_episode(write_jsonl(tmp_path, "invocations.jsonl", [BEDROCK_INVOCATION_LOG]))
    direct = one_episode(
        write_jsonl(tmp_path, "converse.jsonl", [{**BEDROCK_CONVERSE, "response": BEDROCK_RESPONSE}])
    )
    assert [(e.kind, e.content, e.tool_call_id) for e in logged.events] == [
        (e.kind, e.content, e.tool_call_id) for e in direct.events
    ]
    assert logged.episode_id == "bedrock:b7c1d2e3-0000-4a5b-9c8d-1234567890ab"
    assert logged.events[-1].timestamp == "2026-11-04T09:30:00Z"
    assert logged.partition_date is not None and logged.partition_date.isoformat() == "2026-11-04"
    extra = json.loads(logged.extra_json or "")
    assert extra["operation"] == "Converse" and extra["region"] == "us-east-1"
    assert extra["request"]["toolConfig"] == {"toolChoice": {"auto": {}}}


def test_claude_through_invoke_model_reads_its_messages_body(tmp_path: Path):
    log = copy.deepcopy(BEDROCK_INVOCATION_LOG)
    log["operation"] = "InvokeModel"
    log["input"]["inputBodyJson"] = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 512,
        "system": "You are a careful coding agent.",
        "metadata": {"task_id": "fix-parser-7"},
        "tools": [{"name": "read_file", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Fix the parser."}]}],
    }
    log["output"]["outputBodyJson"] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "p.py"}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 40, "output_tokens": 12},
    }
    episode = one_episode(write_jsonl(tmp_path, "claude.jsonl", [log]))
    assert [e.kind for e in episode.events] == ["system", "user", "assistant"]
    assert (
        episode.events[-1].tool_calls[0].name == "read_file"
        and episode.events[-1].finish_reason == "tool_use"
    )
    assert episode.task.fixture_id == "fix-parser-7" and episode.tools[0].name == "read_file"
    assert json.loads(episode.lineage.sampling_params_json or "") == {"max_tokens": 512}


def test_detection_tells_bedrock_from_anthropic_and_openai(tmp_path: Path):
    converse = write_jsonl(tmp_path, "c.jsonl", [BEDROCK_CONVERSE])
    log = write_jsonl(tmp_path, "l.jsonl", [BEDROCK_INVOCATION_LOG])
    anthropic = write_jsonl(
        tmp_path, "a.jsonl", [{"system": "x", "messages": [{"role": "user", "content": "hi"}]}]
    )
    openai = write_jsonl(
        tmp_path, "o.jsonl", [{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}]
    )
    names = [detect_format(SourceFile.read(p)) for p in (converse, log, anthropic, openai)]
    assert [a.name if a else None for a in names] == ["bedrock", "bedrock", "anthropic", "openai"]


def test_a_body_in_s3_an_unknown_block_or_an_embedding_call_is_a_reject_and_the_rest_goes_on(tmp_path: Path):
    in_s3 = copy.deepcopy(BEDROCK_INVOCATION_LOG)
    in_s3["input"] = {"inputBodyS3Path": "s3://logs/AWSLogs/123/input.json", "inputTokenCount": 90000}
    unknown = copy.deepcopy(BEDROCK_CONVERSE)
    unknown["messages"][0]["content"].append({"hologram": {"bytes": "..."}})
    embedding = copy.deepcopy(BEDROCK_INVOCATION_LOG)
    embedding["input"]["inputBodyJson"] = {"inputText": "a sentence to embed"}
    path = write_jsonl(tmp_path, "day.jsonl", [in_s3, unknown, BEDROCK_INVOCATION_LOG, embedding])
    result = ingest_paths([path])
    assert len(result.episodes) == 1 and result.records_in == 4
    assert [(r.source_line, r.reason) for r in result.rejects] == [
        (1, "body stored apart"),
        (2, "unknown block"),
        (4, "not a conversation"),
    ]
    assert "inputBodyS3Path" in result.rejects[0].detail
    assert result.rejects[1].detail.startswith("messages[0].content[1] has keys 'hologram'")


def test_a_user_turn_keeps_its_results_and_text_in_block_order(tmp_path: Path):
    record = copy.deepcopy(BEDROCK_CONVERSE)
    record["messages"][2]["content"].append({"text": "Also check the tests."})
    record["messages"][2]["content"].insert(0, {"text": "Here is what the tools said."})
    episode = one_episode(write_jsonl(tmp_path, "order.jsonl", [record]))
    assert [(e.kind, e.tool_call_id) for e in episode.events[3:]] == [
        ("user", None),
        ("tool", "tooluse_b"),
        ("tool", "tooluse_a"),
        ("user", None),
    ]
