"""Responses API items ingest rejected or misread (``openai_responses.py``): the shell and
apply-patch tools' calls and outputs (a non-zero exit or a failed patch an ``error`` result), MCP
approval requests (the model's call; a denial its ``refused`` result; the approved ``mcp_call`` its
result, not a second call), an MCP server's tool listing (counted, no turn) and an item kept on the
server (a clear reject); and the Vercel AI SDK's typed tool output (``content_parts.typed_output``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from log_files import one_episode, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

ASK = {"role": "user", "content": "Go"}
DONE = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}]


def _results(record: dict[str, Any], tmp_path: Path) -> list[tuple[str | None, str | None, str | None]]:
    episode = one_episode(write_jsonl(tmp_path, "r.jsonl", [record]))
    return [(e.tool_call_id, e.content, e.status) for e in episode.events if e.kind == "tool"]


def test_a_shell_run_that_exits_non_zero_is_a_failed_result_with_its_exit_code(tmp_path: Path):
    run = {"stdout": "1 failed", "stderr": "", "outcome": {"type": "exit", "exit_code": 1}}
    record = {
        "input": [
            ASK,
            {"type": "shell_call", "call_id": "s1", "action": {"commands": ["pytest -q"]}},
            {"type": "shell_call_output", "call_id": "s1", "output": [run]},
        ],
        "output": DONE,
    }
    episode = one_episode(write_jsonl(tmp_path, "r.jsonl", [record]))
    result = episode.events[2]
    assert (result.content, result.status, result.exit_code) == ("1 failed", "error", 1)
    assert episode.events[1].tool_calls[0].name == "shell"


def test_a_failed_patch_is_a_failed_result(tmp_path: Path):
    operation = {"type": "update_file", "path": "a.py", "diff": "@@\n-x\n+y\n"}
    record = {
        "input": [
            ASK,
            {"type": "apply_patch_call", "call_id": "p1", "operation": operation},
            {"type": "apply_patch_call_output", "call_id": "p1", "status": "failed", "output": "no match"},
        ],
        "output": DONE,
    }
    assert _results(record, tmp_path) == [("p1", "no match", "error")]


def test_mcp_approvals_are_the_call_and_its_result_or_refusal(tmp_path: Path):
    request = {
        "type": "mcp_approval_request",
        "id": "r1",
        "server_label": "d",
        "name": "roll",
        "arguments": "{}",
    }
    approved = {
        "input": [
            ASK,
            request,
            {"type": "mcp_approval_response", "approval_request_id": "r1", "approve": True},
        ],
        "output": [
            {"type": "mcp_list_tools", "id": "l1", "server_label": "d", "tools": []},
            {
                "type": "mcp_call",
                "id": "m1",
                "approval_request_id": "r1",
                "name": "roll",
                "arguments": "{}",
                "output": "9",
            },
            *DONE,
        ],
    }
    episode = one_episode(write_jsonl(tmp_path, "a.jsonl", [approved]))
    assert [c.id for e in episode.events for c in e.tool_calls] == ["r1"]
    assert [(e.tool_call_id, e.status) for e in episode.events if e.kind == "tool"] == [("r1", None)]
    assert json.loads(episode.extra_json or "")["items_without_event"] == {
        "mcp_approval_response": 1,
        "mcp_list_tools": 1,
    }
    denied = {
        "input": [
            ASK,
            request,
            {"type": "mcp_approval_response", "approval_request_id": "r1", "approve": False, "reason": "No"},
        ],
        "output": DONE,
    }
    assert _results(denied, tmp_path) == [("r1", "No", "refused")]


def test_an_item_kept_on_the_server_is_a_clear_reject(tmp_path: Path):
    record = {"input": [ASK, {"type": "item_reference", "id": "msg_0"}], "output": DONE}
    (reject,) = ingest_paths([write_jsonl(tmp_path, "r.jsonl", [record])]).rejects
    assert reject.reason == "item kept on the server" and "input[1]" in (reject.detail or "")


def test_the_ai_sdks_typed_tool_output_is_its_value_an_error_kind_a_failed_result(tmp_path: Path):
    def logged(output: dict[str, Any]) -> dict[str, Any]:
        call = {"type": "tool-call", "toolCallId": "c1", "toolName": "fetch", "input": {"u": "x"}}
        result = {"type": "tool-result", "toolCallId": "c1", "toolName": "fetch", "output": output}
        answer = {"role": "assistant", "content": [{"type": "text", "text": "Ok."}]}
        return {
            "response": {
                "messages": [
                    {"role": "assistant", "content": [call]},
                    {"role": "tool", "content": [result]},
                    answer,
                ]
            }
        }

    assert _results(logged({"type": "error-text", "value": "404"}), tmp_path) == [("c1", "404", "error")]
    assert _results(logged({"type": "json", "value": {"t": 21}}), tmp_path) == [("c1", '{"t":21}', "ok")]
    denied = logged({"type": "execution-denied", "reason": "no"})
    assert _results(denied, tmp_path) == [("c1", "no", "refused")]


def test_an_agents_sdk_run_results_items_are_read_after_its_input(tmp_path: Path):
    call = {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city":"Paris"}'}
    items = [
        {"type": "tool_call_item", "raw_item": call, "agent": {"name": "Assistant"}},
        {
            "type": "tool_call_output_item",
            "raw_item": {"type": "function_call_output", "call_id": "c1", "output": "Sunny"},
        },
        {"type": "message_output_item", "raw_item": DONE[0], "agent": {"name": "Assistant"}},
    ]
    record = {"input": "Weather in Paris?", "new_items": items, "final_output": "Done."}
    episode = one_episode(write_jsonl(tmp_path, "run.jsonl", [record]))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Weather in Paris?"),
        ("assistant", None),
        ("tool", "Sunny"),
        ("assistant", "Done."),
    ]
