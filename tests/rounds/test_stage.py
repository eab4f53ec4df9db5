"""The round steps the assets call: round 1 estimates p from a pilot of its own sampler, never from
the scripted corpus; a round with nothing in the band trains on verified DAgger labels, and one with
neither is refused with the reason; the next mix folds a round's admitted trajectories into the last
mix (stale samplers out, duplicates collapsed) and splits it like the corpus; the run settings
refuse a sampler that does not exist."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from trajectory_platform.curation.split_mixture_stage import SplitSettings
from trajectory_platform.curation.verify import verified_table, verify_episodes
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.environments.real_projects import PROJECTS, build_environment
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert, make_policy
from trajectory_platform.rounds.mix import source_of
from trajectory_platform.rounds.sampling import ROUND_KEY, policy_sampler, sample_round, stamp
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.rounds.stage import (
    RoundRun,
    RoundRunSettings,
    candidates_table,
    round_corpus,
    run_round,
    training_fixtures,
)
from trajectory_platform.traces.schema import EPISODE_SCHEMA, table_to_episodes


def test_the_next_mix_retires_stale_samplers_and_keeps_one_per_action_sequence(gym_task: Fixture) -> None:
    sampler, settings = policy_sampler(ScriptedExpert()), RoundSettings(attempts=2, staleness_rounds=2)
    old = sample_round(sampler, [gym_task], 1, settings)
    new = sample_round(sampler, [gym_task], 4, settings)
    previous = candidates_table(old.admitted)  # the last mix: round 1's trajectories
    verified = verified_table(new.episodes, new.cascade)
    split = SplitSettings(pinned=())  # the default pin names a family the one-task library lacks
    corpus = round_corpus(previous, verified, candidates_table([]), 4, settings, split, [gym_task])
    tally = corpus.mix.tally()
    assert tally.records_in == 4 and tally.kept == 1  # two rounds x k=2, one action sequence
    assert tally.dropped["stale_sampler"] == 2  # round 1 is more than R=2 rounds before round 4
    assert sum(tally.dropped.values()) == 3
    assert [json.loads(e)[ROUND_KEY] for e in corpus.corpus["extra_json"].to_pylist()] == [4]
    assert corpus.corpus["sink"].to_pylist() == ["admitted"]
    assert corpus.splits.table["episode_id"].to_pylist() == corpus.corpus["episode_id"].to_pylist()


@pytest.fixture(scope="module")
def piloted(
    tmp_path_factory: pytest.TempPathFactory, scripted_corpus: pa.Table
) -> tuple[RoundRun, RoundRunSettings]:
    """Round 1 with a sampler that never solves a task, on a corpus whose scripted outcomes would
    put two training tasks in the band: a pilot of two tasks, then DAgger on its failures."""
    folder = tmp_path_factory.mktemp("piloted")
    # seed 2 draws two bug-fix tasks (test, read, edit, test, answer), which wrong_fix always fails
    settings = RoundRunSettings(sampler="wrong_fix", attempts=2, pilot_attempts=1, pilot_tasks=2, seed=2)
    run = run_round(
        settings, SplitSettings(), scripted_corpus, folder, 1, folder / "spool", CascadeConfig(progress=False)
    )
    return run, settings


def test_round_one_ignores_the_scripted_corpus_and_pilots_its_sampler(
    piloted: tuple[RoundRun, RoundRunSettings],
):
    run, settings = piloted
    assert run.pilot is not None and run.collected is None  # wrong_fix solves nothing: no task in the band
    piloted_ids = {e.task.fixture_id for e in run.pilot.sample.episodes}
    assert len(piloted_ids) == 2 and {c.signal.fixture_id for c in run.choices} == piloted_ids
    assert all(
        c.signal.attempts == 1 and not c.selected for c in run.choices
    )  # the pilot's, not the corpus's
    assert all("rarely solved" in c.reason for c in run.choices)
    selection = run.selection()
    assert selection["estimated_from"] == "pilot" and selection["tasks_selected"] == 0
    assert selection["pilot"]["attempts"] == 2 and selection["pilot"]["tasks_estimated"] == 2
    assert [e.episode_id for e in run.sample.episodes] == [e.episode_id for e in run.pilot.sample.episodes]


def test_a_round_with_nothing_in_the_band_trains_on_verified_dagger_labels(
    piloted: tuple[RoundRun, RoundRunSettings],
):
    """Every failed pilot attempt is labelled after its first turn; the admitted records carry the
    round and the learner's sampler digest, and survive the round's split (the split stage excludes
    a derived record whose parent is not in the corpus, so they must not name the failed attempt)."""
    run, settings = piloted
    assert run.dagger is not None
    summary = run.dagger.summary()
    assert summary["states_labelled"] == 2 and summary["records_admitted"] >= 1
    assert all(label.turn >= 1 for label in run.dagger.labelled.labels)
    used = {label.continuation.episode_id for label in run.dagger.labelled.used}
    learner = policy_sampler(make_policy("wrong_fix")).digest
    for record in run.dagger.admitted:
        extra = json.loads(record.episode.extra_json or "{}")
        assert record.episode_id in used and extra[ROUND_KEY] == 1 and source_of(record.episode) == "dagger"
        assert extra["dagger"]["learner_sampler_policy_digest"] == learner == run.sampler_digest
        assert record.episode.lineage.sampler_policy_digest not in (None, learner)
    verified = verified_table(run.sample.episodes, run.sample.cascade)
    dagger = candidates_table(run.dagger.admitted)
    library = build_library(SplitSettings().fixture_seed)
    corpus = round_corpus(candidates_table([]), verified, dagger, 1, settings, SplitSettings(), library)
    table = corpus.splits.table.to_pylist()
    assert {r["split"] for r in table if r["episode_id"] in used} == {"train"}
    assert {r["episode_id"] for r in table} >= {r.episode_id for r in run.dagger.admitted}
    later = round_corpus(
        corpus.corpus, candidates_table([]), candidates_table([]), 9, settings, SplitSettings(), library
    )
    assert {c.episode_id for c in later.mix.kept} >= {
        r.episode_id for r in run.dagger.admitted
    }  # DAgger aggregates


def test_a_round_with_neither_band_tasks_nor_verified_labels_is_refused(tmp_path: Path) -> None:
    """The expert solves every piloted task (nothing in the band, no failure to label); without
    DAgger the never-solving sampler has nothing either. Both are refused with the reason."""
    spool, cascade = tmp_path / "spool", CascadeConfig(progress=False)
    solved = RoundRunSettings(sampler="expert_pristine", pilot_attempts=1, pilot_tasks=1)
    with pytest.raises(
        ValueError, match=r"round 1: no training task has P_inform in \[0.5, 1.0\] by a pilot"
    ) as err:
        run_round(solved, SplitSettings(), None, tmp_path, 1, spool, cascade)
    assert "nearly always solved" in str(err.value) and "DAgger admitted no record" in str(err.value)
    off = RoundRunSettings(sampler="wrong_fix", pilot_attempts=1, pilot_tasks=1, dagger_states=0)
    with pytest.raises(ValueError, match="DAgger is off"):
        run_round(off, SplitSettings(), None, tmp_path, 1, spool, cascade)


def test_earlier_rounds_attempts_in_the_band_are_sampled_without_a_pilot(
    tmp_path: Path, scripted_corpus: pa.Table
) -> None:
    """Round 2 estimates p from round 1's attempts (stamped with their round): no pilot, k attempts
    on each task in the band, under the main sampling's seeds and episode ids."""
    fixtures = training_fixtures(SplitSettings())[:2]
    sampler = policy_sampler(ScriptedExpert())
    stamped = [stamp(e, sampler, 1) for e in table_to_episodes(scripted_corpus.select(EPISODE_SCHEMA.names))]
    earlier = verified_table(stamped, verify_episodes(stamped, {f.fixture_id: f for f in fixtures}))
    settings = RoundRunSettings(sampler="expert_pristine", attempts=2)
    run = run_round(
        settings, SplitSettings(), earlier, tmp_path, 2, tmp_path / "spool", CascadeConfig(progress=False)
    )
    assert run.pilot is None and run.collected is not None
    assert run.selection()["estimated_from"] == "earlier rounds' attempts"
    assert sorted({e.task.fixture_id for e in run.sample.episodes}) == sorted(f.fixture_id for f in fixtures)
    assert len(run.sample.episodes) == 4 and not any("pilot" in e.episode_id for e in run.sample.episodes)
    assert run.dagger is not None and run.dagger.summary()["states_labelled"] == 0  # the expert never fails


