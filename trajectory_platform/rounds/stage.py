"""What each round-partitioned asset calls: one function per step of a round.

- :func:`run_round` (``policy_rollouts`` / ``round_verified`` / ``round_dagger``): estimate each
  training task's p from learned outcomes only (earlier rounds' attempts), or from a pilot of the
  round's own sampler when they put no task in the band; sample k attempts per task in the P_inform
  band through the bounded spool, judged by the full cascade; then DAgger on the learner's failed
  attempts of the round (pilot and band), whose verified, admitted labels are the round's DAgger
  records.
- :func:`round_corpus` (``round_mixture``): the last mix plus the round's admitted trajectories and
  DAgger records under staleness retirement and action-sequence dedup (``mix.next_mix``), assigned
  splits by the same split stage as the corpus (so decontamination covers the policy's own samples);
  the SFT mixture's token-share policy is then applied by the mixture stage, as for any admitted data.

Only training-side tasks are ever sampled: a round that sampled a held-out task would train on
the evaluation suite.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajectory_platform.curation.candidates import ANCHOR_KEY, PARENT_KEY, Candidate
from trajectory_platform.curation.split_mixture_stage import (
    SplitSettings,
    SplitStageResult,
    corpus_candidates,
    split_stage,
    trained_by_plan,
)
from trajectory_platform.curation.verify.cascade import CascadeConfig, VerifySettings, merge_results
from trajectory_platform.evaluation.harness import evaluation_runtime
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import BEHAVIOURS, make_policy
from trajectory_platform.rounds.collection import CollectedRound, collect_round
from trajectory_platform.rounds.dagger import DaggerRecords, dagger_records
from trajectory_platform.rounds.mix import RoundMix, next_mix
from trajectory_platform.rounds.model_sampler import model_sampler
from trajectory_platform.rounds.sampling import RoundSample, Sampler, policy_sampler
from trajectory_platform.rounds.selection import (
    Pilot,
    TaskChoice,
    learned_outcomes,
    pilot_estimates,
    pilot_fixtures,
    select_tasks,
    selected_fixtures,
)
from trajectory_platform.rounds.settings import DaggerSettings, RoundSettings
from trajectory_platform.traces.schema import EPISODE_SCHEMA, episode_row

CHECKPOINT_SAMPLER = ""
"""``sampler`` value meaning: the round's checkpoint samples (the loop itself)."""


