"""The public ingestion API: conservation, determinism, partition dates, discovery, ids, CLI."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from trajectory_platform.cli import main
from trajectory_platform.traces.drops import Drop
from trajectory_platform.traces.ingest import (
    Reject,
    discover_log_files,
    ingest_paths,
    partition_date_for,
    sample_logs_root,
)
from trajectory_platform.traces.record import Episode, Event
from trajectory_platform.traces.schema import EPISODE_SCHEMA, REJECT_SCHEMA, table_to_episodes

MIXED = sample_logs_root() / "2026-11-03" / "openai_mixed_good_and_bad.jsonl"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_conservation_on_samples_and_real_corpus(real_corpus):
    samples = ingest_paths([sample_logs_root()])
    for result in (samples, real_corpus):
        assert result.records_in == len(result.episodes) + len(result.rejects)
    assert (samples.records_in, len(samples.episodes), len(samples.rejects)) == (24, 19, 5)
    assert sum(samples.counts_by_format.values()) == len(samples.episodes)


def test_tables_match_the_schemas_and_round_trip():
    result = ingest_paths([sample_logs_root()])
    episodes, rejects = result.to_tables()
    assert episodes.schema.equals(EPISODE_SCHEMA) and rejects.schema.equals(REJECT_SCHEMA)
    assert episodes.column("episode_id").to_pylist() == sorted(e.episode_id for e in result.episodes)
    assert len(set(episodes.column("episode_id").to_pylist())) == episodes.num_rows
    by_id = {e.episode_id: e for e in result.episodes}
    assert all(by_id[e.episode_id] == e for e in table_to_episodes(episodes))


def test_same_input_gives_identical_parquet_bytes(tmp_path, real_root):
    inputs = [sample_logs_root(), real_root / "tau-bench", real_root / "openhands"]
    first = ingest_paths(inputs).write(tmp_path / "a")
    second = ingest_paths(list(reversed(inputs))).write(tmp_path / "b")  # order of inputs is irrelevant
    assert first == second
    assert digest(tmp_path / "a" / "traces.parquet") == digest(tmp_path / "b" / "traces.parquet")
    assert first["traces.parquet"] == digest(tmp_path / "a" / "traces.parquet")
    rejects = pq.read_table(tmp_path / "a" / "rejects.parquet").to_pylist()
    located = [(Path(r["source_file"]).name, r["source_line"]) for r in rejects]
    # sorted by file and line (where the checkout lies relative to ../shared does not matter)
    mixed = [entry for entry in located if entry[0] == "openai_mixed_good_and_bad.jsonl"]
    assert mixed[:2] == [("openai_mixed_good_and_bad.jsonl", 2), ("openai_mixed_good_and_bad.jsonl", 3)]


def test_partition_date_from_path_then_timestamps_never_mtime(tmp_path):
    assert partition_date_for("/logs/2026-11-02/agent/run.jsonl") == dt.date(2026, 11, 2)
    assert partition_date_for("/logs/2026-13-40/run.jsonl") is None  # not a real date
    stamped = Episode("e", "openai", "f", None, None, None)
    stamped.events = [
        Event(kind="user", timestamp="2026-10-05T23:30:00-02:00"),  # 2026-10-06 in UTC
        Event(kind="assistant", timestamp="1791158400"),  # Unix seconds: 2026-10-05
        Event(kind="assistant", timestamp="not a time"),
        Event(kind="assistant", timestamp="1" * 40),  # beyond any calendar: ignored, no crash
    ]
    assert partition_date_for("/logs/run.jsonl", stamped) == dt.date(2026, 10, 5)
    assert partition_date_for("/logs/run.jsonl", Episode("e", "openai", "f", None, None, None)) is None
    # the ingested episodes carry the folder's date; an explicit partition wins
    folder = tmp_path / "2026-09-30"
    folder.mkdir()
    shutil.copy(MIXED, folder / "log.jsonl")
    assert {e.partition_date for e in ingest_paths([folder]).episodes} == {dt.date(2026, 9, 30)}
    forced = ingest_paths([folder], partition_date=dt.date(2026, 1, 1))
    assert {e.partition_date for e in forced.episodes} | {r.partition_date for r in forced.rejects} == {
        dt.date(2026, 1, 1)
    }


def test_discover_log_files_is_sorted_and_skips_hidden(tmp_path):
    for name in (
        "b/2.jsonl",
        "a/1.traj",
        "a/notes.txt",
        ".cache/x.json",
        "c/.hidden.json",
        "d/run.traj.json",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = [p.relative_to(tmp_path).as_posix() for p in discover_log_files(tmp_path)]
    assert found == ["a/1.traj", "b/2.jsonl", "d/run.traj.json"]
    assert len(discover_log_files(sample_logs_root())) == 15


def test_duplicate_source_ids_get_a_content_digest(tmp_path):
    shutil.copy(MIXED, tmp_path / "a.jsonl")
    text = MIXED.read_text().replace('"content": "4"', '"content": "four"')
    (tmp_path / "b.jsonl").write_text(text)
    shutil.copy(MIXED, tmp_path / "c.jsonl")
    ids = sorted(e.episode_id for e in ingest_paths([tmp_path]).episodes)
    assert len(ids) == len(set(ids)) == 6
    assert [i for i in ids if i.startswith("openai:mixed-ok~")] == sorted(
        i for i in ids if i.startswith("openai:mixed-ok~")
    )
    again = sorted(e.episode_id for e in ingest_paths([tmp_path]).episodes)
    assert ids == again


def test_unknown_format_name_is_an_error():
    with pytest.raises(ValueError, match="unknown format"):
        ingest_paths([MIXED], fmt="yaml")


def test_cli_writes_both_tables_and_a_json_summary(tmp_path, capsys):
    code = main(["ingest", str(MIXED), str(sample_logs_root() / "2026-11-01"), "--out", str(tmp_path)])
    assert code == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert f"reject {MIXED}:2: truncated JSON (" in captured.err
    assert (summary["records_in"], summary["normalized"], summary["rejected"]) == (13, 8, 5)
    assert summary["counts_by_format"] == {"anthropic": 1, "native": 2, "openai": 5}
    assert summary["top_reject_reasons"]["truncated JSON"] == 1
    assert pq.read_table(tmp_path / "traces.parquet").num_rows == 8
    assert pq.read_table(tmp_path / "rejects.parquet").column("reason").to_pylist()[0] == "truncated JSON"
    assert summary["sha256"]["traces.parquet"] == digest(tmp_path / "traces.parquet")


def test_cli_forced_format_and_failures(tmp_path, capsys):
    assert main(["ingest", str(MIXED), "--format", "openai", "--out", str(tmp_path / "o")]) == 0
    capsys.readouterr()
    assert main(["ingest", str(tmp_path / "missing"), "--out", str(tmp_path / "x")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["ingest", str(tmp_path / "empty"), "--out", str(tmp_path / "y")]) == 2
    assert "no log records found" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_a_reject_is_a_drop_flattened_into_the_schema_columns(real_corpus):
    reject = Reject(source_file="a.jsonl", source_line=3, drop=Drop("truncated JSON", "input ends early"))
    row = reject.row()
    assert list(row) == REJECT_SCHEMA.names
    assert (row["reason"], row["detail"]) == ("truncated JSON", "input ends early")
    assert Reject(source_file="a.jsonl", drop=Drop("unreadable file")).row()["detail"] is None
    for result in (ingest_paths([sample_logs_root()]), real_corpus):
        assert result.rejects and all(isinstance(r.drop, Drop) and r.drop.reason for r in result.rejects)
        tally = result.tally()
        assert tally.balanced and tally.dropped == Counter(r.drop.reason for r in result.rejects)
        _, table = result.to_tables()
        assert table.select(["reason", "detail"]).to_pylist() == [
            {"reason": r.drop.reason, "detail": r.drop.detail or None}
            for r in sorted(result.rejects, key=Reject.sort_key)
        ]


def test_relative_to_records_source_files_independently_of_where_logs_live(tmp_path):
    from trajectory_platform.traces.ingest import ingest_paths, sample_logs_root

    tables = []
    for name in ("a", "b"):
        root = tmp_path / name
        shutil.copytree(sample_logs_root(), root)
        result = ingest_paths([root], relative_to=root)
        assert all(not e.source_file.startswith("/") for e in result.episodes)
        assert all(not r.source_file.startswith("/") for r in result.rejects)
        tables.append(result.to_tables())
    assert tables[0][0].equals(tables[1][0]) and tables[0][1].equals(tables[1][1])
