"""Collecting a round through the bounded spool: rollouts per task produced, judged batch by batch.

The same round as :func:`~trajectory_platform.rounds.sampling.sample_round` (the same attempts,
pinned seeds and stamps), but generation and verification overlap through
:func:`~trajectory_platform.rounds.spool.run_spooled`, so a slow verifier throttles the sampler.
A batch is one task's k attempts: the cascade's per-fixture judgements (calibration, a fixture
shown flaky) see all of a task's attempts together, as they would in one batch. The per-batch
results are merged into one :class:`~trajectory_platform.curation.verify.cascade.CascadeResult`
(:func:`~trajectory_platform.curation.verify.cascade.merge_results`)
(verdicts in order, stage counters and seconds added), so the round's summary, ledger and
collapse figures are the same code as for an unspooled round.

What differs from one cascade over the whole round: the judgements drawn across tasks (the
advisory ranking, the tools' refusal rates) are drawn per task.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from trajectory_platform.curation.verify.cascade import (
    CascadeConfig,
    CascadeResult,
    merge_results,
    verify_episodes,
)
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.judge import judge_servers
from trajectory_platform.gym.runtime import RuntimeConfig
from trajectory_platform.rounds.sampling import RoundSample, Sampler, fixture_attempts
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.rounds.spool import QueueStats, run_spooled
from trajectory_platform.traces.record import Episode


@dataclass
class CollectedRound:
    """A round collected through the spool: the judged sample and what the queue did."""

    sample: RoundSample
    queue: QueueStats


def collect_round(
    sampler: Sampler,
    fixtures: Sequence[Fixture],
    round_index: int,
    settings: RoundSettings,
    spool: Path,
    bound: int,
    *,
    runtime: RuntimeConfig | None = None,
    cascade: CascadeConfig | None = None,
) -> CollectedRound:
    """``settings.attempts`` attempts per fixture by ``sampler``, one batch per fixture through the
    spool under ``spool`` (at most ``bound`` batches unjudged), each batch judged by the full cascade."""
    if not fixtures:
        raise ValueError(f"round {round_index}: no task selected to sample")
    lookup = {f.fixture_id: f for f in fixtures}
    config = cascade or CascadeConfig(progress=False)

    def batches() -> Iterator[list[Episode]]:
        for fixture in fixtures:
            # The producer thread's own block, opened and closed within one batch: a fixture's
            # attempts share a kept judge (gym/judge.py), apart from the consumer's.
            with judge_servers():
                attempts = fixture_attempts(sampler, fixture, round_index, settings, runtime, config.seal_key)
            yield attempts

    def judge(batch: list[Episode]) -> tuple[list[Episode], CascadeResult]:
        return batch, verify_episodes(batch, lookup, config)

    run = run_spooled(batches(), judge, spool, bound)
    episodes = [e for batch, _ in run.results for e in batch]
    merged = merge_results([result for _, result in run.results])
    return CollectedRound(RoundSample(round_index, sampler.digest, episodes, merged), run.stats)
