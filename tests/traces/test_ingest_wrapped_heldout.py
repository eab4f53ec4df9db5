"""Validation for wrapped and streamed logs (traces/adapters/batch.py, answer_stream.py,
json_text.py): second variants of each family, written from the providers' public documentation and
never used while the readers were written: Azure OpenAI, Gemini API and Bedrock batch files, an
OpenAI Responses batch, vLLM, OpenRouter, TGI and Azure chunk streams, Ollama's ``/api/generate``,
Gemini's ``streamGenerateContent``, Anthropic and Responses event streams with reasoning, cut
streams, and a gateway row holding its request and response as JSON text.

Each case is a folder of files; reading it must give the episodes expected (the kinds of their
events, the last turn's text, its calls, its reasoning) or the rejects expected (reason and line).
The figure (how many cases read as expected on first measure) is in docs/formats.md."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

ASK = {"role": "user", "content": "Weather in Rome?"}
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


@dataclass
class Expect:
    """One episode: its event kinds, the last turn's text, its calls (name, arguments), reasoning."""

    kinds: list[str]
    answer: str | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    reasoning: str | None = None


@dataclass
class Case:
    files: dict[str, list[Any]]
    episodes: list[Expect] = field(default_factory=list)
    rejects: list[tuple[int | None, str]] = field(default_factory=list)


def _chunk(delta: dict, finish: str | None = None, **top: Any) -> dict:
    return {
        "object": "chat.completion.chunk",
        **top,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _completion(message: dict, finish: str = "stop", **top: Any) -> dict:
    return {
        "id": "chatcmpl-9",
        "object": "chat.completion",
        "model": "gpt-4o",
        **top,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5},
    }


AZURE_INPUT = {
    "custom_id": "task-1",
    "method": "POST",
    "url": "/chat/completions",
    "body": {"model": "gpt-4o-batch", "messages": [{"role": "system", "content": "Be brief."}, ASK]},
}
AZURE_OUTPUT = {
    "custom_id": "task-1",
    "response": {
        "body": _completion(
            {"role": "assistant", "content": "Sunny, 21C."},
            prompt_filter_results=[{"prompt_index": 0, "content_filter_results": {}}],
        ),
        "request_id": "a1b2",
        "status_code": 200,
    },
    "error": None,
}
AZURE_FILTERED = {
    "custom_id": "task-2",
    "response": {"body": {"error": {"code": "content_filter", "message": "filtered"}}, "status_code": 400},
    "error": None,
}

GEMINI_BATCH_IN = {
    "key": "req-7",
    "request": {"contents": [{"role": "user", "parts": [{"text": "Weather in Rome?"}]}]},
}
GEMINI_BATCH_OUT = {
    "key": "req-7",
    "response": {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4},
    },
}

BEDROCK_BATCH = {
    "recordId": "rec-01",
    "modelInput": {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 100, "messages": [ASK]},
    "modelOutput": {
        "id": "msg_bdrk_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-3-haiku",
        "content": [{"type": "text", "text": "Sunny."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 3},
    },
}

RESPONSES_BATCH_IN = {
    "custom_id": "r-1",
    "method": "POST",
    "url": "/v1/responses",
    "body": {"model": "gpt-4.1", "input": [ASK]},
}
RESPONSES_BATCH_OUT = {
    "id": "batch_req_1",
    "custom_id": "r-1",
    "response": {
        "status_code": 200,
        "body": {
            "id": "resp_9",
            "object": "response",
            "status": "completed",
            "model": "gpt-4.1",
            "output": [
                {
                    "type": "message",
                    "id": "msg_9",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
                }
            ],
        },
    },
    "error": None,
}

VLLM = [
    _chunk({"role": "assistant", "content": ""}, id="chatcmpl-v1", model="Qwen/Qwen3-8B"),
    _chunk({"reasoning_content": "The user wants "}, id="chatcmpl-v1", model="Qwen/Qwen3-8B"),
    _chunk({"reasoning_content": "the weather."}, id="chatcmpl-v1", model="Qwen/Qwen3-8B"),
    _chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "chatcmpl-tool-1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                }
            ]
        },
        id="chatcmpl-v1",
    ),
    _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}, id="chatcmpl-v1"),
    _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Rome"}'}}]}, id="chatcmpl-v1"),
    _chunk({}, "tool_calls", id="chatcmpl-v1"),
    {
        "id": "chatcmpl-v1",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {"prompt_tokens": 30, "completion_tokens": 12},
    },
]

