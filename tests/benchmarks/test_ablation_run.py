"""One ablation run (benchmarks/ablation/run.py): the all-token variants train through the same
context warm-up as the masked reference, though an all-token row declares no preamble of its own;
a finished run is reused only while everything it depends on is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from ablation import run
from ablation.corpus import declared_keys, expert_corpus, learnable_split, masked_table

from trajectory_platform.evaluation.harness import build_items
from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.training.data.tokenizer import load_tokenizer


@pytest.mark.parametrize("compute_matched", [False, True])
def test_all_token_variants_leave_the_selected_preamble_out_during_the_warm_up(
    eval_workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compute_matched: bool
):
    train, _ = learnable_split()
    table = masked_table(
        expert_corpus(train[:4], seed=0), load_tokenizer(eval_workdir / "models" / "default_tokenizer")
    )
    stored: dict[float, list[int]] = {}
    real_loop = run.run_loop

    def recording_loop(model, step, **kwargs):
        def recorded(index: int):
            stats = step(index)
            stored.setdefault(share, []).append(stats.stored_tokens)
            return stats

        return real_loop(model, recorded, **kwargs)

    monkeypatch.setattr(run, "run_loop", recording_loop)
    for share in (0.0, 0.5):
        settings = run.VariantSettings(steps=2, examples_per_step=2, preamble_warmup_share=share)
        out = tmp_path / f"run-{share}"
        loop = run.train_all_token(table, eval_workdir, out, 0, settings, compute_matched=compute_matched)
        assert (out / "config.json").exists() and loop.steps == 2
    # Same examples at each step: only the warm-up step (step 0 of the 0.5 run) is shorter.
    assert stored[0.5][0] < stored[0.0][0]
    assert stored[0.5][1] == stored[0.0][1]


def test_a_finished_run_is_reused_only_while_its_key_matches(eval_workdir: Path, tmp_path: Path):
    train, pool = learnable_split()
    table = masked_table(
        expert_corpus(train[:2], seed=0), load_tokenizer(eval_workdir / "models" / "default_tokenizer")
    )
    items = build_items(pool, SuiteSpec(episodes=1, recovery_episodes=0, retention_episodes=0))
    workdir = tmp_path / "bench"
    workdir.mkdir()
    (workdir / "models").symlink_to(eval_workdir / "models")
    settings = run.VariantSettings(steps=2, examples_per_step=2)
    first, timing = run.run_variant("selected", 0, table, items, workdir, settings, (8, 16), 1)
    assert "reused" not in timing
    again, timing = run.run_variant("selected", 0, table, items, workdir, settings, (8, 16), 1)
    assert timing["reused"] and [m.to_dict() for m in again] == [m.to_dict() for m in first]
    longer = run.VariantSettings(steps=3, examples_per_step=2)
    _, timing = run.run_variant("selected", 0, table, items, workdir, longer, (8, 16), 1)
    assert "reused" not in timing
    assert run.run_key("selected", 0, table, items, settings, (8, 16)) != run.run_key(
        "selected", 0, table.slice(1), items, settings, (8, 16)
    )


def test_a_table_declares_its_argument_keys_and_renamed_copies_add_theirs(eval_workdir: Path):
    train, _ = learnable_split()
    corpus = expert_corpus(train[:3], seed=0)
    tokenizer = load_tokenizer(eval_workdir / "models" / "default_tokenizer")
    plain = declared_keys(masked_table(corpus, tokenizer))
    renamed = declared_keys(masked_table(corpus, tokenizer, augment=True))
    assert {"file_path", "match"} <= plain < renamed  # the drawn names are keys the model was taught
    with pytest.raises(ValueError, match="argument keys"):
        declared_keys(masked_table(corpus, tokenizer).replace_schema_metadata(None))
