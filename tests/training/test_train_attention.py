"""Variable-length attention: packed buffers compute exactly what each example computes alone."""

from __future__ import annotations

import torch

from trajectory_platform.training.optim.attention import VARLEN_ATTENTION, segment_bounds
from trajectory_platform.training.optim.model import TinyLlamaShape, tiny_llama
from trajectory_platform.training.optim.packing import collate_packed

SHAPE = TinyLlamaShape(
    hidden_size=64,
    intermediate_size=96,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
)


def _examples(lengths, offset=0):
    return [
        {"input_ids": [(offset + 7 * n + i) % 90 + 3 for i in range(n)], "labels": [-100] + [5] * (n - 1)}
        for n in lengths
    ]


def _packed_logits(model, examples, capacity=32):
    batch = collate_packed(examples, capacity, attention="position_ids", return_segments=True)
    logits = model(input_ids=batch["input_ids"], position_ids=batch["position_ids"], use_cache=False).logits
    return {
        int(s): logits[0][batch["segment_ids"][0] == s] for s in batch["segment_ids"][0].unique() if s >= 0
    }


def test_segments_follow_position_resets():
    assert segment_bounds(torch.tensor([0, 1, 2, 0, 1, 0, 1, 2, 3])) == [(0, 3), (3, 5), (5, 9)]


def test_packed_varlen_equals_unpacked_and_isolates_examples():
    model = tiny_llama(100, seed=1, shape=SHAPE)
    examples = _examples([9, 5, 12, 3])
    with torch.no_grad():
        alone = [model(input_ids=torch.tensor([e["input_ids"]])).logits[0] for e in examples]
        model.set_attn_implementation(VARLEN_ATTENTION)
        packed = _packed_logits(model, examples)
        perturbed_examples = [examples[0], _examples([5], offset=40)[0], *examples[2:]]
        perturbed = _packed_logits(model, perturbed_examples)
    for index, reference in enumerate(alone):
        torch.testing.assert_close(packed[index], reference, atol=1e-5, rtol=1e-4)
    for index in (0, 2, 3):  # changing example 1 leaves every other example's logits unchanged
        torch.testing.assert_close(perturbed[index], packed[index], atol=0, rtol=0)
    assert not torch.allclose(perturbed[1], packed[1])


def test_varlen_gradients_match_sdpa_with_the_block_diagonal_mask():
    examples = _examples([9, 5, 12, 3])
    grads = []
    for implementation in ("sdpa", VARLEN_ATTENTION):
        model = tiny_llama(100, seed=1, shape=SHAPE)
        model.set_attn_implementation(implementation)
        batch = collate_packed(examples, 32, attention="position_ids")
        model(
            input_ids=batch["input_ids"], position_ids=batch["position_ids"], use_cache=False
        ).logits.sum().backward()
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters()]))
    torch.testing.assert_close(grads[1], grads[0], atol=1e-4, rtol=1e-3)
