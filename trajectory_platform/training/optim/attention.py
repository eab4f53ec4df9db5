"""Variable-length causal attention for packed buffers, without a dense block-diagonal mask.

A packed buffer under a dense 4D mask still computes every query against every key of the
buffer (and materializes a capacity x capacity mask); the block-diagonal mask makes the result
right but the work is the same as one long sequence. This attention runs one causal
``scaled_dot_product_attention`` per example segment, with segments read from the reset
``position_ids`` (16.5.3): each query only meets its own example's keys, so attention work per
token is its example's length, not the buffer's -- the CPU analogue of the FlashAttention varlen
kernels' cumulative offsets (16.5.2). Padding at the end of a buffer restarts positions too, so
it is its own segment.

**Shared prefixes.** A segment whose first position is ``p > 0`` does not start an example: it
continues the first ``p`` tokens of the nearest segment before it that starts at position 0 (a
prefix such as the tool block and system prompt that several examples share, laid out once by
:func:`trajectory_platform.training.optim.packing.collate_shared_prefix`). Its queries attend to
those prefix keys and causally to their own, exactly the keys the whole example would see alone,
so the prefix is computed once instead of once per example. Rows without such segments (every
segment starts at position 0) take the plain causal path unchanged.

Registered with transformers as ``varlen_sdpa``. With that name, transformers builds no mask at
all, so the function must only ever see right-padded or packed rows (true for every batch this
package builds); checkpoints do not record it, so consumers load them with the default attention.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from transformers import AttentionInterface

VARLEN_ATTENTION = "varlen_sdpa"


def segment_bounds(positions: torch.Tensor) -> list[tuple[int, int]]:
    """(start, end) of each segment in one row: a new one wherever the position does not continue
    the previous one (a reset to 0 between packed examples, or a jump back to a shared prefix's
    length)."""
    breaks = torch.nonzero(positions[1:] != positions[:-1] + 1).flatten() + 1
    starts = [0, *breaks.tolist()]
    return list(zip(starts, [*starts[1:], positions.shape[-1]], strict=True))


def varlen_sdpa_attention(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    position_ids: torch.Tensor | None = None,
    **_: object,
) -> tuple[torch.Tensor, None]:
    """Causal attention per example segment; ``query`` is ``[B, H, T, D]``, returns ``[B, T, H, D]``."""
    rows, _heads, length, _dim = query.shape
    groups = query.shape[1] // key.shape[1]
    if groups > 1:  # grouped-query attention: share each key/value head across its query heads
        key, value = key.repeat_interleave(groups, dim=1), value.repeat_interleave(groups, dim=1)
    if position_ids is None:
        position_ids = torch.arange(length, device=query.device).expand(rows, -1)
    positions = position_ids.expand(rows, -1).cpu()
    outputs = []
    # Segments are taken with split, not one slice each: split's backward is a single cat, where
    # every slice's backward would zero-fill and add a whole row-sized gradient.
    for row, (q_row, k_row, v_row) in enumerate(
        zip(query.split(1), key.split(1), value.split(1), strict=True)
    ):
        bounds = segment_bounds(positions[row])
        sizes = [end - start for start, end in bounds]
        qs, ks, vs = (t.split(sizes, dim=2) for t in (q_row, k_row, v_row))
        pieces = []
        anchor = 0  # the latest segment starting at position 0: a shared prefix's owner
        for index, (start, _end) in enumerate(bounds):
            q, k, v = qs[index], ks[index], vs[index]
            prefix = int(positions[row, start])
            if prefix == 0:
                anchor = index
                pieces.append(
                    F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=dropout, scale=scaling)
                )
                continue
            if sizes[anchor] < prefix or int(positions[row, bounds[anchor][0]]) != 0:
                raise ValueError(f"row {row}: a segment at position {prefix} has no {prefix}-token prefix")
            k = torch.cat([ks[anchor][:, :, :prefix], k], dim=2)
            v = torch.cat([vs[anchor][:, :, :prefix], v], dim=2)
            # Query i (absolute position prefix + i) sees every prefix key and its own keys up to i.
            allowed = torch.ones(sizes[index], prefix + sizes[index], dtype=torch.bool, device=q.device).tril(
                prefix
            )
            pieces.append(
                F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, dropout_p=dropout, scale=scaling)
            )
        outputs.append(torch.cat(pieces, dim=2))
    return torch.cat(outputs, dim=0).transpose(1, 2).contiguous(), None


AttentionInterface.register(VARLEN_ATTENTION, varlen_sdpa_attention)