@dataclass(frozen=True)
class RoundRunSettings(RoundSettings):
    """A round's settings (:class:`RoundSettings`) plus how its collection runs."""

    sampler: str = field(
        default=CHECKPOINT_SAMPLER,
        metadata={
            "help": "'' = the round's checkpoint samples; a scripted behaviour name (the gym's zoo) "
            "samples instead (a teacher, or a fast stand-in in tests)"
        },
    )
    queue_bound: int = field(
        default=2, metadata={"help": "batches (one task's k attempts each) waiting unjudged at most"}
    )
    max_steps: int = field(default=6, metadata={"help": "turn budget per attempt"})
    max_generated_tokens: int = field(default=300, metadata={"help": "generated-token budget per attempt"})
    max_new_tokens: int = field(default=128, metadata={"help": "output limit per turn of a model sampler"})
    temperature: float = field(default=1.0, metadata={"help": "sampling temperature of a model sampler"})
    workers: int = field(default=1, metadata={"help": "episodes the cascade judges at once"})
    pilot_attempts: int = field(
        default=2,
        metadata={
            "help": "judged attempts per task of the pilot that estimates p when no earlier round's "
            "attempts put a task in the band (0 = no pilot)"
        },
    )
    pilot_tasks: int = field(
        default=24,
        metadata={"help": "training tasks the pilot samples, drawn by seed and round (0 = all of them)"},
    )
    dagger_states: int = field(
        default=1,
        metadata={
            "help": "learner states the scripted expert labels per failed learner attempt of the round "
            "(verified by continuing to an oracle verdict; 0 = no DAgger)"
        },
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sampler != CHECKPOINT_SAMPLER and self.sampler not in BEHAVIOURS:
            raise ValueError(
                f"sampler must be '' (the checkpoint) or one of {sorted(BEHAVIOURS)}, got {self.sampler!r}"
            )
        if self.queue_bound < 1:
            raise ValueError(f"queue_bound must be at least 1, got {self.queue_bound}")
        for name in ("pilot_attempts", "pilot_tasks", "dagger_states"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")

    def cascade(
        self, verify: VerifySettings, master_key: bytes, calibration_cache: Path | None
    ) -> CascadeConfig:
        """The full cascade the round is judged by: ``verified_traces``' own, built from the
        settings it ran with (``verify``: oracle reruns, lint, yield band, judges...) by
        :meth:`VerifySettings.cascade`, the one place settings and the pipeline key become a
        cascade, on the round's ``workers`` threads, quiet. So a round's attempt is judged as the
        corpus's episodes are: a default-settings cascade would admit round attempts the corpus's
        would have refused (no lint, one oracle run where the corpus reruns borderline results),
        and a fault schedule counts only with the runtime's seal under the pipeline's seal key."""
        return dataclasses.replace(verify, workers=self.workers).cascade(
            False, master_key=master_key, calibration_cache=calibration_cache
        )


def round_sampler(settings: RoundRunSettings, checkpoint_dir: Path) -> Sampler:
    """The round's sampler: the checkpoint, sampling with pinned seeds (k attempts must differ), or
    the named scripted policy."""
    if settings.sampler != CHECKPOINT_SAMPLER:
        return policy_sampler(make_policy(settings.sampler))
    decoding = Decoding(
        max_new_tokens=settings.max_new_tokens,
        do_sample=True,
        temperature=settings.temperature,
        seed=settings.seed,
    )
    return model_sampler(ModelPolicy(checkpoint_dir, decoding=decoding))


def training_fixtures(split: SplitSettings) -> list[Fixture]:
    """The library's fixtures on the train side of the split plan: the only tasks a round samples."""
    library = build_library(split.fixture_seed)
    trained = trained_by_plan(split, library)
    return [f for f in library if trained(f)]


@dataclass
class RoundRun:
    """A round's task choices, its pilot (when one estimated p), what collecting the band produced
    (``None``: no task in the band) and its DAgger records (``None``: DAgger off)."""

    round_index: int
    sampler_digest: str
    choices: list[TaskChoice]
    pilot: Pilot | None
    collected: CollectedRound | None
    dagger: DaggerRecords | None

    @property
    def sample(self) -> RoundSample:
        """Every attempt the round's sampler made (pilot, then band sampling), judged: what
        ``policy_rollouts`` and ``round_verified`` hold and the collapse watch reads."""
        parts = [p.sample for p in (self.pilot, self.collected) if p is not None]
        episodes = [e for part in parts for e in part.episodes]
        return RoundSample(
            self.round_index, self.sampler_digest, episodes, merge_results([p.cascade for p in parts])
        )

    def selection(self) -> dict[str, Any]:
        """How p was estimated (the pilot's summary when there was one), how many tasks were chosen,
        and the others by reason (the reason's words before the figures)."""
        left_out = Counter(c.why for c in self.choices if not c.selected)
        return {
            "estimated_from": "pilot" if self.pilot is not None else "earlier rounds' attempts",
            "tasks_considered": len(self.choices),
            "tasks_selected": sum(c.selected for c in self.choices),
            "left_out": dict(sorted(left_out.items())),
            **({"pilot": self.pilot.summary()} if self.pilot is not None else {}),
        }


def run_round(
    settings: RoundRunSettings,
    split: SplitSettings,
    earlier: pa.Table | None,
    checkpoint_dir: Path,
    round_index: int,
    spool: Path,
    cascade: CascadeConfig,
) -> RoundRun:
    """Round ``round_index`` on the training tasks: p estimated from ``earlier``'s learned outcomes
    (the previous round's attempts; ``None`` for round 1) or, when they put no task in the band, from
    a pilot of the round's sampler; k attempts per task in the band collected through the spool and
    judged; then DAgger on the pilot's and the band's failed attempts.

    A round with no task in the band still trains when DAgger gives admitted records (a sampler
    that never solves a task yields no success of its own; expert labels on the states it reached
    do). One with neither is refused with the counts, rather than trained on nothing.
    """
    fixtures = training_fixtures(split)
    trained = {f.fixture_id for f in fixtures}
    outcomes = [] if earlier is None else corpus_candidates(earlier)
    learned = [c for c in learned_outcomes(outcomes) if c.fixture_id in trained]
    choices = select_tasks(learned, settings)
    runtime = evaluation_runtime(settings.max_steps, settings.max_generated_tokens)
    sampler = round_sampler(settings, checkpoint_dir)
    pilot = None
    if not any(c.selected for c in choices) and settings.pilot_attempts > 0:
        piloted = pilot_fixtures(fixtures, settings.pilot_tasks, settings.seed, round_index)
        pilot = pilot_estimates(
            sampler, piloted, settings.pilot_attempts, round_index, settings, runtime=runtime, cascade=cascade
        )
        choices = pilot.choices
    chosen = selected_fixtures(choices, fixtures)
    collected = (
        collect_round(
            sampler,
            chosen,
            round_index,
            settings,
            spool,
            settings.queue_bound,
            runtime=runtime,
            cascade=cascade,
        )
        if chosen
        else None
    )
    learner = [c for part in (pilot, collected) if part is not None for c in part.sample.candidates]
    dagger = (
        dagger_records(
            learner,
            fixtures,
            round_index,
            DaggerSettings(states_per_trajectory=settings.dagger_states),
            cascade=cascade,
        )
        if settings.dagger_states > 0
        else None
    )
    if not chosen and (dagger is None or not dagger.admitted):
        raise ValueError(no_signal(round_index, settings, choices, len(learned), pilot, dagger))
    return RoundRun(round_index, sampler.digest, choices, pilot, collected, dagger)


def no_signal(
    round_index: int,
    settings: RoundRunSettings,
    choices: Sequence[TaskChoice],
    learned: int,
    pilot: Pilot | None,
    dagger: DaggerRecords | None,
) -> str:
    """Why a round has nothing to train on: no task in the band (by what estimate, with the counts
    per reason) and no admitted DAgger record (with the labels' counts)."""
    reasons = Counter(c.why for c in choices)
    source = (
        f"a pilot of {pilot.summary()['attempts']} attempts"
        if pilot is not None
        else f"{learned} earlier learned attempts"
    )
    labels = (
        "DAgger is off (dagger_states=0)"
        if dagger is None
        else f"DAgger admitted no record ({dagger.summary()})"
    )
    return (
        f"round {round_index}: no training task has P_inform in [{settings.band_low}, {settings.band_high}] "
        f"by {source} on {len(choices)} tasks (left out: {dict(reasons) or 'no task with an outcome'}), "
        f"and {labels}"
    )


CORPUS_LABELS = [
    pa.field("sink", pa.string()),
    pa.field("role", pa.string()),
    pa.field("t_div", pa.int32()),
    pa.field("t_rec", pa.int32()),
    pa.field("target_turns", pa.list_(pa.int32())),
    pa.field(PARENT_KEY, pa.string()),
    pa.field(ANCHOR_KEY, pa.bool_()),
]
ROUND_CORPUS_SCHEMA = pa.schema([*EPISODE_SCHEMA, *CORPUS_LABELS])
"""The mix's candidates as a corpus table: every episode column and the labels a candidate reads."""


def candidates_table(candidates: Sequence[Candidate]) -> pa.Table:
    """``candidates`` as rows the split and mixture stages read (their labels kept), by episode id."""
    rows = [
        {
            **episode_row(c.episode),
            "sink": c.sink,
            "role": c.role,
            "t_div": c.t_div,
            "t_rec": c.t_rec,
            "target_turns": c.target_turns,
            PARENT_KEY: c.parent_episode_id,
            ANCHOR_KEY: c.anchor,
        }
        for c in sorted(candidates, key=lambda c: c.episode_id)
    ]
    return pa.Table.from_pylist(rows, schema=ROUND_CORPUS_SCHEMA)


@dataclass
class RoundCorpus:
    """What the next round trains on, before the token-share policy: the mix and its splits."""

    mix: RoundMix
    corpus: pa.Table
    splits: SplitStageResult


def round_corpus(
    previous: pa.Table,
    verified: pa.Table,
    dagger: pa.Table,
    round_index: int,
    settings: RoundSettings,
    split: SplitSettings,
    fixtures: Sequence[Fixture],
    environments: Sequence[Fixture] = (),
) -> RoundCorpus:
    """The last mix (``previous``: the base ``training_mixture`` for round 1, else the previous
    round's mixture) plus the admitted rows of the round's ``verified`` attempts and of its
    ``dagger`` records, retired, deduplicated and capped
    (:func:`~trajectory_platform.rounds.mix.next_mix`), then split over ``fixtures`` (the library
    the corpus was split over) and the registered ``environments``, as the corpus is (a split pin
    may name an environment's family)."""
    judged = [*corpus_candidates(verified), *corpus_candidates(dagger)]
    admitted = [c for c in judged if c.sink == "admitted"]
    mix = next_mix(corpus_candidates(previous), admitted, round_index, settings)
    corpus = candidates_table(mix.kept)
    splits = split_stage(corpus, fixtures, split.policy(), split.decontamination(), environments=environments)
    return RoundCorpus(mix, corpus, splits)
