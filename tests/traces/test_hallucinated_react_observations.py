"""A made-up ``Observation:`` in a generic chat log stays the model's text (development half; the
cases are :mod:`hallucinated_react`'s, the validation half is ``..._heldout.py``).

Only a framework that appends the tool's output to the acting text (CrewAI's agent executor) makes
such a text a call and its result (``text_conventions.react_turns``). Anywhere else the observation
is one the model wrote itself when nothing stopped it at ``Observation:``: read as a tool event it
would be trusted as a tool's output, and the fabrication check (``fabricated_turns``) would no longer
see the claim it makes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hallucinated_react import DEV, Case
from log_files import one_episode, write_json

from trajectory_platform.curation.verify.fabrication import UNQUOTED_OUTPUT, fabricated_turns


def assert_stays_text_and_is_flagged(case: Case, folder: Path) -> None:
    """The written text is the assistant's last turn, whole and unchanged, no call or result is
    read out of it, and the fabrication check flags that turn."""
    episode = one_episode(write_json(folder, case.file, case.record))
    assert [e.kind for e in episode.events if e.kind != "system"] == ["user", "assistant"]
    turn = len(episode.events) - 1
    last = episode.events[turn]
    assert (last.content, last.tool_calls, last.reasoning) == (case.text, [], None)
    assert fabricated_turns(episode) == {turn: UNQUOTED_OUTPUT}


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_made_up_observation_stays_text_and_is_flagged(case: Case, tmp_path: Path):
    assert_stays_text_and_is_flagged(case, tmp_path)
