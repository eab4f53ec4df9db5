"""Claude Code's ``{"type": "summary", "summary", "leafUuid"}`` lines are the conversation's title in
the ``/resume`` list, never shown to the model (traces/adapters/claude_code.py): metadata, not a
compaction event, which training would render as a system message the model never saw."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_jsonl


def test_a_claude_code_title_line_is_metadata_not_a_turn(tmp_path: Path):
    session = "9b1c"
    lines = [
        {"type": "summary", "summary": "README Typo Fix", "leafUuid": "u2"},
        {
            "type": "user",
            "sessionId": session,
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": "Fix the typo in README"},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "uuid": "u2",
            "parentUuid": "u1",
            "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Fixed."}]},
        },
    ]
    episode = one_episode(write_jsonl(tmp_path, "s.jsonl", lines))
    assert [e.kind for e in episode.events] == ["user", "assistant"]
    assert json.loads(episode.extra_json)["titles"] == [{"title": "README Typo Fix", "leafUuid": "u2"}]
