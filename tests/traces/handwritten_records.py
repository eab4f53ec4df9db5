"""One hand-written record per format whose tests build it inline (after the published shapes), shared
by the adapter tests and the reject-detail sweep (which mutates every field of every format's record)."""

from __future__ import annotations

import json

GEMINI_REQUEST = {
    "id": "gem-run-1",
    "metadata": {"task_id": "fix-parser-7"},
    "systemInstruction": {"parts": [{"text": "You are a careful coding agent."}]},
    "tools": [
        {
            "functionDeclarations": [
                {"name": "read_file", "parameters": {"type": "object", "required": ["path"]}}
            ]
        },
        {"codeExecution": {}},
    ],
    "contents": [
        {"role": "user", "parts": [{"text": "Fix the parser."}]},
        {
            "role": "model",
            "parts": [
                {"text": "Read both files.", "thought": True},
                {"functionCall": {"name": "read_file", "args": {"filePath": "p.py"}}},
                {"functionCall": {"name": "read_file", "args": {"filePath": "t.py"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "read_file", "response": {"content": "def parse(): ..."}}},
                {"functionResponse": {"name": "read_file", "response": {"error": "no such file"}}},
            ],
        },
    ],
    "response": {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Fixed."}]}, "finishReason": "STOP"},
        ],
        "usageMetadata": {"promptTokenCount": 120},
    },
}

SHAREGPT_TOOLS = [
    {"name": "read_file", "description": "read", "parameters": {"type": "object", "required": ["path"]}}
]
SHAREGPT_RECORD = {
    "id": "sg-1",
    "metadata": {"task_id": "fix-parser-7"},
    "system": "You are a careful coding agent.",
    "tools": json.dumps(SHAREGPT_TOOLS),
    "conversations": [
        {"from": "human", "value": "Fix the parser."},
        {"from": "gpt", "value": "Reading both files."},
        {
            "from": "function_call",
            "value": json.dumps(
                [
                    {"name": "read_file", "arguments": {"path": "p.py"}},
                    {"name": "grep", "arguments": {"q": "def"}},
                ]
            ),
        },
        {"from": "observation", "value": "def parse(): ..."},
        {"from": "observation", "value": "p.py:1"},
        {"from": "gpt", "value": "Fixed."},
    ],
}

RESPONSES_RUN = {
    "id": "resp_run_1",
    "metadata": {"task_id": "fix-parser-7"},
    "instructions": "You are a careful coding agent.",
    "tools": [
        {"type": "function", "name": "read_file", "description": "read", "parameters": {"type": "object"}},
        {"type": "web_search"},
    ],
    "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Fix the parser."}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Read it first."}]},
        {"type": "function_call", "call_id": "call_a", "name": "read_file", "arguments": '{"path": "p.py"}'},
        {"type": "function_call", "call_id": "call_b", "name": "read_file", "arguments": '{"path": "t.py"}'},
        {"type": "function_call_output", "call_id": "call_b", "output": "def test(): ..."},
        {"type": "function_call_output", "call_id": "call_a", "output": "def parse(): ..."},
    ],
    "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
    ],
    "usage": {"input_tokens": 120, "output_tokens": 9},
}

