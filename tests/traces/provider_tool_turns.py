"""Assistant messages in which the provider ran a tool (an Anthropic server tool or MCP connector
tool, Pydantic AI's built-in tools, Mistral's ``tool.execution``) and the model wrote on after its
result, generated over the format that logged it, the tool and what the model wrote after. The
model's words after the result were written after it saw the result: every reader makes them a turn
of their own (the Messages reader did; LangChain messages were a ``misplaced content part`` reject,
Pydantic AI and Mistral joined them to the calling turn, and the Chat Completions and LangChain
readers kept a search hit's encrypted page as the result's text).

:data:`DEV` is what the readings were developed against, :data:`VALIDATION` was held out (a case is
in one half by a hash of its name); :data:`CONTROLS` hold no provider-run tool and read as before."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import Any

ASK = "Weather in Paris?"
TOOLS = {
    "web_search": (
        {"query": "paris weather"},
        [
            {
                "type": "web_search_result",
                "url": "https://w.example/p",
                "title": "Forecast",
                "encrypted_content": "Eq8x",
            }
        ],
        "Forecast\nhttps://w.example/p\n[encrypted page content]",
    ),
    "bash_code_execution": (
        {"command": "date"},
        {
            "type": "bash_code_execution_result",
            "stdout": "Mon\n",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
        "Mon\n",
    ),
    "mcp": ({"city": "Paris"}, [{"type": "text", "text": "18C"}], "18C"),
}
"""A tool: its input, its result's content (Anthropic's block content), the text the model was shown."""


@dataclass(frozen=True)
class Case:
    name: str
    fmt: str
    record: Any
    lead: str | None
    after: str
    shown: str | None
    """The result's text the reader shows (``None``: the format's own, not checked)."""


def _blocks(tool: str, lead: bool, after: str, client_call: bool) -> list[dict[str, Any]]:
    given, content, _ = TOOLS[tool]
    mcp = tool == "mcp"
    use = {
        "type": "mcp_tool_use" if mcp else "server_tool_use",
        "id": "srvtoolu_1",
        "name": "weather" if mcp else tool,
        "input": given,
        **({"server_name": "forecasts"} if mcp else {}),
    }
    result = {
        "type": "mcp_tool_result" if mcp else f"{tool}_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": content,
        **({"is_error": False} if mcp else {}),
    }
    blocks = [
        *([{"type": "text", "text": "Let me look."}] if lead else []),
        use,
        result,
        {"type": "text", "text": after},
    ]
    if client_call:
        blocks.append({"type": "tool_use", "id": "toolu_2", "name": "save", "input": {"text": after}})
    return blocks


def _record(fmt: str, tool: str, lead: bool, after: str) -> Any:
    blocks = _blocks(tool, lead, after, False)
    if fmt == "anthropic":
        return [
            {
                "system": "Be brief.",
                "messages": [{"role": "user", "content": ASK}, {"role": "assistant", "content": blocks}],
            }
        ]
    if fmt == "openai":  # a gateway's Chat Completions log of a Claude call, its blocks kept
        return [
            {
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": ASK},
                    {"role": "assistant", "content": blocks},
                ]
            }
        ]
    if fmt == "langgraph":  # langchain-anthropic's AIMessage in a graph's state
        ai = {
            "type": "ai",
            "content": blocks,
            "tool_calls": [],
            "id": "run-1",
            "additional_kwargs": {},
            "response_metadata": {"stop_reason": "end_turn"},
        }
        human = {
            "type": "human",
            "content": ASK,
            "id": "h1",
            "additional_kwargs": {},
            "response_metadata": {},
        }
        return [
            {
                "values": {"messages": [human, ai]},
                "next": [],
                "tasks": [],
                "metadata": {"step": 1},
                "checkpoint": {"thread_id": "t1"},
            }
        ]
    if fmt == "pydantic-ai":
        given, content, _ = TOOLS[tool]
        parts = [
            *([{"part_kind": "text", "content": "Let me look."}] if lead else []),
            {
                "part_kind": "builtin-tool-call",
                "tool_name": tool,
                "args": given,
                "tool_call_id": "b1",
                "provider_name": "anthropic",
            },
            {
                "part_kind": "builtin-tool-return",
                "tool_name": tool,
                "content": content,
                "tool_call_id": "b1",
                "provider_name": "anthropic",
            },
            {"part_kind": "text", "content": after},
        ]
        return [
            {
                "messages": [
                    {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": ASK}]},
                    {
                        "kind": "response",
                        "parts": parts,
                        "usage": {"input_tokens": 9, "output_tokens": 4},
                        "model_name": "claude",
                        "finish_reason": "stop",
                    },
                ]
            }
        ]
    given, _, shown = TOOLS[tool]
    entries = [
        {"object": "entry", "type": "message.input", "role": "user", "content": ASK},
        *(
            [
                {
                    "object": "entry",
                    "type": "message.output",
                    "role": "assistant",
                    "model": "mistral-medium",
                    "content": "Let me look.",
                }
            ]
            if lead
            else []
        ),
        {
            "object": "entry",
            "type": "tool.execution",
            "name": tool,
            "id": "x1",
            "arguments": str(given),
            "info": {"shown": shown},
        },
        {
            "object": "entry",
            "type": "message.output",
            "role": "assistant",
            "model": "mistral-medium",
            "content": after,
        },
    ]
    return [{"object": "conversation.history", "conversation_id": "c1", "entries": entries}]


FORMATS = ("anthropic", "openai", "langgraph", "pydantic-ai", "mistral-conversations")
AFTER = ("It is 18C and sunny.", "Voilà : 18 °C.")
CASES = []
for fmt, tool, lead, after in itertools.product(FORMATS, TOOLS, (True, False), AFTER):
    shown = TOOLS[tool][2] if fmt in ("anthropic", "openai", "langgraph") else None
    name = f"{fmt}-{tool}-{'lead' if lead else 'bare'}-{AFTER.index(after)}"
    CASES.append(
        Case(name, fmt, _record(fmt, tool, lead, after), "Let me look." if lead else None, after, shown)
    )


def _half(case: Case) -> int:
    return hashlib.sha256(case.name.encode()).digest()[0] % 2


DEV = [c for c in CASES if _half(c) == 0]
VALIDATION = [c for c in CASES if _half(c) == 1]
