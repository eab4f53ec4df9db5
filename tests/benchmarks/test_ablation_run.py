"""One ablation run (benchmarks/ablation/run.py): the all-token variants train through the same
context warm-up as the masked reference, though an all-token row declares no preamble of its own;
a finished run is reused only while everything it depends on is unchanged."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
import torch
from ablation import run
from ablation.corpus import declared_keys, expert_corpus, learnable_split, masked_table

from trajectory_platform.evaluation.harness import build_items
from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.training.data.dataset import rows_from_table, split_examples
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.loss import shifted_target_logprobs
from trajectory_platform.training.optim.model import build_default_model, load_model
from trajectory_platform.training.optim.sft import collate_micro_batches, model_logits, without_preamble


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


def _all_token_labels(table: pa.Table) -> pa.Table:
    """The all-token objective spelled out: every position after the first is a target."""
    labels = [[IGNORE_INDEX, *ids[1:]] for ids in table.column("input_ids").to_pylist()]
    index = table.schema.get_field_index("labels")
    return table.set_column(index, "labels", pa.array(labels, type=table.schema.field("labels").type))


def _reference_all_token_loss(model, selected, every, capacity, compute_matched):
    """The all-token loss as it was computed before prefix sharing: every example whole, with the
    labels of :func:`_all_token_labels`."""
    sel = collate_micro_batches(selected, 1, capacity)[0]
    whole = collate_micro_batches(every, 1, capacity)[0]
    logits = model_logits(model, whole)
    lp_sel, m_sel = shifted_target_logprobs(logits, sel["labels"], whole["position_ids"])
    lp_all, m_all = shifted_target_logprobs(logits, whole["labels"], whole["position_ids"])
    n_sel, n_all = int(m_sel.sum()), int(m_all.sum())
    if compute_matched:
        return -lp_sel.sum() / n_sel - (lp_all * (m_all & ~m_sel)).sum() / n_all, n_all, n_sel
    return -lp_all.sum() / n_all, n_all, n_sel


@pytest.mark.parametrize(("compute_matched", "warm_up"), [(False, False), (True, False), (True, True)])
def test_the_all_token_loss_with_shared_prefixes_is_the_loss_of_each_example_whole(
    eval_workdir: Path, compute_matched: bool, warm_up: bool
):
    """Prefix targets weighted by the examples sharing them, each suffix's first token predicted
    from its prefix's last position: the same loss (1e-6 relative) and gradients (1e-5 of the
    largest) as every
    example laid out whole, with fewer positions computed."""
    train, _ = learnable_split()
    table = masked_table(
        expert_corpus(train[:6], seed=0), load_tokenizer(eval_workdir / "models" / "default_tokenizer")
    )
    model = load_model(build_default_model(eval_workdir))
    model.set_attn_implementation(VARLEN_ATTENTION)
    vocab = model.get_input_embeddings().num_embeddings
    split = {
        name: split_examples(rows_from_table(t, source=name), capacity=2048, vocab_size=vocab).train
        for name, t in (("selected", table), ("all", _all_token_labels(table)))
    }
    for sel, every in zip(split["selected"], split["all"], strict=True):
        assert sel["input_ids"] == every["input_ids"]
        every["preamble_end"] = sel["preamble_end"]  # an all-token row declares none of its own
    if warm_up:
        split = {name: [without_preamble(e) for e in examples] for name, examples in split.items()}
    grads = []
    for shared in (False, True):
        model.zero_grad(set_to_none=True)
        if shared:
            loss, stats = run.all_token_loss(model, split["selected"], 2048, compute_matched=compute_matched)
            counts = (stats.targets, stats.denominator)
            assert stats.stored_tokens < sum(len(e["input_ids"]) for e in split["selected"]) or warm_up
        else:
            loss, *reference_counts = _reference_all_token_loss(
                model, split["selected"], split["all"], 2048, compute_matched
            )
            reference_loss = loss.item()
        loss.backward()
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters()]))
    assert list(counts) == reference_counts
    assert loss.item() == pytest.approx(reference_loss, rel=1e-6)
    largest = grads[0].abs().max().item()
    assert largest > 1e-3
    assert (grads[1] - grads[0]).abs().max().item() <= 1e-5 * largest
