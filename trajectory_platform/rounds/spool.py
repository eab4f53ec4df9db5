"""A bounded, durable queue between rollout generation and verification (curation §Collection
pipeline: backpressure).

Generating a rollout is cheap next to judging it (the cascade replays it in the sandbox and runs the
sealed oracle, sometimes K times), so an unbounded collector piles up unverified episodes: memory
and disk grow with the verifier's backlog and a crash loses all of it. Here the producer writes each
batch as a Parquet file under ``<spool>/pending/`` and the consumer reads that file back, judges
it and moves it to ``<spool>/done/``. The producer blocks while ``bound`` batches wait unjudged, so a
slow verifier throttles new rollouts instead of letting them pile up.

Both sides are threads of one process: generation and verification each spend most of their time
in subprocesses (the sandbox, the oracle) or in native code (a model's forward pass), so they
overlap. Output order is the batches' order, whatever the timing, and every batch produced is
judged exactly once (``produced == verified``), or the run raises.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

import pyarrow.parquet as pq

from trajectory_platform.traces.parquet import write_parquet
from trajectory_platform.traces.record import Episode
from trajectory_platform.traces.schema import episodes_to_table, table_to_episodes

R = TypeVar("R")

PENDING = "pending"
DONE = "done"


@dataclass
class QueueStats:
    """What the queue did: depth (unjudged batches, sampled at every put and take), volume and
    throughput per stage (episodes per busy second), and the time each side spent waiting."""

    bound: int
    batches: int = 0
    produced: int = 0
    verified: int = 0
    depth_max: int = 0
    depth_samples: list[int] = field(default_factory=list)
    produce_s: float = 0.0
    verify_s: float = 0.0
    producer_blocked_s: float = 0.0
    consumer_idle_s: float = 0.0

    @property
    def depth_mean(self) -> float:
        return sum(self.depth_samples) / len(self.depth_samples) if self.depth_samples else 0.0

    def to_dict(self) -> dict[str, float | int]:
        """JSON-ready figures (throughputs in episodes per second of the stage's own busy time)."""
        figures = {k: v for k, v in asdict(self).items() if k != "depth_samples"}
        return {
            **figures,
            "depth_mean": round(self.depth_mean, 3),
            "produce_episodes_per_s": round(self.produced / self.produce_s, 3) if self.produce_s else 0.0,
            "verify_episodes_per_s": round(self.verified / self.verify_s, 3) if self.verify_s else 0.0,
        }


@dataclass
class SpoolRun(Generic[R]):
    """The consumer's results, one per batch in the order the batches were produced, and the stats."""

    results: list[R]
    stats: QueueStats


class _Queue:
    """The depth counter both threads share, with the blocking rules; files hold the batches."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.depth = 0
        self.finished = False
        self.failed: BaseException | None = None
        self.cond = threading.Condition()


def batch_path(folder: Path, where: str, index: int) -> Path:
    """``<spool>/<pending|done>/<index>.parquet`` (zero-padded, so names sort in batch order)."""
    return folder / where / f"{index:06d}.parquet"


def _produce(batches: Iterator[list[Episode]], folder: Path, queue: _Queue, stats: QueueStats) -> None:
    """Generate batches into ``pending/``, waiting while the queue is full; a failure is handed over."""
    try:
        index = 0
        while True:
            started = time.monotonic()
            batch = next(batches, None)  # generating the batch is the producer's work
            stats.produce_s += time.monotonic() - started
            if batch is None:
                break
            with queue.cond:
                waited = time.monotonic()
                queue.cond.wait_for(lambda: queue.depth < queue.bound or queue.failed is not None)
                stats.producer_blocked_s += time.monotonic() - waited
                if queue.failed is not None:
                    return
            write_parquet(episodes_to_table(batch), batch_path(folder, PENDING, index))
            with queue.cond:
                queue.depth += 1
                stats.batches += 1
                stats.produced += len(batch)
                stats.depth_max = max(stats.depth_max, queue.depth)
                stats.depth_samples.append(queue.depth)
                queue.cond.notify_all()
            index += 1
    except BaseException as exc:  # noqa: BLE001 - handed to the consumer's thread, which raises it
        with queue.cond:
            queue.failed = exc
            queue.cond.notify_all()
    finally:
        with queue.cond:
            queue.finished = True
            queue.cond.notify_all()


def run_spooled(
    batches: Iterable[list[Episode]],
    consume: Callable[[list[Episode]], R],
    folder: Path,
    bound: int,
) -> SpoolRun[R]:
    """Produce ``batches`` (lazily: each is generated when the producer takes it) into the spool under
    ``folder`` and ``consume`` each one read back from its file, at most ``bound`` batches waiting.

    ``folder`` is emptied first: a replayed round regenerates its batches (pinned seeds make them the
    same) rather than trusting files a crashed run may have left half-judged.
    """
    if bound < 1:
        raise ValueError(f"the queue bound must be at least 1 batch, got {bound}")
    shutil.rmtree(folder, ignore_errors=True)
    for where in (PENDING, DONE):
        (folder / where).mkdir(parents=True)
    queue, stats = _Queue(bound), QueueStats(bound)
    producer = threading.Thread(
        target=_produce, args=(iter(batches), folder, queue, stats), name="spool-producer", daemon=True
    )
    producer.start()
    results: list[R] = []
    try:
        index = 0
        while True:
            with queue.cond:
                waited = time.monotonic()
                queue.cond.wait_for(lambda: queue.depth > 0 or queue.finished)
                stats.consumer_idle_s += time.monotonic() - waited
                if queue.failed is not None:
                    raise queue.failed
                if queue.depth == 0:  # finished and drained
                    break
            pending = batch_path(folder, PENDING, index)
            started = time.monotonic()
            episodes = table_to_episodes(pq.read_table(pending))
            results.append(consume(episodes))
            stats.verify_s += time.monotonic() - started
            pending.rename(batch_path(folder, DONE, index))
            with queue.cond:
                queue.depth -= 1
                stats.verified += len(episodes)
                stats.depth_samples.append(queue.depth)
                queue.cond.notify_all()
            index += 1
    except BaseException as exc:
        with queue.cond:
            queue.failed = queue.failed or exc
            queue.cond.notify_all()
        raise
    finally:
        producer.join()
    if stats.produced != stats.verified:  # a broken invariant, never a silent loss
        raise RuntimeError(
            f"spool {folder}: produced {stats.produced} episodes but verified {stats.verified}"
        )
    return SpoolRun(results, stats)
