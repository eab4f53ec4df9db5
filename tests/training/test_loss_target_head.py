"""The LM head and log-softmax only where a target is scored (training/optim/loss.py, sft.py, dpo.py).

``head="targets"`` (the default) projects only the positions that predict a scored target;
``head="all"`` projects every position and is the reference. These tests hold the two to the same
loss (1e-6 relative) and the same gradients (1e-6 of the largest), on packed micro-batches of
several examples -- one with no target at all -- for full fine-tuning, LoRA, both normalizations,
validation and DPO span scores, and show the head really sees fewer rows.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
import torch
from tiny_model_factory import SHAPE, branch_pair

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.preference_tokens import PreferencePair
from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.dpo import dpo_step_function, pair_span_sums
from trajectory_platform.training.optim.lora import attach_lora
from trajectory_platform.training.optim.loss import (
    masked_loss_sums,
    shifted_target_logprobs,
    target_head_positions,
)
from trajectory_platform.training.optim.model import tiny_llama
from trajectory_platform.training.optim.settings import LoraSettings
from trajectory_platform.training.optim.sft import (
    accumulate_gradients,
    collate_micro_batches,
    evaluate_masked_loss,
    model_logits,
)

VOCAB = 256
LOSS_RTOL = 1e-6
GRAD_RTOL = 1e-6  # of the largest gradient entry


def _examples(count: int = 10, seed: int = 4) -> list[dict]:
    """Packable examples with sparse scattered targets (~15%); example 2 has no target at all."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        length = rng.choice([9, 17, 26, 40, 55])
        ids = [rng.randrange(1, VOCAB) for _ in range(length)]
        labels = [IGNORE_INDEX] * length
        if index != 2:
            for position in rng.sample(range(1, length), max(1, length // 7)):
                labels[position] = ids[position]
        out.append({"input_ids": ids, "labels": labels})
    return out


def _model(lora: bool) -> torch.nn.Module:
    model = tiny_llama(VOCAB, seed=5, shape=SHAPE)
    model.set_attn_implementation(VARLEN_ATTENTION)
    if lora:
        settings = LoraSettings(rank=4, alpha=8.0, target_modules=("q_proj", "v_proj", "down_proj"))
        model = attach_lora(model, settings, seed=1)
        # LoRA starts at B = 0, where its gradients would not see the head; move off that point.
        with torch.no_grad():
            for name, parameter in model.named_parameters():
                if "lora_B" in name:
                    parameter.normal_(0, 0.05, generator=torch.Generator().manual_seed(len(name)))
    return model.train()


def _gradients(model: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.grad.flatten() for p in model.parameters() if p.requires_grad])


def _assert_same(loss_all: float, loss_targets: float, grads_all: torch.Tensor, grads_targets: torch.Tensor):
    assert loss_targets == pytest.approx(loss_all, rel=LOSS_RTOL)
    worst = (grads_all - grads_targets).abs().max().item()
    assert worst <= GRAD_RTOL * grads_all.abs().max().item()


def test_head_positions_are_the_predicting_side_of_the_one_shift():
    """Position t-1 for each scored target t; a target starting a packed example is never scored."""
    labels = torch.tensor([[IGNORE_INDEX, 7, IGNORE_INDEX, 9, 4, IGNORE_INDEX]])
    positions = torch.tensor([[0, 1, 2, 0, 1, 2]])  # two examples; token 3 (label 9) starts the second
    assert target_head_positions(labels).tolist() == [[True, False, True, True, False, False]]
    assert target_head_positions(labels, positions).tolist() == [[True, False, False, True, False, False]]


def test_gathered_logits_give_the_full_logits_logprobs_exactly():
    """On the same logit values the two forms are one computation: equal bit for bit."""
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 12, 17, generator=generator)
    labels = torch.randint(0, 17, (2, 12), generator=generator)
    labels[torch.rand(2, 12, generator=generator) < 0.7] = IGNORE_INDEX
    positions = torch.tensor([[0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 3, 4]] * 2)
    keep = target_head_positions(labels, positions)
    full, mask = shifted_target_logprobs(logits, labels, positions)
    gathered, same_mask = shifted_target_logprobs(logits[keep], labels, positions)
    assert torch.equal(mask, same_mask) and torch.equal(full, gathered)
    assert masked_loss_sums(logits[keep], labels, positions).target_nll == (
        masked_loss_sums(logits, labels, positions).target_nll
    )
    with pytest.raises(ValueError, match="gathered logit rows"):
        shifted_target_logprobs(logits[keep][1:], labels, positions)


