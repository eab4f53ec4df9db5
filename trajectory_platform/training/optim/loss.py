"""The masked next-token objective, split into globally reducible sums.

Fine-tuning 16.4-16.5: labels follow the Hugging Face convention (aligned with ``input_ids``,
``-100`` = no loss), so the model-side code must shift them exactly once. That single shift
lives in :func:`shifted_target_logprobs`; every loss in the package (SFT, validation, DPO span
scores) goes through it. Losses are returned as numerators and denominators rather than means,
because a token average over a batch split into micro-batches (or across workers) is only exact
when the raw sums are reduced before dividing (16.5.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F

from trajectory_platform.training.data.labels import IGNORE_INDEX

Normalization = Literal["token", "example"]
NORMALIZATIONS: tuple[str, ...] = ("token", "example")


def shifted_target_logprobs(
    logits: torch.Tensor, labels: torch.Tensor, position_ids: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of every selected target and its mask, shape ``[B, T-1]``.

    THE ONE LABEL SHIFT of the training package (nanoGPT style, written out where it can be
    read): the logits at position ``t-1`` predict the token at ``t``, so we pair
    ``logits[:, :-1]`` with ``labels[:, 1:]``. Callers hand in labels aligned with
    ``input_ids`` and never shift them themselves; doing so twice silently moves every mask by
    one token (16.4.2). With ``position_ids`` from a packed buffer, a target whose position is 0
    starts a new example, so the pair would cross an example boundary and is excluded.
    """
    predicting = logits[:, :-1, :]
    targets = labels[:, 1:]
    mask = targets != IGNORE_INDEX
    if position_ids is not None:
        mask = mask & (position_ids[:, 1:] != 0)
    safe_targets = torch.where(mask, targets, torch.zeros_like(targets))
    nll = F.cross_entropy(
        predicting.float().reshape(-1, predicting.shape[-1]), safe_targets.reshape(-1), reduction="none"
    ).view_as(targets)
    return torch.where(mask, -nll, torch.zeros_like(nll)), mask


def example_index(labels: torch.Tensor, position_ids: torch.Tensor | None = None) -> torch.Tensor:
    """A batch-unique integer per example for every target slot ``[B, T-1]``.

    A packed row holds several examples; each restarts its positions at 0 (16.5.3), so the
    running count of position resets numbers them. Unpacked rows are one example each.
    """
    rows, length = labels.shape
    row_base = torch.arange(rows, device=labels.device).unsqueeze(1) * length
    if position_ids is None:
        return row_base.expand(rows, length - 1)
    segment = (position_ids.expand(rows, -1) == 0).cumsum(-1)[:, 1:]
    return row_base + segment


@dataclass
class LossSums:
    """Additive pieces of a masked loss: reduce each across micro-batches and workers, then divide.

    ``target_nll`` sums -log p over selected targets (token averaging's numerator, its
    denominator is ``targets``); ``example_means`` sums each example's mean NLL (example
    averaging's numerator, its denominator is ``examples``, those with N_active > 0).
    """

    target_nll: torch.Tensor
    targets: torch.Tensor
    example_means: torch.Tensor
    examples: torch.Tensor

    def numerator(self, normalization: Normalization) -> torch.Tensor:
        return self.target_nll if normalization == "token" else self.example_means

    def denominator(self, normalization: Normalization) -> torch.Tensor:
        return self.targets if normalization == "token" else self.examples


def _per_example(
    values: torch.Tensor, mask: torch.Tensor, ids: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sum ``values`` and count ``mask`` per example id (ids compacted with ``unique``)."""
    _, compact = torch.unique(ids, return_inverse=True)
    slots = int(compact.max().item()) + 1 if compact.numel() else 0
    sums = torch.zeros(slots, dtype=values.dtype, device=values.device).index_add(
        0, compact.reshape(-1), values.reshape(-1)
    )
    counts = torch.zeros(slots, dtype=torch.long, device=values.device).index_add(
        0, compact.reshape(-1), mask.reshape(-1).long()
    )
    return sums, counts


def masked_loss_sums(
    logits: torch.Tensor, labels: torch.Tensor, position_ids: torch.Tensor | None = None
) -> LossSums:
    """Both normalizations' numerators and denominators for one (micro-)batch (eq. 2 and 3)."""
    logprobs, mask = shifted_target_logprobs(logits, labels, position_ids)
    nll = -logprobs
    sums, counts = _per_example(nll, mask, example_index(labels, position_ids))
    active = counts > 0
    means = sums[active] / counts[active]
    return LossSums(
        target_nll=nll.sum(),
        targets=mask.sum(),
        example_means=means.sum(),
        examples=active.sum(),
    )


def target_denominator(
    labels: torch.Tensor, position_ids: torch.Tensor | None, normalization: Normalization
) -> int:
    """The denominator a micro-batch contributes, known from labels alone (no forward pass).

    Counting it up front lets a step divide every micro-batch's numerator by the GLOBAL
    denominator before ``backward``, so accumulated gradients equal the full-batch gradient.
    """
    mask = labels[:, 1:] != IGNORE_INDEX
    if position_ids is not None:
        mask = mask & (position_ids[:, 1:] != 0)
    if normalization == "token":
        return int(mask.sum().item())
    _, counts = _per_example(mask.float(), mask, example_index(labels, position_ids))
    return int((counts > 0).sum().item())


def selected_logprob_sums(
    logits: torch.Tensor, labels: torch.Tensor, position_ids: torch.Tensor | None = None
) -> torch.Tensor:
    """Per-row sum of selected-target log-probabilities (the DPO span score, 16.8.1)."""
    logprobs, _ = shifted_target_logprobs(logits, labels, position_ids)
    return logprobs.sum(dim=-1)
