"""Shared prefixes stored once per packed buffer (training/optim/packing.py, attention.py, loss.py).

Examples that open with the same context (the tool block and system prompt) are laid out as
``prefix | suffix_1 | suffix_2 ...``; each suffix's positions continue from the prefix length and
the varlen attention lets it see the prefix keys. These tests hold that layout to what plain
packing computes: the same logits per example, the same loss (1e-6 relative) and the same
gradients (5e-7 absolute), full and LoRA, both normalizations, with a target-free example and an
example that shares nothing among them.
"""

from __future__ import annotations

import random

import pyarrow as pa
import pytest
import torch
from shared_prefix_factory import SHAPE, VOCAB, shared_prefix_examples, varlen_model

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION, segment_bounds
from trajectory_platform.training.optim.loss import shifted_target_logprobs
from trajectory_platform.training.optim.model import tiny_llama
from trajectory_platform.training.optim.packing import (
    SHARED_PREFIX_SEGMENT,
    collate_packed,
    collate_shared_prefix,
    shared_prefix_groups,
)
from trajectory_platform.training.optim.runner import TrainRequest, run_training
from trajectory_platform.training.optim.sft import accumulate_gradients, collate_micro_batches, model_logits

CAPACITY = 160


def test_segments_restart_at_0_or_jump_back_to_a_prefix():
    positions = torch.tensor([0, 1, 2, 3, 4, 3, 4, 3, 0, 1])
    assert segment_bounds(positions) == [(0, 5), (5, 7), (7, 8), (8, 10)]


def test_layout_stores_each_opening_once_per_buffer():
    examples = shared_prefix_examples()
    groups = shared_prefix_groups(examples, min_prefix=16)
    assert sorted((prefix, sorted(members)) for prefix, members in groups) == [
        (0, [4]),
        (28, [1, 3, 5, 7]),
        (40, [0, 2, 6, 8]),
    ]
    # A target right after the opening: the suffix must still open with a context token (its first
    # token is predicted from the prefix's last position, which the other suffixes share), so the
    # group's prefix gives that token back.
    tight = [dict(e, labels=list(e["labels"])) for e in examples]
    tight[3]["labels"][28] = tight[3]["input_ids"][28]
    assert (27, [1, 3, 5, 7]) in [(p, sorted(m)) for p, m in shared_prefix_groups(tight, min_prefix=16)]
    batch = collate_shared_prefix(examples, CAPACITY, return_segments=True)
    segments, positions = batch["segment_ids"], batch["position_ids"]
    for index, example in enumerate(examples):
        row, cols = (segments == index).nonzero(as_tuple=True)
        first, start = int(cols[0]), int(positions[row[0], cols[0]])
        # the prefix: the first `start` tokens from the latest position 0 before this suffix
        anchor = max(c for c in range(first + 1) if positions[row[0], c] == 0)
        prefix = batch["input_ids"][row[0], anchor : anchor + start].tolist()
        assert prefix + batch["input_ids"][row, cols].tolist() == example["input_ids"]
        assert positions[row, cols].tolist() == list(range(start, len(example["input_ids"])))
        assert batch["labels"][row, cols].tolist() == example["labels"][start:]
    assert int((segments == SHARED_PREFIX_SEGMENT).sum()) < 40 + 28 + 40 + 28  # few chunks per opening
    stored = int((segments != -1).sum())
    assert stored < sum(len(e["input_ids"]) for e in examples) - 2 * 28  # openings not repeated


def test_a_target_at_a_suffix_start_is_never_paired_acrossshared_prefix_examples():
    labels = torch.tensor([[IGNORE_INDEX, IGNORE_INDEX, IGNORE_INDEX, 7, 8, 9]])
    positions = torch.tensor([[0, 1, 2, 3, 2, 3]])  # prefix 0..1, suffix A at 2..3, suffix B at 2..3
    _, mask = shifted_target_logprobs(torch.zeros(1, 6, 10), labels, positions)
    assert mask.tolist() == [[False, False, True, False, True]]


