"""Validation half of ChatGPT's data export (``test_chatgpt_export.py``), held out while the reader
was written."""

from __future__ import annotations

import json
from pathlib import Path

from chatgpt_exports import conversation, message, python_run, text
from log_files import one_episode, write_json


def test_a_regenerated_answer_is_read_along_the_current_path(tmp_path: Path):
    run = conversation(python_run(), dropped={3: text("assistant", "It is 5.", 1700000004.5)})
    episode = one_episode(write_json(tmp_path, "conversations.json", [run]))
    assert episode.events[-1].content == "The sum is 4."
    assert json.loads(episode.extra_json or "{}")["other_branches"] == 1


def test_an_image_part_a_browsing_call_thoughts_and_the_hidden_system_prompt(tmp_path: Path):
    hidden = text("system", "", 1700000000.0)
    hidden["metadata"] = {"is_visually_hidden_from_conversation": True}
    image = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-1"}
    messages = [
        hidden,
        message("user", {"content_type": "multimodal_text", "parts": [image, "What is this?"]}, 1700000001.0),
        message(
            "assistant",
            {"content_type": "thoughts", "thoughts": [{"summary": "s", "content": "Look it up."}]},
            1700000002.0,
        ),
        text("assistant", "search('red panda')", 1700000003.0, recipient="browser"),
        message(
            "tool",
            {"content_type": "tether_browsing_display", "result": "Red pandas live in Asia."},
            1700000004.0,
            name="browser",
        ),
        text("assistant", "A red panda.", 1700000005.0),
    ]
    episode = one_episode(write_json(tmp_path, "conversation.json", conversation(messages)))
    rows = [
        (e.kind, e.content or None, [c.name for c in e.tool_calls], e.tool_name, e.reasoning)
        for e in episode.events
    ]
    assert rows == [
        ("system", None, [], None, None),
        ("user", "[image_asset_pointer file-service://file-1]\nWhat is this?", [], None, None),
        ("assistant", None, ["browser"], None, "Look it up."),
        ("tool", "Red pandas live in Asia.", [], "browser", None),
        ("assistant", "A red panda.", [], None, None),
    ]
