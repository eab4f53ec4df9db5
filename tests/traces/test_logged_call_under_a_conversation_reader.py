"""A logged call (a conversation under ``messages`` with its answer beside it) that reaches a reader
of a conversation alone (``--format openai`` or ``anthropic`` forced, or a line after the one that
decided its file's format) is read as ``chat-log`` reads it: the answer is the last turn. It was
left in ``extra_json``, off the conversation, without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths

OPENAI_CALL = {
    "messages": [{"role": "user", "content": "What is 2+2?"}],
    "response": {
        "id": "chatcmpl-1",
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "4"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 1},
    },
}
ANTHROPIC_CALL = {
    "model": "claude-sonnet-4-5",
    "system": "Answer briefly.",
    "messages": [{"role": "user", "content": [{"type": "text", "text": "What is 2+2?"}]}],
    "response": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": "4"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 12, "output_tokens": 1},
    },
}


@pytest.mark.parametrize(("fmt", "call"), [("openai", OPENAI_CALL), ("anthropic", ANTHROPIC_CALL)])
def test_a_forced_conversation_format_reads_the_logged_answer(tmp_path: Path, fmt: str, call: dict) -> None:
    result = ingest_paths([write_jsonl(tmp_path, "calls.jsonl", [call])], fmt=fmt)
    assert result.rejects == []
    (episode,) = result.episodes
    answer = episode.events[-1]
    assert (answer.kind, answer.content, answer.finish_reason) == (
        "assistant",
        "4",
        call["response"].get("stop_reason", "stop"),
    )
    assert (answer.input_tokens, answer.output_tokens) == (12, 1)
    assert "response" not in json.loads(episode.extra_json or "{}"), "the answer is no leftover"
    assert episode.source_format == "chat-log", "read as detection reads a logged call"


def test_a_logged_call_after_a_plain_conversation_in_one_file_reads_its_answer(tmp_path: Path) -> None:
    plain = {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}
    result = ingest_paths([write_jsonl(tmp_path, "mixed.jsonl", [plain, OPENAI_CALL])])
    assert result.rejects == []
    assert [(e.source_format, e.events[-1].content) for e in result.episodes] == [
        ("openai", "Hello"),
        ("chat-log", "4"),
    ]
