"""Reading the ablation: per-variant summaries, the competence gate, and the paired comparisons.

Variants are compared only on seeds where the reference reaches the competence gate: its acceptance
on the familiar-schema held-out items, what every variant trains for, is >= gate (the renamed items
measure ablation B, so they cannot also decide whether a seed learned). Other seeds are reported
as not resolved. Each comparison is a paired score
interval (Tango; McNemar score p) over (seed, item) at a Bonferroni-corrected level: alpha over the
claims the run tests (alpha / 3 for all of A, B and C; a replication of one claim, declared before it
runs with ``--claims``, is that claim's own test at alpha).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trajectory_platform.evaluation.calls import classify_call
from trajectory_platform.evaluation.episodes import EpisodeMeasure
from trajectory_platform.evaluation.scorecard import CostModel, arm_summary
from trajectory_platform.evaluation.stats import (
    bonferroni_alpha,
    paired_comparison,
    sign_flip_floor,
    sign_flip_interval,
    sign_flip_p,
)

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
    summary_column: str | None = None
    """The variant-table column (:data:`SUMMARY_COLUMNS`) that holds each seed's rate of exactly
    these trials, if one does: a result written before per-seed differences were recorded is still
    read per seed from it when pooled."""


COMPARISONS = (
    Comparison("A", "acceptance", "all_token", lambda m: m.accepted, summary_column="acceptance"),
    Comparison("A", "acceptance", "compute_matched", lambda m: m.accepted, summary_column="acceptance"),
    Comparison("A", "fabricated_observation", "all_token", lambda m: m.fabricated_turns > 0, suite=None),
    Comparison("B", "renamed_first_call_sfa", "augmented", _first_call_follows_schema, regime="renamed"),
    Comparison("B", "renamed_acceptance", "augmented", lambda m: m.accepted, regime="renamed"),
    Comparison(
        "C", "recovery", "recovery", lambda m: m.recovered, suite="recovery", summary_column="recovery"
    ),
)


CLAIMS = ("A", "B", "C")
"""Every claim the ablation can test, each the ``ablation`` of its :data:`COMPARISONS`."""


def claim_variants(claims: Sequence[str]) -> set[str]:
    """The variants a run testing ``claims`` trains: the reference and each one their comparisons read."""
    unknown = sorted(set(claims) - set(CLAIMS))
    if unknown or not claims:
        raise ValueError(f"claims are some of {', '.join(CLAIMS)}; got {''.join(claims) or 'none'}")
    return {REFERENCE} | {c.variant for c in COMPARISONS if c.ablation in claims}


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


def competence(runs: Runs, seeds: Sequence[int], gate: float) -> dict[str, Any]:
    """The reference's familiar-schema acceptance per seed, and the seeds that reach ``gate``."""
    rates = {s: familiar_acceptance(runs[(REFERENCE, s)]) for s in seeds}
    return {
        "gate": gate,
        "familiar_acceptance": {str(s): round(rate, 4) for s, rate in rates.items()},
        "gated_seeds": [s for s, rate in rates.items() if reaches_gate(rate, gate)],
        "not_resolved_seeds": [s for s, rate in rates.items() if not reaches_gate(rate, gate)],
    }


