"""Packed-training fixtures shared by the shared-prefix, padding-free and context warm-up tests: a
tiny model shape and vocabulary, a varlen model of them, and examples that open with one of two
tool-block-like prefixes (one example shares nothing, one has no target)."""

from __future__ import annotations

import random

import torch

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.lora import attach_lora
from trajectory_platform.training.optim.model import TinyLlamaShape, tiny_llama
from trajectory_platform.training.optim.settings import LoraSettings

SHAPE = TinyLlamaShape(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=256,
)
VOCAB = 256


def shared_prefix_examples(seed: int = 6) -> list[dict]:
    """Two openings (tool sets) of 40 and 28 tokens, sparse targets after them; example 1 has no
    target, example 4 opens with its own tokens (shares nothing)."""
    rng = random.Random(seed)
    openings = [[rng.randrange(1, VOCAB) for _ in range(n)] for n in (40, 28)]
    out = []
    for index in range(9):
        opening = [rng.randrange(1, VOCAB) for _ in range(20)] if index == 4 else openings[index % 2]
        ids = opening + [rng.randrange(1, VOCAB) for _ in range(rng.randint(6, 45))]
        labels = [IGNORE_INDEX] * len(ids)
        if index != 1:
            for position in range(len(opening) + 1, len(ids)):
                if rng.random() < 0.3:
                    labels[position] = ids[position]
            labels[-1] = ids[-1]
        out.append({"input_ids": ids, "labels": labels})
    return out


def varlen_model(lora: bool = False) -> torch.nn.Module:
    model = tiny_llama(VOCAB, seed=8, shape=SHAPE)
    model.set_attn_implementation(VARLEN_ATTENTION)
    if lora:
        model = attach_lora(model, LoraSettings(rank=4, alpha=8.0), seed=2)
        with torch.no_grad():  # off LoRA's B = 0 start, so adapter gradients see the whole network
            for name, parameter in model.named_parameters():
                if "lora_B" in name:
                    parameter.normal_(0, 0.05, generator=torch.Generator().manual_seed(len(name)))
    return model.train()
