"""Parameter-state inventory: napkin math 16.5 as a test vector, and a live model's owners."""

from __future__ import annotations

import time

import torch

from trajectory_platform.training.optim.lora import attach_lora
from trajectory_platform.training.optim.memory import (
    FP32_ADAMW,
    MIXED_PRECISION_ADAM,
    PeakMemory,
    inventory_for_model,
    inventory_from_counts,
)
from trajectory_platform.training.optim.model import TinyLlamaShape, tiny_llama
from trajectory_platform.training.optim.settings import LoraSettings


def test_napkin_math_16_5_adapter_vs_full_inventory():
    base = 8_000_000_000
    adapters = 32 * 2 * 16 * (4096 + 4096)
    assert adapters == 8_388_608
    lora = inventory_from_counts(frozen=base, trainable=adapters, convention=MIXED_PRECISION_ADAM)
    full = inventory_from_counts(frozen=0, trainable=base, convention=MIXED_PRECISION_ADAM)
    assert lora.frozen_weights == 16_000_000_000
    assert round(lora.trainable_weights / 1e6, 2) == 16.78
    assert round(lora.gradients / 1e6, 2) == 16.78
    assert round(lora.master_weights / 1e6, 2) == 33.55
    assert round(lora.optimizer_moments / 1e6, 2) == 67.11
    assert round((lora.total - lora.frozen_weights) / 1e6, 2) == 134.22
    assert round(lora.total / 1e9, 2) == 16.13
    assert full.total == 128_000_000_000
    assert round((full.total - lora.total) / 1e9, 2) == 111.87
    assert round(full.total / lora.total, 1) == 7.9
    assert "16000.000 MB" in lora.render()


def test_lora_moves_the_base_to_frozen_and_counts_tied_weights_once():
    shape = TinyLlamaShape(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    model = tiny_llama(50, shape=shape)
    unique = sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())
    full = inventory_for_model(model, FP32_ADAMW)
    assert full.trainable_parameters == unique and full.frozen_parameters == 0
    adapted = attach_lora(model, LoraSettings(rank=4, alpha=8, target_modules=("q_proj", "v_proj")))
    inventory = inventory_for_model(adapted, FP32_ADAMW)
    assert inventory.frozen_parameters == unique
    assert inventory.trainable_parameters == 2 * 2 * 4 * (32 + 32)
    assert inventory.gradients == inventory.trainable_parameters * 4


def test_peak_memory_sees_a_tensor_allocation():
    # 256 MB of tensor storage, invisible to tracemalloc. Large enough to be a fresh mapping
    # (above glibc's largest dynamic mmap threshold, 32 MB), so pages freed by earlier tests in
    # the same process cannot absorb it; held for several sampling intervals.
    with PeakMemory(torch.device("cpu")) as peak:
        block = torch.ones(64_000_000)
        block += 1
        time.sleep(0.05)
        del block
    assert peak.peak_bytes - peak.baseline_bytes > 200_000_000
