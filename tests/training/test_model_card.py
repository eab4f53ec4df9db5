"""The checkpoint's model card: written when training ends, given the decision where the scorecard is made."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import yaml

from trajectory_platform.cli import main
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.checkpoint import checkpoint_digest
from trajectory_platform.training.optim.model import default_base_dir
from trajectory_platform.training.optim.model_card import MODEL_CARD, model_card
from trajectory_platform.training.optim.runner import TrainRequest, run_training

SCORECARD = {
    "decision": "hold",
    "reasons": ["acceptance difference 0.0 [-0.2, 0.2] does not exclude 0"],
    "n": 12,
    "acceptance": {
        "candidate": 0.25,
        "baseline": 0.25,
        "difference": {"estimate": 0.0, "ci_low": -0.2, "ci_high": 0.2},
    },
    "recovery": None,
    "retention": {"candidate": 1.0, "baseline": 1.0, "difference": None},
}


def _tokens() -> pa.Table:
    rows = []
    for index in range(6):
        ids = [1, 20 + index, 30, 40, 5, 40, 30, 2]
        labels = [IGNORE_INDEX] * 5 + ids[5:]
        rows.append(
            {"example_id": f"ex{index}", "episode_id": f"ep{index}", "input_ids": ids, "labels": labels}
        )
    return pa.Table.from_pylist(rows)


def test_card_reads_the_manifest_and_the_scorecard():
    manifest = {
        "corpus": {"dataset_digest": "d" * 64, "corpus_version": "c" * 64, "member_count": 5},
        "update": {"base_model": "/m/base", "base_digest": "b" * 64, "objective": "sft"},
        "results": {"steps": 3, "train_loss_first": 9.5, "train_loss_last": 7.25, "validation": []},
        "candidate": {"path": "/ckpt/sft-1", "artifact_digest": "a" * 64, "format": "full"},
    }
    before = model_card(manifest)
    assert "b" * 64 in before and "d" * 64 in before and "c" * 64 in before and "a" * 64 in before
    assert "9.5000 -> 7.2500" in before and "No scorecard yet" in before
    after = model_card(manifest, SCORECARD, report="/r/report.html")
    assert "**Release decision: hold**" in after and SCORECARD["reasons"][0] in after
    assert "| acceptance (tests pass) | 0.2500 | 0.2500 | 0.0000 [-0.2000, 0.2000] |" in after
    assert "| recovery (after an injected fault) | n/a | n/a | n/a |" in after
    assert "/r/report.html" in after and "No scorecard yet" not in after
    assert yaml.safe_load(after.split("---\n")[1])["library_name"] == "transformers"


def test_training_writes_the_card_and_evaluation_adds_the_decision(
    eval_workdir: Path, tmp_path: Path, capsys
):
    out = tmp_path / "ckpt"
    outcome = run_training(TrainRequest(out=out, workdir=eval_workdir, max_steps=1, threads=1), _tokens())
    card = (out / MODEL_CARD).read_text()
    assert outcome.artifact_digest in card and outcome.manifest["update"]["base_digest"] in card
    assert outcome.manifest["corpus"]["dataset_digest"] in card and "No scorecard yet" in card
    base = str(default_base_dir(eval_workdir))
    argv = ["evaluate", "--candidate", str(out), "--baseline", base, "--out", str(tmp_path / "eval")]
    argv += ["--episodes", "1", "--recovery-episodes", "0", "--retention-episodes", "0"]
    assert main([*argv, "--max-steps", "1", "--max-new-tokens", "4"]) == 0
    decision = json.loads((tmp_path / "eval" / "scorecard.json").read_text())["decision"]
    card = (out / MODEL_CARD).read_text()
    assert f"**Release decision: {decision}**" in card and "No scorecard yet" not in card
    assert checkpoint_digest(out) == outcome.artifact_digest  # the card is not part of the artifact
