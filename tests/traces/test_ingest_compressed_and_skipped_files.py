"""Compressed logs and files that are not logs: a ``.jsonl.gz`` (or ``.json.gz``, ...) is read
decompressed, as the same log uncompressed would be; any other file in a folder is counted in the
summary's ``skipped_files`` by suffix, so no file is passed over unnoticed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq

from trajectory_platform.cli import main
from trajectory_platform.traces.ingest import ingest_paths

USER, ANSWER = {"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}


def chat(record_id: str) -> dict:
    return {"id": record_id, "messages": [USER, ANSWER]}


def jsonl(*records: dict) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def logs_folder(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "day.jsonl.gz").write_bytes(gzip.compress(jsonl(chat("g1"), chat("g2")), mtime=0))
    (logs / "messages.JSON.GZ").write_bytes(gzip.compress(json.dumps([USER, ANSWER]).encode(), mtime=0))
    (logs / "plain.jsonl").write_bytes(jsonl(chat("p1")))
    (logs / "notes.txt").write_text("not a log")
    (logs / "history.md").write_text("# an Aider chat history: not a log")
    (logs / "README").write_text("about these logs")
    return logs


def test_gzip_logs_are_read_decompressed_and_other_files_are_counted(tmp_path: Path):
    logs = logs_folder(tmp_path)
    result = ingest_paths([logs], relative_to=logs)
    read = sorted((e.source_file, e.source_line, e.source_path) for e in result.episodes)
    assert read == [
        ("day.jsonl.gz", 1, None),
        ("day.jsonl.gz", 2, None),
        ("messages.JSON.GZ", None, "$"),  # a bare message list: one document
        ("plain.jsonl", 1, "$"),  # a file of one line is one document too, at its line 1
    ]
    assert {"openai:g1", "openai:g2", "openai:p1"} < {e.episode_id for e in result.episodes}
    assert result.rejects == [] and result.files_read == 3
    compressed = sum((logs / n).stat().st_size for n in ("day.jsonl.gz", "messages.JSON.GZ"))
    assert result.bytes_read == compressed + (logs / "plain.jsonl").stat().st_size  # bytes on disk
    assert result.summary()["skipped_files"] == {"(no suffix)": 1, ".md": 1, ".txt": 1}


def test_a_gzip_log_that_cannot_be_decompressed_is_one_reject(tmp_path: Path):
    whole = gzip.compress(jsonl(*(chat(f"c{i}") for i in range(200))), mtime=0)
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "fake.jsonl.gz").write_bytes(jsonl(chat("x")))  # named gzip, but plain text
    (tmp_path / "ok.jsonl").write_bytes(jsonl(chat("ok")))
    result = ingest_paths([tmp_path], relative_to=tmp_path)
    assert [e.episode_id for e in result.episodes if e.source_file == "ok.jsonl"] == ["openai:ok"]
    rejects = {(r.source_file, r.reason) for r in result.rejects}
    assert rejects == {("cut.jsonl.gz", "unreadable file"), ("fake.jsonl.gz", "unreadable file")}
    assert result.records_in == len(result.episodes) + len(result.rejects)


def test_cli_reads_a_named_gzip_log_and_reports_skipped_files(tmp_path: Path, capsys):
    logs = logs_folder(tmp_path)
    assert main(["ingest", str(logs / "day.jsonl.gz"), "--out", str(tmp_path / "one"), "--no-progress"]) == 0
    assert pq.read_table(tmp_path / "one" / "traces.parquet").num_rows == 2
    capsys.readouterr()
    assert main(["ingest", str(logs), "--out", str(tmp_path / "all"), "--no-progress"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["skipped_files"] == {"(no suffix)": 1, ".md": 1, ".txt": 1}
    assert "skipped 3 file(s) not named as logs: (no suffix) (1), .md (1), .txt (1)" in captured.err
    archive = tmp_path / "logs.gz"  # a gzip file not named as a log is still refused at the door
    archive.write_bytes(gzip.compress(b"{}", mtime=0))
    assert main(["ingest", str(archive), "--out", str(tmp_path / "no"), "--no-progress"]) == 2
