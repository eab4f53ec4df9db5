"""ChatGPT's data export (``adapters/chatgpt_export.py``): a list of conversations, each a tree of
messages, read along the path the user last saw. It was an ``unrecognized format`` reject.

Development cases here; the validation half (a regenerated answer's branch, an image part, a
browsing call, a reasoning model's thoughts, the hidden system prompt, one conversation alone) is
``test_chatgpt_export_heldout.py``."""

from __future__ import annotations

from pathlib import Path

from chatgpt_exports import conversation, python_run, text
from log_files import write_json

from trajectory_platform.traces.ingest import ingest_paths


def test_each_conversation_is_an_episode_its_tool_runs_calls_and_results(tmp_path: Path):
    chat = conversation([text("user", "Hi", 1700000000.0), text("assistant", "Hello!", 1700000001.0)])
    run = {**conversation(python_run()), "conversation_id": "c2"}
    result = ingest_paths([write_json(tmp_path, "conversations.json", [chat, run])])
    assert result.rejects == []
    first, second = result.episodes
    assert (first.source_format, first.episode_id) == ("chatgpt-export", "chatgpt-export:c1")
    assert [(e.kind, e.content) for e in first.events] == [("user", "Hi"), ("assistant", "Hello!")]
    assert [
        (e.kind, e.content or None, [(c.name, c.arguments) for c in e.tool_calls], e.tool_name)
        for e in second.events
    ] == [
        ("user", "What is 2+2? Use python.", [], None),
        ("assistant", None, [("python", "print(2+2)")], None),
        ("tool", "4", [], "python"),
        ("assistant", "The sum is 4.", [], None),
    ]
