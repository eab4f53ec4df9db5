"""``trajectory-platform export``: from a curate folder or a workdir, refusing what is not curated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from dagster import AssetMaterialization, DagsterInstance

from trajectory_platform.cli import main
from trajectory_platform.curation.leak_report import LeakReport
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.traces.record import Episode, Event, TaskIdentity, ToolCall, ToolSpec
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row
from trajectory_platform.training.data.provenance import curated, with_provenance

DAGSTER_YAML = Path(__file__).resolve().parents[2] / "dagster.yaml"


def _mixture() -> pa.Table:
    rows = []
    for index in range(3):
        episode = Episode(
            episode_id=f"ep-{index}",
            source_format="openai",
            source_file="logs.jsonl",
            source_line=index + 1,
            source_path=None,
            partition_date=None,
            task=TaskIdentity(license="Apache-2.0"),
            tools=[ToolSpec("read_file", "Read a file.", '{"type":"object"}')],
            events=[
                Event("user", f"read file {index}"),
                Event("assistant", "", tool_calls=[ToolCall("c", "read_file", '{"file_path":"a.py"}')]),
                Event("tool", "x = 1", tool_call_id="c", status="ok"),
                Event("assistant", "x is 1"),
            ],
        )
        rows.append({**episode_row(episode), "split": "train", "target_turns": [1, 3]})
    fields = [*EPISODE_SCHEMA, pa.field("split", pa.string()), pa.field("target_turns", pa.list_(pa.int32()))]
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))


def _corpus() -> pa.Table:
    return pa.table(
        {
            "episode_id": ["ep-0", "ep-1", "ep-2"],
            "lineage_id": ["l0", "l1", "l2"],
            "license_tier": ["permissive"] * 3,
        }
    )


def _summary(capsys: pytest.CaptureFixture) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_exports_a_curate_folder_with_its_stage_yields_and_leak_rate(tmp_path: Path, capsys):
    source = tmp_path / "curated"
    provenance = curated("curate", canaries_injected=240, canaries_leaked=0)
    write_parquet(with_provenance(_mixture(), provenance), source / "split" / "training_mixture.parquet")
    write_parquet(_corpus(), source / "redacted" / "corpus.parquet")
    write_parquet(pa.table({"reason": ["license_blocked"]}), source / "redacted" / "license_audit.parquet")
    write_parquet(pa.table({"sink": ["admitted"] * 4 + ["failed"]}), source / "verify" / "verdicts.parquet")
    assert main(["export", str(source), "--out", str(tmp_path / "out"), "--name", "demo"]) == 0
    summary = _summary(capsys)
    assert summary["kept"] == 3 and summary["splits"] == {"train": 3} and summary["leak_rate"] == 0.0
    lines = (tmp_path / "out" / "chat.jsonl").read_text().splitlines()
    assert [json.loads(line)["lineage_id"] for line in lines] == ["l0", "l1", "l2"]
    card = (tmp_path / "out" / "hf" / "README.md").read_text()
    low, high = LeakReport(injected=240, leaked=0).interval
    assert f"[{low:.4f}, {high:.4f}]" in card and "0 of 240 planted" in card
    assert "| verify | 5 | 4 | 1 | `failed` 1 |" in card
    assert "| redact | 4 | 3 | 1 | `license_blocked` 1 |" in card
    assert 'license: "apache-2.0"' in card and "# demo" in card


def test_exports_a_workdir_with_what_each_asset_reported(tmp_path: Path, capsys, monkeypatch):
    workdir = tmp_path / "workdir"
    write_parquet(_mixture(), workdir / "parquet" / "training_mixture" / "all.parquet")
    write_parquet(_corpus(), workdir / "parquet" / "redacted_corpus" / "all.parquet")
    home = workdir / "dagster_home"
    home.mkdir()
    shutil.copy(DAGSTER_YAML, home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    leak = LeakReport(injected=500, leaked=0).as_dict()
    tally = {"records_in": 7, "kept": 3, "dropped": 4, "dropped_by_reason": {"failed": 4}}
    with DagsterInstance.from_config(str(home)) as instance:
        for asset, metadata in (("redacted_corpus", {"canaries": leak}), ("verified_traces", tally)):
            instance.report_runless_asset_event(AssetMaterialization(asset, metadata=metadata))
    assert main(["export", str(workdir), "--out", str(tmp_path / "out")]) == 0
    assert _summary(capsys)["kept"] == 3
    card = (tmp_path / "out" / "hf" / "README.md").read_text()
    assert "| verified_traces | 7 | 3 | 4 | `failed` 4 |" in card and "0 of 500 planted" in card
    assert '"by": "dagster"' in card


def test_refuses_a_mixture_that_is_not_curated_and_names_what_is_wrong(tmp_path: Path, capsys):
    write_parquet(_mixture(), tmp_path / "raw" / "split" / "training_mixture.parquet")
    assert main(["export", str(tmp_path / "raw"), "--out", str(tmp_path / "out")]) == 2
    assert "not a verified and redacted training mixture" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["export", str(tmp_path / "notes.txt"), "--out", str(tmp_path / "out")]) == 2
    assert "not a Parquet table" in capsys.readouterr().err
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "neither a curate output folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export", str(tmp_path / "raw"), "--out", str(tmp_path / "out"), "--rationale", "context"])
