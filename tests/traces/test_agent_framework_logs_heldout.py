"""Held-out shapes of the agent-framework families (a second version or layout of each, written from
the frameworks' docs before the readers were run on them), kept apart from the development cases
in ``test_agent_framework_logs.py``. Each must read as the format, the kinds of events in order and
the number of calls stated, with no reject.

Measured on their first run, before any change for them: 13 of the 16 read fully as expected. A
LangGraph server stream's update that wrote no messages was rejected (v02); a .NET ChatHistory
whose ``Content`` repeats its ``Items`` lost a tool result's call id (v07: the structural check
passed, the pairing did not); a Mistral ``tool_reference`` citation became JSON text in the
assistant's turn (v08). All three were fixed after measuring, and the checks below that name them
keep them fixed. A second round (r01-r10, below), written after those fixes, read 10 of 10 on its
first run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from log_files import write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

LOGS: dict[str, tuple[Any, bool]] = {}
EXPECTED: dict[str, list[tuple[str, str, int]]] = {}


def w(name: str, log: Any, lines: bool = False) -> None:
    """Register a held-out log (``lines``: one JSON value a line)."""
    LOGS[name] = (log, lines)


# V1 LangGraph checkpoints, two threads, dumpd messages without kwargs.type (older langchain), invalid call
def lc(cls, **kw):
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls], "kwargs": kw}


def cp(tid: str, step: int, msgs: list[Any]) -> dict[str, Any]:
    return {
        "config": {"configurable": {"thread_id": tid, "checkpoint_ns": "", "checkpoint_id": f"{tid}-{step}"}},
        "checkpoint": {
            "v": 1,
            "id": f"{tid}-{step}",
            "ts": f"2025-02-01T00:00:0{step}Z",
            "channel_values": {"messages": msgs},
        },
        "metadata": {"step": step, "source": "loop", "task_id": "calc-mul"},
        "parent_config": None,
    }


m1 = [lc("HumanMessage", content="Multiply 6 by 7")]
m2 = m1 + [
    lc(
        "AIMessage",
        content="",
        tool_calls=[],
        invalid_tool_calls=[{"name": "mul", "args": "{a: 6, b 7}", "id": "c0", "error": "bad json"}],
    )
]
m3 = m2 + [lc("ToolMessage", content="Error: invalid arguments", tool_call_id="c0", status="error")]
m4 = m3 + [
    lc("AIMessage", content="", tool_calls=[{"name": "mul", "args": {"a": 6, "b": 7}, "id": "c1"}]),
    lc("ToolMessage", content="42", tool_call_id="c1"),
    lc("AIMessage", content="6 x 7 = 42"),
]
w(
    "v01_langgraph_checkpoints_lc.jsonl",
    [
        cp("A", 1, m1),
        cp("B", 1, [lc("HumanMessage", content="hi")]),
        cp("A", 2, m2),
        cp("A", 4, m4),
        cp("A", 3, m3),
        cp("B", 2, [lc("HumanMessage", content="hi"), lc("AIMessage", content="hello")]),
    ],
    lines=True,
)
EXPECTED["v01_langgraph_checkpoints_lc.jsonl"] = [
    ("langgraph", "user assistant tool assistant tool assistant", 2),
    ("langgraph", "user assistant", 0),
]
# V2 LangGraph server stream events (event/data), metadata event, non-message update
w(
    "v02_langgraph_server_stream.jsonl",
    [
        {"event": "metadata", "data": {"run_id": "1ef-r", "attempt": 1}},
        {
            "event": "updates",
            "data": {
                "agent": {
                    "messages": [
                        {
                            "type": "ai",
                            "content": "Let me search.",
                            "tool_calls": [
                                {"name": "search", "args": {"q": "x"}, "id": "s1", "type": "tool_call"}
                            ],
                            "response_metadata": {"finish_reason": "tool_calls"},
                        }
                    ]
                }
            },
        },
        {
            "event": "updates",
            "data": {
                "tools": {
                    "messages": [
                        {"type": "tool", "content": "result x", "tool_call_id": "s1", "name": "search"}
                    ]
                }
            },
        },
        {"event": "updates", "data": {"summarize": {"summary": "found x"}}},
        {
            "event": "updates",
            "data": {
                "agent": {
                    "messages": [
                        {"type": "ai", "content": "x it is.", "response_metadata": {"finish_reason": "stop"}}
                    ]
                }
            },
        },
    ],
    lines=True,
)
EXPECTED["v02_langgraph_server_stream.jsonl"] = [("langgraph", "assistant tool assistant", 1)]
# V3 smolagents older ActionStep dicts (1.x: step, llm_output, flat calls, error dict), a plan with facts
w(
    "v03_smolagents_old_steps.json",
    {
        "steps": [
            {"task": "Find the capital of France.", "task_images": None},
            {
                "plan": "1. search\n2. answer",
                "facts": "none yet",
                "model_input_messages": [{"role": "user", "content": "plan"}],
            },
            {
                "step": 1,
                "start_time": 1700000000.0,
                "end_time": 1700000001.0,
                "llm_output": "I will search.",
                "tool_calls": [
                    {"name": "web_search", "arguments": {"query": "capital of France"}, "id": "call_a"}
                ],
                "observations": None,
                "error": {"type": "AgentExecutionError", "message": "Rate limited"},
                "action_output": None,
                "input_token_count": 120,
                "output_token_count": 12,
            },
            {
                "step": 2,
                "start_time": 1700000002.0,
                "llm_output": "Search again.",
                "tool_calls": [
                    {"name": "web_search", "arguments": {"query": "capital of France"}, "id": "call_b"}
                ],
                "observations": "Paris is the capital.",
                "error": None,
                "action_output": None,
            },
            {
                "step": 3,
                "llm_output": "Answer.",
                "tool_calls": [{"name": "final_answer", "arguments": {"answer": "Paris"}, "id": "call_c"}],
                "observations": "Paris",
                "action_output": "Paris",
                "error": None,
            },
            {"final_answer": "Paris"},
        ]
    },
)
EXPECTED["v03_smolagents_old_steps.json"] = [
    ("smolagents", "user assistant assistant tool assistant tool assistant tool", 3)
]
# V4 ADK session via REST (camelCase): code execution and thought parts, a transfer, a state-only event
w(
    "v04_adk_rest_session_code.json",
    {
        "id": "s-9",
        "appName": "analyst",
        "userId": "u",
        "state": {"task_id": "sum-list"},
        "lastUpdateTime": 1740000000.0,
        "events": [
            {
                "content": {"role": "user", "parts": [{"text": "Sum [1,2,3] with code."}]},
                "author": "user",
                "invocationId": "i1",
                "id": "e1",
                "timestamp": 1740000000.0,
            },
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "id": "t1",
                                "name": "transfer_to_agent",
                                "args": {"agent_name": "coder"},
                            }
                        }
                    ],
                },
                "author": "router",
                "invocationId": "i1",
                "id": "e2",
                "timestamp": 1740000000.5,
            },
            {
                "content": {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "t1",
                                "name": "transfer_to_agent",
                                "response": {"result": None},
                            }
                        }
                    ],
                },
                "author": "router",
                "actions": {"transferToAgent": "coder"},
                "invocationId": "i1",
                "id": "e3",
                "timestamp": 1740000000.6,
            },
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "I'll compute it.", "thought": True},
                        {"executableCode": {"language": "PYTHON", "code": "print(sum([1,2,3]))"}},
                        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "6\n"}},
                        {"text": "The sum is 6."},
                    ],
                },
                "author": "coder",
                "invocationId": "i1",
                "id": "e4",
                "timestamp": 1740000001.0,
                "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 20},
            },
            {
                "author": "coder",
                "actions": {"stateDelta": {"done": True}},
                "invocationId": "i1",
                "id": "e5",
                "timestamp": 1740000001.1,
            },
        ],
    },
)
EXPECTED["v04_adk_rest_session_code.json"] = [("adk", "user assistant tool assistant tool", 2)]
# V5 Letta newer: tool_calls list, hidden reasoning, system message, failed tool return; bare list
w(
    "v05_letta_list.json",
    [
        {"id": "m0", "message_type": "system_message", "content": "You are Letta."},
        {
            "id": "m1",
            "message_type": "user_message",
            "content": [{"type": "text", "text": "Remember my name is Ada."}],
        },
        {
            "id": "m2",
            "message_type": "hidden_reasoning_message",
            "state": "redacted",
            "hidden_reasoning": None,
        },
        {
            "id": "m2",
            "message_type": "tool_call_message",
            "tool_calls": [
                {
                    "name": "core_memory_append",
                    "arguments": '{"label": "human", "content": "Ada"}',
                    "tool_call_id": "tc1",
                }
            ],
        },
        {
            "id": "m3",
            "message_type": "tool_return_message",
            "tool_return": "Failed: memory full",
            "status": "error",
            "tool_call_id": "tc1",
        },
        {"id": "m4", "message_type": "assistant_message", "content": "I'll try to remember, Ada."},
    ],
)
EXPECTED["v05_letta_list.json"] = [("openai", "system user assistant tool assistant", 1)]
# V6 Haystack asdict() of a 2.9+ ChatMessage (underscore fields, parts not wrapped)
w(
    "v06_haystack_asdict.json",
    {
        "messages": [
            {"_role": "system", "_content": [{"text": "Use tools."}], "_name": None, "_meta": {}},
            {"_role": "user", "_content": [{"text": "Weather in Oslo?"}], "_name": None, "_meta": {}},
            {
                "_role": "assistant",
                "_content": [{"tool_name": "weather", "arguments": {"city": "Oslo"}, "id": "h1"}],
                "_name": None,
                "_meta": {"model": "gpt-4o-mini", "finish_reason": "tool_calls"},
            },
            {
                "_role": "tool",
                "_content": [
                    {
                        "result": "2C",
                        "origin": {"tool_name": "weather", "arguments": {"city": "Oslo"}, "id": "h1"},
                        "error": False,
                    }
                ],
                "_name": None,
                "_meta": {},
            },
            {"_role": "assistant", "_content": [{"text": "2C in Oslo."}], "_name": None, "_meta": {}},
        ]
    },
)
EXPECTED["v06_haystack_asdict.json"] = [("openai", "system user assistant tool assistant", 1)]
# V7 SK .NET with Content beside Items, AuthorName, Metadata
w(
    "v07_sk_dotnet_content_and_items.json",
    [
        {
            "Role": {"Label": "user"},
            "Content": "Add 2 and 2",
            "Items": [{"$type": "TextContent", "Text": "Add 2 and 2"}],
        },
        {
            "Role": {"Label": "assistant"},
            "AuthorName": "MathAgent",
            "Content": None,
            "Items": [
                {
                    "$type": "FunctionCallContent",
                    "Id": "k1",
                    "PluginName": "Math",
                    "FunctionName": "Add",
                    "Arguments": {"a": 2, "b": 2},
                }
            ],
            "ModelId": "gpt-4o",
            "Metadata": {"Usage": {"InputTokenCount": 10}},
        },
        {
            "Role": {"Label": "tool"},
            "Content": "4",
            "Items": [
                {
                    "$type": "FunctionResultContent",
                    "CallId": "k1",
                    "PluginName": "Math",
                    "FunctionName": "Add",
                    "Result": "4",
                }
            ],
        },
        {
            "Role": {"Label": "assistant"},
            "Content": "It is 4.",
            "Items": [{"$type": "TextContent", "Text": "It is 4."}],
        },
    ],
)
EXPECTED["v07_sk_dotnet_content_and_items.json"] = [("openai", "user assistant tool assistant", 1)]
# V8 Mistral run response: outputs with chunks + built-in tool execution
w(
    "v08_mistral_run_response.json",
    {
        "object": "conversation.response",
        "conversation_id": "conv_9",
        "outputs": [
            {
                "object": "entry",
                "type": "tool.execution",
                "name": "web_search",
                "id": "te1",
                "created_at": "2025-06-01T00:00:01Z",
                "info": {"query": "ai news"},
            },
            {
                "object": "entry",
                "type": "message.output",
                "id": "mo1",
                "role": "assistant",
                "model": "mistral-medium-2505",
                "created_at": "2025-06-01T00:00:02Z",
                "content": [
                    {"type": "text", "text": "Top story: "},
                    {
                        "type": "tool_reference",
                        "tool": "web_search",
                        "title": "AI wins",
                        "url": "https://example.com/a",
                    },
                ],
            },
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20},
    },
)
EXPECTED["v08_mistral_run_response.json"] = [("mistral-conversations", "assistant tool assistant", 1)]
"""The answer after the built-in search is a turn of its own: written after the model saw the result
(``provider_tool_turns.py``; it was joined to the calling turn, read as written before the search)."""
# V9 OpenHands SDK JSONL: parallel actions, newer MessageToolCall shape, error, reject, condensation, pause
sdk = [
    {
        "kind": "SystemPromptEvent",
        "id": "a",
        "source": "agent",
        "timestamp": "2025-11-01T00:00:00",
        "system_prompt": {"type": "text", "text": "sys"},
        "tools": [
            {
                "type": "function",
                "function": {"name": "terminal", "description": "run", "parameters": {"type": "object"}},
            }
        ],
    },
    {
        "kind": "MessageEvent",
        "id": "b",
        "source": "user",
        "timestamp": "2025-11-01T00:00:01",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "Check both files"}]},
        "extended_content": [{"type": "text", "text": "<skill>be careful</skill>"}],
    },
    {
        "kind": "ActionEvent",
        "id": "c",
        "source": "agent",
        "timestamp": "2025-11-01T00:00:02",
        "thought": [{"type": "text", "text": "Read both."}],
        "action": {"kind": "TerminalAction", "command": "cat a"},
        "tool_name": "terminal",
        "tool_call_id": "p1",
        "tool_call": {
            "id": "p1",
            "name": "terminal",
            "arguments": '{"command": "cat a"}',
            "origin": "completion",
        },
        "llm_response_id": "r1",
    },
    {
        "kind": "ActionEvent",
        "id": "d",
        "source": "agent",
        "timestamp": "2025-11-01T00:00:02",
        "thought": [],
        "action": {"kind": "TerminalAction", "command": "rm -rf /"},
        "tool_name": "terminal",
        "tool_call_id": "p2",
        "tool_call": {
            "id": "p2",
            "name": "terminal",
            "arguments": '{"command": "rm -rf /"}',
            "origin": "completion",
        },
        "llm_response_id": "r1",
    },
    {
        "kind": "ObservationEvent",
        "id": "e",
        "source": "environment",
        "timestamp": "2025-11-01T00:00:03",
        "observation": {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": "A"}],
            "exit_code": 0,
            "is_error": False,
        },
        "action_id": "c",
        "tool_name": "terminal",
        "tool_call_id": "p1",
    },
    {
        "kind": "UserRejectObservation",
        "id": "f",
        "source": "user",
        "timestamp": "2025-11-01T00:00:04",
        "rejection_reason": "dangerous",
        "action_id": "d",
        "tool_name": "terminal",
        "tool_call_id": "p2",
    },
    {"kind": "PauseEvent", "id": "g", "source": "user", "timestamp": "2025-11-01T00:00:05"},
    {
        "kind": "ActionEvent",
        "id": "h",
        "source": "agent",
        "timestamp": "2025-11-01T00:00:06",
        "thought": [],
        "action": {"kind": "TerminalAction", "command": "cat b"},
        "tool_name": "terminal",
        "tool_call_id": "p3",
        "tool_call": {"id": "p3", "name": "terminal", "arguments": "{}", "origin": "completion"},
        "llm_response_id": "r2",
    },
    {
        "kind": "AgentErrorEvent",
        "id": "i",
        "source": "agent",
        "timestamp": "2025-11-01T00:00:07",
        "error": "missing command",
        "tool_name": "terminal",
        "tool_call_id": "p3",
    },
    {
        "kind": "Condensation",
        "id": "j",
        "source": "environment",
        "timestamp": "2025-11-01T00:00:08",
        "forgotten_event_ids": ["c", "e"],
        "summary": "read a",
        "summary_offset": 1,
    },
    {
        "kind": "MessageEvent",
        "id": "k",
        "source": "agent",
        "timestamp": "2025-11-01T00:00:09",
        "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "a says A"}]},
    },
]
w("v09_openhands_sdk_events.jsonl", sdk, lines=True)
EXPECTED["v09_openhands_sdk_events.jsonl"] = [
    ("openhands-sdk", "system user assistant tool refusal assistant tool compaction assistant", 3)
]


# V10 Bedrock Agents: plain-text prompt, model output usage, KB lookup, code interpreter, pre/post processing
def ba(t: dict[str, Any]) -> dict[str, Any]:
    return {"agentId": "AG2", "sessionId": "s-9", "agentAliasId": "A", "trace": t}


w(
    "v10_bedrock_agents_kb_code.jsonl",
    [
        ba({"preProcessingTrace": {"modelInvocationInput": {"text": "classify", "traceId": "p"}}}),
        ba(
            {
                "orchestrationTrace": {
                    "modelInvocationInput": {
                        "traceId": "o1",
                        "type": "ORCHESTRATION",
                        "text": "\n\nHuman: You are a helpful agent. What is our refund policy, and 2**10?"
                        "\n\nAssistant:",
                    }
                }
            }
        ),
        ba(
            {
                "orchestrationTrace": {
                    "modelInvocationOutput": {
                        "traceId": "o1",
                        "rawResponse": {"content": "..."},
                        "metadata": {"usage": {"inputTokens": 300, "outputTokens": 40}},
                    }
                }
            }
        ),
        ba({"orchestrationTrace": {"rationale": {"traceId": "o1", "text": "Look up the policy."}}}),
        ba(
            {
                "orchestrationTrace": {
                    "invocationInput": {
                        "traceId": "o1",
                        "invocationType": "KNOWLEDGE_BASE",
                        "knowledgeBaseLookupInput": {"text": "refund policy", "knowledgeBaseId": "KB1"},
                    }
                }
            }
        ),
        ba(
            {
                "orchestrationTrace": {
                    "observation": {
                        "traceId": "o1",
                        "type": "KNOWLEDGE_BASE",
                        "knowledgeBaseLookupOutput": {
                            "retrievedReferences": [{"content": {"text": "30 days"}}]
                        },
                    }
                }
            }
        ),
        ba({"orchestrationTrace": {"rationale": {"traceId": "o2", "text": "Compute."}}}),
        ba(
            {
                "orchestrationTrace": {
                    "invocationInput": {
                        "traceId": "o2",
                        "invocationType": "ACTION_GROUP_CODE_INTERPRETER",
                        "codeInterpreterInvocationInput": {"code": "print(2**10)"},
                    }
                }
            }
        ),
        ba(
            {
                "orchestrationTrace": {
                    "observation": {
                        "traceId": "o2",
                        "type": "ACTION_GROUP_CODE_INTERPRETER",
                        "codeInterpreterInvocationOutput": {"executionOutput": "1024"},
                    }
                }
            }
        ),
        ba(
            {
                "orchestrationTrace": {
                    "observation": {
                        "traceId": "o3",
                        "type": "FINISH",
                        "finalResponse": {"text": "30 days; 1024."},
                    }
                }
            }
        ),
        ba({"postProcessingTrace": {"modelInvocationInput": {"text": "post"}}}),
    ],
    lines=True,
)
EXPECTED["v10_bedrock_agents_kb_code.jsonl"] = [
    ("bedrock-agents", "user assistant tool assistant tool assistant", 2)
]
# V11 LlamaIndex ReAct stream: partials, ToolCall announcements, a StopEvent, calls in additional_kwargs
Q = "llama_index.core.agent.workflow.workflow_events."
li = [
    {
        "qualified_name": "llama_index.core.agent.workflow.multi_agent_workflow.AgentWorkflowStartEvent",
        "value": {"user_msg": "Weather in Lima?", "chat_history": []},
    },
    {
        "qualified_name": Q + "AgentInput",
        "value": {
            "input": [
                {"role": "system", "blocks": [{"block_type": "text", "text": "You are a weather bot."}]},
                {"role": "user", "blocks": [{"block_type": "text", "text": "Weather in Lima?"}]},
            ],
            "current_agent_name": "Agent",
        },
    },
    {"qualified_name": Q + "AgentSetup", "value": {"input": [], "current_agent_name": "Agent"}},
    {
        "qualified_name": Q + "AgentStream",
        "value": {
            "delta": "Let",
            "response": "Let",
            "tool_calls": [],
            "raw": {},
            "current_agent_name": "Agent",
        },
    },
    {
        "qualified_name": Q + "AgentOutput",
        "value": {
            "response": {
                "role": "assistant",
                "blocks": [{"block_type": "text", "text": "Let me check."}],
                "additional_kwargs": {
                    "tool_calls": [
                        {
                            "id": "l1",
                            "type": "function",
                            "function": {"name": "weather", "arguments": '{"city": "Lima"}'},
                        }
                    ]
                },
            },
            "tool_calls": [{"tool_id": "l1", "tool_name": "weather", "tool_kwargs": {"city": "Lima"}}],
            "raw": {},
            "current_agent_name": "Agent",
        },
    },
    {
        "qualified_name": Q + "ToolCall",
        "value": {"tool_name": "weather", "tool_kwargs": {"city": "Lima"}, "tool_id": "l1"},
    },
    {
        "qualified_name": Q + "ToolCallResult",
        "value": {
            "tool_name": "weather",
            "tool_kwargs": {"city": "Lima"},
            "tool_id": "l1",
            "tool_output": {"content": "19C", "tool_name": "weather", "is_error": False},
            "return_direct": False,
        },
    },
    {
        "qualified_name": Q + "AgentInput",
        "value": {
            "input": [
                {"role": "system", "blocks": [{"block_type": "text", "text": "You are a weather bot."}]},
                {"role": "user", "blocks": [{"block_type": "text", "text": "Weather in Lima?"}]},
                {"role": "assistant", "blocks": [{"block_type": "text", "text": "Let me check."}]},
                {
                    "role": "tool",
                    "blocks": [{"block_type": "text", "text": "19C"}],
                    "additional_kwargs": {"tool_call_id": "l1"},
                },
            ],
            "current_agent_name": "Agent",
        },
    },
    {
        "qualified_name": Q + "AgentOutput",
        "value": {
            "response": {"role": "assistant", "blocks": [{"block_type": "text", "text": "19C in Lima."}]},
            "tool_calls": [],
            "raw": {},
            "current_agent_name": "Agent",
        },
    },
    {
        "qualified_name": "llama_index.core.workflow.events.StopEvent",
        "value": {
            "result": {
                "response": {"role": "assistant", "blocks": [{"block_type": "text", "text": "19C in Lima."}]},
                "tool_calls": [],
            }
        },
    },
]
w("v11_llamaindex_react_stream.jsonl", li, lines=True)
EXPECTED["v11_llamaindex_react_stream.jsonl"] = [("llamaindex", "system user assistant tool assistant", 1)]
# V12 Continue with context items, parts content, canceled call
w(
    "v12_continue_context_cancel.json",
    {
        "sessionId": "s12",
        "title": "t",
        "workspaceDirectory": "file:///w",
        "history": [
            {
                "message": {"role": "user", "content": [{"type": "text", "text": "Explain this file"}]},
                "contextItems": [
                    {
                        "name": "util.py",
                        "description": "util.py",
                        "content": "```util.py\ndef f(): pass\n```",
                        "id": {"providerTitle": "file", "itemId": "x"},
                    }
                ],
            },
            {
                "message": {
                    "role": "assistant",
                    "content": "",
                    "toolCalls": [
                        {
                            "id": "c9",
                            "type": "function",
                            "function": {
                                "name": "run_terminal_command",
                                "arguments": '{"command": "rm -rf build"}',
                            },
                        }
                    ],
                },
                "contextItems": [],
                "toolCallState": {
                    "toolCallId": "c9",
                    "status": "canceled",
                    "parsedArgs": {"command": "rm -rf build"},
                },
            },
            {
                "message": {
                    "role": "tool",
                    "content": "The user cancelled this tool call.",
                    "toolCallId": "c9",
                },
                "contextItems": [],
            },
            {
                "message": {"role": "assistant", "content": "f does nothing."},
                "contextItems": [],
                "promptLogs": [
                    {"completionOptions": {"model": "claude-sonnet-4"}, "prompt": "p", "completion": "c"}
                ],
            },
        ],
    },
)
EXPECTED["v12_continue_context_cancel.json"] = [("continue", "user assistant refusal assistant", 1)]
# V13 Phoenix REST page, nested attributes, ISO times, tool span
w(
    "v13_phoenix_rest_page.json",
    {
        "data": [
            {
                "name": "ChatCompletion",
                "context": {"trace_id": "T9", "span_id": "S1"},
                "parent_id": None,
                "span_kind": "LLM",
                "start_time": "2025-03-01T10:00:00.000000+00:00",
                "end_time": "2025-03-01T10:00:01+00:00",
                "status_code": "OK",
                "attributes": {
                    "llm": {
                        "model_name": "gpt-4o-mini",
                        "input_messages": [
                            {"message": {"role": "system", "content": "sys"}},
                            {"message": {"role": "user", "content": "2+2?"}},
                        ],
                        "output_messages": [
                            {
                                "message": {
                                    "role": "assistant",
                                    "tool_calls": [
                                        {
                                            "tool_call": {
                                                "id": "q1",
                                                "function": {"name": "calc", "arguments": '{"e": "2+2"}'},
                                            }
                                        }
                                    ],
                                }
                            }
                        ],
                        "token_count": {"prompt": 11, "completion": 5},
                    },
                    "openinference": {"span": {"kind": "LLM"}},
                },
            },
            {
                "name": "ChatCompletion",
                "context": {"trace_id": "T9", "span_id": "S2"},
                "parent_id": None,
                "span_kind": "LLM",
                "start_time": "2025-03-01T10:00:02+00:00",
                "status_code": "OK",
                "attributes": {
                    "llm": {
                        "model_name": "gpt-4o-mini",
                        "input_messages": [
                            {"message": {"role": "system", "content": "sys"}},
                            {"message": {"role": "user", "content": "2+2?"}},
                            {
                                "message": {
                                    "role": "assistant",
                                    "tool_calls": [
                                        {
                                            "tool_call": {
                                                "id": "q1",
                                                "function": {"name": "calc", "arguments": '{"e": "2+2"}'},
                                            }
                                        }
                                    ],
                                }
                            },
                            {"message": {"role": "tool", "tool_call_id": "q1", "content": "4"}},
                        ],
                        "output_messages": [{"message": {"role": "assistant", "content": "4"}}],
                    }
                },
            },
        ]
    },
)
EXPECTED["v13_phoenix_rest_page.json"] = [("otel", "system user assistant tool assistant", 1)]


# V14 SWE-agent RetryAgent with three attempts, one exit_cost
def att(st: str, sub: str | None) -> dict[str, Any]:
    return {
        "history": [
            {"role": "system", "content": "S", "agent": "main", "message_type": "system_prompt"},
            {"role": "user", "content": "fix", "agent": "main", "message_type": "observation"},
            {
                "role": "assistant",
                "content": "look",
                "thought": "look",
                "action": "ls",
                "agent": "main",
                "message_type": "action",
                "tool_calls": [
                    {
                        "id": "z1",
                        "type": "function",
                        "function": {"name": "bash", "arguments": '{"command":"ls"}'},
                    }
                ],
            },
            {
                "role": "tool",
                "content": "a",
                "agent": "main",
                "message_type": "observation",
                "tool_call_ids": ["z1"],
            },
        ],
        "trajectory": [],
        "info": {"exit_status": st, "submission": sub},
    }


w(
    "v14_sweagent_retry_three.traj",
    {
        "attempts": [att("exit_cost", None), att("submitted", "diff"), att("submitted", "diff2")],
        "info": {"exit_status": "submitted", "submission": "diff2", "best_attempt_idx": 2},
        "replay_config": json.dumps({"problem_statement": {"id": "repo__x-1"}}),
    },
)
EXPECTED["v14_sweagent_retry_three.traj"] = [("swe-agent", "system user assistant tool", 1)] * 3
# V15 Agno newer ToolExecution list
w(
    "v15_agno_tool_executions.json",
    {
        "run_id": "r",
        "agent_id": "a",
        "messages": [
            {"role": "user", "content": "2+2"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "g1",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a":2,"b":2}'},
                    }
                ],
            },
            {"role": "tool", "content": "4", "tool_call_id": "g1"},
            {"role": "assistant", "content": "4"},
        ],
        "tools": [
            {
                "tool_call_id": "g1",
                "tool_name": "add",
                "tool_args": {"a": 2, "b": 2},
                "tool_call_error": False,
                "result": "4",
                "metrics": {"duration": 0.01},
            }
        ],
    },
)
EXPECTED["v15_agno_tool_executions.json"] = [("openai", "user assistant tool assistant", 1)]
# V16 smolagents memory messages with error response and two calls
w(
    "v16_smolagents_memory_messages_error.json",
    [
        {"role": "system", "content": [{"type": "text", "text": "sys"}]},
        {"role": "user", "content": [{"type": "text", "text": "New task:\nfind x"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Thought: search"}]},
        {
            "role": "tool-call",
            "content": [
                {
                    "type": "text",
                    "text": "Calling tools:\n[{'id': 'c1', 'type': 'function', "
                    "'function': {'name': 'web_search', 'arguments': {'query': 'x'}}}]",
                }
            ],
        },
        {
            "role": "tool-response",
            "content": [{"type": "text", "text": "Call id: c1\nError:\nTimeout\nNow let's retry."}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Thought: give up"}]},
    ],
)
EXPECTED["v16_smolagents_memory_messages_error.json"] = [
    ("openai", "system user assistant tool assistant", 1)
]


# Round 2, written after round 1's fixes (a history listing, Agent Engine errors, a newer CodeAgent,
# Letta parts, Semantic Kernel's Python dump, an SDK finish, Bedrock collaborators and failures,
# Continue's errored call, a Mistral handoff, LlamaIndex parallel calls): 10 of 10 on first run.
h = {"type": "human", "content": "Weather in Oslo?", "id": "1"}
a = {
    "type": "ai",
    "content": [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "tu1", "name": "weather", "input": {"city": "Oslo"}},
    ],
    "tool_calls": [{"name": "weather", "args": {"city": "Oslo"}, "id": "tu1", "type": "tool_call"}],
    "id": "2",
}
t = {"type": "tool", "content": "2C", "tool_call_id": "tu1", "name": "weather", "id": "3"}
f = {"type": "ai", "content": "2C.", "id": "4"}


def st(ms: list[Any], step: int) -> dict[str, Any]:
    return {
        "values": {"messages": ms},
        "next": [],
        "tasks": [],
        "metadata": {"step": step},
        "created_at": "2025",
        "checkpoint": {"thread_id": "T", "checkpoint_id": str(step)},
    }


w("r01_langgraph_history.json", [st([h, a, t, f], 3), st([h, a, t], 2), st([h, a], 1)])
EXPECTED["r01_langgraph_history.json"] = [("langgraph", "user assistant tool assistant", 1)]


def ev(author: str, role: str, parts: list[Any], **k: Any) -> dict[str, Any]:
    return {"content": {"role": role, "parts": parts}, "author": author, **k}


w(
    "r02_agent_engine_error.jsonl",
    [
        ev("user", "user", [{"text": "Plan a trip"}]),
        ev(
            "planner",
            "model",
            [
                {"text": "Let me look.", "thought_signature": "abc"},
                {"function_call": {"id": "f1", "name": "search", "args": {"q": "trip"}}},
            ],
        ),
        ev(
            "planner",
            "user",
            [{"function_response": {"id": "f1", "name": "search", "response": {"error": "down"}}}],
        ),
        ev("planner", "model", [{"text": "Sorry."}], error_code="MALFORMED_FUNCTION_CALL"),
    ],
    lines=True,
)
EXPECTED["r02_agent_engine_error.jsonl"] = [("adk", "user assistant tool assistant", 1)]
w(
    "r03_smolagents_codeagent_new.json",
    [
        {"task": "Compute 2**8", "task_images": None},
        {
            "model_input_messages": None,
            "model_output_message": {"role": "assistant", "content": "Plan: compute"},
            "plan": "Plan: compute",
            "timing": {"start_time": 1.0},
            "token_usage": None,
        },
        {
            "step_number": 1,
            "timing": {"start_time": 1750000000.0, "end_time": 1750000001.0},
            "model_output": "Thought: compute\n<code>print(2**8)</code>",
            "code_action": "print(2**8)",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "python_interpreter", "arguments": "print(2**8)"},
                }
            ],
            "observations": "Execution logs:\n256\n",
            "error": None,
            "action_output": None,
            "is_final_answer": False,
            "token_usage": {"input_tokens": 10, "output_tokens": 5},
        },
        {
            "step_number": 2,
            "model_output": "Thought: bad\n<code>x = </code>",
            "tool_calls": [
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "python_interpreter", "arguments": "x = "},
                }
            ],
            "observations": None,
            "error": {"type": "AgentExecutionError", "message": "SyntaxError"},
            "is_final_answer": False,
        },
        {
            "step_number": 3,
            "model_output": "<code>final_answer(256)</code>",
            "tool_calls": [
                {
                    "id": "call_3",
                    "type": "function",
                    "function": {"name": "python_interpreter", "arguments": "final_answer(256)"},
                }
            ],
            "observations": "Last output from code snippet:\n256",
            "action_output": 256,
            "is_final_answer": True,
        },
        {"output": 256},
    ],
)
EXPECTED["r03_smolagents_codeagent_new.json"] = [
    ("smolagents", "user assistant assistant tool assistant tool assistant tool", 3)
]
w(
    "r04_letta_parts.json",
    {
        "messages": [
            {"message_type": "system_message", "content": [{"type": "text", "text": "sys"}]},
            {"message_type": "user_message", "content": "hi"},
            {"message_type": "reasoning_message", "reasoning": "greet"},
            {"message_type": "assistant_message", "content": [{"type": "text", "text": "Hello!"}]},
        ],
        "stop_reason": {"stop_reason": "end_turn"},
    },
)
EXPECTED["r04_letta_parts.json"] = [("openai", "system user assistant", 0)]
w(
    "r05_sk_python_history.json",
    {
        "messages": [
            {"role": "user", "items": [{"content_type": "text", "text": "Weather?"}]},
            {
                "role": "assistant",
                "items": [
                    {
                        "content_type": "function_call",
                        "id": "c",
                        "name": "Weather-get",
                        "plugin_name": "Weather",
                        "function_name": "get",
                        "arguments": '{"city": "Oslo"}',
                    }
                ],
            },
            {
                "role": "tool",
                "items": [
                    {
                        "content_type": "function_result",
                        "id": "c",
                        "result": "2C",
                        "plugin_name": "Weather",
                        "function_name": "get",
                    }
                ],
            },
            {"role": "assistant", "items": [{"content_type": "text", "text": "2C"}]},
        ]
    },
)
EXPECTED["r05_sk_python_history.json"] = [("openai", "user assistant tool assistant", 1)]
w(
    "r06_openhands_sdk_finish.json",
    [
        {
            "kind": "MessageEvent",
            "id": "1",
            "source": "user",
            "llm_message": {"role": "user", "content": "Say hi"},
        },
        {
            "kind": "ConversationStateUpdateEvent",
            "id": "2",
            "source": "environment",
            "key": "execution_status",
            "value": "running",
        },
        {
            "kind": "ActionEvent",
            "id": "3",
            "source": "agent",
            "thought": [],
            "reasoning_content": "simple",
            "action": {"kind": "FinishAction", "message": "hi"},
            "tool_name": "finish",
            "tool_call_id": "fz",
            "tool_call": {
                "id": "fz",
                "type": "function",
                "function": {"name": "finish", "arguments": '{"message": "hi"}'},
            },
            "llm_response_id": "r",
        },
        {
            "kind": "ObservationEvent",
            "id": "4",
            "source": "environment",
            "tool_name": "finish",
            "tool_call_id": "fz",
            "observation": {"kind": "FinishObservation", "content": [{"type": "text", "text": "hi"}]},
        },
    ],
)
EXPECTED["r06_openhands_sdk_finish.json"] = [("openhands-sdk", "user assistant tool", 1)]


def pa(t: dict[str, Any], **k: Any) -> dict[str, Any]:
    return {"agentId": "SUP", "sessionId": "m1", "trace": t, **k}


w(
    "r07_bedrock_multiagent.jsonl",
    [
        pa(
            {
                "orchestrationTrace": {
                    "modelInvocationInput": {
                        "text": json.dumps(
                            {
                                "system": "supervisor",
                                "messages": [
                                    {"role": "user", "content": [{"type": "text", "text": "Book a flight"}]}
                                ],
                            }
                        )
                    }
                }
            }
        ),
        pa({"orchestrationTrace": {"rationale": {"text": "Delegate."}}}),
        pa(
            {
                "orchestrationTrace": {
                    "invocationInput": {
                        "invocationType": "AGENT_COLLABORATOR",
                        "agentCollaboratorInvocationInput": {
                            "agentCollaboratorName": "flights",
                            "input": {"type": "TEXT", "text": "Book"},
                        },
                    }
                }
            }
        ),
        pa(
            {
                "orchestrationTrace": {
                    "observation": {
                        "type": "AGENT_COLLABORATOR",
                        "agentCollaboratorInvocationOutput": {
                            "agentCollaboratorName": "flights",
                            "output": {"type": "TEXT", "text": "Booked"},
                        },
                    }
                }
            }
        ),
        pa({"failureTrace": {"failureReason": "timeout", "traceId": "x"}}),
    ],
    lines=True,
)
EXPECTED["r07_bedrock_multiagent.jsonl"] = [("bedrock-agents", "system user assistant tool", 1)]
w(
    "r08_continue_errored.json",
    {
        "sessionId": "c8",
        "history": [
            {"message": {"role": "user", "content": "run tests"}, "contextItems": []},
            {
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Running."}],
                    "toolCalls": [
                        {
                            "id": "x1",
                            "type": "function",
                            "function": {"name": "run_terminal_command", "arguments": '{"command":"pytest"}'},
                        }
                    ],
                },
                "contextItems": [],
                "toolCallState": {
                    "toolCallId": "x1",
                    "status": "errored",
                    "output": [{"name": "Error", "content": "boom", "description": ""}],
                },
            },
            {"message": {"role": "tool", "content": "boom", "toolCallId": "x1"}, "contextItems": []},
            {"message": {"role": "assistant", "content": "Tests could not run."}, "contextItems": []},
        ],
    },
)
EXPECTED["r08_continue_errored.json"] = [("continue", "user assistant tool assistant", 1)]
w(
    "r09_mistral_handoff.json",
    {
        "conversation_id": "c9",
        "entries": [
            {
                "type": "message.input",
                "role": "user",
                "content": [{"type": "text", "text": "Convert 10 USD"}],
            },
            {"type": "agent.handoff", "previous_agent_id": "a", "next_agent_id": "b"},
            {"type": "function.call", "tool_call_id": "k", "name": "fx", "arguments": {"amount": 10}},
            {"type": "function.result", "tool_call_id": "k", "result": "9 EUR"},
            {"type": "message.output", "role": "assistant", "content": "9 EUR", "model": "mistral-large"},
        ],
    },
)
EXPECTED["r09_mistral_handoff.json"] = [("mistral-conversations", "user assistant tool assistant", 1)]
QN = "llama_index.core.agent.workflow.workflow_events."
w(
    "r10_llamaindex_parallel_error.jsonl",
    [
        {
            "qualified_name": QN + "AgentInput",
            "value": {"input": [{"role": "user", "content": "Weather in A and B"}]},
        },
        {
            "qualified_name": QN + "AgentOutput",
            "value": {
                "response": {"role": "assistant", "content": ""},
                "tool_calls": [
                    {"tool_id": "1", "tool_name": "w", "tool_kwargs": {"c": "A"}},
                    {"tool_id": "2", "tool_name": "w", "tool_kwargs": {"c": "B"}},
                ],
            },
        },
        {
            "qualified_name": QN + "ToolCallResult",
            "value": {"tool_name": "w", "tool_id": "2", "tool_output": {"content": "err", "is_error": True}},
        },
        {
            "qualified_name": QN + "ToolCallResult",
            "value": {"tool_name": "w", "tool_id": "1", "tool_output": {"content": "5C", "is_error": False}},
        },
        {
            "qualified_name": QN + "AgentOutput",
            "value": {"response": {"role": "assistant", "content": "A is 5C; B failed."}, "tool_calls": []},
        },
    ],
    lines=True,
)
EXPECTED["r10_llamaindex_parallel_error.jsonl"] = [("llamaindex", "user assistant tool tool assistant", 2)]


def _ingest(name: str, folder: Path) -> Any:
    log, lines = LOGS[name]
    return ingest_paths([write_jsonl(folder, name, log) if lines else write_json(folder, name, log)])


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_held_out_framework_log_reads_as_expected(name: str, tmp_path: Path):
    result = _ingest(name, tmp_path)
    assert result.rejects == [], [(r.source_line, r.reason, r.detail) for r in result.rejects]
    got = sorted(
        (e.source_format, " ".join(ev.kind for ev in e.events), sum(len(ev.tool_calls) for ev in e.events))
        for e in result.episodes
    )
    assert got == sorted(EXPECTED[name])


def test_the_held_out_cases_that_failed_first_stay_fixed(tmp_path: Path):
    (stream,) = _ingest("v02_langgraph_server_stream.jsonl", tmp_path).episodes
    assert '"other_channels":["summary"]' in (stream.extra_json or "")
    (history,) = _ingest("v07_sk_dotnet_content_and_items.json", tmp_path).episodes
    assert [(e.tool_call_id, e.tool_name) for e in history.events if e.kind == "tool"] == [("k1", "Math-Add")]
    (run,) = _ingest("v08_mistral_run_response.json", tmp_path).episodes
    assert run.events[2].content == "Top story: \n[tool_reference]" and "example.com" in (
        run.extra_json or ""
    )
