"""Writing a log file for an adapter test and reading its one episode back, shared by the adapter
tests of the formats whose records are built in Python (handwritten_records.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trajectory_platform.traces.ingest import IngestResult, ingest_paths
from trajectory_platform.traces.record import Episode


def write_jsonl(folder: Path, name: str, records: list) -> Path:
    """``records`` as a JSONL file ``folder/name``."""
    path = folder / name
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def write_json(folder: Path, name: str, document: object) -> Path:
    """``document`` as one JSON file ``folder/name``."""
    path = folder / name
    path.write_text(json.dumps(document))
    return path


def one_episode(path: Path) -> Episode:
    """The one episode ``path`` holds, asserting nothing in it was rejected."""
    result = ingest_paths([path])
    assert result.rejects == [], [(r.reason, r.detail) for r in result.rejects]
    (episode,) = result.episodes
    return episode


def call_rows(path: Path) -> list[tuple[Any, ...]]:
    """Each event of the one episode ``path`` holds as (kind, content, its calls as (id, name,
    parsed arguments), the call id it answers): what a reader must get right of a turn."""
    return [
        (
            e.kind,
            e.content,
            [(c.id, c.name, json.loads(c.arguments or "null")) for c in e.tool_calls],
            e.tool_call_id,
        )
        for e in one_episode(path).events
    ]


def read_accounted(path: Path) -> IngestResult:
    """What ingest makes of ``path`` (a file or a folder), asserting every record is accounted:
    records in = normalized + rejected (a conversation split off a run counts as a record)."""
    result = ingest_paths([path])
    assert result.records_in == result.normalized + len(result.rejects)
    return result


def episodes_by_id(path: Path) -> dict[str, Episode]:
    """The episodes ``path`` holds by id, asserting nothing in it was rejected."""
    result = read_accounted(path)
    assert result.rejects == [], [(r.reason, r.detail) for r in result.rejects]
    return {episode.episode_id: episode for episode in result.episodes}


def langsmith_llm_run(
    run_id: str, start: str, messages: list[dict[str, Any]], answer: dict[str, Any]
) -> dict[str, Any]:
    """A LangSmith ``llm`` run of trace ``tr``, its messages as role dicts."""
    return {
        "id": run_id,
        "trace_id": "tr",
        "parent_run_id": "tr",
        "run_type": "llm",
        "name": "ChatOpenAI",
        "inputs": {"messages": [messages]},
        "outputs": {"generations": [[{"text": "", "message": answer}]]},
        "start_time": start,
        "extra": {"invocation_params": {"model": "gpt-4o"}},
    }
