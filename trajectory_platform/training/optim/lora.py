"""LoRA adapters through peft: attach with declared rank / alpha / targets, merge for serving.

An adapter is a weight delta relative to one exact base (16.10.2), so the training manifest
records the base digest beside rank, alpha and targets, :func:`load_adapter` refuses any other base
(:class:`AdapterBaseMismatch`), and the release ships both the adapter (loadable with peft) and a
merged dense copy (loadable with plain transformers).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TypeGuard

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import PreTrainedModel

from trajectory_platform.training.optim.model import weights_digest
from trajectory_platform.training.optim.settings import LoraSettings


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


class AdapterBaseMismatch(ValueError):
    """The base offered to an adapter is not the one it was trained on: the delta would be applied
    to other weights and the result would be neither model."""


def load_adapter(
    base: PreTrainedModel, adapter_dir: Path, *, base_digest: str | None, trainable: bool = False
) -> PeftModel:
    """Mount a saved adapter on its base, after checking ``base``'s weights digest against
    ``base_digest``, the one recorded when the adapter was trained (``None``: nothing was recorded,
    as for a run still in progress, so nothing can be checked)."""
    if base_digest is not None:
        offered = weights_digest(base)
        if offered != base_digest:
            raise AdapterBaseMismatch(
                f"{adapter_dir}: the adapter was trained on base {base_digest[:16]}, but the base "
                f"offered ({base.name_or_path}) is {offered[:16]}; load it onto the recorded base"
            )
    return PeftModel.from_pretrained(base, str(adapter_dir), is_trainable=trainable)


def is_adapter(model: torch.nn.Module) -> TypeGuard[PeftModel]:
    return isinstance(model, PeftModel)
