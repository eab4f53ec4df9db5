"""Reading the ablation: per-variant summaries, the competence gate, and the paired comparisons.

Variants are compared only on seeds where the reference reaches the competence gate: its acceptance
on the familiar-schema held-out items, what every variant trains for, is >= gate (the renamed items
measure ablation B, so they cannot also decide whether a seed learned). Other seeds are reported
as not resolved. Each comparison is a paired score
interval (Tango; McNemar score p) over (seed, item) at a Bonferroni-corrected level (alpha / 3 ablations).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trajectory_platform.evaluation.calls import classify_call
from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.evaluation.scorecard import CostModel, arm_summary
from trajectory_platform.evaluation.stats import bonferroni_alpha, paired_comparison

from .corpus import TRAINING_FAULT_KINDS

Runs = dict[tuple[str, int], list[EpisodeMeasure]]
REFERENCE = "selected"
SUMMARY_COLUMNS = (
    "acceptance",
    "recovery",
    "recovery_unseen_kinds",
    "retention",
    "fabricated_observation_rate",
    "runaway_rate",
    "sfa",
    "pre",
)


def _first_call_follows_schema(m: EpisodeMeasure) -> bool:
    return bool(m.calls) and classify_call(m.calls[0]) in ("valid", "tool_execution_error")


@dataclass(frozen=True)
class Comparison:
    """One paired reading: ``variant`` vs the reference on one suite (and regime) and outcome."""

    ablation: str
    metric: str
    variant: str
    outcome: Callable[[EpisodeMeasure], bool]
    suite: str | None = "acceptance"
    """Only trials of this suite count (``None``: every trial)."""
    regime: str | None = None


COMPARISONS = (
    Comparison("A", "acceptance", "all_token", lambda m: m.accepted),
    Comparison("A", "acceptance", "compute_matched", lambda m: m.accepted),
    Comparison("A", "fabricated_observation", "all_token", lambda m: m.fabricated_turns > 0, suite=None),
    Comparison("B", "renamed_first_call_sfa", "augmented", _first_call_follows_schema, regime="renamed"),
    Comparison("B", "renamed_acceptance", "augmented", lambda m: m.accepted, regime="renamed"),
    Comparison("C", "recovery", "recovery", lambda m: m.recovered, suite="recovery"),
)


def summaries(runs: Runs, keys: dict[str, set[str]]) -> dict[str, dict[str, Any]]:
    """Scorecard summary of every (variant, seed), keyed ``variant-seed``; PRE counts the argument
    keys that variant's own training data declares (``keys[variant]``)."""
    return {
        f"{v}-{s}": arm_summary(
            ms,
            training_keys=keys[v],
            cost_model=CostModel(),
            training_fault_kinds=set(TRAINING_FAULT_KINDS),
        )
        for (v, s), ms in runs.items()
    }


def familiar_acceptance(measures: list[EpisodeMeasure]) -> float:
    """Share of the familiar-schema acceptance trials accepted: the competence gate's measure."""
    trials = [m.accepted for m in measures if m.suite == "acceptance" and m.regime == "familiar"]
    if not trials:
        raise ValueError("no familiar-schema acceptance trial: the competence gate cannot be read")
    return sum(trials) / len(trials)


def reaches_gate(rate: float, gate: float) -> bool:
    """Whether a seed whose reference accepts ``rate`` of the familiar-schema items counts."""
    return rate >= gate


def competence(runs: Runs, seeds: int, gate: float) -> dict[str, Any]:
    """The reference's familiar-schema acceptance per seed, and the seeds that reach ``gate``."""
    rates = {s: familiar_acceptance(runs[(REFERENCE, s)]) for s in range(seeds)}
    return {
        "gate": gate,
        "familiar_acceptance": {str(s): round(rate, 4) for s, rate in rates.items()},
        "gated_seeds": [s for s, rate in rates.items() if reaches_gate(rate, gate)],
        "not_resolved_seeds": [s for s, rate in rates.items() if not reaches_gate(rate, gate)],
    }


def compare(runs: Runs, comparison: Comparison, gated: list[int], alpha: float) -> dict[str, Any]:
    """Paired comparison of ``comparison.variant`` vs the reference over (gated seed, item)."""

    def trials(variant: str) -> list[bool]:
        return [
            comparison.outcome(m)
            for s in gated
            for m in runs[(variant, s)]
            if comparison.suite in (None, m.suite) and comparison.regime in (None, m.regime)
        ]

    head = {
        "ablation": comparison.ablation,
        "metric": comparison.metric,
        "variant": comparison.variant,
        "reference": REFERENCE,
    }
    reference = trials(REFERENCE)
    if not reference:
        return {**head, "resolved": False, "reason": "no seed passed the competence gate"}
    paired = paired_comparison(trials(comparison.variant), reference, alpha=alpha)
    return {**head, "resolved": True, "gated_seeds": gated, **paired.to_dict()}


def read_ablation(runs: Runs, seeds: int, gate: float, keys: dict[str, set[str]]) -> dict[str, Any]:
    """Everything the experiment concludes: variant table, the competence gate and every comparison
    (``keys``: each variant's declared argument keys, for PRE)."""
    gated = competence(runs, seeds, gate)
    alpha = bonferroni_alpha(0.05, 3)
    return {
        **gated,
        "bonferroni_alpha": alpha,
        "variants": {
            name: {k: row[k] for k in SUMMARY_COLUMNS} for name, row in summaries(runs, keys).items()
        },
        "comparisons": [compare(runs, c, gated["gated_seeds"], alpha) for c in COMPARISONS],
    }
