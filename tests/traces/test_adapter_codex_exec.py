"""``codex exec --json`` output (traces/adapters/codex_exec.py): a thread is one episode; completed
items become the model's turns and its tools' results; what only the interface showed is counted."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import CODEX_EXEC_EVENTS
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_thread_is_one_episode(tmp_path: Path):
    path = write_jsonl(tmp_path, "exec.jsonl", CODEX_EXEC_EVENTS)
    assert detect_format(SourceFile.read(path)).name == "codex-exec"
    episode = one_episode(path)
    assert episode.episode_id == "codex-exec:019a-thread"
    assert [e.kind for e in episode.events] == ["assistant", "tool", "assistant", "tool", "assistant"]
    first = episode.events[0]
    assert first.reasoning == "Run the tests first." and [c.name for c in first.tool_calls] == ["shell"]
    assert json.loads(first.tool_calls[0].arguments or "") == {"command": "pytest -q"}
    ran = episode.events[1]
    assert (ran.content, ran.exit_code, ran.status, ran.tool_name) == ("1 failed", 1, "error", "shell")
    assert [c.name for c in episode.events[2].tool_calls] == ["apply_patch"]
    answer = episode.events[-1]
    assert (answer.content, answer.input_tokens, answer.output_tokens) == ("Fixed.", 2946, 7)
    assert (episode.outcome.final_answer, episode.outcome.terminal_status) == ("Fixed.", "completed")
    assert json.loads(episode.extra_json or "")["skipped_events"] == {
        "item.started": 1,
        "todo_list": 1,
        "turn.started": 1,
    }


def test_a_failed_turn_ends_the_episode_error_and_an_unknown_item_rejects_it(tmp_path: Path):
    failed = [*CODEX_EXEC_EVENTS[:-1], {"type": "turn.failed", "error": {"message": "stream error"}}]
    assert one_episode(write_jsonl(tmp_path, "failed.jsonl", failed)).outcome.terminal_status == "error"
    odd = copy.deepcopy(CODEX_EXEC_EVENTS)
    odd[5]["item"]["type"] = "teleport"
    result = ingest_paths([write_jsonl(tmp_path, "odd.jsonl", odd)])
    assert [(r.reason, "line 6.item.type" in (r.detail or "")) for r in result.rejects] == [
        ("unknown item type", True)
    ]
