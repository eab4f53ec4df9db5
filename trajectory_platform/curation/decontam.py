"""Decontamination of training candidates against every evaluation fixture; LeakageRate and C_usable.

Curation §Split hygiene verification: leakage in agent data is environmental, not only lexical. Two
trajectories solving the same bug may share under 40% of their tokens yet rely on the same
environment, so lexical dedup alone misses them. A training candidate is therefore screened on five
independent axes against the evaluation index (validation and test fixtures, the trajectories
recorded on them, and any external benchmark items):

1. ``fixture_id``: it attempted an evaluation fixture;
2. ``repo_family``: its family lies in an evaluation closure;
3. ``task_ngram``: its task statement contains a large share of an evaluation prompt's word n-grams;
4. ``action_sequence``: its normalized action sequence covers an evaluation trajectory's action n-grams;
5. ``diff``: its workspace diff reproduces most changed lines of an evaluation solution.

Splits built by :mod:`trajectory_platform.curation.splits` make the first two impossible by
construction; screening them anyway is the audit that proves it (and catches mislabeled records).

Boilerplate is not leakage. Templated task statements ("Fix the source code so the whole test suite
passes"), generic action runs (``run_tests()``) and common edits recur across unrelated repositories;
an evaluation n-gram that also occurs on the training side in at least ``generic_min_closures``
distinct closures is generic and ignored, and overlap is measured over each evaluation item's
*specific* n-grams only. A genuine leak copies what is specific to the evaluation task (its
repository name, its failing test ids, its files), which no unrelated training closure contains.

Equation 4 prices what leakage costs: ``C_usable = (C_gen + C_ver + C_san) / (N_accepted (1 - LeakageRate))``.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trajectory_platform.curation.candidates import EpisodeKeys, Labelled
from trajectory_platform.curation.dedup import action_sequence
from trajectory_platform.curation.splits import (
    EVALUATION_SPLITS,
    EXCLUDED,
    TRAIN,
    SplitAssignment,
    SplitPlan,
)

_WORD = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class DecontamConfig:
    """Thresholds; overlap is the share of the *evaluation* item's n-grams found in the candidate."""

    prompt_ngram: int = 8
    prompt_overlap: float = 0.5
    action_ngram: int = 3
    action_overlap: float = 0.8
    diff_overlap: float = 0.5
    diff_min_lines: int = 2
    generic_min_closures: int = 2


@dataclass(frozen=True)
class EvaluationItem:
    """One thing an evaluation scores: a fixture, or a trajectory recorded on one."""

    item_id: str
    fixture_id: str | None = None
    prompt: str | None = None
    actions: tuple[str, ...] = ()
    diff: str | None = None


def word_ngrams(text: str | None, n: int) -> set[tuple[str, ...]]:
    """Lowercased word n-grams; a text shorter than ``n`` words is one n-gram of all its words."""
    words = _WORD.findall((text or "").lower())
    if not words:
        return set()
    if len(words) < n:
        return {tuple(words)}
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def action_keys(actions: Iterable[str]) -> tuple[str, ...]:
    """Each normalized action as a 128-bit digest: action n-grams compare these, so the split stage
    keeps 32 characters per call instead of its arguments (a written file's whole content)."""
    return tuple(hashlib.blake2b(action.encode(), digest_size=16).hexdigest() for action in actions)


def action_ngrams(actions: Sequence[str], n: int) -> set[tuple[str, ...]]:
    """Action n-grams; a run shorter than ``n`` calls has none (two calls identify no task)."""
    if len(actions) < n:
        return set()
    return {tuple(actions[i : i + n]) for i in range(len(actions) - n + 1)}


def changed_lines(diff: str | None) -> set[str]:
    """Added and removed lines of a unified diff, whitespace-collapsed; headers and blank lines dropped."""
    lines: set[str] = set()
    for line in (diff or "").splitlines():
        if line.startswith(("+++", "---")) or not line.startswith(("+", "-")):
            continue
        body = " ".join(line[1:].split())
        if body:
            lines.add(line[0] + body)
    return lines


@dataclass(frozen=True)
class ScreenText:
    """What decontamination compares of one item: its prompt, its :func:`action_keys` and its diff."""

    prompt: str | None = None
    actions: tuple[str, ...] = ()
    diff: str | None = None


def screen_text(candidate: Labelled) -> ScreenText:
    """A candidate's :class:`ScreenText`, read from its episode or kept in its :class:`EpisodeKeys`."""
    if isinstance(candidate, EpisodeKeys):
        return ScreenText(candidate.prompt, candidate.actions, candidate.diff)
    episode = candidate.episode
    return ScreenText(
        episode.task.prompt, action_keys(action_sequence(episode)), episode.outcome.workspace_diff
    )


