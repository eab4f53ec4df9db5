"""Lines read as part of another file's record (a batch request read with its answer, a Cline task's
companion files read with its history) are accounted: the summary names them and the file they were
read with, and a run given such a file without the one it belongs with reads it alone (an unanswered
request) or rejects it saying so. Before, such a file read 0 records, 0 rejects, and said nothing."""

from __future__ import annotations

import json
from pathlib import Path

from handwritten_records import OPENAI_BATCH_INPUT, OPENAI_BATCH_OUTPUT
from log_files import write_json, write_jsonl
from test_adapter_cline import HISTORY

from trajectory_platform.traces.ingest import ingest_paths


def test_a_request_read_with_its_answer_is_named_in_the_summary(tmp_path: Path) -> None:
    requests = write_jsonl(tmp_path, "in.jsonl", OPENAI_BATCH_INPUT)
    answers = write_jsonl(tmp_path, "out.jsonl", OPENAI_BATCH_OUTPUT)
    result = ingest_paths([tmp_path])
    assert result.records_in == len(result.episodes) + len(result.rejects) == 2
    assert result.summary()["read_with_other_records"] == {str(requests): {str(answers): 2}}


def test_a_request_file_ingested_without_its_answers_file_reads_each_request_alone(tmp_path: Path) -> None:
    requests = write_jsonl(tmp_path, "in.jsonl", OPENAI_BATCH_INPUT)
    write_jsonl(tmp_path, "out.jsonl", OPENAI_BATCH_OUTPUT)
    result = ingest_paths([requests])
    assert result.records_in == 2 and result.rejects == []
    assert result.summary()["read_with_other_records"] == {}
    by_id = {json.loads(e.extra_json or "{}")["custom_id"]: e for e in result.episodes}
    assert set(by_id) == {"task-1", "task-2"}
    first = by_id["task-1"]
    assert [e.kind for e in first.events] == ["system", "user"], "the request as it would be alone"
    assert json.loads(first.extra_json or "{}")["batch"] == {
        "id": "task-1",
        "answer_not_ingested": "out.jsonl line 1",
    }


def test_the_answers_file_alone_still_reads_each_answer_with_its_request(tmp_path: Path) -> None:
    write_jsonl(tmp_path, "in.jsonl", OPENAI_BATCH_INPUT)
    answers = write_jsonl(tmp_path, "out.jsonl", OPENAI_BATCH_OUTPUT)
    result = ingest_paths([answers])
    (episode,) = result.episodes
    assert [e.kind for e in episode.events] == ["system", "user", "assistant"]
    assert [r.reason for r in result.rejects] == ["failed model call"]


def _task(root: Path) -> Path:
    task = root / "1735000000000"
    task.mkdir()
    write_json(task, "api_conversation_history.json", HISTORY)
    write_json(task, "task_metadata.json", {"model_usage": [{"model_id": "m-1"}]})
    write_json(task, "ui_messages.json", [{"type": "say", "say": "completion_result", "text": "Fixed."}])
    return task


def test_cline_companions_read_with_their_history_are_named_in_the_summary(tmp_path: Path) -> None:
    _task(tmp_path)
    result = ingest_paths([tmp_path], relative_to=tmp_path)
    assert result.records_in == 1 and len(result.episodes) == 1 and result.rejects == []
    history = "1735000000000/api_conversation_history.json"
    assert result.summary()["read_with_other_records"] == {
        "1735000000000/task_metadata.json": {history: 1},
        "1735000000000/ui_messages.json": {history: 1},
    }


def test_a_cline_companion_ingested_without_its_history_is_a_reject_naming_it(tmp_path: Path) -> None:
    task = _task(tmp_path)
    result = ingest_paths([task / "ui_messages.json"])
    assert result.records_in == 1 and result.episodes == []
    (reject,) = result.rejects
    assert reject.reason == "companion not ingested"
    assert reject.detail == (
        "ui_messages.json is read with the api_conversation_history.json beside it, "
        "which this run does not read"
    )
