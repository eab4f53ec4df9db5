"""A checkpoint as the sampler: every trajectory of its round carries the checkpoint's content
digest (not its folder name) and the round, whatever sink the cascade sends it to."""

from __future__ import annotations

import shutil
from pathlib import Path

from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import RuntimeConfig
from trajectory_platform.rounds.model_sampler import model_sampler
from trajectory_platform.rounds.sampling import policy_sampler, round_of, sample_round
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.training.optim.checkpoint import checkpoint_digest
from trajectory_platform.training.optim.model import default_base_dir

SHORT = Decoding(max_new_tokens=4)


def test_every_round_trajectory_carries_the_checkpoint_digest_and_round(
    eval_workdir: Path, gym_task: Fixture
):
    base = default_base_dir(eval_workdir)
    sampler = model_sampler(ModelPolicy(base, decoding=SHORT))
    sample = sample_round(
        sampler, [gym_task], 3, RoundSettings(attempts=2), runtime=RuntimeConfig(max_steps=2)
    )
    assert len(sample.episodes) == 2 and sum(sample.summary()["sinks"].values()) == 2
    for episode in sample.episodes:
        assert episode.lineage.sampler_policy_digest == sampler.digest
        assert episode.lineage.model_digest == checkpoint_digest(base)
        assert round_of(episode) == 3
    assert sampler.digest != policy_sampler(ScriptedExpert()).digest


def test_the_digest_follows_the_weights_not_the_folder(eval_workdir: Path, tmp_path: Path):
    base = default_base_dir(eval_workdir)
    copy = Path(shutil.copytree(base, tmp_path / "copy"))
    same = model_sampler(ModelPolicy(copy, decoding=SHORT, tokenizer_dir=base))
    assert same.digest == model_sampler(ModelPolicy(base, decoding=SHORT)).digest
    assert model_sampler(ModelPolicy(base, decoding=Decoding(max_new_tokens=5))).digest != same.digest
    weights = copy / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # one weight changes, the folder does not
    retrained = model_sampler(ModelPolicy(copy, decoding=SHORT, tokenizer_dir=base))
    assert retrained.digest != same.digest and retrained.model_digest == checkpoint_digest(copy)
