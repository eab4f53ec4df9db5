"""Ablation A's all-token variants (benchmarks/ablation/run.py): they train through the same context
warm-up as the masked reference, though an all-token row declares no preamble of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from ablation import run
from ablation.corpus import expert_corpus, learnable_split, masked_table

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
        out = run.train_all_token(
            table, eval_workdir, tmp_path / f"run-{share}", 0, settings, compute_matched=compute_matched
        )
        assert (out / "config.json").exists()
    # Same examples at each step: only the warm-up step (step 0 of the 0.5 run) is shorter.
    assert stored[0.5][0] < stored[0.0][0]
    assert stored[0.5][1] == stored[0.0][1]
