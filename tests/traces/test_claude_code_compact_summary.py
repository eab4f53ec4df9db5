"""Claude Code's compaction (traces/adapters/claude_code.py): after a ``compact_boundary`` line the
runtime writes its summary of the conversation as a user line marked ``isCompactSummary``. The user
did not say it: it is a ``compaction`` event replacing what came before, never a user turn."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_jsonl

SESSION = "7f3a9c1e-0000-4000-8000-00000000abcd"


def _line(uuid: str, kind: str, message: dict, **more: object) -> dict:
    return {
        "sessionId": SESSION,
        "type": kind,
        "uuid": uuid,
        "message": message,
        "isSidechain": False,
        **more,
    }


def test_the_compact_summary_is_a_compaction_not_the_user(tmp_path: Path):
    lines = [
        _line("u1", "user", {"role": "user", "content": "Run the tests"}),
        _line(
            "u2",
            "assistant",
            {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Ran."}]},
        ),
        {
            "sessionId": SESSION,
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "u3",
            "content": "compacted",
        },
        _line(
            "u4",
            "user",
            {"role": "user", "content": "This session continues: tests ran."},
            isCompactSummary=True,
        ),
        _line(
            "u5",
            "assistant",
            {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        ),
    ]
    episode = one_episode(write_jsonl(tmp_path, "session.jsonl", lines))
    assert [e.kind for e in episode.events] == ["user", "assistant", "compaction", "assistant"]
    compaction = episode.events[2]
    assert (compaction.content, compaction.replaces_through) == ("This session continues: tests ran.", 1)
    assert episode.task.prompt == "Run the tests"
