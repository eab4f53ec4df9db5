"""Redaction in bounded batches writes the bytes one batch writes, for any batch size.

The whole-input decisions must not change with the batch: a repository family whose *last* episode
declares a restricted licence blocks the family's earlier episodes too (the strictest licence of
the family), and the Λ_leak canary sample is drawn over every row. A leaked canary leaves no file.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from redact_factory import secret_episode

from trajectory_platform.curation.redact import LeakDetected, RedactionConfig, RedactSettings, redact_corpus
from trajectory_platform.curation.redact.corpus import corpus_tally, redact_files
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.traces.schema import episodes_to_table

MASTER = b"master"


def corpus(tmp_path: Path, n: int = 12) -> Path:
    episodes = [secret_episode(f"ep-{i:03d}") for i in range(n)]
    for index, episode in enumerate(episodes):
        episode.task.repo_family = "shared" if index % 3 == 0 else f"family-{index}"
        episode.task.license = "MIT"
    episodes[-3].task.license = "proprietary"  # family "shared": its earlier episodes are blocked too
    path = tmp_path / "verified.parquet"
    write_parquet(episodes_to_table(episodes), path)
    return path


def test_same_corpus_audit_and_leak_sample_for_batch_1_and_a_large_batch(tmp_path: Path) -> None:
    source = corpus(tmp_path)
    sample = {"leak_sample_fraction": 0.3, "leak_min_canaries": 0}
    whole = redact_corpus(pq.read_table(source), MASTER, settings=RedactSettings(**sample, batch_rows=10_000))
    write_parquet(whole.table, tmp_path / "whole.parquet")
    assert whole.audit.column("episode_id").to_pylist() == ["ep-000", "ep-003", "ep-006", "ep-009"]
    assert 0 < whole.leak.records_planted < whole.table.num_rows
    batched = redact_files([source], tmp_path / "b1.parquet", MASTER, RedactSettings(**sample, batch_rows=1))
    assert (tmp_path / "b1.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
    assert batched.audit.equals(whole.audit) and batched.findings_by_kind == whole.findings_by_kind
    assert batched.leak.as_dict() == whole.leak.as_dict()
    assert corpus_tally(batched) == corpus_tally(whole)
    timings = ("redact_seconds", "mb_per_s")
    assert {k: v for k, v in batched.stats.items() if k not in timings} == {
        k: v for k, v in whole.stats.items() if k not in timings
    }


def test_a_leak_found_in_any_batch_leaves_no_file(tmp_path: Path) -> None:
    source = corpus(tmp_path, 6)
    weak = RedactionConfig(entropy=False, pii=False)
    with pytest.raises(LeakDetected, match="sampled records"):
        redact_files([source], tmp_path / "out.parquet", MASTER, RedactSettings(batch_rows=2), weak)
    assert not list(tmp_path.glob("*out.parquet*"))


def test_batch_rows_is_checked() -> None:
    with pytest.raises(ValueError, match="batch_rows"):
        RedactSettings(batch_rows=0)
