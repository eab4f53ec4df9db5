"""What each round-partitioned asset calls: one function per step of a round.

- :func:`run_round` (``policy_rollouts`` / ``round_verified``): choose the tasks in the P_inform band
  from earlier verified outcomes, build the round's sampler (the checkpoint, or a named scripted
  policy), and collect its attempts through the bounded spool, judged by the full cascade.
- :func:`round_corpus` (``round_mixture``): the last mix plus the round's admitted trajectories
  under staleness retirement and action-sequence dedup (``mix.next_mix``), assigned splits by the
  same split stage as the corpus (so decontamination covers the policy's own samples); the SFT
  mixture's token-share policy is then applied by the mixture stage, as for any admitted data.

Only training-side tasks are ever sampled: a round that sampled a held-out task would train on
the evaluation suite.
"""

from __future__ import annotations

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
from trajectory_platform.curation.verify.cascade import CascadeConfig
from trajectory_platform.evaluation.harness import evaluation_runtime
from trajectory_platform.evaluation.policy import ModelPolicy
from trajectory_platform.evaluation.settings import Decoding
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import BEHAVIOURS, make_policy
from trajectory_platform.rounds.collection import CollectedRound, collect_round
from trajectory_platform.rounds.mix import RoundMix, next_mix
from trajectory_platform.rounds.model_sampler import model_sampler
from trajectory_platform.rounds.sampling import Sampler, policy_sampler
from trajectory_platform.rounds.selection import TaskChoice, select_tasks, selected_fixtures
from trajectory_platform.rounds.settings import RoundSettings
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

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sampler != CHECKPOINT_SAMPLER and self.sampler not in BEHAVIOURS:
            raise ValueError(
                f"sampler must be '' (the checkpoint) or one of {sorted(BEHAVIOURS)}, got {self.sampler!r}"
            )
        if self.queue_bound < 1:
            raise ValueError(f"queue_bound must be at least 1, got {self.queue_bound}")


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
    """A round's task choices and what collecting it produced."""

    round_index: int
    choices: list[TaskChoice]
    collected: CollectedRound

    def selection(self) -> dict[str, Any]:
        """How many tasks were chosen, and the others by reason (the reason's words before the figures)."""
        left_out = Counter(c.reason.split(" (")[0].split(" <")[0] for c in self.choices if not c.selected)
        return {
            "tasks_considered": len(self.choices),
            "tasks_selected": sum(c.selected for c in self.choices),
            "left_out": dict(sorted(left_out.items())),
        }


def run_round(
    settings: RoundRunSettings,
    split: SplitSettings,
    earlier: pa.Table,
    checkpoint_dir: Path,
    round_index: int,
    spool: Path,
    cascade: CascadeConfig,
) -> RoundRun:
    """Round ``round_index``: tasks in the band by ``earlier``'s verified outcomes (train side only),
    k attempts each by the round's sampler, collected through the spool and judged."""
    fixtures = training_fixtures(split)
    trained = {f.fixture_id for f in fixtures}
    outcomes = [c for c in corpus_candidates(earlier) if c.fixture_id in trained]
    choices = select_tasks(outcomes, settings)
    chosen = selected_fixtures(choices, fixtures)
    if not chosen:
        reasons = Counter(c.reason.split(" (")[0] for c in choices)
        raise ValueError(
            f"round {round_index}: no training task has P_inform in [{settings.band_low}, "
            f"{settings.band_high}] by the earlier verified outcomes ({len(outcomes)} attempts on "
            f"{len(choices)} tasks; left out: {dict(reasons) or 'no task with an outcome'})"
        )
    runtime = evaluation_runtime(settings.max_steps, settings.max_generated_tokens)
    sampler = round_sampler(settings, checkpoint_dir)
    collected = collect_round(
        sampler, chosen, round_index, settings, spool, settings.queue_bound, runtime=runtime, cascade=cascade
    )
    return RoundRun(round_index, choices, collected)


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
    round_index: int,
    settings: RoundSettings,
    split: SplitSettings,
    fixtures: Sequence[Fixture],
    environments: Sequence[Fixture] = (),
) -> RoundCorpus:
    """The last mix (``previous``: the base ``training_mixture`` for round 1, else the previous
    round's mixture) plus the admitted rows of the round's ``verified`` table, retired, deduplicated
    and capped (:func:`~trajectory_platform.rounds.mix.next_mix`), then split over ``fixtures`` (the
    library the corpus was split over) and the registered ``environments``, as the corpus is (a
    split pin may name an environment's family)."""
    admitted = [c for c in corpus_candidates(verified) if c.sink == "admitted"]
    mix = next_mix(corpus_candidates(previous), admitted, round_index, settings)
    corpus = candidates_table(mix.kept)
    splits = split_stage(corpus, fixtures, split.policy(), split.decontamination(), environments=environments)
    return RoundCorpus(mix, corpus, splits)
