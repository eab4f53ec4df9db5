"""Decode the turns of several trials in one batch, each trial getting its own tokens bit for bit.

A turn at this model size is mostly per-call overhead: one forward pass per new token, each a few
milliseconds of small kernels. Trials in flight at once can share those passes, one row per trial.
``generate`` on left-padded prompts does that, but it is not exact: with padding a row's logits
differ in the last bits (a 1-to-3-row matmul takes another kernel than four or more, and attention
reduces over padded lengths), and a greedy argmax at a near tie flips.

**Why a row's tokens cannot depend on the other rows.** :class:`RowDecoder` runs a decode step in
shapes that give each row the same result whoever shares the step:

- every matmul (the projections, the MLP and the head) sees exactly :data:`ROWS` rows: the rows go
  in chunks of that many, the last padded with zero rows. In one shape the kernel is one, and a
  row's result does not depend on the other rows or on its place among them
  (``tests/evaluation/test_eval_batching.py`` checks it on the machine's kernels). A row *count*
  does not give that: which kernel a CPU's matmul takes depends on the count (on one Xeon, a
  128-wide row came out one way at 2-5 rows and another from 6 on; a 384-wide one at 2-15 and 16 on),
  so a decoder padding to "at least four" was exact on one machine and not on the next;
- attention runs row by row, each row's query over its own cache, so its reduction is over exactly
  its own length, never a padded one;
- norms, activations and residual adds are per row; rotary angles are gathered from one table
  computed once per model, so a position's angle does not depend on the call it is read in;
- the prompt is prefilled per trial (:class:`~trajectory_platform.evaluation.decoding.PrefixCache`
  and the tail pass), in shapes set by that trial alone.

So a trial decoded alone (one real row padded to :data:`ROWS`) and the same trial decoded beside seven
others give the same logits, bit for bit, and the batch's make-up (which trials happened to be
waiting) never reaches a token. Sampling draws from a generator seeded per (episode, step), so it
is independent of the batch too.

Supported: Llama-architecture models (the default model and its fine-tunes, LoRA adapters
included); :func:`supports_row_decoding` says whether a model is one, and the policy falls back to
``generate``, one trial at a time, for any other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch
from transformers import DynamicCache
from transformers.generation.logits_process import TemperatureLogitsWarper, TopPLogitsWarper
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

from trajectory_platform.evaluation.decoding import PrefixCache
from trajectory_platform.evaluation.settings import Decoding

ROW_DECODER = "rows/v2"
"""The implementation a :class:`RowDecoder` turn is decoded by, as a policy records it: its logits
can differ in the last bits from ``generate``'s (another kernel choice), so a greedy near-tie can
differ, and a sampler digest must tell the two apart. Bump it when the numerics change."""

GENERATE_DECODER = "generate"
"""The fallback's implementation name (transformers' ``generate``, one trial at a time)."""

ROWS = 8
"""The rows every matmul of a decode step sees (module docstring): one shape, so one kernel. Eight
is the harness's usual batch, so a full batch pads nothing; alone, a trial pays eight rows of a
matmul whose cost at this model size is mostly the call."""


def _causal_lm(model: Any) -> Any:
    """The transformers model under a peft wrapper (LoRA layers stay in place), or the model itself."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def supports_row_decoding(model: Any) -> bool:
    """Whether :class:`RowDecoder` can run ``model``: a Llama-architecture causal LM with plain
    full attention (every layer's cache a prefix of the sequence)."""
    return getattr(_causal_lm(model).config, "model_type", None) == "llama"


@dataclass
class Turn:
    """One trial's turn to decode: its prompt, budget and pinned seed in; its new tokens out."""

    ids: list[int]
    budget: int
    seed: int
    tokens: list[int] = field(default_factory=list)
    stopped: bool = False
    done: bool = False
    error: BaseException | None = None


@dataclass
class _Row:
    turn: Turn
    cache: DynamicCache
    generator: torch.Generator


