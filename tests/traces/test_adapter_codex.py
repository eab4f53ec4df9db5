"""OpenAI Codex CLI sessions (traces/adapters/codex.py): a rollout file is one episode, its
response items read as Responses items, the interface's events counted apart, a compaction kept."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import CODEX_SESSION
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_rollout_file_is_one_episode(tmp_path: Path):
    path = write_jsonl(tmp_path, "rollout-2026-11-04T09-30-00-019a.jsonl", CODEX_SESSION)
    assert detect_format(SourceFile.read(path)).name == "codex"
    episode = one_episode(path)
    assert episode.episode_id == "codex:019a-sess"
    assert [e.kind for e in episode.events] == [
        "user",
        "user",
        "assistant",
        "tool",
        "compaction",
        "assistant",
    ]
    turn = episode.events[2]
    assert (turn.reasoning, [c.name for c in turn.tool_calls]) == ("Run the tests.", ["shell"])
    assert (episode.events[3].tool_call_id, episode.events[3].tool_name) == ("call_1", "shell")
    assert episode.events[4].replaces_through == 3 and episode.events[4].content.startswith("Ran the tests")
    assert episode.task.prompt == "Fix the parser.", "not Codex's own environment context"
    assert episode.lineage.model == "gpt-5-codex" and json.loads(
        episode.lineage.sampling_params_json or ""
    ) == {"effort": "high"}
    assert episode.events[2].timestamp == "2026-11-04T09:30:02.000Z"
    extra = json.loads(episode.extra_json or "")
    assert extra["cwd"] == "/repo" and extra["skipped_entries"] == {
        "event_msg:token_count": 1,
        "event_msg:user_message": 1,
        "ghost_snapshot": 1,
    }


def test_an_unknown_item_rejects_the_session_and_a_stray_line_is_its_own_reject(tmp_path: Path):
    odd = copy.deepcopy(CODEX_SESSION)
    odd[6]["payload"]["type"] = "teleport_call"
    path = write_jsonl(tmp_path, "rollout.jsonl", [*odd, {"unrelated": True}])
    result = ingest_paths([path])
    assert result.episodes == [] and result.records_in == 2
    assert sorted((r.reason, r.source_line) for r in result.rejects) == [
        ("unknown item type", 1),
        ("wrong type", 13),
    ]
    detail = next(r.detail or "" for r in result.rejects if r.reason == "unknown item type")
    assert "line 7.payload.type" in detail


def test_a_session_with_no_model_turn_is_said_so(tmp_path: Path):
    result = ingest_paths([write_jsonl(tmp_path, "rollout.jsonl", CODEX_SESSION[:4])])
    assert [r.reason for r in result.rejects] == ["no model turn"]


def _legacy_layout(session: list[dict]) -> list[dict]:
    """``session`` as Codex wrote rollouts until mid-2025: the meta unwrapped on the first line
    (id, timestamp, instructions, git), each Responses item bare, state snapshots between turns."""
    meta = next(e["payload"] for e in session if e["type"] == "session_meta")
    lines: list[dict] = [{"id": meta["id"], "timestamp": "2025-05-20T10:00:00Z", "instructions": None}]
    for entry in session:
        if entry["type"] == "response_item" and entry["payload"].get("type") != "ghost_snapshot":
            lines += [entry["payload"], {"record_type": "state"}]
    return lines


def test_the_older_rollout_layout_reads_as_the_same_session(tmp_path: Path):
    session = [e for e in CODEX_SESSION if e["type"] != "compacted"]  # the older layout had no compaction
    current = one_episode(write_jsonl(tmp_path, "rollout-new.jsonl", session))
    legacy = one_episode(write_jsonl(tmp_path, "rollout-2025-05-20-old.jsonl", _legacy_layout(session)))
    assert legacy.source_format == "codex" and legacy.episode_id == current.episode_id
    assert [
        (e.kind, e.content, e.reasoning, e.tool_calls, e.tool_call_id, e.status) for e in legacy.events
    ] == [(e.kind, e.content, e.reasoning, e.tool_calls, e.tool_call_id, e.status) for e in current.events]
    assert legacy.task.prompt == current.task.prompt
    assert json.loads(legacy.extra_json or "{}")["skipped_entries"]["state"] > 0
