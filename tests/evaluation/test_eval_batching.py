"""Batched decoding (evaluation/batching.py) gives each turn the tokens it gets alone: the kernels'
row invariance it rests on, the decoder alone vs batched, and the batcher that gathers the turns of
trials in flight. The closed-loop check (trials in batches measure as one at a time) is in
test_eval_decoding.py, beside the prefix cache's."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest
import torch
from ablation.corpus import learnable_split
from transformers import Qwen2Config, Qwen2ForCausalLM

from trajectory_platform.evaluation.batching import ROWS, RowDecoder, Turn, TurnBatcher
from trajectory_platform.evaluation.decoding import PrefixCache
from trajectory_platform.evaluation.harness import build_items, run_arm
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding, SuiteSpec
from trajectory_platform.gym.runtime import RuntimeConfig
from trajectory_platform.training.optim.checkpoint import load_checkpoint_model
from trajectory_platform.training.optim.model import default_base_dir


def test_in_one_shape_a_rows_result_does_not_depend_on_the_others_or_its_place(eval_workdir: Path):
    """What the decoder's exactness rests on, checked on this machine's kernels with the default
    model's own layers: at ROWS rows, a row's output is the same whatever the other rows hold
    (zeros, as when a trial is decoded alone, or other trials' rows) and wherever it sits."""
    model = load_checkpoint_model(default_base_dir(eval_workdir)).eval()
    layer = model.model.layers[0]
    modules = [layer.self_attn.q_proj, layer.mlp.down_proj, layer.mlp.gate_proj, model.lm_head]
    modules += [layer.input_layernorm, model.model.norm]
    rng = torch.Generator().manual_seed(0)
    with torch.inference_mode():
        for module in modules:
            width = getattr(module, "in_features", model.config.hidden_size)
            row = torch.randn(1, 1, width, generator=rng)
            alone = module(torch.cat([row, torch.zeros(ROWS - 1, 1, width)]))[0]
            for place in range(ROWS):
                rows = torch.randn(ROWS, 1, width, generator=rng)
                rows[place] = row
                assert torch.equal(module(rows)[place], alone), (module, place)


def _prompts(count: int, vocab: int) -> list[list[int]]:
    rng = random.Random(0)
    return [[rng.randrange(10, vocab) for _ in range(rng.randrange(40, 300))] for _ in range(count)]


@pytest.mark.parametrize(
    "decoding",
    [Decoding(max_new_tokens=20), Decoding(max_new_tokens=20, do_sample=True, temperature=0.8, top_p=0.9)],
    ids=["greedy", "sampled"],
)
def test_a_turn_gets_the_same_tokens_alone_or_in_any_batch(eval_workdir: Path, decoding: Decoding):
    model = load_checkpoint_model(default_base_dir(eval_workdir)).eval()
    count = ROWS + 3  # a batch of them takes two chunks
    prompts = _prompts(count, model.config.vocab_size)

    def decoded(order: list[int], batch: int) -> dict[int, list[int]]:
        decoder = RowDecoder(model, PrefixCache(model), decoding, stop_ids=[2])
        out = {}
        for start in range(0, len(order), batch):
            turns = {i: Turn(prompts[i], 5 + 3 * i, seed=i) for i in order[start : start + batch]}
            decoder.decode(list(turns.values()))
            out |= {i: turn.tokens for i, turn in turns.items()}
        return out

    alone = decoded(list(range(count)), 1)
    assert [len(alone[i]) for i in range(count)] == [5 + 3 * i for i in range(count)]  # the base never stops
    assert decoded(list(range(count)), count) == alone
    shuffled = list(range(count))
    random.Random(1).shuffle(shuffled)
    assert decoded(shuffled, 3) == alone  # other company, other rows, shrinking batches


def test_the_batcher_waits_for_every_trial_in_flight_and_shares_errors():
    batches: list[list[int]] = []

    def run(turns: list[Turn]) -> None:
        batches.append([t.seed for t in turns])
        if any(t.seed < 0 for t in turns):
            raise RuntimeError("decoding failed")
        for turn in turns:
            turn.tokens = [turn.seed]

    batcher = TurnBatcher(run)
    alone = Turn([1], 1, seed=9)
    batcher.decode(alone)  # outside any trial: at once
    assert alone.tokens == [9] and batches == [[9]]
    barrier, results = threading.Barrier(3), {}

    def trial(seed: int) -> None:
        with batcher.trial():
            barrier.wait()
            turn = Turn([1], 1, seed=seed)
            try:
                batcher.decode(turn)
                results[seed] = turn.tokens
            except RuntimeError as error:
                results[seed] = str(error)

    for seeds in ([1, 2, 3], [4, -1, 5]):
        threads = [threading.Thread(target=trial, args=(s,)) for s in seeds]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert sorted(batches[-1]) == sorted(seeds)  # one batch of all three
    failed = "decoding failed"
    assert results == {1: [1], 2: [2], 3: [3], 4: failed, -1: failed, 5: failed}


def test_a_model_the_row_decoder_cannot_run_decodes_through_generate(eval_workdir: Path, tmp_path: Path):
    """Another architecture (a local Qwen2 directory here) gets no batcher: its turns go through
    ``generate``, one trial at a time, and the harness runs its trials in order whatever ``batch``.
    Its sampler description names that decoder, so its episodes never share a sampler digest with
    row-decoded ones (greedy near-ties may break differently)."""
    base = default_base_dir(eval_workdir)
    vocab = load_checkpoint_model(base).config.vocab_size
    config = Qwen2Config(
        vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=4096,
    )  # fmt: skip
    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(tmp_path / "qwen2")
    policy = ModelPolicy(tmp_path / "qwen2", tokenizer_dir=base, decoding=Decoding(max_new_tokens=4))
    assert policy.batcher is None
    row_decoded = ModelPolicy(base, decoding=Decoding(max_new_tokens=4))
    assert (policy.describe()["decoder"], row_decoded.describe()["decoder"]) == ("generate", "rows/v2")
    _, pool = learnable_split()
    items = build_items(pool, SuiteSpec(episodes=2, recovery_episodes=0, retention_episodes=0))
    arm = run_arm("qwen2", policy, items, RuntimeConfig(max_steps=2), progress=False, batch=4)
    assert [m.item_id for m in arm.measures] == [i.item_id for i in items]
    assert all(m.generated_tokens == 4 * m.turns for m in arm.measures)  # an untrained model runs away
