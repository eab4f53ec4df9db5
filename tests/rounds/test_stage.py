"""The round steps the assets call: the next mix folds a round's admitted trajectories into the last
mix (stale samplers out, duplicates collapsed) and splits it like the corpus; a round with no
training task in the band is refused with the reason; the run settings refuse a sampler that does
not exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trajectory_platform.curation.split_mixture_stage import SplitSettings
from trajectory_platform.curation.verify import verified_table
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.environments.real_projects import PROJECTS, build_environment
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.rounds.sampling import ROUND_KEY, policy_sampler, sample_round
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.rounds.stage import RoundRunSettings, candidates_table, round_corpus, run_round


def test_the_next_mix_retires_stale_samplers_and_keeps_one_per_action_sequence(gym_task: Fixture) -> None:
    sampler, settings = policy_sampler(ScriptedExpert()), RoundSettings(attempts=2, staleness_rounds=2)
    old = sample_round(sampler, [gym_task], 1, settings)
    new = sample_round(sampler, [gym_task], 4, settings)
    previous = candidates_table(old.admitted)  # the last mix: round 1's trajectories
    verified = verified_table(new.episodes, new.cascade)
    split = SplitSettings(pinned=())  # the default pin names a family the one-task library lacks
    corpus = round_corpus(previous, verified, 4, settings, split, [gym_task])
    tally = corpus.mix.tally()
    assert tally.records_in == 4 and tally.kept == 1  # two rounds x k=2, one action sequence
    assert tally.dropped["stale_sampler"] == 2  # round 1 is more than R=2 rounds before round 4
    assert sum(tally.dropped.values()) == 3
    assert [json.loads(e)[ROUND_KEY] for e in corpus.corpus["extra_json"].to_pylist()] == [4]
    assert corpus.corpus["sink"].to_pylist() == ["admitted"]
    assert corpus.splits.table["episode_id"].to_pylist() == corpus.corpus["episode_id"].to_pylist()


def test_a_round_with_no_training_task_in_the_band_is_refused(gym_task: Fixture, tmp_path: Path) -> None:
    """``gym_task`` is built apart from the library, so it is no training task: no outcome counts."""
    sample = sample_round(policy_sampler(ScriptedExpert()), [gym_task], 1, RoundSettings(attempts=1))
    earlier = verified_table(sample.episodes, sample.cascade)
    settings = RoundRunSettings(sampler="expert_pristine")
    with pytest.raises(ValueError, match=r"round 2: no training task has P_inform in \[0.5, 1.0\]"):
        run_round(settings, SplitSettings(), earlier, tmp_path, 2, tmp_path / "spool", CascadeConfig())


def test_the_run_settings_refuse_an_unknown_sampler_and_an_empty_queue() -> None:
    with pytest.raises(ValueError, match="sampler must be"):
        RoundRunSettings(sampler="oracle")
    with pytest.raises(ValueError, match="queue_bound"):
        RoundRunSettings(queue_bound=0)


def test_the_next_mix_splits_over_the_registered_environments_too(gym_task: Fixture) -> None:
    """A split pin may name a brought environment's family: the round's split plans over the same
    environments as the corpus's, so the pin resolves instead of being refused as unknown."""
    env = build_environment(PROJECTS[0]).fixture()
    sampler, settings = policy_sampler(ScriptedExpert()), RoundSettings(attempts=1)
    sample = sample_round(sampler, [gym_task], 1, settings)
    verified = verified_table(sample.episodes, sample.cascade)
    split = SplitSettings(pinned=(f"{env.repo_family}:test",))
    with pytest.raises(ValueError, match=env.repo_family):
        round_corpus(candidates_table([]), verified, 1, settings, split, [gym_task])
    corpus = round_corpus(candidates_table([]), verified, 1, settings, split, [gym_task], [env])
    assert corpus.splits.table["episode_id"].to_pylist() == corpus.corpus["episode_id"].to_pylist()
