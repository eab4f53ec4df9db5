"""Prefill with a reused key/value cache (evaluation/decoding.py) is exact: the cached path holds the
very keys and values the uncached path computes, and closed-loop trials generate the same token ids
and measure the same, for the untrained base (it runs away) and a briefly trained checkpoint, greedy
and sampled."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from ablation.corpus import compact_tool, expert_corpus, learnable_split, masked_table
from ablation.run import VariantSettings, train_variant
from transformers import DynamicCache

from trajectory_platform.evaluation.batching import Turn
from trajectory_platform.evaluation.decoding import PrefixCache, common_prefix
from trajectory_platform.evaluation.harness import EvalItem, build_items, run_arm
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding, SuiteSpec
from trajectory_platform.gym.runtime import RuntimeConfig
from trajectory_platform.training.data.tokenizer import build_default_tokenizer, load_tokenizer
from trajectory_platform.training.optim.checkpoint import load_checkpoint_model
from trajectory_platform.training.optim.model import default_base_dir

# A low compaction watermark makes the runtime summarize the conversation at the fourth turn: the
# prompts first grow (the cache is extended), then one is *shorter* than the cached conversation
# and the cache is cropped back to the common prefix.
RUNTIME = RuntimeConfig(
    max_steps=4, max_generated_tokens=120, compaction_watermark_tokens=350, keep_recent_events=2
)


def _kv(cache: DynamicCache) -> list[torch.Tensor]:
    return [t for layer in cache.layers for t in (layer.keys, layer.values)]


def test_a_reused_prefix_holds_the_uncached_keys_and_values(eval_workdir: Path):
    model = load_checkpoint_model(default_base_dir(eval_workdir)).eval()
    rng = torch.Generator().manual_seed(0)
    vocab = model.config.vocab_size
    shared = torch.randint(10, vocab, (150,), generator=rng).tolist()
    first = shared + torch.randint(10, vocab, (40,), generator=rng).tolist()
    second = shared + torch.randint(10, vocab, (90,), generator=rng).tolist()
    cached, fresh = PrefixCache(model, chunk=32), PrefixCache(model, chunk=32, reuse=False)
    cached.keep(first, cached.take(first))
    assert len(cached.entries) == 1 and len(cached.entries[0].ids) == 160  # aligned, tail cropped away
    reused = cached.take(second)
    assert cached.stats.reused_tokens == 128  # the common prefix (150) rounded down to a chunk boundary
    expected = fresh.take(second)
    assert reused.get_seq_length() == expected.get_seq_length() == 224  # last boundary before 240
    assert all(torch.equal(a, b) for a, b in zip(_kv(reused), _kv(expected), strict=True))
    assert cached.entries == []  # taken out while in use
    cached.keep(second, reused)
    third = second[:100]  # a shorter prompt (a compacted conversation): crop back, never extend
    assert all(
        torch.equal(a, b) for a, b in zip(_kv(cached.take(third)), _kv(fresh.take(third)), strict=True)
    )
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2 and common_prefix([1], [1, 2]) == 1


def _items() -> list[EvalItem]:
    _, pool = learnable_split()
    items = build_items(pool, SuiteSpec(episodes=2, recovery_episodes=1, retention_episodes=0))
    assert {i.regime for i in items} >= {"familiar", "renamed"}  # more than one tool block
    return items


def _recording(policy: ModelPolicy) -> list[list[int]]:
    """Record every generated token id (the prompt stripped) of ``policy``'s decoder."""
    generated: list[list[int]] = []
    assert policy.batcher is not None  # the default model decodes through RowDecoder
    run: Callable[[list[Turn]], None] = policy.batcher.run

    def wrapper(turns: list[Turn]) -> None:
        run(turns)
        generated.extend(turn.tokens for turn in turns)

    policy.batcher.run = wrapper
    return generated


def _both_paths(model_dir: Path, decoding: Decoding, **kwargs: Any) -> dict[str, Any]:
    """Each path's generated ids, episode measures (wall time excluded) and prefill statistics."""
    runs = {}
    items = _items()
    for reuse in (True, False):
        policy = ModelPolicy(model_dir, decoding=decoding, reuse_cache=reuse, **kwargs)
        generated = _recording(policy)
        arm = run_arm("exact", policy, items, RUNTIME, progress=False)
        runs[reuse] = {
            "tokens": generated,
            "measures": [m.to_dict() | {"wall_s": None} for m in arm.measures],
            "stats": policy.prefix.stats,
        }
    return runs