def compare(runs: Runs, comparison: Comparison, gated: list[int], alpha: float) -> dict[str, Any]:
    """Paired comparison of ``comparison.variant`` vs the reference over (gated seed, item)."""

    def trials(variant: str, seeds: list[int] = gated) -> list[bool]:
        return [
            comparison.outcome(m)
            for s in seeds
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
    per_seed = {str(s): _rate(trials(comparison.variant, [s])) - _rate(trials(REFERENCE, [s])) for s in gated}
    return {
        **head,
        "resolved": True,
        "gated_seeds": gated,
        **paired.to_dict(),
        "seed_level": seed_level(per_seed, alpha),
    }


def _rate(outcomes: list[bool]) -> float:
    return sum(outcomes) / len(outcomes)


def seed_level(per_seed: dict[str, float], alpha: float) -> dict[str, Any]:
    """The comparison read with the seed as the unit: each gated seed's rate difference, their
    mean, the exact sign-flip p-value (:func:`~trajectory_platform.evaluation.stats.sign_flip_p`)
    with the smallest p so many seeds can give, and the test inverted into an interval at ``alpha``
    (``None`` while that smallest p is above ``alpha``: so few seeds bound nothing). Beside the
    paired interval because one variant's acceptance swings between seeds far more than trials of
    one seed vary."""
    differences = list(per_seed.values())
    interval = sign_flip_interval(differences, alpha)
    return {
        "per_seed": per_seed,
        "mean": sum(differences) / len(differences),
        "p_value": sign_flip_p(differences),
        "smallest_p": sign_flip_floor(len(differences)),
        "interval": list(interval) if interval else None,
    }


def read_ablation(
    runs: Runs,
    seeds: Sequence[int],
    gate: float,
    keys: dict[str, set[str]],
    claims: Sequence[str] = CLAIMS,
) -> dict[str, Any]:
    """Everything the experiment concludes: variant table, the competence gate and every comparison
    of ``claims``, at alpha 0.05 over the claims tested (``keys``: each variant's declared argument
    keys, for PRE)."""
    gated = competence(runs, seeds, gate)
    alpha = bonferroni_alpha(0.05, len(claims))
    return {
        **gated,
        "claims": "".join(claims),
        "bonferroni_alpha": alpha,
        "variants": {
            name: {k: row[k] for k in SUMMARY_COLUMNS} for name, row in summaries(runs, keys).items()
        },
        "comparisons": [
            compare(runs, c, gated["gated_seeds"], alpha) for c in COMPARISONS if c.ablation in claims
        ],
    }


POOLED_RECIPE = (
    "tier",
    "steps",
    "batch",
    "lr",
    "episodes",
    "recovery_episodes",
    "claims",
    "preamble_warmup_steps",
    "tasks",
    "gate",
    "max_new_tokens",
    "max_generated_tokens",
    "bonferroni_alpha",
)
"""What two ``--full`` results must share to be pooled: the same experiment, on other seeds."""

UNRECORDED_RECIPE = {"lr": 3e-3, "episodes": 48, "recovery_episodes": 24, "claims": "ABC"}
"""What a result written before ``--full`` recorded these keys (2026-12-05) ran at: every committed
one used the defaults of its day (the learning rate has been 3e-3 since the script began; its
comparisons' n of 48 per gated seed shows the episodes, and 24 per gated seed the recovery trials,
half of them as the script has always drawn; every one tested all three claims)."""


def _recipe(result: dict[str, Any], key: str) -> Any:
    return result.get(key, UNRECORDED_RECIPE.get(key))


_TABLE = ("both_pass", "candidate_only", "baseline_only", "both_fail")


def _per_seed(
    result: dict[str, Any], index: int, ablation: str, metric: str, variant: str
) -> dict[str, float]:
    """One resolved comparison's per-seed differences in ``result``: as recorded (results written
    since 2026-12-05), else from the variant table where a column holds exactly its trials' rate;
    empty when neither (that comparison is then pooled over trials only, as the result was read)."""
    recorded = result["comparisons"][index]
    if "seed_level" in recorded:
        return dict(recorded["seed_level"]["per_seed"])
    named = (ablation, metric, variant)
    column = next((c.summary_column for c in COMPARISONS if (c.ablation, c.metric, c.variant) == named), None)
    if column is None:
        return {}
    rows = result["variants"]
    return {
        str(s): rows[f"{variant}-{s}"][column] - rows[f"{REFERENCE}-{s}"][column]
        for s in recorded["gated_seeds"]
    }


def pool(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Several resolved ``--full`` results of one recipe on disjoint seeds read as one experiment.

    A paired comparison depends on its trials only through their 2x2 table (both pass, candidate
    only, reference only, both fail), so every comparison's tables are summed over the results and
    its interval and p-value recomputed at the shared Bonferroni level: exactly what one run over
    all the seeds would report. Raises ``ValueError`` naming the first difference that makes the
    results different experiments (the recipe, an overlapping seed, another set of comparisons).
    """
    if len(results) < 2:
        raise ValueError("pooling needs at least two results")
    for key in POOLED_RECIPE:
        if len({json.dumps(_recipe(r, key)) for r in results}) > 1:
            raise ValueError(f"the results differ in {key!r}: not one experiment")
    seeds: list[int] = []
    for result in results:
        if "comparisons" not in result:
            raise ValueError(
                "a result without comparisons (refused, plan-only or stopped early) cannot be pooled"
            )
        seeds += [int(s) for s in result["familiar_acceptance"]]
    if len(set(seeds)) < len(seeds):
        raise ValueError(f"the results share a seed ({sorted(seeds)}): pool results of disjoint seeds only")
    names = [[(c["ablation"], c["metric"], c["variant"]) for c in r["comparisons"]] for r in results]
    if any(n != names[0] for n in names):
        raise ValueError("the results compare different variants or metrics: not one experiment")
    alpha = results[0]["bonferroni_alpha"]
    comparisons = []
    for index, (ablation, metric, variant) in enumerate(names[0]):
        resolved = [r["comparisons"][index] for r in results if r["comparisons"][index]["resolved"]]
        head = {"ablation": ablation, "metric": metric, "variant": variant, "reference": REFERENCE}
        if not resolved:
            comparisons.append({**head, "resolved": False, "reason": "no seed passed the competence gate"})
            continue
        counts = {k: sum(c[k] for c in resolved) for k in _TABLE}
        candidate = [True] * (counts["both_pass"] + counts["candidate_only"]) + [False] * (
            counts["baseline_only"] + counts["both_fail"]
        )
        reference = (
            [True] * counts["both_pass"]
            + [False] * counts["candidate_only"]
            + [True] * counts["baseline_only"]
            + [False] * counts["both_fail"]
        )
        gated = sorted(s for c in resolved for s in c["gated_seeds"])
        paired = paired_comparison(candidate, reference, alpha=alpha)
        parts = [
            _per_seed(r, index, ablation, metric, variant)
            for r in results
            if r["comparisons"][index]["resolved"]
        ]
        by_seed = (
            {"seed_level": seed_level({k: v for part in parts for k, v in part.items()}, alpha)}
            if all(parts)
            else {}
        )
        comparisons.append({**head, "resolved": True, "gated_seeds": gated, **paired.to_dict(), **by_seed})
    return {
        **{key: _recipe(results[0], key) for key in POOLED_RECIPE},
        "pooled_seeds": sorted(seeds),
        "familiar_acceptance": {k: v for r in results for k, v in r["familiar_acceptance"].items()},
        "gated_seeds": sorted(s for r in results for s in r["gated_seeds"]),
        "not_resolved_seeds": sorted(s for r in results for s in r["not_resolved_seeds"]),
        "variants": {k: v for r in results for k, v in r["variants"].items()},
        "comparisons": comparisons,
    }