OPENROUTER = [
    {
        "id": "gen-17",
        "provider": "DeepInfra",
        "model": "deepseek/deepseek-r1",
        "object": "chat.completion.chunk",
        "choices": [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "", "reasoning": "Think."},
                "finish_reason": None,
                "native_finish_reason": None,
            }
        ],
    },
    {
        "id": "gen-17",
        "provider": "DeepInfra",
        "model": "deepseek/deepseek-r1",
        "object": "chat.completion.chunk",
        "choices": [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "Sunny."},
                "finish_reason": "stop",
                "native_finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14},
    },
]

TGI = [
    {
        "object": "chat.completion.chunk",
        "id": "",
        "created": 1,
        "model": "tgi",
        "system_fingerprint": "2.0.4-native",
        "choices": [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "Sun"},
                "logprobs": None,
                "finish_reason": None,
            }
        ],
    },
    {
        "object": "chat.completion.chunk",
        "id": "",
        "created": 1,
        "model": "tgi",
        "system_fingerprint": "2.0.4-native",
        "choices": [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "ny."},
                "logprobs": None,
                "finish_reason": "eos_token",
            }
        ],
    },
]

AZURE_STREAM = [
    {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
    },
    _chunk({"role": "assistant", "content": ""}, id="chatcmpl-az", model="gpt-4o-2024-08-06"),
    _chunk({"content": "Sunny."}, id="chatcmpl-az", model="gpt-4o-2024-08-06"),
    _chunk({}, "stop", id="chatcmpl-az", model="gpt-4o-2024-08-06"),
]

ANTHROPIC_THINKING = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_s2",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-sonnet-4",
            "stop_reason": None,
            "usage": {"input_tokens": 40, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "Two cities, "},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "two calls."},
    },
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "ping"},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {}},
    },
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"city": "Ro'},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": 'me"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 2,
        "delta": {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'},
    },
    {"type": "content_block_stop", "index": 2},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 60},
    },
    {"type": "message_stop"},
]

RESPONSES_REASONING = [
    {
        "type": "response.created",
        "sequence_number": 0,
        "response": {
            "id": "resp_s3",
            "object": "response",
            "status": "in_progress",
            "model": "o4-mini",
            "output": [],
        },
    },
    {
        "type": "response.output_item.added",
        "sequence_number": 1,
        "output_index": 0,
        "item": {"id": "rs_1", "type": "reasoning", "summary": []},
    },
    {
        "type": "response.reasoning_summary_text.delta",
        "sequence_number": 2,
        "item_id": "rs_1",
        "output_index": 0,
        "summary_index": 0,
        "delta": "Look it up.",
    },
    {
        "type": "response.output_item.done",
        "sequence_number": 3,
        "output_index": 0,
        "item": {
            "id": "rs_1",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Look it up."}],
        },
    },
    {
        "type": "response.output_item.added",
        "sequence_number": 4,
        "output_index": 1,
        "item": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        },
    },
    {
        "type": "response.output_text.delta",
        "sequence_number": 5,
        "item_id": "msg_1",
        "output_index": 1,
        "content_index": 0,
        "delta": "Sunny.",
    },
    {
        "type": "response.output_item.done",
        "sequence_number": 6,
        "output_index": 1,
        "item": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
        },
    },
    {
        "type": "response.completed",
        "sequence_number": 7,
        "response": {
            "id": "resp_s3",
            "object": "response",
            "status": "completed",
            "model": "o4-mini",
            "output": [
                {
                    "id": "rs_1",
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": "Look it up."}],
                },
                {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
                },
            ],
            "usage": {"input_tokens": 12, "output_tokens": 30},
        },
    },
]