@pytest.mark.parametrize("lora", [False, True], ids=["full", "lora"])
@pytest.mark.parametrize("normalization", ["token", "example"])
def test_sft_loss_and_gradients_match_the_full_logits_path(lora, normalization):
    examples = _examples()
    batches = collate_micro_batches(examples, 2, 96)
    assert any(int((b["position_ids"] == 0).sum(-1).max()) > 2 for b in batches)  # rows hold several
    results = {}
    for head in ("all", "targets"):
        model = _model(lora)
        stats = accumulate_gradients(model, batches, normalization, head=head)
        results[head] = (stats.loss, _gradients(model))
    _assert_same(*(v[0] for v in results.values()), *(v[1] for v in results.values()))
    assert results["all"][1].abs().max() > 0


def test_a_micro_batch_without_targets_contributes_nothing_on_either_path():
    """Every selected target in one micro-batch; the other (the target-free example) is all context."""
    examples = _examples()
    empty = examples[2]
    assert all(label == IGNORE_INDEX for label in empty["labels"])
    batches = collate_micro_batches(examples[:2], 1, 96) + collate_micro_batches([empty], 1, 96)
    results = {}
    for head in ("all", "targets"):
        model = _model(lora=False)
        stats = accumulate_gradients(model, batches, "token", head=head)
        results[head] = (stats.loss, _gradients(model))
    _assert_same(*(v[0] for v in results.values()), *(v[1] for v in results.values()))
    with torch.no_grad():
        assert model_logits(model, batches[1], head="targets").shape == (0, VOCAB)


def test_the_head_sees_only_the_scored_positions():
    examples = _examples()
    batch = collate_micro_batches(examples, 1, 96)[0]
    model = _model(lora=False)
    rows: list[int] = []
    model.get_output_embeddings().register_forward_hook(
        lambda _module, args, _out: rows.append(args[0].reshape(-1, args[0].shape[-1]).shape[0])
    )
    with torch.no_grad():
        model_logits(model, batch, head="all")
        model_logits(model, batch, head="targets")
    scored = int(target_head_positions(batch["labels"], batch["position_ids"]).sum())
    assert rows == [batch["input_ids"].numel(), scored]
    assert scored < batch["input_ids"].numel() / 4


def test_validation_loss_matches():
    examples = _examples()
    model = _model(lora=False)
    full = evaluate_masked_loss(model, examples, normalization="token", capacity=96, head="all")
    gathered = evaluate_masked_loss(model, examples, normalization="token", capacity=96, head="targets")
    assert gathered["target_count"] == full["target_count"]
    assert gathered["loss"] == pytest.approx(full["loss"], rel=LOSS_RTOL)


def _pairs(count: int = 6, seed: int = 2) -> list[PreferencePair]:
    rng = random.Random(seed)
    pairs = []
    for index in range(count):
        prefix = [rng.randrange(4, VOCAB) for _ in range(rng.randint(6, 30))]
        chosen = [rng.randrange(4, VOCAB) for _ in range(rng.randint(2, 8))]
        rejected = [rng.randrange(4, VOCAB) for _ in range(rng.randint(2, 8))]
        pairs.append(branch_pair(str(index), prefix, chosen, rejected))
    return pairs


@pytest.mark.parametrize("lora", [False, True], ids=["full", "lora"])
def test_dpo_span_sums_and_gradients_match(lora):
    pairs = _pairs()
    with torch.no_grad():
        reference = torch.stack(pair_span_sums(_model(lora), pairs, head="all"), dim=1).double()
        gathered = torch.stack(pair_span_sums(_model(lora), pairs, head="targets"), dim=1).double()
    torch.testing.assert_close(gathered, reference, rtol=LOSS_RTOL, atol=0)
    results = {}
    for head in ("all", "targets"):
        model = _model(lora)
        step = dpo_step_function(
            model, pairs, reference - 0.5, beta=0.3, pairs_per_step=6, seed=0, sft_weight=0.2, head=head
        )
        results[head] = (step(0).loss, _gradients(model))
    _assert_same(*(v[0] for v in results.values()), *(v[1] for v in results.values()))


def test_a_model_that_ignores_logits_to_keep_is_refused():
    """A model returning every position's logits would be paired with the wrong targets."""

    class Plain(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))

        def forward(self, input_ids: torch.Tensor, **_: object) -> SimpleNamespace:
            return SimpleNamespace(logits=torch.zeros(*input_ids.shape, 5))

    batch = collate_micro_batches(_examples(2), 1, 96)[0]
    with pytest.raises(ValueError, match="logits_to_keep"):
        model_logits(Plain(), batch, head="targets")