def test_the_run_settings_refuse_an_unknown_sampler_and_an_empty_queue() -> None:
    with pytest.raises(ValueError, match="sampler must be"):
        RoundRunSettings(sampler="oracle")
    with pytest.raises(ValueError, match="queue_bound"):
        RoundRunSettings(queue_bound=0)
    with pytest.raises(ValueError, match="dagger_states must be >= 0"):
        RoundRunSettings(dagger_states=-1)


def test_the_next_mix_splits_over_the_registered_environments_too(gym_task: Fixture) -> None:
    """A split pin may name a brought environment's family: the round's split plans over the same
    environments as the corpus's, so the pin resolves instead of being refused as unknown."""
    env = build_environment(PROJECTS[0]).fixture()
    sampler, settings = policy_sampler(ScriptedExpert()), RoundSettings(attempts=1)
    sample = sample_round(sampler, [gym_task], 1, settings)
    verified = verified_table(sample.episodes, sample.cascade)
    split = SplitSettings(pinned=(f"{env.repo_family}:test",))
    with pytest.raises(ValueError, match=env.repo_family):
        round_corpus(candidates_table([]), verified, candidates_table([]), 1, settings, split, [gym_task])
    corpus = round_corpus(
        candidates_table([]), verified, candidates_table([]), 1, settings, split, [gym_task], [env]
    )
    assert corpus.splits.table["episode_id"].to_pylist() == corpus.corpus["episode_id"].to_pylist()
