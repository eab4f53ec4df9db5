"""``trajectory-platform split``: three tables written, JSON summary last, user errors named."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from splits_mixture_factory import gym_corpus

from trajectory_platform.cli import main
from trajectory_platform.gym.library import build_library
from trajectory_platform.traces.parquet import write_parquet


def test_split_cli_writes_tables_and_summary(tmp_path: Path, capsys):
    corpus, ids = gym_corpus(build_library(0)[::8])
    write_parquet(corpus, tmp_path / "corpus.parquet")
    out = ["--out", str(tmp_path / "out"), "--workdir", str(tmp_path / "workdir")]
    assert main(["split", str(tmp_path / "corpus.parquet"), *out]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["episodes"] == len(ids) == sum(summary["split_counts"].values())
    assert summary["straddling_closures"] == 0 and summary["within_bounds"] is True
    assert summary["reserved_tool_families"] == ["alias"]
    for name in ("split_assignments", "training_mixture", "preference_pairs"):
        assert pq.read_table(tmp_path / "out" / f"{name}.parquet").num_rows > 0


def test_split_cli_names_missing_columns(tmp_path: Path, capsys):
    corpus, _ = gym_corpus(build_library(0)[:2])
    write_parquet(corpus.drop(["sink", "role"]), tmp_path / "bare.parquet")
    assert main(["split", str(tmp_path / "bare.parquet"), "--out", str(tmp_path / "out")]) == 2
    assert "missing columns ['sink', 'role']" in capsys.readouterr().err


def test_split_cli_joins_verdicts_onto_bare_traces(tmp_path: Path, capsys):
    corpus, ids = gym_corpus(build_library(0)[::16])
    verdict_columns = ["sink", "role", "t_div", "t_rec", "target_turns"]
    write_parquet(corpus.drop(verdict_columns), tmp_path / "traces.parquet")
    # Verdicts in another order, as `trajectory-platform verify` may write them.
    write_parquet(
        corpus.select(["episode_id", *verdict_columns]).sort_by([("episode_id", "descending")]),
        tmp_path / "verdicts.parquet",
    )
    argv = ["split", str(tmp_path / "traces.parquet"), "--verdicts", str(tmp_path / "verdicts.parquet")]
    assert main([*argv, "--out", str(tmp_path / "out"), "--workdir", str(tmp_path / "workdir")]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["episodes"] == len(ids) and summary["sft_rows"] > 0
