"""The runtime's seals (fault schedule, prompt, end) are over the id the runtime wrote: ingest
renaming an episode whose id collides (the same rollout file read twice, two rollouts sharing an
id) keeps the id the log wrote beside the new one, so an honest log's seals still hold; a log that
states such an id of its own gets nothing from it (the seals of another id's episode stay that
episode's). Written by the real rollout writer, read by both ingest paths."""

from __future__ import annotations

import copy
import shutil

import pyarrow.parquet as pq
import pytest

from trajectory_platform.gym.rollout import rollout
from trajectory_platform.gym.runtime import end_sealed, faults_sealed, prompt_sealed, recorded_faults
from trajectory_platform.traces.ingest import TABLE_FILES, ingest_paths, ingest_to
from trajectory_platform.traces.ingest_settings import IngestSettings
from trajectory_platform.traces.record import LOGGED_ID_KEY, Episode, canonical_json
from trajectory_platform.traces.schema import table_to_episodes

KEY = b"s" * 32
FIRST = ["expert_recovery", "expert_pristine", "never_recover"]
SECOND = ["never_recover", "expert_recovery", "expert_pristine"]  # same ids (seed, index), other runs


@pytest.fixture(scope="module")
def rolled(tmp_path_factory):
    root = tmp_path_factory.mktemp("seals")
    for name, behaviours in (("first", FIRST), ("second", SECOND)):
        rollout(
            len(behaviours), seed=3, out_dir=root / name, progress=False, seal_key=KEY, behaviours=behaviours
        )
        (root / name / "truth.jsonl").unlink()  # the sidecar is the test's, not a log
    shutil.copytree(root / "first", root / "again")  # the same files, ingested twice in one batch
    return root


def _ingested(paths, streaming: bool, out) -> list[Episode]:
    if not streaming:
        result = ingest_paths(paths)
        assert not result.rejects
        return result.episodes
    result, _ = ingest_to(paths, out, settings=IngestSettings(batch_rows=2))
    assert not result.rejects
    return table_to_episodes(pq.read_table(out / TABLE_FILES[0]))


def _unsealed(episodes: list[Episode]) -> list[tuple[str, str]]:
    return [
        (episode.episode_id, seal)
        for episode in episodes
        for seal, holds in (
            ("end", end_sealed(episode, KEY)),
            ("prompt", prompt_sealed(episode, KEY)),
            ("faults", faults_sealed(episode, KEY)),
        )
        if not holds
    ]


@pytest.mark.parametrize("streaming", [False, True], ids=["in_memory", "streaming"])
@pytest.mark.parametrize(
    "copies", [("first", "again"), ("first", "second")], ids=["same_file_twice", "shared_ids"]
)
def test_renamed_honest_episodes_keep_every_seal(rolled, tmp_path, streaming, copies):
    episodes = _ingested([rolled / name for name in copies], streaming, tmp_path / "out")
    assert len(episodes) == 2 * len(FIRST) == len({e.episode_id for e in episodes})
    assert all(e.episode_id != e.logged_id() for e in episodes)  # every id collided: all renamed
    assert any(recorded_faults(e) for e in episodes)  # a fault seal is among those checked
    assert _unsealed(episodes) == []


def _forged_lines(genuine: Episode) -> dict[str, list[Episode]]:
    """Logs stating a genuine episode's id as the one they wrote, its seals and its run beside it."""

    def claiming(new_id: str, claim: object) -> Episode:
        forged = copy.deepcopy(genuine)
        forged.episode_id = new_id
        forged.extra_json = canonical_json({**forged.extra(), LOGGED_ID_KEY: claim})
        return forged

    return {
        "another id, stating the genuine one": [claiming("forged-1", genuine.episode_id)],
        "two copies sharing an id, stating the genuine one": [
            claiming("forged-2", genuine.episode_id),
            claiming("forged-2", genuine.episode_id),
        ],
        "a renamed-looking id, stating the genuine one": [
            claiming(f"{genuine.episode_id}~0000beef", genuine.episode_id)
        ],
    }


def test_a_log_stating_another_episodes_id_as_its_own_gets_none_of_its_seals(rolled, tmp_path):
    (genuine,) = [e for e in ingest_paths([rolled / "first"]).episodes if recorded_faults(e)][:1]
    assert _unsealed([genuine]) == []
    for name, forged in _forged_lines(genuine).items():
        log = tmp_path / f"{len(name)}.jsonl"
        log.write_text("".join(canonical_json(e.to_dict()) + "\n" for e in forged), encoding="utf-8")
        episodes = ingest_paths([log]).episodes
        assert {e.logged_id() for e in episodes} == {forged[0].episode_id}, name
        assert {seal for _, seal in _unsealed(episodes)} == {"end", "faults"}, name
