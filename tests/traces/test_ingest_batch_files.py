"""Batch API files (traces/adapters/batch.py): an answer is read with its request from the file beside
it, paired by id; an answer alone says what is missing; a failed request is a reject naming its error
type. Each used to be a whole-file `unrecognized format` reject."""

from __future__ import annotations

import json
from pathlib import Path

from handwritten_records import ANTHROPIC_BATCH_RESULTS, OPENAI_BATCH_INPUT, OPENAI_BATCH_OUTPUT
from log_files import write_jsonl

from trajectory_platform.traces.ingest import ingest_paths
from trajectory_platform.traces.record import Episode

SECRET_IN_ERROR = "sk-proj-QWERTYUIOPASDFGHJKLZXCVBNM123456"


def _calls(event_episode: Episode) -> list[tuple[str | None, str, str]]:
    return [(c.id, c.name, c.arguments) for c in event_episode.events[-1].tool_calls]


def test_a_batch_answer_is_read_with_its_request_from_the_input_file_beside_it(tmp_path: Path) -> None:
    write_jsonl(tmp_path, "batch_input.jsonl", OPENAI_BATCH_INPUT)
    write_jsonl(tmp_path, "batch_output.jsonl", OPENAI_BATCH_OUTPUT)
    result = ingest_paths([tmp_path])
    (episode,) = result.episodes
    assert (episode.source_format, episode.source_file, episode.source_line) == (
        "batch",
        str(tmp_path / "batch_output.jsonl"),
        1,
    )
    assert [e.kind for e in episode.events] == ["system", "user", "assistant"]
    assert _calls(episode) == [("call_1", "read_file", '{"path": "p.py"}')]
    answer = episode.events[-1]
    assert (answer.finish_reason, answer.input_tokens, answer.output_tokens) == ("tool_calls", 80, 17)
    assert episode.task.fixture_id == "fix-parser-7" and [t.name for t in episode.tools] == ["read_file"]
    assert json.loads(episode.extra_json or "{}")["batch"] == {
        "id": "task-1",
        "request": "batch_input.jsonl line 1, body",
        "answer": "response.body",
    }
    assert len(episode.delivered_inputs) == 1, "the request is the answer's delivered input"
    # the paired request line is no record of its own; the expired one is the output's reject
    assert result.records_in == 2
    assert [(r.source_file, r.source_line, r.reason) for r in result.rejects] == [
        (str(tmp_path / "batch_output.jsonl"), 2, "failed model call")
    ]
    assert "task-2" not in (result.rejects[0].detail or "") or "batch_expired" in (
        result.rejects[0].detail or ""
    )


def test_a_batch_answer_without_its_request_is_read_alone_and_says_what_is_missing(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, "results.jsonl", ANTHROPIC_BATCH_RESULTS)
    result = ingest_paths([path])
    (episode,) = result.episodes
    assert episode.source_format == "batch" and episode.episode_id == "batch:req-1"
    assert [e.kind for e in episode.events] == ["assistant"]
    assert episode.events[0].reasoning == "Read it first."
    assert _calls(episode) == [("toolu_01", "read_file", '{"path":"p.py"}')]
    extra = json.loads(episode.extra_json or "{}")
    assert "custom_id 'req-1'" in extra["request_missing"] and extra["dialect"] == "anthropic"
    ((line, reason, detail),) = [(r.source_line, r.reason, r.detail or "") for r in result.rejects]
    assert (line, reason) == (2, "failed model call")
    assert "'errored'" in detail and "'overloaded_error'" in detail


def test_a_failed_batch_request_names_its_error_type_never_its_message(tmp_path: Path) -> None:
    failed = {
        "custom_id": "task-9",
        "response": {
            "status_code": 400,
            "body": {"error": {"code": "invalid_prompt", "message": f"bad key {SECRET_IN_ERROR}"}},
        },
        "error": None,
    }
    result = ingest_paths([write_jsonl(tmp_path, "out.jsonl", [failed])])
    (reject,) = result.rejects
    assert reject.reason == "failed model call" and reject.source_line == 1  # the file is one line
    assert "HTTP 400" in (reject.detail or "") and "'invalid_prompt'" in (reject.detail or "")
    assert SECRET_IN_ERROR not in (reject.detail or "")
