"""The train command end to end on the embedded default model: SFT, LoRA, resume, DPO."""

from __future__ import annotations

import json
import random

import pytest
import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer

from trajectory_platform.cli import main
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.checkpoint import checkpoint_digest
from trajectory_platform.training.optim.model import build_default_model
from trajectory_platform.training.optim.runner import TrainRequest, run_training
from trajectory_platform.training.optim.train_manifest import missing_fields


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, lay_default_tokenizer):
    path = lay_default_tokenizer(tmp_path_factory.mktemp("workdir"))
    build_default_model(path)
    return path


def _rows(count: int, seed: int = 0) -> list[dict]:
    """A learnable toy task: the target turn repeats the context's tokens in reverse, then ends."""
    rng = random.Random(seed)
    rows = []
    for index in range(count):
        context = [rng.randrange(20, 300) for _ in range(rng.randint(3, 12))]
        target = [*reversed(context), 2]
        ids = [1, *context, 5, *target]
        labels = [IGNORE_INDEX] * (len(ids) - len(target)) + target
        rows.append(
            {"example_id": f"ex{index}", "episode_id": f"ep{index}", "input_ids": ids, "labels": labels}
        )
    return rows


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "masked.jsonl"
    rows = _rows(40)
    rows.append({"example_id": "empty", "input_ids": [1, 7, 8], "labels": [IGNORE_INDEX] * 3})
    lines = [json.dumps(r) for r in rows] + ["{not json"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _summary(capsys) -> dict:
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_sft_cli_trains_and_writes_a_loadable_checkpoint(workdir, dataset, tmp_path, capsys):
    out = tmp_path / "ckpt"
    code = main(
        [
            "train",
            "--dataset",
            str(dataset),
            "--out",
            str(out),
            "--max-steps",
            "8",
            "--workdir",
            str(workdir),
            "--capacity",
            "128",
            "--batch-examples",
            "8",
            "--eval-every",
            "4",
            "--unsafe-unverified-input",  # toy rows: no curation run vouches for them
        ]
    )
    assert code == 0
    summary = _summary(capsys)
    assert summary["train_loss_last"] < summary["train_loss_first"]
    assert summary["validation"]["target_count"] > 0 and summary["validation"]["loss"] > 0
    counts = summary["counts"]
    assert counts["rows_in"] == 42 and counts["rejected"] == 2
    assert (
        counts["rows_in"]
        == counts["train"] + counts["validation"] + counts["test_held_out"] + counts["rejected"]
    )
    manifest = json.loads((out / "training_manifest.json").read_text())
    assert missing_fields(manifest) == []
    assert manifest["candidate"]["artifact_digest"] == checkpoint_digest(out) == summary["artifact_digest"]
    model = AutoModelForCausalLM.from_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert model.get_input_embeddings().num_embeddings == len(tokenizer)


def test_lora_cli_writes_an_adapter_and_an_equivalent_merged_model(workdir, dataset, tmp_path, capsys):
    out = tmp_path / "lora"
    code = main(
        [
            "train",
            "--dataset",
            str(dataset),
            "--out",
            str(out),
            "--max-steps",
            "4",
            "--lora",
            "--lora-rank",
            "4",
            "--lora-targets",
            "q_proj,v_proj",
            "--workdir",
            str(workdir),
            "--capacity",
            "128",
            "--batch-examples",
            "8",
            "--lr",
            "1e-2",
            "--warmup-steps",
            "1",
            "--unsafe-unverified-input",
        ]
    )
    assert code == 0
    summary = _summary(capsys)
    manifest = json.loads((out / "training_manifest.json").read_text())
    assert manifest["update"]["parameter_artifact"]["rank"] == 4
    base = AutoModelForCausalLM.from_pretrained(workdir / "models" / "default_base")
    frozen = sum(p.numel() for p in base.parameters())
    # the frozen base at 4 B per parameter; only the small adapters carry 16 B (full FT would be 16 B each)
    assert 4 * frozen < summary["inventory_bytes"] < 4 * frozen + 1_000_000
    adapted = PeftModel.from_pretrained(base, out)
    merged = AutoModelForCausalLM.from_pretrained(out / "merged")
    ids = torch.tensor([[1, 30, 40, 50, 5]])
    with torch.no_grad():
        torch.testing.assert_close(
            adapted(input_ids=ids).logits, merged(input_ids=ids).logits, atol=1e-5, rtol=1e-4
        )
        fresh = AutoModelForCausalLM.from_pretrained(workdir / "models" / "default_base")
        assert not torch.allclose(fresh(input_ids=ids).logits, merged(input_ids=ids).logits)


def test_resumed_run_matches_an_uninterrupted_one(workdir, dataset, tmp_path):
    # warmup longer than the run: the schedule does not depend on max_steps, so 2 + 1 == 3 exactly.
    def request(out, steps, resume=False):
        return TrainRequest(
            out=out,
            workdir=workdir,
            max_steps=steps,
            capacity=128,
            examples_per_step=4,
            eval_every=0,
            resume=resume,
            micro_batches=2,
        )

    straight = run_training(request(tmp_path / "a", 3), dataset)
    run_training(request(tmp_path / "b", 2), dataset)
    resumed = run_training(request(tmp_path / "b", 3, resume=True), dataset)
    assert resumed.loop.resumed_from == 2
    assert resumed.loop.losses == pytest.approx(straight.loop.losses, abs=0)
    assert resumed.artifact_digest == straight.artifact_digest


def test_dpo_cli_uses_the_reference_cache(workdir, tmp_path, capsys):
    rng = random.Random(4)
    pairs = []
    for index in range(10):
        prefix = [1, *[rng.randrange(20, 300) for _ in range(6)], 5]
        chosen, rejected = prefix + [40, 41, 2], prefix + [rng.randrange(300, 400) for _ in range(3)]
        span = list(range(len(prefix), len(prefix) + 3))
        pairs.append(
            {
                "pair_id": f"p{index}",
                "chosen_input_ids": chosen,
                "chosen_selected": span,
                "rejected_input_ids": rejected,
                "rejected_selected": span,
            }
        )
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in pairs) + "\n")
    args = [
        "train",
        "--dataset",
        str(path),
        "--objective",
        "dpo",
        "--max-steps",
        "3",
        "--workdir",
        str(workdir),
        "--batch-examples",
        "4",
        "--beta",
        "0.2",
        "--sft-weight",
        "0.1",
        "--unsafe-unverified-input",
    ]
    assert main([*args, "--out", str(tmp_path / "dpo1")]) == 0
    first = json.loads((tmp_path / "dpo1" / "training_manifest.json").read_text())["update"]["dpo_reference"]
    assert first["misses"] == 10 and first["spot_check_max_abs_diff"] <= 1e-5
    assert main([*args, "--out", str(tmp_path / "dpo2")]) == 0
    second = json.loads((tmp_path / "dpo2" / "training_manifest.json").read_text())["update"]["dpo_reference"]
    assert second["hits"] == 10 and second["misses"] == 0
    assert _summary(capsys)["validation"]["pairs"] == 1


