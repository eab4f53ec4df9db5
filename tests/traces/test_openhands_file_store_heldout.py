"""Validation half of OpenHands' file-store sessions (``test_openhands_file_store.py``)."""

from __future__ import annotations

from pathlib import Path

from test_openhands_file_store import session

from trajectory_platform.traces.ingest import ingest_paths


def test_the_sessions_metadata_is_read_with_it(tmp_path: Path):
    session(tmp_path, count=4, metadata=True)
    result = ingest_paths([tmp_path])
    assert (len(result.episodes), result.rejects) == (1, [])
    assert sum(sum(read.values()) for read in result.read_with_other_records.values()) == 4


def test_a_lost_event_rejects_the_session_naming_it(tmp_path: Path):
    folder = session(tmp_path, count=5)
    (folder / "3.json").unlink()
    result = ingest_paths([tmp_path])
    assert result.episodes == []
    (reject,) = result.rejects
    assert reject.reason == "message missing" and reject.detail.startswith(
        "events/3.json is not in the folder"
    )


def test_the_folder_without_its_first_event(tmp_path: Path):
    folder = session(tmp_path, count=4)
    (folder / "0.json").unlink()
    result = ingest_paths([folder])
    assert result.episodes == []
    (reject,) = result.rejects
    assert reject.reason == "message missing" and reject.detail.startswith(
        "events/0.json is not in the folder"
    )
