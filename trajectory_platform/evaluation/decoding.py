"""Prompt prefill with a key/value cache reused across turns and trials, exact by construction.

Closed-loop evaluation renders the whole delivered conversation for every turn, so turn ``t + 1``
re-encodes everything turn ``t`` saw, and every trial of a tool family re-encodes the same tool
block and system prompt (most of a first prompt). :class:`PrefixCache` keeps the keys and values
of prompts already encoded (a few ``DynamicCache`` entries, one per recent conversation) and, for a
new prompt, encodes only what follows the longest prefix it already holds.

**Why a reused cache gives the same tokens, bit for bit.** A float kernel's result for one row can
depend on the shape of the call it is part of: on this CPU a 1-to-3-row matmul takes another kernel
than a longer one, and one query row attends through another path than many. So "encode the
prefix once, then the suffix" is *not* bit-identical to "encode the whole prompt at once", and a
greedy argmax at a near tie (an untrained model's logits are nearly flat) can flip. Instead, both
paths compute the same thing in the same shapes:

- every prompt is prefilled in whole chunks of ``chunk`` tokens aligned to absolute position 0
  (``[0, c)``, ``[c, 2c)``, ...), up to the last boundary strictly before the prompt's end; the
  tail (1 to ``chunk`` tokens) is the decoder's first forward pass, then one token a step;
- the cache keeps only those aligned, whole-chunk positions. Keys and values written by the tail
  pass or by decoding (other shapes) are cropped away before the entry is stored;
- a new prompt reuses an entry up to its common prefix with the entry's tokens, rounded down to a
  chunk boundary. Each reused chunk was computed from the same tokens, at the same positions, in
  the same shape, over the same (recursively identical) earlier chunks, as the uncached path
  computes it now; the rest is computed by the same calls as the uncached path.

The uncached path (``reuse=False``) runs exactly these calls from position 0 every turn, which is
what the exactness tests compare against. The argument assumes only that one operation on equal
inputs of equal shape returns equal outputs (deterministic kernels, same thread count), not that
kernels agree across shapes. The chunk size is therefore part of the numerics: two chunk sizes
can differ in the last bits, one chunk size with or without reuse cannot.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

PREFILL_CHUNK = 64
"""Tokens per prefill chunk. Smaller chunks pay the per-call overhead more often (a 64-row pass costs
about two one-token steps at the default model's size); larger ones re-encode more of what a
cache held (half a chunk per prompt on average). 64 and 128 measured alike with reuse
(``benchmarks/evaluate.py --chunk``)."""

MAX_ENTRIES = 8
"""Conversations kept. One per tool family in flight is enough: a new trial's tool block and system
prompt match the last trial of its family, and suites interleave three regimes. Memory is entries x
prompt tokens x key/value bytes per token (3 KB for the default model: 3 layers, 4 heads of 32)."""


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


@dataclass
class _Entry:
    """A cache holding the canonical keys and values of exactly ``ids`` (whole aligned chunks)."""

    ids: list[int]
    cache: DynamicCache


@dataclass
class CacheStats:
    """Prompt tokens seen, reused from a cache and left to encode (the uncached path reuses none),
    and the seconds spent in whole-chunk prefill: what a benchmark needs to say where time goes."""

    prompts: int = 0
    prompt_tokens: int = 0
    reused_tokens: int = 0
    encoded_tokens: int = 0
    prefill_s: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {
            "prompts": self.prompts,
            "prompt_tokens": self.prompt_tokens,
            "reused_tokens": self.reused_tokens,
            "encoded_tokens": self.encoded_tokens,
            "prefill_s": round(self.prefill_s, 4),
        }


class PrefixCache:
    """Prefill prompts for one model, reusing the keys and values of earlier prompts (module docstring).

    ``take(ids)`` returns a cache holding the canonical keys and values of ``ids[:boundary(ids)]``;
    hand it to the decoder with the full ``ids`` (it encodes the tail), then give it back with
    ``keep(ids, cache)``. Entries are taken out while in use, so one instance serves one
    conversation at a time.
    """

    def __init__(
        self,
        model: Any,
        *,
        chunk: int = PREFILL_CHUNK,
        reuse: bool = True,
        max_entries: int = MAX_ENTRIES,
    ) -> None:
        """``model`` is a causal LM (transformers or peft) whose forward takes ``cache`` and
        ``logits_to_keep``; ``reuse=False`` is the uncached path (same calls, nothing kept)."""
        if chunk < 1:
            raise ValueError(f"prefill chunk must be positive, got {chunk}")
        self.model = model
        self.chunk = chunk
        # Only plain full-attention layers crop to an exact prefix; a sliding-window or recurrent
        # layer's state is not a prefix of the sequence, so such a model runs the uncached path.
        self.reuse = reuse and all(type(layer) is DynamicLayer for layer in self.new_cache().layers)
        self.max_entries = max_entries
        self.entries: list[_Entry] = []  # least recently used first
        self.stats = CacheStats()

    def boundary(self, n_tokens: int) -> int:
        """The last chunk boundary strictly before the end: the tail is never empty, so the decoder
        always has a token to encode and the logits of the prompt's last token come from it."""
        return ((n_tokens - 1) // self.chunk) * self.chunk if n_tokens > 0 else 0

    def new_cache(self) -> DynamicCache:
        return DynamicCache(config=self.model.config)

    def _best(self, ids: list[int], limit: int) -> tuple[int, int]:
        """(index of the entry to reuse or -1, reusable tokens): the longest aligned common prefix."""
        best, best_len = -1, 0
        for index, entry in enumerate(self.entries):
            usable = min(common_prefix(entry.ids, ids), limit) // self.chunk * self.chunk
            if usable > best_len:
                best, best_len = index, usable
        return best, best_len

    @torch.inference_mode()
    def take(self, ids: list[int]) -> DynamicCache:
        """A cache with the canonical keys and values of ``ids[:boundary]``: the longest reusable
        entry cropped to its aligned common prefix (taken out of the pool), then whole chunks."""
        started = time.perf_counter()
        stop = self.boundary(len(ids))
        index, reused = self._best(ids, stop) if self.reuse else (-1, 0)
        if index >= 0:
            entry = self.entries.pop(index)
            cache = entry.cache
            if cache.get_seq_length() > reused:
                cache.crop(reused - cache.get_seq_length())
        else:
            cache, reused = self.new_cache(), 0
        device = next(self.model.parameters()).device
        for start in range(reused, stop, self.chunk):
            chunk = torch.tensor([ids[start : start + self.chunk]], device=device)
            self.model(input_ids=chunk, cache=cache, use_cache=True, logits_to_keep=1)
        self.stats.prompts += 1
        self.stats.prompt_tokens += len(ids)
        self.stats.reused_tokens += reused
        self.stats.encoded_tokens += len(ids) - reused
        self.stats.prefill_s += time.perf_counter() - started
        return cache

    def keep(self, ids: list[int], cache: DynamicCache) -> None:
        """Store ``cache`` after the decoder used it for ``ids``: cropped to the prompt's aligned
        boundary (the tail and the decoded tokens were computed in other shapes), most recent last."""
        if not self.reuse:
            return
        stop = self.boundary(len(ids))
        length = cache.get_seq_length()
        if length < stop:
            return  # not the cache take() made for these ids: nothing canonical to keep
        if length > stop:
            cache.crop(stop - length)
        if stop == 0:
            return
        self.entries.append(_Entry(ids[:stop], cache))
        if len(self.entries) > self.max_entries:
            self.entries.pop(0)

    def clear(self) -> None:
        """Drop every entry (a new model, or to free memory)."""
        self.entries.clear()
