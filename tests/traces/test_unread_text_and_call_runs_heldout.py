"""Held-out validation (kept apart from test_text_under_other_keys.py, test_claude_code_title_lines.py
and test_calls_logged_alone_by_provider_formats.py), written before they were run: text under other
keys, string answers, all-user group chats, Claude Code title lines, provider call logs grouped,
and a chain of two handoffs (test_handoff_call_keeps_its_own_instructions.py)."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.training.data.serialize import plan_examples, select_targets


def _result(path: Path):
    return ingest_paths([path])


def test_a_bare_list_of_messages_writing_message_is_read(tmp_path: Path):
    messages = [
        {"role": "user", "message": "Deploy the branch", "timestamp": "2025-03-01T10:00:00Z"},
        {"role": "assistant", "message": "Deploying now.", "timestamp": "2025-03-01T10:00:02Z"},
    ]
    episode = one_episode(write_json(tmp_path, "session.json", messages))
    assert [e.content for e in episode.events] == ["Deploy the branch", "Deploying now."]


def test_a_tool_observation_is_the_tools_output(tmp_path: Path):
    call = {"id": "k1", "type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}
    messages = [
        {"role": "user", "content": "find x"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "name": "search", "tool_call_id": "k1", "observation": "x is at 3"},
        {"role": "assistant", "content": "At 3."},
    ]
    episode = one_episode(write_jsonl(tmp_path, "react.jsonl", [{"messages": messages}]))
    assert (episode.events[2].kind, episode.events[2].content) == ("tool", "x is at 3")


def test_a_transcript_field_beside_no_content_is_refused_by_name(tmp_path: Path):
    messages = [{"role": "user", "transcript": "I need a refund"}, {"role": "assistant", "content": "Sure."}]
    result = _result(write_jsonl(tmp_path, "voice.jsonl", [{"messages": messages}]))
    assert result.episodes == [] and [r.reason for r in result.rejects] == ["unread message text"]
    assert "transcript" in (result.rejects[0].detail or "")


def test_a_completion_string_in_a_json_array_of_calls_is_the_answer(tmp_path: Path):
    calls = [
        {
            "messages": [{"role": "system", "content": "Terse."}, {"role": "user", "content": "2+2"}],
            "completion": "4",
        },
        {"messages": [{"role": "user", "content": "capital of France"}], "output": "Paris"},
    ]
    result = _result(write_json(tmp_path, "calls.json", calls))
    assert result.rejects == []
    assert sorted(ep.events[-1].content for ep in result.episodes) == ["4", "Paris"]
    assert all(ep.events[-1].kind == "assistant" for ep in result.episodes)


def test_a_two_agent_group_chat_of_users_is_refused(tmp_path: Path):
    messages = [
        {"role": "system", "content": "Group chat"},
        {"role": "user", "name": "Critic", "content": "The draft is too long."},
        {"role": "user", "name": "Writer", "content": "Shortened it."},
    ]
    result = _result(write_jsonl(tmp_path, "gc.jsonl", [{"messages": messages}]))
    assert result.episodes == [] and [r.reason for r in result.rejects] == ["no model turn"]


def test_title_lines_of_a_resumed_session_are_titles(tmp_path: Path):
    session = "s-1"
    lines = [
        {"type": "summary", "summary": "Flaky test hunt", "leafUuid": "other-file-1"},
        {"type": "summary", "summary": "CI Cache Setup", "leafUuid": "other-file-2"},
        {
            "type": "user",
            "sessionId": session,
            "uuid": "a",
            "parentUuid": None,
            "message": {"role": "user", "content": "Why is test_io flaky?"},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "b",
            "parentUuid": "a",
            "message": {"id": "m", "role": "assistant", "content": [{"type": "text", "text": "A race."}]},
        },
    ]
    episode = one_episode(write_jsonl(tmp_path, "s.jsonl", lines))
    assert [e.kind for e in episode.events] == ["user", "assistant"]
    assert [t["title"] for t in json.loads(episode.extra_json)["titles"]] == [
        "Flaky test hunt",
        "CI Cache Setup",
    ]


def test_a_stateless_responses_run_of_three_calls_is_one_episode(tmp_path: Path):
    ask = [{"role": "user", "content": "Which files changed?"}]
    c1 = {"type": "function_call", "call_id": "c1", "name": "git", "arguments": '{"a": "status"}'}
    o1 = {"type": "function_call_output", "call_id": "c1", "output": "a.py"}
    c2 = {"type": "function_call", "call_id": "c2", "name": "git", "arguments": '{"a": "diff"}'}
    o2 = {"type": "function_call_output", "call_id": "c2", "output": "+x"}
    said = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "a.py gained x."}],
    }
    lines = [
        {"model": "gpt-4.1", "input": ask, "output": [c1]},
        {"model": "gpt-4.1", "input": [*ask, c1, o1], "output": [c2]},
        {"model": "gpt-4.1", "input": [*ask, c1, o1, c2, o2], "output": [said]},
    ]
    result = _result(write_jsonl(tmp_path, "responses.jsonl", lines))
    assert result.rejects == [] and len(result.episodes) == 1
    assert [e.kind for e in result.episodes[0].events] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]


def test_a_bedrock_invocation_log_run_is_one_episode(tmp_path: Path):
    ask = {"role": "user", "content": [{"text": "Disk usage?"}]}
    call = {"role": "assistant", "content": [{"toolUse": {"toolUseId": "d", "name": "df", "input": {}}}]}
    back = {"role": "user", "content": [{"toolResult": {"toolUseId": "d", "content": [{"text": "80%"}]}}]}
    done = {"role": "assistant", "content": [{"text": "80% used."}]}

    def line(request_id: str, messages: list, answer: dict, stop: str) -> dict:
        return {
            "schemaType": "ModelInvocationLog",
            "schemaVersion": "1.0",
            "timestamp": "2025-02-02T00:00:00Z",
            "requestId": request_id,
            "operation": "Converse",
            "modelId": "amazon.nova-lite-v1:0",
            "input": {"inputContentType": "application/json", "inputBodyJson": {"messages": messages}},
            "output": {
                "outputContentType": "application/json",
                "outputBodyJson": {"output": {"message": answer}, "stopReason": stop},
            },
        }

    lines = [line("r-a", [ask], call, "tool_use"), line("r-b", [ask, call, back], done, "end_turn")]
    result = _result(write_jsonl(tmp_path, "invocations.jsonl", lines))
    assert result.rejects == [] and len(result.episodes) == 1
    assert result.episodes[0].events[-1].content == "80% used."


def test_an_agents_sdk_two_handoffs_train_each_call_under_its_agents_instructions(tmp_path: Path):
    ask = {"role": "user", "content": "Cancel my flight and refund it"}

    def hand(call_id: str, name: str) -> list[dict]:
        call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        said = {"role": "assistant", "content": None, "tool_calls": [call]}
        return [said, {"role": "tool", "tool_call_id": call_id, "content": "{}"}]

    to_flights, to_refunds = hand("a", "transfer_to_flights"), hand("b", "transfer_to_refunds")

    def span(sid: str, parent: str, at: int, data: dict) -> dict:
        return {
            "object": "trace.span",
            "id": sid,
            "trace_id": "t",
            "parent_id": parent,
            "started_at": f"2025-05-01T00:00:0{at}Z",
            "span_data": data,
        }

    def gen(system: str, history: list, output: dict) -> dict:
        return {
            "type": "generation",
            "model": "gpt-4o",
            "input": [{"role": "system", "content": system}, *history],
            "output": [output],
        }

    lines = [
        {"object": "trace", "id": "t", "workflow_name": "desk"},
        span("ag1", None, 0, {"type": "agent", "name": "Desk", "handoffs": ["Flights"], "tools": []}),
        span("g1", "ag1", 1, gen("Desk.", [ask], to_flights[0])),
        span("ag2", None, 2, {"type": "agent", "name": "Flights", "handoffs": ["Refunds"], "tools": []}),
        span("g2", "ag2", 3, gen("Flights.", [ask, *to_flights], to_refunds[0])),
        span("ag3", None, 4, {"type": "agent", "name": "Refunds", "tools": []}),
        span(
            "g3",
            "ag3",
            5,
            gen("Refunds.", [ask, *to_flights, *to_refunds], {"role": "assistant", "content": "Done."}),
        ),
    ]
    episode = one_episode(write_jsonl(tmp_path, "agents.jsonl", lines))
    under = {}
    for plan in plan_examples(episode, select_targets(episode)):
        systems = [t.message["content"] for t in plan.turns if t.message["role"] == "system"]
        for turn in plan.turns:
            if turn.target:
                under[str(turn.message.get("tool_calls") or turn.message.get("content"))[:40]] = systems
    assert sorted(map(tuple, under.values())) == [("Desk.",), ("Flights.",), ("Refunds.",)]
