"""Claude Code sessions (traces/adapters/claude_code.py): a rewound exchange stays in the file as a
branch of the ``parentUuid`` tree and is not the conversation; assistant lines the runtime wrote
(``isApiErrorMessage``, model ``<synthetic>``) are no model turns; a call the user refused at the
permission prompt is ``refused``, not a failed call."""

from __future__ import annotations

import json
from pathlib import Path

from log_files import one_episode, write_jsonl

SESSION = "9d1e0f7a-0000-4000-8000-000000000001"


def _user(uuid: str, parent: str | None, content: object, **more: object) -> dict:
    message = {"role": "user", "content": content}
    return {
        "sessionId": SESSION,
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "message": message,
        **more,
    }


def _assistant(
    uuid: str, parent: str, blocks: list, model: str = "claude-sonnet-4-5", **more: object
) -> dict:
    message = {"id": f"msg_{uuid}", "role": "assistant", "model": model, "content": blocks}
    return {
        "sessionId": SESSION,
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "message": message,
        **more,
    }


def _text(text: str) -> list:
    return [{"type": "text", "text": text}]


def _result(call_id: str, content: str, is_error: bool = False) -> list:
    return [{"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}]


def test_a_rewound_branch_is_not_merged_into_the_conversation(tmp_path: Path):
    rm = [{"type": "tool_use", "id": "toolu_rm", "name": "Bash", "input": {"command": "rm app.py"}}]
    lines = [
        _user("u0", None, "Look at app.py"),
        _assistant("a0", "u0", _text("app.py defines add().")),
        _user("u1", "a0", "Delete app.py"),  # the branch the user rewound
        _assistant("a1", "u1", rm),
        _user("r1", "a1", _result("toolu_rm", "")),
        _assistant("a1b", "r1", _text("Deleted app.py.")),
        _user("u2", "a0", "Add a docstring to add()"),  # forks from a0 again: the conversation
        _assistant("a2", "u2", _text("Added the docstring.")),
        {"type": "summary", "summary": "Docstring added", "leafUuid": "a2"},
    ]
    episode = one_episode(write_jsonl(tmp_path, "session.jsonl", lines))
    assert [(e.kind, e.content) for e in episode.events] == [
        ("user", "Look at app.py"),
        ("assistant", "app.py defines add()."),
        ("user", "Add a docstring to add()"),
        ("assistant", "Added the docstring."),
    ]
    extra = json.loads(episode.extra_json)
    assert extra["skipped_entries"] == {"rewound": 4}
    assert extra["titles"] == [{"title": "Docstring added", "leafUuid": "a2"}]


def test_entries_whose_chain_never_joins_are_kept(tmp_path: Path):
    lines = [  # no parent recorded (older files), and a parent held in another file
        _user("u0", None, "Look at app.py"),
        _assistant("a0", "elsewhere", _text("app.py defines add().")),
        _user("u1", None, "Thanks"),
    ]
    episode = one_episode(write_jsonl(tmp_path, "session.jsonl", lines))
    assert [e.kind for e in episode.events] == ["user", "assistant", "user"]


def test_runtime_written_assistant_lines_and_refused_calls(tmp_path: Path):
    error = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}'
    pytest_call = [{"type": "tool_use", "id": "toolu_t", "name": "Bash", "input": {"command": "pytest -q"}}]
    refused = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
        "was a file edit, the new_string was NOT written to the file). STOP what you are doing."
    )
    lines = [
        _user("u1", None, "Run the tests"),
        _assistant("a1", "u1", _text(error), model="<synthetic>", isApiErrorMessage=True),
        _user("u2", "a1", "try again"),
        _assistant("a2", "u2", pytest_call),
        _user("r2", "a2", _result("toolu_t", refused, is_error=True)),
        _user("u3", "r2", _text("[Request interrupted by user for tool use]")),
        _assistant("a3", "u3", _text("No response requested."), model="<synthetic>"),
    ]
    episode = one_episode(write_jsonl(tmp_path, "session.jsonl", lines))
    assert [e.kind for e in episode.events] == ["user", "user", "assistant", "tool", "user"]
    assert episode.lineage.model == "claude-sonnet-4-5"
    assert (episode.events[3].tool_call_id, episode.events[3].status) == ("toolu_t", "refused")
    assert json.loads(episode.extra_json)["skipped_entries"] == {"synthetic": 2}