BEDROCK_CONVERSE = {
    "modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "system": [{"text": "You are a careful coding agent."}, {"cachePoint": {"type": "default"}}],
    "toolConfig": {
        "tools": [
            {
                "toolSpec": {
                    "name": "read_file",
                    "description": "read",
                    "inputSchema": {"json": {"type": "object", "required": ["path"]}},
                }
            },
            {"cachePoint": {"type": "default"}},
        ],
        "toolChoice": {"auto": {}},
    },
    "inferenceConfig": {"maxTokens": 512, "temperature": 0.0},
    "requestMetadata": {"task_id": "fix-parser-7", "team": "agents"},
    "messages": [
        {"role": "user", "content": [{"text": "Fix the parser."}]},
        {
            "role": "assistant",
            "content": [
                {"reasoningContent": {"reasoningText": {"text": "Read both files.", "signature": "c2ln"}}},
                {"toolUse": {"toolUseId": "tooluse_a", "name": "read_file", "input": {"path": "p.py"}}},
                {"toolUse": {"toolUseId": "tooluse_b", "name": "read_file", "input": {"path": "t.py"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tooluse_b",
                        "content": [{"text": "no such file"}],
                        "status": "error",
                    }
                },
                {
                    "toolResult": {
                        "toolUseId": "tooluse_a",
                        "content": [{"json": {"source": "def parse(): ..."}}],
                    }
                },
            ],
        },
    ],
}
"""A logged Converse request (results answered out of order, one an error)."""

BEDROCK_RESPONSE = {
    "output": {"message": {"role": "assistant", "content": [{"text": "Fixed."}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 120, "outputTokens": 9, "totalTokens": 129},
    "metrics": {"latencyMs": 812},
}

BEDROCK_INVOCATION_LOG = {
    "schemaType": "ModelInvocationLog",
    "schemaVersion": "1.0",
    "timestamp": "2026-11-04T09:30:00Z",
    "accountId": "123456789012",
    "region": "us-east-1",
    "requestId": "b7c1d2e3-0000-4a5b-9c8d-1234567890ab",
    "operation": "Converse",
    "modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "input": {
        "inputContentType": "application/json",
        "inputBodyJson": {k: v for k, v in BEDROCK_CONVERSE.items() if k != "modelId"},
        "inputTokenCount": 120,
    },
    "output": {
        "outputContentType": "application/json",
        "outputBodyJson": BEDROCK_RESPONSE,
        "outputTokenCount": 9,
    },
}
"""What Bedrock's model invocation logging writes for that call (to CloudWatch Logs or S3)."""


def _lc(kind: str, **kwargs: object) -> dict:
    """A LangChain message as ``dumpd`` serializes it (how LangSmith stores run inputs)."""
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", kind], "kwargs": kwargs}


_CALLS = [
    {"name": "read_file", "args": {"path": "p.py"}, "id": "call_a", "type": "tool_call"},
    {"name": "read_file", "args": {"path": "t.py"}, "id": "call_b", "type": "tool_call"},
]
_SEEN = [
    _lc("SystemMessage", content="You are a careful coding agent."),
    _lc("HumanMessage", content="Fix the parser."),
]
_ASKED = _lc(
    "AIMessage",
    content="",
    tool_calls=_CALLS,
    response_metadata={"finish_reason": "tool_calls"},
    usage_metadata={"input_tokens": 80, "output_tokens": 20},
)
_RESULTS = [
    _lc("ToolMessage", content="def parse(): ...", tool_call_id="call_a", name="read_file"),
    _lc(
        "ToolMessage",
        content="FileNotFoundError: t.py",
        tool_call_id="call_b",
        name="read_file",
        status="error",
    ),
]
_TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
LANGSMITH_RUNS = [
    {
        "id": "tr-1",
        "trace_id": "tr-1",
        "parent_run_id": None,
        "run_type": "chain",
        "name": "AgentExecutor",
        "inputs": {"input": "Fix the parser."},
        "outputs": {"output": "Fixed."},
        "error": None,
        "start_time": "2026-11-04T09:30:00.000000",
        "extra": {"metadata": {"task_id": "fix-parser-7"}},
    },
    {
        "id": "llm-1",
        "trace_id": "tr-1",
        "parent_run_id": "tr-1",
        "run_type": "llm",
        "name": "ChatOpenAI",
        "inputs": {"messages": [_SEEN]},
        "outputs": {
            "generations": [
                [{"text": "", "message": _ASKED, "generation_info": {"finish_reason": "tool_calls"}}]
            ]
        },
        "start_time": "2026-11-04T09:30:01.000000",
        "end_time": "2026-11-04T09:30:02.000000",
        "extra": {"invocation_params": {"model": "gpt-4o", "tools": _TOOLS}},
    },
    {
        "id": "tool-a",
        "trace_id": "tr-1",
        "parent_run_id": "tr-1",
        "run_type": "tool",
        "name": "read_file",
        "inputs": {"input": "{'path': 'p.py'}"},
        "outputs": {"output": _RESULTS[0]},
        "start_time": "2026-11-04T09:30:03.000000",
    },
    {
        "id": "tool-b",
        "trace_id": "tr-1",
        "parent_run_id": "tr-1",
        "run_type": "tool",
        "name": "read_file",
        "inputs": {"input": "{'path': 't.py'}"},
        "outputs": None,
        "error": "FileNotFoundError: t.py",
        "start_time": "2026-11-04T09:30:04.000000",
    },
    {
        "id": "llm-2",
        "trace_id": "tr-1",
        "parent_run_id": "tr-1",
        "run_type": "llm",
        "name": "ChatOpenAI",
        "inputs": {"messages": [[*_SEEN, _ASKED, *_RESULTS]]},
        "outputs": {
            "generations": [
                [
                    {
                        "text": "Fixed.",
                        "message": _lc("AIMessage", content="Fixed."),
                        "generation_info": {"finish_reason": "stop"},
                    }
                ]
            ]
        },
        "start_time": "2026-11-04T09:30:05.000000",
        "end_time": "2026-11-04T09:30:06.000000",
        "extra": {"invocation_params": {"model": "gpt-4o", "tools": _TOOLS}},
    },
]
"""A LangChain agent's trace as ``list_runs`` exports it: a root chain, two model calls, two tool
runs (one failed)."""


def _attributes(values: dict) -> list[dict]:
    return [
        {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
        for k, v in values.items()
    ]


OPENLLMETRY_TRACE = {
    "resourceSpans": [
        {
            "scopeSpans": [
                {
                    "spans": [
                        {
                            "traceId": "5b8efff798038103d269b633813fc60c",
                            "spanId": "eee19b7ec3c1b174",
                            "name": "openai.chat",
                            "startTimeUnixNano": "1762248600000000000",
                            "attributes": _attributes(
                                {
                                    "llm.request.type": "chat",
                                    "gen_ai.request.model": "gpt-4o",
                                    "llm.request.functions.0.name": "read_file",
                                    "llm.request.functions.0.parameters": '{"type": "object"}',
                                    "gen_ai.prompt.0.role": "user",
                                    "gen_ai.prompt.0.content": "Fix the parser.",
                                    "gen_ai.prompt.1.role": "assistant",
                                    "gen_ai.prompt.1.tool_calls.0.id": "call_a",
                                    "gen_ai.prompt.1.tool_calls.0.name": "read_file",
                                    "gen_ai.prompt.1.tool_calls.0.arguments": '{"path": "p.py"}',
                                    "gen_ai.prompt.2.role": "tool",
                                    "gen_ai.prompt.2.tool_call_id": "call_a",
                                    "gen_ai.prompt.2.content": "def parse(): ...",
                                    "gen_ai.completion.0.role": "assistant",
                                    "gen_ai.completion.0.content": "Fixed.",
                                    "gen_ai.completion.0.finish_reason": "stop",
                                    "gen_ai.usage.prompt_tokens": 80,
                                }
                            ),
                        }
                    ]
                }
            ]
        }
    ]
}
"""An OpenLLMetry (Traceloop) chat span: messages flattened into indexed attributes."""


_OPENAI_TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
_FIRST_INPUT = [
    {"role": "system", "content": "You are a careful coding agent."},
    {"role": "user", "content": "Fix the parser."},
]
_ASKED_OPENAI = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "p.py"}'},
        },
        {
            "id": "call_b",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "t.py"}'},
        },
    ],
}


def _observation(oid: str, kind: str, start: str, **fields: object) -> dict:
    return {
        "id": oid,
        "traceId": "lf-1",
        "type": kind,
        "startTime": start,
        "parentObservationId": "root",
        **fields,
    }


