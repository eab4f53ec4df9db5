"""A JSON Lines log is read a line at a time (``SourceFile.read``), with the records, rejects and
bytes of reading it whole; a JSON document is still read whole (it can only be parsed whole)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from trajectory_platform.traces.adapters import detect_format
from trajectory_platform.traces.adapters.base import RawRecord, SourceFile
from trajectory_platform.traces.ingest import (
    discover_log_files,
    file_digests,
    ingest_paths,
    ingest_to,
    sample_logs_root,
)
from trajectory_platform.traces.ingest_settings import IngestSettings

NATIVE = (sample_logs_root() / "2026-11-01" / "native.jsonl").read_text(encoding="utf-8").splitlines()[0]


def whole(path: Path, display: str | None = None) -> SourceFile:
    """The file read whole: what every file was before, the reference a streamed read must match."""
    return SourceFile(path, path.read_bytes(), display)


def framed(src: SourceFile) -> tuple[str | None, list[tuple]]:
    adapter = detect_format(src)
    records: list[RawRecord] = list(adapter.frame(src)) if adapter else []
    return adapter and adapter.name, [
        (r.line, r.json_path, r.value, r.error and (r.error.reason, r.error.detail), r.excerpt)
        for r in records
    ]


@pytest.fixture(scope="module")
def edge_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """JSONL that streams (bad, blank, CRLF and invalid UTF-8 lines among good ones, no final newline)
    and files that must not (one line, a broken first line, a document, UTF-16)."""
    root = tmp_path_factory.mktemp("edge")
    good = NATIVE.encode()
    files = {
        "mixed.jsonl": good
        + b"\n\n{not json\n"
        + good.replace(b"gym:", b"gym2:")
        + b"\r\n\xff\xfe\n"
        + good[:50],
        "tail.log.json": good + b"\n   \n\t\n" + good.replace(b"gym:", b"gym3:"),
        "one-line.jsonl": good + b"\n",
        "bad-first.jsonl": b"{oops\n" + good + b"\n",
        "array.json": b"[" + good + b",\n" + good + b"]\n",
        "pretty.json": json.dumps(json.loads(NATIVE), indent=2).encode(),
        "wide.jsonl": (NATIVE + "\n" + NATIVE.replace("gym:", "gym4:") + "\n").encode("utf-16-le"),
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    return root


def test_a_streamed_file_gives_the_records_of_the_whole_read(edge_cases: Path, real_root: Path) -> None:
    streamed = set()
    for path in [
        *discover_log_files(sample_logs_root()),
        *discover_log_files(edge_cases),
        *discover_log_files(real_root),
    ]:
        src = SourceFile.read(path)
        if src.data is None:
            streamed.add(path.name)
            assert src.fingerprint() == whole(path).fingerprint()
            assert src.size == path.stat().st_size
        assert framed(src) == framed(whole(path)), path
    assert {"mixed.jsonl", "tail.log.json", "native.jsonl", "otel_genai_events.jsonl"} <= streamed
    assert not streamed & {"one-line.jsonl", "bad-first.jsonl", "array.json", "pretty.json", "wide.jsonl"}


def test_a_log_larger_than_the_read_budget_ingests_identically(tmp_path: Path, monkeypatch) -> None:
    """A 12 MB log ingests with a few MB of Python memory (one line and one batch), and writes the
    bytes of reading the file whole."""
    record = json.loads(NATIVE)
    record["events"][0]["content"] = "x" * 100_000
    logs = tmp_path / "logs" / "2026-11-01"
    logs.mkdir(parents=True)
    lines = [json.dumps({**record, "episode_id": f"big:{i:04d}"}) for i in range(120)]
    (logs / "day.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    size = (logs / "day.jsonl").stat().st_size
    assert size > 12_000_000
    warm = tmp_path / "warm" / "2026-11-01"  # the first ingest imports what it needs (pandas: ~20 MB)
    warm.mkdir(parents=True)
    (warm / "day.jsonl").write_text(f"{NATIVE}\n{NATIVE}\n", encoding="utf-8")
    ingest_to([warm], tmp_path / "warm-out")
    tracemalloc.start()
    try:
        result, digests = ingest_to(
            [tmp_path / "logs"], tmp_path / "streamed", settings=IngestSettings(batch_rows=4)
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.normalized == 120 and result.bytes_read == size
    assert peak < size / 4, (peak, size)
    monkeypatch.setattr(SourceFile, "read", staticmethod(whole))
    reference = ingest_paths([tmp_path / "logs"])
    assert reference.summary() == result.summary()
    reference.write(tmp_path / "whole")
    assert file_digests(tmp_path / "whole") == digests


def test_a_streamed_file_that_stops_being_readable_ends_with_a_reject(tmp_path: Path) -> None:
    path = tmp_path / "gone.jsonl"
    path.write_text(f"{NATIVE}\n{NATIVE}\n", encoding="utf-8")
    src = SourceFile.read(path)
    assert src.data is None
    path.unlink()  # read from disk only when framed: the file is gone by then
    [record] = list(src.lines())
    assert (record.line, record.error and record.error.reason) == (1, "unreadable file")
