"""An adapter loads only onto the base whose weights digest its training manifest records (16.10.2)."""

from __future__ import annotations

import json

import pytest
import torch

from trajectory_platform.training.optim.checkpoint import MANIFEST_NAME, load_checkpoint_model
from trajectory_platform.training.optim.lora import AdapterBaseMismatch, attach_lora, is_adapter
from trajectory_platform.training.optim.model import default_base_dir, load_model, weights_digest
from trajectory_platform.training.optim.settings import LoraSettings


@pytest.fixture(scope="module")
def adapter_dir(eval_workdir, tmp_path_factory):
    """A saved (untrained) adapter on the tiny default base, with the manifest line that records the base."""
    base = load_model(default_base_dir(eval_workdir))
    digest = weights_digest(base)
    settings = LoraSettings(rank=2, alpha=4.0, target_modules=("q_proj",))
    out = tmp_path_factory.mktemp("adapter")
    attach_lora(base, settings, seed=0).save_pretrained(out)
    (out / MANIFEST_NAME).write_text(json.dumps({"update": {"base_digest": digest}}))
    return out


def test_the_recorded_base_loads(eval_workdir, adapter_dir):
    model = load_checkpoint_model(adapter_dir, base=load_model(default_base_dir(eval_workdir)))
    assert is_adapter(model)


def test_a_base_with_other_weights_is_refused(eval_workdir, adapter_dir):
    other = load_model(default_base_dir(eval_workdir))
    with torch.no_grad():
        next(other.parameters()).add_(1e-3)  # one tensor nudged: another base
    with pytest.raises(AdapterBaseMismatch, match="trained on base"):
        load_checkpoint_model(adapter_dir, base=other)