LANGFUSE_TRACE = {
    "id": "lf-1",
    "name": "agent-run",
    "timestamp": "2026-11-04T09:30:00.000Z",
    "input": "Fix the parser.",
    "output": "Fixed.",
    "metadata": {"task_id": "fix-parser-7"},
    "observations": [
        {
            "id": "root",
            "traceId": "lf-1",
            "type": "AGENT",
            "name": "agent",
            "startTime": "2026-11-04T09:30:00.000Z",
        },
        _observation(
            "g1",
            "GENERATION",
            "2026-11-04T09:30:01.000Z",
            name="OpenAI-generation",
            endTime="2026-11-04T09:30:02.000Z",
            model="gpt-4o",
            modelParameters={"temperature": 0},
            input={"messages": _FIRST_INPUT, "tools": _OPENAI_TOOLS},
            output=_ASKED_OPENAI,
            usageDetails={"input": 80, "output": 20, "total": 100},
        ),
        _observation("t1", "TOOL", "2026-11-04T09:30:03.000Z", name="read_file", output="def parse(): ..."),
        _observation(
            "t2",
            "TOOL",
            "2026-11-04T09:30:04.000Z",
            name="read_file",
            level="ERROR",
            statusMessage="not found",
        ),
        _observation(
            "g2",
            "GENERATION",
            "2026-11-04T09:30:05.000Z",
            name="OpenAI-generation",
            endTime="2026-11-04T09:30:06.000Z",
            model="gpt-4o",
            input={
                "messages": [
                    *_FIRST_INPUT,
                    _ASKED_OPENAI,
                    {"role": "tool", "tool_call_id": "call_a", "content": "def parse(): ..."},
                    {"role": "tool", "tool_call_id": "call_b", "content": "FileNotFoundError: t.py"},
                ],
                "tools": _OPENAI_TOOLS,
            },
            output={"role": "assistant", "content": "Fixed."},
            usageDetails={"input": 140, "output": 5},
        ),
    ],
}
"""A Langfuse trace as its public API returns it: an agent's two OpenAI generations and two tool
observations (the second failed)."""


AUTOGEN_RESULT = {
    "metadata": {"task_id": "fix-parser-7"},
    "messages": [
        {
            "id": "m1",
            "source": "user",
            "type": "TextMessage",
            "content": "Fix the parser.",
            "models_usage": None,
        },
        {"id": "m2", "source": "coder", "type": "ThoughtEvent", "content": "Read both files first."},
        {
            "id": "m3",
            "source": "coder",
            "type": "ToolCallRequestEvent",
            "content": [
                {"id": "call_a", "arguments": '{"path": "p.py"}', "name": "read_file"},
                {"id": "call_b", "arguments": '{"path": "t.py"}', "name": "read_file"},
            ],
            "models_usage": {"prompt_tokens": 80, "completion_tokens": 20},
        },
        {
            "id": "m4",
            "source": "coder",
            "type": "ToolCallExecutionEvent",
            "content": [
                {"content": "def parse(): ...", "name": "read_file", "call_id": "call_a", "is_error": False},
                {
                    "content": "FileNotFoundError: t.py",
                    "name": "read_file",
                    "call_id": "call_b",
                    "is_error": True,
                },
            ],
        },
        {"id": "m5", "source": "coder", "type": "ModelClientStreamingChunkEvent", "content": "Fix"},
        {
            "id": "m6",
            "source": "coder",
            "type": "TextMessage",
            "content": "Fixed. TERMINATE",
            "models_usage": {"prompt_tokens": 140, "completion_tokens": 5},
        },
        {
            "id": "m7",
            "source": "TextMentionTermination",
            "type": "StopMessage",
            "content": "Text 'TERMINATE' mentioned",
        },
    ],
    "stop_reason": "Text 'TERMINATE' mentioned",
}
"""An AutoGen AgentChat ``TaskResult``, ``model_dump()``-ed: a coding agent's run with parallel tool
calls, one failed."""


def _mlflow_span(
    span_id: str, name: str, kind: str, start: int, attributes: dict, error: bool = False
) -> dict:
    """An MLflow 3 span: OTLP-like fields, every attribute value JSON text."""
    return {
        "trace_id": "tr-5b8e",
        "span_id": span_id,
        "parent_span_id": None if kind == "AGENT" else "root",
        "name": name,
        "start_time_unix_nano": start * 10**9,
        "end_time_unix_nano": start * 10**9 + 5 * 10**8,
        "status": {"code": "STATUS_CODE_ERROR" if error else "STATUS_CODE_OK", "message": ""},
        "attributes": {
            "mlflow.spanType": json.dumps(kind),
            **{k: json.dumps(v) for k, v in attributes.items()},
        },
        "events": [],
    }


MLFLOW_TRACE = {
    "info": {
        "trace_id": "tr-5b8e",
        "state": "OK",
        "request_time": "2026-11-04T09:30:00Z",
        "trace_metadata": {"task_id": "fix-parser-7", "mlflow.user": "agent"},
        "tags": {"mlflow.traceName": "agent"},
    },
    "data": {
        "spans": [
            _mlflow_span(
                "root", "agent", "AGENT", 1762248600, {"mlflow.spanInputs": {"task": "Fix the parser."}}
            ),
            _mlflow_span(
                "c1",
                "Completions",
                "CHAT_MODEL",
                1762248601,
                {
                    "mlflow.spanInputs": {
                        "model": "gpt-4o",
                        "messages": _FIRST_INPUT,
                        "tools": _OPENAI_TOOLS,
                    },
                    "mlflow.spanOutputs": {
                        "choices": [{"index": 0, "message": _ASKED_OPENAI, "finish_reason": "tool_calls"}]
                    },
                    "mlflow.chat.tokenUsage": {"input_tokens": 80, "output_tokens": 20, "total_tokens": 100},
                },
            ),
            _mlflow_span("t1", "read_file", "TOOL", 1762248602, {"mlflow.spanInputs": {"path": "p.py"}}),
            _mlflow_span(
                "t2", "read_file", "TOOL", 1762248603, {"mlflow.spanInputs": {"path": "t.py"}}, error=True
            ),
            _mlflow_span(
                "c2",
                "Completions",
                "CHAT_MODEL",
                1762248604,
                {
                    "mlflow.chat.messages": [
                        *_FIRST_INPUT,
                        _ASKED_OPENAI,
                        {"role": "tool", "tool_call_id": "call_a", "content": "def parse(): ..."},
                        {"role": "tool", "tool_call_id": "call_b", "content": "FileNotFoundError: t.py"},
                        {"role": "assistant", "content": "Fixed."},
                    ],
                    "mlflow.chat.tools": _OPENAI_TOOLS,
                },
            ),
        ]
    },
}
"""An MLflow 3 trace of an OpenAI-autologged agent, as ``Trace.to_json()`` writes it."""


