"""Small hand-written logs of agent frameworks, each in the shape its framework's docs show: the
development cases of ``test_agent_framework_logs.py``, also swept for record text in rejects
(``test_reject_details_hold_no_record_text.py``). Each is a list of records (JSONL lines) or a
document; the weather question is the same everywhere so the expected turns read alike."""

from __future__ import annotations

import json
from typing import Any

ASK = "Weather in Paris?"


def _lc(kind: str, **fields: Any) -> dict[str, Any]:
    """A LangChain message as ``model_dump()`` writes it."""
    return {"type": kind, "additional_kwargs": {}, "response_metadata": {}, **fields}


_LC_TURNS = [
    _lc("human", content=ASK, id="h1"),
    _lc(
        "ai",
        content="",
        tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "w1", "type": "tool_call"}],
        usage_metadata={"input_tokens": 30, "output_tokens": 8, "total_tokens": 38},
    ),
    _lc("tool", content="18C", name="get_weather", tool_call_id="w1", status="success"),
    _lc("ai", content="18C in Paris.", response_metadata={"finish_reason": "stop"}),
]

LANGGRAPH_STATE = {
    "values": {"messages": _LC_TURNS},
    "next": [],
    "tasks": [],
    "metadata": {"step": 3, "thread_id": "th-1", "task_id": "weather-paris"},
    "checkpoint": {"thread_id": "th-1", "checkpoint_id": "c3"},
}
LANGGRAPH_CHECKPOINTS = [
    {
        "thread_id": "th-2",
        "checkpoint": {"id": f"c{n}", "channel_values": {"messages": _LC_TURNS[:n]}},
        "metadata": {"step": n},
    }
    for n in (1, 4, 2)
]
LANGGRAPH_UPDATES = [
    {"agent": {"messages": [_LC_TURNS[1]]}},
    {"tools": {"messages": [_LC_TURNS[2]]}},
    {"agent": {"messages": [_LC_TURNS[3]]}},
]

LANGGRAPH_VALUES = [
    *({"messages": _LC_TURNS[:n]} for n in range(1, 5)),
    {"messages": [_lc("human", content="And in Rome?")]},
]
"""``stream_mode="values"``: the state after each step, two runs one after the other."""

SMOLAGENTS_STEPS = [
    {"system_prompt": "Solve tasks with code."},
    {"task": ASK, "task_images": None},
    {
        "step_number": 1,
        "timing": {"start_time": 1735000000.0},
        "model_output": "Thought: look it up.",
        "tool_calls": [
            {"id": "s1", "type": "function", "function": {"name": "get_weather", "arguments": "Paris"}}
        ],
        "observations": "18C",
        "error": None,
        "token_usage": {"input_tokens": 40, "output_tokens": 9},
        "is_final_answer": False,
    },
    {
        "step_number": 2,
        "model_output": "Thought: answer.",
        "tool_calls": [
            {"id": "s2", "type": "function", "function": {"name": "final_answer", "arguments": "18C"}}
        ],
        "observations": "18C in Paris.",
        "action_output": "18C in Paris.",
        "is_final_answer": True,
    },
    {"output": "18C in Paris."},
]
SMOLAGENTS_MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": ASK}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Thought: look it up."}]},
    {
        "role": "tool-call",
        "content": [
            {
                "type": "text",
                "text": "Calling tools:\n[{'id': 's1', 'type': 'function', "
                "'function': {'name': 'get_weather', 'arguments': 'Paris'}}]",
            }
        ],
    },
    {"role": "tool-response", "content": [{"type": "text", "text": "Call id: s1\nObservation:\n18C"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "18C in Paris."}]},
]


def _adk(author: str, role: str, *parts: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "content": {"role": role, "parts": list(parts)},
        "author": author,
        "invocation_id": "i1",
        **fields,
    }


