"""When a user turn written as a tool result is the loop's reply (``inline_markup._answers``),
development half (the cases are :mod:`user_typed_results`'s; the validation half is
``..._heldout.py``).

A user turn opening ``Observation:`` or ``✿RESULT✿:`` (or holding ``<tool_response>`` /
``[TOOL_RESULTS]``) was read as the result of whatever call the model's turn before it left open,
so ``Observation: 3 passed`` a person typed after a ``<tool_call>`` (or a Mistral or Qwen-Agent
call) became the tool's output: trained on as the environment's words and unseen by the
fabrication check. Now such a turn is a result only where it answers the call in the call's own
convention (the loop's evidence: a ReAct action answered by its observation, a ``✿FUNCTION✿``
call by its ``✿RESULT✿``); anywhere else it stays what the user typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from log_files import one_episode, write_json
from user_typed_results import DEV, DEV_GENUINE, TOOL, Case

from trajectory_platform.traces.record import Episode


def _episode(case: Case, folder: Path) -> Episode:
    return one_episode(write_json(folder, case.file, case.record))


def assert_stays_the_users(case: Case, folder: Path) -> None:
    """The typed result is a user turn, exactly as typed, and no tool event appears."""
    episode = _episode(case, folder)
    assert [e.content for e in episode.events if e.kind == "user"][-1] == case.typed
    assert [e for e in episode.events if e.kind == "tool"] == []


def assert_pairs_to_the_call(case: Case, folder: Path) -> None:
    """The loop's reply is the tool's result, answering the model's call."""
    episode = _episode(case, folder)
    tools = [(e.tool_name, e.content) for e in episode.events if e.kind == "tool"]
    assert tools == [(TOOL, case.output)]
    kinds = [e.kind for e in episode.events if e.kind != "system"]
    assert kinds == ["user", "assistant", "tool", "assistant"]
    assert [c.name for e in episode.events for c in e.tool_calls] == [TOOL]


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_result_the_user_typed_stays_the_users_turn(case: Case, tmp_path: Path):
    assert_stays_the_users(case, tmp_path)


@pytest.mark.parametrize("case", DEV_GENUINE, ids=lambda case: case.name)
def test_a_loops_reply_in_the_calls_convention_is_its_result(case: Case, tmp_path: Path):
    assert_pairs_to_the_call(case, tmp_path)