class RowDecoder:
    """Greedy or sampled decoding of a list of turns, one row each (module docstring)."""

    def __init__(self, model: Any, prefix: PrefixCache, decoding: Decoding, stop_ids: Sequence[int]) -> None:
        if not supports_row_decoding(model):
            raise ValueError(f"row decoding needs a Llama-architecture model, got {type(model).__name__}")
        self.model = model
        self.prefix = prefix
        self.decoding = decoding
        self.stop_ids = frozenset(stop_ids)
        self.lm = _causal_lm(model)
        self.body = self.lm.model
        self.device = next(model.parameters()).device
        self.warpers: list[Any] = []
        if decoding.do_sample and decoding.temperature != 1.0:
            self.warpers.append(TemperatureLogitsWarper(decoding.temperature))
        if decoding.do_sample and decoding.top_p < 1.0:
            self.warpers.append(TopPLogitsWarper(decoding.top_p))
        positions = torch.arange(int(self.lm.config.max_position_embeddings), device=self.device)
        probe = self.body.embed_tokens.weight[:1]
        cos, sin = self.body.rotary_emb(probe, positions[None])
        self.cos, self.sin = cos[0], sin[0]  # [positions, head_dim]: one angle per position, ever

    @torch.inference_mode()
    def decode(self, turns: Sequence[Turn]) -> None:
        """Fill each turn's ``tokens`` (and ``stopped``): until a stop token or its budget."""
        rows, logits = [], []
        for turn in turns:  # per-trial prefill: the cached whole chunks, then the tail
            cache = self.prefix.take(turn.ids)
            tail = torch.tensor([turn.ids[cache.get_seq_length() :]], device=self.device)
            out = self.model(input_ids=tail, cache=cache, use_cache=True, logits_to_keep=1)
            rows.append(_Row(turn, cache, torch.Generator(self.device).manual_seed(turn.seed)))
            logits.append(out.logits[0, -1])
        live = rows
        while live:
            going = []
            for row, row_logits in zip(live, logits, strict=True):
                token = self._choose(row, row_logits)
                row.turn.tokens.append(token)
                row.turn.stopped = token in self.stop_ids
                if not row.turn.stopped and len(row.turn.tokens) < row.turn.budget:
                    going.append(row)
            live = going
            if live:
                step = self._step([r.cache for r in live], [r.turn.tokens[-1] for r in live])
                logits = list(step)
        for row in rows:
            self.prefix.keep(row.turn.ids, row.cache)

    def _choose(self, row: _Row, logits: torch.Tensor) -> int:
        """Greedy argmax, or a draw from the warped distribution with the turn's own generator."""
        if not self.decoding.do_sample:
            return int(torch.argmax(logits))
        scores = logits[None].float()
        for warp in self.warpers:
            scores = warp(None, scores)
        probs = torch.softmax(scores, dim=-1)
        return int(torch.multinomial(probs, 1, generator=row.generator))

    def _step(self, caches: list[DynamicCache], tokens: list[int]) -> torch.Tensor:
        """One new token per row, appended to each row's own cache; the rows' next-token logits."""
        chunks = range(0, len(tokens), ROWS)
        return torch.cat([self._step_chunk(caches[at : at + ROWS], tokens[at : at + ROWS]) for at in chunks])

    def _step_chunk(self, caches: list[DynamicCache], tokens: list[int]) -> torch.Tensor:
        """:meth:`_step` for at most :data:`ROWS` rows, padded to exactly that many."""
        count = len(tokens)
        ids = torch.zeros(ROWS, 1, dtype=torch.long, device=self.device)
        ids[:count, 0] = torch.tensor(tokens, device=self.device)
        positions = torch.zeros(ROWS, dtype=torch.long, device=self.device)
        positions[:count] = torch.tensor([c.get_seq_length() for c in caches], device=self.device)
        cos, sin = self.cos[positions][:, None], self.sin[positions][:, None]
        hidden = self.body.embed_tokens(ids)
        for index, layer in enumerate(self.body.layers):
            attended = self._attend(layer.self_attn, index, layer.input_layernorm(hidden), caches, cos, sin)
            hidden = hidden + attended
            hidden = hidden + layer.mlp(layer.post_attention_layernorm(hidden))
        return self.lm.lm_head(self.body.norm(hidden))[:count, -1]

    @staticmethod
    def _attend(
        attn: Any,
        index: int,
        normed: torch.Tensor,
        caches: list[DynamicCache],
        cos: torch.Tensor,
        sin: torch.Tensor,
    ) -> torch.Tensor:
        """Projections over the whole (padded) batch; attention row by row over each row's cache."""
        shape = (normed.shape[0], 1, -1, attn.head_dim)
        query = attn.q_proj(normed).view(shape).transpose(1, 2)
        key = attn.k_proj(normed).view(shape).transpose(1, 2)
        value = attn.v_proj(normed).view(shape).transpose(1, 2)
        query, key = apply_rotary_pos_emb(query, key, cos, sin)
        out = torch.zeros(normed.shape[0], 1, query.shape[1] * attn.head_dim, device=normed.device)
        for row, cache in enumerate(caches):
            keys, values = cache.update(key[row : row + 1], value[row : row + 1], index)
            attended, _ = sdpa_attention_forward(
                attn, query[row : row + 1], keys, values, None, dropout=0.0, scaling=attn.scaling
            )
            out[row] = attended.reshape(1, -1)
        return attn.o_proj(out)


class TurnBatcher:
    """Gathers the turns of trials running in threads and decodes them together.

    A trial thread runs inside :meth:`trial`; its policy hands each turn to :meth:`decode`, which
    waits until every trial in flight is waiting for a turn (or has ended), then one of the waiting
    threads decodes them all in one :class:`RowDecoder` call. Outside any :meth:`trial`, a turn is
    decoded at once. Which turns share a batch depends on timing, never a token (module docstring).
    """

    def __init__(self, run: Callable[[list[Turn]], None]) -> None:
        self.run = run
        self._cond = threading.Condition()
        self._trials = 0
        self._pending: list[Turn] = []
        self._busy = False
        self.batch_sizes: list[int] = []

    @contextmanager
    def trial(self) -> Iterator[None]:
        """One trial in flight: the batcher waits for its turns until it ends."""
        with self._cond:
            self._trials += 1
        try:
            yield
        finally:
            with self._cond:
                self._trials -= 1
                self._cond.notify_all()

    def decode(self, turn: Turn) -> None:
        """Decode ``turn`` with whatever other trials' turns are waiting; raises what decoding raised."""
        with self._cond:
            self._pending.append(turn)
            self._cond.notify_all()
            while not turn.done:
                if self._busy or len(self._pending) < max(self._trials, 1):
                    self._cond.wait()
                    continue
                batch, self._pending, self._busy = self._pending, [], True
                self._cond.release()
                try:
                    self.run(batch)
                except BaseException as error:  # every waiting trial sees it, not only this thread
                    for waiting in batch:
                        waiting.error = error
                finally:
                    self._cond.acquire()
                    self._busy = False
                    self.batch_sizes.append(len(batch))
                    for waiting in batch:
                        waiting.done = True
                    self._cond.notify_all()
        if turn.error is not None:
            raise turn.error
