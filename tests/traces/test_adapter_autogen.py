"""AutoGen AgentChat (traces/adapters/autogen.py), written by hand after the published message types:
a team's TaskResult with thoughts, parallel tool calls, a streaming chunk and a stop message; a bare
message list; the framework's tool summary kept as context; and the record an unknown message type
rejects while the rest goes on."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from handwritten_records import AUTOGEN_RESULT
from log_files import one_episode, write_json, write_jsonl

from trajectory_platform.traces.adapters import SourceFile, detect_format
from trajectory_platform.traces.ingest import ingest_paths


def test_a_task_result_becomes_one_episode(tmp_path: Path):
    episode = one_episode(write_jsonl(tmp_path, "run.jsonl", [AUTOGEN_RESULT]))
    assert episode.source_format == "autogen" and episode.task.fixture_id == "fix-parser-7"
    assert [e.kind for e in episode.events] == ["user", "assistant", "tool", "tool", "assistant"]
    turn = episode.events[1]
    assert (turn.name, turn.reasoning, turn.input_tokens, turn.output_tokens) == (
        "coder",
        "Read both files first.",
        80,
        20,
    )
    assert [(c.id, c.name, json.loads(c.arguments or "")) for c in turn.tool_calls] == [
        ("call_a", "read_file", {"path": "p.py"}),
        ("call_b", "read_file", {"path": "t.py"}),
    ]
    assert [(e.tool_call_id, e.status) for e in episode.events[2:4]] == [
        ("call_a", "ok"),
        ("call_b", "error"),
    ]
    assert episode.events[-1].content == "Fixed. TERMINATE" and episode.events[-1].input_tokens == 140
    extra = json.loads(episode.extra_json or "")
    assert extra["skipped_messages"] == {"ModelClientStreamingChunkEvent": 1, "StopMessage": 1}
    assert extra["stop_messages"] == ["Text 'TERMINATE' mentioned"]
    assert extra["stop_reason"] == "Text 'TERMINATE' mentioned"


def test_a_bare_message_list_and_a_framework_summary_kept_as_context(tmp_path: Path):
    messages = copy.deepcopy(AUTOGEN_RESULT["messages"][:4])
    messages.append(
        {
            "source": "coder",
            "type": "ToolCallSummaryMessage",
            "content": "def parse(): ...\nFileNotFoundError",
        }
    )
    path = write_json(tmp_path, "messages.json", messages)
    assert detect_format(SourceFile.read(path)).name == "autogen"
    episode = one_episode(path)
    summary = episode.events[-1]
    assert (summary.kind, summary.weight) == ("assistant", 0.0), "the framework wrote it, not the model"


def test_code_generation_and_its_execution(tmp_path: Path):
    messages = [
        {"source": "user", "type": "TextMessage", "content": "Print 2+2."},
        {
            "source": "coder",
            "type": "CodeGenerationEvent",
            "content": "```python\nprint(2+2)\n```",
            "retry_attempt": 0,
        },
        {"source": "coder", "type": "CodeExecutionEvent", "result": {"exit_code": 1, "output": "NameError"}},
    ]
    episode = one_episode(write_json(tmp_path, "code.json", {"messages": messages}))
    assert [(e.kind, e.tool_name, e.exit_code, e.status) for e in episode.events[1:]] == [
        ("assistant", None, None, None),
        ("tool", "code_execution", 1, "error"),
    ]


def test_an_unknown_message_type_rejects_its_record_and_the_rest_goes_on(tmp_path: Path):
    odd = copy.deepcopy(AUTOGEN_RESULT)
    odd["messages"][2]["type"] = "HologramEvent"
    path = write_jsonl(tmp_path, "day.jsonl", [odd, AUTOGEN_RESULT])
    result = ingest_paths([path])
    assert len(result.episodes) == 1
    assert [(r.source_line, r.reason, r.detail) for r in result.rejects] == [
        (1, "unknown message type", "messages[2].type is not an AgentChat message type")
    ]
