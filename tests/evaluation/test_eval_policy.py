"""The model-backed policy: the prompt is the training serialization, decoding is reproducible,
and a turn without an end token inside its budget is reported as a runaway (``length``)."""

from __future__ import annotations

from pathlib import Path

from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.policy import PolicyInput
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset
from trajectory_platform.training.optim.model import default_base_dir


def _fixture():
    return next(
        f for f in build_library(0) if f.fixture_id.endswith("@uri") and f.task_kind == "fix_constant"
    )


def _input(episode, upto: int, step: int) -> PolicyInput:
    fixture = _fixture()
    return PolicyInput(
        messages=episode.events[:upto],
        tools=fixture.manifest.specs(),
        tools_version=fixture.manifest.tag,
        step=step,
    )


def test_prompt_is_a_prefix_of_the_training_example(eval_workdir: Path):
    policy = ModelPolicy(default_base_dir(eval_workdir))
    episode = run_episode(_fixture(), ScriptedExpert(), verify=False).episode
    example = build_masked_dataset([EpisodeInput(episode)], policy.tokenizer).result.examples[0]
    second_call = [i for i, e in enumerate(episode.events) if e.kind == "assistant"][1]
    prompt = policy.prompt_ids(_input(episode, second_call, 1))
    assert example.input_ids[: len(prompt)] == prompt
    assert policy.tokenizer.convert_ids_to_tokens(prompt[-1]) == "<|assistant|>"


def test_greedy_and_pinned_sampling_are_reproducible_and_runaway_is_length(eval_workdir: Path):
    base = default_base_dir(eval_workdir)
    episode = run_episode(_fixture(), ScriptedExpert(), verify=False).episode
    inp = _input(episode, 2, 0)
    greedy = ModelPolicy(base, decoding=Decoding(max_new_tokens=6))
    first, again = greedy.act(inp), greedy.act(inp)
    assert first == again
    assert first.finish_reason == "length" and first.output_tokens == 6  # an untrained model never stops
    sampled = ModelPolicy(base, decoding=Decoding(max_new_tokens=6, do_sample=True, seed=3))
    sampled.episode_seed = 5
    a, b = sampled.act(inp), sampled.act(inp)
    assert a == b
    sampled.episode_seed = 6
    assert sampled.act(inp).text != a.text
    assert sampled.sampling_params()["decoding"] == "sampled"


def test_compact_tool_view_prompt_is_a_prefix_of_the_ablation_training_example(eval_workdir: Path):
    from ablation.corpus import compact_tool, masked_table

    policy = ModelPolicy(default_base_dir(eval_workdir), tool_view=compact_tool)
    episode = run_episode(_fixture(), ScriptedExpert(), verify=False).episode
    table = masked_table([EpisodeInput(episode)], policy.tokenizer)
    example = table.column("input_ids").to_pylist()[0]
    second_call = [i for i, e in enumerate(episode.events) if e.kind == "assistant"][1]
    compact = policy.prompt_ids(_input(episode, second_call, 1))
    assert example[: len(compact)] == compact
    full = ModelPolicy(default_base_dir(eval_workdir)).prompt_ids(_input(episode, second_call, 1))
    assert len(compact) < len(full) - 100  # the argument descriptions and wrapper are gone
    text = policy.tokenizer.decode(compact)
    assert "target_uri" in text and "additionalProperties" not in text and "workspace-relative" not in text