ADK_EVENTS = [
    _adk("user", "user", {"text": ASK}, timestamp=1735000000.0),
    _adk(
        "weather_agent",
        "model",
        {"function_call": {"id": "a1", "name": "get_weather", "args": {"city": "Paris"}}},
        usage_metadata={"prompt_token_count": 50, "candidates_token_count": 7},
    ),
    _adk(
        "weather_agent",
        "user",
        {"function_response": {"id": "a1", "name": "get_weather", "response": {"temp": "18C"}}},
    ),
    _adk("weather_agent", "model", {"text": "18C in "}, partial=True),
    _adk("weather_agent", "model", {"text": "18C in Paris."}),
]
ADK_SESSION = {"id": "sess-1", "app_name": "weather", "user_id": "u1", "state": {}, "events": ADK_EVENTS}

LETTA = {
    "messages": [
        {"id": "m1", "message_type": "user_message", "content": ASK},
        {"id": "m2", "message_type": "reasoning_message", "reasoning": "Call the weather tool."},
        {
            "id": "m2",
            "message_type": "tool_call_message",
            "tool_call": {"name": "get_weather", "arguments": '{"city": "Paris"}', "tool_call_id": "l1"},
        },
        {
            "id": "m3",
            "message_type": "tool_return_message",
            "tool_return": "18C",
            "status": "success",
            "tool_call_id": "l1",
        },
        {"id": "m4", "message_type": "assistant_message", "content": "18C in Paris."},
    ]
}
HAYSTACK = {
    "messages": [
        {"_role": "user", "_content": [{"text": ASK}], "_name": None, "_meta": {}},
        {
            "_role": "assistant",
            "_content": [
                {"tool_call": {"tool_name": "get_weather", "arguments": {"city": "Paris"}, "id": "y1"}}
            ],
            "_name": None,
            "_meta": {},
        },
        {
            "_role": "tool",
            "_content": [
                {
                    "tool_call_result": {
                        "result": "18C",
                        "error": False,
                        "origin": {"tool_name": "get_weather", "arguments": {"city": "Paris"}, "id": "y1"},
                    }
                }
            ],
            "_name": None,
            "_meta": {},
        },
        {"_role": "assistant", "_content": [{"text": "18C in Paris."}], "_name": None, "_meta": {}},
    ]
}
SK_DOTNET = [
    {"Role": {"Label": "user"}, "Items": [{"$type": "TextContent", "Text": ASK}]},
    {
        "Role": {"Label": "assistant"},
        "Items": [
            {
                "$type": "FunctionCallContent",
                "Id": "k1",
                "PluginName": "Weather",
                "FunctionName": "GetWeather",
                "Arguments": {"city": "Paris"},
            }
        ],
    },
    {
        "Role": {"Label": "tool"},
        "Content": "18C",
        "Items": [
            {"$type": "FunctionResultContent", "CallId": "k1", "FunctionName": "GetWeather", "Result": "18C"}
        ],
    },
    {"Role": {"Label": "assistant"}, "Items": [{"$type": "TextContent", "Text": "18C in Paris."}]},
]
CONTINUE_SESSION = {
    "sessionId": "cs-1",
    "title": "Weather",
    "workspaceDirectory": "file:///w",
    "history": [
        {"message": {"role": "user", "content": ASK}, "contextItems": []},
        {"message": {"role": "thinking", "content": "Use the tool."}, "contextItems": []},
        {
            "message": {
                "role": "assistant",
                "content": "",
                "toolCalls": [
                    {
                        "id": "t1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            "contextItems": [],
            "toolCallState": {"toolCallId": "t1", "status": "done"},
        },
        {"message": {"role": "tool", "content": "18C", "toolCallId": "t1"}, "contextItems": []},
        {
            "message": {"role": "assistant", "content": "18C in Paris."},
            "contextItems": [],
            "promptLogs": [{"completionOptions": {"model": "gpt-4o"}}],
        },
    ],
}
AGNO_RUN = {
    "run_id": "r1",
    "messages": [
        {"role": "user", "content": ASK},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "g1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "content": "18C", "tool_call_id": "g1", "tool_name": "get_weather"},
        {"role": "assistant", "content": "18C in Paris."},
    ],
    "tools": [
        {"tool_call_id": "g1", "tool_name": "get_weather", "tool_args": {"city": "Paris"}, "content": "18C"}
    ],
}

OPENHANDS_PAGE = {
    "has_more": False,
    "events": [
        {"id": 0, "source": "user", "action": "message", "args": {"content": ASK}},
        {
            "id": 1,
            "source": "agent",
            "action": "run",
            "args": {"command": "weather Paris", "thought": "Ask the tool."},
            "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "o1"},
        },
        {
            "id": 2,
            "source": "agent",
            "observation": "run",
            "cause": 1,
            "content": "18C",
            "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "o1"},
            "extras": {"metadata": {"exit_code": 0}},
        },
        {"id": 3, "source": "agent", "action": "message", "args": {"content": "18C in Paris."}},
    ],
}
OPENHANDS_SDK = [
    {
        "kind": "MessageEvent",
        "id": "e1",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": ASK}]},
    },
    {
        "kind": "ActionEvent",
        "id": "e2",
        "source": "agent",
        "thought": [{"type": "text", "text": "Ask the tool."}],
        "action": {"kind": "TerminalAction", "command": "weather Paris"},
        "tool_name": "terminal",
        "tool_call_id": "v1",
        "tool_call": {
            "id": "v1",
            "type": "function",
            "function": {"name": "terminal", "arguments": '{"command": "weather Paris"}'},
        },
        "llm_response_id": "r1",
    },
    {
        "kind": "ObservationEvent",
        "id": "e3",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "v1",
        "observation": {"kind": "TerminalObservation", "output": "18C", "exit_code": 0},
    },
    {
        "kind": "MessageEvent",
        "id": "e4",
        "source": "agent",
        "llm_message": {"role": "assistant", "content": "18C in Paris."},
    },
]


def _attempt(patch: str) -> dict[str, Any]:
    return {
        "history": [
            {"role": "user", "content": "Fix the bug", "agent": "main", "message_type": "observation"},
            {
                "role": "assistant",
                "content": "submit",
                "agent": "main",
                "message_type": "action",
                "tool_calls": [
                    {"id": "r1", "type": "function", "function": {"name": "submit", "arguments": "{}"}}
                ],
            },
        ],
        "trajectory": [],
        "info": {"exit_status": "submitted", "submission": patch},
    }


SWE_RETRY = {"attempts": [_attempt("diff a"), _attempt("diff b")], "info": {"submission": "diff b"}}


def _part(step: dict[str, Any]) -> dict[str, Any]:
    return {"agentId": "AG", "sessionId": "bs-1", "trace": {"orchestrationTrace": step}}


BEDROCK_AGENT_TRACE = [
    _part(
        {
            "modelInvocationInput": {
                "text": json.dumps({"system": "Be brief.", "messages": [{"role": "user", "content": ASK}]})
            }
        }
    ),
    _part({"rationale": {"text": "Use the weather action."}}),
    _part(
        {
            "invocationInput": {
                "invocationType": "ACTION_GROUP",
                "actionGroupInvocationInput": {
                    "actionGroupName": "weather",
                    "function": "get_weather",
                    "parameters": [{"name": "city", "value": "Paris"}],
                },
            }
        }
    ),
    _part({"observation": {"type": "ACTION_GROUP", "actionGroupInvocationOutput": {"text": "18C"}}}),
    _part({"observation": {"type": "FINISH", "finalResponse": {"text": "18C in Paris."}}}),
]

_LI = "llama_index.core.agent.workflow.workflow_events."
LLAMAINDEX_EVENTS = [
    {
        "qualified_name": _LI + "AgentInput",
        "value": {"input": [{"role": "user", "blocks": [{"block_type": "text", "text": ASK}]}]},
    },
    {
        "qualified_name": _LI + "AgentOutput",
        "value": {
            "response": {"role": "assistant", "blocks": []},
            "tool_calls": [{"tool_id": "q1", "tool_name": "get_weather", "tool_kwargs": {"city": "Paris"}}],
        },
    },
    {
        "qualified_name": _LI + "ToolCallResult",
        "value": {
            "tool_name": "get_weather",
            "tool_id": "q1",
            "tool_output": {"content": "18C", "is_error": False},
        },
    },
    {
        "qualified_name": _LI + "AgentOutput",
        "value": {
            "response": {"role": "assistant", "blocks": [{"block_type": "text", "text": "18C in Paris."}]},
            "tool_calls": [],
        },
    },
]

_CALL = {
    "tool_call.id": "p1",
    "tool_call.function.name": "get_weather",
    "tool_call.function.arguments": '{"city": "Paris"}',
}
PHOENIX_ROWS = [
    {
        "name": "llm",
        "span_kind": "LLM",
        "context.trace_id": "pt-1",
        "context.span_id": "s1",
        "start_time": 1735000000000,
        "status_code": "OK",
        "attributes.llm.input_messages": [{"message.role": "user", "message.content": ASK}],
        "attributes.llm.output_messages": [{"message.role": "assistant", "message.tool_calls": [_CALL]}],
    },
    {
        "name": "llm",
        "span_kind": "LLM",
        "context.trace_id": "pt-1",
        "context.span_id": "s2",
        "start_time": 1735000002000,
        "status_code": "OK",
        "attributes.llm.input_messages": [
            {"message.role": "user", "message.content": ASK},
            {"message.role": "assistant", "message.tool_calls": [_CALL]},
            {"message.role": "tool", "message.tool_call_id": "p1", "message.content": "18C"},
        ],
        "attributes.llm.output_messages": [{"message.role": "assistant", "message.content": "18C in Paris."}],
    },
]
MISTRAL_HISTORY = {
    "object": "conversation.history",
    "conversation_id": "conv-1",
    "entries": [
        {"object": "entry", "type": "message.input", "role": "user", "content": ASK},
        {
            "object": "entry",
            "type": "function.call",
            "tool_call_id": "m1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"object": "entry", "type": "function.result", "tool_call_id": "m1", "result": "18C"},
        {
            "object": "entry",
            "type": "message.output",
            "role": "assistant",
            "model": "mistral-medium",
            "content": "18C in Paris.",
        },
    ],
}
CREWAI_LOG = [
    {
        "timestamp": "2025-01-01 10:00:00",
        "task_name": "weather",
        "task": ASK,
        "agent": "Forecaster",
        "status": "started",
    },
    {
        "timestamp": "2025-01-01 10:01:00",
        "task_name": "weather",
        "task": ASK,
        "agent": "Forecaster",
        "status": "completed",
        "output": "18C in Paris.",
    },
]

DSPY_REACT = {
    "question": ASK,
    "trajectory": {
        "thought_0": "I should look the weather up.",
        "tool_name_0": "get_weather",
        "tool_args_0": {"city": "Paris"},
        "observation_0": "18C",
        "thought_1": "I have the answer.",
        "tool_name_1": "finish",
        "tool_args_1": {},
        "observation_1": "Completed.",
    },
    "reasoning": "The tool said 18C.",
    "answer": "18C in Paris.",
}
"""A ``dspy.ReAct`` prediction logged with its input (``{**example.inputs(), **prediction}``)."""


def _ag2(kind: str, number: int, **content: Any) -> dict[str, Any]:
    """An AG2 run event as ``JsonIOStream`` writes it."""
    return {"type": kind, "content": {"uuid": f"00000000-0000-0000-0000-00000000000{number}", **content}}


AG2_EVENTS = [
    _ag2("text", 1, content=ASK, sender="user_proxy", recipient="forecaster"),
    _ag2(
        "tool_call",
        2,
        content=None,
        role="assistant",
        tool_calls=[{"id": "g2", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}],
        sender="forecaster",
        recipient="user_proxy",
    ),
    _ag2("execute_function", 3, func_name="get_weather", call_id="g2", arguments={}, recipient="user_proxy"),
    _ag2(
        "tool_response",
        4,
        role="tool",
        content="18C",
        tool_responses=[{"tool_call_id": "g2", "role": "tool", "content": "18C"}],
        sender="user_proxy",
        recipient="forecaster",
    ),
    _ag2("text", 5, content="18C in Paris.", sender="forecaster", recipient="user_proxy"),
    _ag2("termination", 6, termination_reason="Maximum turns (2) reached"),
]
"""An AG2 (0.8 on) ``run()`` streamed as JSON events, one a line."""
