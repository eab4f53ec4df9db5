"""The order in which a full ablation's runs start: every seed's reference first; then, as each
reference passes the competence gate, that seed's other variants, the costliest first.

A seed's variants wait for its own reference only. Waiting for every seed's reference (until
2026-12-04) left one of two workers idle while the third reference trained (about 460 s), and the
renamed-copy runs, the slowest (0.27 s a step against 0.15-0.20), started mid-queue and ended last:
that run took 91.4 minutes; replaying its runs' measured durations gives 91.2 in that order and
83.8 in this one, and the next full run, in this order, took 82.1 (89.3 replayed in the old one).
Which runs train is unchanged (a seed whose reference misses the gate trains nothing else), and so
is every run's outcome: it depends on its variant, seed, data and settings, not on when it starts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import TypeVar

from .calibrate import SAME_COST

Key = tuple[str, int]
"""(variant, seed): one run."""
T = TypeVar("T")


def costliest_first(step_seconds: Mapping[str, float], variants: Iterable[str]) -> tuple[str, ...]:
    """``variants`` by calibrated seconds a step, longest first (a variant that trains as another
    one does, :data:`~.calibrate.SAME_COST`, takes its time); ties keep their given order."""
    listed = list(variants)
    return tuple(sorted(listed, key=lambda v: -step_seconds[SAME_COST.get(v, v)]))


@dataclass
class RunQueue:
    """The runs not started yet, next first (see the module docstring)."""

    seeds: Sequence[int]
    reference: str
    followers: tuple[str, ...]
    """The other variants, in the order their runs start (:func:`costliest_first`)."""
    pending: list[Key] = field(init=False)

    def __post_init__(self) -> None:
        self.pending = [(self.reference, seed) for seed in self.seeds]

    def pop(self) -> Key | None:
        """The next run to start, or ``None`` while nothing is ready."""
        return self.pending.pop(0) if self.pending else None

    def reference_finished(self, seed: int, passed: bool) -> None:
        """Queue ``seed``'s other variants if its reference passed the gate, behind any reference
        still waiting (each one may release as much work), the costliest variants first."""
        if passed:
            self.pending.extend((variant, seed) for variant in self.followers)
        self.pending.sort(key=self._priority)

    def _priority(self, key: Key) -> tuple[int, int]:
        variant, seed = key
        return (-1, seed) if variant == self.reference else (self.followers.index(variant), seed)


def drain(
    queue: RunQueue,
    workers: int,
    start: Callable[[Key], Future[T]],
    finished: Callable[[Key, T], None],
) -> None:
    """Keep ``workers`` runs in flight, starting the next from ``queue`` as each one ends, until
    the queue is empty and every run has ended; ``finished`` receives each result as it arrives
    (and may queue more, through :meth:`RunQueue.reference_finished`)."""
    in_flight: dict[Future[T], Key] = {}
    while True:
        while len(in_flight) < workers and (key := queue.pop()) is not None:
            in_flight[start(key)] = key
        if not in_flight:
            return
        done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
        for job in done:
            finished(in_flight.pop(job), job.result())
