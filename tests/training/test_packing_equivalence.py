"""Packing: occupancy on the seed's exercise and an agent distribution; packed == unpacked on a Llama."""

from __future__ import annotations

import random

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

from trajectory_platform.training.optim.packing import (
    IGNORE_INDEX,
    collate_packed,
    occupancy,
    pack_lengths,
    padded_occupancy,
)

SEED_EXERCISE = [16384, 8192, 6144, 4096, 4096, 2048, 2048, 1024, 1024, 512]
LOGIT_TOLERANCE = 1e-4
"""Max absolute difference allowed between packed and unpacked logits (float32, CPU)."""


def agent_lengths(count: int = 2000, seed: int = 7) -> list[int]:
    """Per-invocation agent examples: log-normal around ~1.5k tokens, clipped to 128..12k."""
    rng = random.Random(seed)
    return [min(12_000, max(128, int(rng.lognormvariate(7.3, 0.8)))) for _ in range(count)]


def test_seed_exercise_packs_into_three_buffers_with_occupancy_above_0_92():
    buffers = pack_lengths(SEED_EXERCISE, 16_384)
    assert sorted(sorted(b) for b in buffers) == [[0], [1, 2, 5], [3, 4, 6, 7, 8, 9]]
    assert occupancy(SEED_EXERCISE, buffers, 16_384) == pytest.approx(45_568 / 49_152)
    assert occupancy(SEED_EXERCISE, buffers, 16_384) >= 0.92
    assert padded_occupancy(SEED_EXERCISE) == pytest.approx(45_568 / 163_840)


def test_agent_distribution_occupancy_at_least_0_99():
    lengths = agent_lengths()
    buffers = pack_lengths(lengths, 16_384)
    assert sorted(i for b in buffers for i in b) == list(range(len(lengths)))
    assert all(sum(lengths[i] for i in b) <= 16_384 for b in buffers)
    assert occupancy(lengths, buffers, 16_384) >= 0.99


def test_pack_lengths_rejects_oversized_examples():
    with pytest.raises(ValueError, match="example 1"):
        pack_lengths([3, 9], 8)


def _examples(rng: random.Random, lengths: list[int], vocab: int) -> list[dict]:
    out = []
    for n in lengths:
        ids = [rng.randrange(1, vocab) for _ in range(n)]
        labels = [tok if (i > 0 and rng.random() < 0.5) else IGNORE_INDEX for i, tok in enumerate(ids)]
        out.append({"input_ids": ids, "labels": labels})
    return out


def _model(attn: str, family: str = "llama"):
    torch.manual_seed(0)
    classes = {"llama": (LlamaConfig, LlamaForCausalLM), "qwen2": (Qwen2Config, Qwen2ForCausalLM)}
    config_class, model_class = classes[family]
    config = config_class(
        vocab_size=97,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=128,
    )
    config._attn_implementation = attn
    return model_class(config).eval()


def _unpacked(model, example) -> tuple[torch.Tensor, float, int]:
    ids = torch.tensor([example["input_ids"]])
    labels = torch.tensor([example["labels"]])
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0]
    # The HF convention: logits at t-1 predict labels at t (one shift, here).
    shifted_logits, shifted_labels = logits[:-1], labels[0, 1:]
    loss_sum = torch.nn.functional.cross_entropy(
        shifted_logits, shifted_labels, ignore_index=IGNORE_INDEX, reduction="sum"
    )
    return logits, float(loss_sum), int((shifted_labels != IGNORE_INDEX).sum())


def _packed_logits(model, batch) -> torch.Tensor:
    kwargs = {k: batch[k] for k in ("input_ids", "position_ids", "attention_mask") if k in batch}
    with torch.no_grad():
        # use_cache=False: transformers only derives packed boundaries from position_ids without a cache.
        return model(**kwargs, use_cache=False).logits


@pytest.mark.parametrize(
    ("family", "attn", "mode"),
    [
        ("llama", "eager", "4d"),
        ("llama", "sdpa", "4d"),
        ("llama", "sdpa", "position_ids"),
        ("qwen2", "sdpa", "4d"),
    ],
)
def test_packed_equals_unpacked_and_examples_are_isolated(family, attn, mode):
    rng = random.Random(3)
    examples = _examples(rng, [23, 9, 17, 30, 5, 12], vocab=97)
    model = _model(attn, family)
    batch = collate_packed(examples, capacity=40, attention=mode, return_segments=True)
    assert batch["input_ids"].shape[0] == len(pack_lengths([len(e["input_ids"]) for e in examples], 40))
    logits = _packed_logits(model, batch)

    total_loss, total_targets = 0.0, 0
    for index, example in enumerate(examples):
        row, cols = (batch["segment_ids"] == index).nonzero(as_tuple=True)
        assert batch["position_ids"][row, cols].tolist() == list(range(len(example["input_ids"])))
        alone, loss_sum, targets = _unpacked(model, example)
        selected = [t for t, lab in enumerate(example["labels"]) if lab != IGNORE_INDEX]
        packed_rows = logits[row[0], cols]
        prev = [t - 1 for t in selected]
        assert torch.allclose(packed_rows[prev], alone[prev], atol=LOGIT_TOLERANCE)
        assert torch.allclose(packed_rows, alone, atol=LOGIT_TOLERANCE)
        total_loss += loss_sum
        total_targets += targets

    # The model's own single shift over the packed buffer gives the same token-averaged loss.
    flat_logits = logits[:, :-1].reshape(-1, logits.shape[-1])
    flat_labels = batch["labels"][:, 1:].reshape(-1)
    packed_loss = torch.nn.functional.cross_entropy(flat_logits, flat_labels, ignore_index=IGNORE_INDEX)
    assert float(packed_loss) == pytest.approx(total_loss / total_targets, abs=1e-5)

    # Perturbing one example changes its own logits and leaves every other example's unchanged.
    perturbed = [dict(e) for e in examples]
    perturbed[2] = {
        "input_ids": [(t * 7 + 3) % 96 + 1 for t in examples[2]["input_ids"]],
        "labels": examples[2]["labels"],
    }
    logits2 = _packed_logits(model, collate_packed(perturbed, capacity=40, attention=mode))
    seg = batch["segment_ids"]
    assert not torch.allclose(logits[seg == 2], logits2[seg == 2], atol=1e-3)
    assert torch.allclose(logits[(seg != 2) & (seg >= 0)], logits2[(seg != 2) & (seg >= 0)], atol=1e-6)


def test_plain_causal_mask_would_leak_across_examples():
    """The equivalence test can fail: without the block-diagonal mask the second example differs."""
    rng = random.Random(5)
    examples = _examples(rng, [20, 15], vocab=97)
    model = _model("eager")
    batch = collate_packed(examples, capacity=35, return_segments=True)
    with torch.no_grad():
        leaky = model(input_ids=batch["input_ids"], position_ids=batch["position_ids"]).logits
    alone, _, _ = _unpacked(model, examples[1])
    cols = (batch["segment_ids"][0] == 1).nonzero(as_tuple=True)[0]
    assert not torch.allclose(leaky[0, cols], alone, atol=1e-3)


def test_first_label_of_an_example_must_be_context():
    with pytest.raises(ValueError, match="first label"):
        collate_packed([{"input_ids": [5, 6], "labels": [5, 6]}], capacity=4)