def test_cli_names_a_missing_dataset(tmp_path, capsys):
    assert main(["train", "--dataset", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "x")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def _episode(episode_id: str, answer: str) -> dict:
    from trajectory_platform.traces.record import Episode, Event
    from trajectory_platform.traces.schema import episode_row

    events = [
        Event("system", "You fix bugs."),
        Event("user", "Which file leaks the pool?"),
        Event("assistant", answer),
    ]
    return episode_row(Episode(episode_id, "native", "t.jsonl", 1, None, None, events=events))


def _episode_pairs(count: int):
    """Rows of PREFERENCE_PAIRS_SCHEMA: whole episodes per side, as curation writes them."""
    import pyarrow as pa

    from trajectory_platform.curation.split_mixture_stage import PREFERENCE_PAIRS_SCHEMA

    rows = []
    for index in range(count):
        chosen, rejected = _episode(f"c{index}", "src/pool.py leaks it."), _episode(f"r{index}", "No idea.")
        rows.append(
            {
                "pair_id": f"p{index}",
                "split": "train",
                "rule": "pass_over_fail",
                "chosen_episode_id": f"c{index}",
                "rejected_episode_id": f"r{index}",
                "branch_event_index": 2,
                "chosen_turns": [2],
                "rejected_turns": [2],
                "chosen": chosen,
                "rejected": rejected,
            }
        )
    return pa.Table.from_pylist(rows, schema=PREFERENCE_PAIRS_SCHEMA)


def test_dpo_cli_tokenizes_curation_episode_pairs_through_the_dataset_stage(workdir, tmp_path, capsys):
    """The command turns curation's episode pairs into token rows (both sides rendered with the SFT
    masks) with the data wing's stage; the optimizer only reads the token rows."""
    import pyarrow.parquet as pq

    from trajectory_platform.training.data.preference_tokens import pair_from_row
    from trajectory_platform.training.data.tokenizer import load_tokenizer

    table = _episode_pairs(6)
    pair = pair_from_row(table.to_pylist()[0], load_tokenizer(workdir / "models" / "default_base"))
    first = pair.chosen_selected[0]
    assert pair.chosen_ids[:first] == pair.rejected_ids[:first]  # shared prefix renders identically
    assert (
        pair.chosen_ids[pair.chosen_selected[-1]] == pair.rejected_ids[pair.rejected_selected[-1]]
    )  # both end
    pq.write_table(table, tmp_path / "pairs.parquet")
    out = tmp_path / "dpo"
    args = ["train", "--dataset", str(tmp_path / "pairs.parquet"), "--objective", "dpo", "--max-steps", "2"]
    assert main([*args, "--workdir", str(workdir), "--out", str(out), "--unsafe-unverified-input"]) == 0
    summary = _summary(capsys)
    assert summary["counts"]["train"] == 5
    assert (
        summary["preference_dataset"]["pairs_out"] == 6
        and summary["preference_dataset"]["drop_reasons"] == {}
    )
    manifest = json.loads((out / "training_manifest.json").read_text())
    assert manifest["corpus"]["dataset_manifest"]["manifest_version"] == "preference_dataset/v1"
    assert manifest["serialization"]["matches_dataset"]["tokenizer"] is True
    assert manifest["serialization"]["matches_dataset"]["template"] is True


def test_the_optimizer_wing_does_not_tokenize_episode_pairs(workdir, tmp_path):
    request = TrainRequest(out=tmp_path / "x", objective="dpo", workdir=workdir, max_steps=1)
    with pytest.raises(ValueError, match="untokenized_pair"):
        run_training(request, _episode_pairs(3))


def test_dpo_trains_on_the_stage_token_rows(workdir, tmp_path):
    """The preference_dataset rows (what the checkpoint asset reads) train DPO with their manifest."""
    from trajectory_platform.training.data.preference_dataset import run_preference_stage

    stage = run_preference_stage(_episode_pairs(6), workdir / "models" / "default_base")
    request = TrainRequest(out=tmp_path / "dpo", objective="dpo", workdir=workdir, max_steps=2, eval_every=0)
    outcome = run_training(request, stage.table, dataset_manifest=stage.manifest, source_name="stage")
    assert outcome.counts == {"rows_in": 6, "train": 5, "validation": 1, "rejected": 0}
    assert outcome.tally.balanced and outcome.loop.steps == 2
    assert outcome.manifest["corpus"]["corpus_version"] == stage.manifest["corpus_version"]


def test_data_tokenized_with_another_tokenizer_is_refused(workdir, tmp_path, capsys):
    path = tmp_path / "masked.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in _rows(6)) + "\n")
    (tmp_path / "masked.jsonl.manifest.json").write_text(json.dumps({"tokenizer_files_digest": "0" * 64}))
    args = ["train", "--dataset", str(path), "--out", str(tmp_path / "ck"), "--workdir", str(workdir)]
    assert main([*args, "--max-steps", "1", "--unsafe-unverified-input"]) == 2
    assert "tokenizer_files_digest" in capsys.readouterr().err
