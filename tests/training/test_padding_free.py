"""Padding-free buffers (training/optim/packing.py ``flatten_buffers``, sft.py ``padding_free``).

A micro-batch's packed buffers are laid end to end in one row without their padding. Under the
varlen attention that is only a memory layout, so these tests hold it to the padded layout: the
same logits per example as the example alone, the same loss (1e-6 relative) and gradients (5e-7
absolute), with and without shared prefixes, full and LoRA; and strictly fewer positions computed.
"""

from __future__ import annotations

import pytest
import torch
from shared_prefix_factory import shared_prefix_examples, varlen_model

from trajectory_platform.training.optim.packing import collate_packed, collate_shared_prefix, flatten_buffers
from trajectory_platform.training.optim.sft import accumulate_gradients, collate_micro_batches, model_logits

CAPACITY = 160


@pytest.mark.parametrize("shared", [False, True])
def test_one_row_of_real_tokens_each_buffer_opening_at_position_0(shared):
    examples = shared_prefix_examples()
    collate = collate_shared_prefix if shared else collate_packed
    kwargs = {} if shared else {"attention": "position_ids"}
    padded = collate(examples, CAPACITY, return_segments=True, **kwargs)
    assert padded["input_ids"].shape[0] > 1 and bool((padded["segment_ids"] == -1).any())
    flat = flatten_buffers(padded)
    real = padded["segment_ids"] != -1
    assert flat["input_ids"].shape == (1, int(real.sum()))
    assert bool((flat["segment_ids"] != -1).all())
    for key in ("input_ids", "labels", "position_ids"):
        assert flat[key][0].tolist() == padded[key][real].tolist()
    # Every buffer still opens a segment at position 0 where it starts in the row.
    starts = real.sum(dim=1).cumsum(0)[:-1]
    assert all(int(flat["position_ids"][0, s]) == 0 for s in starts)


@pytest.mark.parametrize("shared", [False, True])
def test_each_example_gets_the_logits_it_gets_alone(shared):
    examples = shared_prefix_examples()
    model = varlen_model()
    batch = collate_micro_batches(examples, 1, CAPACITY, shared_prefix=shared)[0]
    segments = (collate_shared_prefix if shared else collate_packed)(
        examples, CAPACITY, return_segments=True, **({} if shared else {"attention": "position_ids"})
    )["segment_ids"]
    segments = segments[segments != -1]
    assert batch["input_ids"].shape == (1, segments.numel())
    with torch.no_grad():
        logits = model_logits(model, batch)[0]
        for index, example in enumerate(examples):
            alone = model(input_ids=torch.tensor([example["input_ids"]]), use_cache=False).logits[0]
            cols = (segments == index).nonzero(as_tuple=True)[0]
            start = int(batch["position_ids"][0, cols[0]])
            torch.testing.assert_close(logits[cols], alone[start:], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize(
    ("lora", "normalization", "shared"),
    [(False, "token", True), (False, "example", True), (True, "token", True), (False, "token", False)],
)
def test_loss_and_gradients_match_the_padded_buffers(lora, normalization, shared):
    examples = shared_prefix_examples()
    results = {}
    for free in (False, True):
        model = varlen_model(lora)
        batches = collate_micro_batches(examples, 2, CAPACITY, shared_prefix=shared, padding_free=free)
        stats = accumulate_gradients(model, batches, normalization)
        grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.requires_grad])
        positions = sum(b["input_ids"].numel() for b in batches)
        results[free] = (stats, grads, positions)
    (padded, padded_grads, padded_positions), (free, free_grads, free_positions) = (
        results[False],
        results[True],
    )
    assert free.denominator == padded.denominator and free.targets == padded.targets
    assert free.stored_tokens == padded.stored_tokens == free_positions < padded_positions
    assert free.loss == pytest.approx(padded.loss, rel=1e-6)
    assert (free_grads - padded_grads).abs().max().item() <= 5e-7
    assert padded_grads.abs().max().item() > 1e-3


def test_a_dense_mask_batch_is_refused():
    """With a 4D block-diagonal mask the row layout is the mask's: flattening would break it."""
    batch = collate_packed(shared_prefix_examples(), CAPACITY, attention="4d", return_segments=True)
    with pytest.raises(ValueError, match="varlen attention"):
        flatten_buffers(batch)
    kept = collate_micro_batches(shared_prefix_examples(), 1, CAPACITY, attention="4d")[0]
    assert kept["input_ids"].shape[1] == CAPACITY