def _agents_span(sid: str, parent: str | None, start: str, data: dict, error: dict | None = None) -> dict:
    return {
        "object": "trace.span",
        "id": sid,
        "trace_id": "trace_1",
        "parent_id": parent,
        "started_at": start,
        "ended_at": start.replace(".000", ".900"),
        "span_data": data,
        "error": error,
    }


_AGENTS_ASKED = {
    **_ASKED_OPENAI,
    "refusal": None,
    "annotations": [],
    "audio": None,
    "function_call": None,
}
AGENTS_SDK_TRACE = [
    {
        "object": "trace",
        "id": "trace_1",
        "workflow_name": "Agent workflow",
        "group_id": None,
        "metadata": {"task_id": "fix-parser-7"},
    },
    _agents_span(
        "span_agent",
        None,
        "2026-11-04T09:30:00.000000+00:00",
        {"type": "agent", "name": "Coder", "handoffs": [], "tools": ["read_file"], "output_type": "str"},
    ),
    _agents_span(
        "span_g1",
        "span_agent",
        "2026-11-04T09:30:01.000000+00:00",
        {
            "type": "generation",
            "input": _FIRST_INPUT,
            "output": [_AGENTS_ASKED],
            "model": "gpt-4o",
            "model_config": {"temperature": 0, "top_p": None, "base_url": "https://api.openai.com/v1/"},
            "usage": {"input_tokens": 80, "output_tokens": 20},
        },
    ),
    _agents_span(
        "span_f1",
        "span_agent",
        "2026-11-04T09:30:02.000000+00:00",
        {"type": "function", "name": "read_file", "input": '{"path": "p.py"}', "output": "def parse(): ..."},
    ),
    _agents_span(
        "span_f2",
        "span_agent",
        "2026-11-04T09:30:03.000000+00:00",
        {"type": "function", "name": "read_file", "input": '{"path": "t.py"}', "output": None},
        error={"message": "Error running tool", "data": {"tool_name": "read_file"}},
    ),
    _agents_span(
        "span_g2",
        "span_agent",
        "2026-11-04T09:30:04.000000+00:00",
        {
            "type": "generation",
            "input": [
                *_FIRST_INPUT,
                {"role": "assistant", "tool_calls": _ASKED_OPENAI["tool_calls"]},
                {"role": "tool", "tool_call_id": "call_a", "content": "def parse(): ..."},
                {"role": "tool", "tool_call_id": "call_b", "content": "FileNotFoundError: t.py"},
            ],
            "output": [{"role": "assistant", "content": "Fixed.", "tool_calls": None}],
            "model": "gpt-4o",
            "model_config": {"temperature": 0},
            "usage": {"input_tokens": 140, "output_tokens": 5},
        },
    ),
]
"""An OpenAI Agents SDK run as a trace processor writes it, one export per line: the trace and its
agent, generation (a Chat Completions model) and function spans, the second tool run failed."""


GATEWAY_LOG = {
    "id": "req_7",
    "created_at": "2026-11-04T09:30:06.000Z",
    "request": {
        "url": "https://api.openai.com/v1/chat/completions",
        "body": {
            "model": "gpt-4o",
            "temperature": 0,
            "metadata": {"task_id": "fix-parser-7"},
            "messages": [
                *_FIRST_INPUT,
                _ASKED_OPENAI,
                {"role": "tool", "tool_call_id": "call_a", "content": "def parse(): ..."},
                {"role": "tool", "tool_call_id": "call_b", "content": "FileNotFoundError: t.py"},
            ],
            "tools": _OPENAI_TOOLS,
        },
    },
    "response": {
        "status": 200,
        "body": {
            "id": "chatcmpl-9",
            "model": "gpt-4o-2024-08-06",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "Fixed."}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 140, "completion_tokens": 5},
        },
    },
}
"""A model call as a gateway logs it (the Helicone / Portkey shape): the request's body with the
conversation, the response's body with the answer."""


GATEWAY_ANTHROPIC_CALL = {
    "request": {
        "body": {
            "model": "claude-sonnet-4-5",
            "system": "You fix bugs.",
            "max_tokens": 1024,
            "messages": [
                {"role": "user", "content": "Fix add()"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Reading."},
                        {"type": "tool_use", "id": "tu1", "name": "read_file", "input": {"path": "calc.py"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "a - b"}],
                },
            ],
        }
    },
    "response": {
        "body": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "Fixed."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 50, "output_tokens": 3},
        }
    },
}
"""An Anthropic Messages call as a gateway logs it: content blocks, a tool use and its result."""