OLLAMA_GENERATE = [
    {"model": "llama3.2", "created_at": "2024-08-04T08:52:19Z", "response": "Sun", "done": False},
    {"model": "llama3.2", "created_at": "2024-08-04T08:52:19Z", "response": "ny.", "done": False},
    {
        "model": "llama3.2",
        "created_at": "2024-08-04T08:52:20Z",
        "response": "",
        "done": True,
        "done_reason": "stop",
        "context": [1, 2],
        "prompt_eval_count": 12,
        "eval_count": 3,
    },
]

GEMINI_STREAM = [
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Sunny"}]}, "index": 0}],
        "modelVersion": "gemini-2.0-flash",
        "responseId": "g1",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": " in"}]}, "index": 0}],
        "modelVersion": "gemini-2.0-flash",
        "responseId": "g1",
    },
    {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": " Rome."}]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 3},
        "modelVersion": "gemini-2.0-flash",
        "responseId": "g1",
    },
]

GATEWAY_TEXT_ROW = {
    "request_id": "req-55",
    "created_at": "2025-03-01T10:00:00Z",
    "request_body": json.dumps(
        {
            "model": "gpt-4o",
            "messages": [
                ASK,
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 21}'},
            ],
            "tools": [WEATHER],
        }
    ),
    "response_body": json.dumps(_completion({"role": "assistant", "content": "21C in Rome."})),
}

LLAMA3_PROMPT = (
    "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
    "<|start_header_id|>user<|end_header_id|>\n\nWeather in Rome?<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>\n\n"
)
GEMMA_PROMPT = "<bos><start_of_turn>user\nWeather in Rome?<end_of_turn>\n<start_of_turn>model\n"
PHI3_PROMPT = "<|user|>\nWeather in Rome?<|end|>\n<|assistant|>\n"
CHATML_UNCLOSED = "<|im_start|>user\nWeather in Rome?\n<|im_start|>assistant\n"

