"""Shared fixtures for the trace tests: the real public corpus (ingested once) and the samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajectory_platform.traces.ingest import IngestResult, discover_log_files, ingest_paths


@pytest.fixture(scope="session")
def real_corpus(real_root: Path) -> IngestResult:
    """The whole real corpus, ingested once for every test that inspects it."""
    return ingest_paths(discover_log_files(real_root))


@pytest.fixture(scope="session")
def real_file(real_corpus: IngestResult):
    """``real_file(relative)`` -> the episodes read from one real file (path under data/real)."""

    def pick(relative: str) -> list:
        found = [e for e in real_corpus.episodes if e.source_file.endswith("/" + relative)]
        assert found, f"no episode from {relative}"
        return found

    return pick
