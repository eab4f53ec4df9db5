"""Text an assistant wrote after a tool's result within one message, no step marker between
(``content_parts.steps_of``), development half; the cases are :mod:`parts_after_results`'s, the
validation half is ``..._heldout.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from log_files import one_episode, write_json
from parts_after_results import CONTROLS, DEV, Case


def _record(case: Case) -> Any:
    ask = "Weather?"
    if case.mastra:
        messages = [
            {"id": "m1", "role": "user", "content": {"format": 2, "parts": [{"type": "text", "text": ask}]}},
            {"id": "m2", "role": "assistant", "content": {"format": 2, "parts": case.parts}},
        ]
        return {"messages": messages}
    return [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": ask}]},
        {"id": "a1", "role": "assistant", "parts": case.parts},
    ]


def assert_turns(case: Case, folder: Path) -> None:
    episode = one_episode(write_json(folder, "chat.json", _record(case)))
    rows = [
        (e.kind, e.content or None, [c.name for c in e.tool_calls])
        for e in episode.events
        if e.kind != "user"
    ]
    assert rows == case.expected


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_text_after_a_result_is_a_later_turn(case: Case, tmp_path: Path):
    assert_turns(case, tmp_path)


@pytest.mark.parametrize("case", CONTROLS, ids=lambda case: case.name)
def test_controls_read_as_before(case: Case, tmp_path: Path):
    assert_turns(case, tmp_path)
