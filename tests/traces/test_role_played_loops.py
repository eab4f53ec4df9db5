"""A result a person types in the model's own call convention, in a chat app's export
(``role_played_loops.py``), stays the person's turn; the same conversation as chat messages is the
record a loop writes, and keeps the loop's reading. Development half and controls; the validation
half is ``test_role_played_loops_heldout.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatgpt_exports import conversation, message, text
from log_files import one_episode, write_json
from role_played_loops import DEV, Case, chat_messages, turns
from user_typed_results import ASK, OUTPUTS, REPLIES


def assert_stays_the_persons(case: Case, tmp_path: Path) -> None:
    episode = one_episode(write_json(tmp_path, case.file, case.record))
    assert [e for e in episode.events if e.kind == "tool"] == []
    assert [e.content for e in episode.events if e.kind == "user"] == [ASK, case.typed]


@pytest.mark.parametrize("case", DEV, ids=lambda case: case.name)
def test_a_result_a_person_typed_in_a_chat_app_stays_theirs(case: Case, tmp_path: Path):
    assert_stays_the_persons(case, tmp_path)


@pytest.mark.parametrize("form", REPLIES)
def test_the_same_conversation_as_chat_messages_is_a_loops_record(form: str, tmp_path: Path):
    """Control and measurement: as chat messages, the person's role-play is the loop's record byte
    for byte, so its reply keeps answering the call (no rule can tell the two apart there)."""
    said = turns(form, OUTPUTS[0])
    episode = one_episode(write_json(tmp_path, "chat.json", chat_messages(said)))
    assert [(e.kind, e.content) for e in episode.events if e.kind == "tool"] == [("tool", OUTPUTS[0])]


def test_a_chatgpt_tools_own_message_is_still_its_result(tmp_path: Path):
    """Control: the app's own tool answers as a ``tool`` message, read as before."""
    record = [
        conversation(
            [
                text("user", "2+2?", 1.0),
                message(
                    "assistant",
                    {"content_type": "code", "language": "python", "text": "2+2"},
                    2.0,
                    recipient="python",
                ),
                message("tool", {"content_type": "execution_output", "text": "4"}, 3.0, name="python"),
                text("assistant", "4", 4.0),
            ]
        )
    ]
    episode = one_episode(write_json(tmp_path, "conversations.json", record))
    assert [(e.kind, e.content) for e in episode.events if e.kind == "tool"] == [("tool", "4")]