CLAUDE_STREAM = [
    {
        "type": "system",
        "subtype": "init",
        "session_id": "s-1",
        "cwd": "/repo",
        "tools": ["Bash", "Read", "Edit"],
        "model": "claude-sonnet-4-5",
    },
    {
        "type": "user",
        "message": {"role": "user", "content": "Fix the parser."},
        "parent_tool_use_id": None,
        "session_id": "s-1",
    },
    {
        "type": "assistant",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Running the tests."},
                {"type": "tool_use", "id": "tu_1", "name": "Bash", "input": {"command": "pytest -q"}},
            ],
            "stop_reason": "tool_use",
        },
        "parent_tool_use_id": None,
        "session_id": "s-1",
    },
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "1 failed"}],
        },
        "parent_tool_use_id": None,
        "session_id": "s-1",
    },
    {
        "type": "assistant",
        "message": {
            "id": "msg_9",
            "role": "assistant",
            "content": [{"type": "text", "text": "a sub-agent's turn"}],
        },
        "parent_tool_use_id": "tu_7",
        "session_id": "s-1",
    },
    {
        "type": "assistant",
        "message": {"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "Fixed."}]},
        "parent_tool_use_id": None,
        "session_id": "s-1",
    },
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "num_turns": 2,
        "duration_ms": 5400,
        "total_cost_usd": 0.012,
        "result": "Fixed.",
        "session_id": "s-1",
    },
]
"""A Claude Agent SDK run as ``claude -p --output-format stream-json`` prints it (the prompt streamed
in as a user message), with one sub-agent message."""


def _codex(stamp: str, kind: str, payload: dict) -> dict:
    return {"timestamp": f"2026-11-04T09:30:{stamp}.000Z", "type": kind, "payload": payload}


CODEX_SESSION = [
    _codex(
        "00",
        "session_meta",
        {"id": "019a-sess", "cwd": "/repo", "cli_version": "0.46.0", "originator": "codex_exec"},
    ),
    _codex(
        "00",
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "<environment_context>cwd: /repo</environment_context>"}
            ],
        },
    ),
    _codex(
        "00",
        "response_item",
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the parser."}]},
    ),
    _codex("00", "event_msg", {"type": "user_message", "message": "Fix the parser."}),
    _codex("01", "turn_context", {"cwd": "/repo", "model": "gpt-5-codex", "effort": "high"}),
    _codex(
        "02",
        "response_item",
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Run the tests."}]},
    ),
    _codex(
        "02",
        "response_item",
        {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command": ["pytest", "-q"]}',
            "call_id": "call_1",
        },
    ),
    _codex(
        "03", "response_item", {"type": "function_call_output", "call_id": "call_1", "output": "1 failed"}
    ),
    _codex("03", "event_msg", {"type": "token_count", "info": None}),
    _codex("04", "response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
    _codex("05", "compacted", {"message": "Ran the tests; one failure in the parser."}),
    _codex(
        "06",
        "response_item",
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
    ),
]
"""A Codex CLI rollout file: meta, Codex's own context message, the prompt, a reasoned shell call and
its output, UI events and a snapshot (counted, never events), a compaction, the answer."""


GEMINI_CLI_SESSION = {
    "sessionId": "f86f-sess",
    "projectHash": "79b6fa86e3c0d317",
    "startTime": "2026-11-04T09:30:00.000Z",
    "lastUpdated": "2026-11-04T09:31:00.000Z",
    "messages": [
        {"id": "m1", "timestamp": "2026-11-04T09:30:00.000Z", "type": "user", "content": "Fix the parser."},
        {
            "id": "m2",
            "timestamp": "2026-11-04T09:30:02.000Z",
            "type": "gemini",
            "content": "Running the tests.",
            "thoughts": [
                {
                    "subject": "Plan",
                    "description": "run the tests first",
                    "timestamp": "2026-11-04T09:30:01.000Z",
                }
            ],
            "toolCalls": [
                {
                    "id": "run_shell_command-1",
                    "name": "run_shell_command",
                    "args": {"command": "pytest -q"},
                    "result": [
                        {
                            "functionResponse": {
                                "id": "run_shell_command-1",
                                "name": "run_shell_command",
                                "response": {"output": "1 failed"},
                            }
                        }
                    ],
                    "status": "success",
                    "timestamp": "2026-11-04T09:30:03.000Z",
                },
                {
                    "id": "read_file-2",
                    "name": "read_file",
                    "args": {"absolute_path": "/repo/t.py"},
                    "result": [
                        {
                            "functionResponse": {
                                "id": "read_file-2",
                                "name": "read_file",
                                "response": {"error": "not found"},
                            }
                        }
                    ],
                    "status": "error",
                    "timestamp": "2026-11-04T09:30:04.000Z",
                },
            ],
            "tokens": {"input": 100, "output": 10, "cached": 0, "total": 110},
            "model": "gemini-2.5-pro",
        },
        {
            "id": "m3",
            "timestamp": "2026-11-04T09:30:05.000Z",
            "type": "info",
            "content": "Request cancelled.",
        },
        {
            "id": "m4",
            "timestamp": "2026-11-04T09:30:06.000Z",
            "type": "gemini",
            "content": "Fixed.",
            "model": "gemini-2.5-pro",
        },
    ],
}
"""A Gemini CLI session file: a turn with thoughts, a tool call that ran and one that failed, an
interface message, the answer."""


GATEWAY_RUN = [
    {
        "metadata": {"session_id": "run-7"},
        "request": {"body": {"model": "gpt-4o", "messages": _FIRST_INPUT, "tools": _OPENAI_TOOLS}},
        "response": {"body": {"choices": [{"message": _ASKED_OPENAI, "finish_reason": "tool_calls"}]}},
    },
    {**GATEWAY_LOG, "metadata": {"session_id": "run-7"}},
]
"""An agent's run as a gateway logs it, one call per line, both naming their session."""


