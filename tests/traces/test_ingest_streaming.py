"""``ingest_to`` writes the bytes the in-memory ingest writes, for any batch size, holding one batch.

The corpus mixes every sample format with duplicated ids (a re-delivered file: byte-identical
duplicates named ``~digest``, ``~digest.2``; an edited copy: another digest) and ids that sort
between a duplicated id and its renamed form, so renaming, the sorted runs and the merge levels
(batch 1 makes more runs than one merge takes) are all exercised.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from trajectory_platform.cli import main
from trajectory_platform.traces.ingest import ingest_paths, ingest_to, sample_logs_root
from trajectory_platform.traces.ingest_settings import IngestSettings
from trajectory_platform.traces.spill import FAN_IN


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logs")
    shutil.copytree(sample_logs_root(), root / "samples")
    native = (sample_logs_root() / "2026-11-01" / "native.jsonl").read_text(encoding="utf-8")
    (root / "again").mkdir()
    (root / "again" / "native.jsonl").write_text(native, encoding="utf-8")  # byte-identical duplicates
    (root / "again" / "native-copy.jsonl").write_text(native, encoding="utf-8")
    records = [json.loads(line) for line in native.splitlines() if line.strip()]
    edited = [{**r, "extra_json": json.dumps({"edited": True})} for r in records]
    between = [{**r, "episode_id": r["episode_id"] + suffix} for r in records for suffix in ("_b", "}", "-a")]
    (root / "again" / "native-edited.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in edited + between), encoding="utf-8"
    )
    return root


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_same_bytes_as_the_in_memory_ingest_for_any_batch_size(corpus: Path, tmp_path: Path) -> None:
    whole = ingest_paths([corpus])
    reference = whole.write(tmp_path / "whole")
    ids = [e.episode_id for e in whole.episodes]
    assert len(ids) > FAN_IN  # batch 1 needs more than one merge level
    assert any(i.endswith(".2") for i in ids) and sum("~" in i for i in ids) >= 3  # renamed duplicates
    for rows in (1, 3, 10_000):
        result, digests = ingest_to([corpus], tmp_path / f"b{rows}", settings=IngestSettings(batch_rows=rows))
        assert digests == reference, rows
        assert result.summary() == whole.summary() and not result.episodes
        assert not [
            p.name for p in (tmp_path / f"b{rows}").iterdir() if p.name.startswith(".")
        ]  # spill removed
    table = pq.read_table(tmp_path / "b1" / "traces.parquet")
    assert table.column("episode_id").to_pylist() == sorted(ids)


def test_the_ingest_command_takes_the_batch_size(corpus: Path, tmp_path: Path, capsys) -> None:
    assert (
        main(["ingest", str(corpus), "--out", str(tmp_path / "a"), "--batch-rows", "2", "--no-progress"]) == 0
    )
    assert main(["ingest", str(corpus), "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    for name in ("traces.parquet", "rejects.parquet"):
        assert sha(tmp_path / "a" / name) == sha(tmp_path / "b" / name)
    assert main(["ingest", str(corpus), "--out", str(tmp_path / "c"), "--batch-rows", "0"]) == 2
    assert "batch_rows must be a whole number >= 1" in capsys.readouterr().err
