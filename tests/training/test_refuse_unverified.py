"""``mask`` and ``train`` refuse data nothing verified and redacted, unless the user opts out loudly.

Raw ingest output, an OpenAI JSONL, or a dataset whose manifest lacks the provenance is refused with
the file named and ``trajectory-platform curate`` suggested; ``--unsafe-unverified-input`` lets it
through with a warning, and the manifests downstream record ``verified: false``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trajectory_platform.cli import main
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.provenance import UNSAFE_FLAG, curated, with_provenance

OPENAI_ROW = {
    "messages": [
        {"role": "user", "content": "What is 2 + 2? Mail me at jane.doe@acme-robotics.com."},
        {"role": "assistant", "content": "4"},
    ]
}


@pytest.fixture(scope="module")
def tokenizer_dir(eval_workdir: Path) -> str:
    return str(eval_workdir / "models" / "default_base")


@pytest.fixture(scope="module")
def raw_ingest(tmp_path_factory) -> Path:
    """``trajectory-platform ingest`` output: the table the old README session masked."""
    root = tmp_path_factory.mktemp("raw")
    (root / "chat.jsonl").write_text(json.dumps(OPENAI_ROW) + "\n")
    assert main(["ingest", str(root / "chat.jsonl"), "--out", str(root / "ingest"), "--no-progress"]) == 0
    return root


def _mask(source: Path, out: Path, tokenizer_dir: str, *extra: str) -> int:
    argv = ["mask", str(source), "--out", str(out), "--tokenizer", tokenizer_dir, "--no-progress"]
    return main([*argv, *extra])


@pytest.mark.parametrize("name", ["ingest/traces.parquet", "chat.jsonl"])
def test_mask_refuses_raw_ingest_output_and_openai_jsonl(raw_ingest, tmp_path, tokenizer_dir, capsys, name):
    source = raw_ingest / name
    assert _mask(source, tmp_path / "masked.jsonl", tokenizer_dir) == 2
    err = capsys.readouterr().err
    assert f"{source}: carries no provenance" in err
    assert "trajectory-platform curate" in err and UNSAFE_FLAG in err
    assert not (tmp_path / "masked.jsonl").exists()


def test_mask_with_the_opt_out_warns_and_the_manifest_says_unverified(
    raw_ingest, tmp_path, tokenizer_dir, capsys
):
    out = tmp_path / "masked.jsonl"
    assert _mask(raw_ingest / "ingest" / "traces.parquet", out, tokenizer_dir, UNSAFE_FLAG) == 0
    assert "WARNING" in capsys.readouterr().err
    provenance = json.loads(Path(f"{out}.manifest.json").read_text())["provenance"]
    assert provenance["verified"] is False and provenance["redacted"] is False
    assert provenance["opt_out"] == UNSAFE_FLAG and provenance["by"] == "mask"


def test_mask_accepts_a_table_that_carries_curated_provenance(raw_ingest, tmp_path, tokenizer_dir):
    """What ``curate`` writes (the provenance in the table's schema) flows into the manifest."""
    import pyarrow.parquet as pq

    table = pq.read_table(raw_ingest / "ingest" / "traces.parquet")
    source = tmp_path / "training_mixture.parquet"
    write_parquet(with_provenance(table, curated("curate", fixture_seed=0)), source)
    out = tmp_path / "masked.jsonl"
    assert _mask(source, out, tokenizer_dir) == 0
    provenance = json.loads(Path(f"{out}.manifest.json").read_text())["provenance"]
    assert provenance == {
        "verified": True,
        "redacted": True,
        "by": "curate",
        "fixture_seed": 0,
        "input": str(source),
    }


def _toy_dataset(path: Path, manifest: dict | None) -> Path:
    labels = [IGNORE_INDEX] * 3 + [40, 2]
    rows = [{"example_id": f"e{i}", "input_ids": [1, 20 + i, 5, 40, 2], "labels": labels} for i in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if manifest is not None:
        Path(f"{path}.manifest.json").write_text(json.dumps(manifest))
    return path


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        (None, "carries no provenance"),
        ({"manifest_version": "token_masked_dataset/v1"}, "carries no provenance"),
        ({"provenance": {"verified": False, "redacted": False}}, '{"redacted": false, "verified": false}'),
        ({"provenance": {"verified": True, "redacted": False}}, '"redacted": false'),
    ],
)
def test_train_refuses_a_dataset_without_provenance_before_building_a_model(tmp_path, capsys, manifest, said):
    dataset = _toy_dataset(tmp_path / "masked.jsonl", manifest)
    workdir = tmp_path / "workdir"
    argv = ["train", "--dataset", str(dataset), "--out", str(tmp_path / "ck"), "--workdir", str(workdir)]
    assert main([*argv, "--max-steps", "1"]) == 2
    err = capsys.readouterr().err
    assert str(dataset) in err and said in err
    assert "trajectory-platform curate" in err and "OUT/dataset.jsonl" in err and UNSAFE_FLAG in err
    assert not workdir.exists() and not (tmp_path / "ck").exists()  # no model built, nothing written


def test_train_with_the_opt_out_records_unverified_in_the_training_manifest(tmp_path, eval_workdir, capsys):
    dataset = _toy_dataset(tmp_path / "masked.jsonl", {"manifest_version": "token_masked_dataset/v1"})
    out = tmp_path / "ck"
    argv = ["train", "--dataset", str(dataset), "--out", str(out), "--workdir", str(eval_workdir)]
    assert main([*argv, "--max-steps", "1", "--capacity", "64", UNSAFE_FLAG]) == 0
    assert "WARNING" in capsys.readouterr().err
    declared = json.loads((out / "training_manifest.json").read_text())["corpus"]["dataset_manifest"]
    assert declared["manifest_version"] == "token_masked_dataset/v1"  # the file's own manifest, kept
    assert declared["provenance"]["verified"] is False and declared["provenance"]["opt_out"] == UNSAFE_FLAG