CODEX_EXEC_EVENTS = [
    {"type": "thread.started", "thread_id": "019a-thread"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "Run the tests first."}},
    {
        "type": "item.started",
        "item": {
            "id": "item_1",
            "type": "command_execution",
            "command": "pytest -q",
            "status": "in_progress",
        },
    },
    {
        "type": "item.completed",
        "item": {
            "id": "item_1",
            "type": "command_execution",
            "command": "pytest -q",
            "aggregated_output": "1 failed",
            "exit_code": 1,
            "status": "failed",
        },
    },
    {
        "type": "item.completed",
        "item": {
            "id": "item_2",
            "type": "file_change",
            "changes": [{"path": "p.py", "kind": "update"}],
            "status": "completed",
        },
    },
    {
        "type": "item.completed",
        "item": {"id": "item_3", "type": "todo_list", "items": [{"text": "fix", "completed": True}]},
    },
    {"type": "item.completed", "item": {"id": "item_4", "type": "agent_message", "text": "Fixed."}},
    {"type": "turn.completed", "usage": {"input_tokens": 2946, "cached_input_tokens": 0, "output_tokens": 7}},
]
"""What ``codex exec --json`` prints for a run: reasoning, a failing command, a file change, a to-do
list (the interface's), the answer, the turn's usage."""


def _goose(index: int, role: str, content: list | str, **metadata: bool) -> dict:
    return {
        "id": f"msg_{index}",
        "role": role,
        "created": 1764840600 + index,
        "content": content,
        "metadata": {"userVisible": True, "agentVisible": True, **metadata},
    }


GOOSE_MESSAGES = [
    _goose(0, "user", [{"type": "text", "text": "Fix the failing parser test."}]),
    _goose(1, "user", [{"type": "text", "text": "(shown to the user only)"}], agentVisible=False),
    _goose(
        2,
        "assistant",
        [
            {"type": "thinking", "thinking": "Run the tests first.", "signature": "sig"},
            {"type": "text", "text": "Running the tests."},
            {
                "type": "toolRequest",
                "id": "toolu_1",
                "toolCall": {
                    "status": "success",
                    "value": {"name": "developer__shell", "arguments": {"command": "pytest -q"}},
                },
            },
        ],
    ),
    _goose(
        3,
        "user",
        [
            {
                "type": "toolResponse",
                "id": "toolu_1",
                "toolResult": {
                    "status": "success",
                    "value": {"content": [{"type": "text", "text": "1 failed"}], "isError": True},
                },
            }
        ],
    ),
    _goose(
        4,
        "assistant",
        [
            {"type": "toolRequest", "id": "toolu_2", "toolCall": {"status": "error", "error": "bad JSON"}},
            {"type": "text", "text": "Fixed."},
        ],
    ),
]
"""A Goose conversation: the prompt, a message the agent never saw, a reasoned shell call whose result
says it failed, an unparsable tool request, the answer."""
GOOSE_SESSION = [
    {
        "id": "20261204_3",
        "description": "fix parser",
        "working_dir": "/home/dev/parser",
        "message_count": 5,
        "total_tokens": 1200,
    },
    *GOOSE_MESSAGES,
]
"""A Goose session file (``~/.local/share/goose/sessions/*.jsonl``): the metadata line, the messages."""
GOOSE_STREAM = [
    *({"type": "message", "message": message} for message in GOOSE_MESSAGES),
    {"type": "notification", "extension_id": "developer", "message": "running"},
    {"type": "complete", "total_tokens": 1200},
]
"""What ``goose run --output-format stream-json`` prints for the same conversation."""


def _framework_chat(call_turn: dict, result_turn: dict, typed: bool = True) -> dict:
    """A conversation as a chat framework writes it: the ask, a turn that calls ``weather`` (id
    ``call_1``, city Rome), the turn that answers it (``sunny``), the final answer; text parts
    ``{"type": "text", "text"}``, or ``{"text"}`` alone when not ``typed``."""

    def text(words: str) -> list[dict]:
        return [{"type": "text", "text": words} if typed else {"text": words}]

    return {
        "messages": [
            {"role": "user", "content": text("Weather in Rome?")},
            call_turn,
            result_turn,
            {"role": "assistant", "content": text("Sunny in Rome.")},
        ]
    }


FRAMEWORK_CHATS = {
    "strands": _framework_chat(
        {
            "role": "assistant",
            "content": [
                {"text": "Checking."},
                {"toolUse": {"toolUseId": "call_1", "name": "weather", "input": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"toolResult": {"toolUseId": "call_1", "status": "success", "content": [{"text": "sunny"}]}}
            ],
        },
        typed=False,
    ),
    "vercel-ai": _framework_chat(
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool-call",
                    "toolCallId": "call_1",
                    "toolName": "weather",
                    "args": {"city": "Rome"},
                },
            ],
        },
        {
            "role": "tool",
            "content": [
                {"type": "tool-result", "toolCallId": "call_1", "toolName": "weather", "result": "sunny"}
            ],
        },
    ),
    "haystack": _framework_chat(
        {
            "role": "assistant",
            "content": [
                {"text": "Checking."},
                {"tool_call": {"tool_name": "weather", "arguments": {"city": "Rome"}, "id": "call_1"}},
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "tool_call_result": {
                        "result": "sunny",
                        "origin": {"tool_name": "weather", "arguments": {"city": "Rome"}, "id": "call_1"},
                        "error": False,
                    }
                }
            ],
        },
        typed=False,
    ),
    "semantic-kernel": _framework_chat(
        {
            "role": "assistant",
            "items": [
                {"content_type": "text", "text": "Checking."},
                {
                    "content_type": "function_call",
                    "id": "call_1",
                    "name": "weather",
                    "arguments": '{"city":"Rome"}',
                },
            ],
        },
        {
            "role": "tool",
            "items": [
                {"content_type": "function_result", "id": "call_1", "name": "weather", "result": "sunny"}
            ],
        },
    ),
    "llamaindex": _framework_chat(
        {
            "role": "assistant",
            "blocks": [{"block_type": "text", "text": "Checking."}],
            "additional_kwargs": {
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city":"Rome"}'},
                    }
                ]
            },
        },
        {
            "role": "tool",
            "blocks": [{"block_type": "text", "text": "sunny"}],
            "additional_kwargs": {"tool_call_id": "call_1", "name": "weather"},
        },
    ),
    "openai-custom-tool": _framework_chat(
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {"id": "call_1", "type": "custom", "custom": {"name": "weather", "input": '{"city":"Rome"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ),
    "anthropic-mcp": {
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Weather in Rome?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "mcp_tool_use",
                        "id": "call_1",
                        "name": "weather",
                        "server_name": "w",
                        "input": {"city": "Rome"},
                    },
                    {
                        "type": "mcp_tool_result",
                        "tool_use_id": "call_1",
                        "is_error": False,
                        "content": [{"type": "text", "text": "sunny"}],
                    },
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "Sunny in Rome."}]},
        ],
    },
}
"""One conversation (the ask, a call of ``weather``, its result ``sunny``, the answer) as each chat
framework writes its tool-call and tool-result content parts."""

