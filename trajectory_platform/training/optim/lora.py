"""LoRA adapters through peft: attach with declared rank / alpha / targets, merge for serving.

An adapter is a weight delta relative to one exact base (16.10.2), so :func:`adapter_manifest`
records the base digest beside rank, alpha and targets, and the release ships both the adapter
(loadable with peft) and a merged dense copy (loadable with plain transformers).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeGuard

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import PreTrainedModel

DEFAULT_TARGETS: tuple[str, ...] = (
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
)


@dataclass(frozen=True)
class LoraSettings:
    """Capacity knobs of an adapter run (16.10): rank, scaling alpha, and which projections."""

    rank: int = 8
    alpha: float = 16.0
    target_modules: tuple[str, ...] = DEFAULT_TARGETS
    dropout: float = 0.0

    def as_dict(self) -> dict:
        return {**asdict(self), "target_modules": list(self.target_modules)}


def attach_lora(model: PreTrainedModel, settings: LoraSettings, *, seed: int = 0) -> PeftModel:
    """Freeze ``model`` and wrap it with LoRA factors (B = 0, so training starts at the base mapping).

    peft draws the A factors from the global RNG; seeding here makes adapter init reproducible.
    """
    config = LoraConfig(
        r=settings.rank,
        lora_alpha=settings.alpha,
        target_modules=list(settings.target_modules),
        lora_dropout=settings.dropout,
        bias="none",
        task_type="CAUSAL_LM",
    )
    state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        return get_peft_model(model, config)
    finally:
        torch.random.set_rng_state(state)


def merged_copy(model: PeftModel) -> PreTrainedModel:
    """A dense model with W = W0 + (alpha / r) B A folded in; the training model is left intact."""
    return copy.deepcopy(model).merge_and_unload()


def load_adapter(base: PreTrainedModel, adapter_dir: Path, *, trainable: bool = False) -> PeftModel:
    """Mount a saved adapter on its base (the caller checks the base digest against the manifest)."""
    return PeftModel.from_pretrained(base, str(adapter_dir), is_trainable=trainable)


def is_adapter(model: torch.nn.Module) -> TypeGuard[PeftModel]:
    return isinstance(model, PeftModel)
