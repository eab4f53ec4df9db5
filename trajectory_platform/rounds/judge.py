"""Judging derived records: episodes the rounds package builds from others (a DAgger continuation,
a context-distilled rewrite) go through the full cascade like any trajectory and come back as
:class:`~trajectory_platform.curation.candidates.Candidate` values carrying its labels."""

from __future__ import annotations

from collections.abc import Sequence

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.verify.cascade import CascadeConfig, verify_episodes
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.traces.record import Episode


def judged_candidates(
    episodes: Sequence[Episode], fixtures: Sequence[Fixture], cascade: CascadeConfig | None = None
) -> list[Candidate]:
    """Every episode with the cascade's sink, role, t_div/t_rec and target turns (input order)."""
    if not episodes:
        return []
    lookup = {f.fixture_id: f for f in fixtures}
    verdicts = verify_episodes(list(episodes), lookup, cascade or CascadeConfig(progress=False)).by_id()
    return [
        Candidate(
            episode,
            sink=verdicts[episode.episode_id].sink,
            role=verdicts[episode.episode_id].role,
            t_div=verdicts[episode.episode_id].t_div,
            t_rec=verdicts[episode.episode_id].t_rec,
            target_turns=verdicts[episode.episode_id].target_turns,
        )
        for episode in episodes
    ]
