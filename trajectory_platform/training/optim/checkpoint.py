"""Checkpoint layout: loadable weights for serving, plus the state a run needs to resume.

``CKPT/`` holds ``config.json`` + ``model.safetensors`` (full fine-tuning; transformers loads it)
or ``adapter_config.json`` + ``adapter_model.safetensors`` (LoRA; peft loads it onto the base it
names) with a merged dense copy in ``CKPT/merged/``; the tokenizer files; ``trainer_state.pt``
(optimizer, scheduler, step, RNG, loss history) so an interrupted run resumes bit-for-bit on
CPU; and ``training_manifest.json`` written last by the runner.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, PreTrainedModel

from trajectory_platform.training.optim.lora import is_adapter, load_adapter, merged_copy

TRAINER_STATE = "trainer_state.pt"
MANIFEST_NAME = "training_manifest.json"
MERGED_DIRNAME = "merged"
WEIGHT_FILES = ("model.safetensors", "adapter_model.safetensors", "adapter_config.json", "config.json")


def rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {"torch": torch.random.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: dict[str, Any]) -> None:
    torch.random.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(
    out_dir: Path,
    model: PreTrainedModel | PeftModel,
    trainer_state: dict[str, Any],
    *,
    tokenizer: Any | None = None,
) -> None:
    """Write weights (adapter + merged copy for LoRA), tokenizer and resumable trainer state."""
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    serving_dirs = [out_dir]
    if is_adapter(model):
        merged_copy(model).save_pretrained(out_dir / MERGED_DIRNAME)
        serving_dirs.append(out_dir / MERGED_DIRNAME)
    if tokenizer is not None:
        for directory in serving_dirs:
            tokenizer.save_pretrained(directory)
    torch.save({**trainer_state, "rng": rng_state()}, out_dir / TRAINER_STATE)


def load_trainer_state(out_dir: Path) -> dict[str, Any] | None:
    path = out_dir / TRAINER_STATE
    return torch.load(path, weights_only=False) if path.exists() else None


def load_checkpoint_model(
    ckpt: Path,
    *,
    device: str | torch.device = "cpu",
    trainable: bool = False,
    base: PreTrainedModel | None = None,
) -> PreTrainedModel | PeftModel:
    """Load a checkpoint the way a consumer would: transformers, or peft onto the named base (refused
    when the base's weights differ from those the training manifest records)."""
    adapter_config = ckpt / "adapter_config.json"
    if adapter_config.exists():
        if base is None:
            base_path = json.loads(adapter_config.read_text())["base_model_name_or_path"]
            base = AutoModelForCausalLM.from_pretrained(base_path, dtype=torch.float32)
        # transformers wraps PreTrainedModel.to with functools.wraps, whose type loses the bound self
        return load_adapter(
            base.to(device), ckpt, base_digest=recorded_base_digest(ckpt), trainable=trainable
        )
    return AutoModelForCausalLM.from_pretrained(str(ckpt), dtype=torch.float32).to(device)


def recorded_base_digest(ckpt: Path) -> str | None:
    """The base weights digest the checkpoint's training manifest records (``None`` before the
    manifest is written, i.e. while the run that writes it is still going)."""
    path = ckpt / MANIFEST_NAME
    if not path.exists():
        return None
    digest = json.loads(path.read_text()).get("update", {}).get("base_digest")
    return str(digest) if digest is not None else None


def checkpoint_digest(ckpt: Path) -> str:
    """sha256 over the weight and config files a consumer loads: the candidate artifact digest."""
    digest = hashlib.sha256()
    for name in WEIGHT_FILES:
        path = ckpt / name
        if path.exists():
            digest.update(name.encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
