"""Held-out target coverage: can the training data teach every token the held-out suite asks for?

A held-out task is solvable only if each token its solution writes was a training target often
enough for the model to produce it: a file-name token that never was a target (issue 17's study:
``consts.py`` was one token in a call, another in the prompt, and never trained) makes the suite
unwinnable whatever the training, and every downstream figure then measures zeros. The audit
renders the scripted expert's solution of each held-out fixture exactly as training examples are
rendered, takes its target tokens, and counts how often each was a target in the training table.

It reads no held-out outcome and trains nothing, so it is safe to run before training: a blocking
dataset check (``heldout_targets_covered``) stops a run whose held-out suite is out of reach.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from transformers import PreTrainedTokenizerBase

from trajectory_platform.curation.splits import (
    REGIME_FAMILIAR_SCHEMA,
    SplitPolicy,
    plan_with_environments,
)
from trajectory_platform.evaluation.harness import REGIME_NAMES, heldout_pool
from trajectory_platform.evaluation.settings import SuiteSpec
from trajectory_platform.gym.fixtures import Fixture
from trajectory_platform.gym.library import build_library
from trajectory_platform.gym.policies import ScriptedExpert
from trajectory_platform.gym.runtime import run_episode
from trajectory_platform.training.data.labels import IGNORE_INDEX
from trajectory_platform.training.data.masked_dataset import EpisodeInput, build_masked_dataset, to_table

SHOWN = 20
"""Least-covered tokens a report lists."""


def target_counts(table: pa.Table) -> Counter[int]:
    """How often each token id is a training target (a label other than ``IGNORE_INDEX``)."""
    counts: Counter[int] = Counter()
    for labels in table.column("labels").to_pylist():
        counts.update(label for label in labels if label != IGNORE_INDEX)
    return counts


def expert_targets(fixtures: Sequence[Fixture], tokenizer: PreTrainedTokenizerBase) -> Counter[int]:
    """Target tokens of the scripted expert's solution of every fixture, rendered like training data."""
    inputs = [
        EpisodeInput(
            run_episode(f, ScriptedExpert(), seed=0, episode_id=f"heldout-{i}", verify=False).episode
        )
        for i, f in enumerate(fixtures)
    ]
    return target_counts(to_table(build_masked_dataset(inputs, tokenizer)))


@dataclass(frozen=True)
class TargetCoverage:
    """Each held-out target token and how often it was a training target."""

    minimum: int
    fixtures: int
    training: dict[int, int]
    """Held-out target token id -> its count among training targets."""
    tokens: dict[int, str]
    """Held-out target token id -> its text, for a person."""

    @property
    def uncovered(self) -> dict[int, int]:
        return {t: n for t, n in self.training.items() if n < self.minimum}

    @property
    def passed(self) -> bool:
        return self.fixtures > 0 and not self.uncovered

    def summary(self) -> dict[str, Any]:
        """What the check shows: counts, and the least-covered tokens with their text."""
        least = sorted(self.training.items(), key=lambda item: (item[1], item[0]))[:SHOWN]
        return {
            "minimum": self.minimum,
            "heldout_fixtures": self.fixtures,
            "heldout_target_tokens": len(self.training),
            "uncovered_tokens": len(self.uncovered),
            "least_covered": [{"token": self.tokens[t], "id": t, "training_targets": n} for t, n in least],
        }


def heldout_coverage(
    training: pa.Table,
    heldout: Sequence[Fixture],
    tokenizer: PreTrainedTokenizerBase,
    minimum: int,
) -> TargetCoverage:
    """Coverage of the held-out fixtures' target tokens by the training table's targets."""
    needed = expert_targets(heldout, tokenizer)
    counts = target_counts(training)
    return TargetCoverage(
        minimum=minimum,
        fixtures=len(heldout),
        training={t: counts.get(t, 0) for t in sorted(needed)},
        tokens={t: tokenizer.decode([t]) for t in needed},
    )


def suite_coverage(
    training: pa.Table,
    tokenizer: PreTrainedTokenizerBase,
    split: SplitPolicy,
    minimum: int,
    library_seed: int = 0,
) -> TargetCoverage:
    """Coverage of the held-out learnable suite's items that training could have prepared for:
    familiar schemas on a domain the plan does not reserve for test. Renamed-schema items measure
    transfer to tool names the training never wrote (read from the tool block), and a reserved
    domain never trains by construction; neither is held to training coverage."""
    library = build_library(library_seed)
    plan = plan_with_environments(library, (), split)
    pool = heldout_pool(SuiteSpec(learnable_only=True, library_seed=library_seed), library, split=split)
    familiar = REGIME_NAMES[REGIME_FAMILIAR_SCHEMA]
    trainable = [
        f for f, regime in pool if regime == familiar and not plan.is_reserved(f.tool_family, f.domain)
    ]
    return heldout_coverage(training, trainable, tokenizer, minimum)
