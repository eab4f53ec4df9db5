"""The masked next-token objective, split into globally reducible sums.

Fine-tuning 16.4-16.5: labels follow the Hugging Face convention (aligned with ``input_ids``,
``-100`` = no loss), so the model-side code must shift them exactly once. That single shift
lives in :func:`shifted_target_logprobs`; every loss in the package (SFT, validation, DPO span
scores) goes through it. Losses are returned as numerators and denominators rather than means,
because a token average over a batch split into micro-batches (or across workers) is only exact
when the raw sums are reduced before dividing (16.5.1).

Most positions of an SFT or DPO row carry no target, so the LM head (hidden x vocabulary) and the
log-softmax need not run there at all: :func:`target_head_positions` names the positions whose
logits the shifted loss reads, the model projects only those (``logits_to_keep``), and
:func:`shifted_target_logprobs` takes either those gathered logits or logits for every position.
Both pair the same logits with the same targets, so the loss is the same up to float rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F

from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.optim.settings import Normalization

HeadPositions = Literal["targets", "all"]
"""Where the LM head runs: ``targets`` only at positions that predict a selected target (the
product default, exact up to float rounding), ``all`` at every position (the reference path)."""
HEAD_POSITIONS: tuple[str, ...] = ("targets", "all")


def _shifted_targets(
    labels: torch.Tensor, position_ids: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The label side of the one shift: targets ``labels[:, 1:]`` and which of them are scored,
    both ``[B, T-1]`` -- selected, and not the first token of a packed segment (its position does
    not continue the previous one: a reset to 0, or a shared-prefix suffix's jump back), whose pair
    with the previous position would cross examples. The loss, the head positions and the
    denominators all read this one mask, so they agree by construction."""
    targets = labels[:, 1:]
    mask = targets != IGNORE_INDEX
    if position_ids is not None:
        mask = mask & (position_ids[:, 1:] == position_ids[:, :-1] + 1)
    return targets, mask


def target_head_positions(labels: torch.Tensor, position_ids: torch.Tensor | None = None) -> torch.Tensor:
    """Positions ``[B, T]`` whose logits the loss reads: ``t-1`` for every scored target ``t``.

    The predicting side of the one shift below, as a boolean ``logits_to_keep`` for the model:
    the head projects ``hidden[keep]`` (row-major), and :func:`shifted_target_logprobs` pairs those
    rows with the scored targets in the same order. The last position predicts nothing.
    """
    _, mask = _shifted_targets(labels, position_ids)
    return torch.cat([mask, mask.new_zeros(mask.shape[0], 1)], dim=1)


def shifted_target_logprobs(
    logits: torch.Tensor, labels: torch.Tensor, position_ids: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of every selected target and its mask, shape ``[B, T-1]``.

    THE ONE LABEL SHIFT of the training package (nanoGPT style, written out where it can be
    read): the logits at position ``t-1`` predict the token at ``t``, so we pair
    ``logits[:, :-1]`` with ``labels[:, 1:]``. Callers hand in labels aligned with
    ``input_ids`` and never shift them themselves; doing so twice silently moves every mask by
    one token (16.4.2). With ``position_ids`` from a packed buffer, a target whose position does
    not continue the previous one (0: a new example) starts a new segment, so the pair would cross
    an example boundary and is excluded.

    ``logits`` are either ``[B, T, V]`` (every position) or ``[N, V]``: only the rows at
    :func:`target_head_positions` (``t-1`` of each scored target, row-major), already shifted by
    that selection. Both give the same values at the scored targets and zeros elsewhere; the
    gathered form skips the head and the log-softmax where nothing is scored.
    """
    targets, mask = _shifted_targets(labels, position_ids)
    if logits.dim() == 2:
        if logits.shape[0] != int(mask.sum()):
            raise ValueError(
                f"{logits.shape[0]} gathered logit rows for {int(mask.sum())} scored targets: gather them "
                "at target_head_positions(labels, position_ids)"
            )
        nll = F.cross_entropy(logits.float(), targets[mask], reduction="none")
        return torch.zeros(mask.shape, dtype=nll.dtype, device=nll.device).masked_scatter(mask, -nll), mask
    predicting = logits[:, :-1, :]
    safe_targets = torch.where(mask, targets, torch.zeros_like(targets))
    nll = F.cross_entropy(
        predicting.float().reshape(-1, predicting.shape[-1]), safe_targets.reshape(-1), reduction="none"
    ).view_as(targets)
    return torch.where(mask, -nll, torch.zeros_like(nll)), mask


def example_index(labels: torch.Tensor, position_ids: torch.Tensor | None = None) -> torch.Tensor:
    """A batch-unique integer per example for every target slot ``[B, T-1]``.

    A packed row holds several examples; each restarts its positions at 0 (16.5.3), or, after a
    shared prefix, at the prefix length, so the running count of positions that do not continue
    the previous one numbers them. Unpacked rows are one example each.
    """
    rows, length = labels.shape
    row_base = torch.arange(rows, device=labels.device).unsqueeze(1) * length
    if position_ids is None:
        return row_base.expand(rows, length - 1)
    positions = position_ids.expand(rows, -1)
    starts = positions[:, 1:] != positions[:, :-1] + 1
    return row_base + starts.long().cumsum(-1)


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
    """Both normalizations' numerators and denominators for one (micro-)batch (eq. 2 and 3).

    ``logits`` as :func:`shifted_target_logprobs` takes them: every position, or gathered.
    """
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
    _, mask = _shifted_targets(labels, position_ids)
    if normalization == "token":
        return int(mask.sum().item())
    _, counts = _per_example(mask.float(), mask, example_index(labels, position_ids))
    return int((counts > 0).sum().item())


def selected_logprob_sums(
    logits: torch.Tensor, labels: torch.Tensor, position_ids: torch.Tensor | None = None
) -> torch.Tensor:
    """Per-row sum of selected-target log-probabilities (the DPO span score, 16.8.1).

    ``logits`` as :func:`shifted_target_logprobs` takes them: every position, or gathered.
    """
    logprobs, _ = shifted_target_logprobs(logits, labels, position_ids)
    return logprobs.sum(dim=-1)
