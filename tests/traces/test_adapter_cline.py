"""Cline / Roo Code task folders (traces/adapters/cline.py), written by hand after Cline's
``api_conversation_history.json``: XML tool calls in the assistant's text with ``<thinking>``
before them, ``[tool for 'x'] Result:`` user turns, and the companion files read with it."""

from __future__ import annotations

import json
from pathlib import Path

from trajectory_platform.traces.ingest import ingest_paths


def _text(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


HISTORY = [
    {
        "role": "user",
        "content": _text(
            "<task>\nFix the typo\n</task>", "<environment_details>\ncwd\n</environment_details>"
        ),
    },
    {
        "role": "assistant",
        "content": _text(
            "<thinking>\nLook first.\n</thinking>\n\n<read_file>\n<path>a.py</path>\n</read_file>"
        ),
    },
    {
        "role": "user",
        "content": _text(
            "[read_file for 'a.py'] Result:",
            "pritn(1)\n",
            "<environment_details>\n..\n</environment_details>",
        ),
    },
    {
        "role": "assistant",
        "content": _text(
            "<execute_command>\n<command>sed -i s/pritn/print/ a.py</command>\n"
            "<requires_approval>false</requires_approval>\n</execute_command>"
        ),
    },
    {"role": "user", "content": _text("[execute_command for 'sed -i s/pritn/print/ a.py'] Result:", "done")},
    {
        "role": "assistant",
        "content": _text("<attempt_completion>\n<result>\nFixed.\n</result>\n</attempt_completion>"),
    },
]


def test_a_task_folder_is_one_episode_with_calls_results_and_companions(tmp_path: Path):
    task = tmp_path / "1735000000000"
    task.mkdir()
    (task / "api_conversation_history.json").write_text(json.dumps(HISTORY))
    (task / "task_metadata.json").write_text(json.dumps({"model_usage": [{"model_id": "m-1"}]}))
    (task / "ui_messages.json").write_text(
        json.dumps([{"type": "say", "say": "completion_result", "text": "Fixed."}])
    )
    result = ingest_paths([tmp_path])
    assert result.rejects == [] and result.records_in == 1 and result.files_read == 3
    (episode,) = result.episodes
    assert (episode.episode_id, episode.source_format) == ("cline:1735000000000", "cline")
    assert (episode.task.prompt, episode.lineage.model, episode.outcome.final_answer) == (
        "Fix the typo",
        "m-1",
        "Fixed.",
    )
    calls = [(c.name, json.loads(c.arguments or "")) for e in episode.events for c in e.tool_calls]
    assert calls == [
        ("read_file", {"path": "a.py"}),
        ("execute_command", {"command": "sed -i s/pritn/print/ a.py", "requires_approval": "false"}),
        ("attempt_completion", {"result": "Fixed."}),
    ]
    assert episode.events[1].reasoning == "Look first." and episode.events[1].content is None
    tools = [(e.tool_name, e.content) for e in episode.events if e.kind == "tool"]
    assert tools == [("read_file", "pritn(1)\n"), ("execute_command", "done")]
    assert [e.kind for e in episode.events] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