@pytest.mark.parametrize("capacity", [CAPACITY, 480])
def test_each_example_gets_the_logits_it_gets_alone(capacity):
    """At 480 tokens both openings' chunks and the unshared example share one buffer, so a suffix
    must find its own chunk's prefix, not the row's first one."""
    examples = shared_prefix_examples()
    model = varlen_model()
    batch = collate_shared_prefix(examples, capacity, return_segments=True)
    assert capacity == CAPACITY or batch["input_ids"].shape[0] == 1
    with torch.no_grad():
        logits = model_logits(model, batch)
        for index, example in enumerate(examples):
            alone = model(input_ids=torch.tensor([example["input_ids"]]), use_cache=False).logits[0]
            row, cols = (batch["segment_ids"] == index).nonzero(as_tuple=True)
            start = int(batch["position_ids"][row[0], cols[0]])
            torch.testing.assert_close(logits[row, cols], alone[start:], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize(
    ("lora", "normalization", "capacity"),
    [
        (False, "token", CAPACITY),
        (False, "example", CAPACITY),
        (True, "token", CAPACITY),
        (True, "example", CAPACITY),
        (False, "example", 480),  # both openings' chunks in one buffer
    ],
)
def test_loss_and_gradients_match_plain_packing(lora, normalization, capacity):
    examples = shared_prefix_examples()
    results = {}
    for shared in (False, True):
        model = varlen_model(lora)
        batches = collate_micro_batches(
            examples, 2 if capacity == CAPACITY else 1, capacity, shared_prefix=shared
        )
        stats = accumulate_gradients(model, batches, normalization)
        grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.requires_grad])
        results[shared] = (stats, grads)
    (plain, plain_grads), (shared_stats, shared_grads) = results[False], results[True]
    assert shared_stats.denominator == plain.denominator and shared_stats.targets == plain.targets
    assert shared_stats.stored_tokens < plain.stored_tokens
    assert shared_stats.loss == pytest.approx(plain.loss, rel=1e-6)
    assert (shared_grads - plain_grads).abs().max().item() <= 5e-7
    assert plain_grads.abs().max().item() > 1e-3


def test_a_shared_prefix_batch_needs_the_varlen_attention():
    """transformers' own position-derived packing would cut each suffix off its prefix."""
    model = tiny_llama(VOCAB, seed=8, shape=SHAPE)
    batch = collate_micro_batches(shared_prefix_examples(), 1, CAPACITY, shared_prefix=True)[0]
    with pytest.raises(ValueError, match=VARLEN_ATTENTION):
        model_logits(model, batch)
    plain = collate_packed(shared_prefix_examples(), CAPACITY, attention="position_ids")
    assert model_logits(model, plain).shape[0] == plain["input_ids"].shape[0]


def test_a_run_with_shared_prefixes_takes_the_same_first_step(eval_workdir, tmp_path):
    """End to end (runner, embedded model): the first step's loss is the plain layout's, and the
    manifest says the buffers shared prefixes. Later steps drift by AdamW-amplified rounding only."""
    rng = random.Random(9)
    opening = [rng.randrange(20, 300) for _ in range(24)]
    rows = []
    for index in range(24):
        context = [rng.randrange(20, 300) for _ in range(rng.randint(3, 12))]
        target = [*reversed(context), 2]
        ids = [*opening, *context, 5, *target]
        labels = [IGNORE_INDEX] * (len(ids) - len(target)) + target
        rows.append(
            {"example_id": f"ex{index}", "episode_id": f"ep{index}", "input_ids": ids, "labels": labels}
        )
    table = pa.Table.from_pylist(rows)
    outcomes = [
        run_training(
            TrainRequest(
                out=tmp_path / f"shared-{shared}",
                workdir=eval_workdir,
                max_steps=2,
                capacity=128,
                examples_per_step=8,
                eval_every=0,
                shared_prefix=shared,
            ),
            table,
        )
        for shared in (False, True)
    ]
    plain, shared_run = outcomes
    assert shared_run.loop.losses[0] == pytest.approx(plain.loop.losses[0], rel=1e-6)
    assert shared_run.loop.validation[-1]["target_count"] == plain.loop.validation[-1]["target_count"]
    assert shared_run.loop.stored_tokens < plain.loop.stored_tokens
    assert "shared context prefixes" in shared_run.manifest["update"]["attention"]
    assert "shared" not in plain.manifest["update"]["attention"]
