"""LangChain messages that reach the OpenAI reader (a conversation of ``model_dump()``-ed messages
under ``messages``, or role dicts a tracer wrote with LangChain's fields) keep what each AI message
says of its call: ``response_metadata.finish_reason`` (or ``stop_reason``) and ``usage_metadata``'s
token counts, read by the one helper the LangGraph and tracing readers use. They were dropped."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

CALL = {"name": "calc", "args": {"e": "2+2"}, "id": "c1", "type": "tool_call"}
AI_CALLING = {
    "type": "ai",
    "content": "",
    "tool_calls": [CALL],
    "response_metadata": {"finish_reason": "tool_calls", "model_name": "gpt-4o"},
    "usage_metadata": {"input_tokens": 31, "output_tokens": 9, "total_tokens": 40},
}
AI_ANSWERING = {
    "type": "ai",
    "content": "4",
    "response_metadata": {"stop_reason": "end_turn"},
    "usage_metadata": {"input_tokens": 52, "output_tokens": 2, "total_tokens": 54},
}
CONVERSATION = [
    {"type": "human", "content": "What is 2+2?"},
    AI_CALLING,
    {"type": "tool", "content": "4", "tool_call_id": "c1", "name": "calc"},
    AI_ANSWERING,
]


def _facts(path: Path) -> list[tuple[str | None, int | None, int | None]]:
    turns = [e for e in one_episode(path).events if e.kind == "assistant"]
    return [(e.finish_reason, e.input_tokens, e.output_tokens) for e in turns]


EXPECTED = [("tool_calls", 31, 9), ("end_turn", 52, 2)]


def test_langchain_type_messages_read_as_openai_keep_finish_reasons_and_tokens(tmp_path: Path) -> None:
    """Detected, ``{"messages": [...]}`` of LangChain messages is LangGraph's; forced, the OpenAI
    reader's, which now reads the same facts."""
    path = write_jsonl(tmp_path, "chat.jsonl", [{"messages": CONVERSATION}])
    assert _facts(path) == EXPECTED
    (forced,) = ingest_paths([path], fmt="openai").episodes
    assert [(e.finish_reason, e.input_tokens, e.output_tokens) for e in forced.events[1::2]] == EXPECTED


def test_a_bare_list_of_langchain_messages_keeps_them_too(tmp_path: Path) -> None:
    assert _facts(write_json(tmp_path, "chat.json", CONVERSATION)) == EXPECTED


def test_role_dicts_carrying_langchain_fields_keep_them(tmp_path: Path) -> None:
    role_dicts = [
        {"role": "user", "content": "What is 2+2?"},
        {**{k: v for k, v in AI_CALLING.items() if k != "type"}, "role": "assistant"},
        {"role": "tool", "content": "4", "tool_call_id": "c1"},
        {**{k: v for k, v in AI_ANSWERING.items() if k != "type"}, "role": "assistant"},
    ]
    assert _facts(write_jsonl(tmp_path, "chat.jsonl", [{"messages": role_dicts}])) == EXPECTED
