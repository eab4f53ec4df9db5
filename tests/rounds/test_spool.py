"""The bounded spool between rollout generation and verification: a slow consumer throttles the
producer (the unjudged depth never exceeds the bound), nothing is lost, and the output order is the
batches' order whatever the timing; a collected round is the same round, stamped and judged."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.rounds.collection import collect_round
from trajectory_platform.rounds.sampling import policy_sampler, round_of
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.rounds.spool import PENDING, run_spooled
from trajectory_platform.traces.record import Episode


def _batch(index: int, size: int = 2) -> list[Episode]:
    record = {"source_format": "native", "source_file": "t.jsonl"}
    return [Episode.from_dict({**record, "episode_id": f"b{index}-{i}"}) for i in range(size)]


def test_a_slow_consumer_throttles_the_producer_and_nothing_is_lost(tmp_path: Path) -> None:
    produced_at: list[float] = []
    seen_depths: list[int] = []

    def batches():
        for index in range(8):
            produced_at.append(time.monotonic())
            yield _batch(index)

    def slow(batch: list[Episode]) -> list[str]:
        seen_depths.append(len(list((tmp_path / "spool" / PENDING).glob("*.parquet"))))
        time.sleep(0.05)
        return [e.episode_id for e in batch]

    run = run_spooled(batches(), slow, tmp_path / "spool", bound=2)
    assert run.stats.depth_max == 2 and max(seen_depths) <= 2  # the bound held, on disk too
    assert run.stats.producer_blocked_s > 0.1  # the producer waited for the verifier
    assert run.stats.produced == run.stats.verified == 16 and run.stats.batches == 8
    assert [i for ids in run.results for i in ids] == [f"b{b}-{i}" for b in range(8) for i in range(2)]
    assert sorted(p.name for p in (tmp_path / "spool" / "done").iterdir())[-1] == "000007.parquet"
    figures = run.stats.to_dict()
    assert 0 < figures["depth_mean"] <= 2 and figures["verify_episodes_per_s"] > 0


def test_the_output_order_does_not_depend_on_timing(tmp_path: Path) -> None:
    orders = []
    for trial in range(3):
        jitter = random.Random(trial)

        def batches(jitter: random.Random = jitter):
            for index in range(6):
                time.sleep(jitter.random() * 0.01)
                yield _batch(index, size=1)

        def consume(batch: list[Episode], jitter: random.Random = jitter) -> str:
            time.sleep(jitter.random() * 0.01)
            return batch[0].episode_id

        orders.append(run_spooled(batches(), consume, tmp_path / f"s{trial}", bound=1 + trial).results)
    assert orders[0] == orders[1] == orders[2] == [f"b{i}-0" for i in range(6)]


def test_a_failing_side_stops_the_other_and_raises(tmp_path: Path) -> None:
    def broken():
        yield _batch(0)
        raise RuntimeError("sampler crashed")

    with pytest.raises(RuntimeError, match="sampler crashed"):
        run_spooled(broken(), lambda b: b, tmp_path / "a", bound=1)

    def endless():
        index = 0
        while True:
            yield _batch(index)
            index += 1

    def refuse(batch: list[Episode]) -> None:
        raise ValueError("verifier down")

    with pytest.raises(ValueError, match="verifier down"):
        run_spooled(endless(), refuse, tmp_path / "b", bound=2)
    with pytest.raises(ValueError, match="bound"):
        run_spooled([], refuse, tmp_path / "c", bound=0)


def test_a_collected_round_is_stamped_judged_and_accounted(gym_task: Fixture, tmp_path: Path) -> None:
    sampler = policy_sampler(ScriptedExpert())
    collected = collect_round(sampler, [gym_task], 3, RoundSettings(attempts=2), tmp_path / "spool", 1)
    sample = collected.sample
    assert [c.sink for c in sample.candidates] == ["admitted", "admitted"]
    for candidate in sample.admitted:
        assert candidate.episode.lineage.sampler_policy_digest == sampler.digest
        assert round_of(candidate.episode) == 3
    assert sample.summary()["ledger"]["attempts"] == 2
    assert collected.queue.produced == collected.queue.verified == 2
