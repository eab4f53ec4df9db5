"""A ``task_ids.json`` beside the logs links the episodes whose records name no task
(traces/task_map.py): the first matching pattern of the nearest map gives the id, a record's own id
wins, the map is never read as a log, and a map that cannot be read is one reject while the logs
go on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from trajectory_platform.traces.ingest import (
    IngestResult,
    discover_log_files,
    ingest_paths,
    ingest_to,
    sample_logs_root,
)
from trajectory_platform.traces.task_map import TASK_MAP_FILE

CLAUDE_CODE = sample_logs_root() / "2026-11-03" / "claude-code-5b0c8d2e-sample.jsonl"
MESSAGES = [{"role": "user", "content": "fix add() in calc/ops.py"}, {"role": "assistant", "content": "done"}]


def chat_log(path: Path, records: list[tuple[str, dict]]) -> Path:
    """OpenAI chat records, one per line: (own id, extra top-level fields)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps({"id": own, "messages": MESSAGES, **extra}) + "\n" for own, extra in records)
    )
    return path


def task_map(folder: Path, entries: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / TASK_MAP_FILE
    path.write_text(json.dumps(entries))
    return path


def tasks(result: IngestResult) -> dict[str, str | None]:
    assert result.records_in == result.normalized + len(result.rejects)
    return {e.episode_id: e.task.fixture_id for e in result.episodes}


def test_a_map_links_the_logs_that_name_no_task(tmp_path: Path):
    logs = tmp_path / "logs"
    (logs / "claude").mkdir(parents=True)
    shutil.copy(CLAUDE_CODE, logs / "claude" / CLAUDE_CODE.name)
    chat_log(logs / "chat.jsonl", [("plain", {}), ("own", {"metadata": {"task_id": "its-own"}})])
    task_map(logs, {"claude/*": "calc-add", "*": "fix-parser-7"})
    result = ingest_paths([logs])
    assert result.rejects == [], "the map is not read as a log"
    assert tasks(result) == {
        "claude-code:5b0c8d2e-sample": "calc-add",
        "openai:plain": "fix-parser-7",
        "openai:own": "its-own",
    }, "the first matching pattern gives the id; a record that names its task keeps it"
    streamed, _ = ingest_to([logs], tmp_path / "out")
    table = pq.read_table(tmp_path / "out" / "traces.parquet").to_pylist()
    assert streamed.records_in == 3
    assert {r["episode_id"]: r["task"]["fixture_id"] for r in table} == tasks(result)


def test_the_nearest_map_governs_and_none_above_the_folder_given(tmp_path: Path):
    logs = tmp_path / "logs"
    task_map(tmp_path, {"*": "above-the-source"})
    task_map(logs, {"*": "outer"})
    task_map(logs / "sub", {"b*.jsonl": "inner-b", "*.jsonl": "inner"})
    task_map(logs / "other", {"nothing-*": "never"})
    chat_log(logs / "a.jsonl", [("a", {})])
    chat_log(logs / "sub" / "b.jsonl", [("b", {})])
    chat_log(logs / "sub" / "deeper" / "c.jsonl", [("c", {})])
    chat_log(logs / "other" / "d.jsonl", [("d", {})])
    assert tasks(ingest_paths([logs])) == {
        "openai:a": "outer",
        "openai:b": "inner-b",
        "openai:c": "inner",
        "openai:d": None,
    }, "a subfolder's map replaces its parent's, for its logs and those below"
    assert tasks(ingest_paths([logs / "a.jsonl"])) == {"openai:a": "outer"}, (
        "a file given alone: its folder's map"
    )
    assert tasks(ingest_paths([logs / "sub" / "deeper"])) == {"openai:c": None}, (
        "no map above the folder given"
    )


def test_the_asset_reads_a_map_at_the_source_root(tmp_path: Path):
    day = tmp_path / "2026-11-03"
    chat_log(day / "chat.jsonl", [("plain", {})])
    task_map(tmp_path, {"2026-11-03/*": "calc-add"})
    result = ingest_paths(discover_log_files(day), relative_to=tmp_path)  # as raw_traces calls it
    assert tasks(result) == {"openai:plain": "calc-add"}
    assert discover_log_files(tmp_path / TASK_MAP_FILE) == [] and TASK_MAP_FILE not in {
        p.name for p in discover_log_files(tmp_path)
    }


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{"*": "calc-add",}', "the map is not JSON: "),
        (b'["calc-add"]', "the map is a list of 1 item; expected an object of pattern: task id"),
        (b'{"*": 7}', "entry 1 maps to 7; expected a task id"),
        (b'{"a*": "x", "*": "  "}', "entry 2 maps to a string of 2 characters; expected a task id"),
        (b'{"": "calc-add"}', "entry 1 has an empty pattern"),
        (b'{"*": "\xff"}', "the map is not UTF-8 text"),
    ],
)
def test_a_map_that_cannot_be_read_is_one_reject_and_the_logs_go_on(
    tmp_path: Path, content: bytes, said: str
):
    logs = tmp_path / "logs"
    chat_log(logs / "a.jsonl", [("a", {})])
    chat_log(logs / "sub" / "b.jsonl", [("b", {})])
    (logs / TASK_MAP_FILE).write_bytes(content)
    result = ingest_paths([logs])
    assert tasks(result) == {"openai:a": None, "openai:b": None}
    (reject,) = result.rejects
    assert (reject.source_file, reject.reason) == (str(logs / TASK_MAP_FILE), "bad task map")
    assert reject.detail is not None and reject.detail.startswith(said)


def test_a_map_linked_from_outside_the_source_is_not_read(tmp_path: Path):
    outside = task_map(tmp_path / "elsewhere", {"*": "calc-add"})
    logs = tmp_path / "logs"
    chat_log(logs / "a.jsonl", [("a", {})])
    (logs / TASK_MAP_FILE).symlink_to(outside)
    result = ingest_paths([logs])
    assert tasks(result) == {"openai:a": None}
    (reject,) = result.rejects
    assert (reject.reason, reject.detail) == (
        "bad task map",
        "the map is a link out of the source; it was not read",
    )
