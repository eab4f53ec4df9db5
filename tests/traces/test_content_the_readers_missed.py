"""Development half: conversation content the readers lost while the accounting said all was read
(red team rt-fmt5, classes M1-M7), each a clear reject or read in full now. The validation half,
other shapes of the same classes written before they were first run, is the ``_heldout`` file."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

SYSTEM = "You are a support bot."
ASK = [{"role": "user", "content": "Reset my password"}]
ANTHROPIC_ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "Done, check your email."}],
    "stop_reason": "end_turn",
}


def _kinds_and_first(path: Path) -> tuple[list[str], str | None]:
    episode = one_episode(path)
    return [e.kind for e in episode.events], episode.events[0].content


# M3: an Anthropic SDK call's `system` beside its `messages`, as the tracing platforms log its kwargs


def test_langfuse_generation_with_an_anthropic_system_prompt_keeps_it(tmp_path: Path):
    trace = {
        "id": "lf-1",
        "timestamp": "2025-08-01T12:00:00.000Z",
        "observations": [
            {
                "id": "o1",
                "traceId": "lf-1",
                "type": "GENERATION",
                "startTime": "2025-08-01T12:00:00.100Z",
                "model": "claude-3-5-haiku-20241022",
                "input": {"system": SYSTEM, "messages": ASK},
                "output": ANTHROPIC_ANSWER,
            }
        ],
    }
    kinds, first = _kinds_and_first(write_json(tmp_path, "lf.json", trace))
    assert (kinds, first) == (["system", "user", "assistant"], SYSTEM)


def test_mlflow_span_inputs_of_the_anthropic_autolog_keep_the_system_prompt(tmp_path: Path):
    inputs = {"model": "claude-3-5-haiku-20241022", "max_tokens": 256, "system": SYSTEM, "messages": ASK}
    span = {
        "trace_id": "tr-1",
        "span_id": "s1",
        "parent_span_id": None,
        "name": "Messages.create",
        "start_time_unix_nano": 1748772000000000000,
        "end_time_unix_nano": 1748772001000000000,
        "status": {"code": "STATUS_CODE_OK"},
        "attributes": {
            "mlflow.spanType": json.dumps("CHAT_MODEL"),
            "mlflow.spanInputs": json.dumps(inputs),
            "mlflow.spanOutputs": json.dumps(ANTHROPIC_ANSWER),
        },
    }
    trace = {"info": {"trace_id": "tr-1", "request_time": "2025-06-01T10:00:00Z"}, "data": {"spans": [span]}}
    kinds, first = _kinds_and_first(write_json(tmp_path, "ml.json", trace))
    assert (kinds, first) == (["system", "user", "assistant"], SYSTEM)


# M2: a content part whose payload sits under keys the reader does not know


def test_a_tool_result_block_keeping_its_output_under_unknown_keys_is_a_clear_reject(tmp_path: Path):
    conversation = {
        "id": "T-1",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Show main.go"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "m"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "toolUseID": "toolu_1", "run": {"status": "done", "result": "x"}}
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "It prints x."}]},
        ],
    }
    result = ingest_paths([write_json(tmp_path, "amp.json", conversation)])
    assert result.episodes == []
    (reject,) = result.rejects
    assert reject.reason == "unread content part"
    assert (reject.detail or "").startswith("messages[2].content[0] is a tool result with no output")


def test_codex_exec_failed_mcp_call_keeps_the_error_the_model_was_told(tmp_path: Path):
    failed = {
        "id": "item_1",
        "type": "mcp_tool_call",
        "server": "docs",
        "tool": "search",
        "arguments": {"q": "retry"},
        "result": None,
        "error": {"message": "server timed out"},
        "status": "failed",
    }
    events = [
        {"type": "thread.started", "thread_id": "t-1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": failed},
        {
            "type": "item.completed",
            "item": {"id": "item_2", "type": "agent_message", "text": "It timed out."},
        },
        {"type": "turn.completed", "usage": {"input_tokens": 5, "output_tokens": 3}},
    ]
    episode = one_episode(write_jsonl(tmp_path, "exec.jsonl", events))
    (tool,) = [e for e in episode.events if e.kind == "tool"]
    assert (tool.content, tool.status) == ("server timed out", "error")


def test_gemini_function_response_media_parts_are_marked_not_lost(tmp_path: Path):
    response = {"id": "f1", "name": "get_chart", "response": {"output": "attached"}}
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    record = {
        "contents": [
            {"role": "user", "parts": [{"text": "Show the chart"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "f1", "name": "get_chart", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {**response, "parts": [image]}}]},
        ],
        "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": "Sales rose."}]}}]},
    }
    episode = one_episode(write_jsonl(tmp_path, "g.jsonl", [record]))
    (tool,) = [e for e in episode.events if e.kind == "tool"]
    assert tool.content == '{"output":"attached"}\n[inline_data]'


# M1: an entry type Claude Code does not write, carrying a call, in a Claude Code-shaped stream


def test_a_stream_with_unknown_entries_that_carry_calls_is_rejected_not_counted(tmp_path: Path):
    session = "cursor-1"
    said = {"role": "assistant", "content": [{"type": "text", "text": "Reading it."}]}
    lines = [
        {"type": "system", "subtype": "init", "session_id": session, "model": "m"},
        {"type": "user", "message": {"role": "user", "content": "Count lines"}, "session_id": session},
        {"type": "assistant", "message": said, "session_id": session},
        {
            "type": "tool_call",
            "call_id": "c1",
            "tool_call": {"read": {"args": {"p": "a"}}},
            "session_id": session,
        },
        {"type": "result", "subtype": "success", "result": "3 lines", "session_id": session},
    ]
    result = ingest_paths([write_jsonl(tmp_path, "cursor.jsonl", lines)])
    assert result.episodes == []
    (reject,) = result.rejects
    assert reject.reason == "unknown entry"
    assert (reject.detail or "").startswith("line 4 is an entry of type 'tool_call'")


def test_an_unknown_entry_without_conversation_content_is_still_counted(tmp_path: Path):
    session = "s-1"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "hi"}, "sessionId": session, "uuid": "u1"},
        {"type": "last-prompt", "leafUuid": "u1", "sessionId": session},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": "hello"},
            "sessionId": session,
            "uuid": "a1",
        },
    ]
    episode = one_episode(write_jsonl(tmp_path, "s.jsonl", lines))
    assert json.loads(episode.extra_json or "{}")["skipped_entries"] == {"last-prompt": 1}


# M7: Claude Code sessions joined by an entry uuid they share, the later one's entries dropped


def _session(session: str, prompt: str, answer: str) -> list[dict]:
    return [
        {
            "type": "user",
            "sessionId": session,
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": prompt},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": f"m-{session}",
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
            },
        },
    ]


def test_sessions_whose_entry_ids_collide_with_other_content_are_a_conflict_naming_both_files(tmp_path: Path):
    write_jsonl(tmp_path, "one.jsonl", _session("s-1", "List files", "Two files."))
    write_jsonl(tmp_path, "two.jsonl", _session("s-2", "Run tests", "All pass."))
    result = ingest_paths([tmp_path])
    assert result.episodes == [] and result.records_in == 1
    (reject,) = result.rejects
    assert reject.reason == "conflicting entries"
    assert "one.jsonl" in (reject.detail or "") and "two.jsonl" in (reject.detail or "")


def test_a_resumption_copying_the_same_entries_is_still_one_session(tmp_path: Path):
    first = _session("s-1", "List files", "Two files.")
    write_jsonl(tmp_path, "one.jsonl", first)
    resumed = [{**entry, "sessionId": "s-2"} for entry in first]
    resumed.append(
        {
            "type": "user",
            "sessionId": "s-2",
            "uuid": "u2",
            "parentUuid": "a1",
            "message": {"role": "user", "content": "thanks"},
        }
    )
    write_jsonl(tmp_path, "two.jsonl", resumed)
    (episode,) = ingest_paths([tmp_path]).episodes
    assert [e.kind for e in episode.events] == ["user", "assistant", "user"]
    assert json.loads(episode.extra_json or "{}")["skipped_entries"] == {"repeated": 2}


# M6: Gemini CLI's logs.json, the prompts typed in each session, read as a conversation


def _prompt(session: str, number: int, text: str) -> dict:
    return {"sessionId": session, "messageId": number, "type": "user", "message": text}


def test_a_prompt_log_of_several_sessions_is_rejected_not_merged(tmp_path: Path):
    logs = [
        _prompt("s-1", 0, "explain this repo"),
        _prompt("s-1", 1, "/quit"),
        _prompt("s-2", 0, "add tests"),
    ]
    result = ingest_paths([write_json(tmp_path, "logs.json", logs)])
    assert result.episodes == []
    assert [r.reason for r in result.rejects] == ["several conversations"]


def test_a_prompt_log_of_one_session_is_a_prompt_log_reject(tmp_path: Path):
    logs = [_prompt("s-1", 0, "explain this repo"), _prompt("s-1", 1, "/quit")]
    result = ingest_paths([write_json(tmp_path, "logs.json", logs)])
    assert result.episodes == []
    assert [r.reason for r in result.rejects] == ["prompt log"]


# M4: lists of role messages that are not one conversation


def test_a_message_tree_with_nested_replies_is_rejected_not_read_as_turns(tmp_path: Path):
    follow_up = {"message_id": "m4", "text": "Example?", "role": "prompter", "replies": []}
    first = {
        "message_id": "m2",
        "text": "A function calling itself.",
        "role": "assistant",
        "replies": [follow_up],
    }
    second = {"message_id": "m3", "text": "A loop.", "role": "assistant", "replies": []}
    tree = {
        "message_tree_id": "t1",
        "prompt": {
            "message_id": "m1",
            "text": "Explain recursion",
            "role": "prompter",
            "replies": [first, second],
        },
    }
    result = ingest_paths([write_jsonl(tmp_path, "trees.jsonl", [tree])])
    assert result.episodes == [] and [r.reason for r in result.rejects] == ["message tree"]


def test_conversations_side_by_side_in_one_record_are_rejected_not_one_kept(tmp_path: Path):
    def talk(ask: str, answer: str) -> list[dict]:
        return [{"role": "user", "content": ask}, {"role": "assistant", "content": answer}]

    columns = {"messages": {"0": talk("hi", "hello"), "1": talk("bye", "goodbye")}}
    result = ingest_paths([write_json(tmp_path, "columns.json", columns)])
    assert result.episodes == [] and [r.reason for r in result.rejects] == ["several conversations"]


def test_a_branch_regenerated_away_is_not_appended_as_the_answer(tmp_path: Path):
    def node(uid: str, parent: str | None, children: list[str], role: str, text: str) -> dict:
        return {"id": uid, "parentId": parent, "childrenIds": children, "role": role, "content": text}

    ask = node("q1", None, ["r1", "r2"], "user", "Capital of Australia?")
    wrong, right = (
        node("r1", "q1", [], "assistant", "Sydney."),
        node("r2", "q1", [], "assistant", "Canberra."),
    )
    history = {"currentId": "r2", "messages": {"q1": ask, "r1": wrong, "r2": right}}
    export = [{"id": "ow-1", "chat": {"messages": [ask, right], "history": history}}]
    episode = one_episode(write_json(tmp_path, "webui.json", export))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Capital of Australia?"),
        ("assistant", "Canberra."),
    ]


# M5: a sub-agent's whole conversation nested below the record's top level


def test_a_member_agents_conversation_nested_in_the_record_is_not_kept_as_an_extra_field(tmp_path: Path):
    call = {"id": "f1", "type": "function", "function": {"name": "get_price", "arguments": "{}"}}
    member = [
        {"role": "user", "content": "Get AAPL price"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "f1", "content": "190"},
        {"role": "assistant", "content": "AAPL is 190."},
    ]
    run = {
        "run_id": "r1",
        "messages": [{"role": "user", "content": "AAPL price?"}, {"role": "assistant", "content": "190."}],
        "member_responses": [{"run_id": "m1", "messages": member}],
    }
    result = ingest_paths([write_json(tmp_path, "team.json", run)])
    assert result.episodes == []
    (reject,) = result.rejects
    assert reject.reason == "unread conversation content"
    assert (reject.detail or "").startswith("member_responses.messages holds a conversation")


# Unclear rejects made clear (or read)


def test_letta_stream_facts_after_the_messages_do_not_reject_the_conversation(tmp_path: Path):
    messages = [
        {"id": "m1", "message_type": "user_message", "content": "2+2?"},
        {"id": "m2", "message_type": "assistant_message", "content": "4"},
        {"message_type": "stop_reason", "stop_reason": "end_turn"},
        {"message_type": "usage_statistics", "completion_tokens": 5, "prompt_tokens": 50},
    ]
    episode = one_episode(write_json(tmp_path, "letta.json", messages))
    assert [(e.kind, e.content) for e in episode.events] == [("user", "2+2?"), ("assistant", "4")]


def test_text_kept_as_parts_under_an_unknown_field_is_named(tmp_path: Path):
    thread = {
        "version": "0.2.0",
        "messages": [
            {"id": 0, "role": "user", "segments": [{"type": "text", "text": "hi"}], "tool_uses": []},
            {"id": 1, "role": "assistant", "segments": [{"type": "text", "text": "hello"}], "tool_uses": []},
        ],
    }
    result = ingest_paths([write_json(tmp_path, "thread.json", thread)])
    assert result.episodes == []
    (reject,) = result.rejects
    assert (reject.reason, (reject.detail or "").split(" holds")[0]) == (
        "unread message text",
        "messages[0].segments",
    )


def test_an_anthropic_dialect_message_naming_its_speaker_as_sender_is_read(tmp_path: Path):
    use = {"type": "tool_use", "id": "t1", "name": "web_search", "input": {"q": "oslo"}}
    export = [
        {
            "uuid": "c1",
            "chat_messages": [
                {"sender": "human", "content": [{"type": "text", "text": "Rain in Oslo?"}]},
                {"sender": "assistant", "content": [use]},
                {
                    "sender": "human",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "rain"}],
                },
                {"sender": "assistant", "content": [{"type": "text", "text": "Yes."}]},
            ],
        }
    ]
    episode = one_episode(write_json(tmp_path, "claude_ai.json", export))
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]


def test_a_bare_list_rejected_under_a_key_the_file_lacks_says_so(tmp_path: Path):
    conversation = [
        {"role": "user", "type": "message", "content": "2**10?"},
        {"role": "assistant", "type": "code", "format": "python", "content": "print(2**10)"},
        {"role": "computer", "type": "console", "format": "output", "content": "1024"},
    ]
    result = ingest_paths([write_json(tmp_path, "oi.json", conversation)])
    (reject,) = result.rejects
    assert (reject.detail or "").endswith(
        "(the file is a bare list, read as the openai-responses format's input)"
    )


def test_a_langsmith_run_whose_outputs_is_an_anthropic_message_is_read(tmp_path: Path):
    call = {"type": "tool_use", "id": "t1", "name": "send_reset", "input": {"email": "a"}}
    run = {
        "id": "r-2",
        "trace_id": "r-2",
        "parent_run_id": None,
        "run_type": "llm",
        "start_time": "2025-09-01T10:00:00",
        "inputs": {"system": SYSTEM, "messages": ASK, "max_tokens": 100},
        "outputs": {**ANTHROPIC_ANSWER, "content": [call], "stop_reason": "tool_use"},
    }
    episode = one_episode(write_jsonl(tmp_path, "runs.jsonl", [run]))
    assert [e.kind for e in episode.events] == ["system", "user", "assistant"]
    assert [c.name for c in episode.events[-1].tool_calls] == ["send_reset"]