CASES = {
    "azure-batch-paired": Case(
        {"in.jsonl": [AZURE_INPUT], "out.jsonl": [AZURE_OUTPUT, AZURE_FILTERED]},
        [Expect(["system", "user", "assistant"], "Sunny, 21C.")],
        [(2, "failed model call")],
    ),
    "gemini-batch-paired": Case(
        {"requests.jsonl": [GEMINI_BATCH_IN], "results.jsonl": [GEMINI_BATCH_OUT]},
        [Expect(["user", "assistant"], None, [("get_weather", '{"city":"Rome"}')])],
    ),
    "bedrock-batch-output": Case(
        {"out.jsonl.out.jsonl": [BEDROCK_BATCH]}, [Expect(["user", "assistant"], "Sunny.")]
    ),
    "responses-batch-paired": Case(
        {"in.jsonl": [RESPONSES_BATCH_IN], "out.jsonl": [RESPONSES_BATCH_OUT]},
        [Expect(["user", "assistant"], "Sunny.")],
    ),
    "anthropic-batch-canceled": Case(
        {"results.jsonl": [{"custom_id": "q-9", "result": {"type": "canceled"}}]},
        [],
        [(1, "failed model call")],
    ),
    "vllm-stream-reasoning-tool": Case(
        {"s.jsonl": VLLM},
        [Expect(["assistant"], None, [("get_weather", '{"city": "Rome"}')], "The user wants the weather.")],
    ),
    "openrouter-stream": Case({"s.jsonl": OPENROUTER}, [Expect(["assistant"], "Sunny.", [], "Think.")]),
    "tgi-stream": Case({"s.jsonl": TGI}, [Expect(["assistant"], "Sunny.")]),
    "azure-stream-filter-chunk": Case({"s.jsonl": AZURE_STREAM}, [Expect(["assistant"], "Sunny.")]),
    "vllm-stream-cut": Case({"s.jsonl": VLLM[:5]}, [], [(1, "truncated stream")]),
    "two-chat-streams": Case(
        {"s.jsonl": [*OPENROUTER, *[{**c, "id": "gen-18"} for c in OPENROUTER]]},
        [Expect(["assistant"], "Sunny.", [], "Think."), Expect(["assistant"], "Sunny.", [], "Think.")],
    ),
    "anthropic-stream-thinking-two-calls": Case(
        {"s.jsonl": ANTHROPIC_THINKING},
        [
            Expect(
                ["assistant"],
                None,
                [("get_weather", '{"city":"Rome"}'), ("get_weather", '{"city":"Oslo"}')],
                "Two cities, two calls.",
            )
        ],
    ),
    "anthropic-stream-cut": Case({"s.jsonl": ANTHROPIC_THINKING[:11]}, [], [(1, "truncated stream")]),
    "responses-stream-reasoning": Case(
        {"s.jsonl": RESPONSES_REASONING}, [Expect(["assistant"], "Sunny.", [], "Look it up.")]
    ),
    "responses-stream-cut": Case({"s.jsonl": RESPONSES_REASONING[:6]}, [], [(1, "truncated stream")]),
    "ollama-generate-stream": Case({"s.jsonl": OLLAMA_GENERATE}, [Expect(["assistant"], "Sunny.")]),
    "ollama-stream-cut": Case({"s.jsonl": OLLAMA_GENERATE[:2]}, [], [(1, "truncated stream")]),
    "gemini-stream": Case({"s.jsonl": GEMINI_STREAM}, [Expect(["assistant"], "Sunny in Rome.")]),
    "tgi-generate-llama3": Case(
        {
            "g.jsonl": [
                {
                    "inputs": LLAMA3_PROMPT,
                    "generated_text": "Sunny.",
                    "details": {"finish_reason": "eos_token"},
                }
            ]
        },
        [Expect(["system", "user", "assistant"], "Sunny.")],
    ),
    "vllm-completions-gemma": Case(
        {
            "c.jsonl": [
                {"prompt": GEMMA_PROMPT, "choices": [{"index": 0, "text": "Sunny.", "finish_reason": "stop"}]}
            ]
        },
        [Expect(["user", "assistant"], "Sunny.")],
    ),
    "ollama-raw-generate-phi3": Case(
        {
            "o.jsonl": [
                {"model": "phi3", "prompt": PHI3_PROMPT, "raw": True, "response": "Sunny.", "done": True}
            ]
        },
        [Expect(["user", "assistant"], "Sunny.")],
    ),
    "chatml-prompt-unclosed-turn": Case(
        {"c.jsonl": [{"prompt": CHATML_UNCLOSED, "content": "Sunny."}]}, [], [(1, "unknown chat template")]
    ),
    "gateway-json-text-row": Case(
        {"rows.jsonl": [GATEWAY_TEXT_ROW]},
        [Expect(["user", "assistant", "tool", "assistant"], "21C in Rome.")],
    ),
}


def outcome(folder: Path) -> tuple[list[Expect], list[tuple[int | None, str]]]:
    """What reading ``folder`` gives, in the terms of :class:`Expect`."""
    result = ingest_paths([folder])
    episodes = []
    for episode in sorted(result.episodes, key=lambda e: (e.source_file, e.source_line or 0, e.episode_id)):
        last = episode.events[-1]
        episodes.append(
            Expect(
                [e.kind for e in episode.events],
                last.content or None,
                [(c.name, c.arguments) for c in last.tool_calls],
                last.reasoning,
            )
        )
    return episodes, sorted((r.source_line, r.reason) for r in result.rejects)


def _written(tmp_path: Path, case: Case) -> Path:
    for name, lines in case.files.items():
        write_jsonl(tmp_path, name, lines)
    return tmp_path


@pytest.mark.parametrize("name", sorted(CASES))
def test_heldout_case_reads_as_expected(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    episodes, rejects = outcome(_written(tmp_path, case))
    assert (episodes, rejects) == (case.episodes, sorted(case.rejects))