def _assert_exact(runs: dict[str, Any]) -> None:
    cached, uncached = runs[True], runs[False]
    assert cached["tokens"] and cached["tokens"] == uncached["tokens"]
    assert cached["measures"] == uncached["measures"]
    assert uncached["stats"].reused_tokens == 0
    assert cached["stats"].prompt_tokens == uncached["stats"].prompt_tokens
    assert cached["stats"].reused_tokens > cached["stats"].prompt_tokens / 3  # the cache was used


@pytest.mark.parametrize(
    "decoding",
    [Decoding(max_new_tokens=24), Decoding(max_new_tokens=24, do_sample=True, top_p=0.9, seed=3)],
    ids=["greedy", "sampled"],
)
def test_untrained_base_generates_the_same_tokens_cached_or_not(eval_workdir: Path, decoding: Decoding):
    runs = _both_paths(default_base_dir(eval_workdir), decoding)
    _assert_exact(runs)
    assert all(m["runaway_turns"] == m["turns"] for m in runs[True]["measures"])  # it never stops


@pytest.fixture(scope="module")
def trained(eval_workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkpoint trained for a few steps on expert episodes (the ablation smoke run's recipe)."""
    train, _ = learnable_split()
    tokenizer = load_tokenizer(build_default_tokenizer(eval_workdir))
    table = masked_table(expert_corpus(train[:6], seed=0), tokenizer)
    settings = VariantSettings(steps=8, examples_per_step=4, capacity=1024)
    out = tmp_path_factory.mktemp("decoding") / "trained"
    return train_variant(table, out, eval_workdir, 0, settings).checkpoint_dir


@pytest.mark.parametrize(
    "decoding",
    [Decoding(max_new_tokens=24), Decoding(max_new_tokens=24, do_sample=True, temperature=0.7, seed=1)],
    ids=["greedy", "sampled"],
)
def test_trained_checkpoint_generates_the_same_tokens_cached_or_not(trained: Path, decoding: Decoding):
    _assert_exact(_both_paths(trained, decoding, tool_view=compact_tool))


def test_the_cache_is_reused_by_default_and_not_recorded(eval_workdir: Path):
    cached = ModelPolicy(default_base_dir(eval_workdir))
    uncached = ModelPolicy(default_base_dir(eval_workdir), reuse_cache=False)
    assert cached.prefix.reuse and not uncached.prefix.reuse
    assert cached.describe() == uncached.describe()  # a speed setting, not a decoding one
    assert cached.sampling_params() == uncached.sampling_params()


def _untimed(record: dict[str, Any]) -> dict[str, Any]:
    """An episode's record without what a clock wrote (event timestamps, durations)."""
    return {
        key: [_untimed(e) for e in value] if key == "events" else value
        for key, value in record.items()
        if "time" not in key and not key.endswith("_s")
    }


def _arm(model_dir: Path, decoding: Decoding, batch: int, **kwargs: Any) -> tuple[dict[str, Any], list[int]]:
    """Token ids per turn, measures and episodes (times excluded), and the batch sizes decoded."""
    policy = ModelPolicy(model_dir, decoding=decoding, **kwargs)
    generated = _recording(policy)
    arm = run_arm("exact", policy, _items() * 2, RUNTIME, progress=False, batch=batch)
    assert policy.batcher is not None
    run = {
        "tokens": sorted(generated),
        "measures": [m.to_dict() | {"wall_s": None} for m in arm.measures],
        "episodes": [_untimed(e.to_dict()) for e in arm.episodes],
    }
    return run, policy.batcher.batch_sizes


@pytest.mark.parametrize(
    "decoding",
    [Decoding(max_new_tokens=24), Decoding(max_new_tokens=24, do_sample=True, temperature=0.7, seed=1)],
    ids=["greedy", "sampled"],
)
def test_trials_decoded_in_batches_measure_as_one_at_a_time(trained: Path, decoding: Decoding):
    alone, sizes_alone = _arm(trained, decoding, 1, tool_view=compact_tool)
    batched, sizes = _arm(trained, decoding, 4, tool_view=compact_tool)
    assert set(sizes_alone) == {1} and max(sizes) > 1  # the batches really formed
    assert alone["tokens"] and batched == alone
