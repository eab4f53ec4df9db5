"""The next round's mix: admitted trajectories join, stale ones retire, duplicates collapse.

Curation §Staleness and refresh: once training produces pi_{n+1}, trajectories sampled from pi_n
are off-policy, so a trajectory whose sampler round lies more than R rounds behind the round being
built leaves the mix (anchors, the external demonstrations no round replaces, never do). A
trajectory no round sampled (the scripted corpus the loop started from) counts as round 0.
What remains is deduplicated by normalized action sequence and capped per task with curation's own
``dedup_and_cap``; the token-share policy of the SFT mixture applies downstream
(``curation/mixture.py``), as for any other admitted data.

Sources. A mix holds the policy's own round trajectories beside derived ones: DAgger records
(``dagger.training_candidates``), teacher and context-distilled trajectories (``distill``). None
gets a quota of its own: each competes in the class the cascade gave it (pristine or recovery)
under the same token targets, counted in its *selected* target tokens, so a DAgger record weighs
only the expert's turns, not the learner's prefix it conditions on. :func:`source_token_shares`
reports each source's share of the selected target tokens, so a mix that drifts towards one
source is visible.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from trajectory_platform.curation.candidates import Candidate, candidates_by_id
from trajectory_platform.curation.dedup import dedup_and_cap
from trajectory_platform.curation.mixture import TokenCounter, count_tokens, selected_target_tokens
from trajectory_platform.rounds.dagger import DAGGER_KEY
from trajectory_platform.rounds.distill import CONTEXT_KEY, TEACHER_KEY
from trajectory_platform.rounds.sampling import ROUND_KEY, round_of
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.traces.drops import Drop, Tally
from trajectory_platform.traces.record import Episode


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


SOURCES = (DAGGER_KEY, CONTEXT_KEY, TEACHER_KEY, "round", "corpus")
"""A trajectory's source, in the order :func:`source_of` tests them: a DAgger record, a
context-distilled rewrite, a teacher's trajectory, the policy's own round, else the corpus the loop
started from."""


def source_of(episode: Episode) -> str:
    """The source tag of ``episode`` (one of :data:`SOURCES`), read from its ``extra_json``."""
    extra = json.loads(episode.extra_json or "{}")
    return next(
        (key for key in (DAGGER_KEY, CONTEXT_KEY, TEACHER_KEY) if key in extra),
        "round" if ROUND_KEY in extra else "corpus",
    )


def source_token_shares(
    candidates: Sequence[Candidate], counter: TokenCounter = count_tokens
) -> dict[str, float]:
    """Each source's share of the candidates' selected target tokens (the mixture's unit); every
    source in :data:`SOURCES` is listed, absent ones at 0."""
    tokens = dict.fromkeys(SOURCES, 0)
    for candidate in candidates:
        tokens[source_of(candidate.episode)] += selected_target_tokens(candidate, counter)
    total = sum(tokens.values())
    return {source: (count / total if total else 0.0) for source, count in tokens.items()}
