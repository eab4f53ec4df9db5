"""Claude Code's ``--output-format stream-json`` and the Claude Agent SDK's message stream
(traces/adapters/claude_code.py): the init line's model and tools, the messages, sub-agent messages
counted apart, and the result line's final answer and terminal status."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from handwritten_records import CLAUDE_STREAM
from log_files import one_episode, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format


def test_a_stream_is_one_episode_with_its_init_and_result(tmp_path: Path):
    path = write_jsonl(tmp_path, "run.jsonl", CLAUDE_STREAM)
    assert detect_format(SourceFile.read(path)).name == "claude-code"
    episode = one_episode(path)
    assert episode.episode_id == "claude-code:s-1"
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Fix the parser."),
        ("assistant", "Running the tests."),
        ("tool", "1 failed"),
        ("assistant", "Fixed."),
    ], "the sub-agent's message was never this conversation's"
    (call,) = episode.events[1].tool_calls
    assert (call.name, episode.events[2].tool_call_id) == ("Bash", "tu_1")
    assert (episode.outcome.terminal_status, episode.outcome.final_answer) == ("completed", "Fixed.")
    assert episode.lineage.model == "claude-sonnet-4-5" and [t.name for t in episode.tools] == [
        "Bash",
        "Read",
        "Edit",
    ]
    extra = json.loads(episode.extra_json or "")
    assert extra["cwd"] == "/repo" and extra["skipped_entries"] == {"sidechain": 1}
    assert extra["result"] == {"duration_ms": 5400, "num_turns": 2, "total_cost_usd": 0.012}


@pytest.mark.parametrize(
    ("subtype", "is_error", "status"),
    [
        ("error_max_turns", True, "truncated"),
        ("error_during_execution", True, "error"),
        ("success", False, "completed"),
    ],
)
def test_the_result_line_says_how_the_run_ended(tmp_path: Path, subtype: str, is_error: bool, status: str):
    lines = copy.deepcopy(CLAUDE_STREAM)
    lines[-1].update(subtype=subtype, is_error=is_error)
    assert one_episode(write_jsonl(tmp_path, "run.jsonl", lines)).outcome.terminal_status == status


def test_a_stream_without_its_result_line_still_reads(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "run.jsonl", CLAUDE_STREAM[:-1]))
    assert episode.outcome.terminal_status is None and len(episode.events) == 4