@dataclass(frozen=True)
class TrainingEvidence:
    """One training-side text of a closure (a train fixture, or a train-split trajectory)."""

    closure_id: str
    text: ScreenText


def generic_grams(evidence: Iterable[TrainingEvidence], config: DecontamConfig) -> dict[str, set]:
    """Per axis, the grams found in at least ``generic_min_closures`` distinct training closures."""
    closures: dict[str, dict[tuple | str, set[str]]] = {"prompt": {}, "actions": {}, "diff": {}}
    for item in evidence:
        for axis, grams in _grams(item.text, config).items():
            for gram in grams:
                closures[axis].setdefault(gram, set()).add(item.closure_id)
    return {
        axis: {g for g, seen in table.items() if len(seen) >= config.generic_min_closures}
        for axis, table in closures.items()
    }


def _grams(text: ScreenText, config: DecontamConfig) -> dict[str, set]:
    return {
        "prompt": word_ngrams(text.prompt, config.prompt_ngram),
        "actions": action_ngrams(text.actions, config.action_ngram),
        "diff": changed_lines(text.diff),
    }


@dataclass
class EvaluationIndex:
    """Inverted indices over the evaluation items so screening costs one pass over the corpus."""

    config: DecontamConfig
    generic: dict[str, set] = field(default_factory=dict)
    fixture_ids: set[str] = field(default_factory=set)
    families: set[str] = field(default_factory=set)
    _prompt_index: dict[tuple, set[str]] = field(default_factory=lambda: defaultdict(set))
    _prompt_size: dict[str, int] = field(default_factory=dict)
    _action_index: dict[tuple, set[str]] = field(default_factory=lambda: defaultdict(set))
    _action_size: dict[str, int] = field(default_factory=dict)
    _diff_index: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    _diff_size: dict[str, int] = field(default_factory=dict)

    def add(self, item: EvaluationItem) -> None:
        self.add_text(
            item.item_id, item.fixture_id, ScreenText(item.prompt, action_keys(item.actions), item.diff)
        )

    def add_text(self, item_id: str, fixture_id: str | None, text: ScreenText) -> None:
        """Index one evaluation item's specific grams (those not generic on the training side)."""
        if fixture_id:
            self.fixture_ids.add(fixture_id)
        indices: dict[str, tuple[dict[Any, set[str]], dict[str, int]]] = {
            "prompt": (self._prompt_index, self._prompt_size),
            "actions": (self._action_index, self._action_size),
            "diff": (self._diff_index, self._diff_size),
        }
        for axis, grams in _grams(text, self.config).items():
            specific = grams - self.generic.get(axis, set())
            if not specific:
                continue
            index, size = indices[axis]
            key = f"{axis}:{item_id}"
            size[key] = len(specific)
            for gram in specific:
                index[gram].add(key)

    @staticmethod
    def _best(grams: set, index: dict, size: dict) -> tuple[str | None, float, int]:
        hits: dict[str, int] = defaultdict(int)
        for gram in grams:
            for key in index.get(gram, ()):
                hits[key] += 1
        if not hits:
            return None, 0.0, 0
        key = max(sorted(hits), key=lambda k: hits[k] / size[k])
        return key.split(":", 1)[1], hits[key] / size[key], hits[key]

    def screen(self, candidate: Labelled, family_closure: str, eval_closures: set[str]) -> list[str]:
        """Every reason ``candidate`` overlaps the evaluation side; empty when it is clean."""
        cfg = self.config
        text = screen_text(candidate)
        fixture_id, family = candidate.fixture_id, candidate.repo_family
        reasons: list[str] = []
        if fixture_id and fixture_id in self.fixture_ids:
            reasons.append(f"fixture_id: {fixture_id} is an evaluation fixture")
        if (family and family in self.families) or family_closure in eval_closures:
            reasons.append(f"repo_family: {family} lies in evaluation closure {family_closure}")
        item, share, _ = self._best(
            word_ngrams(text.prompt, cfg.prompt_ngram), self._prompt_index, self._prompt_size
        )
        if item and share >= cfg.prompt_overlap:
            reasons.append(f"task_ngram: {share:.0%} of {item}'s {cfg.prompt_ngram}-grams")
        actions = action_ngrams(text.actions, cfg.action_ngram)
        item, share, _ = self._best(actions, self._action_index, self._action_size)
        if item and share >= cfg.action_overlap:
            reasons.append(f"action_sequence: {share:.0%} of {item}'s action {cfg.action_ngram}-grams")
        lines = changed_lines(text.diff)
        item, share, shared = self._best(lines, self._diff_index, self._diff_size)
        if item and share >= cfg.diff_overlap and shared >= cfg.diff_min_lines:
            reasons.append(f"diff: {share:.0%} of {item}'s changed lines ({shared})")
        return reasons


