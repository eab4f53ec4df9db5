"""The next round's mix: admitted trajectories join, stale ones retire, duplicates collapse.

Curation §Staleness and refresh: once training produces pi_{n+1}, trajectories sampled from pi_n
are off-policy, so a trajectory whose sampler round lies more than R rounds behind the round being
built leaves the mix (anchors, the external demonstrations no round replaces, never do). A
trajectory no round sampled (the scripted corpus the loop started from) counts as round 0.
What remains is deduplicated by normalized action sequence and capped per task with curation's own
``dedup_and_cap``; the token-share policy of the SFT mixture applies downstream
(``curation/mixture.py``), as for any other admitted data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trajectory_platform.curation.candidates import Candidate, candidates_by_id
from trajectory_platform.curation.dedup import dedup_and_cap
from trajectory_platform.rounds.sampling import round_of
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.traces.drops import Drop, Tally


@dataclass
class RoundMix:
    """The trajectories the next round trains on, and every one left out with its :class:`Drop`."""

    kept: list[Candidate]
    dropped: dict[str, Drop]

    def tally(self) -> Tally:
        return Tally.of(len(self.kept), [d.reason for d in self.dropped.values()])


def next_mix(
    previous: Sequence[Candidate], admitted: Sequence[Candidate], round_index: int, settings: RoundSettings
) -> RoundMix:
    """The mix for training after round ``round_index``: ``previous`` (the last mix) plus this
    round's ``admitted`` candidates, under staleness retirement, then dedup and the per-task cap."""
    rejected = [c.episode_id for c in admitted if c.sink != "admitted"]
    if rejected:
        raise ValueError(f"only admitted trajectories join a mix; not admitted: {rejected[:5]}")
    dropped: dict[str, Drop] = {}
    fresh: list[Candidate] = []
    for candidate in candidates_by_id([*previous, *admitted]).values():  # a repeated id raises
        sampled = round_of(candidate.episode) or 0
        if not candidate.anchor and round_index - sampled > settings.staleness_rounds:
            why = f"sampled in round {sampled}, over R={settings.staleness_rounds} before round {round_index}"
            dropped[candidate.episode_id] = Drop("stale_sampler", why)
        else:
            fresh.append(candidate)
    selections = dedup_and_cap(fresh, settings.cap_per_fixture, seed=settings.seed)
    for selection in selections:
        if selection.drop is not None:
            dropped[selection.episode_id] = selection.drop
    kept = [c for c, s in zip(fresh, selections, strict=True) if s.kept]
    return RoundMix(kept, dropped)
