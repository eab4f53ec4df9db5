"""Writing a log file for an adapter test and reading its one episode back, shared by the adapter
tests of the formats whose records are built in Python (handwritten_records.py)."""

from __future__ import annotations

import json
from pathlib import Path

from trajectory_platform.traces.ingest import ingest_paths
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
