"""Records that were rejected for the wrong reason, or read by the wrong reader, are read, or refused
naming what the file holds (the red team's round 4 "unclear rejects", development half; the
validation half is ``test_unclear_rejects_read_heldout.py``):

- a relative timestamp (``1.0``) is a relative clock's reading, not an unreadable string, and a
  timestamp that is no time is refused naming its path in the file (``base.timestamp_of``);
- a Vercel AI SDK ``UIMessage`` list is read by its typed parts, not claimed by ``gemini``;
- a speaker named under ``type`` / ``direction`` is read, or the reject says what the message holds;
- LangChain below 0.2 keeps its calls under ``additional_kwargs``;
- a Responses API chain whose first request's ``input`` is a string is one conversation;
- Gemini's ``model`` role in a Chat Completions message is the assistant;
- Qwen-Agent's ``✿FUNCTION✿`` text is a call, its result and an answer;
- a batch request file read alone keeps the batch format and says its answer is missing;
- a string answer beside a conversation ending on an assistant turn is that turn, or a reject.
"""

from __future__ import annotations

import json
from pathlib import Path

from appended_results import QWEN_PROMPTS
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths


def _reject(path: Path) -> tuple[str, str]:
    result = ingest_paths([path])
    assert result.episodes == []
    (reject,) = result.rejects
    return reject.reason, reject.detail or ""


def _adk(stamps: list[object]) -> dict:
    authors = ["user", "agent"]
    return {
        "id": "s1",
        "appName": "weather",
        "userId": "u",
        "state": {},
        "events": [
            {
                "id": f"e{i}",
                "author": authors[i % 2],
                "content": {"role": ["user", "model"][i % 2], "parts": [{"text": f"turn {i}"}]},
                "timestamp": stamp,
            }
            for i, stamp in enumerate(stamps)
        ],
    }


def test_a_relative_timestamp_is_kept_as_a_relative_clock_reading(tmp_path: Path):
    episode = one_episode(write_json(tmp_path, "session.json", _adk([1.0, 2.5])))
    assert [e.timestamp for e in episode.events] == ["+1.0", "+2.5"]
    (tmp_path / "epoch").mkdir()
    epoch = one_episode(write_json(tmp_path / "epoch", "session.json", _adk([1733500000.25, 1733500001])))
    assert [e.timestamp for e in epoch.events] == ["1733500000.25", "1733500001"]


def test_a_timestamp_that_is_no_time_is_refused_naming_its_path_in_the_file(tmp_path: Path):
    reason, detail = _reject(write_json(tmp_path, "session.json", _adk([1.0, -4])))
    assert reason == "bad timestamp" and detail.startswith("events[1].timestamp is the number -4")


def test_a_vercel_ui_message_list_is_read_by_its_parts_step_by_step(tmp_path: Path):
    messages = [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather in SF?"}]},
        {
            "id": "a1",
            "role": "assistant",
            "parts": [
                {"type": "step-start"},
                {"type": "reasoning", "text": "I need the tool."},
                {
                    "type": "tool-getWeather",
                    "toolCallId": "t1",
                    "state": "output-available",
                    "input": {"city": "SF"},
                    "output": {"temp": 15},
                },
                {"type": "step-start"},
                {"type": "text", "text": "It's 15C."},
            ],
        },
    ]
    episode = one_episode(write_json(tmp_path, "chat.json", messages))
    assert episode.source_format == "openai"
    assert [(e.kind, e.content, e.reasoning) for e in episode.events] == [
        ("user", "Weather in SF?", None),
        ("assistant", None, "I need the tool."),
        ("tool", '{"temp":15}', None),
        ("assistant", "It's 15C.", None),
    ]
    (call,) = episode.events[1].tool_calls
    assert (call.id, call.name, call.arguments) == ("t1", "getWeather", '{"city":"SF"}')
    assert episode.events[2].tool_call_id == "t1"


def test_a_speaker_under_direction_is_read_and_an_unknown_one_is_named(tmp_path: Path):
    botpress = {
        "messages": [
            {"id": "m1", "direction": "incoming", "type": "text", "payload": {"text": "order status?"}},
            {"id": "m2", "direction": "outgoing", "type": "text", "payload": {"text": "It shipped."}},
        ]
    }
    episode = one_episode(write_json(tmp_path, "bp.json", botpress))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "order status?"),
        ("assistant", "It shipped."),
    ]
    devin = {
        "messages": [
            {"type": "initial_user_message", "message": "bump deps"},
            {"type": "devin_message", "message": "done"},
        ]
    }
    reason, detail = _reject(write_json(tmp_path, "devin.json", devin))
    assert reason == "unknown role"
    assert detail.startswith("messages[1] states no role; it names its speaker as type 'devin_message'")


