"""Anthropic Messages conversations kept as a bare list of messages (traces/adapters/anthropic.py):
the shape Cline and Roo Code keep as ``api_conversation_history.json`` (their task folders are
the ``cline`` format)."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json

from trajectory_platform.traces.adapters import SourceFile, detect_format

HISTORY = [
    {"role": "user", "content": [{"type": "text", "text": "<task>\nFix the parser.\n</task>"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading it."},
            {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "p.py"}},
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "def parse(): ..."}],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}]},
]


def test_a_bare_list_with_anthropic_blocks_is_read_as_anthropic_not_as_openai_text(tmp_path: Path):
    path = write_json(tmp_path, "history.json", HISTORY)
    assert detect_format(SourceFile.read(path)).name == "anthropic"
    episode = one_episode(path)
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    (call,) = episode.events[1].tool_calls
    assert (call.name, episode.events[2].tool_call_id, episode.events[2].content) == (
        "read_file",
        "tu_1",
        "def parse(): ...",
    )
    assert "[tool_use]" not in (episode.events[1].content or ""), (
        "a call is a call, never a marker in the text"
    )


def test_a_bare_list_of_plain_text_messages_stays_openai(tmp_path: Path):
    plain = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert detect_format(SourceFile.read(write_json(tmp_path, "chat.json", plain))).name == "openai"
