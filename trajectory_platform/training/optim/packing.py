"""Sequence packing without cross-contamination (fine-tuning 16.5.2-16.5.3).

Packing is only a memory layout: several serialized examples share one fixed-capacity buffer, and
the model must compute exactly what it would compute on each example alone. Three things make
that true, and :func:`collate_packed` provides all three:

- **block-diagonal attention**: a query attends only to keys of its own example at or before its
  position (equation 4); trailing padding is its own segment so no real token reads it;
- **per-example position reset**: ``position_ids`` restart at 0 at every example boundary;
- **no label crossing a boundary**: labels follow the Hugging Face convention (aligned with
  ``input_ids``, ``-100`` = no loss; the model shifts once), and the first position of every
  example is context, so the shifted pair (last token of example k, first token of example k+1)
  never carries a loss.

Public API (consumed by the training stage)::

    pack_lengths(lengths, capacity) -> list[list[int]]
    collate_packed(examples, capacity, *, attention="4d", dtype=torch.float32,
                   return_segments=False) -> dict[str, torch.Tensor]

``collate_packed`` returns ``input_ids``, ``labels``, ``position_ids`` (each ``[buffers, capacity]``
int64) and ``attention_mask``: with ``attention="4d"`` an additive float mask
``[buffers, 1, capacity, capacity]`` (0 = attend, ``finfo(dtype).min`` = blocked) that transformers'
Llama/Qwen2 eager and sdpa attention use as-is; with ``attention="position_ids"`` the key is
omitted and transformers derives the same block-diagonal mask (or flash-attention varlen
boundaries) from the reset ``position_ids`` -- only when the forward call has no KV cache, so
call the model with ``use_cache=False``. Pass ``input_ids``, ``attention_mask`` and
``position_ids`` to the model and compute the masked loss from ``labels`` yourself (or let the
model do it: its single internal shift is the correct one). ``return_segments=True`` adds
``segment_ids`` (``[buffers, capacity]``, the index of the example in ``examples`` at each
position, ``-1`` on padding) for per-example (example-averaged) loss; pop it before calling the
model.

:func:`collate_shared_prefix` is the same layout for examples that open with the same tokens (the
tool block and system prompt): examples are grouped by their common context prefix, each row holds
chunks of one group's prefix stored once followed by members' suffixes, whose positions continue
from the prefix length; :mod:`trajectory_platform.training.optim.attention` lets each suffix attend
to its chunk's prefix (varlen attention only). ``segment_ids`` is ``-2`` on a shared prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from trajectory_platform.training.data.labels import IGNORE_INDEX


def pack_lengths(lengths: Sequence[int], capacity: int) -> list[list[int]]:
    """Best-fit-decreasing bin packing: example indices per buffer.

    Examples are placed longest first, each into the open buffer whose remaining room is the
    smallest that still fits it (ties: the earliest-opened buffer), else into a new buffer. Best
    fit leaves large holes open for the mid-size examples still to come, which is why it beats
    first fit on agent length distributions. Deterministic: equal lengths keep input order, and
    indices inside a buffer are listed in placement order. Raises ``ValueError`` for a
    non-positive capacity or an example longer than the capacity (the caller decides whether to
    drop or split it; packing never truncates).
    """
    if capacity <= 0:
        raise ValueError(f"capacity must be positive, got {capacity}")
    for index, length in enumerate(lengths):
        if length <= 0 or length > capacity:
            raise ValueError(f"example {index} has length {length}, outside 1..{capacity}")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    buffers: list[list[int]] = []
    room: list[int] = []
    for index in order:
        length = lengths[index]
        best = -1
        for slot, free in enumerate(room):
            if length <= free and (best < 0 or free < room[best]):
                best = slot
        if best < 0:
            buffers.append([index])
            room.append(capacity - length)
        else:
            buffers[best].append(index)
            room[best] -= length
    return buffers


def occupancy(lengths: Sequence[int], buffers: Sequence[Sequence[int]], capacity: int) -> float:
    """Stored tokens divided by allocated positions (notebook 16.2's occupancy)."""
    allocated = capacity * len(buffers)
    return sum(lengths[i] for buffer in buffers for i in buffer) / allocated if allocated else 0.0


def padded_occupancy(lengths: Sequence[int]) -> float:
    """Occupancy of one padded row per example at the maximum length (mean / max)."""
    return sum(lengths) / (len(lengths) * max(lengths)) if lengths else 0.0


def block_diagonal_mask(segment_ids: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Additive 4D mask ``[batch, 1, n, n]``: 0 where key j <= query i in the same segment.

    Every query sees at least itself, so no softmax row is empty (padding rows included).
    """
    same = segment_ids[:, :, None] == segment_ids[:, None, :]
    n = segment_ids.shape[-1]
    causal = torch.ones(n, n, dtype=torch.bool, device=segment_ids.device).tril()
    allowed = same & causal
    mask = torch.zeros(allowed.shape, dtype=dtype, device=segment_ids.device)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    return mask[:, None, :, :]


def flatten_buffers(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``batch`` (collated with ``return_segments=True``) as one row of its real tokens, buffer
    after buffer, without the padding.

    Under varlen attention a buffer is only a memory layout: every example attends to its own
    segment (and its shared prefix), found from the reset ``position_ids``, so laying the buffers
    end to end computes the same thing while no projection, MLP or attention runs on padding
    (about a quarter of the positions at the product's batch). Each buffer opens at position 0,
    so its first segment still starts a new one. This is the padding-free layout of transformers'
    ``DataCollatorWithFlattening`` and TRL's ``padding_free``, whose flash-attention kernels read
    the same boundaries from ``position_ids``; with a dense 4D mask it does not apply.
    """
    if "attention_mask" in batch:
        raise ValueError("flattened buffers need varlen attention: collate with attention='position_ids'")
    real = batch["segment_ids"] != -1
    return {key: value[real][None] for key, value in batch.items()}


def _checked_lengths(examples: Sequence[dict[str, Any]]) -> list[int]:
    """Each example's length, once its labels match its ids and its first label is no target (a
    target there would be predicted from the previous example in the buffer)."""
    lengths = []
    for index, example in enumerate(examples):
        ids, labels = example["input_ids"], example["labels"]
        if len(ids) != len(labels):
            raise ValueError(f"example {index}: {len(ids)} input_ids but {len(labels)} labels")
        if len(labels) and labels[0] != IGNORE_INDEX:
            raise ValueError(f"example {index}: first label must be {IGNORE_INDEX} (no preceding position)")
        lengths.append(len(ids))
    return lengths


def collate_packed(
    examples: Sequence[dict[str, Any]],
    capacity: int,
    *,
    pad_token_id: int = 0,
    attention: str = "4d",
    dtype: torch.dtype = torch.float32,
    return_segments: bool = False,
) -> dict[str, torch.Tensor]:
    """Pack ``examples`` (each with ``input_ids`` and ``labels`` lists) into buffers of ``capacity``.

    Buffers are chosen by :func:`pack_lengths`; see the module docstring for the returned keys.
    Raises ``ValueError`` when an example's labels do not match its ids, when its first label is
    a target (it has no preceding position inside its own example, so a target there would be
    predicted from the previous example), or when an example exceeds the capacity.
    """
    if attention not in ("4d", "position_ids"):
        raise ValueError(f"attention must be '4d' or 'position_ids', got {attention!r}")
    lengths = _checked_lengths(examples)
    buffers = pack_lengths(lengths, capacity)
    rows = len(buffers)
    input_ids = torch.full((rows, capacity), pad_token_id, dtype=torch.long)
    labels = torch.full((rows, capacity), IGNORE_INDEX, dtype=torch.long)
    position_ids = torch.zeros((rows, capacity), dtype=torch.long)
    segments = torch.full((rows, capacity), -1, dtype=torch.long)
    for row, members in enumerate(buffers):
        start = 0
        for index in members:
            end = start + lengths[index]
            input_ids[row, start:end] = torch.as_tensor(examples[index]["input_ids"], dtype=torch.long)
            labels[row, start:end] = torch.as_tensor(examples[index]["labels"], dtype=torch.long)
            position_ids[row, start:end] = torch.arange(end - start)
            segments[row, start:end] = index
            start = end
        # Padding restarts positions too, so position-based packing detection sees it as its own segment.
        position_ids[row, start:] = torch.arange(capacity - start)
    batch = {"input_ids": input_ids, "labels": labels, "position_ids": position_ids}
    if attention == "4d":
        batch["attention_mask"] = block_diagonal_mask(segments, dtype)
    if return_segments:
        batch["segment_ids"] = segments
    return batch


SHARED_PREFIX_SEGMENT = -2
"""``segment_ids`` of a shared prefix: stored once for several examples, belonging to none."""


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    return length


def _shareable(example: dict[str, Any]) -> int:
    """The longest prefix this example can share: context only, and its suffix must open with a
    context token too (the suffix's first token is predicted by the prefix's last position, which
    a shared row cannot pair with it), so no target is lost."""
    labels = example["labels"]
    first_target = next((i for i, label in enumerate(labels) if label != IGNORE_INDEX), len(labels))
    return max(0, min(first_target, len(labels)) - 1)


def shared_prefix_groups(examples: Sequence[dict[str, Any]], min_prefix: int) -> list[tuple[int, list[int]]]:
    """``(prefix length, member indices)`` per group; examples sharing less than ``min_prefix``
    context tokens with their neighbours form the group of prefix length 0 (plain packing).

    Examples are sorted by their token ids, so those with long common prefixes are neighbours, then
    grouped greedily while the group's common shareable prefix stays at least ``min_prefix``.
    Deterministic: ties keep input order.
    """
    order = sorted(range(len(examples)), key=lambda i: (list(examples[i]["input_ids"]), i))
    groups: list[tuple[int, list[int]]] = []
    plain: list[int] = []
    members: list[int] = []
    prefix = 0

    def close() -> None:
        if len(members) > 1:
            groups.append((prefix, list(members)))
        else:
            plain.extend(members)

    for index in order:
        if members:
            shared = min(
                prefix,
                _shareable(examples[index]),
                _common_prefix(examples[members[-1]]["input_ids"], examples[index]["input_ids"]),
            )
            if shared >= min_prefix:
                members.append(index)
                prefix = shared
                continue
            close()
        members, prefix = [index], _shareable(examples[index])
    close()
    return [(0, sorted(plain)), *groups] if plain else groups


def collate_shared_prefix(
    examples: Sequence[dict[str, Any]],
    capacity: int,
    *,
    min_prefix: int = 16,
    pad_token_id: int = 0,
    return_segments: bool = False,
) -> dict[str, torch.Tensor]:
    """Pack ``examples`` with each group's common context prefix stored once per chunk.

    A group's suffixes are packed best-fit-decreasing into chunks ``prefix | suffix_1 | suffix_2 |
    ...`` of at most ``capacity`` tokens (prefix positions ``0..P-1``, each suffix's positions
    ``P..``), and the chunks and the examples that share nothing are packed best-fit-decreasing
    into the buffers, so several groups can share a buffer and occupancy stays that of plain
    packing; padding restarts at 0. Under varlen attention every suffix sees its chunk's prefix keys
    and its own, exactly what the whole example sees alone, so the loss is that of
    :func:`collate_packed` up to float rounding while the prefix is computed once per chunk rather
    than once per example. Requires the varlen attention: transformers' own position-derived
    packing would cut the suffixes off their prefix.
    """
    lengths = _checked_lengths(examples)
    for index, length in enumerate(lengths):
        if not 1 <= length <= capacity:
            raise ValueError(f"example {index} has length {length}, outside 1..{capacity}")
    chunks: list[tuple[int, list[int]]] = []  # (prefix length, members): one prefix, then suffixes
    for prefix, members in shared_prefix_groups(examples, min_prefix):
        if prefix == 0:
            chunks.extend((0, [index]) for index in members)
            continue
        suffixes = [lengths[i] - prefix for i in members]
        chunks.extend(
            (prefix, [members[i] for i in group]) for group in pack_lengths(suffixes, capacity - prefix)
        )
    sizes = [prefix + sum(lengths[i] - prefix for i in members) for prefix, members in chunks]
    buffers = pack_lengths(sizes, capacity)
    input_ids = torch.full((len(buffers), capacity), pad_token_id, dtype=torch.long)
    labels = torch.full((len(buffers), capacity), IGNORE_INDEX, dtype=torch.long)
    position_ids = torch.zeros((len(buffers), capacity), dtype=torch.long)
    segments = torch.full((len(buffers), capacity), -1, dtype=torch.long)
    for row, placed in enumerate(buffers):
        start = 0
        for prefix, members in (chunks[c] for c in placed):
            first = examples[members[0]]
            input_ids[row, start : start + prefix] = torch.as_tensor(
                first["input_ids"][:prefix], dtype=torch.long
            )
            position_ids[row, start : start + prefix] = torch.arange(prefix)
            segments[row, start : start + prefix] = SHARED_PREFIX_SEGMENT
            start += prefix
            for index in members:
                end = start + lengths[index] - prefix
                input_ids[row, start:end] = torch.as_tensor(
                    examples[index]["input_ids"][prefix:], dtype=torch.long
                )
                labels[row, start:end] = torch.as_tensor(examples[index]["labels"][prefix:], dtype=torch.long)
                position_ids[row, start:end] = torch.arange(prefix, lengths[index])
                segments[row, start:end] = index
                start = end
        position_ids[row, start:] = torch.arange(capacity - start)
    batch = {"input_ids": input_ids, "labels": labels, "position_ids": position_ids}
    if return_segments:
        batch["segment_ids"] = segments
    return batch