def test_langchain_below_0_2_calls_under_additional_kwargs_are_read(tmp_path: Path):
    state = {
        "messages": [
            {"type": "human", "content": "9 squared?"},
            {
                "type": "ai",
                "content": "",
                "additional_kwargs": {
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "square", "arguments": '{"x": 9}'},
                        }
                    ]
                },
            },
            {"type": "tool", "content": "81", "tool_call_id": "c1"},
            {
                "type": "ai",
                "content": "",
                "additional_kwargs": {"function_call": {"name": "done", "arguments": "{}"}},
            },
            {"type": "function", "name": "done", "content": "ok"},
        ]
    }
    episode = one_episode(write_json(tmp_path, "state.json", state))
    assert [[(c.id, c.name) for c in e.tool_calls] for e in episode.events] == [
        [],
        [("c1", "square")],
        [],
        [(None, "done")],
        [],
    ]


def test_a_responses_chain_whose_first_input_is_a_string_is_one_conversation(tmp_path: Path):
    lines = [
        {
            "request": {"model": "gpt-4.1", "input": "List files"},
            "response": {
                "id": "resp_1",
                "object": "response",
                "output": [{"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"}],
            },
        },
        {
            "request": {
                "previous_response_id": "resp_1",
                "input": [{"type": "function_call_output", "call_id": "c1", "output": "x.txt"}],
            },
            "response": {
                "id": "resp_2",
                "object": "response",
                "previous_response_id": "resp_1",
                "output": [
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "x.txt"}],
                    }
                ],
            },
        },
    ]
    episode = one_episode(write_jsonl(tmp_path, "calls.jsonl", lines))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "List files"),
        ("assistant", None),
        ("tool", "x.txt"),
        ("assistant", "x.txt"),
    ]
    assert episode.events[2].tool_name == "ls"


def test_gemini_model_role_in_a_chat_message_is_the_assistant(tmp_path: Path):
    record = {"history": [{"role": "user", "content": "hello"}, {"role": "model", "content": "Hi"}]}
    episode = one_episode(write_jsonl(tmp_path, "chat.jsonl", [record]))
    assert [e.kind for e in episode.events] == ["user", "assistant"]


def test_qwen_agent_function_text_is_a_call_its_result_and_the_answer(tmp_path: Path):
    """In Qwen-Agent's log (its function-calling prompt in the system turn: the results were its
    loop's, ``test_appended_results.py``; in a plain chat they are the model's and stay text)."""
    text = (
        'Let me check.\n✿FUNCTION✿: get_weather\n✿ARGS✿: {"city": "Paris"}\n'
        '✿RESULT✿: {"temp": 21}\n✿RETURN✿: It is 21C in Paris.'
    )
    record = {
        "messages": [
            {"role": "system", "content": QWEN_PROMPTS["en"]},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": text},
        ]
    }
    path = tmp_path / "qwen.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    episode = one_episode(path)
    assert [(e.kind, e.content) for e in episode.events if e.kind != "system"] == [
        ("user", "Weather in Paris?"),
        ("assistant", "Let me check."),
        ("tool", '{"temp": 21}'),
        ("assistant", "It is 21C in Paris."),
    ]
    (call,) = episode.events[2].tool_calls
    assert (call.name, call.arguments, episode.events[3].tool_name) == (
        "get_weather",
        '{"city": "Paris"}',
        "get_weather",
    )


def test_a_batch_request_file_read_alone_keeps_the_batch_format(tmp_path: Path):
    request = {
        "custom_id": "req-1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]},
    }
    episode = one_episode(write_jsonl(tmp_path, "batch_input.jsonl", [request]))
    assert (episode.source_format, episode.episode_id) == ("batch", "batch:req-1")
    assert "answer_missing" in json.loads(episode.extra_json or "{}")["batch"]


def test_a_string_answer_beside_a_closing_assistant_turn_is_that_turn_or_a_reject(tmp_path: Path):
    said = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "Hi there"}]
    same = one_episode(write_jsonl(tmp_path, "same.jsonl", [{"messages": said, "response": "Hi there\n"}]))
    assert [(e.kind, e.content) for e in same.events] == [("user", "hello"), ("assistant", "Hi there")]
    reason, detail = _reject(write_jsonl(tmp_path, "other.jsonl", [{"messages": said, "response": "Bye"}]))
    assert reason == "ambiguous answer" and detail.startswith("response is a plain string answer")
