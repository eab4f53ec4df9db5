"""A tool result in a harness's own error wording is a failed call (``tool_errors``), development
half (the cases are :mod:`harness_errors`'s; the validation half is ``..._heldout.py``).

CrewAI catches a tool's exception and hands the model ``I encountered an error while trying to use
the tool. This was the error: ...`` as the observation; read with no status (or a span's ``ok``),
the failed call was a successful one: the recovery after it trained as a clean run."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness_errors import DEV, Case
from log_files import one_episode, write_json

from trajectory_platform.traces.adapters.tool_errors import harness_error


def assert_result_status(case: Case, folder: Path) -> None:
    """The log's one tool result has the case's status, and no other turn is marked."""
    episode = one_episode(write_json(folder, case.file, case.record))
    (result,) = [event for event in episode.events if event.kind == "tool"]
    assert result.status == case.status
    assert all(event.status is None for event in episode.events if event.kind != "tool")


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_harness_error_wording_is_a_failed_call(case: Case, tmp_path: Path):
    assert_result_status(case, tmp_path)


def test_a_status_the_log_states_is_kept_and_other_turns_are_not_read(tmp_path: Path):
    wording = "I encountered an error: the city service timed out"
    messages = [
        {"role": "user", "content": wording},
        {"type": "ai", "content": "", "tool_calls": [{"id": "c1", "name": "get_weather", "args": {}}]},
        {"type": "tool", "content": wording, "tool_call_id": "c1", "status": "error"},
        {"type": "ai", "content": wording},
    ]
    episode = one_episode(write_json(tmp_path, "state.json", {"messages": messages}))
    assert [(e.kind, e.status) for e in episode.events] == [
        ("user", None),
        ("assistant", None),
        ("tool", "error"),
        ("assistant", None),
    ]
    assert not harness_error(None) and harness_error("  " + wording + "\n")
