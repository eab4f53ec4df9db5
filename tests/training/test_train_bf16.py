"""The CUDA precision path, exercised through CPU autocast.

On CUDA the runner trains under bf16 autocast over fp32 weights with per-example (varlen)
attention. ``torch.autocast`` is device-generic, so the same code runs here with
``device_type="cpu"``: what these tests pin down -- fp32 master weights and gradients, the loss
reduced in fp32, micro-batch invariance and a falling loss under bf16 compute -- holds for the
GPU run too; only the kernels differ.
"""

from __future__ import annotations

import random

import pytest
import torch
from test_sft_reduction import SHAPE, VOCAB  # the same tiny Llama as the fp32 reduction tests

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.model import tiny_llama
from trajectory_platform.training.optim.sft import (
    accumulate_gradients,
    batch_loss_sums,
    collate_micro_batches,
)

BF16 = torch.bfloat16


def _examples(count: int, seed: int = 5) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        length = rng.choice([7, 12, 20, 31])
        ids = [rng.randrange(1, VOCAB) for _ in range(length)]
        targets = rng.randint(2, length - 1)
        labels = [IGNORE_INDEX] * (length - targets) + ids[length - targets :]
        out.append({"input_ids": ids, "labels": labels})
    return out


def _model() -> torch.nn.Module:
    model = tiny_llama(VOCAB, seed=11, shape=SHAPE)
    model.set_attn_implementation(VARLEN_ATTENTION)
    return model


def test_bf16_autocast_keeps_fp32_weights_gradients_and_loss_sums():
    model = _model()
    batch = collate_micro_batches(_examples(6), 1, 64)[0]
    with torch.no_grad():
        full = batch_loss_sums(model, batch)
        mixed = batch_loss_sums(model, batch, BF16)
    assert mixed.target_nll.dtype == torch.float32  # log-softmax and the sums run in fp32
    assert mixed.targets == full.targets
    # bf16 has an 8-bit mantissa: the mean loss agrees to about a percent, not to fp32 precision
    assert (mixed.target_nll / mixed.targets).item() == pytest.approx(
        (full.target_nll / full.targets).item(), rel=2e-2
    )
    assert mixed.target_nll.item() != full.target_nll.item()  # autocast really computed in bf16
    model.zero_grad()
    accumulate_gradients(model, [batch], "token", BF16)
    assert all(p.dtype == torch.float32 and p.grad.dtype == torch.float32 for p in model.parameters())


@pytest.mark.parametrize("normalization", ["token", "example"])
def test_micro_batch_splits_agree_under_bf16(normalization):
    examples = _examples(8)
    results = []
    for split in (1, 2, 8):
        model = _model()
        model.zero_grad()
        stats = accumulate_gradients(model, collate_micro_batches(examples, split, 64), normalization, BF16)
        results.append((stats, torch.cat([p.grad.flatten() for p in model.parameters()])))
    (reference, reference_grads), *others = results
    for stats, grads in others:
        assert stats.denominator == reference.denominator
        assert stats.loss == pytest.approx(reference.loss, rel=1e-2)
        cosine = torch.nn.functional.cosine_similarity(grads, reference_grads, dim=0).item()
        assert cosine > 0.99


def test_loss_falls_under_bf16_autocast():
    model = _model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    batches = collate_micro_batches(_examples(8), 2, 64)
    losses = []
    for _ in range(25):
        optimizer.zero_grad()
        losses.append(accumulate_gradients(model, batches, "token", BF16).loss)
        optimizer.step()
    assert all(torch.isfinite(torch.tensor(losses)))
    assert losses[-1] < 0.7 * losses[0]