def build_index(
    plan: SplitPlan,
    evaluation_candidates: Iterable[Labelled] = (),
    external: Iterable[EvaluationItem] = (),
    config: DecontamConfig = DecontamConfig(),
    training_evidence: Iterable[TrainingEvidence] = (),
) -> EvaluationIndex:
    """The evaluation side: every validation/test fixture of ``plan``, the trajectories recorded on
    evaluation fixtures (their prompts, actions and diffs), and external benchmark items; grams the
    training side shares across closures (``training_evidence``) are generic and not indexed."""
    index = EvaluationIndex(config=config, generic=generic_grams(training_evidence, config))
    for closure_id, split in plan.closure_split.items():
        if split in EVALUATION_SPLITS:
            index.families.update(f for f, c in plan.closure_of.items() if c == closure_id)
    for info in plan.evaluation_fixtures():
        index.add(
            EvaluationItem(
                item_id=info.fixture_id,
                fixture_id=info.fixture_id,
                prompt=info.prompt,
                actions=info.reference_actions,
                diff=info.reference_diff,
            )
        )
    for candidate in evaluation_candidates:
        index.add_text(candidate.episode_id, candidate.fixture_id, screen_text(candidate))
    for item in external:
        index.add(item)
    return index


@dataclass
class DecontamReport:
    """What screening found: per-axis counts, LeakageRate over accepted training candidates."""

    screened: int = 0
    accepted: int = 0
    leaked: int = 0
    leaked_accepted: int = 0
    by_axis: dict[str, int] = field(default_factory=dict)

    @property
    def leakage_rate(self) -> float:
        """Fraction of accepted (verifier-passed) training candidates purged for contamination."""
        return self.leaked_accepted / self.accepted if self.accepted else 0.0

    def as_dict(self) -> dict:
        return {
            "screened": self.screened,
            "accepted": self.accepted,
            "leaked": self.leaked,
            "leaked_accepted": self.leaked_accepted,
            "leakage_rate": self.leakage_rate,
            "by_axis": dict(sorted(self.by_axis.items())),
        }


def decontaminate(
    candidates: Sequence[Labelled],
    assignments: Sequence[SplitAssignment],
    plan: SplitPlan,
    external: Iterable[EvaluationItem] = (),
    config: DecontamConfig = DecontamConfig(),
) -> tuple[list[SplitAssignment], DecontamReport]:
    """Screen every train-split candidate; a hit moves it to ``excluded`` with the evidence as reason.

    Returns the updated assignments (same order, same length) and the report. Trajectories recorded
    on evaluation fixtures (validation and test rows) join the evaluation index, so a training
    trajectory that replays a test trajectory's actions is caught even when its fixture id differs.
    """
    by_id = {c.episode_id: c for c in candidates}
    eval_candidates = [by_id[a.episode_id] for a in assignments if a.split in EVALUATION_SPLITS]
    evidence = [
        TrainingEvidence(
            plan.closure(f.repo_family),
            ScreenText(f.prompt, action_keys(f.reference_actions), f.reference_diff),
        )
        for f in plan.fixtures.values()
        if plan.fixture_split(f.fixture_id) == TRAIN
    ]
    evidence += [
        TrainingEvidence(row.closure_id, screen_text(by_id[row.episode_id]))
        for row in assignments
        if row.split == TRAIN
    ]
    index = build_index(plan, eval_candidates, external, config, evidence)
    eval_closures = {c for c, s in plan.closure_split.items() if s in EVALUATION_SPLITS}
    report = DecontamReport()
    axes: dict[str, int] = defaultdict(int)
    updated: list[SplitAssignment] = []
    for row in assignments:
        if row.split != TRAIN:
            updated.append(row)
            continue
        candidate = by_id[row.episode_id]
        report.screened += 1
        report.accepted += candidate.passed is True
        reasons = index.screen(candidate, row.closure_id, eval_closures)
        if not reasons:
            updated.append(row)
            continue
        report.leaked += 1
        report.leaked_accepted += candidate.passed is True
        for reason in reasons:
            axes[reason.split(":", 1)[0]] += 1
        updated.append(
            SplitAssignment(
                **{**row.__dict__, "split": EXCLUDED, "reason": "decontamination: " + "; ".join(reasons)}
            )
        )
    report.by_axis = dict(axes)
    return updated, report


def c_usable(
    c_generation: float, c_verification: float, c_sanitization: float, n_accepted: int, leakage_rate: float
) -> float:
    """Equation 4: cost per usable trajectory once contaminated ones are purged."""
    if not 0.0 <= leakage_rate < 1.0:
        raise ValueError(f"LeakageRate must lie in [0, 1), got {leakage_rate}")
    if n_accepted <= 0:
        raise ValueError("N_accepted must be positive")
    return (c_generation + c_verification + c_sanitization) / (n_accepted * (1.0 - leakage_rate))
