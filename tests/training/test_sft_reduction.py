"""Global reduction of loss numerators and denominators (fine-tuning 16.5.1) and the single shift."""

from __future__ import annotations

import random

import pytest
import torch
from tiny_model_factory import SHAPE

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.loss import masked_loss_sums, shifted_target_logprobs
from trajectory_platform.training.optim.model import tiny_llama
from trajectory_platform.training.optim.sft import accumulate_gradients, collate_micro_batches, model_logits

VOCAB = 64


def _examples(count: int, seed: int = 3) -> list[dict]:
    """Examples of very different lengths and target counts, so local means differ from the global one."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        length = rng.choice([6, 9, 17, 33, 48])
        ids = [rng.randrange(1, VOCAB) for _ in range(length)]
        targets = rng.randint(1, length - 1)
        labels = [IGNORE_INDEX] * (length - targets) + ids[length - targets :]
        out.append({"input_ids": ids, "labels": labels, "id": index})
    return out


def _loss_and_grads(examples, micro_batches, normalization):
    model = tiny_llama(VOCAB, seed=7, shape=SHAPE)
    model.zero_grad()
    stats = accumulate_gradients(model, collate_micro_batches(examples, micro_batches, 64), normalization)
    return stats, torch.cat([p.grad.flatten() for p in model.parameters()])


@pytest.mark.parametrize("normalization", ["token", "example"])
def test_micro_batch_splits_give_the_same_loss_and_gradients(normalization):
    examples = _examples(8)
    reference_stats, reference_grads = _loss_and_grads(examples, 1, normalization)
    for split in (2, 8):
        stats, grads = _loss_and_grads(examples, split, normalization)
        assert stats.denominator == reference_stats.denominator
        assert stats.loss == pytest.approx(reference_stats.loss, rel=1e-5)
        torch.testing.assert_close(grads, reference_grads, rtol=1e-4, atol=1e-6)


def test_averaging_local_means_would_differ():
    """The failure the global reduction prevents: a mean of micro-batch means is a different loss."""
    model = tiny_llama(VOCAB, seed=7, shape=SHAPE)
    examples = _examples(8)
    batches = collate_micro_batches(examples, 8, 64)
    with torch.no_grad():
        sums = [masked_loss_sums(model_logits(model, b), b["labels"], b["position_ids"]) for b in batches]
    local_mean = sum((s.target_nll / s.targets).item() for s in sums) / len(sums)
    global_mean = sum(s.target_nll.item() for s in sums) / sum(s.targets.item() for s in sums)
    assert abs(local_mean - global_mean) > 1e-3


def test_token_and_example_averaging_weigh_examples_as_declared():
    """Eq. 2 vs eq. 3 on hand-made logits: two examples with 1 and 3 targets."""
    vocab = 4
    logits = torch.zeros(2, 5, vocab)
    logits[0, 3, 2] = 5.0  # example 0: one target (position 4 = token 2), predicted well
    labels = torch.tensor([[IGNORE_INDEX] * 4 + [2], [IGNORE_INDEX, 1, 1, 1, IGNORE_INDEX]])
    sums = masked_loss_sums(logits, labels)
    good = -torch.log_softmax(torch.tensor([0.0, 0.0, 5.0, 0.0]), -1)[2].item()
    flat = -torch.log_softmax(torch.zeros(vocab), -1)[0].item()
    assert sums.targets.item() == 4 and sums.examples.item() == 2
    assert (sums.target_nll / sums.targets).item() == pytest.approx((good + 3 * flat) / 4, rel=1e-6)
    assert (sums.example_means / sums.examples).item() == pytest.approx((good + flat) / 2, rel=1e-6)


def test_labels_are_shifted_exactly_once():
    """A model that copies its input perfectly: zero loss only under exactly one shift."""
    ids = torch.tensor([[0, 1, 2, 3]])
    labels = ids.clone()
    labels[0, 0] = IGNORE_INDEX
    one_hot_next = torch.full((1, 4, 5), -30.0)
    for position in range(3):
        one_hot_next[0, position, ids[0, position + 1]] = 30.0  # logits at t-1 predict token t
    logprobs, mask = shifted_target_logprobs(one_hot_next, labels)
    assert mask.sum().item() == 3 and logprobs.sum().item() == pytest.approx(0.0, abs=1e-6)
    double_shifted = torch.cat([labels[:, 1:], torch.tensor([[IGNORE_INDEX]])], dim=1)
    wrong, _ = shifted_target_logprobs(one_hot_next, double_shifted)
    assert wrong.sum().item() < -10


def test_packed_boundary_target_is_never_scored():
    """A label at an example's first position would be predicted from the previous example."""
    logits = torch.zeros(1, 4, 3)
    labels = torch.tensor([[IGNORE_INDEX, 1, 2, 1]])
    positions = torch.tensor([[0, 1, 0, 1]])
    _, mask = shifted_target_logprobs(logits, labels, positions)
    assert mask.tolist() == [[True, False, True]]
