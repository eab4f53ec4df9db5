"""Codex's ``write_stdin`` calls are linked to the ``exec_command`` whose session they fed, and the
command's exit is the command's (``codex_command_sessions.py``). Development half and controls; the
validation half is ``test_codex_command_sessions_heldout.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_command_sessions import CONTROLS, DEV, Case

from trajectory_platform.traces.ingest import ingest_paths


def assert_linked(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-09-01T10-00-00-0199a2b3.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in case.lines) + "\n")
    result = ingest_paths([path])
    assert [r.reason for r in result.rejects] == []
    (episode,) = result.episodes
    assert episode.source_format == "codex"
    assert episode.extra().get("command_sessions", []) == case.sessions
    results = {e.tool_call_id: (e.exit_code, e.status) for e in episode.events if e.kind == "tool"}
    assert {k: results[k] for k in case.command_results} == case.command_results
    assert {k: results[k] for k in case.write_results} == case.write_results


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_write_to_a_command_session_is_linked_to_its_command(case: Case, tmp_path: Path):
    assert_linked(case, tmp_path)


@pytest.mark.parametrize("case", CONTROLS, ids=lambda case: case.name)
def test_commands_without_a_session_read_as_before(case: Case, tmp_path: Path):
    assert_linked(case, tmp_path)
