"""A model-backed policy for the gym: a local Hugging Face causal LM behind the gym's ``Policy``.

It sees only what the runtime delivers (:class:`~trajectory_platform.gym.policy.PolicyInput`):
the delivered events are rendered with the tokenizer's own chat template through the same
message/tool conversion the training serializer uses (``training.serialize.message_of`` /
``tool_dict``), so the prompt at evaluation is byte-for-byte the context training conditioned
on. Generation stops at the end-of-turn token (the tokenizer's eos, ``<|end_turn|>``) or at a host
delimiter (``<|end|>``) the policy should never write; the text goes back to the runtime, which
parses it with the gym protocol parser and enforces the delivered schema exactly as for every
scripted policy. Nothing here repairs or filters an output.

Two failure modes are visible in the returned turn rather than hidden:

- **fabricated observation**: the model writes a tool result (``<|tool|>...``) instead of stopping
  at its end-of-turn token. Special tokens are kept when decoding, so the runtime's
  ``find_fabricated_observation`` sees the ``<|tool|>`` marker and refuses it;
- **runaway**: no end token within ``max_new_tokens``; the turn is returned with
  ``finish_reason="length"`` and the runtime dispatches nothing from it (a truncated proposal).

Decoding is greedy, or sampled with a seed pinned per (episode seed, step), so two runs of the same
evaluation manifest generate the same tokens.

Prompts are prefilled through :class:`~trajectory_platform.evaluation.decoding.PrefixCache`: the
keys and values of earlier turns and of other trials' shared tool block and system prompt are
reused, in a way that gives the same tokens bit for bit as encoding every prompt from scratch
(``reuse_cache=False``, the uncached path the exactness tests compare against). Turns are decoded
by :class:`~trajectory_platform.evaluation.batching.RowDecoder`, alone or batched with the turns of
other trials in flight (``harness.run_arm``'s ``batch``), with the same tokens bit for bit either way;
a model it cannot run decodes through ``generate``, one trial at a time.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import torch

from trajectory_platform.evaluation.batching import (
    GENERATE_DECODER,
    ROW_DECODER,
    RowDecoder,
    Turn,
    TurnBatcher,
    supports_row_decoding,
)
from trajectory_platform.evaluation.decoding import PREFILL_CHUNK, PrefixCache
from trajectory_platform.evaluation.settings import Decoding
from trajectory_platform.gym.policy import Policy, PolicyTurn
from trajectory_platform.training.data.serialize import message_of, tool_dict
from trajectory_platform.training.data.tokenizer import load_tokenizer, tokenizer_files_digest
from trajectory_platform.training.optim.checkpoint import checkpoint_digest, load_checkpoint_model

if TYPE_CHECKING:
    from trajectory_platform.gym.fixtures import Fixture
    from trajectory_platform.gym.policy import PolicyInput
    from trajectory_platform.traces.record import ToolSpec

HOST_END = "<|end|>"


def _pinned_seed(base: int, episode_seed: int, step: int) -> int:
    """One generator seed per (decoding seed, episode seed, step): independent of call order."""
    digest = hashlib.sha256(f"{base}:{episode_seed}:{step}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (2**63)


class ModelPolicy(Policy):
    """Generate each turn with a local causal LM (a checkpoint directory or the default base)."""

    def __init__(
        self,
        model_dir: str | Path,
        *,
        decoding: Decoding | None = None,
        device: str = "cpu",
        name: str | None = None,
        tokenizer_dir: str | Path | None = None,
        tool_view: Callable[[ToolSpec], ToolSpec] | None = None,
        reuse_cache: bool = True,
        prefill_chunk: int = PREFILL_CHUNK,
    ):
        """``tool_view`` rewrites each delivered tool before rendering; pass the one the model's
        training data was serialized with (the ablations' ``compact_tool``), so the prompt stays
        the training prefix. Validation is untouched: the runtime checks the delivered schema.

        ``reuse_cache`` keeps prompt keys and values across turns and trials; it changes the speed,
        never a token (``evaluation/decoding.py``), so it is not part of the recorded decoding.
        ``prefill_chunk`` is part of the numerics (the same for both paths; see that module)."""
        self.model_dir = Path(model_dir)
        self.decoding = decoding or Decoding()
        self.device = torch.device(device)
        self.name = name or f"model:{self.model_dir.name}"
        self.tokenizer_dir = Path(tokenizer_dir or self.model_dir)
        self.tokenizer = load_tokenizer(self.tokenizer_dir)
        self.model = load_checkpoint_model(self.model_dir, device=self.device).eval()
        self._text = threading.Lock()  # one tokenizer, trials on several threads
        self.stop_ids = [
            self.tokenizer.eos_token_id,
            *(
                cast(list[int], self.tokenizer.convert_tokens_to_ids([HOST_END]))  # a list in, a list out
                if HOST_END in self.tokenizer.get_vocab()
                else []
            ),
        ]
        self.max_context = int(getattr(self.model.config, "max_position_embeddings", 4096))
        self._episode = threading.local()  # trials in flight on several threads share the policy
        self.tool_view = tool_view
        self.prefix = PrefixCache(self.model, chunk=prefill_chunk, reuse=reuse_cache)
        self.batcher: TurnBatcher | None = None
        if supports_row_decoding(self.model):
            decoder = RowDecoder(self.model, self.prefix, self.decoding, self.stop_ids)
            self.batcher = TurnBatcher(decoder.decode)

    @property
    def episode_seed(self) -> int:
        """The seed of the trial the calling thread runs (0 before any)."""
        return int(getattr(self._episode, "seed", 0))

    @episode_seed.setter
    def episode_seed(self, seed: int) -> None:
        self._episode.seed = seed

    def start(self, fixture: Fixture, seed: int) -> None:
        """Only the seed is kept (per thread): a model policy acts from the delivered input alone."""
        self.episode_seed = seed

    def sampling_params(self) -> dict:
        return self.decoding.to_dict()

    @functools.cached_property
    def content_digests(self) -> dict[str, str]:
        """What the policy's behaviour depends on, by content: the checkpoint's weights and config
        (the digest a release gate binds) and the tokenizer's files. Read once, on first use."""
        return {
            "checkpoint": checkpoint_digest(self.model_dir),
            "tokenizer": tokenizer_files_digest(self.tokenizer_dir),
        }

    def describe(self) -> dict:
        """The policy by content, not by folder: an episode's sampler digest is this, digested, so
        a checkpoint retrained into the same folder is a new sampler and a copy elsewhere is not.
        The decoder implementation is part of it: row decoding and ``generate`` may break a greedy
        near-tie differently."""
        view = None if self.tool_view is None else getattr(self.tool_view, "__qualname__", "custom")
        return {
            "policy": "model",
            **self.content_digests,
            "decoding": self.decoding.to_dict(),
            "decoder": ROW_DECODER if self.batcher is not None else GENERATE_DECODER,
            **({"tool_view": view} if view else {}),
        }

    def prompt_ids(self, inp: PolicyInput) -> list[int]:
        """The delivered input rendered with the chat template, ready for the assistant's turn."""
        messages = [message_of(event, "context") for event in inp.messages]
        specs = inp.tools if self.tool_view is None else [self.tool_view(spec) for spec in inp.tools]
        tools: list[dict | Callable] | None = [tool_dict(spec) for spec in specs] or None
        with self._text:
            text = self.tokenizer.apply_chat_template(
                messages, tools=tools, tokenize=False, add_generation_prompt=True
            )
            return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    @torch.inference_mode()  # no autograd bookkeeping: ~10% of a decode step here, same kernels
    def act(self, inp: PolicyInput) -> PolicyTurn:
        ids = self.prompt_ids(inp)
        budget = self.decoding.max_new_tokens
        if len(ids) + budget > self.max_context:
            raise ValueError(
                f"delivered input of {len(ids)} tokens + {budget} new tokens exceeds the model's "
                f"context of {self.max_context}"
            )
        seed = _pinned_seed(self.decoding.seed, self.episode_seed, inp.step)
        if self.batcher is None:
            new = self._generate(ids, budget, seed)
        else:
            turn = Turn(ids, budget, seed)
            self.batcher.decode(turn)  # alone, or with the other trials in flight: the same tokens
            new = turn.tokens
        output_tokens = len(new)
        finish = "stop" if new and new[-1] in self.stop_ids else "length"
        if finish == "stop" and new[-1] == self.tokenizer.eos_token_id:
            new = new[:-1]  # the authentic terminator is the stop signal, not text
        with self._text:  # one sequence in: one string out
            text = cast(str, self.tokenizer.decode(new, skip_special_tokens=False))
        return PolicyTurn(text=text, finish_reason=finish, output_tokens=output_tokens)

    def _generate(self, ids: list[int], budget: int, seed: int) -> list[int]:
        """A turn's new tokens through ``generate``, for a model :class:`RowDecoder` cannot run."""
        input_ids = torch.tensor([ids], device=self.device)
        cache = self.prefix.take(ids)  # the prompt up to its last chunk boundary, reused or encoded
        kwargs: dict[str, Any] = {
            "cache": cache,
            "max_new_tokens": budget,
            "eos_token_id": self.stop_ids,
            "pad_token_id": self.tokenizer.pad_token_id,
            "attention_mask": torch.ones_like(input_ids),
            "do_sample": self.decoding.do_sample,
        }
        if self.decoding.do_sample:
            kwargs.update(temperature=self.decoding.temperature, top_p=self.decoding.top_p)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
            torch.manual_seed(seed)
            output = self.model.generate(input_ids, **kwargs)
        self.prefix.keep(ids, cache)
        return output[0, len(ids) :].tolist()
