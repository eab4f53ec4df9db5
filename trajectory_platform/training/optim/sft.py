"""Supervised fine-tuning on packed, selected-target batches (fine-tuning 16.4-16.5).

One optimizer step sees a fixed set of examples, split into sequential micro-batches (and, when
``torch.distributed`` is initialised, across workers). The step's denominator -- selected target
tokens for token averaging, examples with N_active > 0 for example averaging -- is counted from
the labels of ALL micro-batches on ALL workers before any forward pass, and every micro-batch
divides its numerator by that global count. Accumulated gradients are therefore the gradient of
the one global ratio, whatever the split (16.5.1), instead of an average of local means.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from trajectory_platform.training.optim.attention import VARLEN_ATTENTION
from trajectory_platform.training.optim.loss import (
    HEAD_POSITIONS,
    HeadPositions,
    LossSums,
    masked_loss_sums,
    target_denominator,
    target_head_positions,
)
from trajectory_platform.training.optim.packing import collate_packed, collate_shared_prefix, flatten_buffers
from trajectory_platform.training.optim.settings import Normalization

Example = dict[str, Any]
Batch = dict[str, torch.Tensor]


def distributed_sum(value: torch.Tensor) -> torch.Tensor:
    """Sum ``value`` over data-parallel workers in place when a process group exists."""
    if dist.is_available() and dist.is_initialized():
        dist.all_reduce(value, op=dist.ReduceOp.SUM)
    return value


def distributed_gradient_sum(model: torch.nn.Module) -> None:
    """Sum gradients over workers (not DDP's average): each worker already divided by the global count."""
    if dist.is_available() and dist.is_initialized():
        for parameter in model.parameters():
            if parameter.grad is not None:
                dist.all_reduce(parameter.grad, op=dist.ReduceOp.SUM)


@contextmanager
def evaluating(model: torch.nn.Module) -> Iterator[None]:
    """Eval mode and no autograd for the block, then the previous mode back (dropout off for scoring)."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        model.train(was_training)


def _has_shared_prefix(position_ids: torch.Tensor) -> bool:
    """Does a segment start at a position other than 0 (a suffix continuing a shared prefix)?"""
    starts = position_ids[:, 1:] != position_ids[:, :-1] + 1
    return bool((starts & (position_ids[:, 1:] != 0)).any())


def model_logits(
    model: torch.nn.Module,
    batch: Batch,
    autocast_dtype: torch.dtype | None = None,
    *,
    head: HeadPositions = "all",
) -> torch.Tensor:
    """Forward one collated batch; labels stay out of the model so it cannot shift them again.

    ``head="all"``: logits ``[B, T, V]`` at every position. ``head="targets"``: the model's own
    head runs only at :func:`~trajectory_platform.training.optim.loss.target_head_positions` of
    ``batch["labels"]`` (a boolean ``logits_to_keep``, so any soft-capping or scaling a model
    applies to its logits still applies), giving ``[N, V]`` for the N scored targets.
    """
    if head not in HEAD_POSITIONS:
        raise ValueError(f"head must be one of {HEAD_POSITIONS}, got {head!r}")
    device = next(model.parameters()).device
    if "position_ids" in batch and _has_shared_prefix(batch["position_ids"]):
        implementation = getattr(getattr(model, "config", None), "_attn_implementation", None)
        if implementation != VARLEN_ATTENTION:
            raise ValueError(
                f"a shared-prefix batch needs {VARLEN_ATTENTION} attention ({implementation!r} would cut "
                "each suffix off its prefix)"
            )
    inputs: dict[str, Any] = {
        key: batch[key].to(device) for key in ("input_ids", "attention_mask", "position_ids") if key in batch
    }
    if head == "targets":
        keep = target_head_positions(batch["labels"], batch.get("position_ids"))
        inputs["logits_to_keep"] = keep.to(device)
    with torch.autocast(
        device_type=device.type, dtype=autocast_dtype or torch.bfloat16, enabled=autocast_dtype is not None
    ):
        logits: torch.Tensor = model(**inputs, use_cache=False).logits
    if head == "targets" and logits.dim() != 2:
        raise ValueError(
            f"{type(model).__name__} ignored a boolean logits_to_keep (logits {tuple(logits.shape)}); "
            "score it with head='all'"
        )
    return logits


def batch_loss_sums(
    model: torch.nn.Module,
    batch: Batch,
    autocast_dtype: torch.dtype | None = None,
    *,
    head: HeadPositions = "targets",
) -> LossSums:
    """Numerators and denominators of one micro-batch (positions reset per packed example).

    ``head="targets"`` (the default) projects only the positions that predict a scored target;
    ``"all"`` is the full-logits reference path. Both give the same sums up to float rounding.
    """
    logits = model_logits(model, batch, autocast_dtype, head=head)
    return masked_loss_sums(
        logits, batch["labels"].to(logits.device), batch["position_ids"].to(logits.device)
    )


@dataclass
class StepStats:
    """What one optimizer step measured: the global loss and the token counts behind it."""

    loss: float
    targets: int
    stored_tokens: int
    denominator: int


def accumulate_gradients(
    model: torch.nn.Module,
    micro_batches: Sequence[Batch],
    normalization: Normalization,
    autocast_dtype: torch.dtype | None = None,
    *,
    head: HeadPositions = "targets",
) -> StepStats:
    """Backward every micro-batch against the global denominator; gradients are left in ``.grad``.

    Gradients are then summed across workers, giving the exact gradient of the global ratio.
    ``head`` as in :func:`batch_loss_sums`.
    """
    device = next(model.parameters()).device
    local_denominator = sum(
        target_denominator(b["labels"], b["position_ids"], normalization) for b in micro_batches
    )
    denominator = int(distributed_sum(torch.tensor(float(local_denominator), device=device)).item())
    if denominator == 0:
        raise ValueError("step has no selected targets: every example must have N_active > 0")
    totals = torch.zeros(3, device=device)
    for batch in micro_batches:
        sums = batch_loss_sums(model, batch, autocast_dtype, head=head)
        (sums.numerator(normalization) / denominator).backward()
        stored = batch.get("stored_tokens", torch.tensor(batch["input_ids"].numel()))
        totals += torch.stack(
            [sums.numerator(normalization).detach().float(), sums.targets.float(), stored.float().to(device)]
        )
    distributed_gradient_sum(model)
    distributed_sum(totals)
    return StepStats(
        loss=totals[0].item() / denominator,
        targets=int(totals[1].item()),
        stored_tokens=int(totals[2].item()),
        denominator=denominator,
    )


def collate_micro_batches(
    examples: Sequence[Example],
    micro_batches: int,
    capacity: int,
    *,
    attention: str = "position_ids",
    pad_token_id: int = 0,
    shared_prefix: bool = False,
    padding_free: bool = True,
) -> list[Batch]:
    """Split a step's examples into ``micro_batches`` contiguous groups and pack each group.

    ``shared_prefix``: store a context prefix that several examples of a micro-batch open with
    (the tool block and system prompt) once per buffer
    (:func:`~trajectory_platform.training.optim.packing.collate_shared_prefix`; varlen attention
    only); the same loss up to float rounding, with the prefix computed once per buffer.

    ``padding_free`` (with ``attention='position_ids'``): each micro-batch's buffers laid end to
    end in one row without their padding
    (:func:`~trajectory_platform.training.optim.packing.flatten_buffers`); the same loss up to
    float rounding, with no work on padding.
    """
    if micro_batches < 1 or micro_batches > len(examples):
        raise ValueError(f"cannot split {len(examples)} examples into {micro_batches} micro-batches")
    if shared_prefix and attention != "position_ids":
        raise ValueError("a shared prefix needs attention='position_ids' (varlen attention)")
    bounds = [round(i * len(examples) / micro_batches) for i in range(micro_batches + 1)]
    batches = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        if shared_prefix:
            batch = collate_shared_prefix(
                examples[start:end], capacity, pad_token_id=pad_token_id, return_segments=True
            )
        else:
            batch = collate_packed(
                examples[start:end],
                capacity,
                attention=attention,
                pad_token_id=pad_token_id,
                return_segments=True,
            )
        if padding_free and attention == "position_ids":
            batch = flatten_buffers(batch)
        # Positions carry the example boundaries; keep only the real-token count for tokens/s.
        batch["stored_tokens"] = (batch.pop("segment_ids") != -1).sum()
        batches.append(batch)
    return batches


def evaluate_masked_loss(
    model: torch.nn.Module,
    examples: Sequence[Example],
    *,
    normalization: Normalization,
    capacity: int,
    examples_per_batch: int = 16,
    attention: str = "position_ids",
    autocast_dtype: torch.dtype | None = None,
    head: HeadPositions = "targets",
    shared_prefix: bool = False,
) -> dict[str, float | int | str]:
    """Held-out loss with the training masks and normalization, reported with its target count.

    The count travels with the number because two masked losses are comparable only over the
    same targets (16.11.1).
    """
    numerator = denominator = targets = 0.0
    with evaluating(model):
        for start in range(0, len(examples), examples_per_batch):
            chunk = examples[start : start + examples_per_batch]
            batch = collate_micro_batches(
                chunk, 1, capacity, attention=attention, shared_prefix=shared_prefix
            )[0]
            sums = batch_loss_sums(model, batch, autocast_dtype, head=head)
            numerator += sums.numerator(normalization).item()
            denominator += sums.denominator(normalization).item()
            targets += sums.targets.item()
    loss = numerator / denominator if denominator else math.nan
    return {
        "loss": loss,
        "target_count": int(targets),
        "examples": len(examples),
        "normalization": normalization,
    }


def without_preamble(example: Example) -> Example:
    """``example`` with its preamble -- the tool block and system prompt, ``[1, preamble_end)`` --
    left out: the context warm-up's view of it (a curriculum over context, not over targets).

    Why: a small model from scratch learns to copy a name from the user's prompt into a call only
    when few tokens compete for its attention. Behind a ~400-token tool block the embedded model
    stayed at guessing names from their marginal after 8,000 examples; with the preamble left out
    for its first steps it copies them, and keeps copying once the preamble is back
    (docs/training.md, benchmarks/results/README.md). No target is dropped: the preamble holds none
    (:func:`~trajectory_platform.training.data.dataset.preamble_end` stops at the first target), and
    positions restart after the opening token, so relative distances inside the rest are unchanged.
    """
    end = int(example.get("preamble_end", 1))
    if end <= 1:
        return example
    ids, labels = example["input_ids"], example["labels"]
    return {
        **example,
        "input_ids": ids[:1] + ids[end:],
        "labels": labels[:1] + labels[end:],
        "preamble_end": 1,
    }


def step_examples(count: int, step: int, per_step: int, seed: int) -> list[int]:
    """Indices of the examples for ``step``: a seeded permutation per epoch, streamed.

    Derived from (seed, step) alone, so a resumed run sees exactly the batches it would have.
    """
    permutations: dict[int, list[int]] = {}
    indices = []
    for position in range(step * per_step, (step + 1) * per_step):
        epoch, offset = divmod(position, count)
        if epoch not in permutations:
            generator = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
            permutations[epoch] = torch.randperm(count, generator=generator).tolist()
        indices.append(permutations[epoch][offset])
    return indices


def sft_step_function(
    model: torch.nn.Module,
    examples: Sequence[Example],
    *,
    examples_per_step: int,
    micro_batches: int,
    capacity: int,
    normalization: Normalization,
    seed: int,
    attention: str = "position_ids",
    autocast_dtype: torch.dtype | None = None,
    head: HeadPositions = "targets",
    shared_prefix: bool = False,
    preamble_warmup_steps: int = 0,
) -> Callable[[int], StepStats]:
    """The per-step work of an SFT run, for :func:`trajectory_platform.training.optim.loop.run_loop`.

    A dataset smaller than the step uses every example once per step; more micro-batches than
    examples is capped (the split never changes the loss or the gradients, only peak memory).
    Steps before ``preamble_warmup_steps`` see the same examples :func:`without_preamble`.
    """
    per_step = min(examples_per_step, len(examples))
    micro_batches = min(micro_batches, per_step)

    def step(index: int) -> StepStats:
        chosen = [examples[i] for i in step_examples(len(examples), index, per_step, seed)]
        if index < preamble_warmup_steps:
            chosen = [without_preamble(example) for example in chosen]
        batches = collate_micro_batches(
            chosen, micro_batches, capacity, attention=attention, shared_prefix=shared_prefix
        )
        return accumulate_gradients(model, batches, normalization, autocast_dtype, head=head)

    return step
