"""Goose sessions (traces/adapters/goose.py): a session file, an export or a stream-json run is one
episode; tool requests are calls, tool responses tool events, what the agent never saw counted."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from handwritten_records import GOOSE_MESSAGES, GOOSE_SESSION, GOOSE_STREAM
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode


def _assert_conversation(episode: Episode) -> None:
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "assistant"]
    turn = episode.events[1]
    assert (turn.content, turn.reasoning) == ("Running the tests.", "Run the tests first.")
    assert [(c.id, c.name, json.loads(c.arguments or "")) for c in turn.tool_calls] == [
        ("toolu_1", "developer__shell", {"command": "pytest -q"})
    ]
    result = episode.events[2]
    assert (result.tool_call_id, result.tool_name, result.content, result.status) == (
        "toolu_1",
        "developer__shell",
        "1 failed",
        "error",
    ), "isError in the tool's result"
    assert episode.events[3].content == "Fixed." and episode.events[3].tool_calls == []
    assert episode.task.prompt == "Fix the failing parser test."


def test_a_session_file_is_one_episode_with_its_folder(tmp_path: Path):
    path = write_jsonl(tmp_path, "20261204_3.jsonl", GOOSE_SESSION)
    assert detect_format(SourceFile.read(path)).name == "goose"
    episode = one_episode(path)
    assert episode.episode_id == "goose:20261204_3"
    _assert_conversation(episode)
    extra = json.loads(episode.extra_json or "")
    assert extra["cwd"] == "/home/dev/parser" and extra["description"] == "fix parser"
    assert extra["skipped"] == {"not_agent_visible": 1, "tool_request_error": 1}


def test_a_stream_json_run_and_an_export_read_the_same(tmp_path: Path):
    stream = one_episode(write_jsonl(tmp_path, "run.jsonl", GOOSE_STREAM))
    _assert_conversation(stream)
    extra = json.loads(stream.extra_json or "")
    assert extra["usage"] == {"total_tokens": 1200} and extra["skipped"]["stream:notification"] == 1
    export = {"id": "20261204_3", "working_dir": "/home/dev/parser", "conversation": GOOSE_MESSAGES}
    exported = one_episode(write_json(tmp_path, "export.json", export))
    _assert_conversation(exported)
    assert exported.episode_id == "goose:20261204_3"
    failed = one_episode(
        write_jsonl(tmp_path, "failed.jsonl", [*GOOSE_STREAM, {"type": "error", "error": "x"}])
    )
    assert failed.outcome.terminal_status == "error"


def test_a_headerless_session_and_plain_text_content_are_read(tmp_path: Path):
    messages = copy.deepcopy(GOOSE_MESSAGES)
    messages[0]["content"] = "Fix the failing parser test."
    episode = one_episode(write_jsonl(tmp_path, "old.jsonl", messages))
    _assert_conversation(episode)
    assert episode.episode_id.startswith("goose:")


@pytest.mark.parametrize(
    ("change", "reason", "where"),
    [
        (
            lambda s: s[3]["content"][1].update(type="hologram"),
            "unknown content type",
            "line 4.content[1].type",
        ),
        (lambda s: s[3]["content"][2].update(id=["x"]), "wrong type", "line 4.content[2].id"),
        (lambda s: s.append({"not": "goose"}), "wrong type", "not a Goose session line"),
    ],
    ids=["unknown_item", "id_not_a_string", "a_stranger_line"],
)
def test_a_bad_session_is_rejected_with_where(tmp_path: Path, change, reason: str, where: str):
    session = copy.deepcopy(GOOSE_SESSION)
    change(session)
    rejects = ingest_paths([write_jsonl(tmp_path, "s.jsonl", session)]).rejects
    assert any(r.reason == reason and where in (r.detail or "") for r in rejects), [
        (r.reason, r.detail) for r in rejects
    ]


def test_a_session_without_a_model_turn_is_rejected(tmp_path: Path):
    rejects = ingest_paths([write_jsonl(tmp_path, "s.jsonl", GOOSE_SESSION[:2])]).rejects
    assert [r.reason for r in rejects] == ["no model turn"]
