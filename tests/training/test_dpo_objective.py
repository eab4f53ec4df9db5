"""Trajectory DPO: napkin math 16.4, the bound reference cache and its spot check, a learning run."""

from __future__ import annotations

import dataclasses
import random

import pytest
import torch
from tiny_model_factory import SHAPE, branch_pair

from trajectory_platform.training.data.preference_tokens import PreferencePair
from trajectory_platform.training.optim.dpo import (
    ReferenceBinding,
    ReferenceCache,
    StaleReferenceCache,
    dpo_step_function,
    dpo_terms,
    pair_accuracy,
    pair_span_sums,
)
from trajectory_platform.training.optim.loop import run_loop
from trajectory_platform.training.optim.model import tiny_llama, weights_digest
from trajectory_platform.training.optim.settings import OptimizerSettings

VOCAB = 40


def test_napkin_math_16_4():
    policy_c = torch.tensor(-8.0, requires_grad=True)
    terms = dpo_terms(policy_c, torch.tensor(-11.0), torch.tensor(-10.0), torch.tensor(-10.0), beta=0.2)
    assert terms.margin.item() == pytest.approx(0.6)
    assert torch.sigmoid(terms.margin).item() == pytest.approx(0.646, abs=5e-4)
    assert terms.loss.item() == pytest.approx(0.437, abs=5e-4)
    assert terms.coefficient.item() == pytest.approx(0.0709, abs=5e-5)
    terms.loss.backward()  # eq. 8: d loss / d (chosen policy sum) = -beta * sigmoid(-margin)
    assert policy_c.grad.item() == pytest.approx(-terms.coefficient.item(), rel=1e-6)
    doubled = dpo_terms(
        torch.tensor(-8.0), torch.tensor(-11.0), torch.tensor(-10.0), torch.tensor(-10.0), beta=0.4
    )
    assert doubled.margin.item() == pytest.approx(1.2)
    assert torch.sigmoid(-doubled.margin).item() == pytest.approx(0.231, abs=5e-4)
    assert doubled.coefficient.item() == pytest.approx(0.0926, abs=5e-5)
    at_reference = dpo_terms(
        torch.tensor(-10.0), torch.tensor(-10.0), torch.tensor(-10.0), torch.tensor(-10.0), 0.2
    )
    assert at_reference.loss.item() == pytest.approx(0.693, abs=5e-4)
    assert at_reference.coefficient.item() == pytest.approx(0.1)


def _pairs(count: int, seed: int = 1) -> list[PreferencePair]:
    """Shared prefix, then a chosen branch that is always tokens 1..3 and a rejected random branch."""
    rng = random.Random(seed)
    pairs = []
    for index in range(count):
        prefix = [rng.randrange(4, VOCAB) for _ in range(rng.randint(4, 10))]
        chosen = [1, 2, 3]
        rejected = [rng.randrange(4, VOCAB) for _ in range(rng.randint(2, 5))]
        pairs.append(branch_pair(str(index), prefix, chosen, rejected))
    return pairs


def _binding(model, **changes) -> ReferenceBinding:
    binding = ReferenceBinding(
        reference_weights_digest=weights_digest(model),
        adapter_config=None,
        tokenizer_digest="tok",
        template_digest="tpl",
        truncation="none",
        dtype="float32",
    )
    return dataclasses.replace(binding, **changes)


def test_reference_cache_binds_inputs_and_spot_checks(tmp_path):
    model = tiny_llama(VOCAB, seed=2, shape=SHAPE)
    pairs = _pairs(6)
    binding = _binding(model)
    cache = ReferenceCache(tmp_path / "ref.json")
    assert cache.precompute(model, pairs, binding) == {"hits": 0, "misses": 6}
    reopened = ReferenceCache(tmp_path / "ref.json")
    assert reopened.precompute(model, pairs, binding) == {"hits": 6, "misses": 0}
    assert reopened.spot_check(model, pairs, binding, sample=6) <= 1e-5
    # Any bound input changes the key: a new dtype, or one more selected index, is a miss.
    assert reopened.precompute(model, pairs[:1], _binding(model, dtype="bfloat16"))["misses"] == 1
    widened = dataclasses.replace(
        pairs[0], chosen_selected=(pairs[0].chosen_selected[0] - 1, *pairs[0].chosen_selected)
    )
    assert binding.entry_key(widened) != binding.entry_key(pairs[0])
    # A stale value (e.g. computed under other weights) is caught by the live recomputation.
    key = binding.entry_key(pairs[0])
    reopened.entries[key] = [reopened.entries[key][0] + 1e-3, reopened.entries[key][1]]
    with pytest.raises(StaleReferenceCache):
        reopened.spot_check(model, pairs[:1], binding, sample=1)


def test_shared_prefix_tokens_carry_no_score_and_policy_learns_the_preference(tmp_path):
    torch.manual_seed(0)
    model = tiny_llama(VOCAB, seed=3, shape=SHAPE)
    pairs = _pairs(16)
    binding = _binding(model)
    cache = ReferenceCache(tmp_path / "ref.json")
    cache.precompute(model, pairs, binding)
    reference = cache.sums(pairs, binding)
    chosen, rejected = pair_span_sums(model, pairs[:2])
    assert torch.allclose(chosen.double(), reference[:2, 0], atol=1e-5)
    before = pair_accuracy(model, pairs, reference, beta=0.5)
    assert before["loss"] == pytest.approx(0.693, abs=1e-3)  # policy == reference: margin 0
    step = dpo_step_function(model, pairs, reference, beta=0.5, pairs_per_step=8, seed=0, sft_weight=0.1)
    result = run_loop(
        model, step, max_steps=25, settings=OptimizerSettings(learning_rate=1e-2, warmup_steps=2)
    )
    after = pair_accuracy(model, pairs, reference, beta=0.5)
    assert after["loss"] < 0.4 and after["accuracy"] == 1.0
    assert result.losses[-1] < result.losses[0]
