"""Trajectory DPO over selected spans, with a bound reference log-prob cache (fine-tuning 16.8).

A pair is two token sequences sharing a conditioning prefix, each with the indices of the
policy tokens the comparison scores. The score of a sequence is the sum of its selected-token
log-probabilities -- computed through the package's single label shift
(:func:`trajectory_platform.training.optim.loss.selected_logprob_sums`) -- and the loss is equation 7.
Reference sums are computed once before training and cached under a key that binds every input
that changes them (16.8.2), then spot-checked against a live recomputation.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.preference_tokens import PreferencePair
from trajectory_platform.training.optim.loss import HeadPositions, selected_logprob_sums
from trajectory_platform.training.optim.sft import (
    StepStats,
    distributed_gradient_sum,
    distributed_sum,
    evaluating,
    model_logits,
    step_examples,
)

SPOT_CHECK_TOLERANCE = 1e-5


def selected_labels(ids: Sequence[int], selected: Sequence[int]) -> list[int]:
    """HF-aligned labels scoring exactly the selected positions (the loss code shifts them once)."""
    labels = [IGNORE_INDEX] * len(ids)
    for position in selected:
        labels[position] = ids[position]
    return labels


@dataclass(frozen=True)
class DpoTerms:
    """Equation 7 for one pair, with napkin math 16.4's diagnostic quantities."""

    loss: torch.Tensor
    margin: torch.Tensor
    coefficient: torch.Tensor  # beta * sigmoid(-margin): the pull on the gradient sums (eq. 8)


def dpo_terms(
    policy_chosen: torch.Tensor,
    policy_rejected: torch.Tensor,
    reference_chosen: torch.Tensor,
    reference_rejected: torch.Tensor,
    beta: float,
) -> DpoTerms:
    """Margin beta [(pi_c - ref_c) - (pi_r - ref_r)], loss -log sigmoid(margin), coefficient."""
    margin = beta * ((policy_chosen - reference_chosen) - (policy_rejected - reference_rejected))
    return DpoTerms(loss=-F.logsigmoid(margin), margin=margin, coefficient=beta * torch.sigmoid(-margin))


def padded_rows(sequences: Sequence[tuple[Sequence[int], Sequence[int]]]) -> dict[str, torch.Tensor]:
    """Right-padded ``input_ids`` / ``labels`` / ``attention_mask`` for a few unpacked sequences."""
    width = max(len(ids) for ids, _ in sequences)
    input_ids = torch.zeros(len(sequences), width, dtype=torch.long)
    labels = torch.full((len(sequences), width), IGNORE_INDEX, dtype=torch.long)
    attention = torch.zeros(len(sequences), width, dtype=torch.long)
    for row, (ids, row_labels) in enumerate(sequences):
        input_ids[row, : len(ids)] = torch.as_tensor(ids)
        labels[row, : len(ids)] = torch.as_tensor(row_labels)
        attention[row, : len(ids)] = 1
    return {"input_ids": input_ids, "labels": labels, "attention_mask": attention}


