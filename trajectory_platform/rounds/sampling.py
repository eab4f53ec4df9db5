"""Sampling a round: k attempts per selected task with pinned seeds, every attempt judged by the cascade.

Every trajectory carries who sampled it and when: ``lineage.sampler_policy_digest`` is the
sampler's digest (the policy's description, digested: a checkpoint's and tokenizer's content
digests for a model, see ``model_sampler``; the scripted policy's name and parameters otherwise)
and ``extra_json`` holds ``{"round": i}``. That is what staleness retirement (``mix``) and the
retraining sensor's stale-corpus trigger read; without
it a stale trajectory could not be found.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trajectory_platform.curation.candidates import Candidate
from trajectory_platform.curation.verify.cascade import CascadeConfig, CascadeResult, verify_episodes
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.policy import Policy
from trajectory_platform.gym.runtime import SYSTEM_PROMPT, RuntimeConfig, run_episode
from trajectory_platform.gym.tools import sha256_digest
from trajectory_platform.rounds.settings import RoundSettings
from trajectory_platform.traces.record import Episode, canonical_json

ROUND_KEY = "round"
"""Key in an episode's ``extra_json``: the round whose sampler produced it."""


@dataclass(frozen=True)
class Sampler:
    """A policy and the digest its trajectories carry (``model_digest``: the checkpoint's, if any);
    ``system_prompt``: the instructions its episodes run under (a longer one for context
    distillation, see ``distill.prompted_sampler``, which also folds it into the digest)."""

    policy: Policy
    digest: str
    model_digest: str | None = None
    system_prompt: str = SYSTEM_PROMPT


def policy_sampler(policy: Policy) -> Sampler:
    """A sampler whose digest is its policy's description (``describe``: a scripted policy's name and
    parameters, a model's content digests and decoding), digested: the value the runtime records,
    so a round's trajectories carry the same digest the runtime gave them."""
    return Sampler(policy, sha256_digest(canonical_json(policy.describe())))


def round_of(episode: Episode) -> int | None:
    """The round recorded in ``extra_json``; ``None`` for a trajectory no round sampled."""
    try:
        extra = json.loads(episode.extra_json or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"episode {episode.episode_id}: extra_json is not JSON ({exc.msg})") from exc
    value = extra.get(ROUND_KEY) if isinstance(extra, dict) else None
    return int(value) if value is not None else None


def stamp(episode: Episode, sampler: Sampler, round_index: int, **extra: Any) -> Episode:
    """Write the sampler's digest (and checkpoint digest) and the round into ``episode``'s lineage."""
    episode.lineage.sampler_policy_digest = sampler.digest
    if sampler.model_digest is not None:
        episode.lineage.model_digest = sampler.model_digest
    recorded = json.loads(episode.extra_json or "{}")
    episode.extra_json = canonical_json({**recorded, ROUND_KEY: round_index, **extra})
    return episode


def short(text: str) -> str:
    """Ten hex characters naming ``text`` (a digest or an id) inside an episode id."""
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def pinned_seed(base: int, round_index: int, fixture_id: str, attempt: int, stream: str = "") -> int:
    """One episode seed per (base, round, task, attempt): rerunning a round reproduces it exactly,
    whatever order the attempts run in.

    ``stream`` names a separate draw within the same round (the pilot that estimates p,
    ``selection.PILOT_STREAM``): its name is hashed in with the rest, so its seeds are not the main
    sampling's. With the same seed a sampler replays the same episode, so a pilot sharing the main
    seeds would make attempt 0 of the band sampling a copy of pilot attempt 0, not a new draw. The
    main sampling (``stream=""``) hashes exactly what it always did, so its seeds are unchanged."""
    key = f"{base}:{round_index}:{fixture_id}:{attempt}" + (f":{stream}" if stream else "")
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big")


@dataclass
class RoundSample:
    """One round's attempts, their verdicts, and the cascade's ledger on them."""

    round_index: int
    sampler_digest: str
    episodes: list[Episode]
    cascade: CascadeResult

    @property
    def candidates(self) -> list[Candidate]:
        """Every attempt with the labels the cascade gave it (input order)."""
        verdicts = self.cascade.by_id()
        return [
            Candidate(
                episode=e,
                sink=verdicts[e.episode_id].sink,
                role=verdicts[e.episode_id].role,
                t_div=verdicts[e.episode_id].t_div,
                t_rec=verdicts[e.episode_id].t_rec,
                target_turns=verdicts[e.episode_id].target_turns,
            )
            for e in self.episodes
        ]

    @property
    def admitted(self) -> list[Candidate]:
        return [c for c in self.candidates if c.sink == "admitted"]

    def summary(self) -> dict[str, Any]:
        """Counts per sink and the cascade's staged/monolithic cost ledger, JSON-ready."""
        return {
            "round": self.round_index,
            "sampler_policy_digest": self.sampler_digest,
            "attempts": len(self.episodes),
            "sinks": self.cascade.counts("sink"),
            "ledger": self.cascade.ledger.summary(),
        }


def fixture_attempts(
    sampler: Sampler,
    fixture: Fixture,
    round_index: int,
    settings: RoundSettings,
    runtime: RuntimeConfig | None = None,
    seal_key: bytes | None = None,
    stream: str = "",
) -> list[Episode]:
    """One task's ``settings.attempts`` attempts by ``sampler``, stamped, unjudged (``verify=False``):
    the unit both :func:`sample_round` and the spooled collection (``collection``) produce. A
    ``stream`` (the pilot) gets its own seeds (:func:`pinned_seed`) and its own episode ids;
    ``seal_key``: the key the judging cascade checks by (``CascadeConfig.seal_key``), which the
    runtime seals a sampler's own system prompt under (:func:`gym.runtime.prompt_sealed`)."""
    episodes = []
    phase = f"r{round_index}-{stream}" if stream else f"r{round_index}"
    for attempt in range(settings.attempts):
        seed = pinned_seed(settings.seed, round_index, fixture.fixture_id, attempt, stream)
        episode_id = f"{phase}-{short(sampler.digest)}-{short(fixture.fixture_id)}-{attempt}"
        result = run_episode(
            fixture,
            sampler.policy,
            seed=seed,
            config=runtime,
            episode_id=episode_id,
            verify=False,
            system_prompt=sampler.system_prompt,
            seal_key=seal_key,
        )
        episodes.append(stamp(result.episode, sampler, round_index))
    return episodes


def sample_round(
    sampler: Sampler,
    fixtures: Sequence[Fixture],
    round_index: int,
    settings: RoundSettings,
    *,
    runtime: RuntimeConfig | None = None,
    cascade: CascadeConfig | None = None,
    stream: str = "",
) -> RoundSample:
    """``settings.attempts`` attempts per fixture by ``sampler``, stamped and judged by the full cascade
    (``stream``: see :func:`fixture_attempts`).

    The runtime's own oracle is not consulted (``verify=False``): the cascade earns every verdict,
    judging each attempt against the fixture it was sampled on.
    """
    config = cascade or CascadeConfig(progress=False)
    episodes = [
        episode
        for fixture in fixtures
        for episode in fixture_attempts(
            sampler, fixture, round_index, settings, runtime, config.seal_key, stream
        )
    ]
    lookup = {f.fixture_id: f for f in fixtures}
    judged = verify_episodes(episodes, lookup, config)
    return RoundSample(round_index, sampler.digest, episodes, judged)
