"""Variable-length causal attention for packed buffers, without a dense block-diagonal mask.

A packed buffer under a dense 4D mask still computes every query against every key of the
buffer (and materializes a capacity x capacity mask); the block-diagonal mask makes the result
right but the work is the same as one long sequence. This attention runs one causal
``scaled_dot_product_attention`` per example segment, with segments read from the reset
``position_ids`` (16.5.3): each query only meets its own example's keys, so attention work per
token is its example's length, not the buffer's -- the CPU analogue of the FlashAttention varlen
kernels' cumulative offsets (16.5.2). Padding at the end of a buffer restarts positions too, so
it is its own segment.

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
    """(start, end) of each example in one row: a new example wherever the position is 0."""
    starts = torch.nonzero(positions == 0).flatten().tolist()
    if not starts or starts[0] != 0:
        starts = [0, *starts]
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
    for row in range(rows):
        pieces = [
            F.scaled_dot_product_attention(
                query[row : row + 1, :, start:end],
                key[row : row + 1, :, start:end],
                value[row : row + 1, :, start:end],
                is_causal=True,
                dropout_p=dropout,
                scale=scaling,
            )
            for start, end in segment_bounds(positions[row])
        ]
        outputs.append(torch.cat(pieces, dim=2))
    return torch.cat(outputs, dim=0).transpose(1, 2).contiguous(), None


AttentionInterface.register(VARLEN_ATTENTION, varlen_sdpa_attention)
