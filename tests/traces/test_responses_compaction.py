"""A Responses API ``compaction`` item (what ``/responses/compact`` leaves in place of the turns it
summarized) is the harness's compaction, not an ``unknown item type`` reject
(``openai_responses.ItemTurns.compaction``): an event replacing the events before it, its summary
text where the log writes one, else a marker, never the ciphertext."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.adapters.openai_responses import ENCRYPTED_SUMMARY

CIPHER = "gAAAAABpZ0cipher"


def _say(role: str, text: str) -> dict:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def test_a_compaction_item_in_a_request_replaces_the_turns_before_it(tmp_path: Path):
    record = {
        "id": "resp_1",
        "object": "response",
        "input": [
            _say("user", "Fix the parser"),
            _say("assistant", "Reading it"),
            {"type": "compaction", "id": "cmp_1", "encrypted_content": CIPHER, "created_by": "system"},
            _say("user", "Now run the tests"),
        ],
        "output": [_say("assistant", "Running them.")],
    }
    episode = one_episode(write_jsonl(tmp_path, "r.jsonl", [record]))
    kinds = [(e.kind, e.content, e.replaces_through) for e in episode.events]
    assert kinds == [
        ("user", "Fix the parser", None),
        ("assistant", "Reading it", None),
        ("compaction", ENCRYPTED_SUMMARY, 1),
        ("user", "Now run the tests", None),
        ("assistant", "Running them.", None),
    ]
    assert CIPHER not in (episode.extra_json or "")


def test_a_compaction_with_a_summary_keeps_its_text(tmp_path: Path):
    compaction = {
        "type": "compaction",
        "id": "cmp_2",
        "encrypted_content": CIPHER,
        "summary": [{"type": "summary_text", "text": "The user asked for a parser fix."}],
    }
    items = [compaction, _say("user", "Go on"), _say("assistant", "Done.")]
    episode = one_episode(write_json(tmp_path, "items.json", items))
    first = episode.events[0]
    assert (first.kind, first.content) == ("compaction", "The user asked for a parser fix.")
    assert first.replaces_through is None  # nothing before it in this log


def test_a_codex_rollout_compaction_item_is_read(tmp_path: Path):
    def line(second: int, kind: str, payload: dict) -> dict:
        return {"timestamp": f"2025-10-01T10:00:0{second}Z", "type": kind, "payload": payload}

    lines = [
        line(0, "session_meta", {"id": "s-1", "cwd": "/w"}),
        line(1, "response_item", _say("user", "rename x")),
        line(2, "response_item", _say("assistant", "ok")),
        line(3, "response_item", {"type": "compaction", "id": "cmp_3", "encrypted_content": CIPHER}),
        line(4, "response_item", _say("assistant", "renamed")),
    ]
    episode = one_episode(write_jsonl(tmp_path, "rollout-2025-10-01T10-00-00-s1.jsonl", lines))
    assert [e.kind for e in episode.events] == ["user", "assistant", "compaction", "assistant"]
    assert episode.events[2].replaces_through == 1