STREAMED_GATEWAY_CALL = {
    "request": {
        "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": "Fix it."}], "stream": True}
    },
    "response": {
        "body": [
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Fi"}}],
            },
            {
                "object": "chat.completion.chunk",
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "call_1",
                                    "function": {"name": "edit", "arguments": '{"pa'},
                                }
                            ]
                        },
                    }
                ],
            },
            {
                "object": "chat.completion.chunk",
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "content": "xing.",
                            "tool_calls": [{"index": 0, "function": {"arguments": 'th":"a.py"}'}}],
                        },
                    }
                ],
            },
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 4},
            },
        ]
    },
}
"""A gateway's log of a streamed call: the request, and the response as the chunks it streamed (the
answer's text and one call's arguments each split across chunks)."""

PYDANTIC_AI_MESSAGES = [
    {
        "kind": "request",
        "parts": [
            {"part_kind": "system-prompt", "content": "Be concise.", "timestamp": "2026-11-04T09:30:00Z"},
            {"part_kind": "user-prompt", "content": "Weather in Rome?", "timestamp": "2026-11-04T09:30:00Z"},
        ],
    },
    {
        "kind": "response",
        "parts": [
            {"part_kind": "thinking", "content": "Look it up."},
            {
                "part_kind": "tool-call",
                "tool_name": "weather",
                "args": '{"city":"Rome"}',
                "tool_call_id": "call_1",
            },
        ],
        "usage": {"input_tokens": 50, "output_tokens": 10},
        "model_name": "gpt-4o",
        "timestamp": "2026-11-04T09:30:01Z",
    },
    {
        "kind": "request",
        "parts": [
            {
                "part_kind": "retry-prompt",
                "tool_name": "weather",
                "tool_call_id": "call_1",
                "content": [{"type": "missing", "loc": ["units"], "msg": "Field required"}],
            }
        ],
    },
    {
        "kind": "response",
        "parts": [
            {
                "part_kind": "tool-call",
                "tool_name": "weather",
                "args": {"city": "Rome", "units": "C"},
                "tool_call_id": "call_2",
            }
        ],
    },
    {
        "kind": "request",
        "parts": [
            {"part_kind": "tool-return", "tool_name": "weather", "content": "sunny", "tool_call_id": "call_2"}
        ],
    },
    {
        "kind": "response",
        "parts": [{"part_kind": "text", "content": "Sunny in Rome."}],
        "finish_reason": "stop",
    },
]
"""A Pydantic AI run's ``all_messages_json()``: the prompts, a reasoned call the framework sent back
as invalid (a retry prompt), the corrected call, its result, the answer."""

_WEATHER_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
    ],
}
_WEATHER_TURNS = [_WEATHER_CALL, {"role": "tool", "tool_call_id": "c1", "content": "18C"}]
_ASK_WEATHER = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}]
SPLIT_CONVERSATIONS = {
    "trl_prompt_completion": {
        "prompt": _ASK_WEATHER,
        "completion": [*_WEATHER_TURNS, {"role": "assistant", "content": "18C in Paris."}],
    },
    "trl_preference": {
        "prompt": _ASK_WEATHER,
        "chosen": [{"role": "assistant", "content": "18C in Paris."}],
        "rejected": [{"role": "assistant", "content": "I don't know."}],
    },
    "openai_dpo": {
        "input": {"messages": _ASK_WEATHER, "tools": [], "parallel_tool_calls": True},
        "preferred_output": [{"role": "assistant", "content": "18C in Paris."}],
        "non_preferred_output": [{"role": "assistant", "content": "I don't know."}],
    },
    "input_output_messages": {
        "id": "op-1",
        "input": {"messages": _ASK_WEATHER},
        "output": {"messages": [*_WEATHER_TURNS, {"role": "assistant", "content": "18C in Paris."}]},
    },
}
"""One conversation split across sibling fields, the prompt in one and its continuation in another
(TRL's conversational prompt-completion and preference rows, OpenAI's DPO fine-tuning rows, a
logger's new messages under ``output``): each reads as system, user, then the continuation."""
BRAINTRUST_SPAN = {
    "id": "s1",
    "root_span_id": "r1",
    "input": _ASK_WEATHER,
    "output": [{"index": 0, "message": _WEATHER_CALL, "logprobs": None, "finish_reason": "tool_calls"}],
    "metadata": {"model": "gpt-4o"},
}
"""A Braintrust LLM span: the response's choices logged as the span's ``output``, without the
response around them."""


def _thread_message(mid: str, stamp: int, role: str, text: str) -> dict:
    return {
        "id": mid,
        "object": "thread.message",
        "created_at": stamp,
        "role": role,
        "content": [{"type": "text", "text": {"value": text, "annotations": []}}],
    }


ASSISTANTS_THREAD_TIED = {
    "object": "list",
    "data": [
        _thread_message("msg_4", 1735000010, "assistant", "Second part: 42."),
        _thread_message("msg_3", 1735000010, "assistant", "First part: computing."),
        _thread_message("msg_2", 1735000005, "user", "What is 6*7? Two messages."),
        _thread_message("msg_1", 1735000001, "user", "Hi"),
    ],
    "first_id": "msg_4",
    "last_id": "msg_1",
    "has_more": False,
}
"""An Assistants API thread listed newest first (its default order) in which two messages share a
second."""

