"""SWE-agent ``.traj`` (traces/adapters/swe_agent.py): demonstrations put in the history
(``put_demos_in_history``) are context the model saw, never the agent's own steps, and the thought
an assistant message records is part of its content, stored once."""

from __future__ import annotations

from pathlib import Path

from log_files import one_episode, write_json

from trajectory_platform.training.data.serialize import message_of

TASK = "We're currently solving the following issue within our repository: calc add bug\n"


def _demo(role: str, content: str, **more: object) -> dict:
    return {"role": role, "content": content, "agent": "main", "is_demo": True, **more}


def _traj(history: list) -> dict:
    return {
        "environment": "swe_main",
        "trajectory": [],
        "history": history,
        "info": {"exit_status": "submitted"},
    }


def test_demonstrations_in_history_are_context_not_the_agents_calls(tmp_path: Path):
    history = [
        {"role": "system", "content": "SETTING: You are an autonomous programmer.", "agent": "main"},
        _demo("user", "We're currently solving the following issue (marshmallow TimeDelta)."),
        _demo(
            "assistant",
            "Let's reproduce.\n```\ncreate reproduce.py\n```",
            thought="Let's reproduce.",
            action="create reproduce.py",
        ),
        _demo("user", "[File: /marshmallow/reproduce.py (1 lines total)]\n1:"),
        _demo("assistant", "Submit.", thought="Submit.", action="submit"),  # the action only beside
        {"role": "user", "content": TASK, "agent": "main"},
        {
            "role": "assistant",
            "content": "Let me see files.\n```\nls\n```",
            "thought": "Let me see files.",
            "action": "ls\n",
            "agent": "main",
        },
        {"role": "user", "content": "calc\nsetup.py\n", "agent": "main"},
    ]
    episode = one_episode(write_json(tmp_path, "calc-add.traj", _traj(history)))
    assert [(e.kind, e.name) for e in episode.events] == [
        ("system", None),
        *[("user", "demonstration")] * 4,
        ("user", None),
        ("assistant", None),
        ("tool", None),
    ]
    assert episode.task.prompt == TASK
    assert episode.events[2].content == "Let's reproduce.\n```\ncreate reproduce.py\n```"
    assert episode.events[4].content == "Submit.\nsubmit"
    calls = [c for e in episode.events for c in e.tool_calls]
    assert [(c.name, c.arguments) for c in calls] == [("ls", "ls\n")]


def test_a_demo_flag_written_as_text_counts(tmp_path: Path):
    history = [
        {**_demo("user", "A demonstration."), "is_demo": "True"},
        {**_demo("assistant", "Done.\n```\nsubmit\n```", action="submit"), "is_demo": "True"},
        {"role": "user", "content": TASK},
    ]
    episode = one_episode(write_json(tmp_path, "calc-add.traj", _traj(history)))
    assert [(e.kind, e.name) for e in episode.events] == [("user", "demonstration")] * 2 + [("user", None)]
    assert episode.task.prompt == TASK


def test_the_thought_is_stored_once_in_the_content(tmp_path: Path):
    history = [
        {"role": "user", "content": TASK},
        {
            "role": "assistant",
            "content": "Let me see files.\n```\nls\n```",
            "thought": "Let me see files.",
            "action": "ls\n",
        },
        {"role": "user", "content": "calc\n"},
        # function calling: the content is the thought, the action a recorded call
        {
            "role": "assistant",
            "content": "Submit now.",
            "thought": "Submit now.",
            "action": "submit",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "submit", "arguments": "{}"}}
            ],
        },
    ]
    episode = one_episode(write_json(tmp_path, "calc-add.traj", _traj(history)))
    turns = [e for e in episode.events if e.kind == "assistant"]
    assert [(t.content, t.reasoning) for t in turns] == [
        ("Let me see files.\n```\nls\n```", None),
        ("Submit now.", None),
    ]
    rendered = message_of(turns[0], rationale="kept")
    assert "reasoning_content" not in rendered  # the training example shows the thought once
