"""The held-out coverage audit (evaluation/coverage.py): a held-out token never trained as a target
is caught before training; a table that trains every needed token passes."""

from __future__ import annotations

from pathlib import Path

from trajectory_platform.curation.split_mixture_stage import SplitSettings
from trajectory_platform.evaluation.coverage import expert_targets, heldout_coverage, suite_coverage
from trajectory_platform.gym.library import learnable_fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset, to_table
from trajectory_platform.training.data.tokenizer import load_tokenizer
from trajectory_platform.training.optim.model import default_base_dir


def _table(fixtures, tokenizer):
    inputs = [
        EpisodeInput(run_episode(f, ScriptedExpert(), seed=0, episode_id=f"t{i}", verify=False).episode)
        for i, f in enumerate(fixtures)
    ]
    return to_table(build_masked_dataset(inputs, tokenizer))


def test_a_held_out_name_never_trained_is_uncovered_and_training_on_it_covers_it(eval_workdir: Path):
    tokenizer = load_tokenizer(default_base_dir(eval_workdir))
    heldout = [learnable_fixture("learn-delta", 0, "path")]  # report_value: read, answer a digit
    other = _table([learnable_fixture("learn-alpha", 0, "path")], tokenizer)
    gap = heldout_coverage(other, heldout, tokenizer, minimum=1)
    assert not gap.passed and gap.uncovered  # the held-out file name's pieces are new to this table
    assert gap.summary()["least_covered"][0]["training_targets"] == 0
    covered = heldout_coverage(_table(heldout * 3, tokenizer), heldout, tokenizer, minimum=3)
    assert covered.passed and set(covered.training) == set(expert_targets(heldout, tokenizer))
    assert not heldout_coverage(other, [], tokenizer, minimum=1).passed  # nothing audited is no proof


def test_suite_coverage_audits_the_familiar_held_out_learnable_fixtures(eval_workdir: Path):
    tokenizer = load_tokenizer(default_base_dir(eval_workdir))
    empty = _table([], tokenizer)
    coverage = suite_coverage(empty, tokenizer, SplitSettings().policy(), minimum=1)
    assert coverage.fixtures > 0 and not coverage.passed
    assert all(n == 0 for n in coverage.training.values())