ANTHROPIC_PREFILL_CALL = {
    "request": {
        "body": {
            "model": "claude-3-5-sonnet-20241022",
            "max_tokens": 100,
            "system": "Reply in JSON.",
            "messages": [
                {"role": "user", "content": "Give me a JSON object with key a=1"},
                {"role": "assistant", "content": "{"},
            ],
        }
    },
    "response": {
        "body": {
            "id": "msg_p",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": '"a": 1}'}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 20, "output_tokens": 6},
        }
    },
}
"""A gateway's log of an Anthropic call whose caller prefilled the answer (``{``): the model's
response continues that text."""

RESPONSES_CHAIN = [
    {
        "id": "resp_A",
        "object": "response",
        "previous_response_id": None,
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]}],
        "output": [
            {
                "id": "fc_1",
                "type": "function_call",
                "name": "get_weather",
                "call_id": "call_A1",
                "arguments": '{"city":"Paris"}',
            }
        ],
        "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}],
        "metadata": {"task_id": "weather-1"},
    },
    {
        "id": "resp_B",
        "object": "response",
        "previous_response_id": "resp_A",
        "instructions": "Be brief.",
        "input": [{"type": "function_call_output", "call_id": "call_A1", "output": "18C"}],
        "output": [
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "18C in Paris.", "annotations": []}],
            }
        ],
    },
]
"""A conversation kept on the server, logged one Responses API response a line: the second names
the first (``previous_response_id``) and holds only the call's output and the answer."""

BRAINTRUST_TRACE = [
    BRAINTRUST_SPAN,
    {
        "id": "s2",
        "root_span_id": "r1",
        "input": [*_ASK_WEATHER, *_WEATHER_TURNS],
        "output": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "18C in Paris."},
                "finish_reason": "stop",
            }
        ],
    },
    {
        "id": "r1",
        "root_span_id": "r1",
        "span_parents": None,
        "input": "Weather in Paris?",
        "output": "18C in Paris.",
        "metadata": {"task_id": "weather-1"},
    },
]
"""A Braintrust trace: two LLM spans and the agent's root span (a task span restating the question
and the answer, naming the task), every span naming its trace by ``root_span_id``."""

# Wrapped and streamed logs (batch.py, answer_stream.py): an OpenAI batch's input and output lines,
# Anthropic Message Batches results, and streamed answers as a proxy saves them, one piece a line.
OPENAI_BATCH_INPUT = [
    {
        "custom_id": "task-1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {
            "model": "gpt-4o",
            "metadata": {"task_id": "fix-parser-7"},
            "messages": [
                {"role": "system", "content": "You are a careful coding agent."},
                {"role": "user", "content": "Fix the parser."},
            ],
            "tools": [
                {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
            ],
        },
    },
    {
        "custom_id": "task-2",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": "Fix the lexer."}]},
    },
]
OPENAI_BATCH_OUTPUT = [
    {
        "id": "batch_req_1",
        "custom_id": "task-1",
        "response": {
            "status_code": 200,
            "request_id": "req_1",
            "body": {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": "gpt-4o-2024-08-06",
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": "call_1",
                                    "type": "function",
                                    "function": {"name": "read_file", "arguments": '{"path": "p.py"}'},
                                }
                            ],
                        },
                        "finish_reason": "tool_calls",
                    }
                ],
                "usage": {"prompt_tokens": 80, "completion_tokens": 17},
            },
        },
        "error": None,
    },
    {
        "id": "batch_req_2",
        "custom_id": "task-2",
        "response": None,
        "error": {"code": "batch_expired", "message": "This request could not be executed in time."},
    },
]
ANTHROPIC_BATCH_RESULTS = [
    {
        "custom_id": "req-1",
        "result": {
            "type": "succeeded",
            "message": {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [
                    {"type": "thinking", "thinking": "Read it first.", "signature": "abc"},
                    {"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {"path": "p.py"}},
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 50, "output_tokens": 30},
            },
        },
    },
    {
        "custom_id": "req-2",
        "result": {
            "type": "errored",
            "error": {"type": "error", "error": {"type": "overloaded_error", "message": "x"}},
        },
    },
]
ANTHROPIC_STREAM = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_s1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-sonnet-4-5",
            "stop_reason": None,
            "usage": {"input_tokens": 25, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Reading "}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "the file."}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"path": '},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '"p.py"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 15},
    },
    {"type": "message_stop"},
]


def chat_chunk(delta: dict, finish: str | None = None, index: int = 0) -> dict:
    """One Chat Completions stream chunk of the response ``chatcmpl-s1``."""
    return {
        "id": "chatcmpl-s1",
        "object": "chat.completion.chunk",
        "model": "gpt-4o",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }


CHAT_STREAM = [
    chat_chunk({"role": "assistant", "content": "Reading "}),
    chat_chunk({"content": "both."}),
    chat_chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": ""},
                }
            ]
        }
    ),
    chat_chunk(
        {
            "tool_calls": [
                {
                    "index": 1,
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": '},
                }
            ]
        }
    ),
    chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "p.py"}'}}]}),
    chat_chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"t.py"}'}}]}),
    chat_chunk({}, "tool_calls"),
    {
        "id": "chatcmpl-s1",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {"prompt_tokens": 30, "completion_tokens": 20},
    },
]

# A llama.cpp /completion call whose prompt is ChatML text (text_completion.py).
TEXT_COMPLETION_CALL = {
    "prompt": (
        "<|im_start|>system\nYou are a careful coding agent.<|im_end|>\n"
        "<|im_start|>user\nFix the parser.<|im_end|>\n<|im_start|>assistant\n"
    ),
    "content": "Fixed.",
    "model": "qwen2.5-7b-instruct-q4_k_m.gguf",
    "stop_type": "eos",
    "tokens_evaluated": 40,
    "tokens_predicted": 3,
}
