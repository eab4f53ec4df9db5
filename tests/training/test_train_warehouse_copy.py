"""``train`` on the warehouse copy of ``token_masked_dataset``: the Parquet a pipeline run left under
``<workdir>/parquet/``, read with the manifest the asset wrote under ``<workdir>/artifacts/`` only
when that manifest records the copy's rows; a dataset with no manifest anywhere is refused with
every place looked named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from dagster import materialize
from test_dataset_asset import training_mixture_stub

from trajectory_platform.assets.dataset import token_masked_dataset
from trajectory_platform.cli import main
from trajectory_platform.resources import build_resources
from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.training.data.manifest_files import ROWS_DIGEST_KEY

COPY = Path("parquet") / "token_masked_dataset" / "all.parquet"
ARTIFACT = Path("artifacts") / "token_masked_dataset" / "manifest.json"


@pytest.fixture(scope="module")
def pipeline_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workdir where the embedded pipeline materialized ``token_masked_dataset`` (two examples)."""
    workdir = tmp_path_factory.mktemp("pipeline")
    assert materialize(
        [training_mixture_stub, token_masked_dataset], resources=build_resources(workdir)
    ).success
    return workdir


def _train(dataset: Path, out: Path, model: Path) -> int:
    argv = ["train", "--dataset", str(dataset), "--out", str(out), "--model", str(model)]
    return main([*argv, "--max-steps", "2", "--batch-examples", "2", "--capacity", "1024", "--threads", "1"])


def _copied(workdir: Path, into: Path, *parts: Path) -> Path:
    """``parts`` of ``workdir`` copied under ``into``: a second workdir to spoil, the first untouched."""
    for part in parts:
        (into / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(workdir / part, into / part)
    return into


def test_train_reads_the_warehouse_copy_with_the_asset_manifest(
    pipeline_workdir, eval_workdir, tmp_path, capsys
):
    out = tmp_path / "ckpt"
    assert _train(pipeline_workdir / COPY, out, eval_workdir / "models" / "default_base") == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["steps"] == 2
    declared = json.loads((out / "training_manifest.json").read_text())["corpus"]["dataset_manifest"]
    artifact = json.loads((pipeline_workdir / ARTIFACT).read_text())
    assert declared == artifact  # the asset's manifest, provenance and tokenizer included
    assert declared["provenance"]["verified"] is True


def test_train_refuses_an_artifact_manifest_of_another_materialization(pipeline_workdir, tmp_path, capsys):
    workdir = _copied(pipeline_workdir, tmp_path / "wd", COPY, ARTIFACT)
    write_parquet(pq.read_table(workdir / COPY).slice(0, 1), workdir / COPY)  # a later run's table
    assert _train(workdir / COPY, tmp_path / "ckpt", tmp_path / "no-model") == 2
    err = capsys.readouterr().err
    assert f"{workdir / ARTIFACT} describes another materialization than {workdir / COPY}" in err
    assert not (tmp_path / "ckpt").exists()


def test_train_refuses_an_artifact_manifest_that_records_no_rows(pipeline_workdir, tmp_path, capsys):
    workdir = _copied(pipeline_workdir, tmp_path / "wd", COPY, ARTIFACT)
    manifest = json.loads((workdir / ARTIFACT).read_text())
    del manifest[ROWS_DIGEST_KEY]  # what the asset wrote before it recorded its rows
    (workdir / ARTIFACT).write_text(json.dumps(manifest))
    assert _train(workdir / COPY, tmp_path / "ckpt", tmp_path / "no-model") == 2
    assert f"{workdir / ARTIFACT}: records no {ROWS_DIGEST_KEY}" in capsys.readouterr().err


def test_train_names_every_place_it_looked_for_a_missing_manifest(pipeline_workdir, tmp_path, capsys):
    workdir = _copied(pipeline_workdir, tmp_path / "wd", COPY)
    dataset = workdir / COPY
    assert _train(dataset, tmp_path / "ckpt", tmp_path / "no-model") == 2
    looked = f"no dataset manifest at {dataset}.manifest.json or {workdir / ARTIFACT}"
    assert f"{dataset}: carries no provenance ({looked}" in capsys.readouterr().err
