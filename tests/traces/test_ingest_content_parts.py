"""Structured content ingest does not know is never read as text nor lost without a count
(traces/adapters/content_parts.py): tool calls, tool results and reasoning in any framework's
content parts are read as such, the final answer a logged call carries (its ``response``, a stream
of chunks, DSPy's ``outputs``) is the episode's last turn, ``n`` > 1 choices say which one was
taken, roles recorded from another agent's point of view are put right, and a part of a kind no
reader knows rejects its record naming file, line and type, never its text."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from handwritten_records import FRAMEWORK_CHATS, LANGSMITH_RUNS, PYDANTIC_AI_MESSAGES, STREAMED_GATEWAY_CALL
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode

SECRET = "AKIAQWERTYUIOP234567"


def _calls(episode: Episode) -> list[tuple[str | None, str | None, dict]]:
    return [(c.id, c.name, json.loads(c.arguments or "null")) for e in episode.events for c in e.tool_calls]


def _no_placeholder(episode: Episode) -> None:
    """No event says ``[type]`` for a part it did not read."""
    for event in episode.events:
        assert not (event.content or "").lstrip().startswith("["), event


@pytest.mark.parametrize("framework", sorted(FRAMEWORK_CHATS))
def test_tool_call_and_result_parts_are_read_as_a_call_and_its_result(framework: str, tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "chat.jsonl", [FRAMEWORK_CHATS[framework]]))
    assert _calls(episode) == [("call_1", "weather", {"city": "Rome"})]
    (result,) = [e for e in episode.events if e.kind == "tool"]
    assert (result.tool_call_id, result.content) == ("call_1", "sunny") and result.status != "error"
    turn = next(e for e in episode.events if e.tool_calls)
    assert turn.kind == "assistant" and turn.content == "Checking."
    assert episode.events[-1].content == "Sunny in Rome."
    _no_placeholder(episode)


def test_a_reasoning_part_is_the_turns_reasoning_not_its_text(tmp_path: Path):
    turn = {
        "role": "assistant",
        "content": [{"type": "reasoning", "text": "It is 18."}, {"type": "text", "text": "18C."}],
    }
    episode = one_episode(write_jsonl(tmp_path, "chat.jsonl", [{"messages": [turn]}]))
    (event,) = episode.events
    assert (event.content, event.reasoning) == ("18C.", "It is 18.")


def test_a_structured_tool_output_is_kept_as_json_not_a_marker(tmp_path: Path):
    chat = copy.deepcopy(FRAMEWORK_CHATS["vercel-ai"])
    chat["messages"][2]["content"][0]["result"] = {"temp": 18}
    episode = one_episode(write_jsonl(tmp_path, "chat.jsonl", [chat]))
    assert [e.content for e in episode.events if e.kind == "tool"] == ['{"temp":18}']


def test_anthropic_server_tool_results_follow_the_turn_that_ran_them(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "a.jsonl", [FRAMEWORK_CHATS["anthropic-mcp"]]))
    assert [e.kind for e in episode.events] == ["system", "user", "assistant", "tool", "assistant"]
    assert episode.events[3].tool_name == "weather", "named after the call it answers"


@pytest.mark.parametrize(
    ("name", "part"),
    [
        ("openai.jsonl", {"type": "citation_block", "cited": SECRET}),
        ("openai.jsonl", {"frobnicate": [SECRET]}),
    ],
)
def test_a_part_of_an_unknown_kind_rejects_its_record_naming_file_line_and_type(
    name: str, part: dict, tmp_path: Path
):
    good = FRAMEWORK_CHATS["vercel-ai"]
    bad = {"messages": [{"role": "assistant", "content": [{"type": "text", "text": "Hi."}, part]}]}
    result = ingest_paths([write_jsonl(tmp_path, name, [good, bad, good])])
    assert result.normalized == 2, "the rest of the file goes on"
    (reject,) = result.rejects
    assert (reject.source_line, reject.reason) == (2, "unknown content part")
    assert "messages[0].content[1]" in (reject.detail or "")
    assert SECRET not in (reject.detail or "") and SECRET not in (reject.excerpt or "")
    if "type" in part:
        assert "'citation_block'" in (reject.detail or ""), "the part's type is named"


def test_an_anthropic_block_of_an_unknown_kind_is_no_text(tmp_path: Path):
    record = copy.deepcopy(FRAMEWORK_CHATS["anthropic-mcp"])
    # no block the Messages API documents (``container_upload``, which was this example, is one now
    # read as an attached file's marker): a kind no reader knows
    record["messages"][2]["content"].append({"type": "hologram_block", "file_id": "f1"})
    result = ingest_paths([write_jsonl(tmp_path, "a.jsonl", [FRAMEWORK_CHATS["anthropic-mcp"], record])])
    assert [(r.reason, r.source_line) for r in result.rejects] == [("unknown content part", 2)]


def test_a_tool_call_that_names_no_tool_is_rejected(tmp_path: Path):
    chat = copy.deepcopy(FRAMEWORK_CHATS["openai-custom-tool"])
    chat["messages"][1]["tool_calls"][0]["custom"].pop("name")
    result = ingest_paths([write_jsonl(tmp_path, "chat.jsonl", [chat])])
    assert [r.reason for r in result.rejects] == ["unnamed tool call"]


MESSAGES = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
]


@pytest.mark.parametrize(
    "record",
    [
        {
            **{"system": "Be brief."},
            "messages": MESSAGES[1:],
            "response": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": "9C."}],
                "stop_reason": "end_turn",
            },
        },
        {
            "messages": MESSAGES,
            "response": {"choices": [{"index": 0, "message": {"role": "assistant", "content": "9C."}}]},
        },
        {"messages": MESSAGES, "response": None, "outputs": ["9C."], "model": "openai/gpt-4o-mini"},
        {
            "request": {"messages": MESSAGES},
            "response": {
                "body": 'data: {"choices":[{"delta":{"content":"9"}}]}\n\n'
                'data: {"choices":[{"delta":{"content":"C."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
            },
        },
    ],
    ids=["anthropic-response", "openai-response", "dspy-outputs", "sse-stream"],
)
def test_the_answer_a_logged_call_carries_is_its_last_turn(record: dict, tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", [record]))
    answer = episode.events[-1]
    assert (answer.kind, answer.content) == ("assistant", "9C.")
    assert [e.kind for e in episode.events[:-1]] == ["system", "user"]
    assert episode.delivered_inputs[0].response_event_index == len(episode.events) - 1


def test_a_streamed_answer_is_its_chunks_added_up(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "gateway.jsonl", [STREAMED_GATEWAY_CALL]))
    answer = episode.events[-1]
    assert answer.content == "Fixing."
    assert _calls(episode) == [("call_1", "edit", {"path": "a.py"})]
    assert (answer.finish_reason, answer.input_tokens, answer.output_tokens) == ("tool_calls", 9, 4)


def test_of_several_choices_the_lowest_index_is_taken_and_said(tmp_path: Path):
    choices = [
        {"index": 1, "message": {"role": "assistant", "content": "Blue"}, "finish_reason": "stop"},
        {"index": 0, "message": {"role": "assistant", "content": "Red"}, "finish_reason": "stop"},
    ]
    record = {
        "request": {"messages": [{"role": "user", "content": "A color?"}], "n": 2},
        "response": {"choices": choices},
    }
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", [record]))
    assert episode.events[-1].content == "Red"
    assert episode.extra()["choices_taken"] == [{"call": 0, "index": 1, "of": 2}], "which of how many"


def test_a_chat_history_from_the_proxys_point_of_view_trains_the_agent_that_calls_tools(tmp_path: Path):
    history = [
        {"content": "What is 6*7?", "role": "assistant", "name": "user_proxy"},
        {
            "content": None,
            "role": "assistant",
            "name": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "mul", "arguments": "[6,7]"}}
            ],
        },
        {
            "content": "42",
            "role": "tool",
            "name": "user_proxy",
            "tool_responses": [{"tool_call_id": "c1", "role": "tool", "content": "42"}],
        },
        {"content": "42. TERMINATE", "role": "user", "name": "assistant"},
    ]
    episode = one_episode(write_json(tmp_path, "chat.json", {"chat_history": history, "summary": "42"}))
    assert [(e.kind, e.name) for e in episode.events] == [
        ("user", "user_proxy"),
        ("assistant", "assistant"),
        ("tool", "user_proxy"),  # the agent that ran the tool (test_ag2_speaker_names.py)
        ("assistant", "assistant"),
    ]
    assert episode.events[2].tool_call_id == "c1"


def test_a_speaker_in_both_roles_with_no_single_tool_caller_is_rejected(tmp_path: Path):
    history = [
        {"content": "Hi", "role": "assistant", "name": "a"},
        {"content": "Hello", "role": "user", "name": "a"},
    ]
    result = ingest_paths([write_json(tmp_path, "chat.json", {"messages": history})])
    assert [r.reason for r in result.rejects] == ["ambiguous speaker roles"]


def test_what_a_user_proxy_relays_is_a_persons_turn(tmp_path: Path):
    messages = [
        {"source": "user", "content": "Write a haiku.", "type": "TextMessage"},
        {"source": "writer", "content": "Rain...", "type": "TextMessage"},
        {"source": "user_proxy", "request_id": "r1", "content": "", "type": "UserInputRequestedEvent"},
        {"source": "user_proxy", "content": "About snow.", "type": "TextMessage"},
        {"source": "writer", "content": "Snow...", "type": "TextMessage"},
    ]
    episode = one_episode(write_json(tmp_path, "team.json", {"messages": messages}))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Write a haiku."),
        ("assistant", "Rain..."),
        ("user", "About snow."),
        ("assistant", "Snow..."),
    ]


def test_a_thread_listed_newest_first_is_read_in_the_order_it_happened(tmp_path: Path):
    def message(stamp: int, role: str, text: str) -> dict:
        return {
            "id": f"m{stamp}",
            "object": "thread.message",
            "created_at": stamp,
            "role": role,
            "content": [{"type": "text", "text": {"value": text, "annotations": []}}],
        }

    listing = {
        "object": "list",
        "data": [
            message(3, "assistant", "42."),
            message(2, "assistant", "Computing."),
            message(1, "user", "6*7?"),
        ],
        "has_more": False,
    }
    episode = one_episode(write_json(tmp_path, "thread.json", listing))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "6*7?"),
        ("assistant", "Computing."),
        ("assistant", "42."),
    ]


def _langsmith_final_answer(content: list) -> list[dict]:
    """The LangSmith trace of handwritten_records.py, its last model call answering ``content``."""
    runs = copy.deepcopy(LANGSMITH_RUNS)
    runs[-1]["outputs"]["generations"][0][0]["message"]["kwargs"]["content"] = content
    return runs


def test_a_langchain_message_part_of_an_unknown_kind_rejects_the_trace(tmp_path: Path):
    runs = _langsmith_final_answer(
        [{"type": "text", "text": "Fixed."}, {"type": "citation_block", "cited": SECRET}]
    )
    result = ingest_paths([write_jsonl(tmp_path, "runs.jsonl", runs)])
    assert [r.reason for r in result.rejects] == ["unknown content part"], "never vanishes from the text"
    assert SECRET not in (result.rejects[0].detail or "")


def test_a_langchain_message_reads_reasoning_and_call_parts_by_shape(tmp_path: Path):
    runs = _langsmith_final_answer(
        [
            {"type": "reasoning", "reasoning": "Check again."},
            {"type": "text", "text": "Fixed."},
            {"type": "tool_call", "id": "call_c", "name": "run_tests", "args": {}},
        ]
    )
    episode = one_episode(write_jsonl(tmp_path, "runs.jsonl", runs))
    answer = episode.events[-1]
    assert (answer.content, answer.reasoning) == ("Fixed.", "Check again.")
    assert [(c.id, c.name) for c in answer.tool_calls] == [("call_c", "run_tests")]


@pytest.mark.parametrize(
    ("fields", "reasoning"),
    [
        ({"thinking": "Call the tool."}, "Call the tool."),
        ({"reasoning_details": [{"type": "reasoning.text", "text": "Tool said 9C"}]}, "Tool said 9C"),
        ({"reasoning_details": [{"type": "reasoning.encrypted", "data": SECRET}]}, "[redacted thinking]"),
        ({"tool_plan": "I will query the sales table."}, "I will query the sales table."),
        ({"reasoning_content": "Same.", "reasoning": "Same."}, "Same."),
    ],
    ids=["ollama-thinking", "openrouter-details", "openrouter-encrypted", "cohere-tool-plan", "vllm-both"],
)
def test_reasoning_a_message_field_carries_is_the_turns_reasoning(
    fields: dict, reasoning: str, tmp_path: Path
):
    turn = {"role": "assistant", "content": "9C.", **fields}
    episode = one_episode(
        write_jsonl(tmp_path, "chat.jsonl", [{"messages": [{"role": "user", "content": "?"}, turn]}])
    )
    assert (episode.events[-1].content, episode.events[-1].reasoning) == ("9C.", reasoning)


def test_a_tool_messages_data_part_is_its_output_and_its_tool_name_is_kept(tmp_path: Path):
    chat = copy.deepcopy(FRAMEWORK_CHATS["openai-custom-tool"])
    chat["messages"][2] = {
        "role": "tool",
        "tool_call_id": "call_1",
        "tool_name": "weather",
        "content": [{"type": "document", "document": {"data": '{"sky": "sunny"}'}}],
    }
    episode = one_episode(write_jsonl(tmp_path, "chat.jsonl", [chat]))
    (result,) = [e for e in episode.events if e.kind == "tool"]
    assert result.tool_name == "weather"
    assert json.loads(result.content or "") == {"type": "document", "document": {"data": '{"sky": "sunny"}'}}


def _otel_trace(input_messages: list[dict]) -> dict:
    """One OTel GenAI chat span (semantic conventions >= 1.37: messages as ``parts``)."""
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps(input_messages),
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": "30C."}]}]
        ),
    }
    span = {
        "traceId": "1af7651916cd43dd8448eb211c80319c",
        "spanId": "c000000000000001",
        "name": "chat",
        "startTimeUnixNano": "1750000001000000000",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


OTEL_CALL = {
    "role": "assistant",
    "parts": [{"type": "tool_call", "id": "call_1", "name": "weather", "arguments": "{}"}],
}


def test_an_otel_tool_call_response_is_read_whatever_key_holds_its_output(tmp_path: Path):
    answered = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "result": "30C"}]}
    episode = one_episode(write_json(tmp_path, "trace.json", _otel_trace([OTEL_CALL, answered])))
    assert [(e.kind, e.content, e.tool_call_id) for e in episode.events if e.kind == "tool"] == [
        ("tool", "30C", "call_1")
    ]


def test_an_otel_part_of_an_unknown_kind_rejects_the_trace(tmp_path: Path):
    odd = {"role": "user", "parts": [{"type": "citation_block", "cited": SECRET}]}
    result = ingest_paths([write_json(tmp_path, "trace.json", _otel_trace([odd, OTEL_CALL]))])
    assert [r.reason for r in result.rejects] == ["unknown content part"]
    assert SECRET not in (result.rejects[0].detail or "")


def test_a_pydantic_ai_history_is_read_by_its_part_kinds(tmp_path: Path):
    episode = one_episode(write_json(tmp_path, "messages.json", PYDANTIC_AI_MESSAGES))
    assert episode.source_format == "pydantic-ai"
    assert [e.kind for e in episode.events] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert _calls(episode) == [
        ("call_1", "weather", {"city": "Rome"}),
        ("call_2", "weather", {"city": "Rome", "units": "C"}),
    ]
    retry, result = (e for e in episode.events if e.kind == "tool")
    assert (retry.tool_call_id, retry.status) == ("call_1", "error"), "the framework refused the call"
    assert (result.tool_call_id, result.content, result.status) == ("call_2", "sunny", "ok")
    assert (episode.events[2].reasoning, episode.events[2].input_tokens, episode.lineage.model) == (
        "Look it up.",
        50,
        "gpt-4o",
    )
    assert episode.events[-1].content == "Sunny in Rome."


def test_a_pydantic_ai_part_of_an_unknown_kind_rejects_the_history(tmp_path: Path):
    messages = copy.deepcopy(PYDANTIC_AI_MESSAGES)
    messages[-1]["parts"].append({"part_kind": "citation-block", "cited": SECRET})
    result = ingest_paths([write_json(tmp_path, "messages.json", messages)])
    assert [r.reason for r in result.rejects] == ["unknown content part"]
    assert SECRET not in (result.rejects[0].detail or "")


def test_a_langchain_tool_messages_data_part_is_its_output(tmp_path: Path):
    runs = copy.deepcopy(LANGSMITH_RUNS)
    for run in runs:
        for message in (run.get("inputs") or {}).get("messages", [[]])[0]:
            if message["kwargs"].get("tool_call_id") == "call_a":
                message["kwargs"]["content"] = [{"type": "json", "json": {"lines": 3}}]
    episode = one_episode(write_jsonl(tmp_path, "runs.jsonl", runs))
    (result,) = [e for e in episode.events if e.tool_call_id == "call_a"]
    assert json.loads(result.content or "") == {"type": "json", "json": {"lines": 3}}


@pytest.mark.parametrize(
    "stream",
    [
        'data: {"choices":[{"delta":{"content":"9"}}]}\n\ndata: {"choices":[{"delta":{"cont\n\n',
        'event: message_start\ndata: {"type":"message_start","message":{"role":"assistant"}}\n\n',
    ],
    ids=["line-not-json", "another-providers-events"],
)
def test_an_event_stream_that_does_not_add_up_is_rejected_not_lost(stream: str, tmp_path: Path):
    good = {
        "request": {"messages": MESSAGES},
        "response": {"choices": [{"message": {"role": "assistant", "content": "9C."}}]},
    }
    record = {"request": {"messages": MESSAGES}, "response": {"body": stream}}
    result = ingest_paths([write_jsonl(tmp_path, "calls.jsonl", [good, record])])
    assert [(r.reason, r.source_line) for r in result.rejects] == [("unreadable stream", 2)]
    assert "response.body" in (result.rejects[0].detail or "")


def test_an_attached_document_is_a_marker_not_a_reject(tmp_path: Path):
    record = copy.deepcopy(FRAMEWORK_CHATS["anthropic-mcp"])
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": SECRET}}
    record["messages"][0]["content"] = [pdf, {"type": "text", "text": "Weather in Rome?"}]
    episode = one_episode(write_jsonl(tmp_path, "a.jsonl", [record]))
    assert episode.events[1].content == "[document]\nWeather in Rome?"