def pair_span_sums(
    model: torch.nn.Module,
    pairs: Sequence[PreferencePair],
    autocast_dtype: torch.dtype | None = None,
    *,
    head: HeadPositions = "targets",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Selected-span log-prob sums (chosen, rejected) for ``pairs`` in one padded forward.

    A span score reads the logits before its selected tokens only, so by default the head runs
    there alone (``head="targets"``; ``"all"`` is the full-logits reference, equal up to rounding).
    """
    sequences = [(p.chosen_ids, selected_labels(p.chosen_ids, p.chosen_selected)) for p in pairs]
    sequences += [(p.rejected_ids, selected_labels(p.rejected_ids, p.rejected_selected)) for p in pairs]
    batch = padded_rows(sequences)
    logits = model_logits(model, batch, autocast_dtype, head=head)
    sums = selected_logprob_sums(logits, batch["labels"].to(logits.device))
    return sums[: len(pairs)], sums[len(pairs) :]


@dataclass(frozen=True)
class ReferenceBinding:
    """Everything besides the pair's tokens that changes a reference sum (16.8.2)."""

    reference_weights_digest: str
    adapter_config: dict[str, Any] | None
    tokenizer_digest: str
    template_digest: str
    truncation: str
    dtype: str
    attention: str = "sdpa, right padding, positions from 0"

    def entry_key(self, pair: PreferencePair) -> str:
        payload = {
            **asdict(self),
            "chosen_ids": pair.chosen_ids,
            "chosen_selected": pair.chosen_selected,
            "rejected_ids": pair.rejected_ids,
            "rejected_selected": pair.rejected_selected,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class StaleReferenceCache(RuntimeError):
    """A cached reference sum disagrees with a live recomputation beyond the tolerance."""


class ReferenceCache:
    """Scalar reference sums per bound key, stored as one JSON file (keys bind all inputs)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.entries: dict[str, list[float]] = json.loads(self.path.read_text()) if self.path.exists() else {}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.entries, sort_keys=True))

    def precompute(
        self,
        model: torch.nn.Module,
        pairs: Sequence[PreferencePair],
        binding: ReferenceBinding,
        *,
        batch_pairs: int = 8,
        autocast_dtype: torch.dtype | None = None,
        head: HeadPositions = "targets",
    ) -> dict[str, int]:
        """Fill missing sums with ``model`` as the frozen reference; returns hit and miss counts."""
        missing = [p for p in pairs if binding.entry_key(p) not in self.entries]
        with evaluating(model):
            for start in range(0, len(missing), batch_pairs):
                chunk = missing[start : start + batch_pairs]
                chosen, rejected = pair_span_sums(model, chunk, autocast_dtype, head=head)
                for pair, c, r in zip(chunk, chosen.tolist(), rejected.tolist(), strict=True):
                    self.entries[binding.entry_key(pair)] = [c, r]
        if missing:
            self.save()
        return {"hits": len(pairs) - len(missing), "misses": len(missing)}

    def sums(self, pairs: Sequence[PreferencePair], binding: ReferenceBinding) -> torch.Tensor:
        """``[len(pairs), 2]`` cached (chosen, rejected) reference sums; KeyError when unbound."""
        return torch.tensor([self.entries[binding.entry_key(p)] for p in pairs], dtype=torch.float64)

    def spot_check(
        self,
        model: torch.nn.Module,
        pairs: Sequence[PreferencePair],
        binding: ReferenceBinding,
        *,
        sample: int = 4,
        seed: int = 0,
        tolerance: float = SPOT_CHECK_TOLERANCE,
        autocast_dtype: torch.dtype | None = None,
        head: HeadPositions = "targets",
    ) -> float:
        """Recompute a seeded sample live; raise :class:`StaleReferenceCache` past ``tolerance``."""
        chosen_pairs = random.Random(seed).sample(list(pairs), min(sample, len(pairs)))
        with evaluating(model):
            chosen, rejected = pair_span_sums(model, chosen_pairs, autocast_dtype, head=head)
        live = torch.stack([chosen, rejected], dim=1).double().cpu()
        worst = float((live - self.sums(chosen_pairs, binding)).abs().max())
        if not worst <= tolerance:
            raise StaleReferenceCache(
                f"cached reference sums differ from live by {worst:.3g} > {tolerance:g}"
            )
        return worst


def dpo_step_function(
    model: torch.nn.Module,
    pairs: Sequence[PreferencePair],
    reference_sums: torch.Tensor,
    *,
    beta: float,
    pairs_per_step: int,
    seed: int,
    sft_weight: float = 0.0,
    autocast_dtype: torch.dtype | None = None,
    on_terms: Callable[[DpoTerms], None] | None = None,
    head: HeadPositions = "targets",
) -> Callable[[int], StepStats]:
    """Per-step DPO work for :func:`~trajectory_platform.training.optim.loop.run_loop`.

    Pair losses are averaged over the global pair count; the optional auxiliary SFT term is the
    token-averaged NLL of the chosen record's selected tokens (16.8.1), weighted by ``sft_weight``.
    """
    per_step = min(pairs_per_step, len(pairs))
    device = next(model.parameters()).device

    def step(index: int) -> StepStats:
        chosen_indices = step_examples(len(pairs), index, per_step, seed)
        batch_pairs = [pairs[i] for i in chosen_indices]
        reference = reference_sums[chosen_indices].to(device=device, dtype=torch.float32)
        policy_chosen, policy_rejected = pair_span_sums(model, batch_pairs, autocast_dtype, head=head)
        terms = dpo_terms(policy_chosen, policy_rejected, reference[:, 0], reference[:, 1], beta)
        pair_count = distributed_sum(torch.tensor(float(len(batch_pairs)), device=device))
        loss = terms.loss.sum() / pair_count
        chosen_targets = sum(len(p.chosen_selected) for p in batch_pairs)
        if sft_weight:
            target_count = distributed_sum(torch.tensor(float(chosen_targets), device=device))
            loss = loss + sft_weight * (-policy_chosen.sum()) / target_count
        loss.backward()
        distributed_gradient_sum(model)
        if on_terms is not None:
            on_terms(terms)
        stored = sum(len(p.chosen_ids) + len(p.rejected_ids) for p in batch_pairs)
        return StepStats(
            loss=float(loss.detach()),
            targets=chosen_targets,
            stored_tokens=stored,
            denominator=int(pair_count.item()),
        )

    return step


def pair_accuracy(
    model: torch.nn.Module,
    pairs: Sequence[PreferencePair],
    reference_sums: torch.Tensor,
    beta: float,
    autocast_dtype: torch.dtype | None = None,
    head: HeadPositions = "targets",
) -> dict[str, float]:
    """Held-out DPO loss, mean margin and the share of pairs with a positive margin."""
    with evaluating(model):
        chosen, rejected = pair_span_sums(model, pairs, autocast_dtype, head=head)
        reference = reference_sums.to(device=chosen.device, dtype=torch.float32)
        terms = dpo_terms(chosen, rejected, reference[:, 0], reference[:, 1], beta)
    return {
        "loss": float(terms.loss.mean()),
        "margin": float(terms.margin.mean()),
        "accuracy": float((terms.margin > 0).float().mean()),
        "pairs": len(pairs),
        "chance_loss": math.log(2),
    }
